// SPDX-License-Identifier: GPL-2.0

//! The kernel's services to the slot logic (`slot/`): the slot's lock, requests of the
//! MMC abstraction layer completed to the core, the watchdog, the counters and the log.

use core::sync::atomic::Ordering;

use kernel::{
    prelude::*,
    sync::Arc,
    time::{Delta, Instant, Monotonic},
};

use super::{
    counters::result_errors, hardware_queue::cqhci_errno, software_queue::hsq_errno, Msdc, Queue,
    State, CARD_DETECT_DELAY_MS,
};
use crate::{
    backend::RegisterWindow,
    cqhci,
    kernel_mmc::{DescriptorMemory, QueuedRequest, Request, RequestId},
    mmc_request::{Data, ErrorStat, RequestResult, Segment},
    msdc::controller::HwError,
    slot::{
        command_queue::{Operation, QueueEvent, TaskEnd},
        watchdog, DescriptorArea, QueueFault, QueuedSlotRequest, Refusal, SlotKernel, SlotRequest,
        SlotView,
    },
};

impl SlotRequest for Request {
    type Error = Error;

    fn spec(&self) -> Option<crate::mmc_request::Request> {
        Request::spec(self)
    }

    fn data(&self) -> Option<Data> {
        Request::data(self)
    }

    fn for_mmc_card(&self) -> bool {
        Request::for_mmc_card(self)
    }

    fn map_data(&mut self) -> Result<impl Iterator<Item = Segment> + '_> {
        Request::map_data(self)
    }
}

impl SlotRequest for QueuedRequest {
    type Error = Error;

    fn spec(&self) -> Option<crate::mmc_request::Request> {
        self.request().spec()
    }

    fn data(&self) -> Option<Data> {
        self.request().data()
    }

    fn for_mmc_card(&self) -> bool {
        self.request().for_mmc_card()
    }

    fn map_data(&mut self) -> Result<impl Iterator<Item = Segment> + '_> {
        self.request_mut().map_data()
    }
}

impl QueuedSlotRequest for QueuedRequest {
    type Id = RequestId;

    fn tag(&self) -> i32 {
        QueuedRequest::tag(self)
    }

    fn id(&self) -> RequestId {
        QueuedRequest::id(self)
    }

    fn block_address_and_flags(&self) -> Option<(u32, u32)> {
        QueuedRequest::block_address_and_flags(self)
    }
}

impl DescriptorArea for DescriptorMemory {
    fn with_area<T>(&mut self, write: impl FnOnce(u64, &mut [u8]) -> T) -> T {
        let bus = self.bus_address();
        write(bus, self.cpu_view())
    }
}

impl State {
    /// The slot's engines as the slot logic sees them, with the lock held.
    pub(super) fn view(&mut self) -> SlotView<'_, Arc<Msdc>> {
        let (software_queue, hardware_queue) = match &mut self.queue {
            Queue::Software(queue) => (Some(&mut **queue), None),
            Queue::Hardware(queue) => (None, Some(&mut **queue)),
            _ => (None, None),
        };
        SlotView {
            controller: &mut self.controller,
            descriptors: &mut self.descriptors,
            software_queue,
            hardware_queue,
            host_removed: self.removed,
        }
    }
}

impl SlotKernel for Arc<Msdc> {
    type Regs = RegisterWindow;
    type Request = Request;
    type Queued = QueuedRequest;
    type Descriptors = DescriptorMemory;
    type TaskMemory = DescriptorMemory;
    type Error = Error;
    type Instant = Instant<Monotonic>;

    fn regs(&self) -> &RegisterWindow {
        &self.regs
    }

