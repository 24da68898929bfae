// SPDX-License-Identifier: GPL-2.0
//! The CQHCI block model: registers, descriptor fetch, task queueing on the card, status
//! polling, DMA through transfer descriptors, completion, halt/clear, coalescing and faults.
//!
//! Time advances one [`CqhciModel::step`] at a time; each step does at most one unit of work
//! (halt, clear, fetch-and-queue one task, poll the queue status, or execute one task
//! including its data transfer). Halt therefore takes effect between tasks.
//!
//! While no queued task is ready the block polls the card's queue status (CMD13 with SQS)
//! at the send-status idle timer: after a poll that found nothing ready, the next one waits
//! `CQSSC1.CIT` clocks of the internal timer (`CQCAP.ITCFMUL` × `ITCFVAL`) first. The
//! block does not stop for that wait: the poll step takes it, and the host that runs the
//! model charges it as simulated time ([`CqhciModel::take_waited_ns`]), so a model that
//! waits is never one that reports no work. When tasks become ready is the card's business
//! (the MSDC model's timed queue gates the queue status it answers with); the block tells
//! its host whether its next step is a poll ([`CqhciModel::next_step_polls`]) and how long
//! its idle wait is ([`CqhciModel::idle_wait_ns`]), so that the host can let a long access
//! pass in one step.
//!
//! Interrupt coalescing (CQIC) counts the completions of tasks whose descriptor has INT = 0
//! against ICCTH and times them on the block's clock, which its host moves on
//! ([`CqhciModel::advance_to`]): the timer starts at the first counted completion after a
//! reset (ICCTR) and raises the interrupt ICTOVAL × 1024 internal timer clocks later; a host
//! that runs the block only when it has work asks for that time
//! ([`CqhciModel::coalescing_deadline_ns`]).

use super::super::bus::{RegisterFile, Serves};
use super::super::emmc::command::{QUEUED_TASK_PARAMS, RCA_ARG, TASK_ARG};
use super::super::emmc::{Command, NoResponse, QueuedTask, Response};
use super::super::memory::{BusFault, BusMemory};
use super::super::msdc::CardSlot;
use super::super::windows::CqhciBlock;
use super::desc::{
    crypto_requested, decode_data_desc, decode_data_task, decode_dcmd, Act, DataDesc, DataTaskDesc,
    TaskDescError,
};
use super::regs::{
    CQCAP, CQCFG, CQCRA, CQCRDCT, CQCRI, CQCTL, CQDPT, CQDQS, CQIC, CQIS, CQISGE, CQISTE, CQRMEM,
    CQRMEM_RESET, CQSSC1, CQSSC1_RESET, CQSSC2, CQTCLR, CQTCN, CQTDBR, CQTDLBA, CQTDLBAU, CQTDPE,
    CQTERRI, CQVER,
};
use crate::registers::FieldOverflow;

/// Integration choices of a controller (what the SoC fixes, not software).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelConfig {
    /// 64-bit addressing in link and transfer descriptors.
    pub dma64: bool,
    /// 64-bit transfer descriptors are 12 bytes apart (the short descriptor quirk).
    pub short_transfer_descriptor: bool,
    /// CQVER value.
    pub version: CQVER,
    /// CQCAP value.
    pub capabilities: CQCAP,
}

impl ModelConfig {
    /// A MediaTek-like integration: 64-bit DMA, 16-byte transfer descriptors, CQHCI 5.10.
    pub const MEDIATEK: ModelConfig = ModelConfig {
        dma64: true,
        short_transfer_descriptor: false,
        version: CQVER::zeroed()
            .with_const_emmc_ver_major::<5>()
            .with_const_emmc_ver_minor::<1>(),
        // A 200 MHz timer clock: 200 units of 1 MHz.
        capabilities: CQCAP::zeroed()
            .with_const_itcfmul::<3>()
            .with_const_itcfval::<200>(),
    };
}

/// Internal timer clocks per ICTOVAL unit (JESD84-B51, CQIC: the timeout counts in units of
/// 1024 clocks of the clock whose frequency CQCAP's ITCFMUL and ITCFVAL give).
pub const COALESCING_CLOCKS_PER_UNIT: u64 = 1024;

/// The interrupt coalescing timer (JESD84-B51, CQIC.ICTOVAL): reset by software (ICCTR),
/// it starts when the first task with INT = 0 completes after the reset, and when it
/// reaches ICTOVAL it raises the interrupt and stops until the next reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CoalescingTimer {
    /// Reset: waits for a counted completion.
    Idle,
    /// A counted completion in the step under way: the timer starts at the block's clock
    /// when its host next moves it on ([`CqhciModel::advance_to`]), the end of the step's
    /// work.
    Starting,
    /// Running since this time on the block's clock, ns.
    Running { since_ns: u64 },
    /// Reached ICTOVAL and raised the interrupt: stopped until the next reset.
    Expired,
}

/// An error the host controller detects itself and reports outside CQIS (in MSDC_INT on
/// MediaTek), together with the CQE interrupt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostErrorKind {
    /// CRC error.
    Crc,
    /// Timeout.
    Timeout,
    /// DMA or descriptor error.
    Other,
}

/// The host-detected errors pending, for command and for data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostErrors {
    /// A command error.
    pub command: Option<HostErrorKind>,
    /// A data error.
    pub data: Option<HostErrorKind>,
}

