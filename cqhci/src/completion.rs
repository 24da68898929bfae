// SPDX-License-Identifier: GPL-2.0
//! What the engine hands back to the glue: completed tasks and their status, interrupt
//! outcomes and timeout verdicts, all in fixed-size values.

use super::regs::{Interrupts, Tag, TaskMask, CQTERRI};

/// An error the host controller detected itself and passes to [`super::engine::Cqhci::irq`]
/// (the `cmd_error`/`data_error` of C, as an errno class).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostError {
    /// CRC error (`-EILSEQ`).
    Crc,
    /// Timeout (`-ETIMEDOUT`).
    Timeout,
    /// Any other error.
    Other,
}

/// The error a failed task is completed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskError {
    /// CRC error: report `-EILSEQ` (the core then re-tunes).
    Crc,
    /// Timeout: report `-ETIMEDOUT`.
    Timeout,
    /// Anything else: report `-EIO`.
    Io,
}

/// How a task ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionStatus {
    /// The task completed: all its bytes were transferred (DCMD: the response is in CQCRDCT).
    Done,
    /// Recovery cleared the task before it ran, without error: complete it with 0 bytes
    /// transferred and no error so the block layer requeues it.
    Requeue,
    /// The task failed, or finished while recovery was pending: complete it with this error.
    Failed(TaskError),
}

/// One task handed back to the glue, which completes the request it keeps for `tag`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The slot.
    pub tag: Tag,
    /// The task's outcome.
    pub status: CompletionStatus,
}

/// A set of completed tasks: at most one entry per slot, so no task is reported twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completions {
    mask: TaskMask,
    status: [CompletionStatus; Tag::COUNT],
}

impl Default for Completions {
    fn default() -> Self {
        Self {
            mask: TaskMask::EMPTY,
            status: [CompletionStatus::Done; Tag::COUNT],
        }
    }
}

impl Completions {
    pub(super) fn add(&mut self, tag: Tag, status: CompletionStatus) {
        self.mask = self.mask.with(tag);
        if let Some(entry) = self.status.get_mut(tag.index()) {
            *entry = status;
        }
    }

    /// The completed slots.
    pub fn mask(&self) -> TaskMask {
        self.mask
    }

    /// Number of completed tasks.
    pub fn len(&self) -> usize {
        self.mask.iter().count()
    }

    /// Whether no task completed.
    pub fn is_empty(&self) -> bool {
        self.mask.is_empty()
    }

    /// The status of `tag`, if it completed.
    pub fn status(&self, tag: Tag) -> Option<CompletionStatus> {
        if self.mask.contains(tag) {
            self.status.get(tag.index()).copied()
        } else {
            None
        }
    }

    /// The completed tasks, lowest slot first.
    pub fn iter(&self) -> impl Iterator<Item = Completion> + '_ {
        self.mask
            .iter()
            .filter_map(move |tag| self.status(tag).map(|status| Completion { tag, status }))
    }
}

/// What one call of [`super::engine::Cqhci::irq`] found and decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IrqOutcome {
    /// The CQIS bits that were pending (and have been cleared).
    pub status: Interrupts,
    /// CQTERRI, if the interrupt reported an error.
    pub task_error: Option<CQTERRI>,
    /// CQTDPE, if the interrupt reported a descriptor (ICCE) error.
    pub descriptor_errors: Option<TaskMask>,
    /// Tasks that completed normally: complete their requests now.
    pub completed: Completions,
    /// CQTCN bits for slots that held no task; reported, never acted upon.
    pub spurious: TaskMask,
    /// Recovery became necessary: call this slot's request's recovery notifier.
    pub notify_recovery: Option<Tag>,
    /// An error arrived while no task was queued (C warns "error when idle").
    pub error_while_idle: bool,
    /// Waiters (wait-for-idle, halt and clear waits) should re-check their condition.
    pub wake: bool,
}

/// The answer to the core's `cqe_timeout`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutVerdict {
    /// The task has already completed (or the ticket is stale): nothing to do.
    AlreadyCompleted,
    /// The task is still queued and has been marked as timed out.
    TimedOut {
        /// Whether recovery is needed (it always is once a task has timed out).
        recovery_needed: bool,
    },
}

/// The wait-for-idle predicate (`cqe_wait_for_idle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleState {
    /// Tasks are still queued: keep waiting.
    Busy,
    /// No task is queued.
    Idle,
    /// Recovery is pending: stop waiting and report `-EBUSY`.
    RecoveryNeeded,
}
