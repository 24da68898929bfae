// SPDX-License-Identifier: GPL-2.0

//! The slot on the bench: the slot logic the kernel runs (the `slot` crate), with the
//! kernel's services played by [`Slot`], its [`SlotKernel`], and the MMC core's own commands
//! through the core's `request` path ([`CoreHost`]): card bring-up, the status polls and
//! stops of recovery.
//!
//! The bench's lock is a [`RefCell`]: the slot logic taking it twice, a deadlock in the
//! kernel, panics here.

use std::cell::{Cell, RefCell, RefMut};
use std::convert::Infallible;

use cqhci::regs::CQSSC1;
use cqhci::{Wait, Warnings};
use mmc_request::{
    CommandResult, Data, Direction, ErrorKind, ErrorStat, Request, RequestResult, Segment,
};
use models::msdc::CardSlot;
use msdc::clock::Timing;
use msdc::controller::{Controller, HwError, Progress, StartError};
use slot::command_queue::{HardwareQueue, Operation, QueueEvent, TaskEnd};
use slot::software_queue::SoftwareQueue;
use slot::{
    DescriptorArea, InFlight, QueueFault, QueuedSlotRequest, Refusal, SlotKernel, SlotRequest,
    SlotView,
};

use crate::block::Attempt;
use crate::board::{Bench, Board, AREA_AT, AREA_LEN, SCRATCH_AT, SCRATCH_LEN};
use crate::common::flags::{AC, ADTC, BC, BCR, NONE, R1, R1B, R2, R3};
use crate::common::{command, data, request};

/// The RCA the MMC core gives an eMMC.
pub(crate) const EMMC_RCA: u32 = 1;
/// `R1_READY_FOR_DATA` and the `R1_CURRENT_STATE` field of a card status.
const READY_FOR_DATA: u32 = 1 << 8;
const STATE_TRAN: u32 = 4;
/// `MMC_CMD_RETRIES`: how often `mmc_wait_for_cmd` callers let the core re-send a command.
pub(crate) const CMD_RETRIES: u32 = 3;
/// Status polls `mmc_poll_for_busy` gets before the harness calls the card stuck.
const BUSY_POLLS: usize = 16;
/// Ticks a request of the core may take.
const CORE_TICKS: usize = 64;

/// The card state in a card status.
pub(crate) fn card_state(status: u32) -> u32 {
    (status >> 9) & 0xF
}

/// `mmc_ready_for_data`: ready for data and in the transfer state.
pub(crate) fn ready_for_data(status: u32) -> bool {
    status & READY_FOR_DATA != 0 && card_state(status) == STATE_TRAN
}

/// Which card a slot holds, for the parts of the core's recovery that differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CardKind {
    Emmc,
    Sd,
}

/// The card events a slot signalled to the core.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CardEvents {
    /// SDIO interrupts.
    pub(crate) sdio_signals: u32,
    /// Card-detect changes.
    pub(crate) card_detect_changes: u32,
}

/// A request on the bench as the slot logic takes it, known to the harness by `id`.
pub(crate) struct BenchRequest<Id> {
    pub(crate) id: Id,
    pub(crate) request: Request,
    pub(crate) segments: Vec<Segment>,
    /// The core has an eMMC attached.
    pub(crate) for_mmc_card: bool,
}

impl<Id> SlotRequest for BenchRequest<Id> {
    type Error = Refusal;

    fn spec(&self) -> Option<Request> {
        Some(self.request)
    }

    fn data(&self) -> Option<Data> {
        self.request.data
    }

    fn for_mmc_card(&self) -> bool {
        self.for_mmc_card
    }

    fn map_data(&mut self) -> Result<impl Iterator<Item = Segment> + '_, Refusal> {
        Ok(self.segments.iter().copied())
    }
}

/// A request of the core's `request` callback, numbered by the bench.
pub(crate) type CoreRequest = BenchRequest<u32>;

