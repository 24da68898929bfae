// SPDX-License-Identifier: GPL-2.0

//! Property tests: random interleavings of submissions, completions, host answers, recovery,
//! suspend and disable, checked step by step against a plain reference model.
//!
//! The model keeps the queue as a `VecDeque` and answers every question by scanning it,
//! which is slow but obviously right. After each sequence everything is drained, and the
//! test checks that every accepted request was dispatched in arrival order and completed
//! exactly once.

use std::collections::{BTreeSet, VecDeque};

use hsq::{
    DataDirection, Dispatch, Finished, Hsq, HsqError, IdleState, Progress, RequestShape,
    NORMAL_DEPTH, PERFORMANCE_DEPTH,
};
use proptest::prelude::*;

#[derive(Clone, Copy, Debug)]
enum Op {
    Submit {
        tag: i32,
        four_kib_write: bool,
    },
    /// The host starts the request of an outstanding dispatch token.
    HostAccepts(usize),
    HostBusy(usize),
    HostFails(usize),
    Retry,
    /// The host's completion path reports a request: the one it owns, or another.
    Finalize(usize),
    RequestDone,
    RecoveryStart,
    RecoveryFinish,
    PollIdle,
    Disable,
    Enable,
    Suspend,
    Resume,
    Timeout {
        tag: i32,
        pick: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (-2..70_i32, any::<bool>())
            .prop_map(|(tag, four_kib_write)| Op::Submit { tag, four_kib_write }),
        // Few distinct tags make reuse and double submission common.
        4 => (0..6_i32, any::<bool>())
            .prop_map(|(tag, four_kib_write)| Op::Submit { tag, four_kib_write }),
        5 => any::<usize>().prop_map(Op::HostAccepts),
        2 => any::<usize>().prop_map(Op::HostBusy),
        1 => any::<usize>().prop_map(Op::HostFails),
        2 => Just(Op::Retry),
        8 => any::<usize>().prop_map(Op::Finalize),
        6 => Just(Op::RequestDone),
        1 => Just(Op::RecoveryStart),
        1 => Just(Op::RecoveryFinish),
        1 => Just(Op::PollIdle),
        1 => Just(Op::Disable),
        1 => Just(Op::Enable),
        1 => Just(Op::Suspend),
        1 => Just(Op::Resume),
        1 => (-1..65_i32, any::<usize>()).prop_map(|(tag, pick)| Op::Timeout { tag, pick }),
    ]
}

#[derive(Clone, Copy, Debug)]
struct Request {
    tag: i32,
    handle: u32,
    four_kib_write: bool,
}

/// The request the host owns, as the glue sees it.
#[derive(Clone, Copy, Debug)]
enum WithHost {
    /// Handed to the host by the model's dispatch number `dispatch`, which tells a current
    /// token from a stale one.
    Issued { request: Request, dispatch: u64 },
    /// The host answered busy: the next dispatch reissues it.
    Deferred(Request),
    /// The host finished it; it leaves when the core releases the host.
    Finished(Request),
}

impl WithHost {
    fn request(self) -> Request {
        match self {
            Self::Issued { request, .. } | Self::Deferred(request) | Self::Finished(request) => {
                request
            }
        }
    }

    /// The request, while it still holds its slot (until it is finished).
    fn in_slot(self) -> Option<Request> {
        match self {
            Self::Finished(_) => None,
            owned => Some(owned.request()),
        }
    }
}

/// The reference model: what the queue should answer.
#[derive(Debug, Default)]
struct Model {
    enabled: bool,
    suspended: bool,
    halted: bool,
    waiters: bool,
    queue: VecDeque<Request>,
    with_host: Option<WithHost>,
    depth: u8,
    dispatches: u64,
}

impl Model {
    fn new() -> Self {
        Self {
            depth: NORMAL_DEPTH,
            ..Self::default()
        }
    }

    fn is_idle(&self) -> bool {
        self.with_host.is_none() && self.queue.is_empty()
    }

    /// Whether a request that holds its slot (queued, or with the host and not finished)
    /// matches `which`.
    fn holds_slot(&self, which: impl Fn(&Request) -> bool) -> bool {
        self.queue.iter().any(&which)
            || self
                .with_host
                .and_then(WithHost::in_slot)
                .is_some_and(|request| which(&request))
    }

    fn submit(&mut self, request: Request) -> Result<(), HsqError> {
        if !self.enabled || self.suspended {
            return Err(HsqError::Shutdown);
        }
        if self.halted {
            return Err(HsqError::Busy);
        }
        if !(0..64).contains(&request.tag) {
            return Err(HsqError::InvalidTag);
        }
        if self.holds_slot(|queued| queued.tag == request.tag) {
            return Err(HsqError::TagInUse);
        }
        self.queue.push_back(request);
        Ok(())
    }

