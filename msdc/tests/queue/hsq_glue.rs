// SPDX-License-Identifier: GPL-2.0

//! The host software queue as the kernel glue drives it (`drivers/mmc/host/mtk_sd_rust/host/software_queue.rs`
//! and the request paths of `drivers/mmc/host/mtk_sd_rust/host.rs`), on the bench, with the MMC core's side
//! around it: the block layer's `cqe_request`s, `mmc_blk_hsq_req_done` and the core's
//! recovery work.
//!
//! The engine calls come in the glue's order: `request`; each dispatch publishes its depth,
//! then goes to the controller (`write_chain`, `start`) or, with the controller busy with
//! a request of the core's, to `host_busy`, retried when that request completes; a start
//! refused because the bus stayed busy past the controller's wait is `host_failed` and
//! completes with the time-out, as the glue does today; the
//! interrupt handler's `Progress::Done` is `finalize_request`, the core's completion, then
//! `request_done`, whose actions dispatch the next request. A failed request makes the
//! core call `recovery_start` from its completion; its recovery work then checks the card
//! with legacy commands and calls `recovery_finish`.
//!
//! The harness watches what the glue must guarantee: no dispatch from the completion of a
//! failed request to `recovery_finish`, the depth each dispatch publishes, and (with the
//! block layer's ledger) that every request is completed once.

use hsq::{Actions, DataDirection, Hsq, HsqError, RequestShape, NORMAL_DEPTH, PERFORMANCE_DEPTH};
use mmc_request::{Direction, ErrorKind, Request, RequestResult, Segment};
use models::msdc::{CardSlot, Fault};
use msdc::controller::{Progress, StartError};

use crate::block::{Attempt, BlockLayer, Work};
use crate::board::Board;
use crate::common::block_request;
use crate::common::flags::{AC, R1};
use crate::slot::{ready_for_data, CardKind, CoreHost, Owner, Slot};

/// The block-layer tags of the software queue.
const TAGS: std::ops::Range<u8> = 0..hsq::SLOT_COUNT as u8;
/// Ticks after which the harness calls a run stuck.
const MAX_TICKS: usize = 100_000;
/// `MMC_MAX_RETRIES`: retries `mmc_blk_mq_complete_rq` grants a failed request.
const MAX_RETRIES: u32 = 5;
/// `CMD_ERRORS` of the block driver: card status bits that fail a request.
const CMD_ERRORS: u32 =
    (1 << 31) | (1 << 30) | (1 << 29) | (1 << 26) | (1 << 21) | (1 << 20) | (1 << 19);

/// A request the software queue holds under its tag: an `mmc_request` of the block layer.
pub(crate) struct Issue {
    attempt: Attempt,
    request: Request,
    segments: Vec<Segment>,
    /// What the depth policy is told.
    shape: RequestShape,
    /// What the depth policy counts, as the harness sees it.
    four_kib_write: bool,
}

/// What happened, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// The queue accepted the request.
    Accepted(Attempt),
    /// The request went to the controller, with the depth its dispatch published.
    Dispatched(Attempt, u8),
    /// The controller was busy with a request of the core's: the dispatch waits.
    HostBusy(Attempt),
    /// The core saw the completion.
    Completed(Attempt, Option<ErrorKind>),
    /// The core's `cqe_recovery_start`.
    RecoveryStart,
    /// The core's `cqe_recovery_finish`.
    RecoveryFinish,
}

/// A departure from the glue's order, to show that the harness notices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mistake {
    /// `request_done` before the core sees the completion, so the next dispatch can come
    /// before `recovery_start`.
    ReleaseBeforeCompletion,
}

/// The glue, the engines and the core of a slot with a host software queue.
pub(crate) struct HsqHarness<'b, C: CardSlot> {
    slot: Slot<'b, C, Issue>,
    hsq: Hsq<u8>,
    /// Requests accepted and not dispatched yet, by tag.
    waiting: [Option<Issue>; hsq::SLOT_COUNT],
    pub(crate) block: BlockLayer,
    kind: CardKind,
    rca: u32,
    /// `mmc_host::hsq_depth`, as the last dispatch published it.
    depth: u8,
    /// The depth of a dispatch the controller deferred, which its re-dispatch keeps.
    deferred_depth: Option<u8>,
    /// The core's recovery work is scheduled for this failed request.
    recovery: Option<(Attempt, RequestResult)>,
    /// From the completion of a failed request to `recovery_finish`.
    recovering: bool,
    /// Faults injected into the controller model when a job is first dispatched.
    faults: Vec<(usize, Fault)>,
    pub(crate) log: Vec<Event>,
    pub(crate) mistake: Option<Mistake>,
}

