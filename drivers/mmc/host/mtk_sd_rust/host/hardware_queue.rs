// SPDX-License-Identifier: GPL-2.0

//! The CQHCI command queue engine in the slot: its descriptor memory, the requests of the
//! tasks it holds, the MSDC's hooks around every engine call, its interrupt and its waits.

use core::sync::atomic::Ordering;

use kernel::{
    prelude::*,
    time::{delay::fsleep, Delta, Instant, Monotonic},
};

use super::{Msdc, Queue, State, CQHCI_WAIT_STEP_US};
use crate::{
    backend::RegisterWindow,
    cqhci::{self, Cqhci, Step, Ticket, Wait, Warnings},
    kernel_mmc::{DescriptorMemory, QueuedRequest, Refused},
    msdc::cqe::CqeHooks,
    registers::Io,
    slot::command_queue,
};

/// A task of the command queue engine, from its doorbell to its completion.
pub(super) struct Task {
    pub(super) request: QueuedRequest,
    pub(super) ticket: Ticket,
    /// A direct command: its response comes from `CQCRDCT`.
    direct: bool,
}

/// The CQHCI engine, its descriptor memory, and the tasks it holds.
pub(super) struct HardwareQueue {
    pub(super) engine: Cqhci,
    pub(super) memory: DescriptorMemory,
    pub(super) tasks: [Option<Task>; cqhci::Tag::COUNT],
    /// `CQSSC1` for the MSDC's hooks: the send-status idle timer at this `hclk`.
    pub(super) idle_timer: cqhci::regs::CQSSC1,
}

impl HardwareQueue {
    /// An engine for `config` with its memory, before `cqe_enable`, built where it is to
    /// live: its task table takes kilobytes, too many for the probe's stack.
    pub(super) fn new(
        config: cqhci::Config,
        memory: DescriptorMemory,
        idle_timer: cqhci::regs::CQSSC1,
    ) -> core::result::Result<impl Init<Self>, cqhci::Error> {
        let engine = Cqhci::new(config)?;
        Ok(pin_init::init!(Self {
            engine,
            memory,
            tasks <- pin_init::init_array_from_fn(|_| None),
            idle_timer,
        }))
    }

    /// The engine and its view of the descriptor memory: the task descriptor list first,
    /// then the transfer descriptors.
    pub(super) fn engine_and_memory(&mut self) -> (&mut Cqhci, cqhci::DescriptorMemory<'_>) {
        let tdl_len = self.engine.layout().tdl_len();
        let bus = self.memory.bus_address();
        let (tdl, transfers) = self.memory.cpu_view().split_at_mut(tdl_len);
        (
            &mut self.engine,
            cqhci::DescriptorMemory {
                tdl,
                tdl_bus: bus,
                transfers,
                transfers_bus: bus + tdl_len as u64,
            },
        )
    }
}

/// The errno the core expects for a command queue engine's refusal.
pub(super) fn cqhci_errno(error: cqhci::Error) -> Error {
    match error {
        cqhci::Error::Busy | cqhci::Error::SlotBusy => EBUSY,
        cqhci::Error::MemoryTooSmall => ENOMEM,
        _ => EINVAL,
    }
}

/// What the CQHCI interrupt leaves to do once the lock is released.
pub(super) struct TaskOutcome {
    pub(super) completed: cqhci::Completions,
    pub(super) wake: bool,
}

impl Msdc {
    /// The CQHCI interrupt: hands the host's errors to the engine and takes the completed
    /// tasks' requests out (completed after the lock is released).
    pub(super) fn task_interrupt(
        &self,
        hq: &mut HardwareQueue,
        cmd_error: Option<cqhci::HostError>,
        data_error: Option<cqhci::HostError>,
    ) -> TaskOutcome {
        let outcome = hq.engine.irq(&self.regs, cmd_error, data_error);
        if let Some(tag) = outcome.notify_recovery {
            if let Some(task) = hq.tasks.get(tag.index()).and_then(Option::as_ref) {
                // Under the lock: the task cannot complete (and its request go) meanwhile.
                task.request.notify_recovery();
            }
        }
        if outcome.error_while_idle {
            dev_warn!(self.dev, "CQHCI error while no task was queued\n");
        }
        if !outcome.spurious.is_empty() {
            dev_warn!(
                self.dev,
                "CQHCI completion for empty slots {:#x}\n",
                outcome.spurious.bits()
            );
        }
        TaskOutcome {
            completed: outcome.completed,
            wake: outcome.wake,
        }
    }