/// A fault to inject. Each fault fires once, when its trigger comes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The card's response to CMD`command` for task `tag` carries an error bit (RED, TERRI).
    ResponseError {
        /// The task.
        tag: u8,
        /// 44, 45, 46 or 47 (or the direct command's index for tag 31).
        command: u8,
    },
    /// CMD46/47 of task `tag` gets no response (host command timeout, TERRI).
    CommandTimeout {
        /// The task.
        tag: u8,
    },
    /// Task `tag`'s data fails its CRC check (host data CRC error, TERRI).
    DataCrc {
        /// The task.
        tag: u8,
    },
    /// Task `tag`'s descriptor is rejected when fetched (ICCE, CQTDPE).
    DescriptorError {
        /// The task.
        tag: u8,
    },
    /// The next completion also sets these CQTCN bits, of the slots without a task then.
    SpuriousCompletion {
        /// Extra CQTCN bits.
        mask: u32,
    },
    /// The card never reports task `tag` ready (a lost task; until cleared).
    Stall {
        /// The task.
        tag: u8,
    },
    /// The next halt request is ignored.
    IgnoreHalt,
    /// The next CLEAR ALL TASKS never completes (until the controller is disabled).
    IgnoreClear,
}

/// Something software did that the specification does not allow, or a malformed descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Violation {
    /// CQCFG changed (other than ENABLE) while enabled.
    ConfigChangedWhileEnabled,
    /// CQTDLBA/CQTDLBAU written while enabled.
    ListBaseChangedWhileEnabled,
    /// Doorbell rung while disabled.
    DoorbellWhileDisabled,
    /// Doorbell rung for a slot that already holds a task.
    DoorbellOnBusySlot(u8),
    /// A task descriptor could not be decoded.
    BadTaskDescriptor(u8, TaskDescError),
    /// A slot's link descriptor is not a valid link.
    BadLink(u8),
    /// A transfer descriptor is invalid (VALID clear or a wrong ACT).
    BadTransfer(u8),
    /// The transfer descriptors do not add up to the block count.
    LengthMismatch(u8),
    /// A DMA access hit unmapped memory.
    Bus(u64),
    /// The card refused a data phase the controller started.
    CardData(u8),
    /// The card did not answer the queue status poll (wrong RCA in CQSSC2?).
    NoStatusResponse,
    /// CQTCLR written while not halted.
    TaskClearWhileRunning,
    /// A value the model put in a register or a command argument did not fit its field: a
    /// bug of the model, reported like a violation so that no test passes over it.
    FieldOverflow(FieldOverflow),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotState {
    Empty,
    /// Doorbell rung, not yet fetched.
    Pending,
    /// Queued in the device (CMD44/45 accepted).
    Queued(DataTaskDesc),
}

const SLOTS: usize = 32;

/// Task `tag`'s bit in the task bitmaps (CQTDBR, CQTCN, CQDQS, CQDPT, CQTCLR, CQTDPE), where
/// bit `n` is task `n`; `tag` is below 32.
fn task_bit(tag: usize) -> u32 {
    // Slot numbers are small: the conversion keeps them.
    1u32.wrapping_shl(tag as u32)
}
const DCMD_TAG: u8 = 31;
const FAULT_SLOTS: usize = 8;
const MAX_DESCRIPTORS_PER_TASK: u32 = 4096;

/// The CQHCI block.
#[derive(Debug)]
pub struct CqhciModel {
    config: ModelConfig,
    cfg: CQCFG,
    halt_requested: bool,
    halted: bool,
    clear_requested: bool,
    /// An injected fault keeps the pending CLEAR ALL TASKS from ever completing.
    clear_stuck: bool,
    is: CQIS,
    iste: CQISTE,
    isge: CQISGE,
    /// What CQIC was programmed with: enable, threshold and timeout.
    ic: CQIC,
    ic_counter: u32,
    ic_timer: CoalescingTimer,
    /// The block's clock, ns: what its host last passed to [`CqhciModel::advance_to`] or
    /// added with [`CqhciModel::elapse`] (the coalescing timer runs on it).
    clock_ns: u64,
    tdlba: CQTDLBA,
    tdlbau: CQTDLBAU,
    // The task bitmaps (CQTDBR, CQTCN, CQDQS, CQDPT, CQTDPE): bit `n` is task `n`.
    tdbr: u32,
    tcn: u32,
    dqs: u32,
    dpt: u32,
    tdpe: u32,
    ssc1: CQSSC1,
    ssc2: CQSSC2,
    crdct: CQCRDCT,
    rmem: CQRMEM,
    terri: CQTERRI,
    cri: CQCRI,
    cra: CQCRA,
    slots: [SlotState; SLOTS],
    order: [u8; SLOTS],
    order_len: usize,
    /// An error stopped the engine; software must halt and clear (or disable).
    error_stop: bool,
    host_errors: HostErrors,
    faults: [Option<Fault>; FAULT_SLOTS],
    stalled: u32,
    violations: u32,
    last_violation: Option<Violation>,
    completions: u32,
    steps: u64,
    /// The last queue status poll found no task ready: the next one waits the idle timer.
    polled_idle: bool,
    /// Internal timer clocks waited (idle timer) since [`CqhciModel::take_waited_ns`].
    waited_clocks: u64,
}

/// Nanoseconds in a second.
const NS_PER_SECOND: u64 = 1_000_000_000;

