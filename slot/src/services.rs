// SPDX-License-Identifier: GPL-2.0

//! What the slot logic needs of the kernel ([`SlotKernel`]), the requests it handles and
//! the token a request holds on the controller.

use crate::cqhci::{self, CqhciBlock, Warnings};
use crate::hsq::HsqError;
use crate::mmc_request::{Data, ErrorStat, Request, RequestResult, Segment};
use crate::msdc::controller::{Controller, HwError, StartError};
use crate::msdc::regs::MsdcBase;
use crate::registers::Io;

use super::command_queue::{Operation, QueueEvent, SlotHardwareQueue, TaskEnd};
use super::software_queue::SoftwareQueue;

/// A request of the MMC core as the slot launches it.
pub trait SlotRequest {
    /// What mapping its data can fail with: the kernel's error.
    type Error;

    /// The request as the engines take it; `None` for one without a command.
    fn spec(&self) -> Option<Request>;

    /// The data phase, if any.
    fn data(&self) -> Option<Data>;

    /// Whether it is for an eMMC: the hardware's auto-CMD23 serves eMMC only (as upstream).
    fn for_mmc_card(&self) -> bool;

    /// Maps its data for the controller and returns the segments in order.
    fn map_data(&mut self) -> Result<impl Iterator<Item = Segment> + '_, Self::Error>;
}

/// A request the MMC core queued (`cqe_request`).
pub trait QueuedSlotRequest: SlotRequest {
    /// What names the request to the core's time-out (`cqe_timeout`).
    type Id: Copy + PartialEq;

    /// The block layer's tag.
    fn tag(&self) -> i32;

    /// The request's name.
    fn id(&self) -> Self::Id;

    /// The first block a data task moves (`mmc_data::blk_addr`) and its `MMC_DATA_*`
    /// flags; `None` without data.
    fn block_address_and_flags(&self) -> Option<(u32, u32)>;
}

/// The memory the controller's GPD/BD chain is written to.
pub trait DescriptorArea {
    /// Runs `write` on the area: its bus address and its bytes as the CPU writes them. The
    /// bytes are lent for the call only.
    fn with_area<T>(&mut self, write: impl FnOnce(u64, &mut [u8]) -> T) -> T;
}

/// Why the slot refuses or fails a request; the kernel turns each into its errno.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The controller runs another request (`-EBUSY`).
    ControllerBusy,
    /// The request has no command for the controller (`-EINVAL`).
    NoCommand,
    /// The controller refused to start command `opcode`; nothing reached the card.
    Start {
        /// The request's command.
        opcode: u32,
        /// Why.
        error: StartError,
    },
    /// The slot has no software queue (`-EINVAL`).
    NoSoftwareQueue,
    /// The slot has no command queue engine (`-EINVAL`).
    NoCommandQueue,
    /// A data task of blocks other than 512 bytes (`-EINVAL`).
    BlockSize(u32),
    /// The command queue engine refused the task of `tag`.
    Task {
        /// The block layer's tag.
        tag: u8,
        /// Why.
        error: cqhci::Error,
    },
    /// A tag outside the software queue's table: a requeue would meet it again (`-EINVAL`).
    TagOutOfRange,
    /// The tag's place in the table holds a request already (`-EBUSY`).
    TagInUse,
    /// The software queue refused the request.
    Queue(HsqError),
    /// The software queue dispatched a tag that holds no request (`-EIO`).
    NoRequestForTag,
    /// The bus stayed busy for the software queue's dispatch of command `opcode` (a card
    /// still programming) for `waited_ns` of the busy retry; nothing reached the card
    /// (`-ETIMEDOUT`, as [`StartError::BusBusy`]).
    BusBusy {
        /// The request's command.
        opcode: u32,
        /// How long the busy retry waited.
        waited_ns: u64,
    },
}

/// A software queue call that went wrong, for the kernel to log; the slot carries on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueFault {
    /// The queue dispatched `tag`, which holds no request: reported failed so that the
    /// queue moves on.
    NoRequestForTag(u8),
    /// `host_busy` refused the deferral of a dispatch.
    DeferralRefused(HsqError),
    /// `request_done` refused a completion.
    CompletionRefused(HsqError),
}

/// Where a request in flight came from, and so how it goes back.
pub enum Owner<R, Q> {
    /// The core's `request` callback (one at a time, or a command outside the queue).
    Core(R),
    /// The host software queue, which dispatched it under `tag`.
    Queue {
        /// The request.
        request: Q,
        /// Its place in the queue.
        tag: u8,
    },
}

/// A request of either kind, as the kernel `K` has them.
pub type SlotOwner<K> = Owner<<K as SlotKernel>::Request, <K as SlotKernel>::Queued>;

/// A request that could not start, with the error to fail it with.
pub(crate) type NotStarted<K> = (SlotOwner<K>, <K as SlotKernel>::Error);

/// The controller's token for the request it runs: the request itself and what the
/// watchdog and the error messages need.
pub struct InFlight<K: SlotKernel + ?Sized> {
    /// The request.
    pub owner: SlotOwner<K>,
    /// Its command.
    pub opcode: u32,
    /// A probe of a tuning sweep, whose failure is expected, not an error.
    pub tuning_probe: bool,
    /// When it went to the controller.
    pub started: K::Instant,
}

/// The slot's engines as the lock holds them.
pub struct SlotView<'a, K: SlotKernel + ?Sized> {
    /// The request engine.
    pub controller: &'a mut Controller<InFlight<K>>,
    /// Where the controller's descriptor chains go.
    pub descriptors: &'a mut K::Descriptors,
    /// The host software queue, on a slot that has one.
    pub software_queue: Option<&'a mut SoftwareQueue<K::Queued>>,
    /// The CQHCI command queue engine, on a slot that has one.
    pub hardware_queue: Option<&'a mut SlotHardwareQueue<K>>,
    /// The host has left the MMC core (driver removal): no interrupt may ask it for a
    /// rescan or signal an SDIO card any more.
    pub host_removed: bool,
}

