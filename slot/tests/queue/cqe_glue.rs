// SPDX-License-Identifier: GPL-2.0

//! The CQHCI engine on the bench, run by the slot logic the kernel runs
//! (`slot::command_queue`: the task issue with the MSDC's hooks, the CMDQ interrupt, the
//! completed tasks, `cqe_off`, recovery), with the MMC core's side around it: the block
//! layer's tasks and their completion (`mmc_blk_cqe_complete_rq`), the recovery notifier,
//! `mmc_cqe_recovery`, and the core's own commands, before which it halts the queue
//! (`cqe_off`) when the slot logic says the queue is on.
//!
//! The waits of the multi-step operations let the hardware run and its interrupts be
//! handled ([`Slot::handle_interrupt`]), as the kernel's sleeps with the lock released do.

use std::cell::{Cell, Ref, RefCell, RefMut};

use cqhci::regs::CQCAP;
use cqhci::{CardInfo, CompletionStatus, Cqhci};
use mmc_request::{Request, RequestResult, Segment};
use models::msdc::CardSlot;
use msdc::cqe::{send_status_idle_timer, ENGINE_CONFIG, SEND_STATUS_IDLE_NS};
use registers::Io;
use slot::command_queue::{self, TaskEnd};

use crate::block::{Attempt, BlockLayer, Work};
use crate::board::{Board, CQ_LEN};
use crate::common::flags::{AC, R1B, R1B_NO_CRC};
use crate::common::{block_request, command, request};
use crate::slot::{
    bring_up_emmc, ready_for_data, switch_arg, CardKind, CoreHost, Issue, QueueSide, Slot,
    CMD_RETRIES, EMMC_RCA,
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

/// A departure from the core's contract, to show that the harness notices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mistake {
    /// A command outside the queue without `cqe_off` first.
    SkipOff,
}

/// The MMC core and block layer of a slot with a CQHCI engine: what the slot logic calls
/// back into.
pub(crate) struct CqeCore {
    block: RefCell<BlockLayer>,
    /// The recovery notifier ran: the core's recovery work is scheduled.
    recovery_needed: Cell<bool>,
    /// `mq->in_recovery`.
    in_recovery: Cell<bool>,
    /// Every task completion the slot logic handed back, in order.
    statuses: RefCell<Vec<(Attempt, CompletionStatus)>>,
    /// A job whose completion asks `cqe_timeout` about its own request, while it runs.
    timeout_in_completion: Cell<Option<usize>>,
    /// What those `cqe_timeout`s answered, with the attempt they asked about.
    timeout_answers: RefCell<Vec<(Attempt, Option<bool>)>>,
}

impl<'b, C: CardSlot> QueueSide<'b, Board<C>> for CqeCore {
    type Queued = Issue;

    fn dispatching(&self, _slot: &Slot<'b, Board<C>, Self>, tag: u8, _depth: u8) {
        panic!("a slot without a software queue dispatched tag {tag}");
    }

    fn complete_queued(&self, _slot: &Slot<'b, Board<C>, Self>, issue: Issue, _: &RequestResult) {
        panic!(
            "job {}: a task completed as a software queue's",
            issue.id.job
        );
    }

    /// `mmc_cqe_recovery_notifier`: schedules the recovery work once.
    fn notify_recovery(&self, _request: &Issue) {
        self.recovery_needed.set(true);
    }

    /// `mmc_blk_cqe_complete_rq`: an error is retried `MMC_CQE_RETRIES` times; data not
    /// all transferred is requeued, and so is a direct command completed in recovery.
    fn complete_task(&self, slot: &Slot<'b, Board<C>, Self>, issue: Issue, end: TaskEnd) {
        let attempt = issue.id;
        if self.timeout_in_completion.get() == Some(attempt.job) {
            // The block layer's time-out running on another CPU meanwhile.
            let during = command_queue::timeout(slot, &attempt);
            self.timeout_answers.borrow_mut().push((attempt, during));
        }
        self.statuses.borrow_mut().push((attempt, end.status));
        let mut block = self.block.borrow_mut();
        block.host_completed(&attempt, end.error);
        let work = block.work(attempt.job);
        match (end.error, work) {
            (Some(e), _) => block.retry_or_fail(&attempt, e),
            (None, Work::Data { .. }) if end.bytes == work.bytes() => {
                block.end_ok(slot.board, &attempt);
            }
            (None, Work::Data { .. }) => block.requeue(&attempt),
            (None, Work::Flush) if self.in_recovery.get() => block.requeue(&attempt),
            (None, Work::Flush) => {
                assert!(
                    ready_for_data(end.response),
                    "flush status {:#x}",
                    end.response
                );
                block.end_ok(slot.board, &attempt);
            }
        }
    }
}