impl CqhciModel {
    /// A controller after reset.
    pub fn new(config: ModelConfig) -> Self {
        Self {
            config,
            cfg: CQCFG::zeroed(),
            halt_requested: false,
            halted: false,
            clear_requested: false,
            clear_stuck: false,
            is: CQIS::zeroed(),
            iste: CQISTE::zeroed(),
            isge: CQISGE::zeroed(),
            ic: CQIC::zeroed(),
            ic_counter: 0,
            ic_timer: CoalescingTimer::Idle,
            clock_ns: 0,
            tdlba: CQTDLBA::zeroed(),
            tdlbau: CQTDLBAU::zeroed(),
            tdbr: 0,
            tcn: 0,
            dqs: 0,
            dpt: 0,
            tdpe: 0,
            ssc1: CQSSC1_RESET,
            ssc2: CQSSC2::zeroed(),
            crdct: CQCRDCT::zeroed(),
            rmem: CQRMEM_RESET,
            terri: CQTERRI::zeroed(),
            cri: CQCRI::zeroed(),
            cra: CQCRA::zeroed(),
            slots: [SlotState::Empty; SLOTS],
            order: [0; SLOTS],
            order_len: 0,
            error_stop: false,
            host_errors: HostErrors::default(),
            faults: [None; FAULT_SLOTS],
            stalled: 0,
            violations: 0,
            last_violation: None,
            completions: 0,
            steps: 0,
            polled_idle: false,
            waited_clocks: 0,
        }
    }

    /// The internal timer's frequency as `CQCAP` gives it (ITCFVAL in units of ITCFMUL:
    /// 0 = 1 kHz, 1 = 10 kHz, 2 = 100 kHz, 3 = 1 MHz, 4 = 10 MHz); `None` for a reserved
    /// multiplier or a zero value.
    pub fn timer_hz(&self) -> Option<u64> {
        let cap = self.config.capabilities;
        let unit: u64 = match cap.itcfmul() {
            0 => 1_000,
            1 => 10_000,
            2 => 100_000,
            3 => 1_000_000,
            4 => 10_000_000,
            _ => return None,
        };
        let hz = unit.saturating_mul(u64::from(cap.itcfval()));
        (hz != 0).then_some(hz)
    }

    /// The time the block waited on its send-status idle timer since the last call, in ns
    /// (rounded up); the count restarts at 0. Without a usable timer frequency in `CQCAP`
    /// the wait takes no time.
    pub fn take_waited_ns(&mut self) -> u64 {
        let clocks = core::mem::take(&mut self.waited_clocks);
        match self.timer_hz() {
            Some(hz) => clocks.saturating_mul(NS_PER_SECOND).div_ceil(hz),
            None => 0,
        }
    }

    fn enabled(&self) -> bool {
        self.cfg.cq_en()
    }

    fn violation(&mut self, v: Violation) {
        self.violations = self.violations.saturating_add(1);
        self.last_violation = Some(v);
    }

    /// The value a field setter built or, if it refused the value (a model bug), a violation
    /// and `fallback`.
    fn checked<T>(&mut self, built: Result<T, FieldOverflow>, fallback: T) -> T {
        built.unwrap_or_else(|overflow| {
            self.violation(Violation::FieldOverflow(overflow));
            fallback
        })
    }

    fn write_cfg(&mut self, value: CQCFG) {
        let was = self.cfg;
        if was.cq_en() && value.cq_en() && was != value {
            self.violation(Violation::ConfigChangedWhileEnabled);
        }
        self.cfg = value;
        if was.cq_en() && !value.cq_en() {
            // Disabling forgets every task and leaves halt.
            self.forget_tasks();
            self.halted = false;
            self.halt_requested = false;
            self.clear_requested = false;
            self.clear_stuck = false;
        }
    }

    fn write_ctl(&mut self, value: CQCTL) {
        if value.halt() {
            if !self.halted && !self.halt_requested && !self.take_fault(|f| f == Fault::IgnoreHalt)
            {
                self.halt_requested = true;
            }
        } else {
            self.halt_requested = false;
            self.halted = false;
        }
        if value.clr_all_tasks() && !self.clear_requested {
            self.clear_requested = true;
            self.clear_stuck = self.take_fault(|f| f == Fault::IgnoreClear);
        }
    }

    fn write_ic(&mut self, value: CQIC) {
        let mut ic = self.ic.with_icendis(value.icendis());
        if value.iccthwen() {
            ic = self.checked(ic.try_with_iccth(value.iccth()), ic);
        }
        if value.ictovalwen() {
            ic = self.checked(ic.try_with_ictoval(value.ictoval()), ic);
        }
        self.ic = ic;
        if value.icctr() {
            self.ic_counter = 0;
            self.ic_timer = CoalescingTimer::Idle;
        }
    }

    fn write_tclr(&mut self, value: u32) {
        if !self.halted {
            self.violation(Violation::TaskClearWhileRunning);
            return;
        }
        for tag in 0..SLOTS {
            if value & task_bit(tag) != 0 {
                self.drop_task(tag);
            }
        }
    }

    // Out of line: its entry is where insncount's completion-to-next-issue path ends for a
    // queued task (docs/performance.md, "The completion-to-next-issue path").
    #[inline(never)]
    fn ring(&mut self, value: u32) {
        if !self.enabled() {
            self.violation(Violation::DoorbellWhileDisabled);
            return;
        }
        for tag in 0..SLOTS {
            let bit = task_bit(tag);
            if value & bit == 0 {
                continue;
            }
            if self.tdbr & bit != 0 {
                self.violation(Violation::DoorbellOnBusySlot(tag as u8));
                continue;
            }
            self.tdbr |= bit;
            if let Some(s) = self.slots.get_mut(tag) {
                *s = SlotState::Pending;
            }
            if let Some(o) = self.order.get_mut(self.order_len) {
                *o = tag as u8;
                self.order_len += 1;
            }
        }
    }

    /// Empties slot `tag`: its doorbell, device queue and pending bits clear.
    fn free_slot(&mut self, tag: usize) {
        let bit = task_bit(tag);
        self.tdbr &= !bit;
        self.dpt &= !bit;
        self.dqs &= !bit;
        if let Some(s) = self.slots.get_mut(tag) {
            *s = SlotState::Empty;
        }
    }

