// SPDX-License-Identifier: GPL-2.0

//! Fuzz target: the HSQ engine under hostile event orders, checked against a shadow of every
//! request's life.
//!
//! The glue played here misbehaves on purpose: it submits with out-of-range and reused tags,
//! answers dispatch tokens late, twice-removed or never, reports completions for requests
//! that were never issued, are still queued, were answered busy or are already completed,
//! releases the host at random moments, and mixes in retry, recovery, wait-for-idle,
//! disable, enable, suspend, resume and timeout at any point. After every event the shadow
//! checks the answer (which refusal, which dispatch, idle or not); at the end the case drains
//! the queue as a well-behaved glue would and checks that every accepted request completed
//! exactly once and nothing is left. Budget and summary line: `budget.rs`
//! (`scripts/fuzz.sh` runs it in release mode against a time budget).

#[path = "../../msdc/tests/fuzz/budget.rs"]
#[macro_use]
mod budget;

use budget::{fail, Check, Events};
use hsq::{
    DataDirection, Dispatch, Finished, Hsq, HsqError, IdleState, Progress, RequestShape,
    NORMAL_DEPTH, PERFORMANCE_DEPTH, SLOT_COUNT,
};
use proptest::prelude::*;

/// Which request a completion or timeout names.
#[derive(Clone, Copy, Debug)]
enum Which {
    /// The one the shadow says the host owns (if any).
    WithHost,
    /// An accepted request, by position among those issued so far.
    Issued(u16),
    /// A handle no request ever had.
    NeverIssued(u32),
}

#[derive(Clone, Copy, Debug)]
enum Answer {
    Accept,
    Busy,
    Fail,
}

#[derive(Clone, Copy, Debug)]
enum Event {
    Submit {
        tag: i32,
        four_kib_write: bool,
    },
    /// The host's answer to an outstanding dispatch token.
    Answer {
        pick: u8,
        answer: Answer,
    },
    /// The host's completion path reports a request. With `error`, the MMC core's
    /// completion starts recovery before the host is released, as it does for a failed
    /// request.
    Complete {
        which: Which,
        error: bool,
    },
    /// The MMC core has seen a completion: hand its token back.
    RequestDone,
    Retry,
    RecoveryStart,
    RecoveryFinish,
    PollIdle,
    Disable,
    Enable,
    Suspend,
    Resume,
    Timeout {
        tag: i32,
        which: Which,
    },
}

fn tag() -> impl Strategy<Value = i32> {
    prop_oneof![
        6 => 0..8_i32,
        3 => -3..70_i32,
        1 => prop_oneof![Just(i32::MIN), Just(i32::MAX), Just(255), Just(256), Just(-1)],
    ]
}

fn which() -> impl Strategy<Value = Which> {
    prop_oneof![
        4 => Just(Which::WithHost),
        3 => any::<u16>().prop_map(Which::Issued),
        1 => (1u32 << 31..u32::MAX).prop_map(Which::NeverIssued),
    ]
}

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![4 => Just(Answer::Accept), 2 => Just(Answer::Busy), 1 => Just(Answer::Fail)]
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        10 => (tag(), any::<bool>()).prop_map(|(tag, four_kib_write)| Event::Submit { tag, four_kib_write }),
        6 => (any::<u8>(), answer()).prop_map(|(pick, answer)| Event::Answer { pick, answer }),
        10 => (which(), any::<bool>()).prop_map(|(which, error)| Event::Complete { which, error }),
        6 => Just(Event::RequestDone),
        2 => Just(Event::Retry),
        1 => Just(Event::RecoveryStart),
        1 => Just(Event::RecoveryFinish),
        1 => Just(Event::PollIdle),
        1 => Just(Event::Disable),
        1 => Just(Event::Enable),
        1 => Just(Event::Suspend),
        1 => Just(Event::Resume),
        1 => (tag(), which()).prop_map(|(tag, which)| Event::Timeout { tag, which }),
    ]
}

/// Where a request stands, as the glue knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    /// Refused at submission: handed back to the block layer.
    Refused,
    /// Accepted: queued or with the host.
    Accepted,
    /// Completed to the MMC core; the host is released when the token comes back.
    Completed,
    /// Completed and the host released.
    Released,
}

/// What the host does with the request it owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Issued,
    Deferred,
    Finished,
}

