// SPDX-License-Identifier: GPL-2.0
//! The CQHCI block model: registers, descriptor fetch, task queueing on the card, status
//! polling, DMA through transfer descriptors, completion, halt/clear, coalescing and faults.
//!
//! Time advances one [`CqhciModel::step`] at a time; each step does at most one unit of work
//! (halt, clear, fetch-and-queue one task, poll the queue status, or execute one task
//! including its data transfer). Halt therefore takes effect between tasks.

use super::super::emmc::{Card, Command, NoResponse, Response};
use super::super::memory::{BusFault, BusMemory};
use super::desc::{
    crypto_requested, decode_data_desc, decode_data_task, decode_dcmd, Act, DataDesc, DataTaskDesc,
    TaskDescError,
};
use super::regs::{self, cfg, ctl, ic, is};

/// Integration choices of a controller (what the SoC fixes, not software).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelConfig {
    /// 64-bit addressing in link and transfer descriptors.
    pub dma64: bool,
    /// 64-bit transfer descriptors are 12 bytes apart (the short descriptor quirk).
    pub short_transfer_descriptor: bool,
    /// CQVER value.
    pub version: u32,
    /// CQCAP value.
    pub capabilities: u32,
}

impl ModelConfig {
    /// A MediaTek-like integration: 64-bit DMA, 16-byte transfer descriptors, CQHCI 5.10.
    pub const MEDIATEK: ModelConfig = ModelConfig {
        dma64: true,
        short_transfer_descriptor: false,
        version: 0x0510,
        capabilities: 0x0000_30C8,
    };
}

/// Model steps per ICTOVAL unit (the real unit is 1024 timer clocks).
pub const COALESCING_STEPS_PER_UNIT: u32 = 4;

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
    /// The next completion also sets these CQTCN bits.
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
const DCMD_TAG: u8 = 31;
const FAULT_SLOTS: usize = 8;
const MAX_DESCRIPTORS_PER_TASK: u32 = 4096;

/// The CQHCI block.
#[derive(Debug)]
pub struct CqhciModel {
    config: ModelConfig,
    cfg: u32,
    halt_requested: bool,
    halted: bool,
    clear_requested: bool,
    /// An injected fault keeps the pending CLEAR ALL TASKS from ever completing.
    clear_stuck: bool,
    is: u32,
    iste: u32,
    isge: u32,
    ic_enabled: bool,
    ic_threshold: u32,
    ic_timeout: u32,
    ic_counter: u32,
    ic_timer: u32,
    tdlba: u32,
    tdlbau: u32,
    tdbr: u32,
    tcn: u32,
    dqs: u32,
    dpt: u32,
    tdpe: u32,
    ssc1: u32,
    ssc2: u32,
    crdct: u32,
    rmem: u32,
    terri: u32,
    cri: u32,
    cra: u32,
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
}

impl CqhciModel {
    /// A controller after reset.
    pub fn new(config: ModelConfig) -> Self {
        Self {
            config,
            cfg: 0,
            halt_requested: false,
            halted: false,
            clear_requested: false,
            clear_stuck: false,
            is: 0,
            iste: 0,
            isge: 0,
            ic_enabled: false,
            ic_threshold: 0,
            ic_timeout: 0,
            ic_counter: 0,
            ic_timer: 0,
            tdlba: 0,
            tdlbau: 0,
            tdbr: 0,
            tcn: 0,
            dqs: 0,
            dpt: 0,
            tdpe: 0,
            ssc1: 0x0001_1000,
            ssc2: 0,
            crdct: 0,
            rmem: regs::RMEM_DEFAULT,
            terri: 0,
            cri: 0,
            cra: 0,
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
        }
    }

