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

/// What went wrong in a phase; the kernel glue turns it into an errno.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// No response or no data in time: `-ETIMEDOUT`.
    TimedOut,
    /// A CRC check failed: `-EILSEQ`.
    BadCrc,
    /// The DMA engine rejected a descriptor or an address: `-EIO`.
    DmaFault,
}

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

/// The outcome of the command phase, or `None` while the command is still running.
pub const fn command_outcome(events: InterruptSet, response: ResponseType) -> Option<Outcome> {
    if !events.intersects(COMMAND_DONE) {
        return None;
    }
    if events.contains(InterruptSet::RSPCRCERR) && !response.ignores_crc_error() {
        Some(Err(ErrorKind::BadCrc))
    } else if events.contains(InterruptSet::CMDTMO) {
        Some(Err(ErrorKind::TimedOut))
    } else {
        Some(Ok(()))
    }
}

/// The outcome of an automatic CMD23, or `None` while it has not finished.
///
/// Its response is in `SDC_ACMD_RESP`.
pub const fn auto_command_outcome(events: InterruptSet) -> Option<Outcome> {
    if !events.intersects(AUTO_COMMAND_DONE) {
        return None;
    }
    if events.contains(InterruptSet::ACMDCRCERR) {
        Some(Err(ErrorKind::BadCrc))
    } else if events.contains(InterruptSet::ACMDTMO) {
        Some(Err(ErrorKind::TimedOut))
    } else {
        Some(Ok(()))
    }
}

/// The outcome of the data phase, or `None` while data is still moving.
pub const fn data_outcome(events: InterruptSet) -> Option<Outcome> {
    if !events.intersects(DATA_DONE) {
        return None;
    }
    if events.contains(InterruptSet::DATTMO) {
        Some(Err(ErrorKind::TimedOut))
    } else if events.contains(InterruptSet::DATCRCERR) {
        Some(Err(ErrorKind::BadCrc))
    } else if events.intersects(DMA_FAULTS) {
        Some(Err(ErrorKind::DmaFault))
    } else {
        Some(Ok(()))
    }
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
    let command = if events.contains(InterruptSet::RSPCRCERR) {
        Some(ErrorKind::BadCrc)
    } else if events.contains(InterruptSet::CMDTMO) {
        Some(ErrorKind::TimedOut)
    } else {
        None
    };
    let data = if events.contains(InterruptSet::DATCRCERR) {
        Some(ErrorKind::BadCrc)
    } else if events.contains(InterruptSet::DATTMO) {
        Some(ErrorKind::TimedOut)
    } else {
        None
    };
    CommandQueueErrors { command, data }
}
