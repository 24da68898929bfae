// SPDX-License-Identifier: GPL-2.0
//! A card that programs after a write: XFER_COMPL with the CRC status, then DAT0 held low
//! for the programming time, which `SDC_STS.SDCBUSY` and `MSDC_PS` show until the model
//! clock reaches its end (`models/README.md`, "Write busy after the transfer").

mod msdc_sampling_rig;

use models::bus::RegisterFile;
use models::emmc::command::DEVICE_STATUS;
use models::emmc::CardState;
use models::latency::Latency;
use models::msdc::regs::{EMMC_IOCON, MSDC_PS, SDC_RESP0, SDC_STS};
use models::msdc::{Fault, ModelConfig};
use msdc_sampling_rig::{Rig, STATUS};

/// Upstream's wait for a busy controller before an R1b or data command
/// (`msdc_cmd_is_ready`: `readl_poll_timeout_atomic(..., 1, 20000)`): 1 µs apart, 20 ms.
const UPSTREAM_POLL_US: u32 = 20_000;

const MS: u64 = 1_000_000;

fn rig() -> Rig {
    Rig::new(ModelConfig::default())
}

fn sts(rig: &mut Rig) -> SDC_STS {
    SDC_STS::from_raw(rig.read(SDC_STS::OFFSET))
}

fn dat0_high(rig: &mut Rig) -> bool {
    MSDC_PS::from_raw(rig.read(MSDC_PS::OFFSET)).dat() & 1 != 0
}

/// `msdc_cmd_is_ready`'s second poll against the model: reads of `SDC_STS` until SDCBUSY
/// clears, the busy-wait between two reads passed to the model; whether it cleared.
fn upstream_sdcbusy_poll(rig: &mut Rig) -> bool {
    for _ in 0..UPSTREAM_POLL_US {
        if !sts(rig).sdcbusy() {
            return true;
        }
        RegisterFile::wait_us(&mut rig.model, 1);
    }
    !sts(rig).sdcbusy()
}

#[test]
fn xfer_compl_comes_before_the_busy_which_shows_on_sdcbusy_and_dat0() {
    let mut rig = rig();
    rig.model.inject(Fault::ProgramBusy(5 * MS));
    let int = rig.write_block();
    assert!(int.xfer_compl(), "the transfer completed: {int:?}");
    assert!(!int.datcrcerr() && !int.dattmo());
    assert_eq!(rig.card.written.len(), 512, "the card took the block");
    assert_eq!(rig.model.card_busy_left_ns(), 5 * MS);
    let s = sts(&mut rig);
    assert!(s.sdcbusy(), "the controller's busy follows DAT0");
    assert!(!s.cmdbusy(), "the command line is free");
    assert!(
        !dat0_high(&mut rig),
        "DAT0 held low: msdc_card_busy says busy"
    );
    assert!(rig.model.card_stuck_busy());
    assert_eq!(rig.model.violations().0, 0);
}

#[test]
fn the_busy_ends_at_its_time_on_the_model_clock_without_a_step() {
    let mut rig = rig();
    rig.model.inject(Fault::ProgramBusy(5 * MS));
    assert!(rig.write_block().xfer_compl());
    rig.model.elapse(5 * MS - 1);
    assert!(sts(&mut rig).sdcbusy() && !dat0_high(&mut rig));
    rig.model.elapse(1);
    // No step ran: the registers read the present time.
    assert!(!sts(&mut rig).sdcbusy() && dat0_high(&mut rig));
    assert!(rig.idle());
    assert_eq!(rig.model.card_busy_left_ns(), 0);
    // The card answers everything again.
    assert!(rig.command(16).cmdrdy());
    assert_eq!(rig.read(SDC_RESP0::OFFSET), STATUS);
}

#[test]
fn while_programming_the_card_answers_cmd13_and_ignores_data_commands() {
    let mut rig = rig();
    rig.model.inject(Fault::ProgramBusy(5 * MS));
    assert!(rig.write_block().xfer_compl());
    // CMD13 (R1, no busy check upstream): prg, not ready for data.
    assert!(rig.command(13).cmdrdy());
    let status = DEVICE_STATUS::from_raw(rig.read(SDC_RESP0::OFFSET));
    assert_eq!(status.current_state(), Some(CardState::Prg));
    assert!(!status.ready_for_data());
    // A read sent anyway (no driver waiting for SDCBUSY): illegal in prg, unanswered; the
    // controller does not hold it back (an assumption, see the README).
    let before = rig.card.commands.len();
    let int = rig.read_block(17, 512);
    assert!(int.cmdtmo() && !int.xfer_compl(), "{int:?}");
    assert_eq!(rig.card.commands.len(), before, "the card never saw it");
    assert_eq!(
        rig.model.violations().0,
        0,
        "{:?}",
        rig.model.last_violation()
    );
    // CMD12 reaches the card: it decides (legal only while it still receives a write).
    // (The bench's word has no STOP bit, a violation of its own.)
    assert!(rig.r1b_command(12).cmdrdy());
    assert_eq!(rig.card.commands.last(), Some(&12));
    assert!(sts(&mut rig).sdcbusy(), "still programming");
}