    /// Reads a register at `offset` (unknown offsets read 0).
    pub fn read(&self, offset: usize) -> u32 {
        match offset {
            regs::VER => self.config.version,
            regs::CAP => self.config.capabilities,
            regs::CFG => self.cfg,
            regs::CTL => {
                let mut v = 0;
                if self.halted {
                    v |= ctl::HALT;
                }
                if self.clear_requested {
                    v |= ctl::CLEAR_ALL;
                }
                v
            }
            regs::IS => self.is,
            regs::ISTE => self.iste,
            regs::ISGE => self.isge,
            regs::IC => {
                let mut v = (self.ic_threshold << 8) | self.ic_timeout;
                if self.ic_enabled {
                    v |= ic::ENABLE;
                }
                if self.ic_counter > 0 {
                    v |= ic::STATUS;
                }
                v
            }
            regs::TDLBA => self.tdlba,
            regs::TDLBAU => self.tdlbau,
            regs::TDBR => self.tdbr,
            regs::TCN => self.tcn,
            regs::DQS => self.dqs,
            regs::DPT => self.dpt,
            regs::TDPE => self.tdpe,
            regs::SSC1 => self.ssc1,
            regs::SSC2 => self.ssc2,
            regs::CRDCT => self.crdct,
            regs::RMEM => self.rmem,
            regs::TERRI => self.terri,
            regs::CRI => self.cri,
            regs::CRA => self.cra,
            _ => 0,
        }
    }

    /// Writes a register at `offset`.
    pub fn write(&mut self, offset: usize, value: u32) {
        match offset {
            regs::CFG => self.write_cfg(value),
            regs::CTL => self.write_ctl(value),
            regs::IS => self.is &= !value,
            regs::ISTE => self.iste = value,
            regs::ISGE => self.isge = value,
            regs::IC => self.write_ic(value),
            regs::TDLBA | regs::TDLBAU => {
                if self.enabled() {
                    self.violation(Violation::ListBaseChangedWhileEnabled);
                }
                if offset == regs::TDLBA {
                    self.tdlba = value;
                } else {
                    self.tdlbau = value;
                }
            }
            regs::TDBR => self.ring(value),
            regs::TCN => self.tcn &= !value,
            regs::TCLR => self.write_tclr(value),
            regs::TDPE => self.tdpe &= !value,
            regs::SSC1 => self.ssc1 = value,
            regs::SSC2 => self.ssc2 = value,
            regs::RMEM => self.rmem = value,
            _ => {}
        }
    }

    fn enabled(&self) -> bool {
        self.cfg & cfg::ENABLE != 0
    }

    fn violation(&mut self, v: Violation) {
        self.violations = self.violations.saturating_add(1);
        self.last_violation = Some(v);
    }

    fn write_cfg(&mut self, value: u32) {
        let was = self.cfg;
        if was & cfg::ENABLE != 0 && value & cfg::ENABLE != 0 && (was ^ value) != 0 {
            self.violation(Violation::ConfigChangedWhileEnabled);
        }
        self.cfg = value;
        if was & cfg::ENABLE != 0 && value & cfg::ENABLE == 0 {
            // Disabling forgets every task and leaves halt.
            self.forget_tasks();
            self.halted = false;
            self.halt_requested = false;
            self.clear_requested = false;
            self.clear_stuck = false;
        }
    }

    fn write_ctl(&mut self, value: u32) {
        if value & ctl::HALT != 0 {
            if !self.halted && !self.halt_requested && !self.take_fault(|f| f == Fault::IgnoreHalt)
            {
                self.halt_requested = true;
            }
        } else {
            self.halt_requested = false;
            self.halted = false;
        }
        if value & ctl::CLEAR_ALL != 0 && !self.clear_requested {
            self.clear_requested = true;
            self.clear_stuck = self.take_fault(|f| f == Fault::IgnoreClear);
        }
    }

    fn write_ic(&mut self, value: u32) {
        self.ic_enabled = value & ic::ENABLE != 0;
        if value & ic::THRESHOLD_WEN != 0 {
            self.ic_threshold = (value >> 8) & 0x1F;
        }
        if value & ic::TIMEOUT_WEN != 0 {
            self.ic_timeout = value & 0x7F;
        }
        if value & ic::RESET != 0 {
            self.ic_counter = 0;
            self.ic_timer = 0;
        }
    }

    fn write_tclr(&mut self, value: u32) {
        if !self.halted {
            self.violation(Violation::TaskClearWhileRunning);
            return;
        }
        for tag in 0..SLOTS {
            if value & (1u32 << tag) != 0 {
                self.drop_task(tag);
            }
        }
    }