/// A request the core queued (`cqe_request`): an `mmc_request` of the block layer, named
/// by its attempt.
pub(crate) type Issue = BenchRequest<Attempt>;

impl QueuedSlotRequest for Issue {
    type Id = Attempt;

    fn tag(&self) -> i32 {
        i32::from(self.id.tag)
    }

    fn id(&self) -> Attempt {
        self.id
    }

    /// The block address is the command's argument (an eMMC addresses blocks); the
    /// block layer sets no `MMC_DATA_*` flags here.
    fn block_address_and_flags(&self) -> Option<(u32, u32)> {
        self.request.data.map(|_| (self.request.cmd.arg, 0))
    }
}

/// What a slot's queue adds to the slot: the requests it queues and the MMC core's side of
/// their dispatch and completion.
pub(crate) trait QueueSide<'b, B: Bench>: Sized {
    /// A request of the core's `cqe_request`.
    type Queued: QueuedSlotRequest<Error = Refusal>;

    /// [`SlotKernel::dispatching`], with the lock held.
    fn dispatching(&self, slot: &Slot<'b, B, Self>, tag: u8, depth: u8);

    /// [`SlotKernel::complete_queued`]: the core's completion of a queued request.
    fn complete_queued(
        &self,
        slot: &Slot<'b, B, Self>,
        request: Self::Queued,
        result: &RequestResult,
    );

    /// [`SlotKernel::complete_task`]: the core's completion of a CQHCI task.
    fn complete_task(&self, _slot: &Slot<'b, B, Self>, request: Self::Queued, _end: TaskEnd) {
        panic!(
            "tag {}: a task completed on a slot without a command queue",
            request.tag()
        );
    }

    /// [`SlotKernel::notify_recovery`]: the core's recovery notifier, with the lock held.
    fn notify_recovery(&self, request: &Self::Queued) {
        panic!(
            "tag {}: recovery notified on a slot without a command queue",
            request.tag()
        );
    }

    /// [`SlotKernel::cqe_event`] for an event other than a task's time-out, which the
    /// slot records: none is expected unless the side says so.
    fn cqe_event(&self, event: QueueEvent) {
        panic!("CQHCI: {event:?}");
    }
}

/// The descriptor area in the bench's RAM, lent only while a chain is written: the model's
/// DMA reads RAM when the hardware runs.
pub(crate) struct Descriptors<'b, B: Bench>(&'b B);

impl<B: Bench> DescriptorArea for Descriptors<'_, B> {
    fn with_area<T>(&mut self, write: impl FnOnce(u64, &mut [u8]) -> T) -> T {
        let mut ram = self.0.ram();
        write(self.0.bus(AREA_AT), &mut ram[AREA_AT..AREA_AT + AREA_LEN])
    }
}

/// The CQHCI engine's descriptor memory in the bench's RAM, lent for one engine call.
pub(crate) struct TaskArea<'b, B: Bench>(&'b B);

impl<B: Bench> DescriptorArea for TaskArea<'_, B> {
    fn with_area<T>(&mut self, write: impl FnOnce(u64, &mut [u8]) -> T) -> T {
        self.0.with_task_memory(write)
    }
}

/// The CQHCI engine of a bench slot.
pub(crate) type BenchHardwareQueue<'b, B, Q> = HardwareQueue<Q, TaskArea<'b, B>>;

/// What the slot's lock guards.
struct Engines<'b, B: Bench, S: QueueSide<'b, B>> {
    controller: Controller<InFlight<Slot<'b, B, S>>>,
    descriptors: Descriptors<'b, B>,
    software_queue: Option<SoftwareQueue<S::Queued>>,
    hardware_queue: Option<BenchHardwareQueue<'b, B, S::Queued>>,
}

