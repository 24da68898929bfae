// SPDX-License-Identifier: GPL-2.0

//! Interrupt event decoding against the `MSDC_INT` bit layout: ACMDRDY 3, ACMDTMO 4,
//! ACMDCRCERR 5, SDIOIRQ 7, CMDRDY 8, CMDTMO 9, RSPCRCERR 10, XFER_COMPL 12, DATTMO 14,
//! DATCRCERR 15, DMA_BDCSERR 17, DMA_GPDCSERR 18, DMA_PROTECT 19, CMDQ 28.

use mmc_request::ErrorKind;
use msdc::command::ResponseType;
use msdc::errors::*;
use msdc::regs::InterruptSet;
use proptest::prelude::*;

const CDSC: u32 = 1 << 1;
const ACMDRDY: u32 = 1 << 3;
const ACMDTMO: u32 = 1 << 4;
const ACMDCRCERR: u32 = 1 << 5;
const SDIOIRQ: u32 = 1 << 7;
const CMDRDY: u32 = 1 << 8;
const CMDTMO: u32 = 1 << 9;
const RSPCRCERR: u32 = 1 << 10;
const XFER_COMPL: u32 = 1 << 12;
const DXFER_DONE: u32 = 1 << 13;
const DATTMO: u32 = 1 << 14;
const DATCRCERR: u32 = 1 << 15;
const BDCSERR: u32 = 1 << 17;
const GPDCSERR: u32 = 1 << 18;
const PROTECT: u32 = 1 << 19;
const CMDQ: u32 = 1 << 28;

fn events(bits: u32) -> InterruptSet {
    InterruptSet::from_bits_retain(bits)
}

#[test]
fn masks_match_upstream() {
    assert_eq!(
        COMMAND_INTERRUPTS.bits(),
        CMDRDY | RSPCRCERR | CMDTMO | ACMDRDY | ACMDCRCERR | ACMDTMO
    );
    assert_eq!(
        DATA_INTERRUPTS.bits(),
        XFER_COMPL | DATTMO | DATCRCERR | BDCSERR | GPDCSERR | PROTECT
    );
    assert_eq!(COMMAND_DONE.bits(), CMDRDY | RSPCRCERR | CMDTMO);
    assert_eq!(AUTO_COMMAND_DONE.bits(), ACMDRDY | ACMDCRCERR | ACMDTMO);
    assert_eq!(DATA_DONE.bits(), DATA_INTERRUPTS.bits());
    assert_eq!(DMA_FAULTS.bits(), BDCSERR | GPDCSERR | PROTECT);
}

/// The phase is still running.
const RUNNING: Option<Outcome> = None;
/// The phase succeeded.
const OK: Option<Outcome> = Some(Ok(()));
/// The phase timed out.
const TIMED_OUT: Option<Outcome> = Some(Err(ErrorKind::TimedOut));
/// The phase had a CRC error.
const BAD_CRC: Option<Outcome> = Some(Err(ErrorKind::BadCrc));
/// The DMA failed.
const DMA_FAULT: Option<Outcome> = Some(Err(ErrorKind::DmaFault));

/// Checks `decode` on each `(events, outcome)`.
fn assert_outcomes(
    decode: impl Fn(InterruptSet) -> Option<Outcome>,
    cases: &[(u32, Option<Outcome>)],
) {
    for &(bits, outcome) in cases {
        assert_eq!(decode(events(bits)), outcome, "events {bits:#x}");
    }
}

#[test]
fn command_phase() {
    #[rustfmt::skip]
    let r1_cases = [
        (0, RUNNING),
        // Data and auto-command events do not end the command phase.
        (XFER_COMPL | ACMDRDY | SDIOIRQ, RUNNING),
        (CMDRDY, OK),
        (CMDTMO, TIMED_OUT),
        (RSPCRCERR, BAD_CRC),
        // A CRC error is reported before a timeout, as upstream does.
        (RSPCRCERR | CMDTMO, BAD_CRC),
        // Errors win over a ready bit raised alongside.
        (CMDRDY | CMDTMO, TIMED_OUT),
    ];
    assert_outcomes(|e| command_outcome(e, ResponseType::R1), &r1_cases);
    // R1B_NO_CRC ignores CRC errors but not timeouts.
    let no_crc = [(RSPCRCERR, OK), (RSPCRCERR | CMDTMO, TIMED_OUT)];
    assert_outcomes(|e| command_outcome(e, ResponseType::R1bNoCrc), &no_crc);
    assert_outcomes(
        |e| command_outcome(e, ResponseType::R1b),
        &[(RSPCRCERR, BAD_CRC)],
    );
}