impl<'b, C: CardSlot> HsqHarness<'b, C> {
    /// Probes the slot, brings its `kind` of card up and enables the queue (`cqe_enable`).
    pub(crate) fn new(board: &'b Board<C>, kind: CardKind, block: BlockLayer) -> Self {
        let mut harness = Self {
            slot: Slot::new(board),
            hsq: Hsq::new(),
            waiting: [const { None }; hsq::SLOT_COUNT],
            block,
            kind,
            rca: 0,
            depth: 0,
            deferred_depth: None,
            recovery: None,
            recovering: false,
            faults: Vec::new(),
            log: Vec::new(),
            mistake: None,
        };
        harness.rca = match kind {
            CardKind::Emmc => {
                crate::slot::bring_up_emmc(&mut harness, false);
                crate::slot::EMMC_RCA
            }
            CardKind::Sd => crate::slot::bring_up_sd(&mut harness),
        };
        // Auto-CMD23 for eMMC only, as upstream.
        harness.slot.ctrl.set_auto_cmd23(kind == CardKind::Emmc);
        harness.hsq.enable().expect("cqe_enable");
        harness.depth = harness.hsq.depth();
        harness
    }

    /// Injects `fault` into the controller when job `job` is first dispatched.
    pub(crate) fn fault(&mut self, job: usize, fault: Fault) {
        self.faults.push((job, fault));
    }

    /// Runs until every job of the block layer has ended.
    pub(crate) fn run(&mut self) {
        for _ in 0..MAX_TICKS {
            self.submit();
            if self.recovery.is_some() {
                self.recovery_work();
                continue;
            }
            if self.block.all_ended() && self.slot.ctrl.is_idle() {
                return;
            }
            self.tick();
        }
        panic!("the queue stalled: {:?}", self.log.last());
    }

    /// The block layer issues what `mmc_mq_queue_rq` lets through: nothing while recovery
    /// is needed, and no more than `hsq_depth + 1` requests in flight.
    pub(crate) fn submit(&mut self) {
        while self.recovery.is_none() && self.block.in_flight() <= usize::from(self.depth) {
            if self.block.next().is_none() {
                return;
            }
            let Some(tag) = self.block.free_tag(TAGS) else {
                return;
            };
            let attempt = self.block.start(self.slot.board, tag);
            let issue = self.issue(attempt);
            if let Err(e) = self.cqe_request(issue) {
                panic!("cqe_request refused job {}: {e:?}", attempt.job);
            }
        }
    }

    /// The `mmc_request` of `attempt`, with its buffer in one or two segments.
    fn issue(&self, attempt: Attempt) -> Issue {
        let work = self.block.work(attempt.job);
        let Work::Data {
            direction,
            lba,
            blocks,
        } = work
        else {
            panic!("the software queue runs data requests");
        };
        let queued = match direction {
            Direction::Read => DataDirection::Read,
            Direction::Write => DataDirection::Write,
        };
        Issue {
            attempt,
            request: block_request(direction, lba, blocks, self.kind == CardKind::Emmc),
            segments: self.slot.board.segments(attempt.tag, work.bytes()),
            shape: RequestShape::with_data(queued, 512, blocks),
            four_kib_write: work.is_four_kib_write(),
        }
    }

    /// `cqe_request` (`Msdc::queue_software`); a refused request goes back to the block
    /// layer, here a test failure.
    fn cqe_request(&mut self, issue: Issue) -> Result<(), HsqError> {
        let tag = issue.attempt.tag;
        if self.waiting[usize::from(tag)].is_some() {
            return Err(HsqError::TagInUse);
        }
        let actions = self.hsq.request(i32::from(tag), tag, issue.shape)?;
        self.log.push(Event::Accepted(issue.attempt));
        self.waiting[usize::from(tag)] = Some(issue);
        self.run_queue(actions);
        Ok(())
    }