/// One slot on the bench: the engines under the bench's lock, and the kernel's services to
/// the slot logic.
pub(crate) struct Slot<'b, B: Bench, S: QueueSide<'b, B>> {
    pub(crate) board: &'b B,
    engines: RefCell<Engines<'b, B, S>>,
    /// The core's attached card is an eMMC (`mmc_host::card`).
    mmc_card: Cell<bool>,
    next_core: Cell<u32>,
    /// A request of the core's is on the bus, as the core knows it.
    core_on_bus: Cell<bool>,
    /// The core's requests that completed, by number, until their caller takes them.
    pub(crate) core_done: RefCell<Vec<(u32, RequestResult)>>,
    /// The core's requests the slot refused, by number, until their caller takes them.
    core_refused: RefCell<Vec<(u32, Refusal)>>,
    /// Hardware faults the request engine recorded, oldest first.
    pub(crate) hardware_faults: RefCell<Vec<HwError>>,
    /// The slot has an SDIO card and a card-detect line: their events are counted
    /// (`None`: there are none, and an event is a failure).
    pub(crate) card_events: Cell<Option<CardEvents>>,
    /// The kernel's clock for the watchdog, in ns: it moves only when a test moves it.
    clock_ns: Cell<u64>,
    /// The commands of the requests the watchdog aborted.
    timed_out: RefCell<Vec<u32>>,
    /// A dispatch waits for a busy bus: the harness runs the busy retry.
    busy_retry: Cell<bool>,
    /// The longest the driver's polls busy-waited in one run of the interrupt handler, µs.
    interrupt_spun_max_us: Cell<u64>,
    /// `mmc_host::cqe_on`, as the slot logic last published it.
    cqe_on: Cell<bool>,
    /// The CQHCI events the slot logic reported (only time-outs are expected).
    cqe_events: RefCell<Vec<QueueEvent>>,
    error_stats: RefCell<Vec<ErrorStat>>,
    /// The queue's side.
    pub(crate) side: S,
}