    fn with_slot<T>(&self, f: impl FnOnce(SlotView<'_, Self>) -> T) -> T {
        f(self.state.lock().view())
    }

    fn now(&self) -> Instant<Monotonic> {
        Instant::now()
    }

    fn elapsed_ns(&self, since: &Instant<Monotonic>) -> u64 {
        u64::try_from(since.elapsed().as_nanos()).unwrap_or(0)
    }

    fn refusal_error(&self, refusal: Refusal) -> Error {
        match refusal {
            Refusal::Start { opcode, error } => self.start_failed(opcode, error),
            Refusal::ControllerBusy | Refusal::TagInUse => EBUSY,
            Refusal::NoCommand
            | Refusal::NoSoftwareQueue
            | Refusal::NoCommandQueue
            | Refusal::BlockSize(_)
            | Refusal::TagOutOfRange => EINVAL,
            Refusal::Task { tag, error } => {
                if !matches!(error, cqhci::Error::Busy | cqhci::Error::SlotBusy) {
                    dev_err!(self.dev, "CQHCI refused tag {}: {:?}\n", tag, error);
                }
                cqhci_errno(error)
            }
            Refusal::Queue(error) => hsq_errno(error),
            Refusal::NoRequestForTag => EIO,
            // The card held DAT0 low past the busy retry's limit: as a busy bus at the
            // controller's start; the core's recovery checks the card.
            Refusal::BusBusy { opcode, waited_ns } => {
                dev_err!(
                    self.dev,
                    "CMD{}: the card is still busy (DAT0 low) after {} ms of retries\n",
                    opcode,
                    waited_ns / 1_000_000
                );
                ETIMEDOUT
            }
        }
    }

    fn hardware_fault(&self, fault: HwError) {
        self.log_hardware_fault(fault);
    }

    fn queue_fault(&self, fault: QueueFault) {
        match fault {
            QueueFault::NoRequestForTag(tag) => {
                dev_err!(self.dev, "software queue: no request for tag {}\n", tag)
            }
            QueueFault::DeferralRefused(e) => {
                dev_err!(self.dev, "software queue: deferral refused: {:?}\n", e)
            }
            QueueFault::CompletionRefused(e) => {
                dev_err!(self.dev, "software queue: completion refused: {:?}\n", e)
            }
        }
    }

    fn arm_watchdog(&self) {
        Msdc::arm_watchdog(
            self,
            Delta::from_millis(i64::from(watchdog::REQUEST_TIMEOUT_MS)),
        );
    }

    fn request_timed_out(&self, opcode: u32) {
        dev_err!(
            self.dev,
            "CMD{} did not complete in {} ms; controller reset\n",
            opcode,
            watchdog::REQUEST_TIMEOUT_MS
        );
        // Its result, finished next, adds the time-out of the phase that was running.
        self.host.count_error(ErrorStat::RequestTimeout);
    }

    fn request_issued(&self) {
        self.counters.issued();
    }

    fn request_finished(&self, opcode: u32, tuning_probe: bool, result: &RequestResult) {
        if let Some(kind) = result.data.and_then(|data| data.error) {
            dev_dbg!(self.dev, "CMD{} data phase failed: {:?}\n", opcode, kind);
        }
        if tuning_probe {
            // A failed probe is part of tuning, which the core counts as a whole.
            self.counters
                .tuning_probe_completed(result_errors(result).next().is_some());
        } else {
            self.counters.completed(result_errors(result));
            for stat in result.error_stats() {
                self.host.count_error(stat);
            }
        }
    }

    fn complete(&self, request: Request, result: &RequestResult) {
        request.complete(result);
    }

    fn complete_queued(&self, request: QueuedRequest, result: &RequestResult) {
        request.complete(result);
    }

    fn fail(&self, request: Request, error: Error) {
        self.counters.failed();
        request.fail(error);
    }

    fn fail_queued(&self, request: QueuedRequest, error: Error) {
        self.counters.failed();
        request.fail(error);
    }

    fn wake_idle_waiters(&self) {
        self.idle.notify_all();
    }

    fn dispatching(&self, _tag: u8, depth: u8) {
        self.host.set_hsq_depth(depth);
        self.counters
            .queue_depth
            .store(u32::from(depth), Ordering::Relaxed);
    }

    fn signal_sdio_irq(&self) {
        self.host.signal_sdio_irq();
    }

    fn card_changed(&self) {
        self.host.detect_change(CARD_DETECT_DELAY_MS);
    }

    fn schedule_busy_retry(&self) {
        self.counters.busy_retry();
        Msdc::schedule_busy_retry(self);
    }

    fn set_cqe_on(&self, on: bool) {
        self.host.set_cqe_on(on);
    }

    fn task_issued(&self, direct: bool) {
        self.counters.issued();
        if direct {
            self.counters
                .direct_commands
                .fetch_add(1, Ordering::Relaxed);
        }
    }

    fn notify_recovery(&self, request: &QueuedRequest) {
        request.notify_recovery();
    }

    fn complete_task(&self, request: QueuedRequest, end: TaskEnd) {
        self.counters.completed(end.error);
        request.complete_task(end.bytes, end.error, end.response);
    }

    fn sleep_until(&self, wait: cqhci::Wait) {
        Msdc::sleep_until(self, wait);
    }

    fn cqe_warnings(&self, operation: Operation, warnings: cqhci::Warnings) {
        self.log_warnings(operation, warnings);
    }

    fn cqe_event(&self, event: QueueEvent) {
        self.log_queue_event(event);
    }

    fn count_error(&self, stat: ErrorStat) {
        self.host.count_error(stat);
    }
}
