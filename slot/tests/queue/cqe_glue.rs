// SPDX-License-Identifier: GPL-2.0

//! The CQHCI engine as the kernel glue drives it (`drivers/mmc/host/mtk_sd_rust/host/hardware_queue.rs`,
//! `drivers/mmc/host/mtk_sd_rust/host/cqe_ops.rs` and the interrupt handler of `drivers/mmc/host/mtk_sd_rust/host.rs`), on the bench,
//! with the MMC core's side around it: the block layer's tasks and their completion
//! (`mmc_blk_cqe_complete_rq`), the recovery notifier, `mmc_cqe_recovery`, and the core's
//! own commands, before which it halts the queue (`cqe_off`).
//!
//! Every engine call that may run a hook gets the controller's hooks
//! (`Controller::cqe_hooks`) and hands what they did back (`Controller::absorb_cqe`). The
//! interrupt handler passes the errors `Controller::command_queue_event` decoded to
//! `Cqhci::irq` and completes the tasks it returns; waits of multi-step operations let the
//! hardware run and its interrupts be handled, as the glue's sleeps with the lock released
//! do, except for `cqe_off`, which polls under the lock.

use cqhci::regs::{Tag, CQCAP, CQCRDCT, CQSSC1};
use cqhci::{
    CardInfo, CompletionStatus, Completions, Cqhci, DescriptorMemory, Finished,
    Segment as TaskSegment, Step, Wait,
};
use mmc_request::{ErrorKind, Request, Segment};
use models::msdc::CardSlot;
use msdc::cqe::{send_status_idle_timer, CqeEvent, CqeHooks, ENGINE_CONFIG, SEND_STATUS_IDLE_NS};
use registers::Io;
use slot::command_queue;

use crate::block::{Attempt, BlockLayer, Work};
use crate::board::{Board, CQ_AT, CQ_LEN};
use crate::common::flags::{AC, R1B, R1B_NO_CRC};
use crate::common::{command, data};
use crate::slot::{
    bring_up_emmc, ready_for_data, switch_arg, CardKind, CoreHost, NoQueue, Slot, CMD_RETRIES,
    EMMC_RCA,
};

/// The data slots, and the direct command's: the harness gives the flush the block-layer
/// tag 31, so that 31 data tasks and the flush can be in flight at once (the core's tag set
/// has 31 tags, which the flush shares with the data tasks).
const DATA_TAGS: std::ops::Range<u8> = 0..31;
const DCMD_TAGS: std::ops::Range<u8> = 31..32;
/// The MSDC bus clock the block's timer runs on (the glue reads it from `h_clk`).
const HCLK_HZ: u32 = 273_000_000;
/// EXT_CSD FLUSH_CACHE, which `mmc_blk_cqe_issue_flush` sets with SWITCH.
const EXT_CSD_FLUSH_CACHE: u32 = 32;
/// CMD48 CMDQ_TASK_MGMT: discard the whole queue.
const DISCARD_QUEUE: u32 = 1;
/// `MMC_CQE_RETRIES`: retries `mmc_blk_cqe_complete_rq` grants a failed task.
const CQE_RETRIES: u32 = 2;
/// Ticks after which the harness calls a run stuck.
const MAX_TICKS: usize = 100_000;

/// A task of the engine, from its doorbell to its completion.
struct Task {
    attempt: Attempt,
    /// A direct command: its response comes from `CQCRDCT`.
    direct: bool,
}

/// A departure from the core's contract, to show that the harness notices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mistake {
    /// A command outside the queue without `cqe_off` first.
    SkipOff,
}

/// The glue, the engines and the core of a slot with a CQHCI block.
pub(crate) struct CqeHarness<'b, C: CardSlot> {
    slot: Slot<'b, C, NoQueue>,
    engine: Cqhci,
    idle_timer: CQSSC1,
    tasks: [Option<Task>; Tag::COUNT],
    pub(crate) block: BlockLayer,
    /// The recovery notifier ran: the core's recovery work is scheduled.
    recovery_needed: bool,
    /// `mq->in_recovery`.
    in_recovery: bool,
    /// Every task completion the engine handed back, in order.
    pub(crate) statuses: Vec<(Attempt, CompletionStatus)>,
    /// Recoveries run.
    pub(crate) recoveries: u32,
    /// The most tasks the engine held at once.
    pub(crate) max_tasks: u32,
    pub(crate) mistake: Option<Mistake>,
}

