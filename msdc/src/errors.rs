// SPDX-License-Identifier: GPL-2.0

//! Turning `MSDC_INT` events into command and data outcomes.
//!
//! A command phase is finished once any of [`COMMAND_DONE`] is pending, an automatic
//! CMD23 once any of [`AUTO_COMMAND_DONE`] is, and a data phase once any of [`DATA_DONE`]
//! is. The outcome functions return `None` until then, so the interrupt handler can ask
//! without knowing which bits mean what.
//!
//! Error bits take precedence over the success bit of the same phase. Upstream checks
//! `CMDRDY`, `ACMDRDY` and `XFER_COMPL` first and reports success even when an error bit
//! was raised alongside; for data that would hand corrupted blocks to the block layer,
//! while a spurious error only costs a retry. Upstream also reports DMA descriptor
//! checksum and protection faults as success with zero bytes transferred; they are
//! [`ErrorKind::DmaFault`] here.

use super::command::ResponseType;
use super::regs::InterruptSet;
use crate::mmc_request::ErrorKind;

/// The result of a finished phase.
pub type Outcome = Result<(), ErrorKind>;

/// Interrupts to enable while a command is in flight (upstream `cmd_ints_mask`).
pub const COMMAND_INTERRUPTS: InterruptSet = InterruptSet::CMDRDY
    .union(InterruptSet::RSPCRCERR)
    .union(InterruptSet::CMDTMO)
    .union(InterruptSet::ACMDRDY)
    .union(InterruptSet::ACMDCRCERR)
    .union(InterruptSet::ACMDTMO);

/// Interrupts to enable while a data phase is in flight (upstream `data_ints_mask`).
pub const DATA_INTERRUPTS: InterruptSet = InterruptSet::XFER_COMPL
    .union(InterruptSet::DATTMO)
    .union(InterruptSet::DATCRCERR)
    .union(InterruptSet::DMA_BDCSERR)
    .union(InterruptSet::DMA_GPDCSERR)
    .union(InterruptSet::DMA_PROTECT);

/// Events that end the command phase.
pub const COMMAND_DONE: InterruptSet = InterruptSet::CMDRDY
    .union(InterruptSet::RSPCRCERR)
    .union(InterruptSet::CMDTMO);

/// Events that end an automatic CMD23 (or CMD12).
pub const AUTO_COMMAND_DONE: InterruptSet = InterruptSet::ACMDRDY
    .union(InterruptSet::ACMDCRCERR)
    .union(InterruptSet::ACMDTMO);

/// DMA engine faults.
pub const DMA_FAULTS: InterruptSet = InterruptSet::DMA_BDCSERR
    .union(InterruptSet::DMA_GPDCSERR)
    .union(InterruptSet::DMA_PROTECT);

/// Events that end the data phase.
pub const DATA_DONE: InterruptSet = DATA_INTERRUPTS;

/// The events of `pending` that concern the request in flight, leaving out the SDIO card
/// interrupt and card-detect changes, which the handler dispatches on their own.
pub const fn request_events(pending: InterruptSet) -> InterruptSet {
    pending.difference(InterruptSet::SDIOIRQ.union(InterruptSet::CDSC))
}

/// Whether the command queue engine raised the interrupt; it then owns every event.
pub const fn is_command_queue_event(pending: InterruptSet) -> bool {
    pending.contains(InterruptSet::CMDQ)
}

/// Error events in order of precedence, each with the error it reports.
type Precedence = [(InterruptSet, ErrorKind)];

/// The error of the first entry of `precedence` whose events are among `events`.
const fn first_error(events: InterruptSet, precedence: &Precedence) -> Option<ErrorKind> {
    let mut index = 0;
    while index < precedence.len() {
        let (error_events, error) = precedence[index];
        if events.intersects(error_events) {
            return Some(error);
        }
        index += 1;
    }
    None
}

/// The outcome of a phase that `done` ends, or `None` while none of it is pending.
const fn phase_outcome(
    events: InterruptSet,
    done: InterruptSet,
    precedence: &Precedence,
) -> Option<Outcome> {
    if !events.intersects(done) {
        return None;
    }
    match first_error(events, precedence) {
        Some(error) => Some(Err(error)),
        None => Some(Ok(())),
    }
}

/// A command's errors: a response CRC error (unless the response type ignores it), then a
/// timeout.
const fn command_errors(response: ResponseType) -> [(InterruptSet, ErrorKind); 2] {
    let crc = if response.ignores_crc_error() {
        InterruptSet::empty()
    } else {
        InterruptSet::RSPCRCERR
    };
    [
        (crc, ErrorKind::BadCrc),
        (InterruptSet::CMDTMO, ErrorKind::TimedOut),
    ]
}

/// The outcome of the command phase, or `None` while the command is still running.
pub const fn command_outcome(events: InterruptSet, response: ResponseType) -> Option<Outcome> {
    phase_outcome(events, COMMAND_DONE, &command_errors(response))
}

/// The outcome of an automatic CMD23, or `None` while it has not finished.
///
/// Its response is in `SDC_ACMD_RESP`.
pub const fn auto_command_outcome(events: InterruptSet) -> Option<Outcome> {
    phase_outcome(
        events,
        AUTO_COMMAND_DONE,
        &[
            (InterruptSet::ACMDCRCERR, ErrorKind::BadCrc),
            (InterruptSet::ACMDTMO, ErrorKind::TimedOut),
        ],
    )
}

/// The outcome of the data phase, or `None` while data is still moving.
pub const fn data_outcome(events: InterruptSet) -> Option<Outcome> {
    phase_outcome(
        events,
        DATA_DONE,
        &[
            (InterruptSet::DATTMO, ErrorKind::TimedOut),
            (InterruptSet::DATCRCERR, ErrorKind::BadCrc),
            (DMA_FAULTS, ErrorKind::DmaFault),
        ],
    )
}

/// Errors to report to the CQHCI engine for a command queue interrupt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommandQueueErrors {
    /// Command error, passed as `cmd_error` to `cqhci_irq()`.
    pub command: Option<ErrorKind>,
    /// Data error, passed as `data_error` to `cqhci_irq()`.
    pub data: Option<ErrorKind>,
}

/// Decodes the legacy error bits that accompany a command queue interrupt.
pub const fn command_queue_errors(events: InterruptSet) -> CommandQueueErrors {
    CommandQueueErrors {
        command: first_error(events, &command_errors(ResponseType::R1)),
        data: first_error(
            events,
            &[
                (InterruptSet::DATCRCERR, ErrorKind::BadCrc),
                (InterruptSet::DATTMO, ErrorKind::TimedOut),
            ],
        ),
    }
}