#[test]
fn auto_command_phase() {
    #[rustfmt::skip]
    let cases = [
        (CMDRDY, RUNNING),
        (ACMDRDY, OK),
        (ACMDTMO, TIMED_OUT),
        (ACMDCRCERR, BAD_CRC),
        (ACMDCRCERR | ACMDTMO, BAD_CRC),
        (ACMDRDY | ACMDTMO, TIMED_OUT),
    ];
    assert_outcomes(auto_command_outcome, &cases);
}

#[test]
fn data_phase() {
    #[rustfmt::skip]
    let cases = [
        (0, RUNNING),
        // DXFER_DONE alone is not the end: the DMA may still be writing memory.
        (DXFER_DONE | CMDRDY, RUNNING),
        (XFER_COMPL, OK),
        (DATTMO, TIMED_OUT),
        (DATCRCERR, BAD_CRC),
        // Timeout before CRC, as upstream does.
        (DATTMO | DATCRCERR, TIMED_OUT),
        // Errors win over completion.
        (XFER_COMPL | DATCRCERR, BAD_CRC),
        // DMA faults are errors, not silent zero-byte successes.
        (BDCSERR, DMA_FAULT),
        (GPDCSERR, DMA_FAULT),
        (PROTECT, DMA_FAULT),
        (BDCSERR | XFER_COMPL, DMA_FAULT),
        (GPDCSERR | XFER_COMPL, DMA_FAULT),
        (PROTECT | XFER_COMPL, DMA_FAULT),
    ];
    assert_outcomes(data_outcome, &cases);
}

#[test]
fn command_queue_events() {
    assert!(is_command_queue_event(events(CMDQ)));
    assert!(is_command_queue_event(events(CMDQ | CMDRDY)));
    assert!(!is_command_queue_event(events(CMDRDY)));
    assert_eq!(
        command_queue_errors(events(CMDQ)),
        CommandQueueErrors::default()
    );
    assert_eq!(
        command_queue_errors(events(CMDQ | RSPCRCERR | CMDTMO | DATTMO)),
        CommandQueueErrors {
            command: Some(ErrorKind::BadCrc),
            data: Some(ErrorKind::TimedOut),
        }
    );
    assert_eq!(
        command_queue_errors(events(CMDQ | CMDTMO | DATCRCERR | DATTMO)),
        CommandQueueErrors {
            command: Some(ErrorKind::TimedOut),
            data: Some(ErrorKind::BadCrc),
        }
    );
}

#[test]
fn request_events_leave_out_sdio_and_card_detect() {
    assert_eq!(
        request_events(events(SDIOIRQ | CDSC | CMDRDY)).bits(),
        CMDRDY
    );
    assert!(request_events(events(SDIOIRQ | CDSC)).is_empty());
}

proptest! {
    #[test]
    fn outcomes_exist_exactly_when_a_phase_ended(bits: u32, no_crc: bool) {
        let response = if no_crc { ResponseType::R1bNoCrc } else { ResponseType::R1 };
        let e = events(bits);
        prop_assert_eq!(command_outcome(e, response).is_some(), bits & (CMDRDY | CMDTMO | RSPCRCERR) != 0);
        prop_assert_eq!(auto_command_outcome(e).is_some(), bits & (ACMDRDY | ACMDTMO | ACMDCRCERR) != 0);
        let data_end = XFER_COMPL | DATTMO | DATCRCERR | BDCSERR | GPDCSERR | PROTECT;
        prop_assert_eq!(data_outcome(e).is_some(), bits & data_end != 0);
        // Success only without any error bit of the phase.
        if data_outcome(e) == Some(Ok(())) {
            prop_assert_eq!(bits & (DATTMO | DATCRCERR | BDCSERR | GPDCSERR | PROTECT), 0);
        }
        if command_outcome(e, response) == Some(Ok(())) {
            prop_assert_eq!(bits & CMDTMO, 0);
            prop_assert!(no_crc || bits & RSPCRCERR == 0);
        }
    }
}