impl<'b, B: Bench, S: QueueSide<'b, B>> Slot<'b, B, S> {
    /// Probes the controller (initialisation), with a host software queue if
    /// `software_queue`.
    pub(crate) fn new(board: &'b B, side: S, software_queue: bool) -> Self {
        let mut controller = Controller::new(board.setup());
        controller.init_hardware(board).expect("init_hardware");
        Self {
            board,
            engines: RefCell::new(Engines {
                controller,
                descriptors: Descriptors(board),
                software_queue: software_queue.then(SoftwareQueue::new),
                hardware_queue: None,
            }),
            mmc_card: Cell::new(false),
            next_core: Cell::new(0),
            core_on_bus: Cell::new(false),
            core_done: RefCell::new(Vec::new()),
            core_refused: RefCell::new(Vec::new()),
            hardware_faults: RefCell::new(Vec::new()),
            card_events: Cell::new(None),
            clock_ns: Cell::new(0),
            timed_out: RefCell::new(Vec::new()),
            busy_retry: Cell::new(false),
            interrupt_spun_max_us: Cell::new(0),
            cqe_on: Cell::new(false),
            cqe_events: RefCell::new(Vec::new()),
            error_stats: RefCell::new(Vec::new()),
            side,
        }
    }

    /// The core attached its card.
    pub(crate) fn attach(&self, kind: CardKind) {
        self.mmc_card.set(kind == CardKind::Emmc);
    }

    /// The request engine, under the lock.
    pub(crate) fn controller(&self) -> RefMut<'_, Controller<InFlight<Self>>> {
        RefMut::map(self.lock(), |engines| &mut engines.controller)
    }

    /// The software queue, under the lock.
    pub(crate) fn software_queue(&self) -> RefMut<'_, SoftwareQueue<S::Queued>> {
        RefMut::map(self.lock(), |engines| {
            engines.software_queue.as_mut().expect("a software queue")
        })
    }

    /// Gives the slot a CQHCI engine (`cqe` in the device tree) with `idle_timer` for the
    /// hooks; its descriptor memory is the board's.
    pub(crate) fn install_hardware_queue(&self, engine: cqhci::Cqhci, idle_timer: CQSSC1) {
        self.lock().hardware_queue =
            Some(HardwareQueue::new(engine, TaskArea(self.board), idle_timer));
    }

    /// The CQHCI engine and its tasks, under the lock.
    pub(crate) fn hardware_queue(&self) -> RefMut<'_, BenchHardwareQueue<'b, B, S::Queued>> {
        RefMut::map(self.lock(), |engines| {
            engines.hardware_queue.as_mut().expect("a CQHCI engine")
        })
    }

    /// The core's `host->cqe_on`.
    pub(crate) fn cqe_on(&self) -> bool {
        self.cqe_on.get()
    }

    /// The CQHCI events reported so far.
    pub(crate) fn cqe_events(&self) -> Vec<QueueEvent> {
        self.cqe_events.borrow().clone()
    }

    /// The errors of the CQHCI mode counted in the core's statistics so far.
    pub(crate) fn error_stats(&self) -> Vec<ErrorStat> {
        self.error_stats.borrow().clone()
    }

    /// Lets `ns` pass on the watchdog's clock.
    pub(crate) fn advance_clock(&self, ns: u64) {
        self.clock_ns.set(self.clock_ns.get() + ns);
    }

    /// The commands of the requests the watchdog aborted so far.
    pub(crate) fn timed_out(&self) -> Vec<u32> {
        self.timed_out.borrow().clone()
    }

    /// Whether the busy retry was scheduled since the last call.
    pub(crate) fn take_busy_retry(&self) -> bool {
        self.busy_retry.take()
    }

    /// The kernel's busy retry work (`slot::software_queue::retry_busy` until it is done):
    /// each sleep passes on the model's clock, so a card programming finishes meanwhile,
    /// and on the watchdog's. How long it waited, ns.
    pub(crate) fn run_busy_retry(&self) -> u64 {
        let mut progress = slot::software_queue::BusyRetry::new();
        let mut waited_ns = 0;
        while let slot::software_queue::BusWait::Sleep { us } =
            slot::software_queue::retry_busy(self, &mut progress, waited_ns)
        {
            let ns = u64::from(us) * 1_000;
            self.board.elapse(ns);
            self.advance_clock(ns);
            waited_ns += ns;
        }
        waited_ns
    }

    /// A request of the core's is on the bus.
    pub(crate) fn core_on_bus(&self) -> bool {
        self.core_on_bus.get()
    }

    fn lock(&self) -> RefMut<'_, Engines<'b, B, S>> {
        self.engines
            .try_borrow_mut()
            .expect("the slot's lock taken twice")
    }

    /// The core's `request` callback for `request`, which finds the controller idle and
    /// starts it: its number.
    pub(crate) fn start_core(&self, request: &Request, segments: &[Segment]) -> u32 {
        assert!(
            self.controller().is_idle(),
            "the core's request found the controller busy"
        );
        let serial = self.request_core(request, segments);
        if let Some(error) = self.take_core_refusal(serial) {
            panic!(
                "the core's CMD{} was refused: {error:?}",
                request.cmd.opcode
            );
        }
        serial
    }

    /// The core's `request` callback (`slot::start_request`) for `request`: its number.
    pub(crate) fn request_core(&self, request: &Request, segments: &[Segment]) -> u32 {
        let serial = self.next_core.get() + 1;
        self.next_core.set(serial);
        self.core_on_bus.set(true);
        // The driver writes the chain of a request with data in the launch.
        let with_data = request.data.is_some();
        self.board.launching(with_data);
        slot::start_request(
            self,
            CoreRequest {
                id: serial,
                request: *request,
                segments: segments.to_vec(),
                for_mmc_card: self.mmc_card.get(),
            },
        );
        self.board.launching(false);
        serial
    }

    /// Why the slot refused the core's request `serial`, if it did.
    pub(crate) fn take_core_refusal(&self, serial: u32) -> Option<Refusal> {
        let mut refused = self.core_refused.borrow_mut();
        let at = refused.iter().position(|(n, _)| *n == serial)?;
        Some(refused.remove(at).1)
    }

    /// The result of the core's request `serial`, once it completed.
    pub(crate) fn take_core_result(&self, serial: u32) -> Option<RequestResult> {
        let mut done = self.core_done.borrow_mut();
        let at = done.iter().position(|(n, _)| *n == serial)?;
        Some(done.remove(at).1)
    }

    /// The start of the interrupt handler, for a harness that departs from its order:
    /// whether the line is up, then the SDIO and card-detect events, which these slots
    /// never have.
    pub(crate) fn interrupt_entry(&self) -> bool {
        if !self.board.interrupt_line() {
            return false;
        }
        let mut controller = self.controller();
        assert!(!controller.sdio_irq_event(self.board));
        assert!(!controller.card_detect_event(self.board));
        true
    }

    /// The interrupt handler's request engine part: the request that finished, if any.
    pub(crate) fn request_interrupt(&self) -> Option<(InFlight<Self>, RequestResult)> {
        let mut controller = self.controller();
        let progress = controller.handle_interrupt(self.board);
        slot::note_hardware_fault(self, &mut controller);
        match progress {
            Progress::Pending => None,
            Progress::Done(in_flight, result) => Some((in_flight, result)),
        }
    }

    /// The interrupt handler (`Msdc::handle_interrupt`: `slot::interrupt`) once the line
    /// is up; false if it is low. The bench has no engine outside the slot logic.
    pub(crate) fn handle_interrupt(&self) -> bool {
        if !self.board.interrupt_line() {
            return false;
        }
        let before = self.board.delayed_us();
        let kind = slot::interrupt(self, |_| None::<Infallible>, |never| match never {});
        let spun = self.board.delayed_us() - before;
        self.interrupt_spun_max_us
            .set(self.interrupt_spun_max_us.get().max(spun));
        kind.handled()
    }

    /// The longest the driver's polls busy-waited in one run of the interrupt handler so
    /// far, µs.
    pub(crate) fn interrupt_spun_max_us(&self) -> u64 {
        self.interrupt_spun_max_us.get()
    }

    /// Asserts that nothing is on the controller, every completion of the core's was
    /// taken, and the models saw nothing they forbid.
    pub(crate) fn assert_idle(&self) {
        assert!(self.controller().is_idle());
        assert!(
            self.core_done.borrow().is_empty(),
            "completions nobody took"
        );
        assert!(
            self.core_refused.borrow().is_empty(),
            "refusals nobody took"
        );
        assert_eq!(*self.hardware_faults.borrow(), [], "hardware faults");
        self.board.assert_clean();
    }

    /// The core's `set_ios` for what the harness changes: bus width, then clock.
    pub(crate) fn set_ios(&self, hz: u32, timing: Timing, width: u8) {
        let mut controller = self.controller();
        controller.set_bus_width(self.board, width);
        controller
            .set_clock(self.board, hz, timing)
            .expect("set_clock");
    }
}

