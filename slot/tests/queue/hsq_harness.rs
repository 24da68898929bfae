// SPDX-License-Identifier: GPL-2.0

//! The host software queue on the bench, run by the slot logic the kernel runs
//! (`slot::software_queue`, `slot::finish`), with the MMC core's side around it: the block
//! layer's `cqe_request`s, `mmc_blk_hsq_req_done` and the core's recovery work.
//!
//! A failed request makes the core call `cqe_recovery_start` from its completion; its
//! recovery work then checks the card with legacy commands and calls
//! `cqe_recovery_finish`.
//!
//! The harness watches what the slot logic must guarantee: no dispatch from the completion
//! of a failed request to `recovery_finish`, the depth each dispatch publishes (against the
//! policy counted here), a dispatch deferred while the core's own request holds the
//! controller, and (with the block layer's ledger) that every request is completed once.

use std::cell::{Cell, Ref, RefCell, RefMut};

use hsq::{HsqError, RequestShape, NORMAL_DEPTH, PERFORMANCE_DEPTH};
use mmc_request::{Direction, ErrorKind, RequestResult};
use models::msdc::{CardSlot, Fault};
use slot::{Owner, Refusal};

use crate::block::{Attempt, BlockLayer, Work};
use crate::board::Board;
use crate::common::block_request;
use crate::common::flags::{AC, R1};
use crate::slot::{ready_for_data, CardKind, CoreHost, Issue, QueueSide, Slot};

/// The block-layer tags of the software queue.
const TAGS: std::ops::Range<u8> = 0..hsq::SLOT_COUNT as u8;
/// Ticks after which the harness calls a run stuck.
const MAX_TICKS: usize = 100_000;
/// `MMC_MAX_RETRIES`: retries `mmc_blk_mq_complete_rq` grants a failed request.
const MAX_RETRIES: u32 = 5;
/// `CMD_ERRORS` of the block driver: card status bits that fail a request.
const CMD_ERRORS: u32 =
    (1 << 31) | (1 << 30) | (1 << 29) | (1 << 26) | (1 << 21) | (1 << 20) | (1 << 19);

/// What happened, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// The queue accepted the request.
    Accepted(Attempt),
    /// The request went to the controller, with the depth its dispatch published.
    Dispatched(Attempt, u8),
    /// The controller was busy with a request of the core's: the dispatch waits.
    HostBusy(Attempt),
    /// The card held the bus busy (programming a write): the dispatch waits for the busy
    /// retry.
    BusBusy(Attempt),
    /// The busy retry returned (what it dispatched is logged before): it waited this long,
    /// ns.
    BusyRetry(u64),
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

/// A request the harness handed to `cqe_request` and the queue has not dispatched yet, as
/// the harness counts it.
#[derive(Clone, Copy)]
struct Queued {
    attempt: Attempt,
    /// What the depth policy counts.
    four_kib_write: bool,
}

/// The MMC core and block layer of a slot with a host software queue: what the slot logic
/// calls back into.
pub(crate) struct HsqCore {
    pub(crate) block: RefCell<BlockLayer>,
    kind: CardKind,
    /// Requests accepted and not dispatched yet, by tag, as the harness counts them.
    queued: RefCell<[Option<Queued>; hsq::SLOT_COUNT]>,
    /// `mmc_host::hsq_depth`, as the last dispatch published it.
    depth: Cell<u8>,
    /// The depth of a dispatch the controller deferred, which its re-dispatch keeps.
    deferred_depth: Cell<Option<u8>>,
    /// The core's recovery work is scheduled for this failed request.
    recovery: Cell<Option<(Attempt, RequestResult)>>,
    /// From the completion of a failed request to `recovery_finish`.
    recovering: Cell<bool>,
    /// Faults injected into the controller model when a job is first dispatched.
    faults: RefCell<Vec<(usize, Fault)>>,
    pub(crate) log: RefCell<Vec<Event>>,
    pub(crate) mistake: Cell<Option<Mistake>>,
}

impl<'b, C: CardSlot> QueueSide<'b, Board<C>> for HsqCore {
    type Queued = Issue;

