// SPDX-License-Identifier: GPL-2.0
//! What the MSDC model exchanges with the card besides commands and data: the line levels
//! `MSDC_PS` reports, the card clock starting and stopping, the eMMC hardware reset pulse
//! on `EMMC_IOCON`, and the SDIO interrupt latching in `MSDC_INT.SDIOIRQ`.

mod msdc_sampling_rig;

use models::msdc::regs::{
    BusWidth, EMMC_IOCON, MSDC_CFG, MSDC_INT, MSDC_INTEN, MSDC_PS, SDC_ADV_CFG0, SDC_CFG,
};
use models::msdc::{ModelClock, ModelConfig};
use msdc_sampling_rig::{Rig, RUNNING};

fn rig() -> Rig {
    Rig::new(ModelConfig::default())
}

fn ps(rig: &mut Rig) -> MSDC_PS {
    MSDC_PS::from_raw(rig.read(MSDC_PS::OFFSET))
}

#[test]
fn msdc_ps_reports_the_card_lines_as_of_the_last_step() {
    let mut rig = rig();
    // Before the model has looked at the card: the idle bus.
    assert_eq!(ps(&mut rig).dat(), 0xFF);
    assert!(ps(&mut rig).cmd());
    // An SD card in its voltage switch holds CMD and DAT3..DAT0 low.
    rig.card.data_lines = 0;
    rig.card.cmd_line = false;
    assert_eq!(ps(&mut rig).dat(), 0xFF, "not seen before a step");
    rig.step();
    let p = ps(&mut rig);
    assert_eq!(p.dat(), 0xF0, "DAT7..DAT4 pulled up");
    assert!(!p.cmd());
    assert_eq!(p.dat() & 1, 0, "DAT0 low: msdc_card_busy says busy");
    // DAT1 low alone (an SDIO interrupt): MSDC_PS_DATA1 (bit 17) clear.
    rig.card.data_lines = 0b1101;
    rig.card.cmd_line = true;
    rig.step();
    let raw = rig.read(MSDC_PS::OFFSET);
    assert_eq!(raw & (1 << 17), 0);
    assert_ne!(raw & (1 << 16), 0);
    assert_ne!(raw & (1 << 24), 0, "MSDC_PS_CMD");
    // The writable fields are kept beside the levels.
    let cd = MSDC_PS::zeroed()
        .with_cden(true)
        .with_const_cddebounce::<3>();
    rig.write(MSDC_PS::OFFSET, cd.raw() | 0xFFFF_0000);
    let p = ps(&mut rig);
    assert!(p.cden());
    assert_eq!(p.cddebounce(), 3);
    assert_eq!(p.dat(), 0xFD, "levels are read only");
    // A power cycle does not change what the card drives.
    rig.model.power_off();
    rig.model.power_on();
    assert_eq!(ps(&mut rig).dat(), 0xFD);
}

#[test]
fn the_card_hears_when_its_clock_starts_and_stops() {
    let mut rig = rig();
    // The rig set CKPDN: the clock runs from the first step on.
    rig.step();
    assert_eq!(rig.card.clock_log, [true]);
    rig.step();
    assert_eq!(rig.card.clock_log, [true], "no news, no call");
    // set_ios with clock 0: msdc_set_mclk clears CKPDN (the SD voltage switch's gap).
    rig.write(MSDC_CFG::OFFSET, RUNNING.with_ckpdn(false).raw());
    assert_eq!(rig.card.clock_log, [true], "told at the next step");
    rig.step();
    assert_eq!(rig.card.clock_log, [true, false]);
    rig.write(MSDC_CFG::OFFSET, RUNNING.raw());
    rig.step();
    assert_eq!(rig.card.clock_log, [true, false, true]);
    // Gating the source clock stops the card clock too (the step makes no progress).
    rig.model.set_clock(ModelClock::Source, false);
    assert!(!rig.step());
    assert_eq!(rig.card.clock_log, [true, false, true, false]);
    rig.model.set_clock(ModelClock::Source, true);
    rig.step();
    assert_eq!(rig.card.clock_log, [true, false, true, false, true]);
    // Power off resets MSDC_CFG: stopped, and still stopped when the power returns.
    rig.model.power_off();
    rig.step();
    rig.model.power_on();
    rig.step();
    assert_eq!(rig.card.clock_log, [true, false, true, false, true, false]);
    assert_eq!(rig.model.violations().0, 0);
}

#[test]
fn an_emmc_iocon_pulse_resets_the_card_once() {
    let mut rig = rig();
    let rst = EMMC_IOCON::zeroed().with_hw_rst(true);
    // msdc_hw_reset: set bit 0, 10 µs, clear it.
    rig.write(EMMC_IOCON::OFFSET, rst.raw());
    assert_eq!(rig.read(EMMC_IOCON::OFFSET), 1);
    rig.write(EMMC_IOCON::OFFSET, 0);
    assert_eq!(rig.card.resets, 0, "delivered at the next step");
    rig.step();
    assert_eq!(rig.card.resets, 1);
    rig.step();
    assert_eq!(rig.card.resets, 1);
    // Clearing an already clear bit, or writing it set twice, is no new pulse.
    rig.write(EMMC_IOCON::OFFSET, 0);
    rig.step();
    rig.write(EMMC_IOCON::OFFSET, rst.raw());
    rig.write(EMMC_IOCON::OFFSET, rst.raw());
    rig.step();
    assert_eq!(rig.card.resets, 2);
    rig.write(EMMC_IOCON::OFFSET, 0);
    rig.step();
    assert_eq!(rig.card.resets, 2);
}

