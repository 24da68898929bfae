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
