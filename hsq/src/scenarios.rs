// SPDX-License-Identifier: GPL-2.0

//! Behaviour scenarios, the one list that both the host tests (`tests/scenarios.rs`) and the
//! KUnit suite `mtk_sd_rust_hsq` run: each one drives a queue through one rule on the rig of
//! `scenarios/rig.rs` and reports the first deviation instead of panicking.
//!
//! Test code only: the kernel compiles this module into KUnit builds alone, and on the host
//! `tests/scenarios.rs` compiles it with the paths the kernel gives it (the queue's modules as
//! `super::…`), as it does for the CQHCI scenarios; the library never holds it.

use super::actions::{IdleState, Progress};
use super::depth::{RequestShape, NORMAL_DEPTH, PERFORMANCE_DEPTH};
use super::error::HsqError;

// Explicit, so the file is found whichever file includes this one (`lib.rs`, or the host's
// test through `#[path]`).
#[path = "scenarios/rig.rs"]
mod rig;

use rig::{
    complete, enabled_queue, ensure, expect_dispatch, expect_no_dispatch, finalize, release,
    submit_dispatched, submit_queued, Queue, READ_4K, WRITE_4K, WRITE_64K,
};

/// The first expectation a scenario found broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScenarioError(pub &'static str);

/// A scenario: `Ok` when every expectation held.
pub type Scenario = fn() -> Result<(), ScenarioError>;

/// Every scenario, by name.
pub const ALL: &[(&str, Scenario)] = &[
    ("fifo_dispatch", fifo_dispatch),
    ("one_in_flight", one_in_flight),
    ("depth_normal", depth_normal),
    ("depth_performance", depth_performance),
    ("disable_enable", disable_enable),
    ("disable_waits_for_idle", disable_waits_for_idle),
    ("suspend_resume", suspend_resume),
    ("recovery_halt_resume", recovery_halt_resume),
    ("wait_for_idle", wait_for_idle),
    ("bad_tag_rejected", bad_tag_rejected),
    ("double_submit_rejected", double_submit_rejected),
    ("wrong_completion_rejected", wrong_completion_rejected),
    ("host_busy_retry", host_busy_retry),
    ("host_failure_does_not_stall", host_failure_does_not_stall),
];

/// Requests reach the host in arrival order, not tag order, each straight from the
/// completion of the previous one.
pub fn fifo_dispatch() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    submit_dispatched(&mut queue, 40, 1, READ_4K)?.accepted();
    submit_queued(&mut queue, 7, 2, READ_4K)?;
    submit_queued(&mut queue, 63, 3, WRITE_64K)?;
    submit_queued(&mut queue, 0, 4, READ_4K)?;
    for (done, next) in [(1, 2), (2, 3), (3, 4)] {
        let actions = complete(&mut queue, done)?;
        expect_dispatch(
            actions,
            next,
            "completion dispatches the oldest queued request",
        )?
        .accepted();
    }
    let woke = expect_no_dispatch(
        complete(&mut queue, 4)?,
        "a drained queue dispatches nothing",
    )?;
    ensure(!woke, "nobody waited, so nobody is woken")?;
    ensure(queue.is_idle(), "a drained queue is idle")?;
    // A tag is free again once its request completed.
    submit_dispatched(&mut queue, 40, 5, READ_4K)?.accepted();
    Ok(())
}

/// The host owns one request at a time, until the MMC core has seen its completion.
pub fn one_in_flight() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    submit_dispatched(&mut queue, 1, 10, READ_4K)?.accepted();
    submit_queued(&mut queue, 2, 20, READ_4K)?;
    ensure(!queue.is_idle(), "a queue with requests is not idle")?;
    let finished = finalize(&mut queue, 10)?;
    // Between finalize and request_done the host is still taken, even for a new request
    // reusing the finished request's tag.
    submit_queued(&mut queue, 1, 30, READ_4K)?;
    expect_dispatch(
        release(&mut queue, finished)?,
        20,
        "releasing the host dispatches the next request",
    )?
    .accepted();
    expect_dispatch(complete(&mut queue, 20)?, 30, "the reused tag runs last")?.accepted();
    let woke = expect_no_dispatch(complete(&mut queue, 30)?, "nothing is left")?;
    ensure(!woke, "nobody waited")?;
    ensure(queue.is_idle(), "the queue drained")
}