    fn drop_task(&mut self, tag: usize) {
        self.free_slot(tag);
        let mut kept = 0;
        for i in 0..self.order_len {
            let t = self.order.get(i).copied().unwrap_or(0);
            if usize::from(t) != tag {
                if let Some(o) = self.order.get_mut(kept) {
                    *o = t;
                }
                kept += 1;
            }
        }
        self.order_len = kept;
    }

    fn forget_tasks(&mut self) {
        self.tdbr = 0;
        self.dpt = 0;
        self.dqs = 0;
        self.slots = [SlotState::Empty; SLOTS];
        self.order_len = 0;
        self.error_stop = false;
        self.terri = CQTERRI::zeroed();
        self.stalled = 0;
        self.polled_idle = false;
        self.drop_stall_faults();
    }

    /// Stalls belong to the tasks they hold up: they go when the tasks do.
    fn drop_stall_faults(&mut self) {
        for f in self.faults.iter_mut() {
            if matches!(f, Some(Fault::Stall { .. })) {
                *f = None;
            }
        }
    }

    /// The block after its power domain was off: every register, the task slots and the
    /// halt state are back at their reset values, pending interrupts and host-detected
    /// errors are gone. The record of the run stays (violations, completions, steps, time
    /// waited), so do the block's clock and the injected faults except stalls, which go with
    /// the tasks.
    pub fn reset(&mut self) {
        let fresh = Self::new(self.config);
        let before = core::mem::replace(self, fresh);
        self.violations = before.violations;
        self.last_violation = before.last_violation;
        self.completions = before.completions;
        self.steps = before.steps;
        self.waited_clocks = before.waited_clocks;
        self.clock_ns = before.clock_ns;
        self.faults = before.faults;
        self.drop_stall_faults();
    }

    /// What the next [`CqhciModel::step`] will be if it is a queue status poll: `Some(true)`
    /// if that poll first waits the send-status idle timer (the last one found nothing
    /// ready), `Some(false)` if it polls at once; `None` if the step does something else
    /// (or may: a task still to fetch). The MSDC model uses it to let the time a timed
    /// queue's tasks need pass in polls that find nothing ready.
    pub fn next_step_polls(&self) -> Option<bool> {
        let busy_control = (self.clear_requested && self.halted && !self.clear_stuck)
            || (self.halt_requested && !self.halted);
        let polls = self.enabled()
            && !busy_control
            && !self.halted
            && !self.error_stop
            && self.order_len == 0
            && self.dpt != 0
            && self.dqs & self.dpt == 0;
        polls.then_some(self.polled_idle)
    }

    /// The send-status idle timer's wait between two polls, in ns (`CQSSC1.CIT` clocks of
    /// the internal timer, rounded up; 0 without a usable timer frequency).
    pub fn idle_wait_ns(&self) -> u64 {
        let clocks = u64::from(self.ssc1.cit());
        match self.timer_hz() {
            Some(hz) => clocks.saturating_mul(NS_PER_SECOND).div_ceil(hz),
            None => 0,
        }
    }

    /// The tasks queued in the device and not yet executed (`CQDPT`; bit n: task n).
    pub fn tasks_in_device(&self) -> u32 {
        self.dpt
    }

    /// Whether a task is in the block: its doorbell rung and not yet completed or cleared
    /// (whether or not the engine is halted or stopped on an error).
    pub fn tasks_in_progress(&self) -> bool {
        self.tdbr != 0
    }

    /// Adds a fault; false if the fault table is full.
    pub fn inject(&mut self, fault: Fault) -> bool {
        if let Fault::Stall { tag } = fault {
            self.stalled |= task_bit(usize::from(tag));
        }
        match self.faults.iter_mut().find(|f| f.is_none()) {
            Some(slot) => {
                *slot = Some(fault);
                true
            }
            None => false,
        }
    }

    fn take_fault(&mut self, pred: impl Fn(Fault) -> bool) -> bool {
        for f in self.faults.iter_mut() {
            if let Some(fault) = *f {
                if pred(fault) {
                    *f = None;
                    return true;
                }
            }
        }
        false
    }

    /// Records the interrupts of `irq` that CQISTE enables.
    fn raise(&mut self, irq: CQIS) {
        self.is = CQIS::from_raw(self.is.raw() | (irq.raw() & self.iste.enabled()));
    }

    /// Whether the interrupt line is asserted: a CQIS bit that CQISGE enables, or a
    /// host-detected error.
    pub fn interrupt_pending(&self) -> bool {
        self.status_signalled() || self.host_errors != HostErrors::default()
    }

    /// Takes the host-detected errors (the host's own interrupt status).
    pub fn take_host_errors(&mut self) -> HostErrors {
        core::mem::take(&mut self.host_errors)
    }

    /// Number of protocol violations seen, and the last one.
    pub fn violations(&self) -> (u32, Option<Violation>) {
        (self.violations, self.last_violation)
    }

    /// Number of tasks completed (CQTCN bits set by real completions).
    pub fn completions(&self) -> u32 {
        self.completions
    }

    /// Whether the controller is halted.
    pub fn is_halted(&self) -> bool {
        self.halted
    }

    /// Whether command queueing is enabled (CQCFG.CQ_EN).
    pub fn is_enabled(&self) -> bool {
        self.enabled()
    }

    /// Whether a CQIS bit that CQISGE enables is set (the status part of
    /// [`CqhciModel::interrupt_pending`], without the host-detected errors).
    pub fn status_signalled(&self) -> bool {
        self.is.raw() & self.isge.signalled() != 0
    }

