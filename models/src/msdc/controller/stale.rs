// SPDX-License-Identifier: GPL-2.0
//! The MSDC's own transfer-complete for the CQHCI block's data phases, and the fault that
//! leaves it latched, unacknowledged, when the queue is turned off.
//!
//! The CQHCI block moves a task's data through the MSDC's data path, which latches
//! `MSDC_INT.XFER_COMPL` at the end of the data phase as it does for a data command of the
//! legacy path. In command queue mode the host enables only `CMDQ` in `MSDC_INTEN`
//! (`msdc_cqe_enable`), so the event raises no interrupt, and upstream's handler
//! acknowledges only enabled events (`msdc_irq`: `events & event_mask`): the event stays
//! latched until the queue is turned off. Upstream's `msdc_cqe_disable` therefore
//! acknowledges every pending event before the legacy path takes the bus ("mmc: mtk-sd:
//! Clear interrupts when cqe off/disable"): a stale transfer-complete would otherwise end
//! the next legacy data request at its command's response, before its data arrived.
//!
//! [`MsdcModel::inject_stale_transfer_complete`] makes that happen to a host whose handler
//! acknowledges every latched event: the transfer-complete of the data phase of the last
//! task in the doorbell latches just after the handler's next acknowledgement in
//! `MSDC_INT`, as when the data phase ends between the handler's acknowledgement of
//! `MSDC_INT` and its read of `CQIS` (the task's completion, signalled after its data, is
//! then handled by that same run of the handler, and no later interrupt acknowledges the
//! event).

use super::super::regs::MSDC_INT;
use super::MsdcModel;

/// Where the stale transfer-complete fault is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum StaleTransfer {
    /// Not injected.
    #[default]
    Off,
    /// Waits for the data phase of the last task in the CQHCI block's doorbell.
    Armed,
    /// That data phase ended: its transfer-complete latches after the next write of
    /// `MSDC_INT`.
    Deferred,
    /// Latched behind the handler's acknowledgement; taken if the queue's interrupt is
    /// disabled (`cqe_off`, recovery) while it is still latched, re-armed if a handler of
    /// the running queue acknowledges it first.
    Latched,
    /// The queue was turned off with the event still latched.
    Taken,
}

impl StaleTransfer {
    /// What is left of the fault after a power-off, which resets `MSDC_INT`: an event
    /// deferred or latched is gone, and the fault waits for the next last data phase.
    pub(super) const fn after_reset(self) -> Self {
        match self {
            Self::Deferred | Self::Latched => Self::Armed,
            other => other,
        }
    }
}

impl MsdcModel {
    /// Makes the transfer-complete of the next data phase of the last task in the CQHCI
    /// block's doorbell latch just after the handler's next acknowledgement in `MSDC_INT`,
    /// so that the handler does not acknowledge it (see the module documentation); the
    /// fault is taken when the host then disables the `CMDQ` interrupt with the event still
    /// latched, as `cqe_off` and recovery do before the legacy path takes the bus.
    pub fn inject_stale_transfer_complete(&mut self) {
        self.stale = StaleTransfer::Armed;
    }

    /// Whether the stale transfer-complete fault was injected and not yet taken.
    pub fn stale_transfer_complete_pending(&self) -> bool {
        !matches!(self.stale, StaleTransfer::Off | StaleTransfer::Taken)
    }

    /// Whether the queue was turned off with the injected stale transfer-complete still
    /// latched.
    pub fn stale_transfer_complete_taken(&self) -> bool {
        self.stale == StaleTransfer::Taken
    }

    /// As [`MsdcModel::stale_transfer_complete_taken`], once per injection: a fault taken
    /// is forgotten.
    pub fn take_stale_transfer_complete(&mut self) -> bool {
        let taken = self.stale == StaleTransfer::Taken;
        if taken {
            self.stale = StaleTransfer::Off;
        }
        taken
    }

    /// Forgets the stale transfer-complete fault.
    pub fn cancel_stale_transfer_complete(&mut self) {
        self.stale = StaleTransfer::Off;
    }

    /// A data phase of the CQHCI block ended without an error: `XFER_COMPL` latches, or for
    /// an armed fault whose task is the last in the doorbell (`last`), after the next write
    /// of `MSDC_INT`.
    pub(super) fn task_transfer_complete(&mut self, last: bool) {
        if self.stale == StaleTransfer::Armed && last {
            self.stale = StaleTransfer::Deferred;
        } else {
            self.raise(MSDC_INT::with_xfer_compl);
        }
    }

    /// Before a write of `MSDC_INTEN` of `value`: the queue's interrupt disabled with the
    /// stale event latched takes the fault.
    pub(super) fn before_inten_write(&mut self, value: u32) {
        if self.stale == StaleTransfer::Latched
            && MSDC_INT::from_raw(self.inten.raw()).cmdq()
            && !MSDC_INT::from_raw(value).cmdq()
            && self.int.xfer_compl()
        {
            self.stale = StaleTransfer::Taken;
        }
    }

    /// After a write of `MSDC_INT`: a deferred transfer-complete latches now; the stale
    /// event acknowledged while the queue's interrupt is enabled (by the handler of a later
    /// task) re-arms the fault.
    pub(super) fn after_int_write(&mut self) {
        match self.stale {
            StaleTransfer::Deferred => {
                self.raise(MSDC_INT::with_xfer_compl);
                self.stale = StaleTransfer::Latched;
            }
            StaleTransfer::Latched if !self.int.xfer_compl() => self.stale = StaleTransfer::Armed,
            _ => {}
        }
    }
}