impl<'b, C: CardSlot> CqeHarness<'b, C> {
    /// Probes the slot, brings the eMMC up with its command queue enabled, and enables the
    /// engine (`cqe_enable`).
    pub(crate) fn new(board: &'b Board<C>, block: BlockLayer) -> Self {
        let engine = Cqhci::new(ENGINE_CONFIG).expect("engine");
        let layout = engine.layout();
        assert!(layout.tdl_len() + layout.transfer_area_len() <= CQ_LEN);
        let cap = Io::<cqhci::CqhciBlock>::read::<CQCAP>(board);
        let mut harness = Self {
            slot: Slot::new(board, NoQueue, false),
            engine,
            idle_timer: send_status_idle_timer(HCLK_HZ, cap, SEND_STATUS_IDLE_NS),
            tasks: [const { None }; Tag::COUNT],
            block,
            recovery_needed: false,
            in_recovery: false,
            statuses: Vec::new(),
            recoveries: 0,
            max_tasks: 0,
            mistake: None,
        };
        bring_up_emmc(&mut harness, true);
        harness.slot.attach(CardKind::Emmc);
        harness.enable();
        harness
    }

    /// `cqe_enable`.
    fn enable(&mut self) {
        let board = self.slot.board;
        let card = CardInfo {
            command_queue_enabled: true,
            rca: EMMC_RCA as u16,
        };
        self.with_memory(|engine, hooks, mem| engine.enable(board, hooks, card, mem))
            .expect("cqe_enable");
        assert_eq!(self.engine.queue_depth(), 31);
    }

