// SPDX-License-Identifier: GPL-2.0
//! The MSDC model behind `models::bus::Bus`, driven as the driver drives hardware: through the
//! register layer's `Io<MsdcBase>` with the model's own typed registers. Offsets and bits
//! written as numbers here are checked against the MSDC register map (mtk-sd.c).

use models::bus::Bus;
use models::emmc::{Card, ReadyOrder};
use models::msdc::controller::{CLOCK_SETTLE_NS, RESET_POLLS};
use models::msdc::regs::{
    BusWidth, ClockMode, DataType, MSDC_CFG, MSDC_DMA_CFG, MSDC_FIFOCS, MSDC_INT, MSDC_INTEN,
    MSDC_PATCH_BIT2, MSDC_PS, SDC_ARG, SDC_BLK_NUM, SDC_CFG, SDC_CMD, SDC_RESP0, SDC_STS,
};
use models::msdc::{ModelClock, ModelConfig, MsdcModel};
use models::windows::MsdcBase;
use models::Ram;
use registers::{Io, PollLimit, Register, Window};

/// A model fresh from power-on, on a bus.
fn bus() -> Bus<MsdcModel> {
    Bus::new(MsdcModel::new(ModelConfig::default()))
}

/// Polls `attempts` times with no time between reads (the model settles by reads).
fn reads(attempts: u32) -> PollLimit {
    PollLimit {
        attempts,
        interval_us: 1,
    }
}

/// Driver code sees only the window: this compiles for a `Bus<MsdcModel>` because the model
/// serves `MsdcBase`.
fn reset_controller(io: &impl Io<MsdcBase>, limit: PollLimit) -> Result<MSDC_CFG, u32> {
    io.update::<MSDC_CFG>(|cfg| cfg.with_mode(true).with_rst(true));
    io.poll::<MSDC_CFG>(|cfg| !cfg.rst(), limit)
        .map_err(|timeout| timeout.last)
}

#[test]
fn reset_bit_clears_itself_and_a_bounded_poll_sees_it() {
    let bus = bus();
    let cfg = reset_controller(&bus, reads(RESET_POLLS + 1)).unwrap();
    assert!(cfg.mode());
    assert!(!cfg.rst());
    assert!(cfg.ckstb(), "no clock change: the clock stays stable");

    // Too few reads: the poll gives up and reports the last value, RST still set.
    let last = reset_controller(&bus, reads(RESET_POLLS)).unwrap_err();
    assert!(MSDC_CFG::from_raw(last).rst());
    let err = bus.poll::<MSDC_CFG>(|cfg| cfg.rst(), reads(1)).unwrap_err();
    assert_eq!(err.register, "MSDC_CFG");
    assert_eq!(bus.model().violations().0, 0);
}

/// A poll 1 µs apart that outlasts the clock's settling: one read more than it takes.
fn settling() -> PollLimit {
    reads(u32::try_from(CLOCK_SETTLE_NS / 1_000).unwrap() + 1)
}

#[test]
fn clock_stable_returns_after_the_settling_time() {
    let bus = bus();
    bus.write(
        MSDC_CFG::zeroed()
            .with_mode(true)
            .with_ckmod(ClockMode::Divided)
            .with_const_ckdiv::<4>(),
    );
    // A poll that ends before the clock settles gives up with CKSTB clear.
    let err = bus.poll::<MSDC_CFG>(MSDC_CFG::ckstb, reads(2)).unwrap_err();
    assert!(!MSDC_CFG::from_raw(err.last).ckstb());
    let cfg = bus.poll::<MSDC_CFG>(MSDC_CFG::ckstb, settling()).unwrap();
    assert_eq!(cfg.ckdiv(), 4);
    // CKDIV 4 in divided mode: source / 16.
    assert_eq!(bus.model().bus_clock_hz(), 200_000_000 / 16);
}

/// Hardware's clock settles in time, not in reads. Reads without time passing leave CKSTB
/// clear however many they are; and a poll held up past the settling time (upstream's
/// `readl_poll_timeout()` in `msdc_ungate_clock()`, mtk-sd.c:971, whose CPU was taken away
/// for its 20 ms: it reads once more after its time limit and gives up on that read) finds
/// CKSTB set at its first read after the hold-up, after a divider change as after an
/// ungate.
#[test]
fn clock_stable_is_a_time_not_a_count_of_reads() {
    let bus = bus();
    bus.write(MSDC_CFG::zeroed().with_mode(true).with_const_ckdiv::<4>());
    for read in 0..100 {
        assert!(!bus.read::<MSDC_CFG>().ckstb(), "CKSTB set at read {read}");
    }
    bus.model().elapse(CLOCK_SETTLE_NS - 1);
    assert!(!bus.read::<MSDC_CFG>().ckstb(), "1 ns early");
    bus.model().elapse(1);
    assert!(bus.read::<MSDC_CFG>().ckstb());

    for ungate in [false, true] {
        if ungate {
            bus.model().set_clock(ModelClock::Source, false);
            bus.model().set_clock(ModelClock::Source, true);
        } else {
            bus.update::<MSDC_CFG>(|cfg| cfg.with_const_ckdiv::<8>());
        }
        bus.model().elapse(20_000_000);
        assert!(bus.read::<MSDC_CFG>().ckstb(), "the first read after 20 ms");
    }
    assert_eq!(bus.model().violations().0, 0);
}

#[test]
fn fifo_clear_is_self_clearing() {
    let bus = bus();
    bus.write(MSDC_FIFOCS::zeroed().with_clr(true));
    let fifo = bus
        .poll::<MSDC_FIFOCS>(|f| !f.clr(), reads(RESET_POLLS + 1))
        .unwrap();
    assert_eq!(fifo.rxcnt(), 0);
    assert_eq!(fifo.txcnt(), 0);
}