    /// Checks each dispatch against the policy and the recovery, and injects the fault of a
    /// job's first attempt before it reaches the controller.
    fn dispatching(&self, slot: &Slot<'b, Board<C>, Self>, tag: u8, depth: u8) {
        let mut queued = self.queued.borrow_mut();
        let Some(entry) = queued[usize::from(tag)] else {
            panic!("the queue dispatched tag {tag}, which holds nothing");
        };
        let attempt = entry.attempt;
        let expected = self.deferred_depth.take().unwrap_or_else(|| {
            // The policy, counted independently: two 4 KiB writes held by the queue.
            let writes = queued.iter().flatten().filter(|q| q.four_kib_write).count();
            if writes >= 2 {
                PERFORMANCE_DEPTH
            } else {
                NORMAL_DEPTH
            }
        });
        assert!(
            !self.recovering.get(),
            "job {} was dispatched during recovery",
            attempt.job
        );
        assert_eq!(depth, expected, "depth published for job {}", attempt.job);
        self.depth.set(depth);
        if slot.core_on_bus() {
            self.deferred_depth.set(Some(depth));
            self.log.borrow_mut().push(Event::HostBusy(attempt));
            return;
        }
        // Every request here has data, which waits for DAT0.
        if slot.board.model().card_stuck_busy() {
            self.deferred_depth.set(Some(depth));
            self.log.borrow_mut().push(Event::BusBusy(attempt));
            return;
        }
        queued[usize::from(tag)] = None;
        if attempt.number == 1 {
            let faults = self.faults.borrow();
            if let Some(&(_, fault)) = faults.iter().find(|(job, _)| *job == attempt.job) {
                slot.board.model().inject(fault);
            }
        }
        self.log
            .borrow_mut()
            .push(Event::Dispatched(attempt, depth));
    }

    /// `mmc_blk_hsq_req_done`: a failed request starts recovery and schedules the recovery
    /// work, any other ends its job.
    fn complete_queued(
        &self,
        slot: &Slot<'b, Board<C>, Self>,
        issue: Issue,
        result: &RequestResult,
    ) {
        let error = result.first_error();
        self.block.borrow_mut().host_completed(&issue.id, error);
        self.log
            .borrow_mut()
            .push(Event::Completed(issue.id, error));
        if failed(result) {
            assert!(
                self.recovery.get().is_none(),
                "a second failure before recovery"
            );
            self.recovering.set(true);
            self.recovery.set(Some((issue.id, *result)));
            self.log.borrow_mut().push(Event::RecoveryStart);
            assert!(slot::software_queue::recovery_start(slot));
            return;
        }
        let mut block = self.block.borrow_mut();
        let bytes = result.data.map(|data| data.bytes_xfered);
        assert_eq!(bytes, Some(block.work(issue.id.job).bytes()));
        block.end_ok(slot.board, &issue.id);
    }
}

/// The slot logic, the engines and the core of a slot with a host software queue.
pub(crate) struct HsqHarness<'b, C: CardSlot> {
    slot: Slot<'b, Board<C>, HsqCore>,
    rca: u32,
    /// Every DMA stop of a run takes this long, ns ([`HsqHarness::slow_dma_stops`]).
    slow_dma_stop_ns: Cell<Option<u64>>,
}

impl<'b, C: CardSlot> HsqHarness<'b, C> {
    /// Probes the slot, brings its `kind` of card up and enables the queue (`cqe_enable`).
    pub(crate) fn new(board: &'b Board<C>, kind: CardKind, block: BlockLayer) -> Self {
        let core = HsqCore {
            block: RefCell::new(block),
            kind,
            queued: RefCell::new([None; hsq::SLOT_COUNT]),
            depth: Cell::new(0),
            deferred_depth: Cell::new(None),
            recovery: Cell::new(None),
            recovering: Cell::new(false),
            faults: RefCell::new(Vec::new()),
            log: RefCell::new(Vec::new()),
            mistake: Cell::new(None),
        };
        let mut harness = Self {
            slot: Slot::new(board, core, true),
            rca: 0,
            slow_dma_stop_ns: Cell::new(None),
        };
        harness.rca = match kind {
            CardKind::Emmc => {
                crate::slot::bring_up_emmc(&mut harness, false);
                crate::slot::EMMC_RCA
            }
            CardKind::Sd => crate::slot::bring_up_sd(&mut harness),
        };
        harness.slot.attach(kind);
        let depth = {
            let mut queue = harness.slot.software_queue();
            queue.engine.enable().expect("cqe_enable");
            queue.engine.depth()
        };
        harness.core().depth.set(depth);
        harness
    }