/// SDIO mode as `msdc_init_hw` leaves it for a host that takes SDIO cards
/// (`SDC_CFG.SDIO`, `DAT1_IRQ_TRIGGER`), then `__msdc_enable_sdio_irq(1)` (`SDIOIDE`
/// and the `SDIOIRQ` enable), on a bus of `width`.
fn sdio_rig(width: BusWidth) -> Rig {
    let mut rig = rig();
    let cfg = SDC_CFG::zeroed()
        .with_buswidth(width)
        .with_sdio(true)
        .with_sdioide(true);
    rig.write(SDC_CFG::OFFSET, cfg.raw());
    let adv = SDC_ADV_CFG0::zeroed().with_dat1_irq_trigger(true);
    rig.write(SDC_ADV_CFG0::OFFSET, adv.raw());
    let inten = MSDC_INT::zeroed().with_sdioirq(true);
    rig.write(MSDC_INTEN::OFFSET, inten.raw());
    rig
}

fn sdioirq(rig: &mut Rig) -> bool {
    MSDC_INT::from_raw(rig.read(MSDC_INT::OFFSET)).sdioirq()
}

fn clear_sdioirq(rig: &mut Rig) {
    let w1c = MSDC_INT::zeroed().with_sdioirq(true);
    rig.write(MSDC_INT::OFFSET, w1c.raw());
}

#[test]
fn an_sdio_interrupt_latches_sdioirq_until_cleared() {
    let mut rig = sdio_rig(BusWidth::Four);
    rig.step();
    assert!(!sdioirq(&mut rig));
    rig.card.sdio_irq = true;
    rig.step();
    assert!(sdioirq(&mut rig));
    assert!(rig.model.interrupt_pending());
    // Write 1 to clear; the card still asserts, but the detector took it already.
    clear_sdioirq(&mut rig);
    rig.step();
    assert!(!sdioirq(&mut rig));
    assert!(!rig.model.interrupt_pending());
    // The card releases DAT1 and asserts again: a new interrupt.
    rig.card.sdio_irq = false;
    rig.step();
    rig.card.sdio_irq = true;
    rig.step();
    assert!(sdioirq(&mut rig));
    clear_sdioirq(&mut rig);
    // msdc_irq's disable and msdc_ack_sdio_irq's re-enable while the card still asserts
    // (another function is pending): detected again.
    let cfg = SDC_CFG::from_raw(rig.read(SDC_CFG::OFFSET));
    rig.write(SDC_CFG::OFFSET, cfg.with_sdioide(false).raw());
    rig.step();
    assert!(!sdioirq(&mut rig));
    rig.write(SDC_CFG::OFFSET, cfg.raw());
    rig.step();
    assert!(sdioirq(&mut rig));
    // The interrupt enable gates the line, not the status.
    rig.write(MSDC_INTEN::OFFSET, 0);
    assert!(sdioirq(&mut rig));
    assert!(!rig.model.interrupt_pending());
    assert_eq!(rig.model.violations().0, 0);
}

#[test]
fn no_sdio_interrupt_without_sdio_mode_detection_or_dat1_trigger() {
    let cases: [fn(&mut Rig); 3] = [
        |rig| {
            let cfg = SDC_CFG::from_raw(rig.read(SDC_CFG::OFFSET));
            rig.write(SDC_CFG::OFFSET, cfg.with_sdio(false).raw());
        },
        |rig| {
            let cfg = SDC_CFG::from_raw(rig.read(SDC_CFG::OFFSET));
            rig.write(SDC_CFG::OFFSET, cfg.with_sdioide(false).raw());
        },
        |rig| rig.write(SDC_ADV_CFG0::OFFSET, 0),
    ];
    for (i, off) in cases.into_iter().enumerate() {
        let mut rig = sdio_rig(BusWidth::Four);
        off(&mut rig);
        rig.card.sdio_irq = true;
        rig.step();
        assert!(!sdioirq(&mut rig), "case {i}");
    }
}

#[test]
fn on_a_4_bit_bus_the_interrupt_waits_for_the_end_of_the_data_phase() {
    for (width, during_data) in [(BusWidth::Four, false), (BusWidth::One, true)] {
        let mut rig = sdio_rig(width);
        // A read whose DMA is not started yet: the data phase stays open.
        let word = models::msdc::regs::SDC_CMD::zeroed()
            .with_const_opcode::<17>()
            .with_const_rsptyp::<1>()
            .with_const_blklen::<512>()
            .with_dtype(models::msdc::regs::DataType::Single);
        rig.write(models::msdc::regs::SDC_BLK_NUM::OFFSET, 1);
        rig.write(models::msdc::regs::SDC_CMD::OFFSET, word.raw());
        rig.step();
        assert!(rig.model.busy(), "waiting for the DMA");
        rig.card.sdio_irq = true;
        rig.step();
        assert_eq!(sdioirq(&mut rig), during_data, "{width:?}");
        // The data phase ends (aborted with a DMA stop here): the interrupt period begins.
        let stop = models::msdc::regs::MSDC_DMA_CTRL::zeroed().with_stop(true);
        rig.write(models::msdc::regs::MSDC_DMA_CTRL::OFFSET, stop.raw());
        rig.step();
        assert!(sdioirq(&mut rig), "{width:?}");
    }
}