impl<'b, B: Bench, S: QueueSide<'b, B>> SlotKernel for Slot<'b, B, S> {
    type Regs = B;
    type Request = CoreRequest;
    type Queued = S::Queued;
    type Descriptors = Descriptors<'b, B>;
    type TaskMemory = TaskArea<'b, B>;
    type Error = Refusal;
    /// The watchdog's clock, in ns.
    type Instant = u64;

    fn regs(&self) -> &B {
        self.board
    }

    fn with_slot<T>(&self, f: impl FnOnce(SlotView<'_, Self>) -> T) -> T {
        let mut engines = self.lock();
        let engines = &mut *engines;
        f(SlotView {
            controller: &mut engines.controller,
            descriptors: &mut engines.descriptors,
            software_queue: engines.software_queue.as_mut(),
            hardware_queue: engines.hardware_queue.as_mut(),
            host_removed: false,
        })
    }

    fn now(&self) -> u64 {
        self.clock_ns.get()
    }

    fn elapsed_ns(&self, since: &u64) -> u64 {
        self.clock_ns.get() - since
    }

    fn refusal_error(&self, refusal: Refusal) -> Refusal {
        refusal
    }

    fn hardware_fault(&self, fault: HwError) {
        self.hardware_faults.borrow_mut().push(fault);
    }

    fn queue_fault(&self, fault: QueueFault) {
        panic!("software queue: {fault:?}");
    }

    // The tests run the watchdog's check themselves, when they move its clock.
    fn arm_watchdog(&self) {}

    fn request_timed_out(&self, opcode: u32) {
        self.timed_out.borrow_mut().push(opcode);
    }

    fn request_issued(&self) {}

    fn request_finished(&self, _opcode: u32, _tuning_probe: bool, _result: &RequestResult) {}

    fn complete(&self, request: CoreRequest, result: &RequestResult) {
        self.core_on_bus.set(false);
        self.core_done.borrow_mut().push((request.id, *result));
    }

    fn complete_queued(&self, request: S::Queued, result: &RequestResult) {
        self.side.complete_queued(self, request, result);
    }

    fn fail(&self, request: CoreRequest, error: Refusal) {
        self.core_on_bus.set(false);
        self.core_refused.borrow_mut().push((request.id, error));
    }

    fn fail_queued(&self, request: S::Queued, error: Refusal) {
        match error {
            // The card held DAT0 low past the controller's bus wait: the kernel fails the
            // request with -ETIMEDOUT, which the core sees as a command time-out.
            Refusal::Start {
                error: StartError::BusBusy,
                ..
            }
            | Refusal::BusBusy { .. } => {
                let spec = request.spec().expect("a queued request has a command");
                self.complete_queued(request, &RequestResult::failed(&spec, ErrorKind::TimedOut));
            }
            _ => panic!(
                "the request of tag {} was refused by the controller: {error:?}",
                request.tag()
            ),
        }
    }

    // Nobody sleeps in `cqe_wait_for_idle` here: the wake-up has no one to wake.
    fn wake_idle_waiters(&self) {}

    fn dispatching(&self, tag: u8, depth: u8) {
        self.side.dispatching(self, tag, depth);
    }

    fn signal_sdio_irq(&self) {
        let Some(mut events) = self.card_events.get() else {
            panic!("an SDIO interrupt on a slot without an SDIO card");
        };
        events.sdio_signals += 1;
        self.card_events.set(Some(events));
    }

    fn card_changed(&self) {
        let Some(mut events) = self.card_events.get() else {
            panic!("a card-detect event on a slot without a card-detect line");
        };
        events.card_detect_changes += 1;
        self.card_events.set(Some(events));
    }

    /// The harness runs the retry when it next gets the chance ([`Slot::run_busy_retry`]).
    fn schedule_busy_retry(&self) {
        self.busy_retry.set(true);
    }

    fn set_cqe_on(&self, on: bool) {
        self.cqe_on.set(on);
    }

    fn task_issued(&self, _direct: bool) {}

    fn notify_recovery(&self, request: &S::Queued) {
        self.side.notify_recovery(request);
    }

    fn complete_task(&self, request: S::Queued, end: TaskEnd) {
        self.side.complete_task(self, request, end);
    }

    /// One hardware step per microsecond, the interrupt handler after each: the lock is
    /// released, so the hardware runs and its interrupts are handled meanwhile.
    fn sleep_until(&self, wait: Wait) {
        for _ in 0..wait.timeout_us {
            if wait.condition.is_met(self.board) {
                return;
            }
            self.board.advance(1);
            self.handle_interrupt();
        }
    }

    fn cqe_warnings(&self, operation: Operation, warnings: Warnings) {
        panic!("CQHCI {operation:?}: {warnings:?}");
    }

    fn cqe_event(&self, event: QueueEvent) {
        match event {
            QueueEvent::TaskTimedOut => self.cqe_events.borrow_mut().push(event),
            _ => self.side.cqe_event(event),
        }
    }

    fn count_error(&self, stat: ErrorStat) {
        self.error_stats.borrow_mut().push(stat);
    }
}