struct Shadow {
    hsq: Hsq<u32>,
    /// By handle (handle `n` is entry `n - 1`): its tag, life and number of completions.
    requests: Vec<(i32, Life, u8)>,
    tag_holder: [Option<u32>; SLOT_COUNT],
    with_host: Option<(u32, Phase)>,
    /// Number of the latest dispatch; each token carries the number it was made with.
    dispatches: u64,
    tokens: Vec<(Dispatch<u32>, u64)>,
    finished: Option<Finished<u32>>,
    enabled: bool,
    suspended: bool,
    halted: bool,
}

impl Shadow {
    fn new() -> Self {
        let mut hsq = Hsq::new();
        // A fresh queue is disabled; most cases start where the core has enabled it.
        let _ = hsq.enable();
        Self {
            hsq,
            requests: Vec::new(),
            tag_holder: [None; SLOT_COUNT],
            with_host: None,
            dispatches: 0,
            tokens: Vec::new(),
            finished: None,
            enabled: true,
            suspended: false,
            halted: false,
        }
    }

    fn life(&self, handle: u32) -> Option<Life> {
        let index = usize::try_from(handle).ok()?.checked_sub(1)?;
        self.requests.get(index).map(|r| r.1)
    }

    fn entry(&mut self, handle: u32) -> &mut (i32, Life, u8) {
        &mut self.requests[handle as usize - 1]
    }

    /// Requests accepted and not yet released.
    fn outstanding(&self) -> bool {
        self.requests
            .iter()
            .any(|r| matches!(r.1, Life::Accepted | Life::Completed))
    }

    fn handle(&self, which: Which) -> u32 {
        match which {
            Which::WithHost => self.with_host.map_or(u32::MAX, |(h, _)| h),
            Which::Issued(n) if !self.requests.is_empty() => {
                usize::from(n) as u32 % self.requests.len() as u32 + 1
            }
            Which::Issued(_) => u32::MAX - 1,
            Which::NeverIssued(h) => h,
        }
    }

    /// Checks a dispatch the queue made and takes its token.
    fn dispatched(&mut self, dispatch: Option<Dispatch<u32>>) -> Check {
        let Some(dispatch) = dispatch else {
            return Ok(());
        };
        let handle = dispatch.request();
        ensure!(
            self.life(handle) == Some(Life::Accepted),
            "dispatched request {handle} in state {:?}",
            self.life(handle)
        );
        ensure!(
            self.enabled && !self.suspended && !self.halted,
            "dispatch while enabled={} suspended={} halted={}",
            self.enabled,
            self.suspended,
            self.halted
        );
        match self.with_host {
            None => {}
            Some((owner, Phase::Deferred)) if owner == handle => {}
            other => return fail(format!("dispatched {handle} while the host owns {other:?}")),
        }
        ensure!(
            dispatch.depth() == NORMAL_DEPTH || dispatch.depth() == PERFORMANCE_DEPTH,
            "depth {}",
            dispatch.depth()
        );
        self.dispatches += 1;
        self.with_host = Some((handle, Phase::Issued));
        self.tokens.push((dispatch, self.dispatches));
        Ok(())
    }

    /// Records a completion the queue handed out for `handle`.
    fn completed(&mut self, finished: Finished<u32>, handle: u32) -> Check {
        ensure!(
            finished.request() == handle,
            "completion of {} for {handle}",
            finished.request()
        );
        ensure!(
            self.life(handle) == Some(Life::Accepted),
            "completed {handle} in state {:?}",
            self.life(handle)
        );
        ensure!(self.finished.is_none(), "two completions outstanding");
        let entry = self.entry(handle);
        entry.1 = Life::Completed;
        entry.2 += 1;
        let (tag, count) = (entry.0, entry.2);
        ensure!(count == 1, "request {handle} completed {count} times");
        self.tag_holder[tag as usize] = None;
        self.with_host = Some((handle, Phase::Finished));
        self.finished = Some(finished);
        Ok(())
    }

    fn request_done(&mut self) -> Check {
        let Some(finished) = self.finished.take() else {
            return Ok(());
        };
        let handle = finished.request();
        let actions = self.hsq.request_done(finished);
        let Ok(actions) = actions else {
            return fail(format!("request_done({handle}) refused: {actions:?}"));
        };
        ensure!(
            self.with_host == Some((handle, Phase::Finished)),
            "released {handle} while the host owns {:?}",
            self.with_host
        );
        self.with_host = None;
        self.entry(handle).1 = Life::Released;
        self.dispatched(actions.dispatch)
    }