    /// The dispatch the queue should make now: (handle, depth, model dispatch number).
    fn next_dispatch(&mut self) -> Option<(u32, u8, u64)> {
        if self.halted || !self.enabled || self.suspended {
            return None;
        }
        // A deferred request is reissued with the depth it had; otherwise the oldest queued
        // request goes, with the depth its dispatch chooses.
        let request = match self.with_host {
            Some(WithHost::Deferred(request)) => request,
            Some(_) => return None,
            None => {
                let writes = self.queue.iter().filter(|r| r.four_kib_write).count();
                let request = self.queue.pop_front()?;
                self.depth = if writes >= 2 {
                    PERFORMANCE_DEPTH
                } else {
                    NORMAL_DEPTH
                };
                request
            }
        };
        self.dispatches += 1;
        self.with_host = Some(WithHost::Issued {
            request,
            dispatch: self.dispatches,
        });
        Some((request.handle, self.depth, self.dispatches))
    }

    /// Whether the host owns the request of the model's dispatch number `dispatch`.
    fn issued(&self, dispatch: u64) -> bool {
        matches!(self.with_host, Some(WithHost::Issued { dispatch: d, .. }) if d == dispatch)
    }

    /// Disable, suspend and wait-for-idle go ahead only on an idle queue; a caller that finds
    /// it busy sleeps, and is recorded as a waiter to wake.
    fn quiesce(&mut self) -> Progress {
        let idle = self.is_idle();
        self.waiters |= !idle;
        if idle {
            Progress::Done
        } else {
            Progress::Busy
        }
    }
}

/// The kernel glue's part, played by the test: outstanding tokens and bookkeeping.
struct Harness {
    queue: Hsq<u32>,
    model: Model,
    /// Dispatch tokens not yet answered, with the model's number for each dispatch.
    tokens: Vec<(Dispatch<u32>, u64)>,
    finished: Option<Finished<u32>>,
    next_handle: u32,
    accepted: Vec<u32>,
    /// Handles in the order of their first dispatch.
    first_dispatches: Vec<u32>,
    completed: Vec<u32>,
}

impl Harness {
    fn new() -> Self {
        Self {
            queue: Hsq::new(),
            model: Model::new(),
            tokens: Vec::new(),
            finished: None,
            next_handle: 1,
            accepted: Vec::new(),
            first_dispatches: Vec::new(),
            completed: Vec::new(),
        }
    }

    /// Compares a dispatch the queue made with the one the model expects.
    fn check_dispatch(&mut self, actual: Option<Dispatch<u32>>, expected: Option<(u32, u8, u64)>) {
        match (actual, expected) {
            (None, None) => {}
            (Some(dispatch), Some((handle, depth, number))) => {
                assert_eq!(dispatch.request(), handle, "dispatch order");
                assert_eq!(dispatch.depth(), depth, "depth policy");
                if !self.first_dispatches.contains(&handle) {
                    self.first_dispatches.push(handle);
                }
                self.tokens.push((dispatch, number));
            }
            (actual, expected) => panic!(
                "dispatched {:?}, expected {:?}",
                actual.map(|d| d.request()),
                expected
            ),
        }
    }

    fn record_completion(&mut self, handle: u32) {
        assert!(
            !self.completed.contains(&handle),
            "request {handle} completed twice"
        );
        self.completed.push(handle);
    }