/// Without two queued 4 KiB writes the published depth stays normal.
pub fn depth_normal() -> Result<(), ScenarioError> {
    ensure(
        WRITE_4K.is_four_kib_write()
            && !READ_4K.is_four_kib_write()
            && !WRITE_64K.is_four_kib_write(),
        "only writes of exactly 4 KiB count",
    )?;
    let mut queue = enabled_queue()?;
    ensure(
        queue.depth() == NORMAL_DEPTH,
        "a new queue publishes the normal depth",
    )?;
    let first = submit_dispatched(&mut queue, 0, 1, WRITE_4K)?;
    ensure(
        first.depth() == NORMAL_DEPTH,
        "one 4 KiB write keeps the normal depth",
    )?;
    first.accepted();
    submit_queued(&mut queue, 1, 2, READ_4K)?;
    submit_queued(&mut queue, 2, 3, WRITE_64K)?;
    submit_queued(&mut queue, 3, 4, RequestShape::without_data())?;
    let second = expect_dispatch(complete(&mut queue, 1)?, 2, "the read is next")?;
    ensure(
        second.depth() == NORMAL_DEPTH,
        "reads, large writes and commands keep the normal depth",
    )?;
    second.accepted();
    ensure(
        queue.depth() == NORMAL_DEPTH,
        "the queue publishes the normal depth",
    )
}

/// Two queued 4 KiB writes raise the published depth; it falls back when they are gone.
pub fn depth_performance() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    submit_dispatched(&mut queue, 9, 1, READ_4K)?.accepted();
    submit_queued(&mut queue, 10, 2, WRITE_4K)?;
    submit_queued(&mut queue, 11, 3, WRITE_4K)?;
    // Requests queued after the policy was evaluated change nothing until the next dispatch.
    ensure(
        queue.depth() == NORMAL_DEPTH,
        "the depth changes only at a dispatch",
    )?;
    let second = expect_dispatch(complete(&mut queue, 1)?, 2, "the first write is next")?;
    ensure(
        second.depth() == PERFORMANCE_DEPTH,
        "two queued 4 KiB writes raise the depth",
    )?;
    ensure(
        queue.depth() == PERFORMANCE_DEPTH,
        "the raised depth is published",
    )?;
    second.accepted();
    let third = expect_dispatch(complete(&mut queue, 2)?, 3, "the second write is next")?;
    ensure(
        third.depth() == NORMAL_DEPTH,
        "one remaining 4 KiB write restores the normal depth",
    )?;
    third.accepted();
    ensure(
        queue.depth() == NORMAL_DEPTH,
        "the normal depth is published",
    )
}

/// A disabled queue refuses requests with "shutdown" until it is enabled again.
pub fn disable_enable() -> Result<(), ScenarioError> {
    let mut queue = Queue::new();
    ensure(!queue.is_enabled(), "a new queue is disabled")?;
    ensure(
        queue.request(0, 1, READ_4K).err() == Some(HsqError::Shutdown),
        "a new queue refuses requests with shutdown",
    )?;
    ensure(queue.enable().is_ok(), "enable succeeds")?;
    ensure(
        queue.enable() == Err(HsqError::AlreadyEnabled),
        "enabling twice is refused",
    )?;
    ensure(
        queue.try_disable() == Progress::Done,
        "an idle queue disables at once",
    )?;
    ensure(!queue.is_enabled(), "the queue is disabled")?;
    ensure(
        queue.try_disable() == Progress::Done,
        "disabling a disabled queue is done",
    )?;
    ensure(
        queue.request(0, 1, READ_4K).err() == Some(HsqError::Shutdown),
        "a disabled queue refuses requests with shutdown",
    )?;
    ensure(queue.enable().is_ok(), "a disabled queue enables again")?;
    submit_dispatched(&mut queue, 0, 1, READ_4K)?.accepted();
    Ok(())
}