/// The MMC core's requests outside the queue, through a harness's `request` path and its
/// interrupt handler.
pub(crate) trait CoreHost<'b> {
    type Card: CardSlot + 'b;
    /// The slot's queue.
    type Side: QueueSide<'b, Board<Self::Card>>;

    /// The slot.
    fn slot(&self) -> &Slot<'b, Board<Self::Card>, Self::Side>;

    /// Starts one request of the core through the host's `request` callback; its number.
    fn start_core(&mut self, request: &Request, segments: &[Segment]) -> u32 {
        self.slot().start_core(request, segments)
    }

    /// The interrupt handler; false if the line is low.
    fn interrupt(&mut self) -> bool;

    /// Lets one step of hardware time pass, then runs the interrupt handler.
    fn tick(&mut self) {
        self.board().advance(1);
        self.interrupt();
    }

    /// The bench.
    fn board(&mut self) -> &'b Board<Self::Card> {
        self.slot().board
    }

    /// The result of the core's request `serial`, once it completed.
    fn take_core_result(&mut self, serial: u32) -> Option<RequestResult> {
        self.slot().take_core_result(serial)
    }

    /// The core's `set_ios`.
    fn set_ios(&mut self, hz: u32, timing: Timing, width: u8) {
        self.slot().set_ios(hz, timing, width);
    }

    /// Runs one request of the core to its end (`mmc_wait_for_req`), and the busy retry
    /// work whenever the slot logic scheduled it.
    fn core_request(&mut self, request: &Request, segments: &[Segment]) -> RequestResult {
        let serial = self.start_core(request, segments);
        for _ in 0..CORE_TICKS {
            if self.slot().take_busy_retry() {
                self.slot().run_busy_retry();
            } else {
                self.tick();
            }
            if let Some(result) = self.take_core_result(serial) {
                return result;
            }
        }
        panic!("the core's CMD{} never completed", request.cmd.opcode);
    }

    /// `mmc_wait_for_cmd`: one command without data, re-sent up to `retries` times while
    /// it fails.
    fn wait_for_cmd(&mut self, opcode: u32, arg: u32, flags: u32, retries: u32) -> CommandResult {
        let mut left = retries;
        loop {
            let result = self
                .core_request(&request(command(opcode, arg, flags)), &[])
                .cmd;
            if result.error.is_none() || left == 0 {
                return result;
            }
            left -= 1;
        }
    }

    /// A command that must succeed; its first response word.
    fn ok(&mut self, opcode: u32, arg: u32, flags: u32) -> u32 {
        let result = self.wait_for_cmd(opcode, arg, flags, 0);
        assert_eq!(result.error, None, "CMD{opcode}");
        result.response[0]
    }

    /// CMD13 (`__mmc_send_status`).
    fn send_status(&mut self, rca: u32, retries: u32) -> CommandResult {
        self.wait_for_cmd(13, rca << 16, R1 | AC, retries)
    }

    /// `mmc_poll_for_busy` with CMD13: until the card is back in the transfer state.
    fn poll_for_busy(&mut self, rca: u32) {
        let mut sleep_us: u64 = 32;
        for _ in 0..BUSY_POLLS {
            let status = self.send_status(rca, 5);
            if status.error.is_none() && ready_for_data(status.response[0]) {
                return;
            }
            self.board().model().elapse(sleep_us * 1_000);
            sleep_us = (sleep_us * 2).min(32_768);
        }
        panic!("the card never came back to the transfer state");
    }

    /// A single-block read of `len` bytes into the scratch buffer; its data.
    fn read_scratch(&mut self, opcode: u32, arg: u32, len: u32) -> Vec<u8> {
        assert!(len as usize <= SCRATCH_LEN);
        let read = Request {
            data: Some(data(Direction::Read, len, 1)),
            ..request(command(opcode, arg, R1 | ADTC))
        };
        let segment = Segment {
            bus_address: self.board().bus(SCRATCH_AT),
            len,
        };
        let result = self.core_request(&read, &[segment]);
        assert_eq!(result.first_error(), None, "CMD{opcode}: {result:?}");
        self.board().bytes(SCRATCH_AT, len as usize)
    }
}

