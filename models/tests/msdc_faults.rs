// SPDX-License-Identifier: GPL-2.0
//! The MSDC model's run-time faults that stand for a corrupted DMA descriptor and for a
//! card stuck busy: what the controller and the card show the host while they last, and
//! what ends them.

mod msdc_sampling_rig;

use models::emmc::command::DEVICE_STATUS;
use models::emmc::CardState;
use models::msdc::controller::BUSY_STUCK_NS;
use models::msdc::regs::{EMMC_IOCON, MSDC_PS, SDC_RESP0, SDC_STS};
use models::msdc::{Fault, FaultScope, ModelConfig};
use msdc_sampling_rig::{Rig, PATTERN, STATUS};

fn rig() -> Rig {
    Rig::new(ModelConfig::default())
}

fn dat0_high(rig: &mut Rig) -> bool {
    MSDC_PS::from_raw(rig.read(MSDC_PS::OFFSET)).dat() & 1 != 0
}

fn sdc_busy(rig: &mut Rig) -> bool {
    SDC_STS::from_raw(rig.read(SDC_STS::OFFSET)).sdcbusy()
}

#[test]
fn a_corrupted_checksum_byte_goes_unnoticed_without_decsen() {
    // The bench's descriptors are not sealed and DECSEN is clear: the engine does not look
    // at the checksum byte, so the fault that flips a bit of it changes nothing the engine
    // uses. (With DECSEN the driver's tests see DMA_GPDCSERR and DMA_BDCSERR.)
    for fault in [Fault::GpdChecksum, Fault::BdChecksum] {
        let mut rig = rig();
        rig.model.inject(fault);
        let int = rig.read_block(17, 512);
        assert!(int.xfer_compl(), "{fault:?}: {int:?}");
        assert!(!int.dma_gpdcserr() && !int.dma_bdcserr());
        assert_eq!(rig.model.pending_fault(), None, "{fault:?} was taken");
        assert!(rig.buffer(512).iter().all(|&b| b == PATTERN));
        assert_eq!(rig.model.violations().0, 0);
    }
}

#[test]
fn checksum_faults_wait_for_a_data_phase() {
    let mut rig = rig();
    rig.model
        .inject_into(Fault::BdChecksum, FaultScope::BlockTransfer);
    assert!(rig.command(13).cmdrdy());
    assert!(rig.read_block(8, 512).xfer_compl(), "not a block transfer");
    assert_eq!(rig.model.pending_fault(), Some(Fault::BdChecksum));
    assert!(rig.read_block(17, 512).xfer_compl());
    assert_eq!(rig.model.pending_fault(), None);
}

#[test]
fn a_card_stuck_busy_after_a_write_holds_dat0_and_answers_only_cmd13_and_cmd0() {
    let mut rig = rig();
    rig.model.inject(Fault::BusyStuck);
    // A read is not what the fault waits for.
    assert!(rig.read_block(17, 512).xfer_compl());
    assert!(dat0_high(&mut rig) && !sdc_busy(&mut rig));
    assert_eq!(rig.model.pending_fault(), Some(Fault::BusyStuck));

    let int = rig.write_block();
    assert!(int.xfer_compl(), "the block went through: {int:?}");
    assert_eq!(rig.card.written.len(), 512);
    assert!(rig.model.card_stuck_busy());
    assert!(!dat0_high(&mut rig), "DAT0 held low");
    assert!(
        sdc_busy(&mut rig),
        "the controller's busy detection follows DAT0"
    );
    assert!(!rig.idle());

    // CMD13: the card is programming, not ready for data.
    assert!(rig.command(13).cmdrdy());
    let status = DEVICE_STATUS::from_raw(rig.read(SDC_RESP0::OFFSET));
    assert_eq!(status.current_state(), Some(CardState::Prg));
    assert!(!status.ready_for_data());
    // Anything else is illegal in prg: no response, and the card never saw it.
    let before = rig.card.commands.len();
    assert!(rig.command(16).cmdtmo());
    assert_eq!(rig.card.commands.len(), before, "the card never saw it");
    assert_eq!(rig.card.commands.last(), Some(&13), "CMD13 reached it");
    // A controller reset does not reach the card.
    rig.set_bits(models::msdc::regs::MSDC_CFG::OFFSET, 1 << 2);
    rig.step();
    assert!(rig.model.card_stuck_busy());

    // CMD0 resets the card: DAT0 released.
    rig.command(0);
    assert!(!rig.model.card_stuck_busy());
    rig.step();
    assert!(dat0_high(&mut rig) && !sdc_busy(&mut rig));
    assert!(rig.command(13).cmdrdy());
    assert_eq!(
        rig.read(SDC_RESP0::OFFSET),
        STATUS,
        "the card's own status again"
    );
    assert_eq!(rig.model.violations().0, 0);
}