    fn take_token(&mut self, pick: usize) -> Option<(Dispatch<u32>, u64)> {
        if self.tokens.is_empty() {
            return None;
        }
        let index = pick % self.tokens.len();
        Some(self.tokens.swap_remove(index))
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::Submit {
                tag,
                four_kib_write,
            } => {
                let handle = self.next_handle;
                self.next_handle += 1;
                let direction = if four_kib_write {
                    DataDirection::Write
                } else {
                    DataDirection::Read
                };
                let shape = RequestShape::with_data(direction, 512, 8);
                let expected = self.model.submit(Request {
                    tag,
                    handle,
                    four_kib_write,
                });
                match (self.queue.request(tag, handle, shape), expected) {
                    (Ok(actions), Ok(())) => {
                        self.accepted.push(handle);
                        assert!(!actions.wake_idle_waiters);
                        // An arrival dispatches only to a free host, as upstream's pump:
                        // a request the host answered busy to waits for the retry.
                        let expected = if self.model.with_host.is_some() {
                            None
                        } else {
                            self.model.next_dispatch()
                        };
                        self.check_dispatch(actions.dispatch, expected);
                    }
                    (Err(actual), Err(expected)) => assert_eq!(actual, expected),
                    (actual, expected) => panic!(
                        "submit answered {:?}, expected {:?}",
                        actual.map(|_| ()),
                        expected
                    ),
                }
            }
            Op::HostAccepts(pick) => {
                if let Some((dispatch, _)) = self.take_token(pick) {
                    dispatch.accepted();
                }
            }
            Op::HostBusy(pick) => {
                if let Some((dispatch, number)) = self.take_token(pick) {
                    let answer = self.queue.host_busy(dispatch);
                    if self.model.issued(number) {
                        assert_eq!(answer, Ok(()));
                        self.model.with_host = self
                            .model
                            .with_host
                            .map(|owned| WithHost::Deferred(owned.request()));
                    } else {
                        assert_eq!(answer, Err(HsqError::StaleToken));
                    }
                }
            }
            Op::HostFails(pick) => {
                if let Some((dispatch, number)) = self.take_token(pick) {
                    let handle = dispatch.request();
                    let answer = self.queue.host_failed(dispatch);
                    let issued = self.model.issued(number);
                    self.check_finished(answer, handle, issued, HsqError::StaleToken);
                }
            }
            Op::Retry => {
                let actions = self.queue.retry();
                assert!(!actions.wake_idle_waiters);
                let expected = self.model.next_dispatch();
                self.check_dispatch(actions.dispatch, expected);
            }
            Op::Finalize(pick) => {
                // Mostly the request the host owns; sometimes a queued or unknown one.
                let mut candidates: Vec<u32> = self
                    .model
                    .with_host
                    .map(|owned| owned.request().handle)
                    .into_iter()
                    .collect();
                candidates.extend(self.model.queue.front().map(|r| r.handle));
                candidates.push(0);
                let handle = if pick % 4 == 0 {
                    candidates[pick / 4 % candidates.len()]
                } else {
                    candidates[0]
                };
                let answer = self.queue.finalize_request(&handle);
                let issued = matches!(
                    self.model.with_host,
                    Some(WithHost::Issued { request, .. }) if request.handle == handle
                );
                self.check_finished(answer, handle, issued, HsqError::NotInFlight);
            }
            Op::RequestDone => {
                if let Some(finished) = self.finished.take() {
                    let actions = self.queue.request_done(finished).expect("release");
                    self.model.with_host = None;
                    let wake = self.model.waiters && self.model.is_idle();
                    if wake {
                        self.model.waiters = false;
                    }
                    assert_eq!(actions.wake_idle_waiters, wake, "wake after completion");
                    let expected = self.model.next_dispatch();
                    self.check_dispatch(actions.dispatch, expected);
                }
            }
            Op::RecoveryStart => {
                let actions = self.queue.recovery_start();
                self.model.halted = true;
                assert_eq!(actions.wake_idle_waiters, self.model.waiters);
                self.model.waiters = false;
                assert!(actions.dispatch.is_none());
            }
            Op::RecoveryFinish => {
                let actions = self.queue.recovery_finish();
                self.model.halted = false;
                assert!(!actions.wake_idle_waiters);
                let expected = self.model.next_dispatch();
                self.check_dispatch(actions.dispatch, expected);
            }
            Op::PollIdle => {
                let expected = if self.model.halted {
                    IdleState::Recovering
                } else if self.model.quiesce() == Progress::Done {
                    IdleState::Idle
                } else {
                    IdleState::Busy
                };
                assert_eq!(self.queue.poll_idle(), expected);
            }
            Op::Disable => {
                let expected = self.model.quiesce();
                if expected == Progress::Done {
                    self.model.enabled = false;
                }
                assert_eq!(self.queue.try_disable(), expected);
            }
            Op::Suspend => {
                let expected = self.model.quiesce();
                if expected == Progress::Done {
                    self.model.suspended = true;
                }
                assert_eq!(self.queue.try_suspend(), expected);
            }
            Op::Enable => {
                let expected = if self.model.enabled {
                    Err(HsqError::AlreadyEnabled)
                } else {
                    Ok(())
                };
                self.model.enabled = true;
                assert_eq!(self.queue.enable(), expected);
            }
            Op::Resume => {
                let expected = if self.model.suspended {
                    Ok(())
                } else {
                    Err(HsqError::NotSuspended)
                };
                self.model.suspended = false;
                assert_eq!(self.queue.resume(), expected);
            }
            Op::Timeout { tag, pick } => {
                let handle = u32::try_from(pick % 64).unwrap_or(0);
                let owned = self
                    .model
                    .holds_slot(|r| r.tag == tag && r.handle == handle);
                assert_eq!(self.queue.timeout(tag, &handle), owned);
            }
        }
        self.check_state();
    }

    /// Checks the queue's answer to a report that would finish the request the host owns: a
    /// token for `handle` if the model has it `issued`, else the `refusal`.
    fn check_finished(
        &mut self,
        answer: Result<Finished<u32>, HsqError>,
        handle: u32,
        issued: bool,
        refusal: HsqError,
    ) {
        if !issued {
            assert_eq!(answer.err(), Some(refusal));
            return;
        }
        let finished = answer.expect("the issued request finishes");
        assert_eq!(finished.request(), handle);
        assert!(self.finished.is_none(), "two finished requests at once");
        self.record_completion(handle);
        self.model.with_host = self
            .model
            .with_host
            .map(|owned| WithHost::Finished(owned.request()));
        self.finished = Some(finished);
    }

    fn check_state(&self) {
        assert_eq!(self.queue.is_idle(), self.model.is_idle(), "idle");
        assert_eq!(self.queue.depth(), self.model.depth, "published depth");
        assert_eq!(self.queue.is_enabled(), self.model.enabled, "enabled");
        assert_eq!(self.queue.is_suspended(), self.model.suspended, "suspended");
        assert_eq!(self.queue.is_halted(), self.model.halted, "halted");
        let live_tokens = self
            .tokens
            .iter()
            .filter(|(_, number)| self.model.issued(*number))
            .count();
        assert!(live_tokens <= 1, "at most one request with the host");
    }

    /// Plays a well-behaved host and MMC core until nothing is left.
    fn drain(&mut self) {
        for _ in 0..10_000 {
            let op = if self.finished.is_some() {
                Op::RequestDone
            } else if let Some(index) = self
                .tokens
                .iter()
                .position(|(_, number)| !self.model.issued(*number))
            {
                // Stale tokens are answered "accepted", which must be harmless.
                Op::HostAccepts(index)
            } else if !self.tokens.is_empty() {
                Op::HostAccepts(0)
            } else if self.model.halted {
                Op::RecoveryFinish
            } else if self.model.suspended {
                Op::Resume
            } else if !self.model.enabled {
                Op::Enable
            } else if let Some(owned) = self.model.with_host {
                match owned {
                    WithHost::Deferred(_) => Op::Retry,
                    _ => Op::Finalize(1),
                }
            } else if self.model.queue.is_empty() {
                return;
            } else {
                panic!(
                    "requests queued behind an idle host: {:?}",
                    self.model.queue
                );
            };
            self.apply(op);
        }
        panic!("the queue did not drain");
    }

    fn check_conservation(&self) {
        assert!(self.queue.is_idle());
        assert_eq!(self.first_dispatches, self.accepted, "FIFO: dispatch order");
        let completed: BTreeSet<u32> = self.completed.iter().copied().collect();
        let accepted: BTreeSet<u32> = self.accepted.iter().copied().collect();
        assert_eq!(
            completed.len(),
            self.completed.len(),
            "no double completion"
        );
        assert_eq!(completed, accepted, "every accepted request completed");
        assert_eq!(self.completed, self.accepted, "FIFO: completion order");
    }
}