/// CMD6 SWITCH, write byte `index` of EXT_CSD with `value`.
pub(crate) fn switch_arg(index: u32, value: u32) -> u32 {
    (3 << 24) | (index << 16) | (value << 8)
}

/// EXT_CSD bytes the bring-up writes.
const EXT_CSD_CMDQ_MODE_EN: u32 = 15;
const EXT_CSD_BUS_WIDTH: u32 = 183;
const EXT_CSD_HS_TIMING: u32 = 185;

/// `mmc_attach_mmc`, as far as the queue needs it: identification, high speed on an 8-bit
/// bus at 50 MHz, and with `command_queue` the card's command queue enabled.
pub(crate) fn bring_up_emmc<'b>(host: &mut impl CoreHost<'b>, command_queue: bool) {
    host.set_ios(400_000, Timing::Legacy, 1);
    host.wait_for_cmd(0, 0, NONE | BC, 0);
    let ready = (0..10).any(|_| host.ok(1, 0x40FF_8080, R3 | BCR) & (1 << 31) != 0);
    assert!(ready, "the eMMC never finished power-up");
    host.wait_for_cmd(2, 0, R2 | BCR, 0);
    host.ok(3, EMMC_RCA << 16, R1 | AC);
    host.set_ios(26_000_000, Timing::Legacy, 1);
    host.ok(7, EMMC_RCA << 16, R1B | AC);
    host.ok(6, switch_arg(EXT_CSD_HS_TIMING, 1), R1B | AC);
    host.set_ios(52_000_000, Timing::MmcHighSpeed, 1);
    host.ok(6, switch_arg(EXT_CSD_BUS_WIDTH, 2), R1B | AC);
    host.set_ios(52_000_000, Timing::MmcHighSpeed, 8);
    let ext_csd = host.read_scratch(8, 0, 512);
    assert_eq!(ext_csd[EXT_CSD_BUS_WIDTH as usize], 2);
    if command_queue {
        host.ok(6, switch_arg(EXT_CSD_CMDQ_MODE_EN, 1), R1B | AC);
    }
    let status = host.ok(13, EMMC_RCA << 16, R1 | AC);
    assert!(ready_for_data(status), "{status:#x}");
}

