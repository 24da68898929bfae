// SPDX-License-Identifier: GPL-2.0

//! One test per queue rule, through the public API, including the edge cases the shared
//! scenarios leave out.

use hsq::{
    Actions, DataDirection, Dispatch, Finished, Hsq, HsqError, IdleState, Progress, RequestShape,
    DISABLE_TIMEOUT_MS, NORMAL_DEPTH, PERFORMANCE_DEPTH, SLOT_COUNT,
};

const READ: RequestShape = RequestShape::with_data(DataDirection::Read, 512, 8);
const WRITE_4K: RequestShape = RequestShape::with_data(DataDirection::Write, 512, 8);

fn enabled() -> Hsq<u32> {
    let mut queue = Hsq::new();
    queue.enable().expect("a new queue enables");
    queue
}

fn dispatched(actions: Actions<u32>) -> Dispatch<u32> {
    assert!(!actions.wake_idle_waiters, "a dispatch wakes nobody");
    actions.dispatch.expect("a dispatch")
}

fn quiet(actions: Actions<u32>) -> bool {
    assert!(actions.dispatch.is_none(), "no dispatch expected");
    actions.wake_idle_waiters
}

fn submit(queue: &mut Hsq<u32>, tag: i32, request: u32, shape: RequestShape) -> Actions<u32> {
    queue
        .request(tag, request, shape)
        .expect("request accepted")
}

/// Submits to an idle host and lets it start the request.
fn start(queue: &mut Hsq<u32>, tag: i32, request: u32, shape: RequestShape) {
    accept(submit(queue, tag, request, shape), request);
}

fn enqueue(queue: &mut Hsq<u32>, tag: i32, request: u32, shape: RequestShape) {
    assert!(!quiet(submit(queue, tag, request, shape)));
}

fn finalize(queue: &mut Hsq<u32>, request: u32) -> Finished<u32> {
    let finished = queue.finalize_request(&request).expect("finalize");
    assert_eq!(finished.request(), request);
    finished
}

fn complete(queue: &mut Hsq<u32>, request: u32) -> Actions<u32> {
    let finished = finalize(queue, request);
    queue.request_done(finished).expect("request_done")
}

/// Expects `actions` to dispatch `next`, lets the host start it, and returns the depth
/// published with it.
fn accept(actions: Actions<u32>, next: u32) -> u8 {
    let dispatch = dispatched(actions);
    assert_eq!(dispatch.request(), next);
    let depth = dispatch.depth();
    dispatch.accepted();
    depth
}

/// An enabled queue whose host runs request 1 (tag 0) of shape `first`, with requests 2, 3,
/// … (tags 1, 2, …) of the shapes `queued` waiting behind it.
fn holding(first: RequestShape, queued: &[RequestShape]) -> Hsq<u32> {
    let mut queue = enabled();
    start(&mut queue, 0, 1, first);
    for (tag, shape) in (1..).zip(queued) {
        enqueue(&mut queue, tag, tag as u32 + 1, *shape);
    }
    queue
}

#[test]
fn constants_match_the_mmc_core() {
    assert_eq!(SLOT_COUNT, 64);
    assert_eq!(NORMAL_DEPTH, 2);
    assert_eq!(PERFORMANCE_DEPTH, 5);
    assert_eq!(DISABLE_TIMEOUT_MS, 500);
}

#[test]
fn a_default_queue_is_a_new_queue() {
    let mut queue = Hsq::<u32>::default();
    assert!(!queue.is_enabled());
    assert!(!queue.is_suspended());
    assert!(!queue.is_halted());
    assert!(queue.is_idle());
    assert_eq!(queue.depth(), NORMAL_DEPTH);
    assert_eq!(queue.request(0, 1, READ).err(), Some(HsqError::Shutdown));
    queue.enable().expect("enables");
    start(&mut queue, 0, 1, READ);
}

#[test]
fn dispatch_order_is_arrival_order_across_all_slots() {
    let mut queue = enabled();
    // Tags in a scrambled order, each request numbered by arrival.
    let tags: Vec<i32> = (0..64).map(|n| (n * 37 + 11) % 64).collect();
    start(&mut queue, tags[0], 0, READ);
    for (arrival, tag) in tags.iter().enumerate().skip(1) {
        enqueue(&mut queue, *tag, arrival as u32, READ);
    }
    for tag in 0..64 {
        assert_eq!(
            queue.request(tag, 1000, READ).err(),
            Some(HsqError::TagInUse)
        );
    }
    for arrival in 0..63 {
        accept(complete(&mut queue, arrival), arrival + 1);
    }
    assert!(!quiet(complete(&mut queue, 63)));
    assert!(queue.is_idle());
}

