// SPDX-License-Identifier: GPL-2.0

//! The rig the HSQ scenarios run on: a queue of numbered requests and the steps every
//! scenario takes (submit, dispatch, finalize, release), each checking what the queue answers
//! and reporting the first deviation instead of panicking.

use super::super::actions::{Actions, Dispatch, Finished};
use super::super::depth::{DataDirection, RequestShape};
use super::super::error::HsqError;
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

/// A question to the queue, or an event with the answer it must give: `true` if it held.
pub(super) type Check = fn(&mut Queue) -> bool;

/// Runs `checks` on `queue` in order; the first that does not hold fails with its
/// description.
pub(super) fn expect_all(
    queue: &mut Queue,
    checks: &[(Check, &'static str)],
) -> Result<(), ScenarioError> {
    for (check, description) in checks {
        ensure(check(queue), description)?;
    }
    Ok(())
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

/// Expects `actions` to dispatch nothing, and to wake the idle waiters exactly if `wakes`.
pub(super) fn expect_no_dispatch(
    actions: Actions<u32>,
    wakes: bool,
    description: &'static str,
) -> Result<(), ScenarioError> {
    ensure(
        actions.dispatch.is_none() && actions.wake_idle_waiters == wakes,
        description,
    )
}

/// Expects `dispatch` to publish `depth`, and the queue to report it as its depth.
pub(super) fn expect_depth(
    queue: &Queue,
    dispatch: &Dispatch<u32>,
    depth: u8,
    description: &'static str,
) -> Result<(), ScenarioError> {
    ensure(
        dispatch.depth() == depth && queue.depth() == depth,
        description,
    )
}

/// Expects the queue to refuse `request` under `tag` with `error`.
pub(super) fn expect_refused(
    queue: &mut Queue,
    tag: i32,
    request: u32,
    shape: RequestShape,
    error: HsqError,
    description: &'static str,
) -> Result<(), ScenarioError> {
    ensure(
        queue.request(tag, request, shape).err() == Some(error),
        description,
    )
}

/// Expects the queue to refuse a completion of `request`, which the host does not own.
pub(super) fn expect_not_in_flight(
    queue: &mut Queue,
    request: u32,
    description: &'static str,
) -> Result<(), ScenarioError> {
    ensure(
        queue.finalize_request(&request).err() == Some(HsqError::NotInFlight),
        description,
    )
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
        Ok(actions) => expect_no_dispatch(
            actions,
            false,
            "a request to a busy host waits and wakes nobody",
        ),
        Err(_) => Err(ScenarioError("an enabled queue accepts a request")),
    }
}

/// Submits requests 1, 2, … under the tags and with the shapes of `requests` to an idle
/// host: the host gets the first, whose dispatch this returns, and the others wait behind it.
pub(super) fn submit_all(
    queue: &mut Queue,
    requests: &[(i32, RequestShape)],
) -> Result<Dispatch<u32>, ScenarioError> {
    let mut numbered = (1..).zip(requests);
    let (request, &(tag, shape)) = numbered
        .next()
        .ok_or(ScenarioError("a scenario submits a request"))?;
    let first = submit_dispatched(queue, tag, request, shape)?;
    for (request, &(tag, shape)) in numbered {
        submit_queued(queue, tag, request, shape)?;
    }
    Ok(first)
}

/// An enabled queue whose host has started request 1, with requests 2, 3, … waiting behind
/// it: `requests` as [`submit_all`] takes them.
pub(super) fn running_queue(requests: &[(i32, RequestShape)]) -> Result<Queue, ScenarioError> {
    let mut queue = enabled_queue()?;
    submit_all(&mut queue, requests)?.accepted();
    Ok(queue)
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

/// The host completes `request` and expects the queue to hand it `next`, which it starts.
pub(super) fn complete_and_start(
    queue: &mut Queue,
    request: u32,
    next: u32,
    description: &'static str,
) -> Result<(), ScenarioError> {
    expect_dispatch(complete(queue, request)?, next, description)?.accepted();
    Ok(())
}

/// The host completes `request`, the last one: nothing is dispatched, and the idle waiters
/// are woken exactly if `wakes`.
pub(super) fn complete_last(
    queue: &mut Queue,
    request: u32,
    wakes: bool,
    description: &'static str,
) -> Result<(), ScenarioError> {
    expect_no_dispatch(complete(queue, request)?, wakes, description)
}

/// Expects the switched-off (disabled or suspended) queue to refuse `request` under `tag`
/// with "shutdown" until `switch_on` (enable or resume) succeeds, and then to hand the request
/// to the host.
pub(super) fn expect_shut_down_until(
    queue: &mut Queue,
    tag: i32,
    request: u32,
    switch_on: fn(&mut Queue) -> Result<(), HsqError>,
    description: &'static str,
) -> Result<Dispatch<u32>, ScenarioError> {
    expect_refused(
        queue,
        tag,
        request,
        READ_4K,
        HsqError::Shutdown,
        description,
    )?;
    ensure(switch_on(queue).is_ok(), description)?;
    submit_dispatched(queue, tag, request, READ_4K)
}