/// The slot logic, the engines and the core of a slot with a CQHCI block.
pub(crate) struct CqeHarness<'b, C: CardSlot> {
    slot: Slot<'b, Board<C>, CqeCore>,
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
        let core = CqeCore {
            block: RefCell::new(block),
            recovery_needed: Cell::new(false),
            in_recovery: Cell::new(false),
            statuses: RefCell::new(Vec::new()),
            timeout_in_completion: Cell::new(None),
            timeout_answers: RefCell::new(Vec::new()),
        };
        let mut harness = Self {
            slot: Slot::new(board, core, false),
            recoveries: 0,
            max_tasks: 0,
            mistake: None,
        };
        harness.slot.install_hardware_queue(
            engine,
            send_status_idle_timer(HCLK_HZ, cap, SEND_STATUS_IDLE_NS),
        );
        bring_up_emmc(&mut harness, true);
        harness.slot.attach(CardKind::Emmc);
        let card = CardInfo {
            command_queue_enabled: true,
            rca: EMMC_RCA as u16,
        };
        let depth = command_queue::enable(&harness.slot, card).expect("a CQHCI engine");
        assert_eq!(depth, Ok(31), "cqe_enable");
        harness
    }

    fn core(&self) -> &CqeCore {
        &self.slot.side
    }

    /// The block layer.
    pub(crate) fn block(&self) -> RefMut<'_, BlockLayer> {
        self.core().block.borrow_mut()
    }

    /// Every task completion the slot logic handed back, in order.
    pub(crate) fn statuses(&self) -> Ref<'_, Vec<(Attempt, CompletionStatus)>> {
        self.core().statuses.borrow()
    }

    /// Makes the completion of job `job` ask `cqe_timeout` about its own request while it
    /// runs.
    pub(crate) fn time_out_in_completion(&self, job: usize) {
        self.core().timeout_in_completion.set(Some(job));
    }

    /// What the `cqe_timeout`s of [`CqeHarness::time_out_in_completion`] answered.
    pub(crate) fn timeout_answers(&self) -> Vec<(Attempt, Option<bool>)> {
        self.core().timeout_answers.borrow().clone()
    }

    /// The core's `cqe_timeout` for `attempt`'s request.
    pub(crate) fn cqe_timeout(&self, attempt: &Attempt) -> Option<bool> {
        command_queue::timeout(&self.slot, attempt)
    }

    /// The attempt of job `job` whose task the engine holds, if any.
    pub(crate) fn queued_attempt(&self, job: usize) -> Option<Attempt> {
        let queue = self.slot.hardware_queue();
        let attempt = queue
            .tasks
            .iter()
            .flatten()
            .map(|task| task.request.id)
            .find(|attempt| attempt.job == job);
        attempt
    }

    /// `mmc_cqe_recovery_notifier`, as `mmc_cqe_timed_out` calls it for a time-out that
    /// needs recovery.
    pub(crate) fn notify_recovery(&self) {
        self.core().recovery_needed.set(true);
    }

    /// `cqe_wait_for_idle`, as the core calls it before a command of its own.
    pub(crate) fn wait_for_idle(&mut self) {
        for _ in 0..MAX_TICKS {
            let state = self.slot.hardware_queue().engine.idle_state();
            match state {
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
            if self.core().recovery_needed.get() {
                self.recovery_work();
                continue;
            }
            if self.block().all_ended() {
                return;
            }
            self.tick();
        }
        panic!("the queue stalled");
    }

    /// The block layer issues what `mmc_mq_queue_rq` lets through: nothing while recovery
    /// is needed, data tasks while a data slot is free, the flush in the direct command's.
    pub(crate) fn submit(&mut self) {
        while !self.core().recovery_needed.get() {
            let issue = {
                let mut block = self.block();
                let Some(job) = block.next() else {
                    return;
                };
                let tags = match block.work(job) {
                    Work::Flush => DCMD_TAGS,
                    Work::Data { .. } => DATA_TAGS,
                };
                let Some(tag) = block.free_tag(tags) else {
                    return;
                };
                let attempt = block.start(self.slot.board, tag);
                self.issue(&block, attempt)
            };
            let job = issue.id.job;
            if let Err(refused) = command_queue::issue(&self.slot, issue) {
                panic!("cqe_request refused job {job}: {:?}", refused.error);
            }
            let held = self.slot.hardware_queue().engine.in_flight().count();
            self.max_tasks = self.max_tasks.max(held);
        }
    }

    /// The `mmc_request` of `attempt`: a data task with its buffer in one or two segments,
    /// or the flush (`mmc_blk_cqe_issue_flush`: SWITCH, R1B).
    fn issue(&self, block: &BlockLayer, attempt: Attempt) -> Issue {
        let work = block.work(attempt.job);
        let (request, segments): (Request, Vec<Segment>) = match work {
            Work::Data {
                direction,
                lba,
                blocks,
            } => (
                block_request(direction, lba, blocks, true),
                self.slot.board.segments(attempt.tag, work.bytes()),
            ),
            Work::Flush => (
                request(command(6, switch_arg(EXT_CSD_FLUSH_CACHE, 1), R1B | AC)),
                Vec::new(),
            ),
        };
        Issue {
            id: attempt,
            request,
            segments,
            for_mmc_card: true,
        }
    }

    /// The core's recovery work (`mmc_blk_cqe_recovery`, `mmc_cqe_recovery`): recovery
    /// start, CMD12, the busy poll, CMD48, recovery finish.
    fn recovery_work(&mut self) {
        self.core().in_recovery.set(true);
        self.recoveries += 1;
        command_queue::recovery_start(&self.slot);
        assert!(!self.slot.hardware_queue().engine.is_on());
        assert!(!self.slot.cqe_on(), "cqe_on published after recovery start");
        // The card may have no transfer to stop: the stop's error does not matter.
        self.wait_for_cmd(12, 0, R1B_NO_CRC | AC, CMD_RETRIES);
        self.poll_for_busy(EMMC_RCA);
        let discard = self.wait_for_cmd(48, DISCARD_QUEUE, R1B_NO_CRC | AC, CMD_RETRIES);
        command_queue::recovery_finish(&self.slot);
        {
            let queue = self.slot.hardware_queue();
            assert!(!queue.engine.recovery_pending());
            assert!(
                queue.engine.in_flight().is_empty(),
                "tasks left after recovery"
            );
            assert!(
                queue.tasks.iter().all(Option::is_none),
                "tasks never completed"
            );
        }
        if discard.error.is_some() {
            self.wait_for_cmd(48, DISCARD_QUEUE, R1B_NO_CRC | AC, CMD_RETRIES);
        }
        self.core().in_recovery.set(false);
        self.core().recovery_needed.set(false);
    }

    /// The status of every completion of job `job`, in order.
    pub(crate) fn statuses_of(&self, job: usize) -> Vec<CompletionStatus> {
        self.statuses()
            .iter()
            .filter(|(attempt, _)| attempt.job == job)
            .map(|&(_, status)| status)
            .collect()
    }

    /// The core's `host->cqe_on`, as the slot logic published it.
    pub(crate) fn is_on(&self) -> bool {
        self.slot.cqe_on()
    }

    /// Asserts the engine's state at the end: enabled, idle, holding nothing, and the core
    /// told it is off exactly when the engine is.
    pub(crate) fn assert_idle(&self) {
        {
            let queue = self.slot.hardware_queue();
            assert!(queue.engine.is_enabled());
            assert_eq!(queue.engine.idle_state(), cqhci::IdleState::Idle);
            assert!(queue.engine.in_flight().is_empty());
            assert!(queue.tasks.iter().all(Option::is_none));
            assert!(queue.completing.iter().all(Option::is_none));
            assert_eq!(queue.engine.is_on(), self.slot.cqe_on());
        }
        self.slot.assert_idle();
    }
}

impl<'b, C: CardSlot> CoreHost<'b> for CqeHarness<'b, C> {
    type Card = C;
    type Side = CqeCore;

    fn slot(&self) -> &Slot<'b, Board<C>, CqeCore> {
        &self.slot
    }

    /// `mmc_start_request`: the queue is halted first if it is on (`cqe_off`).
    fn start_core(&mut self, request: &Request, segments: &[Segment]) -> u32 {
        if self.slot.cqe_on() && self.mistake != Some(Mistake::SkipOff) {
            command_queue::off(&self.slot);
            assert!(!self.slot.cqe_on(), "cqe_off left the queue on");
        }
        self.slot.start_core(request, segments)
    }

    /// The interrupt handler (`slot::interrupt`); false if the line is low.
    fn interrupt(&mut self) -> bool {
        self.slot.handle_interrupt()
    }
}

/// The block layer of a command queue: `MMC_CQE_RETRIES` for failed tasks.
pub(crate) fn block_layer(storage: &[u8]) -> BlockLayer {
    BlockLayer::new(storage, CQE_RETRIES)
}