    /// Whether the next [`CqhciModel::step`] carries out a control request and nothing
    /// else: a halt not taken yet, or the CLEAR ALL TASKS of the halted controller. Such a
    /// step takes no bus time and runs no task (tasks run whole within one step, so the
    /// request always falls between two); hardware finishes it within microseconds, which
    /// drivers busy-wait for (upstream's `cqhci_off`).
    pub fn control_pending(&self) -> bool {
        self.enabled()
            && ((self.clear_requested && self.halted && !self.clear_stuck)
                || (self.halt_requested && !self.halted))
    }

    /// Whether the controller has nothing left to do.
    pub fn is_idle(&self) -> bool {
        self.tdbr == 0 || !self.enabled() || self.halted || self.error_stop
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    fn tdl_base(&self) -> u64 {
        (u64::from(self.tdlbau.tdlbau()) << u32::BITS) | u64::from(self.tdlba.tdlba())
    }

    fn task_len(&self) -> u64 {
        if self.cfg.task_desc_sz() {
            16
        } else {
            8
        }
    }

    fn link_len(&self) -> u64 {
        if self.config.dma64 {
            16
        } else {
            8
        }
    }

    fn transfer_len(&self) -> u64 {
        match (self.config.dma64, self.config.short_transfer_descriptor) {
            (false, _) => 8,
            (true, true) => 12,
            (true, false) => 16,
        }
    }

    fn slot_address(&self, tag: u8) -> Option<u64> {
        let slot = self.task_len() + self.link_len();
        self.tdl_base().checked_add(slot * u64::from(tag))
    }

    /// The coalescing timeout, ns: ICTOVAL units of [`COALESCING_CLOCKS_PER_UNIT`] clocks of
    /// the internal timer, rounded up; `None` while the timer is disabled (ICTOVAL 0) or
    /// `CQCAP` gives no usable timer frequency.
    pub fn coalescing_timeout_ns(&self) -> Option<u64> {
        let units = u64::from(self.ic.ictoval());
        if units == 0 {
            return None;
        }
        let hz = self.timer_hz()?;
        Some(
            units
                .saturating_mul(COALESCING_CLOCKS_PER_UNIT)
                .saturating_mul(NS_PER_SECOND)
                .div_ceil(hz),
        )
    }

    /// When the running coalescing timer reaches ICTOVAL, on the block's clock (ns); `None`
    /// if it is not running (reset, expired, coalescing off, or no timeout). A host that runs
    /// the block only when there is work runs it again at that time, when the timer raises
    /// the completion interrupt ([`CqhciModel::step`] checks it first).
    pub fn coalescing_deadline_ns(&self) -> Option<u64> {
        if !self.ic.icendis() || self.ic_counter == 0 {
            return None;
        }
        match self.ic_timer {
            CoalescingTimer::Running { since_ns } => {
                Some(since_ns.saturating_add(self.coalescing_timeout_ns()?))
            }
            CoalescingTimer::Starting => {
                Some(self.clock_ns.saturating_add(self.coalescing_timeout_ns()?))
            }
            CoalescingTimer::Idle | CoalescingTimer::Expired => None,
        }
    }

    /// Moves the block's clock on to `ns` (it never goes back); a coalescing timer that a
    /// completion of the last step started starts now. The host calls it before a step,
    /// with the time the step starts, and after it, with the time the step's work ended.
    pub fn advance_to(&mut self, ns: u64) {
        self.clock_ns = self.clock_ns.max(ns);
        if self.ic_timer == CoalescingTimer::Starting {
            self.ic_timer = CoalescingTimer::Running {
                since_ns: self.clock_ns,
            };
        }
    }

    /// Moves the block's clock on by `ns` (see [`CqhciModel::advance_to`]).
    pub fn elapse(&mut self, ns: u64) {
        self.advance_to(self.clock_ns.saturating_add(ns));
    }

    /// The block's clock, ns.
    pub fn now_ns(&self) -> u64 {
        self.clock_ns
    }

    /// The coalescing timer: once it has run ICTOVAL, the completion interrupt, and the timer
    /// stops until software resets it.
    fn tick_coalescing(&mut self) {
        if let Some(deadline) = self.coalescing_deadline_ns() {
            if matches!(self.ic_timer, CoalescingTimer::Running { .. }) && self.clock_ns >= deadline
            {
                self.ic_timer = CoalescingTimer::Expired;
                self.raise(CQIS::zeroed().with_tcc(true));
            }
        }
    }

    /// Advances the model by one unit of work; returns whether anything happened. `card`
    /// is any card on the bus (the MSDC model passes its slot): an eMMC `Card` with command
    /// queueing enabled runs the tasks, a card without queueing refuses CMD44.
    pub fn step<C: CardSlot + ?Sized, M: BusMemory>(&mut self, card: &mut C, mem: &mut M) -> bool {
        self.steps = self.steps.wrapping_add(1);
        self.tick_coalescing();
        if !self.enabled() {
            return false;
        }
        if self.clear_requested && self.halted && !self.clear_stuck {
            self.forget_tasks();
            self.clear_requested = false;
            self.raise(CQIS::zeroed().with_tcl(true));
            return true;
        }
        if self.halt_requested && !self.halted {
            self.halt_requested = false;
            self.halted = true;
            self.raise(CQIS::zeroed().with_hac(true));
            return true;
        }
        if self.halted || self.error_stop {
            return false;
        }
        if self.fetch(card, mem) {
            return true;
        }
        self.execute(card, mem)
    }

    fn stop_with_command_error(&mut self, index: u8, tag: u8, host: Option<HostErrorKind>) {
        let terri = CQTERRI::zeroed()
            .with_rmefv(true)
            .try_with_rmeci(u32::from(index))
            .and_then(|t| t.try_with_rmetid(u32::from(tag)));
        self.terri = self.checked(terri, CQTERRI::zeroed());
        match host {
            Some(kind) => self.host_errors.command = Some(kind),
            None => self.raise(CQIS::zeroed().with_red(true)),
        }
        self.error_stop = true;
    }

    fn stop_with_data_error(&mut self, index: u8, tag: u8, kind: HostErrorKind) {
        let terri = CQTERRI::zeroed()
            .with_dtefv(true)
            .try_with_dteci(u32::from(index))
            .and_then(|t| t.try_with_dtetid(u32::from(tag)));
        self.terri = self.checked(terri, CQTERRI::zeroed());
        self.host_errors.data = Some(kind);
        self.error_stop = true;
    }

    /// Sends a command for task `tag` and checks an R1 response against CQRMEM; false (and
    /// the engine stopped) on error.
    fn send<C: CardSlot + ?Sized>(
        &mut self,
        card: &mut C,
        tag: u8,
        cmd: Command,
    ) -> Option<Response> {
        if matches!(cmd.index, 46 | 47) && self.take_fault(|f| f == Fault::CommandTimeout { tag }) {
            self.stop_with_command_error(cmd.index, tag, Some(HostErrorKind::Timeout));
            return None;
        }
        let response = match card.command(cmd) {
            Ok(r) => r,
            Err(NoResponse) => {
                self.stop_with_command_error(cmd.index, tag, Some(HostErrorKind::Timeout));
                return None;
            }
        };
        let mut value = response.value();
        if self.take_fault(|f| {
            f == Fault::ResponseError {
                tag,
                command: cmd.index,
            }
        }) {
            value |= super::super::emmc::status::ERROR;
        }
        let cri = CQCRI::zeroed().try_with_index(u32::from(cmd.index));
        self.cri = self.checked(cri, CQCRI::zeroed());
        // The whole register is the argument.
        self.cra = CQCRA::from_raw(value);
        let checked = matches!(response, Response::R1(_) | Response::R1b(_));
        if checked && value & self.rmem.rmem() != 0 {
            self.stop_with_command_error(cmd.index, tag, None);
            return None;
        }
        Some(response)
    }

    fn descriptor_error(&mut self, tag: u8) {
        self.tdpe |= task_bit(usize::from(tag));
        self.raise(CQIS::zeroed().with_icce(true));
        self.error_stop = true;
    }

    /// The task descriptor of slot `tag`, or `None` after recording why it could not be
    /// decoded (a violation and a descriptor error).
    fn task_descriptor<T>(&mut self, tag: u8, decoded: Result<T, TaskDescError>) -> Option<T> {
        decoded
            .inspect_err(|&e| {
                self.violation(Violation::BadTaskDescriptor(tag, e));
                self.descriptor_error(tag);
            })
            .ok()
    }

    /// Whether a task with the queue barrier bit set must wait: tasks before it are still
    /// in the device.
    fn barrier_holds(&self, queue_barrier: bool) -> bool {
        queue_barrier && self.dpt != 0
    }

    /// Fetches the oldest doorbell task: queues a data task on the card, or runs a direct
    /// command once the tasks before it have finished.
    fn fetch<C: CardSlot + ?Sized, M: BusMemory>(&mut self, card: &mut C, mem: &mut M) -> bool {
        if self.order_len == 0 {
            return false;
        }
        let tag = self.order.first().copied().unwrap_or(0);
        let Some(address) = self.slot_address(tag) else {
            self.violation(Violation::Bus(u64::MAX));
            self.descriptor_error(tag);
            return true;
        };
        let word0 = match mem.read_u64(address) {
            Ok(w) => w,
            Err(BusFault { address }) => {
                self.violation(Violation::Bus(address));
                self.descriptor_error(tag);
                return true;
            }
        };
        let word1 = if self.task_len() == 16 {
            mem.read_u64(address.wrapping_add(8)).unwrap_or(0)
        } else {
            0
        };
        let crypto_off = !self.cfg.cr_general_en();
        if self.take_fault(|f| f == Fault::DescriptorError { tag })
            || (crypto_requested(word1) && crypto_off)
        {
            self.descriptor_error(tag);
            return true;
        }
        if tag == DCMD_TAG && self.cfg.dcmd_en() {
            return self.direct_command(card, word0);
        }
        let Some(desc) = self.task_descriptor(tag, decode_data_task(word0)) else {
            return true;
        };
        // A barrier task waits until every earlier task has left the device.
        if self.barrier_holds(desc.queue_barrier) {
            return false;
        }
        let queued = QueuedTask {
            read: desc.read,
            blocks: desc.blocks,
            address: desc.address,
            reliable_write: desc.reliable_write,
            tag_request: desc.data_tag,
            context: desc.context,
            forced_programming: desc.forced_programming,
            priority: desc.priority,
        };
        let arg = queued.cmd44_argument(tag);
        let arg = self.checked(arg, QUEUED_TASK_PARAMS::zeroed()).raw();
        if self.send(card, tag, Command::new(44, arg)).is_none() {
            return true;
        }
        if self
            .send(card, tag, Command::new(45, desc.address))
            .is_none()
        {
            return true;
        }
        self.pop_order();
        self.dpt |= task_bit(usize::from(tag));
        if let Some(s) = self.slots.get_mut(usize::from(tag)) {
            *s = SlotState::Queued(desc);
        }
        // A newly queued task is worth asking about at once.
        self.polled_idle = false;
        true
    }

    fn pop_order(&mut self) {
        self.order.copy_within(1.., 0);
        self.order_len = self.order_len.saturating_sub(1);
    }

    fn direct_command<C: CardSlot + ?Sized>(&mut self, card: &mut C, word0: u64) -> bool {
        let Some(desc) = self.task_descriptor(DCMD_TAG, decode_dcmd(word0)) else {
            return true;
        };
        if self.barrier_holds(desc.queue_barrier) {
            return false;
        }
        let Some(response) = self.send(card, DCMD_TAG, Command::new(desc.index, desc.argument))
        else {
            return true;
        };
        // The whole register is the response.
        self.crdct = if desc.response_type == 0 {
            CQCRDCT::zeroed()
        } else {
            CQCRDCT::from_raw(response.value())
        };
        self.pop_order();
        self.complete(DCMD_TAG, desc.interrupt);
        true
    }

    fn execute<C: CardSlot + ?Sized, M: BusMemory>(&mut self, card: &mut C, mem: &mut M) -> bool {
        if self.dpt == 0 {
            return false;
        }
        let ready = self.dqs & self.dpt;
        if ready == 0 {
            if self.polled_idle {
                // Nothing was ready at the last poll: this one waits the idle timer.
                self.waited_clocks = self
                    .waited_clocks
                    .saturating_add(u64::from(self.ssc1.cit()));
            }
            let arg = RCA_ARG::zeroed()
                .with_sqs(true)
                .try_with_rca(self.ssc2.rca());
            let arg = self.checked(arg, RCA_ARG::zeroed()).raw();
            match card.command(Command::new(13, arg)) {
                Ok(Response::QueueStatus(qsr)) => self.dqs = qsr & !self.stalled,
                _ => {
                    self.violation(Violation::NoStatusResponse);
                    self.host_errors.command = Some(HostErrorKind::Timeout);
                    self.error_stop = true;
                }
            }
            self.polled_idle = (self.dqs & self.dpt) == 0;
            return true;
        }
        self.polled_idle = false;
        let tag = ready.trailing_zeros() as u8;
        let Some(SlotState::Queued(desc)) = self.slots.get(usize::from(tag)).copied() else {
            self.dqs &= !task_bit(usize::from(tag));
            return true;
        };
        let index = if desc.read { 46 } else { 47 };
        let arg = TASK_ARG::zeroed().try_with_task_id(u32::from(tag));
        let arg = self.checked(arg, TASK_ARG::zeroed()).raw();
        if self.send(card, tag, Command::new(index, arg)).is_none() {
            return true;
        }
        let crc = self.take_fault(|f| f == Fault::DataCrc { tag });
        let kind = match self.transfer(card, mem, tag, &desc, crc) {
            Ok(()) if crc => HostErrorKind::Crc,
            Ok(()) => {
                self.complete(tag, desc.interrupt);
                return true;
            }
            Err(violation) => {
                if let Some(v) = violation {
                    self.violation(v);
                }
                HostErrorKind::Other
            }
        };
        // The engine stops on a data error.
        self.stop_with_data_error(index, tag, kind);
        true
    }

    fn read_data_desc<M: BusMemory>(&mut self, mem: &mut M, address: u64) -> Option<DataDesc> {
        let word = mem.read_u64(address);
        // With 64-bit DMA the address's high half follows the first word.
        let high = if self.config.dma64 {
            mem.read_u32(address.wrapping_add(8)).map(Some)
        } else {
            Ok(None)
        };
        match (word, high) {
            (Ok(w), Ok(h)) => Some(decode_data_desc(w, h)),
            (Err(BusFault { address }), _) | (_, Err(BusFault { address })) => {
                self.violation(Violation::Bus(address));
                None
            }
        }
    }

    /// Moves a task's data: follows task `tag`'s link descriptor through its transfer
    /// descriptors between the card and memory (a write whose data fails CRC, `crc`, never
    /// reaches the card). `Err` carries the violation to record, if any.
    fn transfer<C: CardSlot + ?Sized, M: BusMemory>(
        &mut self,
        card: &mut C,
        mem: &mut M,
        tag: u8,
        desc: &DataTaskDesc,
        crc: bool,
    ) -> Result<(), Option<Violation>> {
        let link_at = self
            .slot_address(tag)
            .and_then(|a| a.checked_add(self.task_len()));
        let link = link_at
            .and_then(|a| self.read_data_desc(mem, a))
            .ok_or(None)?;
        if !link.attributes.valid || link.attributes.act != Some(Act::Link) {
            return Err(Some(Violation::BadLink(tag)));
        }
        let mut at = link.address;
        let mut remaining = u32::from(desc.blocks) * 512;
        let mut buf = [0u8; 512];
        let mut descriptors = 0u32;
        loop {
            descriptors += 1;
            if descriptors > MAX_DESCRIPTORS_PER_TASK {
                return Err(Some(Violation::BadTransfer(tag)));
            }
            let d = self.read_data_desc(mem, at).ok_or(None)?;
            match d.attributes.act {
                _ if !d.attributes.valid => return Err(Some(Violation::BadTransfer(tag))),
                Some(Act::Link) => {
                    at = d.address;
                    continue;
                }
                Some(Act::Transfer) => {}
                _ => return Err(Some(Violation::BadTransfer(tag))),
            }
            if d.length > remaining {
                return Err(Some(Violation::LengthMismatch(tag)));
            }
            let mut moved = 0u32;
            while moved < d.length {
                let n = (d.length - moved).min(512);
                let chunk = buf.get_mut(..n as usize).unwrap_or(&mut []);
                let address = d.address.wrapping_add(u64::from(moved));
                let result = if desc.read {
                    match card.read_data(chunk) {
                        Ok(()) => mem.write(address, chunk).map_err(|e| Some(e.address)),
                        Err(_) => Err(None),
                    }
                } else {
                    match mem.read(address, chunk) {
                        // A write whose data fails CRC never reaches the card's storage.
                        Ok(()) if crc => Ok(()),
                        Ok(()) => card.write_data(chunk).map_err(|_| None),
                        Err(e) => Err(Some(e.address)),
                    }
                };
                result.map_err(|fault| {
                    Some(match fault {
                        Some(a) => Violation::Bus(a),
                        None => Violation::CardData(tag),
                    })
                })?;
                moved += n;
            }
            remaining -= d.length;
            if d.attributes.end {
                break;
            }
            at = at.wrapping_add(self.transfer_len());
        }
        if remaining != 0 {
            return Err(Some(Violation::LengthMismatch(tag)));
        }
        Ok(())
    }

    fn complete(&mut self, tag: u8, interrupt: bool) {
        self.free_slot(usize::from(tag));
        self.completions = self.completions.saturating_add(1);
        self.tcn |= task_bit(usize::from(tag));
        let mut extra = 0;
        for f in self.faults.iter_mut() {
            if let Some(Fault::SpuriousCompletion { mask }) = *f {
                extra = mask;
                *f = None;
                break;
            }
        }
        // Only slots without a task: a completion bit for a task still running is
        // indistinguishable from its real completion, to any driver.
        self.tcn |= extra & !self.tdbr;
        let threshold = self.ic.iccth();
        let counted = self.ic.icendis() && (threshold != 0 || self.ic.ictoval() != 0);
        if interrupt || !counted {
            self.raise(CQIS::zeroed().with_tcc(true));
            return;
        }
        self.ic_counter = (self.ic_counter + 1).min(31);
        if self.ic_timer == CoalescingTimer::Idle {
            self.ic_timer = CoalescingTimer::Starting;
        }
        if threshold != 0 && self.ic_counter >= threshold {
            self.raise(CQIS::zeroed().with_tcc(true));
        }
    }
}

/// The model's register file: reads have no side effects; writes act at once.
impl RegisterFile for CqhciModel {
    /// Reads the register at `offset` (unknown offsets read 0).
    fn read(&mut self, offset: usize) -> u32 {
        match offset {
            CQVER::OFFSET => self.config.version.raw(),
            CQCAP::OFFSET => self.config.capabilities.raw(),
            CQCFG::OFFSET => self.cfg.raw(),
            CQCTL::OFFSET => CQCTL::zeroed()
                .with_halt(self.halted)
                .with_clr_all_tasks(self.clear_requested)
                .raw(),
            CQIS::OFFSET => self.is.raw(),
            CQISTE::OFFSET => self.iste.raw(),
            CQISGE::OFFSET => self.isge.raw(),
            CQIC::OFFSET => self.ic.with_icsb(self.ic_counter > 0).raw(),
            CQTDLBA::OFFSET => self.tdlba.raw(),
            CQTDLBAU::OFFSET => self.tdlbau.raw(),
            CQTDBR::OFFSET => self.tdbr,
            CQTCN::OFFSET => self.tcn,
            CQDQS::OFFSET => self.dqs,
            CQDPT::OFFSET => self.dpt,
            CQTDPE::OFFSET => self.tdpe,
            CQSSC1::OFFSET => self.ssc1.raw(),
            CQSSC2::OFFSET => self.ssc2.raw(),
            CQCRDCT::OFFSET => self.crdct.raw(),
            CQRMEM::OFFSET => self.rmem.raw(),
            CQTERRI::OFFSET => self.terri.raw(),
            CQCRI::OFFSET => self.cri.raw(),
            CQCRA::OFFSET => self.cra.raw(),
            _ => 0,
        }
    }

