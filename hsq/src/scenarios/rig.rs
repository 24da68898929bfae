// SPDX-License-Identifier: GPL-2.0

//! The rig the HSQ scenarios run on: a queue of numbered requests and the steps every
//! scenario takes (submit, dispatch, finalize, release), each checking what the queue answers
//! and reporting the first deviation instead of panicking.

use super::super::actions::{Actions, Dispatch, Finished};
use super::super::depth::{DataDirection, RequestShape};
use super::super::queue::Hsq;
use super::ScenarioError;

/// Request handles are plain numbers here; the kernel uses `mmc_request` pointers.
pub(super) type Queue = Hsq<u32>;

/// A 4 KiB read.
pub(super) const READ_4K: RequestShape = RequestShape::with_data(DataDirection::Read, 512, 8);
/// A 4 KiB write.
pub(super) const WRITE_4K: RequestShape = RequestShape::with_data(DataDirection::Write, 512, 8);
/// A 64 KiB write.
pub(super) const WRITE_64K: RequestShape = RequestShape::with_data(DataDirection::Write, 512, 128);

/// `Ok` if `condition` holds, else the failure `description`.
pub(super) fn ensure(condition: bool, description: &'static str) -> Result<(), ScenarioError> {
    if condition {
        Ok(())
    } else {
        Err(ScenarioError(description))
    }
}

/// A new queue, enabled.
pub(super) fn enabled_queue() -> Result<Queue, ScenarioError> {
    let mut queue = Queue::new();
    ensure(queue.enable().is_ok(), "a new queue enables")?;
    Ok(queue)
}

/// Expects `actions` to dispatch exactly `request` without waking anyone.
pub(super) fn expect_dispatch(
    actions: Actions<u32>,
    request: u32,
    description: &'static str,
) -> Result<Dispatch<u32>, ScenarioError> {
    ensure(!actions.wake_idle_waiters, description)?;
    match actions.dispatch {
        Some(dispatch) if dispatch.request() == request => Ok(dispatch),
        _ => Err(ScenarioError(description)),
    }
}

/// Expects `actions` to dispatch nothing; answers whether they wake the idle waiters.
pub(super) fn expect_no_dispatch(
    actions: Actions<u32>,
    description: &'static str,
) -> Result<bool, ScenarioError> {
    ensure(actions.dispatch.is_none(), description)?;
    Ok(actions.wake_idle_waiters)
}

/// Submits `request` under `tag` and expects the host to get it at once.
pub(super) fn submit_dispatched(
    queue: &mut Queue,
    tag: i32,
    request: u32,
    shape: RequestShape,
) -> Result<Dispatch<u32>, ScenarioError> {
    match queue.request(tag, request, shape) {
        Ok(actions) => expect_dispatch(actions, request, "a request to an idle host dispatches"),
        Err(_) => Err(ScenarioError("an enabled queue accepts a request")),
    }
}

/// Submits `request` under `tag` and expects it to wait behind the request the host owns.
pub(super) fn submit_queued(
    queue: &mut Queue,
    tag: i32,
    request: u32,
    shape: RequestShape,
) -> Result<(), ScenarioError> {
    match queue.request(tag, request, shape) {
        Ok(actions) => {
            let woke = expect_no_dispatch(actions, "a request to a busy host waits")?;
            ensure(!woke, "queueing a request wakes nobody")
        }
        Err(_) => Err(ScenarioError("an enabled queue accepts a request")),
    }
}

/// The host finishes `request`: the queue hands back its completion.
pub(super) fn finalize(queue: &mut Queue, request: u32) -> Result<Finished<u32>, ScenarioError> {
    let finished = queue
        .finalize_request(&request)
        .map_err(|_| ScenarioError("the request with the host finalizes"))?;
    ensure(
        finished.request() == request,
        "finalizing names the finished request",
    )?;
    Ok(finished)
}

/// The core releases `finished`: the host is free for the next request.
pub(super) fn release(
    queue: &mut Queue,
    finished: Finished<u32>,
) -> Result<Actions<u32>, ScenarioError> {
    queue
        .request_done(finished)
        .map_err(|_| ScenarioError("a finished request releases the host"))
}

/// The host completes `request`; returns what the queue asks for next.
pub(super) fn complete(queue: &mut Queue, request: u32) -> Result<Actions<u32>, ScenarioError> {
    let finished = finalize(queue, request)?;
    release(queue, finished)
}
