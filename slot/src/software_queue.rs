// SPDX-License-Identifier: GPL-2.0

//! The host software queue in the slot: requests the `hsq` engine accepted wait here by tag
//! until it dispatches them to the controller; the next one is issued from the previous
//! one's completion, in the interrupt handler.
//!
//! That issue never waits for the bus: in HSQ mode the MMC core does not wait for a card
//! still programming a write (no CMD13 busy poll between requests), so a dispatch that
//! finds the bus busy ([`Controller::bus_busy_for`]) goes back to the engine as
//! `host_busy` and the kernel runs [`retry_busy`] from process context, sleeping between
//! its looks at the bus, until the bus is free (the dispatch is issued) or
//! [`BUSY_WAIT_LIMIT_MS`] have passed (it fails with a time-out, as a busy bus at the
//! controller's start does). The same retry serves the stop command of an open-ended
//! write, which the data interrupt does not wait for either ([`retry_busy`]), in every
//! queue mode.
//!
//! [`Controller::bus_busy_for`]: crate::msdc::controller::Controller::bus_busy_for

use crate::hsq::{self, Actions, DataDirection, Finished, Hsq, RequestShape};
use crate::mmc_request::Direction;

use crate::msdc::controller::Progress;

use super::request::{fail_owner, finish, launch, note_hardware_fault};
use super::services::{
    NotStarted, Owner, QueueFault, QueuedSlotRequest, Refusal, SlotKernel, SlotRequest,
};

/// The longest a dispatch waits for a busy bus before it fails with a time-out: the MMC
/// core's own wait for a card's busy after a write outside the queue (`MMC_BLK_TIMEOUT_MS`,
/// `mmc_blk_card_busy`). It covers any data timeout the core sets (those are under 4.3 s),
/// and the busy is the previous write's, whatever the waiting request is.
pub const BUSY_WAIT_LIMIT_MS: u64 = 10_000;
/// The busy retry's first sleep between two looks at the bus (as `mmc_poll_for_busy`).
pub const BUSY_RETRY_FIRST_SLEEP_US: u32 = 32;
/// The busy retry's longest sleep: the sleeps double up to it.
pub const BUSY_RETRY_MAX_SLEEP_US: u32 = 4_096;

/// The host software queue and the requests it accepted but has not dispatched yet (the
/// dispatched one belongs to the controller until it completes).
pub struct SoftwareQueue<Q> {
    /// The engine, which knows the requests by tag.
    pub engine: Hsq<u8>,
    /// The requests accepted and not dispatched, by tag.
    pub waiting: [Option<Q>; hsq::SLOT_COUNT],
    /// The tag of the dispatch deferred because the bus was busy, which [`retry_busy`]
    /// waits to issue.
    pub bus_wait: Option<u8>,
}