#[test]
fn the_host_is_released_only_by_request_done() {
    let mut queue = holding(READ, &[READ]);
    let finished = finalize(&mut queue, 1);
    assert!(!queue.is_idle(), "the host is still taken after finalize");
    assert!(
        !quiet(queue.retry()),
        "a retry does not dispatch past a finished request"
    );
    assert!(!quiet(queue.recovery_finish()));
    accept(queue.request_done(finished).expect("request_done"), 2);
}

#[test]
fn depth_counts_only_queued_4_kib_writes_and_is_chosen_at_dispatch() {
    let mut queue = holding(WRITE_4K, &[WRITE_4K, READ]);
    assert_eq!(
        queue.depth(),
        NORMAL_DEPTH,
        "chosen at dispatch, not at submit"
    );
    // The finished write no longer counts; 2 alone is not enough.
    assert_eq!(accept(complete(&mut queue, 1), 2), NORMAL_DEPTH);
    enqueue(&mut queue, 0, 4, WRITE_4K);
    enqueue(&mut queue, 4, 5, WRITE_4K);
    // Queued: 3 (read), 4 and 5 (writes).
    assert_eq!(accept(complete(&mut queue, 2), 3), PERFORMANCE_DEPTH);
    assert_eq!(queue.depth(), PERFORMANCE_DEPTH);
    assert_eq!(accept(complete(&mut queue, 3), 4), PERFORMANCE_DEPTH);
    assert_eq!(accept(complete(&mut queue, 4), 5), NORMAL_DEPTH);
    assert_eq!(queue.depth(), NORMAL_DEPTH);
}

#[test]
fn refused_submissions_do_not_count_towards_the_depth() {
    let mut queue = holding(READ, &[WRITE_4K]);
    assert_eq!(
        queue.request(1, 3, WRITE_4K).err(),
        Some(HsqError::TagInUse)
    );
    assert_eq!(
        queue.request(64, 4, WRITE_4K).err(),
        Some(HsqError::InvalidTag)
    );
    assert_eq!(accept(complete(&mut queue, 1), 2), NORMAL_DEPTH);
}

#[test]
fn a_full_queue_of_4_kib_writes_publishes_the_performance_depth() {
    let mut queue = holding(WRITE_4K, &[WRITE_4K; 63]);
    assert_eq!(accept(complete(&mut queue, 1), 2), PERFORMANCE_DEPTH);
}

#[test]
fn refusal_precedence_is_shutdown_then_busy_then_tag() {
    let mut queue = Hsq::<u32>::new();
    assert!(!quiet(queue.recovery_start()));
    assert_eq!(queue.request(99, 1, READ).err(), Some(HsqError::Shutdown));
    queue.enable().expect("enables");
    assert_eq!(queue.request(99, 1, READ).err(), Some(HsqError::Busy));
    assert!(!quiet(queue.recovery_finish()));
    assert_eq!(queue.request(99, 1, READ).err(), Some(HsqError::InvalidTag));
    assert!(queue.try_suspend() == Progress::Done);
    assert_eq!(queue.request(0, 1, READ).err(), Some(HsqError::Shutdown));
}

#[test]
fn completions_that_are_not_the_hosts_are_refused() {
    assert_eq!(
        enabled().finalize_request(&1).err(),
        Some(HsqError::NotInFlight)
    );
    let mut queue = holding(READ, &[READ]);
    for request in [2, 3] {
        assert_eq!(
            queue.finalize_request(&request).err(),
            Some(HsqError::NotInFlight)
        );
    }
    // Refusals changed nothing: the same request still completes, then the next.
    accept(complete(&mut queue, 1), 2);
}

#[test]
fn tokens_only_act_on_their_own_queue_and_dispatch() {
    let mut first = enabled();
    let mut second = enabled();
    let first_dispatch = dispatched(submit(&mut first, 0, 1, READ));
    let second_dispatch = dispatched(submit(&mut second, 0, 1, READ));
    // Same handle, different dispatch: the second queue has not dispatched twice.
    let foreign = second.host_busy(second_dispatch);
    assert_eq!(foreign, Ok(()));
    let retried = dispatched(second.retry());
    assert_eq!(
        second.host_failed(first_dispatch).err(),
        Some(HsqError::StaleToken),
        "a token from the first dispatch does not match the retried one",
    );
    // The second queue's request is still the host's and completes normally.
    retried.accepted();
    let finished = finalize(&mut second, 1);
    // A finished token only releases the queue that issued it, and only once.
    let mut third = enabled();
    start(&mut third, 5, 1, READ);
    assert_eq!(
        third.request_done(finished).err(),
        Some(HsqError::StaleToken)
    );
    let finished = finalize(&mut third, 1);
    assert!(!quiet(third.request_done(finished).expect("released")));
    let finished = finalize(&mut first, 1);
    assert!(!quiet(first.request_done(finished).expect("released")));
}