/// Disabling a busy queue fails without changing anything; it succeeds once drained.
pub fn disable_waits_for_idle() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    submit_dispatched(&mut queue, 0, 1, READ_4K)?.accepted();
    submit_queued(&mut queue, 1, 2, WRITE_4K)?;
    ensure(
        queue.try_disable() == Progress::Busy,
        "a busy queue does not disable",
    )?;
    ensure(
        queue.is_enabled(),
        "a failed disable leaves the queue enabled",
    )?;
    // Still fully working: it accepts, completes and dispatches.
    submit_queued(&mut queue, 2, 3, READ_4K)?;
    expect_dispatch(complete(&mut queue, 1)?, 2, "the queue keeps dispatching")?.accepted();
    expect_dispatch(complete(&mut queue, 2)?, 3, "no request was lost")?.accepted();
    let woke = expect_no_dispatch(complete(&mut queue, 3)?, "the queue drained")?;
    ensure(woke, "draining wakes the disabler")?;
    ensure(
        queue.try_disable() == Progress::Done,
        "a drained queue disables",
    )?;
    ensure(!queue.is_enabled(), "the queue is disabled")
}

/// Runtime suspend quiesces the queue; resume restores it without re-enabling a queue the
/// MMC core disabled.
pub fn suspend_resume() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    submit_dispatched(&mut queue, 5, 1, READ_4K)?.accepted();
    ensure(
        queue.try_suspend() == Progress::Busy,
        "a busy queue does not suspend",
    )?;
    ensure(!queue.is_suspended(), "a failed suspend changes nothing")?;
    let woke = expect_no_dispatch(complete(&mut queue, 1)?, "the queue drained")?;
    ensure(woke, "draining wakes the suspender")?;
    ensure(
        queue.try_suspend() == Progress::Done,
        "an idle queue suspends",
    )?;
    ensure(queue.is_suspended(), "the queue is suspended")?;
    ensure(
        queue.request(5, 2, READ_4K).err() == Some(HsqError::Shutdown),
        "a suspended queue refuses requests with shutdown",
    )?;
    ensure(queue.resume().is_ok(), "a suspended queue resumes")?;
    ensure(
        queue.resume() == Err(HsqError::NotSuspended),
        "resuming twice is refused",
    )?;
    submit_dispatched(&mut queue, 5, 2, READ_4K)?.accepted();
    ensure(
        complete(&mut queue, 2)?.dispatch.is_none(),
        "nothing else is queued",
    )?;
    // A resume must not enable what the MMC core disabled, nor block its later enable.
    ensure(queue.try_suspend() == Progress::Done, "suspends again")?;
    ensure(queue.try_disable() == Progress::Done, "the core disables")?;
    ensure(queue.resume().is_ok(), "resumes")?;
    ensure(
        queue.request(0, 3, READ_4K).err() == Some(HsqError::Shutdown),
        "resume leaves a disabled queue disabled",
    )?;
    ensure(queue.enable().is_ok(), "the core enables after the resume")?;
    submit_dispatched(&mut queue, 0, 3, READ_4K)?.accepted();
    Ok(())
}

/// Recovery halts dispatching and refuses requests with "busy"; finishing it resumes.
pub fn recovery_halt_resume() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    submit_dispatched(&mut queue, 0, 1, READ_4K)?.accepted();
    submit_queued(&mut queue, 1, 2, READ_4K)?;
    // The MMC core starts recovery from inside the completion of a failed request.
    let finished = finalize(&mut queue, 1)?;
    let woke = expect_no_dispatch(queue.recovery_start(), "recovery dispatches nothing")?;
    ensure(!woke, "nobody waited")?;
    ensure(queue.is_halted(), "recovery halts the queue")?;
    let woke = expect_no_dispatch(release(&mut queue, finished)?, "a halted queue waits")?;
    ensure(!woke, "a request is still queued")?;
    ensure(
        queue.request(2, 3, READ_4K).err() == Some(HsqError::Busy),
        "a halted queue refuses requests with busy",
    )?;
    expect_dispatch(queue.recovery_finish(), 2, "recovery end dispatches")?.accepted();
    ensure(!queue.is_halted(), "the queue runs again")?;
    submit_queued(&mut queue, 2, 3, READ_4K)?;
    expect_dispatch(complete(&mut queue, 2)?, 3, "the queue keeps order")?.accepted();
    let woke = expect_no_dispatch(queue.recovery_finish(), "finishing twice is harmless")?;
    ensure(!woke, "finishing recovery wakes nobody")?;
    Ok(())
}