#[test]
fn only_a_write_takes_the_programming_busy() {
    let mut rig = rig();
    rig.model.inject(Fault::ProgramBusy(5 * MS));
    assert!(rig.read_block(17, 512).xfer_compl());
    assert!(rig.r1b_command(6).cmdrdy());
    assert!(rig.command(13).cmdrdy());
    assert_eq!(rig.model.pending_fault(), Some(Fault::ProgramBusy(5 * MS)));
    assert!(!sts(&mut rig).sdcbusy() && dat0_high(&mut rig));
    assert!(rig.write_block().xfer_compl());
    assert_eq!(rig.model.pending_fault(), None);
    assert!(sts(&mut rig).sdcbusy());
}

#[test]
fn a_reset_of_the_card_ends_the_programming_busy() {
    let mut rig = rig();
    rig.model.inject(Fault::ProgramBusy(5 * MS));
    assert!(rig.write_block().xfer_compl());
    // A controller reset does not reach the card.
    rig.set_bits(models::msdc::regs::MSDC_CFG::OFFSET, 1 << 2);
    rig.step();
    assert!(sts(&mut rig).sdcbusy());
    // RST_n, as msdc_hw_reset pulses it.
    rig.write(EMMC_IOCON::OFFSET, 1);
    rig.write(EMMC_IOCON::OFFSET, 0);
    rig.step();
    assert_eq!(rig.card.resets, 1);
    assert!(!sts(&mut rig).sdcbusy() && dat0_high(&mut rig));

    rig.model.inject(Fault::ProgramBusy(5 * MS));
    assert!(rig.write_block().xfer_compl());
    rig.command(0);
    assert!(
        !sts(&mut rig).sdcbusy() && dat0_high(&mut rig),
        "CMD0 resets it"
    );
}

#[test]
fn upstreams_20_ms_wait_outlasts_a_shorter_busy_and_not_a_longer_one() {
    let mut rig = rig();
    rig.model.inject(Fault::ProgramBusy(10 * MS));
    assert!(rig.write_block().xfer_compl());
    let start = rig.model.now_ns();
    assert!(
        upstream_sdcbusy_poll(&mut rig),
        "10 ms: released inside the wait"
    );
    let waited = rig.model.now_ns() - start;
    assert!((10 * MS..=10 * MS + 1_000).contains(&waited), "{waited} ns");

    rig.model.inject(Fault::ProgramBusy(30 * MS));
    assert!(rig.write_block().xfer_compl());
    assert!(
        !upstream_sdcbusy_poll(&mut rig),
        "30 ms: still busy when the 20 ms wait gives up"
    );
    assert!(rig.model.card_busy_left_ns() <= 10 * MS);
    assert!(
        upstream_sdcbusy_poll(&mut rig),
        "a second wait sees the end"
    );
}

#[test]
fn a_profile_with_busy_on_dat0_moves_its_programming_after_xfer_compl() {
    let folded = Latency::EMMC_HS400_CQ;
    let on_dat0 = Latency {
        busy_on_dat0: true,
        ..folded
    };
    let mut charged = [0u64; 2];
    for (i, latency) in [folded, on_dat0].into_iter().enumerate() {
        let mut rig = Rig::new(ModelConfig {
            latency,
            ..ModelConfig::default()
        });
        rig.model.take_elapsed_ns();
        assert!(rig.write_block().xfer_compl());
        charged[i] = rig.model.take_elapsed_ns();
        let left = rig.model.card_busy_left_ns();
        if latency.busy_on_dat0 {
            assert_eq!(left, latency.program_busy_ns, "the busy follows on DAT0");
            assert!(sts(&mut rig).sdcbusy() && !dat0_high(&mut rig));
            rig.model.elapse(left);
            assert!(rig.idle() && dat0_high(&mut rig));
        } else {
            assert_eq!(left, 0, "folded into the data phase: never seen");
            assert!(rig.idle());
        }
    }
    assert_eq!(
        charged[0] - charged[1],
        Latency::EMMC_HS400_CQ.program_busy_ns,
        "XFER_COMPL comes the programming time earlier"
    );
    // Every constant keeps the folded accounting, so the existing figures stand.
    for l in [
        Latency::ZERO,
        Latency::EMMC,
        Latency::SD,
        Latency::EMMC_HS400_CQ,
        Latency::SD_A2_SDR104,
    ] {
        assert!(!l.busy_on_dat0);
        assert_eq!(l.dat0_busy_ns(), 0);
    }
}