fn run(ops: &[Op], start_enabled: bool) {
    let mut harness = Harness::new();
    if start_enabled {
        harness.apply(Op::Enable);
    }
    for op in ops {
        harness.apply(*op);
    }
    harness.drain();
    harness.check_conservation();
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_interleavings_match_the_model(
        ops in prop::collection::vec(op(), 1..300),
        start_enabled in prop::bool::weighted(0.9),
    ) {
        run(&ops, start_enabled);
    }
}

/// A fixed long run, so that a regression shows up even with proptest's cases turned down.
#[test]
fn a_long_fixed_interleaving_matches_the_model() {
    let mut ops = Vec::new();
    for round in 0..400_usize {
        let tag = i32::try_from(round * 7 % 70).unwrap_or(0) - 2;
        ops.push(Op::Submit {
            tag,
            four_kib_write: round % 3 != 0,
        });
        ops.push(match round % 11 {
            0 => Op::HostBusy(round),
            1 => Op::Retry,
            2 => Op::HostFails(round),
            3 => Op::RecoveryStart,
            4 => Op::RecoveryFinish,
            5 => Op::PollIdle,
            6 => Op::Suspend,
            7 => Op::Resume,
            8 => Op::Disable,
            9 => Op::Enable,
            _ => Op::Timeout { tag, pick: round },
        });
        ops.push(Op::HostAccepts(round));
        ops.push(Op::Finalize(round));
        if round % 2 == 0 {
            ops.push(Op::RequestDone);
        }
    }
    run(&ops, true);
}