/// Waiting for idle sleeps while requests remain, and reports recovery as "busy".
pub fn wait_for_idle() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    ensure(
        queue.poll_idle() == IdleState::Idle,
        "an empty queue is idle",
    )?;
    submit_dispatched(&mut queue, 3, 1, READ_4K)?.accepted();
    submit_queued(&mut queue, 4, 2, READ_4K)?;
    ensure(
        queue.poll_idle() == IdleState::Busy,
        "a queue with requests is busy",
    )?;
    let next = complete(&mut queue, 1)?;
    expect_dispatch(next, 2, "requests remain, so nobody is woken yet")?.accepted();
    let woke = expect_no_dispatch(complete(&mut queue, 2)?, "the queue drained")?;
    ensure(woke, "draining wakes the waiter")?;
    ensure(
        queue.poll_idle() == IdleState::Idle,
        "a drained queue is idle",
    )?;

    submit_dispatched(&mut queue, 3, 3, READ_4K)?.accepted();
    ensure(
        queue.poll_idle() == IdleState::Busy,
        "the waiter sleeps again",
    )?;
    let woke = expect_no_dispatch(queue.recovery_start(), "recovery dispatches nothing")?;
    ensure(woke, "recovery wakes the waiter")?;
    ensure(
        queue.poll_idle() == IdleState::Recovering,
        "waiting during recovery reports it",
    )?;
    let woke = expect_no_dispatch(complete(&mut queue, 3)?, "halted")?;
    ensure(!woke, "the waiter was already woken by the recovery")?;
    let woke = expect_no_dispatch(queue.recovery_finish(), "nothing is queued")?;
    ensure(!woke, "nobody waits")?;
    ensure(queue.poll_idle() == IdleState::Idle, "idle after recovery")
}

/// Tags outside the slot table are refused and leave the queue untouched.
pub fn bad_tag_rejected() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    for tag in [64, 65, 255, 256, -1, i32::MIN, i32::MAX] {
        ensure(
            queue.request(tag, 1, WRITE_4K).err() == Some(HsqError::InvalidTag),
            "a tag outside 0..64 is refused",
        )?;
    }
    ensure(queue.is_idle(), "refused requests are not queued")?;
    ensure(!queue.timeout(64, &1), "an invalid tag owns nothing")?;
    submit_dispatched(&mut queue, 63, 1, WRITE_4K)?.accepted();
    ensure(queue.timeout(63, &1), "the last tag is valid")?;
    Ok(())
}

/// A tag still queued or with the host is refused and the first request is kept.
pub fn double_submit_rejected() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    submit_dispatched(&mut queue, 12, 1, READ_4K)?.accepted();
    submit_queued(&mut queue, 13, 2, READ_4K)?;
    ensure(
        queue.request(12, 3, WRITE_4K).err() == Some(HsqError::TagInUse),
        "the tag of the request with the host is busy",
    )?;
    ensure(
        queue.request(13, 4, WRITE_4K).err() == Some(HsqError::TagInUse),
        "the tag of a queued request is busy",
    )?;
    ensure(queue.timeout(12, &1), "the first request keeps its tag")?;
    ensure(!queue.timeout(12, &3), "the refused request was not stored")?;
    expect_dispatch(complete(&mut queue, 1)?, 2, "the queued request survives")?.accepted();
    let woke = expect_no_dispatch(complete(&mut queue, 2)?, "the refused ones were not queued")?;
    ensure(!woke, "nobody waited")?;
    ensure(!queue.timeout(13, &2), "a completed request is gone")
}