#[test]
fn a_card_stuck_busy_releases_after_its_time_or_on_a_hardware_reset() {
    let mut rig = rig();
    rig.model.inject(Fault::BusyStuck);
    assert!(rig.write_block().xfer_compl());
    rig.model.elapse(BUSY_STUCK_NS - 1);
    rig.step();
    assert!(!dat0_high(&mut rig), "still busy just before its time");
    rig.model.elapse(1);
    rig.step();
    assert!(dat0_high(&mut rig) && !sdc_busy(&mut rig));

    rig.model.inject(Fault::BusyStuck);
    assert!(rig.write_block().xfer_compl());
    assert!(!dat0_high(&mut rig));
    // RST_n pulse (EMMC_IOCON bit 0), as msdc_hw_reset gives it.
    rig.write(EMMC_IOCON::OFFSET, 1);
    rig.write(EMMC_IOCON::OFFSET, 0);
    rig.step();
    assert_eq!(rig.card.resets, 1);
    assert!(dat0_high(&mut rig) && !sdc_busy(&mut rig));
}

#[test]
fn busy_stuck_on_an_r1b_command_starts_at_its_response() {
    let mut rig = rig();
    rig.model.inject(Fault::BusyStuck);
    // R1 commands do not take it.
    assert!(rig.command(13).cmdrdy());
    assert_eq!(rig.model.pending_fault(), Some(Fault::BusyStuck));
    assert!(rig.r1b_command(6).cmdrdy());
    assert!(rig.model.card_stuck_busy());
    assert!(!dat0_high(&mut rig) && sdc_busy(&mut rig));
}

#[test]
fn a_recovery_command_with_a_bad_response_crc_still_reaches_the_card() {
    // The CMD48 and CMD12 of the MMC core's CQE recovery: only the command named takes the
    // fault, and the card runs it before its response is corrupted on the way back.
    let mut rig = rig();
    rig.model
        .inject_into(Fault::ResponseCrc, FaultScope::Opcode(48));
    assert!(rig.command(13).cmdrdy());
    assert!(rig.r1b_command(6).cmdrdy());
    assert!(rig.read_block(17, 512).xfer_compl());
    assert!(rig.read_block(8, 512).xfer_compl());
    assert_eq!(rig.model.pending_fault(), Some(Fault::ResponseCrc));
    let int = rig.r1b_command(48);
    assert!(int.rspcrcerr() && !int.cmdrdy() && !int.cmdtmo(), "{int:?}");
    assert_eq!(rig.card.commands.last(), Some(&48), "the card ran CMD48");
    assert_eq!(rig.model.pending_fault(), None);
    // The next CMD48 is answered cleanly again.
    assert!(rig.r1b_command(48).cmdrdy());

    // CMD12 (with the stop flag its command word must carry).
    rig.model
        .inject_into(Fault::ResponseCrc, FaultScope::Opcode(12));
    let word = models::msdc::regs::SDC_CMD::zeroed()
        .try_with_opcode(12)
        .and_then(|c| c.try_with_rsptyp(models::msdc::regs::ResponseType::R1b as u32))
        .unwrap()
        .with_stop(true);
    rig.write(models::msdc::regs::SDC_CMD::OFFSET, word.raw());
    rig.run();
    let int = rig.take_int();
    assert!(int.rspcrcerr() && !int.cmdrdy(), "{int:?}");
    assert_eq!(rig.card.commands.last(), Some(&12), "the card ran CMD12");
    assert_eq!(rig.model.violations().0, 0);
}