#[test]
fn busy_and_failure_answers_need_an_issued_request() {
    let mut queue = enabled();
    let dispatch = dispatched(submit(&mut queue, 0, 1, READ));
    queue.host_busy(dispatch).expect("busy");
    let retried = dispatched(queue.retry());
    let finished = finalize(&mut queue, 1);
    // After finalize the token is stale for both answers.
    assert_eq!(queue.host_failed(retried).err(), Some(HsqError::StaleToken));
    assert!(!quiet(queue.request_done(finished).expect("released")));

    let dispatch = dispatched(submit(&mut queue, 0, 2, READ));
    queue.host_busy(dispatch).expect("busy");
    // While deferred, the host does not own the request: it cannot fail or complete it.
    assert_eq!(
        queue.finalize_request(&2).err(),
        Some(HsqError::NotInFlight)
    );
    let retried = dispatched(queue.retry());
    assert_eq!(retried.request(), 2);
    let finished = queue.host_failed(retried).expect("failure after retry");
    assert_eq!(finished.request(), 2);
    assert!(!quiet(queue.request_done(finished).expect("released")));
    assert!(queue.is_idle());
}

#[test]
fn a_completion_may_arrive_before_the_host_returns_from_request() {
    let mut queue = enabled();
    let dispatch = dispatched(submit(&mut queue, 0, 1, READ));
    enqueue(&mut queue, 1, 2, READ);
    // The interrupt completes request 1 on another CPU while `request` is still running.
    let next = dispatched(complete(&mut queue, 1));
    assert_eq!(next.request(), 2);
    dispatch.accepted();
    next.accepted();
    assert!(!quiet(complete(&mut queue, 2)));
}

#[test]
fn a_retry_keeps_the_published_depth() {
    let mut queue = holding(READ, &[WRITE_4K, WRITE_4K]);
    let dispatch = dispatched(complete(&mut queue, 1));
    assert_eq!(dispatch.depth(), PERFORMANCE_DEPTH);
    queue.host_busy(dispatch).expect("busy");
    let retried = dispatched(queue.retry());
    assert_eq!((retried.request(), retried.depth()), (2, PERFORMANCE_DEPTH));
    retried.accepted();
}

#[test]
fn nothing_to_retry_means_no_dispatch() {
    let mut queue = enabled();
    assert!(!quiet(queue.retry()));
    start(&mut queue, 0, 1, READ);
    assert!(!quiet(queue.retry()), "an issued request is not reissued");
}

#[test]
fn idle_waiters_are_woken_once_per_registration() {
    let mut queue = enabled();
    start(&mut queue, 0, 1, READ);
    assert_eq!(queue.poll_idle(), IdleState::Busy);
    assert!(
        quiet(queue.recovery_start()),
        "recovery wakes the registered waiter"
    );
    assert!(
        !quiet(queue.recovery_start()),
        "a second start has nobody left to wake"
    );
    assert_eq!(queue.poll_idle(), IdleState::Recovering);
    assert!(
        !quiet(complete(&mut queue, 1)),
        "a recovering poll registers nobody"
    );
    assert!(!quiet(queue.recovery_finish()));
    assert_eq!(queue.poll_idle(), IdleState::Idle);

    start(&mut queue, 0, 2, READ);
    assert_eq!(queue.try_disable(), Progress::Busy);
    assert!(
        quiet(complete(&mut queue, 2)),
        "draining wakes the disabler"
    );
    start(&mut queue, 0, 3, READ);
    assert!(!quiet(complete(&mut queue, 3)), "nobody registered again");
    assert_eq!(queue.try_suspend(), Progress::Done);
}

#[test]
fn an_idle_check_on_an_idle_queue_registers_nobody() {
    let mut queue = enabled();
    assert_eq!(queue.poll_idle(), IdleState::Idle);
    assert_eq!(queue.try_disable(), Progress::Done);
    queue.enable().expect("enables");
    start(&mut queue, 0, 1, READ);
    assert!(!quiet(complete(&mut queue, 1)));
    assert!(!quiet(queue.recovery_start()));
}

