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
    complete, complete_and_start, complete_last, enabled_queue, ensure, expect_all, expect_depth,
    expect_dispatch, expect_no_dispatch, expect_not_in_flight, expect_refused,
    expect_shut_down_until, finalize, release, running_queue, submit_all, submit_dispatched,
    submit_queued, Check, Queue, READ_4K, WRITE_4K, WRITE_64K,
};

/// The first expectation a scenario found broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScenarioError(pub &'static str);

/// A scenario: `Ok` when every expectation held.
pub type Scenario = fn() -> Result<(), ScenarioError>;

/// Expands `$then!(ARGS... name, name, ...)` with the name of every scenario: the one list
/// that [`ALL`], the host tests and the KUnit suite are made from.
#[macro_export]
macro_rules! hsq_scenarios {
    ($then:ident!($($args:tt)*)) => {
        $then!($($args)*
            fifo_dispatch,
            one_in_flight,
            depth_normal,
            depth_performance,
            disable_enable,
            disable_waits_for_idle,
            suspend_resume,
            recovery_halt_resume,
            wait_for_idle,
            bad_tag_rejected,
            double_submit_rejected,
            wrong_completion_rejected,
            host_busy_retry,
            host_failure_does_not_stall,
        );
    };
}

macro_rules! scenario_table {
    ($($name:ident,)*) => {
        /// Every scenario, by name.
        pub const ALL: &[(&str, Scenario)] = &[$((stringify!($name), $name as Scenario)),*];
    };
}

hsq_scenarios!(scenario_table!());

/// Requests reach the host in arrival order, not tag order, each straight from the
/// completion of the previous one.
pub fn fifo_dispatch() -> Result<(), ScenarioError> {
    let requests = [(40, READ_4K), (7, READ_4K), (63, WRITE_64K), (0, READ_4K)];
    let mut queue = running_queue(&requests)?;
    for (done, next) in [(1, 2), (2, 3), (3, 4)] {
        complete_and_start(
            &mut queue,
            done,
            next,
            "completion dispatches the oldest request",
        )?;
    }
    complete_last(
        &mut queue,
        4,
        false,
        "a drained queue dispatches nothing, and nobody waited to be woken",
    )?;
    ensure(queue.is_idle(), "a drained queue is idle")?;
    // A tag is free again once its request completed.
    submit_dispatched(&mut queue, 40, 5, READ_4K)?.accepted();
    Ok(())
}

/// The host owns one request at a time, until the MMC core has seen its completion.
pub fn one_in_flight() -> Result<(), ScenarioError> {
    let mut queue = running_queue(&[(1, READ_4K), (2, READ_4K)])?;
    ensure(!queue.is_idle(), "a queue with requests is not idle")?;
    let finished = finalize(&mut queue, 1)?;
    // Between finalize and request_done the host is still taken, even for a new request
    // reusing the finished request's tag.
    submit_queued(&mut queue, 1, 3, READ_4K)?;
    expect_dispatch(
        release(&mut queue, finished)?,
        2,
        "releasing the host dispatches the next request",
    )?
    .accepted();
    complete_and_start(&mut queue, 2, 3, "the reused tag runs last")?;
    complete_last(&mut queue, 3, false, "nothing is left, and nobody waited")?;
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
    let requests = [
        (0, WRITE_4K),
        (1, READ_4K),
        (2, WRITE_64K),
        (3, RequestShape::without_data()),
    ];
    let first = submit_all(&mut queue, &requests)?;
    expect_depth(
        &queue,
        &first,
        NORMAL_DEPTH,
        "one 4 KiB write keeps the normal depth",
    )?;
    first.accepted();
    let second = expect_dispatch(complete(&mut queue, 1)?, 2, "the read is next")?;
    expect_depth(
        &queue,
        &second,
        NORMAL_DEPTH,
        "reads, large writes and commands keep the normal depth",
    )?;
    second.accepted();
    Ok(())
}