    fn ring(&mut self, value: u32) {
        if !self.enabled() {
            self.violation(Violation::DoorbellWhileDisabled);
            return;
        }
        for tag in 0..SLOTS {
            let bit = 1u32 << tag;
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

    fn drop_task(&mut self, tag: usize) {
        let bit = 1u32 << (tag & 31);
        self.tdbr &= !bit;
        self.dpt &= !bit;
        self.dqs &= !bit;
        if let Some(s) = self.slots.get_mut(tag) {
            *s = SlotState::Empty;
        }
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
        self.terri = 0;
        self.stalled = 0;
        for f in self.faults.iter_mut() {
            if matches!(f, Some(Fault::Stall { .. })) {
                *f = None;
            }
        }
    }

    /// Adds a fault; false if the fault table is full.
    pub fn inject(&mut self, fault: Fault) -> bool {
        if let Fault::Stall { tag } = fault {
            self.stalled |= 1u32 << (tag & 31);
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

    fn raise(&mut self, bits: u32) {
        self.is |= bits & self.iste;
    }

    /// Whether the interrupt line is asserted: an enabled CQIS bit or a host-detected error.
    pub fn interrupt_pending(&self) -> bool {
        self.is & self.isge != 0 || self.host_errors != HostErrors::default()
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

    /// Whether the controller has nothing left to do.
    pub fn is_idle(&self) -> bool {
        self.tdbr == 0 || !self.enabled() || self.halted || self.error_stop
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    fn tdl_base(&self) -> u64 {
        (u64::from(self.tdlbau) << 32) | u64::from(self.tdlba)
    }

    fn task_len(&self) -> u64 {
        if self.cfg & cfg::TASK_DESC_128 != 0 {
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

    fn tick_coalescing(&mut self) {
        if !self.ic_enabled || self.ic_counter == 0 || self.ic_timeout == 0 {
            return;
        }
        self.ic_timer = self.ic_timer.saturating_add(1);
        if self.ic_timer >= self.ic_timeout * COALESCING_STEPS_PER_UNIT {
            self.ic_timer = 0;
            self.raise(is::TCC);
        }
    }

    /// Advances the model by one unit of work; returns whether anything happened.
    pub fn step<M: BusMemory>(&mut self, card: &mut Card<'_>, mem: &mut M) -> bool {
        self.steps = self.steps.wrapping_add(1);
        self.tick_coalescing();
        if !self.enabled() {
            return false;
        }
        if self.clear_requested && self.halted && !self.clear_stuck {
            self.forget_tasks();
            self.clear_requested = false;
            self.raise(is::TCL);
            return true;
        }
        if self.halt_requested && !self.halted {
            self.halt_requested = false;
            self.halted = true;
            self.raise(is::HAC);
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
        self.terri = regs::terri_command(index, tag);
        match host {
            Some(kind) => self.host_errors.command = Some(kind),
            None => self.raise(is::RED),
        }
        self.error_stop = true;
    }

    fn stop_with_data_error(&mut self, index: u8, tag: u8, kind: HostErrorKind) {
        self.terri = regs::terri_data(index, tag);
        self.host_errors.data = Some(kind);
        self.error_stop = true;
    }

    /// Sends a command for task `tag` and checks an R1 response against CQRMEM; false (and
    /// the engine stopped) on error.
    fn send(&mut self, card: &mut Card<'_>, tag: u8, cmd: Command) -> Option<Response> {
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
        self.cri = u32::from(cmd.index);
        self.cra = value;
        let checked = matches!(response, Response::R1(_) | Response::R1b(_));
        if checked && value & self.rmem != 0 {
            self.stop_with_command_error(cmd.index, tag, None);
            return None;
        }
        Some(response)
    }

    fn descriptor_error(&mut self, tag: u8) {
        self.tdpe |= 1u32 << (tag & 31);
        self.raise(is::ICCE);
        self.error_stop = true;
    }

    /// Fetches the oldest doorbell task: queues a data task on the card, or runs a direct
    /// command once the tasks before it have finished.
    fn fetch<M: BusMemory>(&mut self, card: &mut Card<'_>, mem: &mut M) -> bool {
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
        let crypto_off = self.cfg & cfg::CRYPTO == 0;
        if self.take_fault(|f| f == Fault::DescriptorError { tag })
            || (crypto_requested(word1) && crypto_off)
        {
            self.descriptor_error(tag);
            return true;
        }
        if tag == DCMD_TAG && self.cfg & cfg::DCMD != 0 {
            return self.direct_command(card, word0);
        }
        let desc = match decode_data_task(word0) {
            Ok(d) => d,
            Err(e) => {
                self.violation(Violation::BadTaskDescriptor(tag, e));
                self.descriptor_error(tag);
                return true;
            }
        };
        // A barrier task waits until every earlier task has left the device.
        if desc.queue_barrier && self.dpt != 0 {
            return false;
        }
        let mut arg = (u32::from(tag) << 16) | u32::from(desc.blocks);
        if desc.reliable_write {
            arg |= 1 << 31;
        }
        if desc.read {
            arg |= 1 << 30;
        }
        if desc.data_tag {
            arg |= 1 << 29;
        }
        arg |= u32::from(desc.context) << 25;
        if desc.forced_programming {
            arg |= 1 << 24;
        }
        if desc.priority {
            arg |= 1 << 23;
        }
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
        self.dpt |= 1u32 << tag;
        if let Some(s) = self.slots.get_mut(usize::from(tag)) {
            *s = SlotState::Queued(desc);
        }
        true
    }

    fn pop_order(&mut self) {
        self.order.copy_within(1.., 0);
        self.order_len = self.order_len.saturating_sub(1);
    }

    fn direct_command(&mut self, card: &mut Card<'_>, word0: u64) -> bool {
        let desc = match decode_dcmd(word0) {
            Ok(d) => d,
            Err(e) => {
                self.violation(Violation::BadTaskDescriptor(DCMD_TAG, e));
                self.descriptor_error(DCMD_TAG);
                return true;
            }
        };
        if desc.queue_barrier && self.dpt != 0 {
            return false;
        }
        let Some(response) = self.send(card, DCMD_TAG, Command::new(desc.index, desc.argument))
        else {
            return true;
        };
        self.crdct = if desc.response_type == 0 {
            0
        } else {
            response.value()
        };
        self.pop_order();
        self.complete(DCMD_TAG, desc.interrupt);
        true
    }

    fn execute<M: BusMemory>(&mut self, card: &mut Card<'_>, mem: &mut M) -> bool {
        if self.dpt == 0 {
            return false;
        }
        let ready = self.dqs & self.dpt;
        if ready == 0 {
            let arg = ((self.ssc2 & 0xFFFF) << 16) | (1 << 15);
            match card.command(Command::new(13, arg)) {
                Ok(Response::QueueStatus(qsr)) => self.dqs = qsr & !self.stalled,
                _ => {
                    self.violation(Violation::NoStatusResponse);
                    self.host_errors.command = Some(HostErrorKind::Timeout);
                    self.error_stop = true;
                }
            }
            return true;
        }
        let tag = ready.trailing_zeros() as u8;
        let Some(SlotState::Queued(desc)) = self.slots.get(usize::from(tag)).copied() else {
            self.dqs &= !(1u32 << (tag & 31));
            return true;
        };
        let index = if desc.read { 46 } else { 47 };
        if self
            .send(card, tag, Command::new(index, u32::from(tag) << 16))
            .is_none()
        {
            return true;
        }
        if self.transfer(card, mem, tag, &desc, index) {
            self.complete(tag, desc.interrupt);
        }
        true
    }

    fn read_data_desc<M: BusMemory>(&mut self, mem: &mut M, address: u64) -> Option<DataDesc> {
        let word = mem.read_u32(address);
        let target = if self.config.dma64 {
            mem.read_u64(address.wrapping_add(4))
        } else {
            mem.read_u32(address.wrapping_add(4)).map(u64::from)
        };
        match (word, target) {
            (Ok(w), Ok(t)) => Some(decode_data_desc(w, t)),
            (Err(BusFault { address }), _) | (_, Err(BusFault { address })) => {
                self.violation(Violation::Bus(address));
                None
            }
        }
    }

    /// Moves a task's data; false (and the engine stopped) on error.
    fn transfer<M: BusMemory>(
        &mut self,
        card: &mut Card<'_>,
        mem: &mut M,
        tag: u8,
        desc: &DataTaskDesc,
        index: u8,
    ) -> bool {
        let crc = self.take_fault(|f| f == Fault::DataCrc { tag });
        let link_at = self
            .slot_address(tag)
            .and_then(|a| a.checked_add(self.task_len()));
        let link = link_at.and_then(|a| self.read_data_desc(mem, a));
        let Some(link) = link else {
            self.stop_with_data_error(index, tag, HostErrorKind::Other);
            return false;
        };
        if !link.attributes.valid || link.attributes.act != Act::Link {
            self.violation(Violation::BadLink(tag));
            self.stop_with_data_error(index, tag, HostErrorKind::Other);
            return false;
        }
        let mut at = link.address;
        let mut remaining = u32::from(desc.blocks) * 512;
        let mut buf = [0u8; 512];
        let mut descriptors = 0u32;
        loop {
            descriptors += 1;
            if descriptors > MAX_DESCRIPTORS_PER_TASK {
                self.violation(Violation::BadTransfer(tag));
                self.stop_with_data_error(index, tag, HostErrorKind::Other);
                return false;
            }
            let Some(d) = self.read_data_desc(mem, at) else {
                self.stop_with_data_error(index, tag, HostErrorKind::Other);
                return false;
            };
            if !d.attributes.valid {
                self.violation(Violation::BadTransfer(tag));
                self.stop_with_data_error(index, tag, HostErrorKind::Other);
                return false;
            }
            match d.attributes.act {
                Act::Link => {
                    at = d.address;
                    continue;
                }
                Act::Transfer => {}
                _ => {
                    self.violation(Violation::BadTransfer(tag));
                    self.stop_with_data_error(index, tag, HostErrorKind::Other);
                    return false;
                }
            }
            if d.length > remaining {
                self.violation(Violation::LengthMismatch(tag));
                self.stop_with_data_error(index, tag, HostErrorKind::Other);
                return false;
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
                if let Err(fault) = result {
                    self.violation(match fault {
                        Some(a) => Violation::Bus(a),
                        None => Violation::CardData(tag),
                    });
                    self.stop_with_data_error(index, tag, HostErrorKind::Other);
                    return false;
                }
                moved += n;
            }
            remaining -= d.length;
            if d.attributes.end {
                break;
            }
            at = at.wrapping_add(self.transfer_len());
        }
        if remaining != 0 {
            self.violation(Violation::LengthMismatch(tag));
            self.stop_with_data_error(index, tag, HostErrorKind::Other);
            return false;
        }
        if crc {
            self.stop_with_data_error(index, tag, HostErrorKind::Crc);
            return false;
        }
        true
    }

    fn complete(&mut self, tag: u8, interrupt: bool) {
        let bit = 1u32 << (tag & 31);
        self.tdbr &= !bit;
        self.dpt &= !bit;
        self.dqs &= !bit;
        if let Some(s) = self.slots.get_mut(usize::from(tag)) {
            *s = SlotState::Empty;
        }
        self.completions = self.completions.saturating_add(1);
        self.tcn |= bit;
        let mut extra = 0;
        for f in self.faults.iter_mut() {
            if let Some(Fault::SpuriousCompletion { mask }) = *f {
                extra = mask;
                *f = None;
                break;
            }
        }
        self.tcn |= extra;
        let counted = self.ic_enabled && (self.ic_threshold != 0 || self.ic_timeout != 0);
        if interrupt || !counted {
            self.raise(is::TCC);
            return;
        }
        self.ic_counter = (self.ic_counter + 1).min(31);
        if self.ic_threshold != 0 && self.ic_counter >= self.ic_threshold {
            self.raise(is::TCC);
        }
    }
}