impl<Q> SoftwareQueue<Q> {
    /// An empty, disabled queue.
    pub const fn new() -> Self {
        Self {
            engine: Hsq::new(),
            waiting: [const { None }; hsq::SLOT_COUNT],
            bus_wait: None,
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

/// The busy retry's progress between two calls of [`retry_busy`]: its next sleep.
#[derive(Debug)]
pub struct BusyRetry {
    sleep_us: u32,
}

impl BusyRetry {
    /// A retry that has not slept yet.
    pub const fn new() -> Self {
        Self {
            sleep_us: BUSY_RETRY_FIRST_SLEEP_US,
        }
    }

    /// The next sleep: each twice the last, up to [`BUSY_RETRY_MAX_SLEEP_US`].
    fn next_sleep_us(&mut self) -> u32 {
        let us = self.sleep_us;
        self.sleep_us = us.saturating_mul(2).min(BUSY_RETRY_MAX_SLEEP_US);
        us
    }
}

impl Default for BusyRetry {
    fn default() -> Self {
        Self::new()
    }
}

/// What the busy retry does after [`retry_busy`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BusWait {
    /// The bus is still busy: sleep `us` microseconds, with the lock released, then call
    /// [`retry_busy`] again.
    Sleep {
        /// How long.
        us: u32,
    },
    /// Done: the dispatch was issued, failed past the limit, or is no longer waiting for
    /// the bus (recovery or a request of the core's issues it).
    Done,
}

/// How the bus looked to the busy retry.
enum BusLook {
    /// Nothing waits for the bus, or recovery or the core's request holds the dispatch.
    Nothing,
    Busy,
    Free,
    /// Still busy after [`BUSY_WAIT_LIMIT_MS`].
    Expired,
}

/// The busy retry ([`SlotKernel::schedule_busy_retry`]), in process context: one look at
/// the bus for what waits for it, `waited_ns` after the retry began, and the caller sleeps
/// as the answer says and calls again. Two things wait for a card still programming, and
/// one for the DMA engine:
///
/// * the stop command of the request on the controller, after its data phase (an
///   open-ended write; [`Controller::awaits_bus`]): a free bus issues it, and the request
///   goes on with its interrupt; a bus still busy after the request's data timeout
///   ([`Controller::stop_wait_limit_ns`]) fails the stop with a time-out and completes the
///   request (the watchdog's limit is above any data timeout);
/// * the DMA stop of the request on the controller, after its data event, slow to take
///   effect ([`Controller::awaits_dma_stop`]; the interrupt handler polls it for a few
///   microseconds only): once it has, the data phase ends here (the stop command, which
///   may wait for the bus in turn, or the request completed, and with it the next
///   dispatch); still running after the request's data timeout, the request fails
///   (`Controller::retry_stop`) and the controller is reset;
/// * the software queue's dispatch deferred because the bus was busy: a free bus issues
///   it ([`retry`]); a bus still busy after [`BUSY_WAIT_LIMIT_MS`] fails it with a
///   time-out ([`Refusal::BusBusy`]). A controller reset the interrupt handler left
///   running counts as busy, and is finished here first (`Controller::finish_reset`).
///
/// The wait counts from the start of the retry's run: a stop cannot wait while a
/// dispatch does (that waits for an idle controller), so the run serves one at a time.
///
/// [`Controller::awaits_bus`]: crate::msdc::controller::Controller::awaits_bus
/// [`Controller::awaits_dma_stop`]: crate::msdc::controller::Controller::awaits_dma_stop
/// [`Controller::stop_wait_limit_ns`]: crate::msdc::controller::Controller::stop_wait_limit_ns
pub fn retry_busy<K: SlotKernel + ?Sized>(
    kernel: &K,
    progress: &mut BusyRetry,
    waited_ns: u64,
) -> BusWait {
    let stop = kernel.with_slot(|slot| {
        if !slot.controller.stop_waits() {
            return None;
        }
        let give_up = waited_ns >= slot.controller.stop_wait_limit_ns();
        let progress = slot.controller.retry_stop(kernel.regs(), give_up);
        note_hardware_fault(kernel, slot.controller);
        Some((progress, slot.controller.stop_waits()))
    });
    match stop {
        Some((Progress::Done(in_flight, result), _)) => {
            finish(kernel, in_flight, &result);
            return BusWait::Done;
        }
        Some((Progress::Pending, true)) => {
            return BusWait::Sleep {
                us: progress.next_sleep_us(),
            }
        }
        // Issued (or, after a DMA stop, nothing more to wait for): its interrupt finishes
        // the request.
        Some((Progress::Pending, false)) => return BusWait::Done,
        None => {}
    }
    let look = kernel.with_slot(|slot| {
        let Some(queue) = slot.software_queue else {
            return BusLook::Nothing;
        };
        let Some(tag) = queue.bus_wait else {
            return BusLook::Nothing;
        };
        if queue.engine.is_halted() || !slot.controller.is_idle() {
            // `recovery_finish`, or the end of the core's request, issues it again.
            return BusLook::Nothing;
        }
        // A reset the interrupt handler left running: finished here, with the full bound.
        slot.controller.finish_reset(kernel.regs());
        note_hardware_fault(kernel, slot.controller);
        let spec = queue
            .waiting
            .get(usize::from(tag))
            .and_then(Option::as_ref)
            .and_then(SlotRequest::spec);
        match spec {
            Some(spec) if slot.controller.bus_busy_for(kernel.regs(), &spec) => {
                if waited_ns >= BUSY_WAIT_LIMIT_MS * 1_000_000 {
                    BusLook::Expired
                } else {
                    BusLook::Busy
                }
            }
            // Issued, or reported by the dispatch if the tag holds nothing.
            _ => BusLook::Free,
        }
    });
    match look {
        BusLook::Nothing => BusWait::Done,
        BusLook::Busy => BusWait::Sleep {
            us: progress.next_sleep_us(),
        },
        BusLook::Free => {
            retry(kernel);
            BusWait::Done
        }
        BusLook::Expired => {
            let actions =
                kernel.with_slot(|slot| slot.software_queue.map(|queue| queue.engine.retry()));
            if let Some(actions) = actions {
                dispatch_all(kernel, actions, OnBusyBus::Fail { waited_ns });
            }
            BusWait::Done
        }
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
    /// Deferred because the bus was busy: the busy retry issues it.
    BusBusy,
    /// It could not start: the request (if the tag held one) fails with the error, and the
    /// queue's token for it yields the next actions.
    Failed {
        request: Option<NotStarted<K>>,
        finished: Option<Finished<u8>>,
    },
}

/// What a dispatch does when the bus is busy.
#[derive(Clone, Copy)]
enum OnBusyBus {
    /// Goes back to the engine (`host_busy`) for the busy retry.
    Defer,
    /// Fails with a time-out: the busy retry waited `waited_ns` in vain.
    Fail { waited_ns: u64 },
}

/// Carries out the software queue's actions: wakes the idle waiters, issues the next
/// request. An issue that fails completes that request, which yields the next actions: a
/// loop, so a run of failures never deepens the stack. A dispatch never waits for a busy
/// bus: it is deferred to the busy retry.
pub fn run<K: SlotKernel + ?Sized>(kernel: &K, actions: Actions<u8>) {
    dispatch_all(kernel, actions, OnBusyBus::Defer);
}

/// [`run`], with what the first dispatch does if it finds the bus busy (the dispatches
/// that follow are deferred).
fn dispatch_all<K: SlotKernel + ?Sized>(
    kernel: &K,
    mut actions: Actions<u8>,
    mut on_busy_bus: OnBusyBus,
) {
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
            queue.bus_wait = None;
            if !slot.controller.is_idle() {
                // Retried when the request outside the queue completes.
                if let Err(e) = queue.engine.host_busy(dispatch) {
                    kernel.queue_fault(QueueFault::DeferralRefused(e));
                }
                return Issue::Nothing;
            }
            let waiting = queue.waiting.get(usize::from(tag)).and_then(Option::as_ref);
            let busy_opcode = waiting.and_then(SlotRequest::spec).and_then(|spec| {
                slot.controller
                    .bus_busy_for(kernel.regs(), &spec)
                    .then_some(spec.cmd.opcode)
            });
            match (busy_opcode, on_busy_bus) {
                (None, _) => {}
                (Some(_), OnBusyBus::Defer) => {
                    // A card still programming: never wait for it here (the completion
                    // interrupt); the busy retry issues it once the bus is free.
                    if let Err(e) = queue.engine.host_busy(dispatch) {
                        kernel.queue_fault(QueueFault::DeferralRefused(e));
                        return Issue::Nothing;
                    }
                    queue.bus_wait = Some(tag);
                    return Issue::BusBusy;
                }
                (Some(opcode), OnBusyBus::Fail { waited_ns }) => {
                    let request = queue
                        .waiting
                        .get_mut(usize::from(tag))
                        .and_then(Option::take);
                    let error = kernel.refusal_error(Refusal::BusBusy { opcode, waited_ns });
                    return Issue::Failed {
                        request: request.map(|request| (Owner::Queue { request, tag }, error)),
                        finished: queue.engine.host_failed(dispatch).ok(),
                    };
                }
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
        on_busy_bus = OnBusyBus::Defer;
        let finished = match issue {
            Issue::Started => {
                kernel.arm_watchdog();
                return;
            }
            Issue::Nothing => return,
            Issue::BusBusy => {
                kernel.schedule_busy_retry();
                return;
            }
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