#[test]
fn draining_wakes_waiters_only_when_nothing_is_left() {
    let mut queue = holding(READ, &[READ]);
    assert_eq!(queue.try_suspend(), Progress::Busy);
    assert!(!queue.is_suspended());
    // Recovery halts with request 2 still queued: the suspender must keep sleeping.
    let finished = finalize(&mut queue, 1);
    assert!(
        quiet(queue.recovery_start()),
        "the recovery wakes every sleeper to recheck"
    );
    assert_eq!(
        queue.try_suspend(),
        Progress::Busy,
        "a halted queue with requests is busy"
    );
    assert!(!quiet(queue.request_done(finished).expect("released")));
    accept(queue.recovery_finish(), 2);
    assert!(quiet(complete(&mut queue, 2)));
    assert_eq!(queue.try_suspend(), Progress::Done);
    assert!(queue.is_suspended());
}

#[test]
fn a_halted_idle_queue_disables_and_stays_halted() {
    let mut queue = enabled();
    assert!(!quiet(queue.recovery_start()));
    assert_eq!(queue.try_disable(), Progress::Done);
    queue.enable().expect("enables");
    assert!(queue.is_halted());
    assert_eq!(queue.request(0, 1, READ).err(), Some(HsqError::Busy));
    assert!(!quiet(queue.recovery_finish()));
    start(&mut queue, 0, 1, READ);
}

#[test]
fn a_busy_disable_or_suspend_keeps_every_request() {
    let mut queue = holding(WRITE_4K, &[WRITE_4K, WRITE_4K]);
    assert_eq!(queue.try_disable(), Progress::Busy);
    assert_eq!(queue.try_suspend(), Progress::Busy);
    assert!(queue.is_enabled());
    assert!(!queue.is_suspended());
    assert_eq!(accept(complete(&mut queue, 1), 2), PERFORMANCE_DEPTH);
    accept(complete(&mut queue, 2), 3);
    assert!(quiet(complete(&mut queue, 3)));
}

#[test]
fn suspend_and_disable_are_independent() {
    let mut queue = Hsq::<u32>::new();
    // A runtime resume before the MMC core's enable must not make that enable fail.
    assert_eq!(queue.resume(), Err(HsqError::NotSuspended));
    assert_eq!(queue.try_suspend(), Progress::Done);
    assert_eq!(
        queue.try_suspend(),
        Progress::Done,
        "suspending twice is harmless"
    );
    assert_eq!(queue.resume(), Ok(()));
    assert!(!queue.is_enabled());
    queue.enable().expect("the core's enable still works");
    assert_eq!(queue.try_suspend(), Progress::Done);
    assert_eq!(queue.request(0, 1, READ).err(), Some(HsqError::Shutdown));
    assert!(queue.is_enabled(), "suspend leaves the core's enable alone");
    queue.resume().expect("resumes");
    start(&mut queue, 0, 1, READ);
}

#[test]
fn timeout_reports_whether_the_request_is_still_owned() {
    assert!(!enabled().timeout(0, &1));
    let mut queue = holding(READ, &[READ]);
    assert!(queue.timeout(0, &1), "with the host");
    assert!(queue.timeout(1, &2), "queued");
    assert!(!queue.timeout(1, &1), "wrong tag");
    assert!(!queue.timeout(0, &2), "wrong request");
    assert!(!queue.timeout(-1, &1));
    assert!(!queue.timeout(64, &1));
    let finished = finalize(&mut queue, 1);
    assert!(!queue.timeout(0, &1), "finished");
    accept(queue.request_done(finished).expect("released"), 2);
    assert!(queue.timeout(1, &2));
}

#[test]
fn off_changes_nothing() {
    let mut queue = holding(READ, &[READ]);
    queue.off();
    assert!(queue.is_enabled());
    accept(complete(&mut queue, 1), 2);
}

#[test]
fn a_failed_issue_frees_the_tag_at_once() {
    let mut queue = enabled();
    let dispatch = dispatched(submit(&mut queue, 7, 1, READ));
    let finished = queue.host_failed(dispatch).expect("failed");
    // The block layer may reuse the tag as soon as the MMC core completed the request.
    enqueue(&mut queue, 7, 2, READ);
    accept(queue.request_done(finished).expect("released"), 2);
}