/// Completions for anything but the request the host owns are refused without effect, and
/// so are stale tokens.
pub fn wrong_completion_rejected() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    ensure(
        queue.finalize_request(&1).err() == Some(HsqError::NotInFlight),
        "an idle queue owns nothing",
    )?;
    submit_dispatched(&mut queue, 0, 1, READ_4K)?.accepted();
    submit_queued(&mut queue, 1, 2, READ_4K)?;
    ensure(
        queue.finalize_request(&2).err() == Some(HsqError::NotInFlight),
        "a queued request cannot complete",
    )?;
    ensure(
        queue.finalize_request(&99).err() == Some(HsqError::NotInFlight),
        "an unknown request cannot complete",
    )?;
    let finished = finalize(&mut queue, 1)?;
    ensure(
        queue.finalize_request(&1).err() == Some(HsqError::NotInFlight),
        "a request completes once",
    )?;
    let next = release(&mut queue, finished)?;
    let dispatch = expect_dispatch(next, 2, "the queue is intact")?;
    // A token from this dispatch cannot be reported after the request completed.
    let finished = finalize(&mut queue, 2)?;
    ensure(
        queue.host_busy(dispatch).err() == Some(HsqError::StaleToken),
        "a completed dispatch cannot be answered busy",
    )?;
    let woke = expect_no_dispatch(release(&mut queue, finished)?, "the queue drained")?;
    ensure(!woke, "nobody waited")?;
    ensure(queue.is_idle(), "the queue is idle")
}

/// A host that answers busy gets the same request again from the retry work, and recovery
/// holds the retry until it ends.
pub fn host_busy_retry() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    let dispatch = submit_dispatched(&mut queue, 0, 1, READ_4K)?;
    submit_queued(&mut queue, 1, 2, READ_4K)?;
    ensure(
        queue.host_busy(dispatch).is_ok(),
        "the host may answer busy",
    )?;
    ensure(
        queue.finalize_request(&1).err() == Some(HsqError::NotInFlight),
        "the host does not own a request it refused",
    )?;
    ensure(
        queue.poll_idle() == IdleState::Busy,
        "a deferred request keeps the queue busy",
    )?;
    let retry = expect_dispatch(queue.retry(), 1, "the retry reissues the same request")?;
    expect_no_dispatch(queue.retry(), "a second retry does nothing")?;
    // Busy again, this time with a recovery starting before the retry work runs.
    ensure(
        queue.host_busy(retry).is_ok(),
        "the host may answer busy again",
    )?;
    let woke = expect_no_dispatch(queue.recovery_start(), "recovery dispatches nothing")?;
    ensure(woke, "recovery wakes the idle waiter")?;
    expect_no_dispatch(queue.retry(), "recovery holds the retry")?;
    expect_dispatch(queue.recovery_finish(), 1, "recovery end reissues it")?.accepted();
    expect_dispatch(complete(&mut queue, 1)?, 2, "then the queue moves on")?.accepted();
    Ok(())
}

/// A host that refuses a request before it reaches the hardware (a DMA-mapping failure)
/// completes it and the queue moves on.
pub fn host_failure_does_not_stall() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    let dispatch = submit_dispatched(&mut queue, 0, 1, WRITE_4K)?;
    submit_queued(&mut queue, 1, 2, WRITE_4K)?;
    submit_queued(&mut queue, 2, 3, WRITE_4K)?;
    let finished = queue
        .host_failed(dispatch)
        .map_err(|_| ScenarioError("the host may refuse the request it was given"))?;
    ensure(
        finished.request() == 1,
        "the refused request is the one to complete",
    )?;
    ensure(
        queue.finalize_request(&1).err() == Some(HsqError::NotInFlight),
        "a refused request cannot complete twice",
    )?;
    ensure(!queue.timeout(0, &1), "the refused request left its slot")?;
    let next = expect_dispatch(release(&mut queue, finished)?, 2, "the queue moves on")?;
    ensure(
        next.depth() == PERFORMANCE_DEPTH,
        "two queued 4 KiB writes raise the depth",
    )?;
    let finished = queue
        .host_failed(next)
        .map_err(|_| ScenarioError("the host may refuse again"))?;
    let last = expect_dispatch(release(&mut queue, finished)?, 3, "and on")?;
    ensure(
        last.depth() == NORMAL_DEPTH,
        "refused writes no longer count",
    )?;
    last.accepted();
    let woke = expect_no_dispatch(complete(&mut queue, 3)?, "drained")?;
    ensure(!woke, "nobody waited")?;
    ensure(queue.is_idle(), "nothing stalls")
}