/// `mmc_attach_sd`, as far as the queue needs it: identification and a 4-bit bus at the
/// default-speed 25 MHz. Returns the card's RCA.
pub(crate) fn bring_up_sd<'b>(host: &mut impl CoreHost<'b>) -> u32 {
    host.set_ios(400_000, Timing::Legacy, 1);
    host.wait_for_cmd(0, 0, NONE | BC, 0);
    assert_eq!(host.ok(8, 0x1AA, R1 | BCR) & 0xFFF, 0x1AA);
    let ready = (0..10).any(|_| {
        host.ok(55, 0, R1 | AC);
        host.ok(41, (1 << 30) | 0x0030_0000, R3 | BCR) & (1 << 31) != 0
    });
    assert!(ready, "the SD card never finished power-up");
    host.wait_for_cmd(2, 0, R2 | BCR, 0);
    let rca = host.ok(3, 0, R1 | BCR) >> 16;
    host.ok(7, rca << 16, R1B | AC);
    host.set_ios(25_000_000, Timing::Legacy, 1);
    host.ok(55, rca << 16, R1 | AC);
    host.ok(6, 2, R1 | AC);
    host.set_ios(25_000_000, Timing::Legacy, 4);
    let status = host.ok(13, rca << 16, R1 | AC);
    assert!(ready_for_data(status), "{status:#x}");
    rca
}
