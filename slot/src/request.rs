// SPDX-License-Identifier: GPL-2.0

//! A request on the controller: launched (one at a time, or as the software queue's
//! dispatch) and finished, with the lock taken and released in the glue's one order; and
//! the interrupt handler, which finishes it.

use crate::mmc_request::{RequestResult, Segment};
use crate::msdc::controller::{Controller, DmaChain, Progress};

use super::services::{
    DescriptorArea, InFlight, NotStarted, Owner, Refusal, SlotKernel, SlotOwner, SlotRequest,
    SlotView,
};
use super::{command_queue, software_queue};

/// Logs and counts the hardware fault the request engine recorded last, if any. Called with
/// the lock held, on every path that drives the engine through requests.
pub fn note_hardware_fault<K: SlotKernel + ?Sized, R>(kernel: &K, controller: &mut Controller<R>) {
    if let Some(fault) = controller.take_hardware_fault() {
        kernel.hardware_fault(fault);
    }
}

/// Maps the data of the request `owner` holds, writes its descriptor chain and starts it on
/// the controller, which holds it until it completes. With the lock held. A request that
/// cannot start comes back with the error to fail it with.
pub(crate) fn launch<K: SlotKernel + ?Sized>(
    kernel: &K,
    slot: &mut SlotView<'_, K>,
    mut owner: SlotOwner<K>,
) -> Result<(), NotStarted<K>> {
    let (spec, for_mmc_card) = match &owner {
        Owner::Core(request) => (request.spec(), request.for_mmc_card()),
        Owner::Queue { request, .. } => (request.spec(), request.for_mmc_card()),
    };
    let Some(spec) = spec else {
        return Err((owner, kernel.refusal_error(Refusal::NoCommand)));
    };
    let opcode = spec.cmd.opcode;
    let start_failed = |error| kernel.refusal_error(Refusal::Start { opcode, error });
    // The hardware's auto-CMD23 serves eMMC only (as upstream); an SD card's CMD23 goes
    // out as a command of its own.
    slot.controller.set_auto_cmd23(for_mmc_card);
    let chain = if spec.data.is_some() {
        let controller = &*slot.controller;
        let written = slot.descriptors.with_area(|area_bus, area| {
            let segments = match &mut owner {
                Owner::Core(request) => request.map_data().map(Segments::Core),
                Owner::Queue { request, .. } => request.map_data().map(Segments::Queue),
            };
            match segments {
                Ok(segments) => controller
                    .write_chain(
                        &spec,
                        DmaChain {
                            area_bus,
                            area,
                            segments,
                        },
                    )
                    .map_err(start_failed),
                Err(e) => Err(e),
            }
        });
        match written {
            Ok(chain) => Some(chain),
            Err(e) => return Err((owner, e)),
        }
    } else {
        None
    };
    let in_flight = InFlight {
        owner,
        opcode,
        tuning_probe: slot.controller.is_tuning(),
        started: kernel.now(),
    };
    slot.controller
        .start(kernel.regs(), &spec, chain, in_flight)
        .map_err(|(in_flight, e)| (in_flight.owner, start_failed(e)))
}

/// The segments of either kind of request.
enum Segments<C, Q> {
    Core(C),
    Queue(Q),
}

impl<C: Iterator<Item = Segment>, Q: Iterator<Item = Segment>> Iterator for Segments<C, Q> {
    type Item = Segment;

    fn next(&mut self) -> Option<Segment> {
        match self {
            Self::Core(segments) => segments.next(),
            Self::Queue(segments) => segments.next(),
        }
    }
}

/// The core's `request`: one request outside any queue, started if the controller is idle,
/// failed otherwise.
pub fn start_request<K: SlotKernel + ?Sized>(kernel: &K, request: K::Request) {
    kernel.request_issued();
    let started = kernel.with_slot(|mut slot| {
        let started = if slot.controller.is_idle() {
            launch(kernel, &mut slot, Owner::Core(request))
        } else {
            Err((
                Owner::Core(request),
                kernel.refusal_error(Refusal::ControllerBusy),
            ))
        };
        note_hardware_fault(kernel, slot.controller);
        started
    });
    match started {
        Ok(()) => kernel.arm_watchdog(),
        Err((owner, error)) => fail_owner(kernel, owner, error),
    }
}

/// Completes a request that never reached the bus with `error`.
pub(crate) fn fail_owner<K: SlotKernel + ?Sized>(kernel: &K, owner: SlotOwner<K>, error: K::Error) {
    match owner {
        Owner::Core(request) => kernel.fail(request, error),
        Owner::Queue { request, .. } => kernel.fail_queued(request, error),
    }
}

/// Completes the request the controller handed back with `result`, with the lock released:
/// a request of the core's frees the controller for a dispatch of the software queue that
/// waited for it; a queued one is finalized, completed to the core, then released, so that
/// a recovery the core starts from its completion comes before the next dispatch.
pub fn finish<K: SlotKernel + ?Sized>(kernel: &K, in_flight: InFlight<K>, result: &RequestResult) {
    kernel.request_finished(in_flight.opcode, in_flight.tuning_probe, result);
    match in_flight.owner {
        Owner::Core(request) => {
            kernel.complete(request, result);
            software_queue::retry(kernel);
            recheck_sdio_irq(kernel);
        }
        Owner::Queue { request, tag } => {
            let finished = kernel.with_slot(|slot| {
                slot.software_queue
                    .and_then(|queue| queue.engine.finalize_request(&tag).ok())
            });
            // The core may start recovery from this completion: the lock is free.
            kernel.complete_queued(request, result);
            if let Some(finished) = finished {
                software_queue::request_done(kernel, finished);
            }
        }
    }
}