    fn apply(&mut self, event: Event) -> Check {
        match event {
            Event::Submit {
                tag,
                four_kib_write,
            } => {
                let handle = self.requests.len() as u32 + 1;
                let direction = if four_kib_write {
                    DataDirection::Write
                } else {
                    DataDirection::Read
                };
                let shape = RequestShape::with_data(direction, 512, 8);
                let in_range = (0..SLOT_COUNT as i32).contains(&tag);
                let expected = if !self.enabled || self.suspended {
                    Err(HsqError::Shutdown)
                } else if self.halted {
                    Err(HsqError::Busy)
                } else if !in_range {
                    Err(HsqError::InvalidTag)
                } else if self.tag_holder[tag as usize].is_some() {
                    Err(HsqError::TagInUse)
                } else {
                    Ok(())
                };
                let answer = self.hsq.request(tag, handle, shape);
                match (answer, expected) {
                    (Ok(actions), Ok(())) => {
                        self.requests.push((tag, Life::Accepted, 0));
                        self.tag_holder[tag as usize] = Some(handle);
                        ensure!(!actions.wake_idle_waiters, "a submission woke waiters");
                        self.dispatched(actions.dispatch)?;
                    }
                    (Err(actual), Err(expected)) => {
                        ensure!(
                            actual == expected,
                            "submit: {actual:?}, expected {expected:?}"
                        );
                        self.requests.push((tag, Life::Refused, 0));
                    }
                    (actual, expected) => {
                        return fail(format!(
                            "submit of tag {tag}: {:?}, expected {expected:?}",
                            actual.map(|a| a.dispatch.map(|d| d.request()))
                        ))
                    }
                }
            }
            Event::Answer { pick, answer } => {
                if self.tokens.is_empty() {
                    return Ok(());
                }
                let index = usize::from(pick) % self.tokens.len();
                let (token, number) = self.tokens.swap_remove(index);
                let handle = token.request();
                let current =
                    number == self.dispatches && self.with_host == Some((handle, Phase::Issued));
                match answer {
                    Answer::Accept => token.accepted(),
                    Answer::Busy => {
                        let result = self.hsq.host_busy(token);
                        ensure!(
                            result.is_ok() == current,
                            "host_busy on dispatch {number} of {handle}: {result:?}, current={current}"
                        );
                        if current {
                            self.with_host = Some((handle, Phase::Deferred));
                        } else {
                            ensure!(result == Err(HsqError::StaleToken), "{result:?}");
                        }
                    }
                    Answer::Fail => match self.hsq.host_failed(token) {
                        Ok(finished) => {
                            ensure!(current, "host_failed on stale dispatch {number}");
                            self.completed(finished, handle)?;
                        }
                        Err(e) => {
                            ensure!(!current && e == HsqError::StaleToken, "host_failed: {e:?}")
                        }
                    },
                }
            }
            Event::Complete { which, error } => {
                let handle = self.handle(which);
                let owns = self.with_host == Some((handle, Phase::Issued));
                match self.hsq.finalize_request(&handle) {
                    Ok(finished) => {
                        ensure!(
                            owns,
                            "finalized {handle}; the host owns {:?}",
                            self.with_host
                        );
                        self.completed(finished, handle)?;
                        if error {
                            self.apply(Event::RecoveryStart)?;
                        }
                    }
                    Err(e) => ensure!(
                        !owns && e == HsqError::NotInFlight,
                        "finalize of {handle}: {e:?} while the host owns {:?}",
                        self.with_host
                    ),
                }
            }
            Event::RequestDone => self.request_done()?,
            Event::Retry => {
                let actions = self.hsq.retry();
                ensure!(!actions.wake_idle_waiters, "retry woke waiters");
                let deferred = matches!(self.with_host, Some((_, Phase::Deferred)));
                let may = self.enabled && !self.suspended && !self.halted;
                if deferred && may {
                    ensure!(
                        actions.dispatch.is_some(),
                        "retry lost the deferred request"
                    );
                }
                self.dispatched(actions.dispatch)?;
            }
            Event::RecoveryStart => {
                self.halted = true;
                let actions = self.hsq.recovery_start();
                ensure!(actions.dispatch.is_none(), "recovery start dispatched");
            }
            Event::RecoveryFinish => {
                self.halted = false;
                let actions = self.hsq.recovery_finish();
                self.dispatched(actions.dispatch)?;
            }
            Event::PollIdle => {
                let expected = if self.halted {
                    IdleState::Recovering
                } else if self.outstanding() {
                    IdleState::Busy
                } else {
                    IdleState::Idle
                };
                let state = self.hsq.poll_idle();
                ensure!(
                    state == expected,
                    "poll_idle: {state:?}, expected {expected:?}"
                );
            }
            Event::Disable | Event::Suspend => {
                let progress = if matches!(event, Event::Disable) {
                    self.hsq.try_disable()
                } else {
                    self.hsq.try_suspend()
                };
                let idle = !self.outstanding();
                ensure!(
                    (progress == Progress::Done) == idle,
                    "{event:?}: {progress:?} with outstanding={}",
                    !idle
                );
                if idle {
                    if matches!(event, Event::Disable) {
                        self.enabled = false;
                    } else {
                        self.suspended = true;
                    }
                }
            }
            Event::Enable => {
                let result = self.hsq.enable();
                ensure!(result.is_ok() != self.enabled, "enable: {result:?}");
                self.enabled = true;
            }
            Event::Resume => {
                let result = self.hsq.resume();
                ensure!(result.is_ok() == self.suspended, "resume: {result:?}");
                self.suspended = false;
            }
            Event::Timeout { tag, which } => {
                let handle = self.handle(which);
                let expected = self.life(handle) == Some(Life::Accepted)
                    && self.requests[handle as usize - 1].0 == tag;
                let answer = self.hsq.timeout(tag, &handle);
                ensure!(answer == expected, "timeout({tag}, {handle}): {answer}");
            }
        }
        self.invariants()
    }