#[test]
fn typed_registers_and_the_bus_agree_on_offsets() {
    // The model's definitions against the MSDC register map.
    assert_eq!(<MSDC_CFG as Register>::OFFSET, 0x00);
    assert_eq!(<MSDC_PS as Register>::OFFSET, 0x08);
    assert_eq!(<MSDC_INT as Register>::OFFSET, 0x0C);
    assert_eq!(<MSDC_INTEN as Register>::OFFSET, 0x10);
    assert_eq!(<SDC_CFG as Register>::OFFSET, 0x30);
    assert_eq!(<SDC_CMD as Register>::OFFSET, 0x34);
    assert_eq!(<SDC_ARG as Register>::OFFSET, 0x38);
    assert_eq!(<SDC_BLK_NUM as Register>::OFFSET, 0x50);
    assert_eq!(<MSDC_DMA_CFG as Register>::OFFSET, 0x9C);
    assert_eq!(<MSDC_PATCH_BIT2 as Register>::OFFSET, 0xB8);
    assert_eq!(
        <<SDC_CMD as Register>::Window as Window>::NAME,
        <MsdcBase as Window>::NAME
    );

    // A typed write through the bus lands at the offset the model decodes, and back.
    let bus = bus();
    bus.write(SDC_ARG::from_raw(0x1234_5678));
    assert_eq!(bus.model().read(0x38), 0x1234_5678);
    bus.model().write(SDC_BLK_NUM::OFFSET, 7);
    assert_eq!(bus.read::<SDC_BLK_NUM>().raw(), 7);
    assert_eq!(Io::<MsdcBase>::read32(&bus, 0x50), 7);

    let written = bus.update::<SDC_CFG>(|c| c.with_buswidth(BusWidth::Four));
    assert_eq!(written.raw(), 1 << 16);
    assert_eq!(bus.model().read(SDC_CFG::OFFSET), 1 << 16);
    assert_eq!(bus.read::<SDC_CFG>().buswidth(), Some(BusWidth::Four));
    assert_eq!(bus.model().violations().0, 0);
}

#[test]
fn read_only_and_missing_bits_read_as_the_hardware_has_them() {
    let bus = bus();
    // Every line idle high, a card present, not write protected.
    let ps = bus.read::<MSDC_PS>();
    assert_eq!(ps.dat(), 0xFF);
    assert!(ps.cmd());
    assert!(!ps.cdsts());
    assert!(!ps.wp());
    // Enables exist for bits 19:0 but 2.
    Io::<MsdcBase>::write32(&bus, MSDC_INTEN::OFFSET, u32::MAX);
    assert_eq!(bus.read::<MSDC_INTEN>().raw(), 0x000F_FFFB);
    // DMA_CFG.STS is read only: clear while the DMA is not armed.
    bus.write(MSDC_DMA_CFG::zeroed().with_sts(true).with_decsen(true));
    let dma_cfg = bus.read::<MSDC_DMA_CFG>();
    assert!(!dma_cfg.sts());
    assert!(dma_cfg.decsen());
}

#[test]
fn a_command_runs_through_the_bus() {
    let mut storage = vec![0u8; 1 << 20];
    let mut card = Card::new(&mut storage, 32, ReadyOrder::Immediate);
    let mut memory = [0u8; 64];
    let mut ram = Ram::new(0x8000_0000, &mut memory);
    let bus = bus();
    reset_controller(&bus, reads(RESET_POLLS + 1)).unwrap();
    // Identification clock: 200 MHz / (4 × 125) = 400 kHz, then wait for it to settle.
    bus.update::<MSDC_CFG>(|cfg| cfg.with_const_ckdiv::<125>());
    bus.poll::<MSDC_CFG>(MSDC_CFG::ckstb, settling()).unwrap();
    assert_eq!(bus.model().bus_clock_hz(), 400_000);
    bus.write(MSDC_INTEN::from_raw(
        MSDC_INT::zeroed().with_cmdrdy(true).raw(),
    ));

    // CMD0, no response.
    bus.write(SDC_ARG::zeroed());
    bus.write(SDC_CMD::zeroed().with_dtype(DataType::None));
    let sts = bus.read::<SDC_STS>();
    assert!(sts.cmdbusy());
    assert!(!sts.sdcbusy());
    assert!(bus.model().step(&mut card, &mut ram));
    assert!(!bus.read::<SDC_STS>().cmdbusy());
    assert!(bus.read::<MSDC_INT>().cmdrdy());
    assert!(bus.model().interrupt_pending());
    // Write 1 to clear.
    bus.write(MSDC_INT::zeroed().with_cmdrdy(true));
    assert_eq!(bus.read::<MSDC_INT>().raw(), 0);
    assert!(!bus.model().interrupt_pending());

    // CMD1 expecting an R3 (RSPTYP 3): the OCR lands in SDC_RESP0.
    bus.write(SDC_ARG::from_raw(0x00FF_8080));
    bus.write(
        SDC_CMD::zeroed()
            .with_const_opcode::<1>()
            .with_const_rsptyp::<3>(),
    );
    assert_eq!(bus.model().run(&mut card, &mut ram, 4), 1);
    assert!(bus.read::<MSDC_INT>().cmdrdy());
    assert_eq!(bus.read::<SDC_RESP0>().raw() & 0x00FF_8080, 0x00FF_8080);
    assert_eq!(bus.model().commands(), 2);
    assert_eq!(bus.model().violations().0, 0);
}
