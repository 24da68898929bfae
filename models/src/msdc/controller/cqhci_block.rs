// SPDX-License-Identifier: GPL-2.0
//! The CQHCI block on the MSDC's bus: access to the block, whether it owns the bus, and its
//! steps against the card, charged at the MSDC's bus clock and width, with the
//! host-detected errors it reports latched in `MSDC_INT`.

use super::super::super::{
    cqhci::{CqhciModel, HostErrorKind},
    latency::ResponseLength,
    memory::BusMemory,
};
use super::super::{
    regs::MSDC_INT,
    slot::{BusWork, CardSlot, Metered, QueueClock},
};
use super::{interrupts::Event, MsdcModel};

impl MsdcModel {
    /// The CQHCI block, if the controller has one (for a test to inspect it, or to inject
    /// its faults through [`CqhciModel::inject`]).
    pub fn cqhci(&self) -> Option<&CqhciModel> {
        self.cqhci.as_ref()
    }

    /// The CQHCI block, mutably (see [`MsdcModel::cqhci`]).
    pub fn cqhci_mut(&mut self) -> Option<&mut CqhciModel> {
        self.cqhci.as_mut()
    }

    /// Whether the CQHCI block owns the bus: enabled and not halted (a halt still pending
    /// does not count: the block may be running a task).
    pub(super) fn cqhci_owns_bus(&self) -> bool {
        self.cqhci
            .as_ref()
            .is_some_and(|c| c.is_enabled() && !c.is_halted())
    }

    /// Before a queue status poll of a timed queue that would find nothing ready: lets the
    /// polls that find nothing ready pass (each a CMD13 and the idle timer's wait), so that
    /// the poll the step makes is the first at or after the earliest ready time. A block
    /// with a task whose access is under way then waits for it in one step, not in as many
    /// polls as fit in the access time.
    fn wait_for_ready_task(&mut self) {
        let latency = self.config.latency;
        let Some(cq) = self.cqhci.as_ref() else {
            return;
        };
        if latency.queue_units == 0 {
            return;
        }
        let Some(waits_idle) = cq.next_step_polls() else {
            return;
        };
        let (pending, now) = (cq.tasks_in_device(), self.clock_ns);
        if self.task_timer.ready_mask(pending, now) & pending != 0 {
            return;
        }
        let Some(ready_at) = self.task_timer.next_ready(pending, now) else {
            return;
        };
        // The coalescing timer raises its interrupt while the block polls: the wait ends
        // at the poll on which it expires.
        let ready_at = cq
            .coalescing_deadline_ns()
            .map_or(ready_at, |deadline| ready_at.min(deadline));
        let idle = cq.idle_wait_ns();
        let poll = latency.command_ns(ResponseLength::Short, self.bus_clock_hz());
        let first = now.saturating_add(if waits_idle { idle } else { 0 });
        if first >= ready_at {
            return;
        }
        let period = poll.saturating_add(idle);
        let wait = if period == 0 {
            ready_at - first
        } else {
            (ready_at - first).div_ceil(period).saturating_mul(period)
        };
        self.charge_split(0, 0, wait);
    }

    /// Charges what the CQHCI block did on the bus, at the clock and width `MSDC_CFG` and
    /// `SDC_CFG` select: its commands (48-bit responses) and its data in 512-byte blocks
    /// ([`BusWork`] says how a task's access counts), then the card's busy work.
    fn charge_bus_work(&mut self, seen: &BusWork) {
        let ns = seen.bus_ns(&self.config.latency, self.bus_setting());
        let bus = seen
            .bus_ns(&self.config.latency.bus_only(), self.bus_setting())
            .saturating_sub(seen.access_wait_ns)
            .min(ns);
        self.charge_split(bus, ns - bus, 0);
        for &work in &seen.work {
            self.charge_work(work);
        }
    }

    /// One step of the CQHCI block on the bus: its exchanges with the card are charged at
    /// the MSDC's bus clock and width (and its send-status idle timer as waited time), and
    /// the host-detected errors it reports (the host's
    /// own status on MediaTek) latch in `MSDC_INT` with `CMDQ`, as `msdc_cmdq_irq` reads
    /// them (command: CMDTMO or RSPCRCERR; data: DATTMO or DATCRCERR).
    pub(super) fn step_cqhci<C: CardSlot + ?Sized, M: BusMemory>(
        &mut self,
        card: &mut C,
        mem: &mut M,
    ) -> bool {
        if self.cqhci.is_none() {
            return false;
        }
        self.wait_for_ready_task();
        let (latency, bus, start) = (self.config.latency, self.bus_setting(), self.clock_ns);
        let Some(cq) = self.cqhci.as_mut() else {
            return false;
        };
        let clock = (latency.queue_units != 0).then_some(QueueClock {
            timer: &mut self.task_timer,
            latency,
            bus,
            start,
        });
        // The block's clock (its coalescing timer) at the step's start.
        cq.advance_to(start);
        let mut metered = Metered::new(card, clock);
        let progressed = cq.step(&mut metered, mem);
        let errors = cq.take_host_errors();
        let waited = cq.take_waited_ns();
        let seen = metered.seen();
        self.charge_bus_work(&seen);
        self.charge_split(0, 0, waited);
        // A completion the step counted starts the coalescing timer when its work ends.
        let end = self.clock_ns;
        if let Some(cq) = self.cqhci.as_mut() {
            cq.advance_to(end);
        }
        let command: Option<Event> = errors.command.map(|kind| match kind {
            HostErrorKind::Crc => MSDC_INT::with_rspcrcerr as Event,
            HostErrorKind::Timeout | HostErrorKind::Other => MSDC_INT::with_cmdtmo,
        });
        let data: Option<Event> = errors.data.map(|kind| match kind {
            HostErrorKind::Crc => MSDC_INT::with_datcrcerr as Event,
            HostErrorKind::Timeout | HostErrorKind::Other => MSDC_INT::with_dattmo,
        });
        for event in [command, data].into_iter().flatten() {
            self.raise(event);
            self.cmdq_error = true;
        }
        // The MSDC's data path latches its transfer-complete for a task's data phase too;
        // in command queue mode no interrupt is enabled for it (see `stale.rs`).
        if errors.data.is_none() && seen.read_bytes.saturating_add(seen.written_bytes) > 0 {
            let last = self.cqhci.as_ref().is_some_and(|c| !c.tasks_in_progress());
            self.task_transfer_complete(last);
        }
        progressed
    }
}