/// Two queued 4 KiB writes raise the published depth; it falls back when they are gone.
pub fn depth_performance() -> Result<(), ScenarioError> {
    let mut queue = running_queue(&[(9, READ_4K), (10, WRITE_4K), (11, WRITE_4K)])?;
    // Requests queued after the policy was evaluated change nothing until the next dispatch.
    ensure(
        queue.depth() == NORMAL_DEPTH,
        "the depth changes only at a dispatch",
    )?;
    for (done, next, depth, description) in [
        (
            1,
            2,
            PERFORMANCE_DEPTH,
            "two queued 4 KiB writes raise the depth",
        ),
        (
            2,
            3,
            NORMAL_DEPTH,
            "one remaining 4 KiB write restores the normal depth",
        ),
    ] {
        let dispatch = expect_dispatch(complete(&mut queue, done)?, next, "the writes are next")?;
        expect_depth(&queue, &dispatch, depth, description)?;
        dispatch.accepted();
    }
    Ok(())
}

/// A disabled queue refuses requests with "shutdown" until it is enabled again.
pub fn disable_enable() -> Result<(), ScenarioError> {
    let mut queue = Queue::new();
    let checks: [(Check, &str); 7] = [
        (|q| !q.is_enabled(), "a new queue is disabled"),
        (
            |q| q.request(0, 1, READ_4K).err() == Some(HsqError::Shutdown),
            "a new queue refuses requests with shutdown",
        ),
        (|q| q.enable().is_ok(), "enable succeeds"),
        (
            |q| q.enable() == Err(HsqError::AlreadyEnabled),
            "enabling twice is refused",
        ),
        (
            |q| q.try_disable() == Progress::Done,
            "an idle queue disables at once",
        ),
        (|q| !q.is_enabled(), "the queue is disabled"),
        (
            |q| q.try_disable() == Progress::Done,
            "disabling a disabled queue is done",
        ),
    ];
    expect_all(&mut queue, &checks)?;
    let description = "a disabled queue refuses requests with shutdown until enabled again";
    expect_shut_down_until(&mut queue, 0, 1, Queue::enable, description)?.accepted();
    Ok(())
}

/// Disabling a busy queue fails without changing anything; it succeeds once drained.
pub fn disable_waits_for_idle() -> Result<(), ScenarioError> {
    let mut queue = running_queue(&[(0, READ_4K), (1, WRITE_4K)])?;
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
    complete_and_start(&mut queue, 1, 2, "the queue keeps dispatching")?;
    complete_and_start(&mut queue, 2, 3, "no request was lost")?;
    complete_last(
        &mut queue,
        3,
        true,
        "the queue drained, which wakes the disabler",
    )?;
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
    let description = "the queue drained, which wakes the suspender";
    complete_last(&mut queue, 1, true, description)?;
    ensure(
        queue.try_suspend() == Progress::Done,
        "an idle queue suspends",
    )?;
    ensure(queue.is_suspended(), "the queue is suspended")?;
    let description = "a suspended queue refuses requests with shutdown until resumed";
    expect_shut_down_until(&mut queue, 5, 2, Queue::resume, description)?.accepted();
    ensure(
        queue.resume() == Err(HsqError::NotSuspended),
        "resuming twice is refused",
    )?;
    ensure(
        complete(&mut queue, 2)?.dispatch.is_none(),
        "nothing else is queued",
    )?;
    // A resume must not enable what the MMC core disabled, nor block its later enable.
    ensure(queue.try_suspend() == Progress::Done, "suspends again")?;
    ensure(queue.try_disable() == Progress::Done, "the core disables")?;
    ensure(queue.resume().is_ok(), "resumes")?;
    let description = "resume leaves a disabled queue disabled, and the core's enable works";
    expect_shut_down_until(&mut queue, 0, 3, Queue::enable, description)?.accepted();
    Ok(())
}