#[test]
fn a_completion_stays_latched_across_a_controller_reset_until_acknowledged() {
    // The request time-out racing the completion interrupt: the command finished, its
    // CMDRDY is latched and the line up when the watchdog resets the controller. The reset
    // (MSDC_CFG.RST) does not clear MSDC_INT: upstream's msdc_reset_hw acknowledges what
    // is pending itself, and only that ends the interrupt.
    let mut rig = rig();
    rig.write(models::msdc::regs::MSDC_INTEN::OFFSET, u32::MAX);
    let word = models::msdc::regs::SDC_CMD::zeroed()
        .try_with_opcode(13)
        .and_then(|c| c.try_with_rsptyp(models::msdc::regs::ResponseType::R1 as u32))
        .unwrap();
    rig.write(models::msdc::regs::SDC_CMD::OFFSET, word.raw());
    rig.run();
    assert!(rig.model.interrupt_pending());
    rig.set_bits(models::msdc::regs::MSDC_CFG::OFFSET, 1 << 2);
    rig.step();
    let int =
        models::msdc::regs::MSDC_INT::from_raw(rig.read(models::msdc::regs::MSDC_INT::OFFSET));
    assert!(int.cmdrdy(), "{int:?}");
    assert!(rig.model.interrupt_pending(), "the line stays up");
    rig.write(models::msdc::regs::MSDC_INT::OFFSET, int.raw());
    assert!(!rig.model.interrupt_pending());
    assert_eq!(rig.model.violations().0, 0);
}

#[test]
fn a_slow_dma_stop_reads_set_until_its_time_and_ignores_an_early_start() {
    use models::msdc::regs::{MSDC_DMA_CFG, MSDC_DMA_CTRL};
    use models::msdc::Violation;
    let mut rig = Rig::new(ModelConfig::default());
    let stop = MSDC_DMA_CTRL::zeroed().with_stop(true);
    let stopping = |rig: &mut Rig| MSDC_DMA_CTRL::from_raw(rig.read(MSDC_DMA_CTRL::OFFSET)).stop();
    // A stop without bus load: one read with STOP set, then done.
    rig.write(MSDC_DMA_CTRL::OFFSET, stop.raw());
    assert!(stopping(&mut rig));
    assert!(!stopping(&mut rig));
    // Under load: STOP stays set for the injected time, STS reads idle all along.
    rig.model.inject_slow_dma_stop(300_000);
    assert!(rig.model.slow_dma_stop_pending());
    rig.write(MSDC_DMA_CTRL::OFFSET, stop.raw());
    assert!(!rig.model.slow_dma_stop_pending());
    assert_eq!(rig.model.slow_dma_stops(), 1);
    for _ in 0..10 {
        assert!(stopping(&mut rig));
        assert!(!MSDC_DMA_CFG::from_raw(rig.read(MSDC_DMA_CFG::OFFSET)).sts());
    }
    rig.model.elapse(299_999);
    assert!(stopping(&mut rig));
    // A start before the stop completed: ignored, and the hardware's rule is broken.
    rig.arm_dma(512);
    assert!(!MSDC_DMA_CFG::from_raw(rig.read(MSDC_DMA_CFG::OFFSET)).sts());
    assert_eq!(rig.model.violations().0, 1);
    assert_eq!(
        rig.model.violations().1[0],
        Some(Violation::DmaStartWhileStopping)
    );
    rig.model.elapse(1);
    assert!(!stopping(&mut rig));
    // Once the stop completed, a transfer runs.
    let int = rig.read_block(17, 512);
    assert!(int.xfer_compl(), "{int:?}");
    assert_eq!(rig.model.violations().0, 1);
    // The next stop is quick again.
    rig.write(MSDC_DMA_CTRL::OFFSET, stop.raw());
    assert!(stopping(&mut rig));
    assert!(!stopping(&mut rig));
}