    /// Completes the tasks in `completed`, one lock round trip each (the lock is never held
    /// across the core's completion).
    pub(super) fn finish_tasks(&self, completed: &cqhci::Completions) {
        for completion in completed.iter() {
            let taken = {
                let mut state = self.state.lock();
                match &mut state.queue {
                    Queue::Hardware(hq) => hq
                        .tasks
                        .get_mut(completion.tag.index())
                        .and_then(Option::take)
                        .map(|task| {
                            let response = if task.direct {
                                Io::<cqhci::CqhciBlock>::read::<cqhci::regs::CQCRDCT>(&self.regs)
                                    .response()
                            } else {
                                0
                            };
                            (task, response)
                        }),
                    _ => None,
                }
            };
            let Some((task, response)) = taken else {
                dev_err!(
                    self.dev,
                    "CQHCI completed slot {} without a request\n",
                    completion.tag.number()
                );
                continue;
            };
            let (bytes, error) =
                command_queue::task_ending(completion.status, task.request.request().data());
            self.counters.completed(error);
            task.request.complete_task(bytes, error, response);
        }
    }

    /// Runs one engine call with the MSDC's hooks, under the lock, and brings the
    /// controller's state up to what the hooks did.
    pub(super) fn with_engine<T>(
        &self,
        state: &mut State,
        f: impl FnOnce(&mut HardwareQueue, &CqeHooks<'_, RegisterWindow>) -> T,
    ) -> Option<T> {
        let State {
            controller, queue, ..
        } = state;
        let Queue::Hardware(hq) = queue else {
            return None;
        };
        let hooks = controller.cqe_hooks(&self.regs, hq.idle_timer);
        let answer = f(hq, &hooks);
        self.host.set_cqe_on(hq.engine.is_on());
        controller.absorb_cqe(hooks.finish());
        self.note_hardware_fault(controller);
        Some(answer)
    }

    /// Runs a multi-step engine operation to its end: each wait sleeps between register
    /// checks with the lock released, bounded by the engine's timeout.
    pub(super) fn drive_engine(
        &self,
        what: &str,
        first: impl FnOnce(&mut HardwareQueue, &CqeHooks<'_, RegisterWindow>) -> Step,
    ) -> Option<cqhci::Finished> {
        let mut step = {
            let mut state = self.state.lock();
            self.with_engine(&mut state, first)?
        };
        // The engine needs at most four waits per operation; bound the loop anyway.
        for _ in 0..8 {
            match step {
                Step::Done(finished) => {
                    self.log_warnings(what, finished.warnings);
                    return Some(finished);
                }
                Step::Wait(wait) => {
                    self.sleep_until(wait);
                    let mut state = self.state.lock();
                    step = self
                        .with_engine(&mut state, |hq, hooks| hq.engine.resume(&self.regs, hooks))?;
                }
            }
        }
        dev_err!(self.dev, "CQHCI {}: the engine did not finish\n", what);
        None
    }

    /// Sleeps until `wait`'s register condition holds or its time is up (the engine copes
    /// with either).
    pub(super) fn sleep_until(&self, wait: Wait) {
        let start = Instant::<Monotonic>::now();
        let limit = Delta::from_micros(i64::from(wait.timeout_us));
        while !wait.condition.is_met(&self.regs) && start.elapsed() < limit {
            fsleep(Delta::from_micros(CQHCI_WAIT_STEP_US));
        }
    }

    pub(super) fn log_warnings(&self, what: &str, warnings: Warnings) {
        if warnings.contains(Warnings::STUCK_ON) {
            dev_err!(
                self.dev,
                "CQHCI {}: the controller did not halt (stuck on)\n",
                what
            );
        }
        if warnings.contains(Warnings::HALT_FAILED) {
            dev_err!(self.dev, "CQHCI {}: failed to halt\n", what);
        }
        if warnings.contains(Warnings::CLEAR_FAILED) {
            dev_err!(self.dev, "CQHCI {}: failed to clear the tasks\n", what);
        }
        if warnings.contains(Warnings::NOT_IN_RECOVERY) {
            dev_warn!(self.dev, "CQHCI {}: no error was pending\n", what);
        }
    }

    /// `cqe_request` for the CQHCI engine: a data task or a direct command.
    pub(super) fn queue_task(&self, mut request: QueuedRequest) -> Result<(), Refused> {
        let refuse = |request, error| Err(Refused { request, error });
        let Some(tag) = u32::try_from(request.tag()).ok().and_then(cqhci::Tag::new) else {
            return refuse(request, EINVAL);
        };
        let data = request.request().data();
        if let Some(data) = data {
            // Map before taking the lock; the segments are read again under it.
            let mapped = request.request_mut().map_data().map(|_| ());
            if let Err(e) = mapped {
                return refuse(request, e);
            }
            if data.block_size != 512 {
                return refuse(request, EINVAL);
            }
        }
        let mut guard = self.state.lock();
        let state = &mut *guard;
        let State {
            controller, queue, ..
        } = state;
        let Queue::Hardware(hq) = queue else {
            drop(guard);
            return refuse(request, EINVAL);
        };
        let idle_timer = hq.idle_timer;
        let hooks = controller.cqe_hooks(&self.regs, idle_timer);
        let (engine, mut mem) = hq.engine_and_memory();
        let issued = match data {
            Some(data) => {
                let (block_address, data_flags) =
                    request.block_address_and_flags().unwrap_or((0, 0));
                let task = command_queue::data_task(&data, block_address, data_flags);
                match request.request_mut().map_data() {
                    Ok(segments) => engine.issue_data(
                        &self.regs,
                        &hooks,
                        &mut mem,
                        tag,
                        &task,
                        segments.map(|s| cqhci::Segment {
                            address: s.bus_address,
                            length: s.len,
                        }),
                    ),
                    Err(_) => Err(cqhci::Error::NoSegments),
                }
            }
            None => match request.request().cmd() {
                Some(cmd) => command_queue::direct_command(&cmd)
                    .and_then(|dcmd| engine.issue_dcmd(&self.regs, &hooks, &mut mem, &dcmd)),
                None => Err(cqhci::Error::NoBlocks),
            },
        };
        self.host.set_cqe_on(engine.is_on());
        controller.absorb_cqe(hooks.finish());
        self.note_hardware_fault(controller);
        match issued {
            Ok(ticket) => {
                let direct = data.is_none();
                if let Some(slot) = hq.tasks.get_mut(ticket.tag.index()) {
                    *slot = Some(Task {
                        request,
                        ticket,
                        direct,
                    });
                }
                self.counters.issued();
                if direct {
                    self.counters
                        .direct_commands
                        .fetch_add(1, Ordering::Relaxed);
                }
                Ok(())
            }
            Err(e) => {
                drop(guard);
                if !matches!(e, cqhci::Error::Busy | cqhci::Error::SlotBusy) {
                    dev_err!(self.dev, "CQHCI refused tag {}: {:?}\n", tag.number(), e);
                }
                refuse(request, cqhci_errno(e))
            }
        }
    }

    /// Ends every task recovery finish handed back.
    pub(super) fn finish_recovered(&self, finished: &cqhci::Finished) {
        self.finish_tasks(&finished.completions);
        self.idle.notify_all();
    }
}