    /// `Msdc::run_software_queue`: publishes each dispatch's depth and issues it, or
    /// defers it while the controller runs a request of the core's.
    fn run_queue(&mut self, actions: Actions<u8>) {
        // Nobody sleeps in `cqe_wait_for_idle` here: the wake-up has no one to wake.
        let Some(dispatch) = actions.dispatch else {
            return;
        };
        let tag = dispatch.request();
        let expected = self.deferred_depth.take().unwrap_or_else(|| {
            // The policy, counted independently: two 4 KiB writes held by the queue.
            let writes = self
                .waiting
                .iter()
                .flatten()
                .filter(|i| i.four_kib_write)
                .count();
            if writes >= 2 {
                PERFORMANCE_DEPTH
            } else {
                NORMAL_DEPTH
            }
        });
        let attempt = self.waiting[usize::from(tag)]
            .as_ref()
            .map(|issue| issue.attempt)
            .unwrap_or_else(|| panic!("the queue dispatched tag {tag}, which holds nothing"));
        assert!(
            !self.recovering,
            "job {} was dispatched during recovery",
            attempt.job
        );
        assert_eq!(
            dispatch.depth(),
            expected,
            "depth published for job {}",
            attempt.job
        );
        self.depth = dispatch.depth();
        if !self.slot.ctrl.is_idle() {
            self.deferred_depth = Some(dispatch.depth());
            self.log.push(Event::HostBusy(attempt));
            self.hsq.host_busy(dispatch).expect("host_busy");
            return;
        }
        let Some(issue) = self.waiting[usize::from(tag)].take() else {
            unreachable!();
        };
        if issue.attempt.number == 1 {
            if let Some(&(_, fault)) = self.faults.iter().find(|(job, _)| *job == attempt.job) {
                self.slot.board.model().inject(fault);
            }
        }
        let (request, segments) = (issue.request, issue.segments.clone());
        match self.slot.launch(&request, &segments, Owner::Queue(issue)) {
            Ok(()) => {
                dispatch.accepted();
                self.log.push(Event::Dispatched(attempt, self.depth));
            }
            // The bus stayed busy past the controller's wait (a card programming a write
            // longer than that): the glue's `host_failed`, the request completed with the
            // time-out (`start_failed`), from which the core starts its recovery, then
            // `request_done`.
            Err((Owner::Queue(issue), StartError::BusBusy)) => {
                self.log.push(Event::Dispatched(attempt, self.depth));
                self.recovering = true;
                let finished = self.hsq.host_failed(dispatch).expect("host_failed");
                let result = RequestResult::failed(&request, ErrorKind::TimedOut);
                self.complete(issue, &result);
                let actions = self.hsq.request_done(finished).expect("request_done");
                self.run_queue(actions);
            }
            // These requests are all well formed.
            Err((_, e)) => panic!("job {} refused by the controller: {e:?}", attempt.job),
        }
    }

    /// `Msdc::finish`: a request of the core's frees the controller for a deferred
    /// dispatch; a queued one is finalized, completed to the core, then released.
    fn finish(&mut self, owner: Owner<Issue>, result: RequestResult) {
        match owner {
            Owner::Core(serial) => {
                self.slot.core_completed(serial, result);
                let actions = self.hsq.retry();
                self.run_queue(actions);
            }
            Owner::Queue(issue) => {
                // The core starts recovery from this completion: from here on nothing may
                // be dispatched until it finishes.
                if failed(&result) {
                    self.recovering = true;
                }
                let finished = self
                    .hsq
                    .finalize_request(&issue.attempt.tag)
                    .expect("finalize_request");
                if self.mistake == Some(Mistake::ReleaseBeforeCompletion) {
                    let actions = self.hsq.request_done(finished).expect("request_done");
                    self.run_queue(actions);
                    self.complete(issue, &result);
                    return;
                }
                self.complete(issue, &result);
                let actions = self.hsq.request_done(finished).expect("request_done");
                self.run_queue(actions);
            }
        }
    }

