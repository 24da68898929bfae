// SPDX-License-Identifier: GPL-2.0

//! The host software queue in the slot: requests the `hsq` engine accepted wait here by tag
//! until it dispatches them to the controller; the next one is issued from the previous
//! one's completion, in the interrupt handler.

use crate::hsq::{self, Actions, DataDirection, Finished, Hsq, RequestShape};
use crate::mmc_request::Direction;

use super::request::{fail_owner, launch, note_hardware_fault};
use super::services::{
    NotStarted, Owner, QueueFault, QueuedSlotRequest, Refusal, SlotKernel, SlotRequest,
};

/// The host software queue and the requests it accepted but has not dispatched yet (the
/// dispatched one belongs to the controller until it completes).
pub struct SoftwareQueue<Q> {
    /// The engine, which knows the requests by tag.
    pub engine: Hsq<u8>,
    /// The requests accepted and not dispatched, by tag.
    pub waiting: [Option<Q>; hsq::SLOT_COUNT],
}

impl<Q> SoftwareQueue<Q> {
    /// An empty, disabled queue.
    pub const fn new() -> Self {
        Self {
            engine: Hsq::new(),
            waiting: [const { None }; hsq::SLOT_COUNT],
        }
    }
}

impl<Q> Default for SoftwareQueue<Q> {
    fn default() -> Self {
        Self::new()
    }
}

/// What a refused request goes back to its caller with.
pub struct Refused<Q, E> {
    /// The request, uncompleted: the caller still owns it.
    pub request: Q,
    /// Why.
    pub error: E,
}

/// What the depth policy is told of a request.
fn shape(data: Option<crate::mmc_request::Data>) -> RequestShape {
    match data {
        Some(data) => RequestShape::with_data(
            match data.direction {
                Direction::Read => DataDirection::Read,
                Direction::Write => DataDirection::Write,
            },
            data.block_size,
            data.blocks,
        ),
        None => RequestShape::without_data(),
    }
}

/// `cqe_request` for the software queue: the request waits under its tag and the queue
/// may dispatch at once. A refused request comes back, uncompleted.
pub fn enqueue<K: SlotKernel + ?Sized>(
    kernel: &K,
    request: K::Queued,
) -> Result<(), Refused<K::Queued, K::Error>> {
    let refuse = |request, refusal| Refused {
        request,
        error: kernel.refusal_error(refusal),
    };
    let Ok(tag) = u8::try_from(request.tag()) else {
        return Err(refuse(request, Refusal::TagOutOfRange));
    };
    let shape = shape(request.data());
    let accepted = kernel.with_slot(|slot| {
        let Some(queue) = slot.software_queue else {
            return Err((request, Refusal::NoSoftwareQueue));
        };
        match queue.waiting.get(usize::from(tag)) {
            Some(None) => {}
            Some(Some(_)) => return Err((request, Refusal::TagInUse)),
            // A tag the core can never hand out: a requeue would meet it again.
            None => return Err((request, Refusal::TagOutOfRange)),
        }
        match queue.engine.request(request.tag(), tag, shape) {
            Ok(actions) => {
                queue.waiting[usize::from(tag)] = Some(request);
                kernel.request_issued();
                Ok(actions)
            }
            Err(e) => Err((request, Refusal::Queue(e))),
        }
    });
    match accepted {
        Ok(actions) => {
            run(kernel, actions);
            Ok(())
        }
        Err((request, refusal)) => Err(refuse(request, refusal)),
    }
}

/// The core saw the completion of `finished`: free the host for the next request.
pub fn request_done<K: SlotKernel + ?Sized>(kernel: &K, finished: Finished<u8>) {
    let actions = kernel.with_slot(|slot| {
        slot.software_queue
            .map(|queue| queue.engine.request_done(finished))
    });
    match actions {
        Some(Ok(actions)) => run(kernel, actions),
        Some(Err(e)) => kernel.queue_fault(QueueFault::CompletionRefused(e)),
        None => {}
    }
}