    /// Writes the register at `offset`.
    fn write(&mut self, offset: usize, value: u32) {
        match offset {
            CQCFG::OFFSET => self.write_cfg(CQCFG::from_raw(value)),
            CQCTL::OFFSET => self.write_ctl(CQCTL::from_raw(value)),
            CQIS::OFFSET => self.is = CQIS::from_raw(self.is.raw() & !value),
            CQISTE::OFFSET => self.iste = CQISTE::from_raw(value),
            CQISGE::OFFSET => self.isge = CQISGE::from_raw(value),
            CQIC::OFFSET => self.write_ic(CQIC::from_raw(value)),
            CQTDLBA::OFFSET | CQTDLBAU::OFFSET => {
                if self.enabled() {
                    self.violation(Violation::ListBaseChangedWhileEnabled);
                }
                if offset == CQTDLBA::OFFSET {
                    self.tdlba = CQTDLBA::from_raw(value);
                } else {
                    self.tdlbau = CQTDLBAU::from_raw(value);
                }
            }
            CQTDBR::OFFSET => self.ring(CQTDBR::from_raw(value).dbr()),
            CQTCN::OFFSET => self.tcn &= !CQTCN::from_raw(value).tcn(),
            CQTCLR::OFFSET => self.write_tclr(CQTCLR::from_raw(value).tclr()),
            CQTDPE::OFFSET => self.tdpe &= !CQTDPE::from_raw(value).tdpe(),
            CQSSC1::OFFSET => self.ssc1 = CQSSC1::from_raw(value),
            CQSSC2::OFFSET => self.ssc2 = CQSSC2::from_raw(value),
            CQRMEM::OFFSET => self.rmem = CQRMEM::from_raw(value),
            _ => {}
        }
    }
}

/// The model's register space is the CQHCI block alone.
impl Serves<CqhciBlock> for CqhciModel {
    const BASE: usize = 0;
}
