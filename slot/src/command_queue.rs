// SPDX-License-Identifier: GPL-2.0

//! The CQHCI command queue's side of the slot: the engine and the requests of the tasks it
//! holds ([`HardwareQueue`]), a queued request issued as a task with the MSDC's hooks
//! ([`issue`]), the CMDQ interrupt ([`task_event`], [`finish_event`]), the completed tasks'
//! requests ([`finish_tasks`]), and the operations the MMC core calls: [`enable`],
//! [`disable`], [`off`], [`suspend`], [`timeout`], [`recovery_start`], [`recovery_finish`].
//!
//! Every engine call runs with the lock held and the controller's hooks around it
//! (`Controller::cqe_hooks`, then `Controller::absorb_cqe`), and publishes whether the
//! queue is on ([`SlotKernel::set_cqe_on`]). The multi-step operations (disable, suspend,
//! recovery) wait for the hardware with the lock released ([`SlotKernel::sleep_until`]),
//! except `cqe_off`, whose halt is short enough to poll under the lock. Task requests are
//! completed with the lock released, one lock round trip each; until the completion
//! returns, the task is still known as completing, so that the core's time-out never takes
//! it for gone ([`timeout`]).

use crate::cqhci::{
    self, regs::CQCRDCT, regs::CQSSC1, CardInfo, CompletionStatus, Completions, Cqhci, CqhciBlock,
    DataTask, DcmdResponse, DirectCommand, Finished, Interrupts, Step, TaskError, TaskFlags,
    Ticket, TimeoutVerdict,
};
use crate::mmc_request::{flags, Command, Data, Direction, ErrorKind, ErrorStat};
use crate::msdc::cqe::CqeHooks;
use crate::registers::Io;

use super::request::note_hardware_fault;
use super::services::{
    DescriptorArea, QueuedSlotRequest, Refusal, SlotKernel, SlotRequest, SlotView,
};
use super::software_queue::Refused;

/// A task of the engine, from its doorbell to its completion.
pub struct Task<Q> {
    /// The core's request.
    pub request: Q,
    /// The engine's name for the task, for the core's time-out.
    pub ticket: Ticket,
    /// A direct command: its response comes from `CQCRDCT`.
    pub direct: bool,
}

/// A request taken out of the task table to be completed with the lock released.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completing<I> {
    /// The request.
    pub id: I,
    /// How many completions of it under this tag have not returned yet.
    pub count: u8,
}

/// The CQHCI engine, its descriptor memory and the requests of the tasks it holds.
pub struct HardwareQueue<Q: QueuedSlotRequest, M> {
    /// The engine.
    pub engine: Cqhci,
    /// The task descriptor list, then the transfer descriptors.
    pub memory: M,
    /// The requests of the tasks the engine holds, by tag.
    pub tasks: [Option<Task<Q>>; cqhci::Tag::COUNT],
    /// The requests taken out of `tasks` whose completion has not returned yet, by tag.
    pub completing: [Option<Completing<Q::Id>>; cqhci::Tag::COUNT],
    /// `CQSSC1` for the MSDC's hooks: the send-status idle timer at this `hclk`.
    pub idle_timer: CQSSC1,
}

impl<Q: QueuedSlotRequest, M: DescriptorArea> HardwareQueue<Q, M> {
    /// An engine holding no task, before `cqe_enable`.
    pub fn new(engine: Cqhci, memory: M, idle_timer: CQSSC1) -> Self {
        Self {
            engine,
            memory,
            tasks: [const { None }; cqhci::Tag::COUNT],
            completing: [None; cqhci::Tag::COUNT],
            idle_timer,
        }
    }