    fn core(&self) -> &HsqCore {
        &self.slot.side
    }

    /// The block layer.
    pub(crate) fn block(&self) -> RefMut<'_, BlockLayer> {
        self.core().block.borrow_mut()
    }

    /// What happened so far.
    pub(crate) fn log(&self) -> Ref<'_, Vec<Event>> {
        self.core().log.borrow()
    }

    /// Makes the harness's interrupt handler depart from the slot logic's order.
    pub(crate) fn set_mistake(&self, mistake: Mistake) {
        self.core().mistake.set(Some(mistake));
    }

    /// Injects `fault` into the controller when job `job` is first dispatched.
    pub(crate) fn fault(&mut self, job: usize, fault: Fault) {
        self.core().faults.borrow_mut().push((job, fault));
    }

    /// Makes every DMA stop of the runs that follow take `ns` of hardware time (the
    /// board's `dma_stop_slow` on every transfer), or none with `None`.
    pub(crate) fn slow_dma_stops(&self, ns: Option<u64>) {
        self.slow_dma_stop_ns.set(ns);
        if ns.is_none() {
            self.slot.board.model().cancel_slow_dma_stop();
        }
    }

    /// Runs until every job of the block layer has ended.
    pub(crate) fn run(&mut self) {
        for _ in 0..MAX_TICKS {
            if let Some(ns) = self.slow_dma_stop_ns.get() {
                let mut model = self.slot.board.model();
                if !model.slow_dma_stop_pending() {
                    model.inject_slow_dma_stop(ns);
                }
            }
            self.submit();
            if self.core().recovery.get().is_some() {
                self.recovery_work();
                continue;
            }
            if self.slot.take_busy_retry() {
                let waited = self.slot.run_busy_retry();
                self.core().log.borrow_mut().push(Event::BusyRetry(waited));
                continue;
            }
            if self.block().all_ended() && self.slot.controller().is_idle() {
                return;
            }
            self.tick();
        }
        panic!("the queue stalled: {:?}", self.log().last());
    }

    /// Offers the queue a 4 KiB read under `tag`, outside the block layer's bookkeeping,
    /// and returns what it answered; a refused request must come back whole.
    pub(crate) fn offer_under_tag(&self, tag: u8) -> Result<(), Refusal> {
        let emmc = self.core().kind == CardKind::Emmc;
        let issue = Issue {
            id: Attempt {
                job: usize::MAX,
                number: 1,
                tag,
            },
            request: block_request(Direction::Read, 0, 8, emmc),
            segments: self.slot.board.segments(0, 4096),
            for_mmc_card: emmc,
        };
        slot::software_queue::enqueue(&self.slot, issue).map_err(|refused| {
            assert_eq!(refused.request.id.tag, tag, "the refused request came back");
            refused.error
        })
    }

    /// The block layer issues what `mmc_mq_queue_rq` lets through: nothing while recovery
    /// is needed, and no more than `hsq_depth + 1` requests in flight.
    pub(crate) fn submit(&mut self) {
        loop {
            let core = self.core();
            if core.recovery.get().is_some()
                || self.block().in_flight() > usize::from(core.depth.get())
            {
                return;
            }
            let issue = {
                let mut block = self.block();
                if block.next().is_none() {
                    return;
                }
                let Some(tag) = block.free_tag(TAGS) else {
                    return;
                };
                let attempt = block.start(self.slot.board, tag);
                self.issue(&block, attempt)
            };
            let attempt = issue.id;
            let four_kib_write = self.block().work(attempt.job).is_four_kib_write();
            core.queued.borrow_mut()[usize::from(attempt.tag)] = Some(Queued {
                attempt,
                four_kib_write,
            });
            core.log.borrow_mut().push(Event::Accepted(attempt));
            if let Err(refused) = slot::software_queue::enqueue(&self.slot, issue) {
                panic!(
                    "cqe_request refused job {}: {:?}",
                    attempt.job, refused.error
                );
            }
        }
    }

    /// The `mmc_request` of `attempt`, with its buffer in one or two segments.
    fn issue(&self, block: &BlockLayer, attempt: Attempt) -> Issue {
        let work = block.work(attempt.job);
        let Work::Data {
            direction,
            lba,
            blocks,
        } = work
        else {
            panic!("the software queue runs data requests");
        };
        let emmc = self.core().kind == CardKind::Emmc;
        Issue {
            id: attempt,
            request: block_request(direction, lba, blocks, emmc),
            segments: self.slot.board.segments(attempt.tag, work.bytes()),
            for_mmc_card: emmc,
        }
    }

    /// The deliberate departure of [`Mistake::ReleaseBeforeCompletion`]: the host is
    /// released (`request_done`) before the core sees the completion.
    fn release_before_completion(&self, issue: Issue, tag: u8, result: &RequestResult) {
        let finished = self
            .slot
            .software_queue()
            .engine
            .finalize_request(&tag)
            .expect("finalize_request");
        slot::software_queue::request_done(&self.slot, finished);
        self.core().complete_queued(&self.slot, issue, result);
    }

    /// The core's recovery work (`mmc_mq_recovery_handler` with `mmc_blk_mq_recovery`):
    /// the card's state through legacy commands, the failed request back to the block
    /// layer, then `recovery_finish`.
    fn recovery_work(&mut self) {
        let Some((attempt, result)) = self.core().recovery.take() else {
            return;
        };
        assert!(self.slot.software_queue().engine.is_halted());
        assert!(
            self.slot.controller().is_idle(),
            "a request is on the bus in recovery"
        );
        // A request offered meanwhile is refused for the block layer to retry.
        let free = self.block().free_tag(TAGS);
        if let Some(tag) = free {
            let offered = self.slot.software_queue().engine.request(
                i32::from(tag),
                tag,
                RequestShape::without_data(),
            );
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
            self.block().work(attempt.job),
            Work::Data {
                direction: Direction::Write,
                ..
            }
        );
        if self.core().kind == CardKind::Sd && write && result.cmd.error.is_none() {
            self.ok(55, rca << 16, R1 | AC);
            self.read_scratch(22, 0, 4);
        }
        // `mmc_blk_mq_post_req` in recovery: nothing was transferred, so a retry.
        let error = result.first_error().unwrap_or(ErrorKind::DmaFault);
        self.block().retry_or_fail(&attempt, error);
        self.core().recovering.set(false);
        self.core().log.borrow_mut().push(Event::RecoveryFinish);
        assert!(slot::software_queue::recovery_finish(&self.slot));
    }

    /// Asserts the queue's own state at the end: enabled, idle, holding nothing.
    pub(crate) fn assert_idle(&mut self) {
        {
            let mut queue = self.slot.software_queue();
            assert!(queue.engine.is_idle());
            assert!(!queue.engine.is_halted());
            assert_eq!(queue.engine.poll_idle(), hsq::IdleState::Idle);
            assert!(queue.waiting.iter().all(Option::is_none));
        }
        assert!(self.core().queued.borrow().iter().all(Option::is_none));
        self.slot.assert_idle();
    }
}

impl<'b, C: CardSlot> CoreHost<'b> for HsqHarness<'b, C> {
    type Card = C;
    type Side = HsqCore;

    fn slot(&self) -> &Slot<'b, Board<C>, HsqCore> {
        &self.slot
    }

    /// The interrupt handler (`Msdc::handle_interrupt`); false if the line is low. With
    /// [`Mistake::ReleaseBeforeCompletion`], a handler that releases the host before the
    /// core sees a queued request's completion.
    fn interrupt(&mut self) -> bool {
        if self.core().mistake.get() != Some(Mistake::ReleaseBeforeCompletion) {
            return self.slot.handle_interrupt();
        }
        if !self.slot.interrupt_entry() {
            return false;
        }
        let Some((in_flight, result)) = self.slot.request_interrupt() else {
            return true;
        };
        match in_flight.owner {
            Owner::Queue { request, tag } => {
                // The core starts recovery from this completion: from here on nothing may
                // be dispatched until it finishes.
                if failed(&result) {
                    self.core().recovering.set(true);
                }
                self.release_before_completion(request, tag, &result);
            }
            Owner::Core(_) => slot::finish(&self.slot, in_flight, &result),
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