/// Recovery halts dispatching and refuses requests with "busy"; finishing it resumes.
pub fn recovery_halt_resume() -> Result<(), ScenarioError> {
    let mut queue = running_queue(&[(0, READ_4K), (1, READ_4K)])?;
    // The MMC core starts recovery from inside the completion of a failed request.
    let finished = finalize(&mut queue, 1)?;
    expect_no_dispatch(
        queue.recovery_start(),
        false,
        "recovery dispatches nothing, and nobody waited",
    )?;
    ensure(queue.is_halted(), "recovery halts the queue")?;
    expect_no_dispatch(
        release(&mut queue, finished)?,
        false,
        "a halted queue waits, and a request is still queued",
    )?;
    expect_refused(
        &mut queue,
        2,
        3,
        READ_4K,
        HsqError::Busy,
        "a halted queue refuses requests with busy",
    )?;
    expect_dispatch(queue.recovery_finish(), 2, "recovery end dispatches")?.accepted();
    ensure(!queue.is_halted(), "the queue runs again")?;
    submit_queued(&mut queue, 2, 3, READ_4K)?;
    complete_and_start(&mut queue, 2, 3, "the queue keeps order")?;
    expect_no_dispatch(
        queue.recovery_finish(),
        false,
        "finishing twice is harmless and wakes nobody",
    )
}

/// Waiting for idle sleeps while requests remain, and reports recovery as "busy".
pub fn wait_for_idle() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    ensure(
        queue.poll_idle() == IdleState::Idle,
        "an empty queue is idle",
    )?;
    submit_all(&mut queue, &[(3, READ_4K), (4, READ_4K)])?.accepted();
    ensure(
        queue.poll_idle() == IdleState::Busy,
        "a queue with requests is busy",
    )?;
    complete_and_start(&mut queue, 1, 2, "requests remain, so nobody is woken yet")?;
    complete_last(
        &mut queue,
        2,
        true,
        "the queue drained, which wakes the waiter",
    )?;
    ensure(
        queue.poll_idle() == IdleState::Idle,
        "a drained queue is idle",
    )?;

    submit_dispatched(&mut queue, 3, 3, READ_4K)?.accepted();
    ensure(
        queue.poll_idle() == IdleState::Busy,
        "the waiter sleeps again",
    )?;
    expect_no_dispatch(
        queue.recovery_start(),
        true,
        "recovery dispatches nothing and wakes the waiter",
    )?;
    ensure(
        queue.poll_idle() == IdleState::Recovering,
        "waiting during recovery reports it",
    )?;
    complete_last(
        &mut queue,
        3,
        false,
        "halted, and the waiter was already woken by the recovery",
    )?;
    expect_no_dispatch(
        queue.recovery_finish(),
        false,
        "nothing is queued, and nobody waits",
    )?;
    ensure(queue.poll_idle() == IdleState::Idle, "idle after recovery")
}

/// Tags outside the slot table are refused and leave the queue untouched.
pub fn bad_tag_rejected() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    for tag in [64, 65, 255, 256, -1, i32::MIN, i32::MAX] {
        expect_refused(
            &mut queue,
            tag,
            1,
            WRITE_4K,
            HsqError::InvalidTag,
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
    let mut queue = running_queue(&[(12, READ_4K), (13, READ_4K)])?;
    for (tag, request, description) in [
        (12, 3, "the tag of the request with the host is busy"),
        (13, 4, "the tag of a queued request is busy"),
    ] {
        expect_refused(
            &mut queue,
            tag,
            request,
            WRITE_4K,
            HsqError::TagInUse,
            description,
        )?;
    }
    ensure(queue.timeout(12, &1), "the first request keeps its tag")?;
    ensure(!queue.timeout(12, &3), "the refused request was not stored")?;
    complete_and_start(&mut queue, 1, 2, "the queued request survives")?;
    complete_last(
        &mut queue,
        2,
        false,
        "the refused ones were not queued, and nobody waited",
    )?;
    ensure(!queue.timeout(13, &2), "a completed request is gone")
}

/// Completions for anything but the request the host owns are refused without effect, and
/// so are stale tokens.
pub fn wrong_completion_rejected() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    expect_not_in_flight(&mut queue, 1, "an idle queue owns nothing")?;
    submit_all(&mut queue, &[(0, READ_4K), (1, READ_4K)])?.accepted();
    expect_not_in_flight(&mut queue, 2, "a queued request cannot complete")?;
    expect_not_in_flight(&mut queue, 99, "an unknown request cannot complete")?;
    let finished = finalize(&mut queue, 1)?;
    expect_not_in_flight(&mut queue, 1, "a request completes once")?;
    let next = release(&mut queue, finished)?;
    let dispatch = expect_dispatch(next, 2, "the queue is intact")?;
    // A token from this dispatch cannot be reported after the request completed.
    let finished = finalize(&mut queue, 2)?;
    ensure(
        queue.host_busy(dispatch).err() == Some(HsqError::StaleToken),
        "a completed dispatch cannot be answered busy",
    )?;
    expect_no_dispatch(
        release(&mut queue, finished)?,
        false,
        "the queue drained, and nobody waited",
    )?;
    ensure(queue.is_idle(), "the queue is idle")
}