    fn invariants(&self) -> Check {
        ensure!(
            self.hsq.is_idle() != self.outstanding(),
            "is_idle={} with outstanding={}",
            self.hsq.is_idle(),
            self.outstanding()
        );
        ensure!(
            self.hsq.is_enabled() == self.enabled
                && self.hsq.is_suspended() == self.suspended
                && self.hsq.is_halted() == self.halted,
            "flags differ from the shadow"
        );
        Ok(())
    }

    /// Brings the queue back to work and runs everything to completion, as a well-behaved
    /// glue would; then nothing may be left.
    fn drain(&mut self, events: &Events) -> Check {
        for _ in 0..4 * self.requests.len() + 16 {
            events.tick();
            if let Some((token, _)) = self.tokens.pop() {
                token.accepted();
            } else if self.finished.is_some() {
                self.request_done()?;
            } else if self.halted {
                self.apply(Event::RecoveryFinish)?;
            } else if !self.enabled {
                self.apply(Event::Enable)?;
            } else if self.suspended {
                self.apply(Event::Resume)?;
            } else if let Some((_, Phase::Issued)) = self.with_host {
                self.apply(Event::Complete {
                    which: Which::WithHost,
                    error: false,
                })?;
            } else if let Some((_, Phase::Deferred)) = self.with_host {
                self.apply(Event::Retry)?;
            } else if self.outstanding() {
                return fail(format!(
                    "requests stranded: host free, nothing dispatched, queue idle={}",
                    self.hsq.is_idle()
                ));
            } else {
                break;
            }
        }
        for (n, (_, life, count)) in self.requests.iter().enumerate() {
            let expected = u8::from(*life != Life::Refused);
            ensure!(
                *count == expected && matches!(life, Life::Refused | Life::Released),
                "request {} ended {life:?} after {count} completions",
                n + 1
            );
        }
        ensure!(self.hsq.is_idle(), "queue not idle after draining");
        ensure!(
            self.hsq.try_disable() == Progress::Done,
            "disable refused when idle"
        );
        Ok(())
    }
}

#[test]
fn hostile_event_orders() {
    budget::fuzz(
        "hsq",
        512,
        proptest::collection::vec(event(), 0..400),
        |case, events| {
            let mut shadow = Shadow::new();
            for event in case {
                events.tick();
                shadow.apply(event)?;
            }
            shadow.drain(events)
        },
    );
}