/// Issues a dispatch the controller could not take before (it was busy with a request
/// outside the queue).
pub fn retry<K: SlotKernel + ?Sized>(kernel: &K) {
    let actions = kernel.with_slot(|slot| slot.software_queue.map(|queue| queue.engine.retry()));
    if let Some(actions) = actions {
        run(kernel, actions);
    }
}

/// `cqe_recovery_start`: the queue halts; false if the slot has no software queue.
pub fn recovery_start<K: SlotKernel + ?Sized>(kernel: &K) -> bool {
    let actions = kernel.with_slot(|slot| {
        slot.software_queue
            .map(|queue| queue.engine.recovery_start())
    });
    actions.map(|actions| run(kernel, actions)).is_some()
}

/// `cqe_recovery_finish`: the queue runs again; false if the slot has no software queue.
pub fn recovery_finish<K: SlotKernel + ?Sized>(kernel: &K) -> bool {
    let actions = kernel.with_slot(|slot| {
        slot.software_queue
            .map(|queue| queue.engine.recovery_finish())
    });
    actions.map(|actions| run(kernel, actions)).is_some()
}

/// How a dispatch went.
enum Issue<K: SlotKernel + ?Sized> {
    /// On the controller: the watchdog watches it.
    Started,
    /// Deferred, or no software queue: nothing more to do.
    Nothing,
    /// It could not start: the request (if the tag held one) fails with the error, and the
    /// queue's token for it yields the next actions.
    Failed {
        request: Option<NotStarted<K>>,
        finished: Option<Finished<u8>>,
    },
}

/// Carries out the software queue's actions: wakes the idle waiters, issues the next
/// request. An issue that fails completes that request, which yields the next actions: a
/// loop, so a run of failures never deepens the stack.
pub fn run<K: SlotKernel + ?Sized>(kernel: &K, mut actions: Actions<u8>) {
    loop {
        if actions.wake_idle_waiters {
            kernel.wake_idle_waiters();
        }
        let Some(dispatch) = actions.dispatch else {
            return;
        };
        let issue = kernel.with_slot(|mut slot| {
            let Some(queue) = slot.software_queue.take() else {
                return Issue::<K>::Nothing;
            };
            let tag = dispatch.request();
            kernel.dispatching(tag, dispatch.depth());
            if !slot.controller.is_idle() {
                // Retried when the request outside the queue completes.
                if let Err(e) = queue.engine.host_busy(dispatch) {
                    kernel.queue_fault(QueueFault::DeferralRefused(e));
                }
                return Issue::Nothing;
            }
            let Some(request) = queue
                .waiting
                .get_mut(usize::from(tag))
                .and_then(Option::take)
            else {
                // Reported failed, so that the queue moves on.
                kernel.queue_fault(QueueFault::NoRequestForTag(tag));
                return Issue::Failed {
                    request: None,
                    finished: queue.engine.host_failed(dispatch).ok(),
                };
            };
            let launched = launch(kernel, &mut slot, Owner::Queue { request, tag });
            note_hardware_fault(kernel, slot.controller);
            match launched {
                Ok(()) => {
                    dispatch.accepted();
                    Issue::Started
                }
                Err(failed) => Issue::Failed {
                    request: Some(failed),
                    finished: queue.engine.host_failed(dispatch).ok(),
                },
            }
        });
        let finished = match issue {
            Issue::Started => {
                kernel.arm_watchdog();
                return;
            }
            Issue::Nothing => return,
            Issue::Failed { request, finished } => {
                if let Some((owner, error)) = request {
                    fail_owner(kernel, owner, error);
                }
                finished
            }
        };
        let Some(finished) = finished else {
            return;
        };
        let next = kernel.with_slot(|slot| {
            slot.software_queue
                .map(|queue| queue.engine.request_done(finished))
        });
        actions = match next {
            Some(Ok(actions)) => actions,
            _ => return,
        };
    }
}