    /// Runs `f` on the engine and its view of the descriptor memory: the task descriptor
    /// list first, then the transfer descriptors.
    pub fn with_memory<T>(
        &mut self,
        f: impl FnOnce(&mut Cqhci, &mut cqhci::DescriptorMemory<'_>) -> T,
    ) -> T {
        let tdl_len = self.engine.layout().tdl_len();
        let engine = &mut self.engine;
        self.memory.with_area(|bus, area| {
            let (tdl, transfers) = area.split_at_mut(tdl_len.min(area.len()));
            f(
                engine,
                &mut cqhci::DescriptorMemory {
                    tdl,
                    tdl_bus: bus,
                    transfers,
                    transfers_bus: bus + tdl_len as u64,
                },
            )
        })
    }

    /// Whether a completion of the request `id` has not returned yet.
    fn is_completing(&self, id: &Q::Id) -> bool {
        self.completing.iter().flatten().any(|c| c.id == *id)
    }
}

/// An operation of the engine that may wait for the hardware, for the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// `cqe_off`.
    Off,
    /// `cqe_disable`.
    Disable,
    /// The runtime suspend's halt.
    Suspend,
    /// `cqe_recovery_start`.
    RecoveryStart,
    /// `cqe_recovery_finish`.
    RecoveryFinish,
}

/// Something of the command queue for the kernel to log; the slot carries on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueEvent {
    /// The engine reported an error while no task was queued.
    ErrorWhileIdle,
    /// Completions for slots that held no task (their mask).
    SpuriousCompletions(u32),
    /// The engine completed the task of `tag`, which holds no request.
    NoRequestForTag(u8),
    /// The operation did not finish in the waits any operation needs.
    EngineStuck(Operation),
    /// `cqe_enable` failed.
    EnableFailed(cqhci::Error),
    /// The core's time-out found a task still queued.
    TaskTimedOut,
}

/// How a task ended, as the core's completion needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskEnd {
    /// What the engine said.
    pub status: CompletionStatus,
    /// The bytes moved: all of the data when done, none otherwise.
    pub bytes: u32,
    /// The request's error.
    pub error: Option<ErrorKind>,
    /// A direct command's response (`CQCRDCT`); 0 for a data task.
    pub response: u32,
}

/// The data task of a request with `data`, starting at `block_address`, with the
/// attributes its `MMC_DATA_*` flags ask for.
pub fn data_task(data: &Data, block_address: u32, data_flags: u32) -> DataTask {
    DataTask {
        direction: match data.direction {
            Direction::Read => cqhci::Direction::Read,
            Direction::Write => cqhci::Direction::Write,
        },
        // Too many blocks for a task: refused by the engine as a task of none.
        block_count: u16::try_from(data.blocks).unwrap_or(0),
        block_address,
        flags: TaskFlags {
            reliable_write: data_flags & flags::MMC_DATA_REL_WR != 0,
            data_tag: data_flags & flags::MMC_DATA_DAT_TAG != 0,
            priority: data_flags & flags::MMC_DATA_PRIO != 0,
            queue_barrier: data_flags & flags::MMC_DATA_QBR != 0,
            forced_programming: data_flags & flags::MMC_DATA_FORCED_PRG != 0,
        },
        context: 0,
    }
}

/// The direct command of a request without data (a cache flush), its response type from
/// the command's flags.
pub fn direct_command(cmd: &Command) -> Result<DirectCommand, cqhci::Error> {
    let response = if cmd.flags & flags::MMC_RSP_PRESENT == 0 {
        DcmdResponse::None
    } else if cmd.flags & flags::MMC_RSP_BUSY != 0 {
        DcmdResponse::ShortBusy
    } else {
        DcmdResponse::Short
    };
    let opcode = u8::try_from(cmd.opcode).map_err(|_| cqhci::Error::ValueTooWide)?;
    Ok(DirectCommand {
        opcode,
        argument: cmd.arg,
        response,
    })
}

/// The request error of a task that ended with `error`.
pub fn task_error(error: TaskError) -> ErrorKind {
    match error {
        TaskError::Crc => ErrorKind::BadCrc,
        TaskError::Timeout => ErrorKind::TimedOut,
        TaskError::Io => ErrorKind::DmaFault,
    }
}