/// A host that answers busy gets the same request again from the retry work, and recovery
/// holds the retry until it ends.
pub fn host_busy_retry() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    let dispatch = submit_all(&mut queue, &[(0, READ_4K), (1, READ_4K)])?;
    ensure(
        queue.host_busy(dispatch).is_ok(),
        "the host may answer busy",
    )?;
    expect_not_in_flight(&mut queue, 1, "the host does not own a request it refused")?;
    ensure(
        queue.poll_idle() == IdleState::Busy,
        "a deferred request keeps the queue busy",
    )?;
    let retry = expect_dispatch(queue.retry(), 1, "the retry reissues the same request")?;
    expect_no_dispatch(queue.retry(), false, "a second retry does nothing")?;
    // Busy again, this time with a recovery starting before the retry work runs.
    ensure(
        queue.host_busy(retry).is_ok(),
        "the host may answer busy again",
    )?;
    expect_no_dispatch(
        queue.recovery_start(),
        true,
        "recovery dispatches nothing and wakes the idle waiter",
    )?;
    expect_no_dispatch(queue.retry(), false, "recovery holds the retry")?;
    expect_dispatch(queue.recovery_finish(), 1, "recovery end reissues it")?.accepted();
    complete_and_start(&mut queue, 1, 2, "then the queue moves on")?;
    Ok(())
}

/// A host that refuses a request before it reaches the hardware (a DMA-mapping failure)
/// completes it and the queue moves on.
pub fn host_failure_does_not_stall() -> Result<(), ScenarioError> {
    let mut queue = enabled_queue()?;
    let dispatch = submit_all(&mut queue, &[(0, WRITE_4K), (1, WRITE_4K), (2, WRITE_4K)])?;
    let finished = queue
        .host_failed(dispatch)
        .map_err(|_| ScenarioError("the host may refuse the request it was given"))?;
    ensure(
        finished.request() == 1,
        "the refused request is the one to complete",
    )?;
    expect_not_in_flight(&mut queue, 1, "a refused request cannot complete twice")?;
    ensure(!queue.timeout(0, &1), "the refused request left its slot")?;
    let next = expect_dispatch(release(&mut queue, finished)?, 2, "the queue moves on")?;
    expect_depth(
        &queue,
        &next,
        PERFORMANCE_DEPTH,
        "two queued 4 KiB writes raise the depth",
    )?;
    let finished = queue
        .host_failed(next)
        .map_err(|_| ScenarioError("the host may refuse again"))?;
    let last = expect_dispatch(release(&mut queue, finished)?, 3, "and on")?;
    expect_depth(
        &queue,
        &last,
        NORMAL_DEPTH,
        "refused writes no longer count",
    )?;
    last.accepted();
    complete_last(&mut queue, 3, false, "drained, and nobody waited")?;
    ensure(queue.is_idle(), "nothing stalls")
}