    /// `Msdc::with_engine`: one engine call with the controller's hooks, whose aftermath
    /// the controller absorbs.
    fn with_engine<T>(&mut self, f: impl FnOnce(&mut Cqhci, &CqeHooks<'_, Board<C>>) -> T) -> T {
        let board = self.slot.board;
        let mut controller = self.slot.controller();
        let hooks = controller.cqe_hooks(board, self.idle_timer);
        let answer = f(&mut self.engine, &hooks);
        let aftermath = hooks.finish();
        assert_eq!(aftermath.fault, None, "a hook's poll timed out");
        controller.absorb_cqe(aftermath);
        answer
    }

    /// [`CqeHarness::with_engine`] with the engine's descriptor memory lent
    /// (`HardwareQueue::engine_and_memory`): the task descriptor list, then the transfer
    /// descriptors.
    fn with_memory<T>(
        &mut self,
        f: impl FnOnce(&mut Cqhci, &CqeHooks<'_, Board<C>>, &mut DescriptorMemory<'_>) -> T,
    ) -> T {
        let board = self.slot.board;
        let tdl_len = self.engine.layout().tdl_len();
        self.with_engine(|engine, hooks| {
            let mut ram = board.ram();
            let (tdl, transfers) = ram[CQ_AT..CQ_AT + CQ_LEN].split_at_mut(tdl_len);
            let mut mem = DescriptorMemory {
                tdl,
                tdl_bus: board.bus(CQ_AT),
                transfers,
                transfers_bus: board.bus(CQ_AT + tdl_len),
            };
            f(engine, hooks, &mut mem)
        })
    }

    /// `Msdc::drive_engine`: an operation to its end, sleeping between register checks.
    fn drive(
        &mut self,
        first: impl FnOnce(&mut Cqhci, &Board<C>, &CqeHooks<'_, Board<C>>) -> Step,
    ) -> Finished {
        let board = self.slot.board;
        let mut step = self.with_engine(|engine, hooks| first(engine, board, hooks));
        for _ in 0..8 {
            match step {
                Step::Done(finished) => {
                    assert!(finished.warnings.is_empty(), "{:?}", finished.warnings);
                    return finished;
                }
                Step::Wait(wait) => {
                    self.sleep_until(wait);
                    step = self.with_engine(|engine, hooks| engine.resume(board, hooks));
                }
            }
        }
        panic!("the engine did not finish");
    }

    /// `Msdc::sleep_until`, one hardware step per microsecond; the interrupt handler may
    /// run meanwhile.
    fn sleep_until(&mut self, wait: Wait) {
        let board = self.slot.board;
        for _ in 0..wait.timeout_us {
            if wait.condition.is_met(board) {
                return;
            }
            board.advance(1);
            self.interrupt();
        }
    }

    /// `cqe_off`: the halt polled under the lock.
    fn cqe_off(&mut self) {
        let board = self.slot.board;
        let finished = self.with_engine(|engine, hooks| {
            let first = engine.off(board, hooks);
            engine.drive(board, hooks, first, |wait| {
                wait.poll(board, 1);
            })
        });
        assert!(finished.warnings.is_empty(), "{:?}", finished.warnings);
        assert!(!self.engine.is_on());
    }

    /// `cqe_wait_for_idle`, as the core calls it before a command of its own.
    pub(crate) fn wait_for_idle(&mut self) {
        for _ in 0..MAX_TICKS {
            match self.engine.idle_state() {
                cqhci::IdleState::Idle => return,
                cqhci::IdleState::RecoveryNeeded => panic!("recovery while waiting for idle"),
                cqhci::IdleState::Busy => self.tick(),
            }
        }
        panic!("the queue never went idle");
    }

    /// Runs until every job of the block layer has ended.
    pub(crate) fn run(&mut self) {
        for _ in 0..MAX_TICKS {
            self.submit();
            if self.recovery_needed {
                self.recovery_work();
                continue;
            }
            if self.block.all_ended() {
                return;
            }
            self.tick();
        }
        panic!("the queue stalled");
    }

    /// The block layer issues what `mmc_mq_queue_rq` lets through: nothing while recovery
    /// is needed, data tasks while a data slot is free, the flush in the direct command's.
    pub(crate) fn submit(&mut self) {
        while !self.recovery_needed {
            let Some(job) = self.block.next() else {
                return;
            };
            let tags = match self.block.work(job) {
                Work::Flush => DCMD_TAGS,
                Work::Data { .. } => DATA_TAGS,
            };
            let Some(tag) = self.block.free_tag(tags) else {
                return;
            };
            let attempt = self.block.start(self.slot.board, tag);
            if let Err(e) = self.cqe_request(attempt) {
                panic!("cqe_request refused job {}: {e:?}", attempt.job);
            }
            self.max_tasks = self.max_tasks.max(self.engine.in_flight().count());
        }
    }

    /// `cqe_request` (`Msdc::queue_task`): a data task or the flush's direct command.
    fn cqe_request(&mut self, attempt: Attempt) -> Result<(), cqhci::Error> {
        let board = self.slot.board;
        let work = self.block.work(attempt.job);
        let issued = match work {
            Work::Data {
                direction,
                lba,
                blocks,
            } => {
                let task = command_queue::data_task(&data(direction, 512, blocks), lba, 0);
                let tag = Tag::new(u32::from(attempt.tag)).expect("tag");
                let mapped = board.segments(attempt.tag, work.bytes());
                self.with_memory(|engine, hooks, mem| {
                    let segments = mapped.iter().map(|s| TaskSegment {
                        address: s.bus_address,
                        length: s.len,
                    });
                    engine.issue_data(board, hooks, mem, tag, &task, segments)
                })
            }
            Work::Flush => {
                // `mmc_blk_cqe_issue_flush`: SWITCH, R1B.
                let flush = command(6, switch_arg(EXT_CSD_FLUSH_CACHE, 1), R1B | AC);
                let flush = command_queue::direct_command(&flush)?;
                self.with_memory(|engine, hooks, mem| engine.issue_dcmd(board, hooks, mem, &flush))
            }
        }?;
        let slot = &mut self.tasks[issued.tag.index()];
        assert!(slot.is_none(), "slot {} issued twice", issued.tag.number());
        *slot = Some(Task {
            attempt,
            direct: work == Work::Flush,
        });
        Ok(())
    }

    /// `Msdc::task_interrupt`: the host's errors to the engine, the recovery notifier of
    /// the task in error.
    fn task_interrupt(&mut self, event: CqeEvent) -> Completions {
        let outcome = self
            .engine
            .irq(self.slot.board, event.cmd_error, event.data_error);
        if let Some(tag) = outcome.notify_recovery {
            if self.tasks[tag.index()].is_some() {
                // `mmc_cqe_recovery_notifier`: schedules the recovery work once.
                self.recovery_needed = true;
            }
        }
        assert!(
            !outcome.error_while_idle,
            "an error while no task was queued"
        );
        assert!(outcome.spurious.is_empty(), "completions for empty slots");
        outcome.completed
    }

    /// `Msdc::finish_tasks`: each completed task's request back to the core.
    fn finish_tasks(&mut self, completed: &Completions) {
        let board = self.slot.board;
        for completion in completed.iter() {
            let task = self.tasks[completion.tag.index()]
                .take()
                .unwrap_or_else(|| panic!("slot {} completed twice", completion.tag.number()));
            let response = if task.direct {
                Io::<cqhci::CqhciBlock>::read::<CQCRDCT>(board).response()
            } else {
                0
            };
            let task_data = match self.block.work(task.attempt.job) {
                Work::Data {
                    direction, blocks, ..
                } => Some(data(direction, 512, blocks)),
                Work::Flush => None,
            };
            let (bytes, error) = command_queue::task_ending(completion.status, task_data);
            self.statuses.push((task.attempt, completion.status));
            self.complete_task(task.attempt, bytes, error, response);
        }
    }

    /// `mmc_blk_cqe_complete_rq`: an error is retried `MMC_CQE_RETRIES` times; data not
    /// all transferred is requeued, and so is a direct command completed in recovery.
    fn complete_task(
        &mut self,
        attempt: Attempt,
        bytes: u32,
        error: Option<ErrorKind>,
        response: u32,
    ) {
        self.block.host_completed(&attempt, error);
        let work = self.block.work(attempt.job);
        match (error, work) {
            (Some(e), _) => self.block.retry_or_fail(&attempt, e),
            (None, Work::Data { .. }) if bytes == work.bytes() => {
                self.block.end_ok(self.slot.board, &attempt);
            }
            (None, Work::Data { .. }) => self.block.requeue(&attempt),
            (None, Work::Flush) if self.in_recovery => self.block.requeue(&attempt),
            (None, Work::Flush) => {
                assert!(ready_for_data(response), "flush status {response:#x}");
                self.block.end_ok(self.slot.board, &attempt);
            }
        }
    }

    /// The core's recovery work (`mmc_blk_cqe_recovery`, `mmc_cqe_recovery`): recovery
    /// start, CMD12, the busy poll, CMD48, recovery finish.
    fn recovery_work(&mut self) {
        self.in_recovery = true;
        self.recoveries += 1;
        self.drive(|engine, board, hooks| engine.recovery_start(board, hooks));
        assert!(!self.engine.is_on());
        // The card may have no transfer to stop: the stop's error does not matter.
        self.wait_for_cmd(12, 0, R1B_NO_CRC | AC, CMD_RETRIES);
        self.poll_for_busy(EMMC_RCA);
        let discard = self.wait_for_cmd(48, DISCARD_QUEUE, R1B_NO_CRC | AC, CMD_RETRIES);
        let finished = self.drive(|engine, board, _| engine.recovery_finish(board));
        assert!(!self.engine.recovery_pending());
        assert!(
            self.engine.in_flight().is_empty(),
            "tasks left after recovery"
        );
        self.finish_tasks(&finished.completions);
        assert!(
            self.tasks.iter().all(Option::is_none),
            "tasks never completed"
        );
        if discard.error.is_some() {
            self.wait_for_cmd(48, DISCARD_QUEUE, R1B_NO_CRC | AC, CMD_RETRIES);
        }
        self.in_recovery = false;
        self.recovery_needed = false;
    }

    /// The status of every completion of job `job`, in order.
    pub(crate) fn statuses_of(&self, job: usize) -> Vec<CompletionStatus> {
        self.statuses
            .iter()
            .filter(|(attempt, _)| attempt.job == job)
            .map(|&(_, status)| status)
            .collect()
    }

    /// The core's `host->cqe_on`.
    pub(crate) fn is_on(&self) -> bool {
        self.engine.is_on()
    }

    /// Asserts the engine's state at the end: enabled, idle, holding nothing.
    pub(crate) fn assert_idle(&self) {
        assert!(self.engine.is_enabled());
        assert_eq!(self.engine.idle_state(), cqhci::IdleState::Idle);
        assert!(self.engine.in_flight().is_empty());
        assert!(self.tasks.iter().all(Option::is_none));
        self.slot.assert_idle();
    }
}

impl<'b, C: CardSlot> CoreHost<'b> for CqeHarness<'b, C> {
    type Card = C;
    type Side = NoQueue;

    fn slot(&self) -> &Slot<'b, C, NoQueue> {
        &self.slot
    }

    /// `mmc_start_request`: the queue is halted first if it is on (`cqe_off`).
    fn start_core(&mut self, request: &Request, segments: &[Segment]) -> u32 {
        if self.engine.is_on() && self.mistake != Some(Mistake::SkipOff) {
            self.cqe_off();
        }
        self.slot.start_core(request, segments)
    }

    /// The interrupt handler (`Msdc::handle_interrupt`); false if the line is low.
    fn interrupt(&mut self) -> bool {
        if !self.slot.interrupt_entry() {
            return false;
        }
        let board = self.slot.board;
        let event = if self.engine.is_enabled() {
            self.slot.controller().command_queue_event(board)
        } else {
            None
        };
        let tasks = event.map(|event| self.task_interrupt(event));
        let done = self.slot.request_interrupt();
        if let Some(completed) = tasks {
            self.finish_tasks(&completed);
        }
        if let Some((in_flight, result)) = done {
            slot::finish(&self.slot, in_flight, &result);
        }
        true
    }
}

/// The block layer of a command queue: `MMC_CQE_RETRIES` for failed tasks.
pub(crate) fn block_layer(storage: &[u8]) -> BlockLayer {
    BlockLayer::new(storage, CQE_RETRIES)
}
