// SPDX-License-Identifier: GPL-2.0

//! The request watchdog's decision: a request on the controller for longer than
//! [`REQUEST_TIMEOUT_MS`] is aborted and completed with the controller reset; otherwise the
//! watchdog looks again when it would be due. The kernel owns the timer and runs
//! [`check`] from it in process context (the abort polls the controller).

use super::request::{finish, note_hardware_fault};
use super::services::SlotKernel;

/// How long a request may take before the slot gives up on the hardware.
pub const REQUEST_TIMEOUT_MS: u32 = 5_000;
/// The same in nanoseconds.
const REQUEST_TIMEOUT_NS: u64 = REQUEST_TIMEOUT_MS as u64 * 1_000_000;
/// When the watchdog looks again at a request that is already overdue (its abort found
/// nothing to hand back): 1 ms.
const OVERDUE_RECHECK_NS: u64 = 1_000_000;

/// The watchdog's look at the request on the controller: aborts and completes one that ran
/// too long. Returns in how many nanoseconds to look again, `None` with nothing in flight.
pub fn check<K: SlotKernel + ?Sized>(kernel: &K) -> Option<u64> {
    let overdue = kernel.with_slot(|slot| {
        let elapsed = kernel.elapsed_ns(&slot.controller.in_flight()?.started);
        if elapsed < REQUEST_TIMEOUT_NS {
            return Some(Err(REQUEST_TIMEOUT_NS - elapsed));
        }
        let aborted = slot.controller.abort(kernel.regs());
        note_hardware_fault(kernel, slot.controller);
        aborted.map(Ok)
    });
    match overdue {
        Some(Err(remaining)) => return Some(remaining),
        Some(Ok((in_flight, result))) => {
            kernel.request_timed_out(in_flight.opcode);
            finish(kernel, in_flight, &result);
        }
        None => {}
    }
    // A request started meanwhile (the next of a queue, say) is watched from here.
    kernel.with_slot(|slot| {
        let elapsed = kernel.elapsed_ns(&slot.controller.in_flight()?.started);
        Some(if elapsed >= REQUEST_TIMEOUT_NS {
            OVERDUE_RECHECK_NS
        } else {
            REQUEST_TIMEOUT_NS - elapsed
        })
    })
}

/// Whether the watchdog's timer may be started, kept under the slot's lock beside the
/// timer. The timer is started once and started again by its own work item while requests
/// run, so the request path never cancels it; once the slot stops ([`Arming::stop`], the
/// driver's removal) it is never started again, not even by a work item the timer queued
/// before the stop, which would otherwise outlive the removal with a timer of its own.
#[derive(Debug, Default)]
pub struct Arming {
    /// The timer runs or its work is queued: it looks at whatever is in flight then.
    armed: bool,
    /// The slot is going away.
    stopped: bool,
}

impl Arming {
    /// Not armed, not stopped.
    pub const fn new() -> Self {
        Self {
            armed: false,
            stopped: false,
        }
    }

    /// A request started, or the watchdog's work wants another look: whether to start the
    /// timer. Never once stopped, nor while it runs.
    pub fn arm(&mut self) -> bool {
        if self.armed || self.stopped {
            return false;
        }
        self.armed = true;
        true
    }

    /// The timer's work runs: the timer is spent, the next request starts it again.
    pub fn fired(&mut self) {
        self.armed = false;
    }

    /// The slot is going away: the timer is never started again.
    pub fn stop(&mut self) {
        self.stopped = true;
    }
}