/// What the slot logic needs of the kernel.
///
/// The methods that say "any context" may be called with the lock held, so they must not
/// take it; the others are called with the lock released and may take it.
pub trait SlotKernel {
    /// The controller's registers, its CQHCI block's included.
    type Regs: Io<MsdcBase> + Io<CqhciBlock>;
    /// A request of the core's `request` callback.
    type Request: SlotRequest<Error = Self::Error>;
    /// A request of the core's `cqe_request`.
    type Queued: QueuedSlotRequest<Error = Self::Error>;
    /// The descriptor memory.
    type Descriptors: DescriptorArea;
    /// The CQHCI engine's descriptor memory: its task descriptor list, then its transfer
    /// descriptors.
    type TaskMemory: DescriptorArea;
    /// What a failed request completes with (an errno).
    type Error;
    /// A point in time, for the watchdog.
    type Instant;

    /// The controller's registers.
    fn regs(&self) -> &Self::Regs;

    /// Runs `f` with the slot's lock held.
    fn with_slot<T>(&self, f: impl FnOnce(SlotView<'_, Self>) -> T) -> T;

    /// Now. Any context.
    fn now(&self) -> Self::Instant;

    /// The nanoseconds since `since`. Any context.
    fn elapsed_ns(&self, since: &Self::Instant) -> u64;

    /// The error a request refused for `refusal` fails with (logged where it is worth it).
    /// Any context.
    fn refusal_error(&self, refusal: Refusal) -> Self::Error;

    /// A bounded hardware wait that ran out in the engine: log and count it. Any context.
    fn hardware_fault(&self, fault: HwError);

    /// A software queue call went wrong: log it. Any context.
    fn queue_fault(&self, fault: QueueFault);

    /// A request went to the controller: make sure the watchdog looks at it within
    /// [`REQUEST_TIMEOUT_MS`](super::watchdog::REQUEST_TIMEOUT_MS).
    fn arm_watchdog(&self);

    /// The watchdog aborted the request of command `opcode`, which ran too long: log it.
    fn request_timed_out(&self, opcode: u32);

    /// A request was accepted (counted). Any context.
    fn request_issued(&self);

    /// A request that ran ended with `result` (counted and logged).
    fn request_finished(&self, opcode: u32, tuning_probe: bool, result: &RequestResult);

    /// Completes a request of the core's `request` callback with `result`.
    fn complete(&self, request: Self::Request, result: &RequestResult);

    /// Completes a queued request with `result` (`mmc_cqe_request_done`); the core may
    /// call back into the queue from it (recovery).
    fn complete_queued(&self, request: Self::Queued, result: &RequestResult);

    /// Completes a request of the core's `request` callback that never reached the bus.
    fn fail(&self, request: Self::Request, error: Self::Error);

    /// Completes a queued request that never reached the bus.
    fn fail_queued(&self, request: Self::Queued, error: Self::Error);

    /// Wakes whoever sleeps until the queue is idle or recovery starts.
    fn wake_idle_waiters(&self);

    /// The software queue dispatches its request under `tag` with `depth`: publish the
    /// depth (`mmc_host::hsq_depth`) before the request goes to the controller (or waits
    /// for it). Any context.
    fn dispatching(&self, tag: u8, depth: u8);

    /// Signals the SDIO card's interrupt to the core. Any context.
    fn signal_sdio_irq(&self);

    /// The card-detect line changed: the core rescans after the debounce. Any context, with
    /// the lock held.
    fn card_changed(&self);

    /// A dispatch of the software queue, or the stop command of the request on the
    /// controller, found the bus busy (a card still programming), or the request's DMA
    /// stop has not taken effect within the interrupt's polls, and waits: run
    /// [`retry_busy`](super::software_queue::retry_busy) from process context,
    /// with the lock released, sleeping between calls as it answers, until it answers
    /// [`BusWait::Done`](super::software_queue::BusWait::Done). A retry queued and not yet
    /// running serves (it sees this dispatch); one that runs must run again.
    fn schedule_busy_retry(&self);

    /// Publishes whether the CQHCI engine is on (`mmc_host::cqe_on`), after each engine
    /// call: the core halts it (`cqe_off`) before a command of its own. Any context.
    fn set_cqe_on(&self, on: bool);

    /// A task was issued to the CQHCI engine (counted). Any context.
    fn task_issued(&self, direct: bool);

    /// The task of `request` needs error recovery: tells the core
    /// (`mrq->recovery_notifier`). Any context, with the lock held.
    fn notify_recovery(&self, request: &Self::Queued);

    /// Completes a CQHCI task's request as `end` says (`mmc_cqe_request_done`); the core
    /// may call back into the queue from it.
    fn complete_task(&self, request: Self::Queued, end: TaskEnd);

    /// Sleeps until `wait`'s register condition holds or its time is up (the engine copes
    /// with either), with the lock released: process context.
    fn sleep_until(&self, wait: cqhci::Wait);

    /// A CQHCI operation ran into problems: log them. Any context.
    fn cqe_warnings(&self, operation: Operation, warnings: Warnings);

    /// Something of the CQHCI engine to log. Any context.
    fn cqe_event(&self, event: QueueEvent);

    /// Counts an error of the CQHCI mode in the core's statistics
    /// (`mmc_host::err_stats`). Any context.
    fn count_error(&self, stat: ErrorStat);
}