/// On SoCs that can lose the SDIO interrupt, signals one that DAT1 still shows without a
/// latched event, as upstream does after each request and when the interrupt is enabled.
pub fn recheck_sdio_irq<K: SlotKernel + ?Sized>(kernel: &K) {
    let lost = kernel.with_slot(|slot| slot.controller.recheck_sdio_irq(kernel.regs()));
    if lost {
        kernel.signal_sdio_irq();
    }
}

/// What one run of the interrupt handler was about, most telling first: the glue keeps its
/// longest run per kind, so that a long one names its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterruptKind {
    /// Nothing to handle (a shared line, or an event already consumed).
    None,
    /// Only the SDIO card's interrupt or a card-detect change.
    Event,
    /// The request in flight moved on or completed without an error.
    Request,
    /// The CQHCI block's interrupt (task completions, errors, halt).
    CommandQueue,
    /// The stop command of the request in flight was issued (after its data phase).
    Stop,
    /// The controller was reset (after a failed phase), or a request completed with an
    /// error.
    Error,
}

impl InterruptKind {
    /// Every kind, in the order the glue shows them.
    pub const ALL: [Self; 6] = [
        Self::None,
        Self::Event,
        Self::Request,
        Self::CommandQueue,
        Self::Stop,
        Self::Error,
    ];

    /// Whether there was anything to handle.
    pub fn handled(self) -> bool {
        self != Self::None
    }

    /// The kind's name in the glue's figures.
    pub const fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Event => "event",
            Self::Request => "request",
            Self::CommandQueue => "cmdq",
            Self::Stop => "stop",
            Self::Error => "error",
        }
    }
}

/// The interrupt handler: with the lock held, the events in the engine's order (the SDIO
/// card's interrupt, card detect, the CMDQ interrupt of the CQHCI engine, then `other`'s,
/// then the request engine's), each consumed and acknowledged by its own call, and the
/// core told of a card change or an SDIO interrupt unless it has let the host go; with the
/// lock released, `other`'s event to `handle_other`, the completed tasks to the core, and
/// the finished request to [`finish`]; a stop command that waits for a card still
/// programming, or a data phase whose DMA stop has not taken effect within the handler's
/// few microseconds, to the busy retry ([`SlotKernel::schedule_busy_retry`]), which
/// completes the request (and so dispatches the next) from process context. What there
/// was to handle.
///
/// `other` takes, with the lock held, the CMDQ interrupt of an engine the slot logic does
/// not run (the kernel's C `cqhci` in test kernels).
///
/// The order under the lock is upstream's (`msdc_irq`: SDIO and card detect, then CMDQ to
/// `cqhci_irq`, then the request), but the hardware leaves no way for it to matter, so no
/// test can tell it from another: each call acknowledges only its own `MSDC_INT` bits; the
/// reset that ends a failed request (`msdc_reset_hw`) leaves card detect and SDIO latched
/// for their calls; and no CMDQ event can be due while a request of the core's is on the
/// controller, whose start programmed `MSDC_INTEN` without `CMDQ` (the core halts the
/// queue, `cqe_off`, before a command of its own), so the CMDQ calls, which touch nothing
/// while a request is in flight, never take or leave an event because of it.
pub fn interrupt<K: SlotKernel + ?Sized, E>(
    kernel: &K,
    other: impl FnOnce(&mut SlotView<'_, K>) -> Option<E>,
    handle_other: impl FnOnce(E),
) -> InterruptKind {
    let regs = kernel.regs();
    let (kind, tasks, other_event, done, stop_waits) = kernel.with_slot(|mut slot| {
        let before = slot.controller.activity();
        let sdio = slot.controller.sdio_irq_event(regs);
        let card_changed = slot.controller.card_detect_event(regs);
        let tasks = command_queue::task_event(kernel, &mut slot);
        let other_event = other(&mut slot);
        let done = match slot.controller.handle_interrupt(regs) {
            Progress::Pending => None,
            Progress::Done(in_flight, result) => Some((in_flight, result)),
        };
        note_hardware_fault(kernel, slot.controller);
        // Under the lock, so that none reaches a host that has gone.
        if !slot.host_removed {
            if card_changed {
                kernel.card_changed();
            }
            if sdio {
                kernel.signal_sdio_irq();
            }
        }
        let after = slot.controller.activity();
        let failed = done
            .as_ref()
            .is_some_and(|(_, result)| result_failed(result));
        let kind = if after.resets != before.resets || failed {
            InterruptKind::Error
        } else if after.stops != before.stops {
            InterruptKind::Stop
        } else if tasks.is_some() || other_event.is_some() {
            InterruptKind::CommandQueue
        } else if done.is_some() || after.request_events != before.request_events {
            InterruptKind::Request
        } else if sdio || card_changed {
            InterruptKind::Event
        } else {
            InterruptKind::None
        };
        (kind, tasks, other_event, done, slot.controller.stop_waits())
    });
    if stop_waits {
        // A card still programming holds the stop command, or the DMA stop is slow to
        // take effect: never waited for here.
        kernel.schedule_busy_retry();
    }
    if let Some(event) = other_event {
        handle_other(event);
    }
    if let Some(outcome) = tasks {
        command_queue::finish_event(kernel, &outcome);
    }
    if let Some((in_flight, result)) = done {
        finish(kernel, in_flight, &result);
    }
    kind
}

/// Whether a phase of `result` failed.
fn result_failed(result: &RequestResult) -> bool {
    result.sbc.is_some_and(|r| r.error.is_some())
        || result.cmd.error.is_some()
        || result.data.is_some_and(|d| d.error.is_some())
        || result.stop.is_some_and(|r| r.error.is_some())
}