    /// The core's completion of a queued request (`mmc_blk_hsq_req_done`): a failed one
    /// starts recovery and schedules the recovery work, any other ends its job.
    fn complete(&mut self, issue: Issue, result: &RequestResult) {
        let error = result.first_error();
        self.block.host_completed(&issue.attempt, error);
        self.log.push(Event::Completed(issue.attempt, error));
        if failed(result) {
            assert!(self.recovery.is_none(), "a second failure before recovery");
            self.recovery = Some((issue.attempt, *result));
            self.log.push(Event::RecoveryStart);
            let actions = self.hsq.recovery_start();
            self.run_queue(actions);
            return;
        }
        let bytes = result.data.map(|data| data.bytes_xfered);
        assert_eq!(bytes, Some(self.block.work(issue.attempt.job).bytes()));
        self.block.end_ok(self.slot.board, &issue.attempt);
    }

    /// The core's recovery work (`mmc_mq_recovery_handler` with `mmc_blk_mq_recovery`):
    /// the card's state through legacy commands, the failed request back to the block
    /// layer, then `recovery_finish`.
    fn recovery_work(&mut self) {
        let Some((attempt, result)) = self.recovery.take() else {
            return;
        };
        assert!(self.hsq.is_halted());
        assert!(
            self.slot.ctrl.is_idle(),
            "a request is on the bus in recovery"
        );
        // A request offered meanwhile is refused for the block layer to retry.
        if let Some(tag) = self.block.free_tag(TAGS) {
            let offered = self
                .hsq
                .request(i32::from(tag), tag, RequestShape::without_data());
            assert_eq!(offered.err(), Some(HsqError::Busy));
        }
        // `mmc_blk_mq_rw_recovery`: the card's status, tried twice, and a stop command
        // unless the card is back in the transfer state.
        let rca = self.rca;
        let mut status = self.send_status(rca, 0);
        if status.error.is_some() {
            status = self.send_status(rca, 0);
        }
        if status.error.is_some() || !ready_for_data(status.response[0]) {
            self.wait_for_cmd(12, 0, R1 | AC, 5);
            self.poll_for_busy(rca);
        }
        // An SD card tells how many blocks of a failed write it took (ACMD22).
        let write = matches!(
            self.block.work(attempt.job),
            Work::Data {
                direction: Direction::Write,
                ..
            }
        );
        if self.kind == CardKind::Sd && write && result.cmd.error.is_none() {
            self.ok(55, rca << 16, R1 | AC);
            self.read_scratch(22, 0, 4);
        }
        // `mmc_blk_mq_post_req` in recovery: nothing was transferred, so a retry.
        let error = result.first_error().unwrap_or(ErrorKind::DmaFault);
        self.block.retry_or_fail(&attempt, error);
        self.recovering = false;
        self.log.push(Event::RecoveryFinish);
        let actions = self.hsq.recovery_finish();
        self.run_queue(actions);
    }

    /// Asserts the queue's own state at the end: enabled, idle, holding nothing.
    pub(crate) fn assert_idle(&mut self) {
        assert!(self.hsq.is_idle());
        assert!(!self.hsq.is_halted());
        assert_eq!(self.hsq.poll_idle(), hsq::IdleState::Idle);
        assert!(self.waiting.iter().all(Option::is_none));
        self.slot.assert_idle();
    }
}

impl<'b, C: CardSlot> CoreHost<'b> for HsqHarness<'b, C> {
    type Card = C;
    type Queued = Issue;

    fn slot(&mut self) -> &mut Slot<'b, C, Issue> {
        &mut self.slot
    }

    fn start_core(&mut self, request: &Request, segments: &[Segment]) -> u32 {
        self.slot.start_core(request, segments)
    }

    /// The interrupt handler (`Msdc::handle_interrupt`); false if the line is low.
    fn interrupt(&mut self) -> bool {
        if !self.slot.interrupt_entry() {
            return false;
        }
        let board = self.slot.board;
        if let Progress::Done(owner, result) = self.slot.ctrl.handle_interrupt(board) {
            self.finish(owner, result);
        }
        true
    }
}

/// `mmc_blk_rq_error`: an error in any phase, or an error bit in the card status.
fn failed(result: &RequestResult) -> bool {
    result.first_error().is_some() || result.cmd.response[0] & CMD_ERRORS != 0
}

/// The block layer of a software queue: `MMC_MAX_RETRIES` for failed requests.
pub(crate) fn block_layer(storage: &[u8]) -> BlockLayer {
    BlockLayer::new(storage, MAX_RETRIES)
}
