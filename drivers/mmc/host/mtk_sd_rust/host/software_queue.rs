// SPDX-License-Identifier: GPL-2.0

//! The host software queue in the slot: requests the `hsq` engine accepted wait here by tag
//! until it dispatches them to the controller; the next one is issued from the previous
//! one's completion, in the interrupt handler.

use kernel::{prelude::*, sync::Arc, time::Delta};

use super::{Msdc, Owner, Queue, REQUEST_TIMEOUT_MS};
use crate::{
    hsq::{self, DataDirection, Hsq, HsqError, RequestShape},
    kernel_mmc::{QueuedRequest, Refused},
    mmc_request::Direction,
};

/// The host software queue and the requests it accepted but has not dispatched yet (the
/// dispatched one belongs to the controller until it completes).
pub(super) struct SoftwareQueue {
    pub(super) engine: Hsq<u8>,
    pub(super) waiting: [Option<QueuedRequest>; hsq::SLOT_COUNT],
}

impl SoftwareQueue {
    /// An empty, disabled queue, built where it is to live: its table of waiting requests
    /// takes kilobytes, too many for the probe's stack.
    pub(super) fn new() -> impl Init<Self> {
        pin_init::init!(Self {
            engine: Hsq::new(),
            waiting <- pin_init::init_array_from_fn(|_| None),
        })
    }
}

/// The errno the core expects for a software queue's refusal.
pub(super) fn hsq_errno(error: HsqError) -> Error {
    match error {
        HsqError::Shutdown => ESHUTDOWN,
        HsqError::Busy | HsqError::AlreadyEnabled | HsqError::NotSuspended => EBUSY,
        _ => EINVAL,
    }
}

impl Msdc {
    /// Runs `f` on the software queue, if the slot has one.
    pub(super) fn with_software_queue<T>(
        &self,
        f: impl FnOnce(&mut SoftwareQueue) -> T,
    ) -> Option<T> {
        let mut state = self.state.lock();
        match &mut state.queue {
            Queue::Software(sq) => Some(f(sq)),
            _ => None,
        }
    }

    /// The core saw the completion of `finished`: free the host for the next request.
    pub(super) fn queue_request_done(self: &Arc<Self>, finished: hsq::Finished<u8>) {
        let actions = self.with_software_queue(|sq| sq.engine.request_done(finished));
        match actions {
            Some(Ok(actions)) => self.run_software_queue(actions),
            Some(Err(e)) => dev_err!(self.dev, "software queue: completion refused: {:?}\n", e),
            None => {}
        }
    }

    /// Issues a dispatch the controller could not take before (it was busy with a request
    /// outside the queue).
    pub(super) fn retry_software_queue(self: &Arc<Self>) {
        if let Some(actions) = self.with_software_queue(|sq| sq.engine.retry()) {
            self.run_software_queue(actions);
        }
    }

    /// Carries out the software queue's actions: wakes the idle waiters, issues the next
    /// request. An issue that fails completes that request, which yields the next actions:
    /// a loop, so a run of failures never deepens the stack.
    pub(super) fn run_software_queue(self: &Arc<Self>, mut actions: hsq::Actions<u8>) {
        loop {
            if actions.wake_idle_waiters {
                self.idle.notify_all();
            }
            let Some(dispatch) = actions.dispatch else {
                return;
            };
            let failed = {
                let mut guard = self.state.lock();
                let state = &mut *guard;
                let Queue::Software(sq) = &mut state.queue else {
                    return;
                };
                self.host.set_hsq_depth(dispatch.depth());
                self.counters.queue_depth.store(
                    u32::from(dispatch.depth()),
                    core::sync::atomic::Ordering::Relaxed,
                );
                let tag = dispatch.request();
                if !state.controller.is_idle() {
                    // Retried when the request outside the queue completes.
                    if let Err(e) = sq.engine.host_busy(dispatch) {
                        dev_err!(self.dev, "software queue: deferral refused: {:?}\n", e);
                    }
                    return;
                }
                match sq.waiting.get_mut(usize::from(tag)).and_then(Option::take) {
                    None => {
                        // The queue dispatched a tag it holds no request for: report it
                        // failed so the queue moves on.
                        dev_err!(self.dev, "software queue: no request for tag {}\n", tag);
                        sq.engine.host_failed(dispatch).ok().map(|f| (None, f, EIO))
                    }
                    Some(request) => {
                        match self.launch(
                            &mut state.controller,
                            &mut state.descriptors,
                            Owner::Queue { request, tag },
                        ) {
                            Ok(()) => {
                                dispatch.accepted();
                                None
                            }
                            Err((owner, error)) => {
                                let request = match owner {
                                    Owner::Queue { request, .. } => Some(request),
                                    // Cannot happen: `launch` gives back what it got.
                                    core => {
                                        self.fail_owner(core, error);
                                        None
                                    }
                                };
                                sq.engine
                                    .host_failed(dispatch)
                                    .ok()
                                    .map(|f| (request, f, error))
                            }
                        }
                    }
                }
            };
            let Some((request, finished, error)) = failed else {
                self.arm_watchdog(Delta::from_millis(REQUEST_TIMEOUT_MS));
                return;
            };
            if let Some(request) = request {
                self.counters.failed();
                request.fail(error);
            }
            actions = match self.with_software_queue(|sq| sq.engine.request_done(finished)) {
                Some(Ok(actions)) => actions,
                _ => return,
            };
        }
    }

    /// `cqe_request` for the software queue.
    pub(super) fn queue_software(self: &Arc<Self>, request: QueuedRequest) -> Result<(), Refused> {
        let Ok(tag) = u8::try_from(request.tag()) else {
            return Err(Refused {
                request,
                error: EINVAL,
            });
        };
        let shape = match request.request().data() {
            Some(data) => RequestShape::with_data(
                match data.direction {
                    Direction::Read => DataDirection::Read,
                    Direction::Write => DataDirection::Write,
                },
                data.block_size,
                data.blocks,
            ),
            None => RequestShape::without_data(),
        };
        let accepted = {
            let mut state = self.state.lock();
            let Queue::Software(sq) = &mut state.queue else {
                return Err(Refused {
                    request,
                    error: EINVAL,
                });
            };
            match sq.waiting.get(usize::from(tag)) {
                Some(None) => {}
                Some(Some(_)) => {
                    return Err(Refused {
                        request,
                        error: EBUSY,
                    })
                }
                // A tag the core can never hand out: a requeue would meet it again.
                None => {
                    return Err(Refused {
                        request,
                        error: EINVAL,
                    })
                }
            }
            match sq.engine.request(request.tag(), tag, shape) {
                Ok(actions) => {
                    sq.waiting[usize::from(tag)] = Some(request);
                    self.counters.issued();
                    Ok(actions)
                }
                Err(e) => Err((request, hsq_errno(e))),
            }
        };
        match accepted {
            Ok(actions) => {
                self.run_software_queue(actions);
                Ok(())
            }
            Err((request, error)) => Err(Refused { request, error }),
        }
    }
}