/// What a task that completed with `status` hands back to the core: the bytes moved (all
/// of `data` when it is done, none otherwise: a requeued task runs again whole) and its
/// error.
pub fn task_ending(status: CompletionStatus, data: Option<Data>) -> (u32, Option<ErrorKind>) {
    match status {
        CompletionStatus::Done => (data.and_then(|data| data.bytes()).unwrap_or(0), None),
        CompletionStatus::Requeue => (0, None),
        CompletionStatus::Failed(error) => (0, Some(task_error(error))),
    }
}

/// The slot's hardware queue as `K` has it.
pub type SlotHardwareQueue<K> =
    HardwareQueue<<K as SlotKernel>::Queued, <K as SlotKernel>::TaskMemory>;

/// Runs one engine call with the MSDC's hooks, with the lock held, and brings the
/// controller's state up to what the hooks did; `None` on a slot without the engine.
pub fn with_engine<K: SlotKernel + ?Sized, T>(
    kernel: &K,
    slot: &mut SlotView<'_, K>,
    f: impl FnOnce(&mut SlotHardwareQueue<K>, &CqeHooks<'_, K::Regs>) -> T,
) -> Option<T> {
    let queue = slot.hardware_queue.as_deref_mut()?;
    let hooks = slot.controller.cqe_hooks(kernel.regs(), queue.idle_timer);
    let answer = f(queue, &hooks);
    kernel.set_cqe_on(queue.engine.is_on());
    let aftermath = hooks.finish();
    slot.controller.absorb_cqe(aftermath);
    note_hardware_fault(kernel, slot.controller);
    Some(answer)
}

/// Runs a multi-step operation to its end: its first step under the lock, then each wait
/// with the lock released ([`SlotKernel::sleep_until`]) and the engine resumed under it.
/// `None` on a slot without the engine, or if the engine never finished (logged).
pub fn drive<K: SlotKernel + ?Sized>(
    kernel: &K,
    operation: Operation,
    first: impl FnOnce(&mut Cqhci, &K::Regs, &CqeHooks<'_, K::Regs>) -> Step,
) -> Option<Finished> {
    let regs = kernel.regs();
    let mut step = kernel.with_slot(|mut slot| {
        with_engine(kernel, &mut slot, |queue, hooks| {
            first(&mut queue.engine, regs, hooks)
        })
    })?;
    // The engine needs at most four waits per operation; bound the loop anyway.
    for _ in 0..8 {
        match step {
            Step::Done(finished) => {
                if !finished.warnings.is_empty() {
                    kernel.cqe_warnings(operation, finished.warnings);
                }
                return Some(finished);
            }
            Step::Wait(wait) => {
                kernel.sleep_until(wait);
                step = kernel.with_slot(|mut slot| {
                    with_engine(kernel, &mut slot, |queue, hooks| {
                        queue.engine.resume(regs, hooks)
                    })
                })?;
            }
        }
    }
    kernel.cqe_event(QueueEvent::EngineStuck(operation));
    None
}

/// `cqe_enable`: the engine on the card of `card`; its queue depth. `None` on a slot
/// without the engine. A card without a command queue is refused
/// (`cqhci::Error::CommandQueueDisabled`, not logged): the slot serves it one request at
/// a time.
pub fn enable<K: SlotKernel + ?Sized>(
    kernel: &K,
    card: CardInfo,
) -> Option<Result<u32, cqhci::Error>> {
    let regs = kernel.regs();
    let enabled = kernel.with_slot(|mut slot| {
        with_engine(kernel, &mut slot, |queue, hooks| {
            queue.with_memory(|engine, mem| {
                engine
                    .enable(regs, hooks, card, mem)
                    .map(|()| engine.queue_depth())
            })
        })
    })?;
    if let Err(e) = enabled {
        if e != cqhci::Error::CommandQueueDisabled {
            kernel.cqe_event(QueueEvent::EnableFailed(e));
        }
    }
    Some(enabled)
}

/// `cqe_disable`: halts (sleeping with the lock released) and switches the engine off.
pub fn disable<K: SlotKernel + ?Sized>(kernel: &K) -> Option<Finished> {
    drive(kernel, Operation::Disable, |engine, regs, hooks| {
        engine.disable(regs, hooks)
    })
}

/// `cqe_off`, before a command of the core's outside the queue: the halt, polled under
/// the lock (it takes the controller some 100 µs).
pub fn off<K: SlotKernel + ?Sized>(kernel: &K) {
    let regs = kernel.regs();
    let finished = kernel.with_slot(|mut slot| {
        with_engine(kernel, &mut slot, |queue, hooks| {
            let engine = &mut queue.engine;
            let first = engine.off(regs, hooks);
            engine.drive(regs, hooks, first, |wait| {
                wait.poll(regs, 1);
            })
        })
    });
    if let Some(finished) = finished {
        if !finished.warnings.is_empty() {
            kernel.cqe_warnings(Operation::Off, finished.warnings);
        }
    }
}

/// The runtime suspend: halts the engine (sleeping with the lock released) and switches
/// it off, when no task is queued. False, the engine left as it was, while a task is
/// queued (also one that arrived during the halt: it runs after the un-halt its issue
/// did).
pub fn suspend<K: SlotKernel + ?Sized>(kernel: &K) -> bool {
    let busy = |slot: &SlotView<'_, K>| {
        slot.hardware_queue
            .as_deref()
            .is_some_and(|queue| !queue.engine.in_flight().is_empty())
    };
    if kernel.with_slot(|slot| busy(&slot)) {
        return false;
    }
    // The engine logs what went wrong; switching it off below works either way.
    let _ = drive(kernel, Operation::Suspend, |engine, regs, hooks| {
        engine.off(regs, hooks)
    });
    kernel.with_slot(|mut slot| {
        if busy(&slot) {
            return false;
        }
        with_engine(kernel, &mut slot, |queue, _| {
            queue.engine.deactivate(kernel.regs())
        });
        true
    })
}

/// `cqe_request` for the CQHCI engine: the request issued as a data task or a direct
/// command, with the MSDC's hooks. A refused request comes back, uncompleted.
pub fn issue<K: SlotKernel + ?Sized>(
    kernel: &K,
    mut request: K::Queued,
) -> Result<(), Refused<K::Queued, K::Error>> {
    let refuse = |request, refusal| {
        Err(Refused {
            request,
            error: kernel.refusal_error(refusal),
        })
    };
    let Some(tag) = u32::try_from(request.tag()).ok().and_then(cqhci::Tag::new) else {
        return refuse(request, Refusal::TagOutOfRange);
    };
    let data = request.data();
    if let Some(data) = data {
        // Mapped before the lock is taken; the segments are read again under it.
        if let Err(error) = request.map_data().map(|_| ()) {
            return Err(Refused { request, error });
        }
        if data.block_size != 512 {
            return refuse(request, Refusal::BlockSize(data.block_size));
        }
    }
    let regs = kernel.regs();
    let issued = kernel.with_slot(|mut slot| {
        if slot.hardware_queue.is_none() {
            return Err((request, Refusal::NoCommandQueue));
        }
        let ticket = with_engine(kernel, &mut slot, |queue, hooks| {
            queue.with_memory(|engine, mem| match data {
                Some(data) => {
                    let (block_address, data_flags) =
                        request.block_address_and_flags().unwrap_or((0, 0));
                    let task = data_task(&data, block_address, data_flags);
                    match request.map_data() {
                        Ok(segments) => engine.issue_data(
                            regs,
                            hooks,
                            mem,
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
                None => match request.spec() {
                    Some(spec) => direct_command(&spec.cmd)
                        .and_then(|dcmd| engine.issue_dcmd(regs, hooks, mem, &dcmd)),
                    None => Err(cqhci::Error::NoBlocks),
                },
            })
        });
        let Some(queue) = slot.hardware_queue.as_deref_mut() else {
            return Err((request, Refusal::NoCommandQueue));
        };
        match ticket {
            Some(Ok(ticket)) => {
                let direct = data.is_none();
                if let Some(place) = queue.tasks.get_mut(ticket.tag.index()) {
                    *place = Some(Task {
                        request,
                        ticket,
                        direct,
                    });
                }
                kernel.task_issued(direct);
                Ok(())
            }
            Some(Err(error)) => Err((
                request,
                Refusal::Task {
                    tag: ticket_tag(tag),
                    error,
                },
            )),
            None => Err((request, Refusal::NoCommandQueue)),
        }
    });
    match issued {
        Ok(()) => Ok(()),
        Err((request, refusal)) => refuse(request, refusal),
    }
}

/// A tag's number as a `u8` (the engine has 32).
fn ticket_tag(tag: cqhci::Tag) -> u8 {
    u8::try_from(tag.number()).unwrap_or(u8::MAX)
}

/// What the CQHCI interrupt leaves to do once the lock is released ([`finish_event`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskOutcome {
    /// The tasks to complete.
    pub completed: Completions,
    /// Whoever waits for the queue looks again.
    pub wake: bool,
}

/// The CQHCI error interrupts the core counts, as `cqhci-core.c` does.
const TASK_ERROR_STATS: [(Interrupts, ErrorStat); 3] = [
    (Interrupts::RED, ErrorStat::QueueResponseError),
    (Interrupts::GCE, ErrorStat::QueueCryptoError),
    (Interrupts::ICCE, ErrorStat::QueueCryptoConfigError),
];

/// The interrupt handler's CQHCI part, with the lock held: consumes a CMDQ event of an
/// enabled engine, hands the errors the MSDC latched to the engine, and calls the
/// recovery notifier of the task in error (under the lock, so that the task cannot
/// complete and its request go meanwhile). `None` without an event.
pub fn task_event<K: SlotKernel + ?Sized>(
    kernel: &K,
    slot: &mut SlotView<'_, K>,
) -> Option<TaskOutcome> {
    let queue = slot.hardware_queue.as_deref_mut()?;
    if !queue.engine.is_enabled() {
        return None;
    }
    let event = slot.controller.command_queue_event(kernel.regs())?;
    let outcome = queue
        .engine
        .irq(kernel.regs(), event.cmd_error, event.data_error);
    for (interrupt, stat) in TASK_ERROR_STATS {
        if outcome.status.contains(interrupt) {
            kernel.count_error(stat);
        }
    }
    if let Some(tag) = outcome.notify_recovery {
        if let Some(task) = queue.tasks.get(tag.index()).and_then(Option::as_ref) {
            kernel.notify_recovery(&task.request);
        }
    }
    if outcome.error_while_idle {
        kernel.cqe_event(QueueEvent::ErrorWhileIdle);
    }
    if !outcome.spurious.is_empty() {
        kernel.cqe_event(QueueEvent::SpuriousCompletions(outcome.spurious.bits()));
    }
    Some(TaskOutcome {
        completed: outcome.completed,
        wake: outcome.wake,
    })
}

/// The interrupt handler's CQHCI part once the lock is released: the completed tasks'
/// requests to the core, then the waiters woken.
pub fn finish_event<K: SlotKernel + ?Sized>(kernel: &K, outcome: &TaskOutcome) {
    finish_tasks(kernel, &outcome.completed);
    if outcome.wake {
        kernel.wake_idle_waiters();
    }
}

/// Completes the tasks in `completed`, one lock round trip each: the request is taken out
/// under the lock and completed with it released. Until its completion returns, the core's
/// time-out finds it completing ([`timeout`]).
pub fn finish_tasks<K: SlotKernel + ?Sized>(kernel: &K, completed: &Completions) {
    let regs = kernel.regs();
    for completion in completed.iter() {
        let at = completion.tag.index();
        let taken = kernel.with_slot(|slot| {
            let queue = slot.hardware_queue?;
            let task = queue.tasks.get_mut(at).and_then(Option::take)?;
            let id = task.request.id();
            if let Some(place) = queue.completing.get_mut(at) {
                *place = Some(match *place {
                    Some(c) if c.id == id => Completing {
                        id,
                        count: c.count.saturating_add(1),
                    },
                    _ => Completing { id, count: 1 },
                });
            }
            let response = if task.direct {
                Io::<CqhciBlock>::read::<CQCRDCT>(regs).response()
            } else {
                0
            };
            Some((task.request, response))
        });
        let Some((request, response)) = taken else {
            kernel.cqe_event(QueueEvent::NoRequestForTag(ticket_tag(completion.tag)));
            continue;
        };
        let id = request.id();
        let (bytes, error) = task_ending(completion.status, request.data());
        kernel.complete_task(
            request,
            TaskEnd {
                status: completion.status,
                bytes,
                error,
                response,
            },
        );
        kernel.with_slot(|slot| {
            let Some(place) = slot
                .hardware_queue
                .and_then(|queue| queue.completing.get_mut(at))
            else {
                return;
            };
            *place = match *place {
                Some(c) if c.id == id && c.count > 1 => Some(Completing {
                    id,
                    count: c.count - 1,
                }),
                Some(c) if c.id == id => None,
                other => other,
            };
        });
    }
}

/// `cqe_timeout` for the request `id`: `Some(recovery_needed)` if its task is still
/// queued (now marked timed out) or its completion is under way (`Some(false)`: the core
/// waits for that completion); `None` if it is gone.
pub fn timeout<K: SlotKernel + ?Sized>(
    kernel: &K,
    id: &<K::Queued as QueuedSlotRequest>::Id,
) -> Option<bool> {
    let verdict = kernel.with_slot(|slot| {
        let queue = slot.hardware_queue?;
        let ticket = queue
            .tasks
            .iter()
            .flatten()
            .find(|task| task.request.id() == *id)
            .map(|task| task.ticket);
        match ticket {
            Some(ticket) => match queue.engine.timeout(ticket) {
                TimeoutVerdict::TimedOut { recovery_needed } => Some(Some(recovery_needed)),
                TimeoutVerdict::AlreadyCompleted => None,
            },
            None if queue.is_completing(id) => Some(None),
            None => None,
        }
    })?;
    match verdict {
        Some(recovery_needed) => {
            kernel.cqe_event(QueueEvent::TaskTimedOut);
            kernel.count_error(ErrorStat::QueueRequestTimeout);
            kernel.wake_idle_waiters();
            Some(recovery_needed)
        }
        None => Some(false),
    }
}

/// `cqe_recovery_start`: the engine halts and stops taking tasks (sleeping with the lock
/// released); the waiters for idle look again.
pub fn recovery_start<K: SlotKernel + ?Sized>(kernel: &K) {
    drive(kernel, Operation::RecoveryStart, |engine, regs, hooks| {
        engine.recovery_start(regs, hooks)
    });
    kernel.wake_idle_waiters();
}

/// `cqe_recovery_finish`: the engine clears every task (sleeping with the lock released)
/// and hands them back, completed here; the waiters for idle look again.
pub fn recovery_finish<K: SlotKernel + ?Sized>(kernel: &K) {
    if let Some(finished) = drive(kernel, Operation::RecoveryFinish, |engine, regs, _| {
        engine.recovery_finish(regs)
    }) {
        finish_tasks(kernel, &finished.completions);
    }
    kernel.wake_idle_waiters();
}
