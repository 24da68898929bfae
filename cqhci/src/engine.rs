// SPDX-License-Identifier: GPL-2.0
//! The CQHCI engine: a sans-I/O state machine that implements the MMC core's `cqe_ops`
//! contract over the CQHCI registers (any [`Io`] of [`CqhciBlock`]) and caller-provided
//! descriptor memory.
//!
//! The glue owns locking, DMA mapping, waiting and the MMC requests; the engine owns the
//! slot table, the descriptor encoding and every register sequence. Operations that must wait
//! for the hardware (halt, clear all tasks) return a [`Step::Wait`] naming a condition the
//! glue can poll with [`WaitCondition::is_met`] without holding the engine; the glue then calls
//! [`Cqhci::resume`]. Completions come back as values, never as calls into the host.

use super::completion::{
    CompletionStatus, Completions, HostError, IdleState, IrqOutcome, TaskError, TimeoutVerdict,
};
use super::desc::{
    DataTask, DirectCommand, DmaWidth, EncodeError, Layout, LinkDescriptor, TaskDescriptorSize,
};
use super::host::{CqhciHost, Segment, TransferList};
use super::regs::{
    CqhciBlock, Interrupts, RegisterDump, Tag, TaskMask, CQCFG, CQCTL, CQIC, CQIS, CQISGE, CQISTE,
    CQSSC2, CQTCN, CQTDBR, CQTDLBA, CQTDLBAU, CQTDPE, CQTERRI, CQVER,
};
use crate::registers::{FieldOverflow, Io, PollLimit};

/// How long `cqe_off` waits for the halt (the controller should be idle).
pub const OFF_HALT_TIMEOUT_US: u32 = 100;
/// How long recovery start waits for the halt (a transfer may still have to finish).
pub const RECOVERY_START_HALT_TIMEOUT_US: u32 = 500_000;
/// How long recovery finish waits for each halt.
pub const RECOVERY_FINISH_HALT_TIMEOUT_US: u32 = 20_000;
/// How long recovery finish waits for CLEAR ALL TASKS.
pub const CLEAR_ALL_TASKS_TIMEOUT_US: u32 = 20_000;

/// Errors of the engine's operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The configuration is inconsistent (`-EINVAL`).
    InvalidConfig,
    /// The card does not have its command queue enabled (`-EINVAL`).
    CommandQueueDisabled,
    /// `cqe_enable` has not run (`-EINVAL`).
    NotEnabled,
    /// Recovery, or another operation, is in progress (`-EBUSY`).
    Busy,
    /// The tag is not a data slot of this configuration (`-EINVAL`).
    InvalidTag,
    /// The slot already holds a task (`-EBUSY`).
    SlotBusy,
    /// Direct commands are not enabled (`-EINVAL`).
    NoDirectCommand,
    /// The descriptor memory is smaller than [`Layout`] requires (`-ENOMEM`).
    MemoryTooSmall,
    /// An address does not fit the descriptor format, e.g. above 4 GiB with 32-bit DMA
    /// (`-EINVAL`).
    AddressNotReachable,
    /// The scatter list needs more descriptors than `max_segments` (`-EINVAL`).
    TooManySegments,
    /// A segment has length 0, which a descriptor would read as 64 KiB (`-EINVAL`).
    EmptySegment,
    /// The scatter list has no segment (`-EINVAL`).
    NoSegments,
    /// A custom transfer descriptor hook did not end the list (`-EINVAL`).
    UnterminatedTransferList,
    /// The data task moves no block (`-EINVAL`).
    NoBlocks,
    /// A value does not fit the register or descriptor field it goes to, such as a context ID
    /// above 15 or a command index above 63 (`-EINVAL`).
    ValueTooWide,
}

impl From<FieldOverflow> for Error {
    fn from(_: FieldOverflow) -> Self {
        Error::ValueTooWide
    }
}

impl From<EncodeError> for Error {
    fn from(e: EncodeError) -> Self {
        match e {
            EncodeError::OutOfBounds => Error::MemoryTooSmall,
            EncodeError::AddressTooWide => Error::AddressNotReachable,
        }
    }
}

/// Opt-in interrupt coalescing (CQIC). Upstream never programs it.
///
/// With coalescing on, data task descriptors have INT = 0 so their completions are counted;
/// direct commands keep INT = 1 and interrupt at once. The timeout is required: the counter
/// alone never signals the completions short of its threshold (the last requests of a burst
/// would wait for the core's timeout), so [`Cqhci::new`] refuses a zero timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coalescing {
    /// Completions per interrupt (ICCTH, 0..=31; 0 disables the counter).
    pub threshold: u8,
    /// Timeout in units of 1024 internal timer clocks (ICTOVAL, 1..=127), counted from the
    /// first completion the counter holds.
    pub timeout: u8,
}

/// Fixed properties of the host, set once (the `caps`, `quirks`, `dma64` and `caps2` of C).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Task descriptor size (MediaTek: 128 bits).
    pub task_descriptor: TaskDescriptorSize,
    /// Descriptor address width (MediaTek: 64 bits).
    pub dma: DmaWidth,
    /// 64-bit transfer descriptors are 12 bytes apart instead of 16 (a controller quirk).
    pub short_transfer_descriptor: bool,
    /// Slot 31 carries direct commands (`MMC_CAP2_CQE_DCMD`); the queue depth becomes 31.
    pub direct_commands: bool,
    /// Most transfer descriptors per task (the host's `max_segs`; MediaTek: 128).
    pub max_segments: u16,
    /// Interrupt coalescing, off by default.
    pub coalescing: Option<Coalescing>,
}

/// The card facts `cqe_enable` needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CardInfo {
    /// EXT_CSD CMDQ_MODE_EN has been set.
    pub command_queue_enabled: bool,
    /// The card's relative address, sent in the controller's CMD13.
    pub rca: u16,
}

/// Descriptor memory lent to the engine for one call: the task descriptor list and the
/// transfer descriptor area, each with its bus address.
///
/// The same memory (and addresses) must be passed on every call after `enable`.
#[derive(Debug)]
pub struct DescriptorMemory<'a> {
    /// The task descriptor list (at least [`Layout::tdl_len`] bytes; CQHCI wants it aligned).
    pub tdl: &'a mut [u8],
    /// Bus address of `tdl`.
    pub tdl_bus: u64,
    /// The transfer descriptor area (at least [`Layout::transfer_area_len`] bytes).
    pub transfers: &'a mut [u8],
    /// Bus address of `transfers`.
    pub transfers_bus: u64,
}

/// Identifies one issued task, so a late timeout cannot hit a newer task in the same slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    /// The slot.
    pub tag: Tag,
    generation: u32,
}

/// A register condition to wait for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitCondition {
    /// CQCTL.HALT reads 1.
    Halted,
    /// CQCTL.CLEAR_ALL_TASKS reads 0.
    TasksCleared,
}

impl WaitCondition {
    /// Whether a CQCTL value meets the condition.
    pub const fn holds(self, ctl: CQCTL) -> bool {
        match self {
            WaitCondition::Halted => ctl.halt(),
            WaitCondition::TasksCleared => !ctl.clr_all_tasks(),
        }
    }

    /// Whether the condition holds now; the glue may call this without the engine's lock.
    pub fn is_met(self, regs: &impl Io<CqhciBlock>) -> bool {
        self.holds(regs.read::<CQCTL>())
    }
}

/// A bounded wait the glue performs before calling [`Cqhci::resume`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    /// What to wait for (the controller raises HAC or TCL when it happens).
    pub condition: WaitCondition,
    /// Give up after this many microseconds; the engine copes with a timeout.
    pub timeout_us: u32,
}

impl Wait {
    /// Busy-waits for the condition, reading CQCTL every `interval_us` microseconds (at least
    /// one) until `timeout_us` has passed; for glue that spins where it stands. Whether the
    /// condition was met; [`Cqhci::resume`] copes either way.
    pub fn poll(&self, regs: &impl Io<CqhciBlock>, interval_us: u32) -> bool {
        let interval_us = interval_us.max(1);
        let limit = PollLimit {
            attempts: self.timeout_us.div_ceil(interval_us).saturating_add(1),
            interval_us,
        };
        regs.poll::<CQCTL>(|ctl| self.condition.holds(ctl), limit)
            .is_ok()
    }
}

/// Problems an operation ran into; the glue logs them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Warnings(u8);

impl Warnings {
    /// `cqe_off` could not halt the controller ("CQE stuck on").
    pub const STUCK_ON: Warnings = Warnings(1);
    /// A recovery halt timed out ("failed to halt").
    pub const HALT_FAILED: Warnings = Warnings(1 << 1);
    /// CLEAR ALL TASKS timed out ("failed to clear tasks").
    pub const CLEAR_FAILED: Warnings = Warnings(1 << 2);
    /// Recovery was started or finished without a pending error.
    pub const NOT_IN_RECOVERY: Warnings = Warnings(1 << 3);

    /// Whether every warning of `other` is set.
    pub const fn contains(self, other: Warnings) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether no warning is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    const fn with(self, other: Warnings) -> Warnings {
        Warnings(self.0 | other.0)
    }
}

/// The end of an operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Finished {
    /// Tasks to complete now (recovery finish completes every queued task).
    pub completions: Completions,
    /// Problems met on the way.
    pub warnings: Warnings,
}

/// What the glue must do next in a multi-step operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Wait (bounded), then call [`Cqhci::resume`].
    Wait(Wait),
    /// The operation is over.
    Done(Finished),
}

/// A point in recovery finish where the engine waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FinishStage {
    FirstHalt,
    Clear,
    SecondHalt,
    FinalClear,
}

/// The operation in progress, and where it waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operation {
    Off {
        then_disable: bool,
    },
    RecoveryStart {
        warnings: Warnings,
    },
    RecoveryFinish {
        stage: FinishStage,
        ok: bool,
        warnings: Warnings,
    },
}

/// Per-slot error flags (the `flags` of C's `cqhci_slot`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct SlotFlags(u8);

impl SlotFlags {
    const EXTERNAL_TIMEOUT: u8 = 1;
    const COMPLETED: u8 = 1 << 1;
    const HOST_CRC: u8 = 1 << 2;
    const HOST_TIMEOUT: u8 = 1 << 3;
    const HOST_OTHER: u8 = 1 << 4;

    /// The flag for the first error given (C's `cqhci_error_flags`).
    fn from_errors(first: Option<HostError>, second: Option<HostError>) -> SlotFlags {
        match first.or(second) {
            Some(HostError::Crc) => SlotFlags(Self::HOST_CRC),
            Some(HostError::Timeout) => SlotFlags(Self::HOST_TIMEOUT),
            Some(HostError::Other) | None => SlotFlags(Self::HOST_OTHER),
        }
    }

    /// The status a task with these flags completes with at the end of recovery; CRC wins
    /// because it makes the core re-tune.
    fn recovery_status(self) -> CompletionStatus {
        if self.0 == 0 {
            CompletionStatus::Requeue
        } else if self.0 & Self::HOST_CRC != 0 {
            CompletionStatus::Failed(TaskError::Crc)
        } else if self.0 & Self::EXTERNAL_TIMEOUT != 0 || self.0 & Self::HOST_TIMEOUT != 0 {
            CompletionStatus::Failed(TaskError::Timeout)
        } else {
            CompletionStatus::Failed(TaskError::Io)
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    flags: SlotFlags,
    generation: u32,
}

/// The CQHCI engine for one host.
#[derive(Debug)]
pub struct Cqhci {
    config: Config,
    layout: Layout,
    enabled: bool,
    activated: bool,
    on: bool,
    recovery_halt: bool,
    /// The task descriptor list's address and the card's RCA as `enable` encoded them; the
    /// controller is programmed with them again after a suspend.
    tdlba: CQTDLBA,
    tdlbau: CQTDLBAU,
    ssc2: CQSSC2,
    /// CQIC as `new` encoded it, with coalescing on.
    coalescing: Option<CQIC>,
    busy: TaskMask,
    slots: [Slot; Tag::COUNT],
    generation: u32,
    operation: Option<Operation>,
}

impl Cqhci {
    /// An engine for `config` (C's `cqhci_init`). Nothing touches the hardware yet.
    pub fn new(config: Config) -> Result<Self, Error> {
        if config.max_segments == 0 {
            return Err(Error::InvalidConfig);
        }
        let coalescing = match config.coalescing {
            // Without the timer the completions short of the threshold are never signalled.
            Some(c) if c.timeout == 0 => return Err(Error::InvalidConfig),
            Some(c) => {
                Some(CQIC::program(c.threshold, c.timeout).map_err(|_| Error::InvalidConfig)?)
            }
            None => None,
        };
        let data_slots = if config.direct_commands { 31 } else { 32 };
        Ok(Self {
            config,
            layout: Layout::new(
                config.task_descriptor,
                config.dma,
                config.short_transfer_descriptor,
                config.max_segments,
                data_slots,
            ),
            enabled: false,
            activated: false,
            on: false,
            recovery_halt: false,
            tdlba: CQTDLBA::zeroed(),
            tdlbau: CQTDLBAU::zeroed(),
            ssc2: CQSSC2::zeroed(),
            coalescing,
            busy: TaskMask::EMPTY,
            slots: [Slot::default(); Tag::COUNT],
            generation: 0,
            operation: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The descriptor memory layout: how much memory [`Cqhci::enable`] needs.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The queue depth to advertise (`cqe_qdepth`): 31 with direct commands, else 32.
    pub fn queue_depth(&self) -> u32 {
        if self.config.direct_commands {
            31
        } else {
            32
        }
    }

    /// Whether `cqe_enable` has succeeded and `cqe_disable` has not run since.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The core's `host->cqe_on`: whether the controller is on (not halted by `cqe_off`).
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Whether an error or timeout has put the engine in recovery.
    pub fn recovery_pending(&self) -> bool {
        self.recovery_halt
    }

    /// The slots holding a task.
    pub fn in_flight(&self) -> TaskMask {
        self.busy
    }

    /// Reads CQVER (C prints it as "CQHCI version %u.%02u").
    pub fn version(regs: &impl Io<CqhciBlock>) -> CQVER {
        regs.read::<CQVER>()
    }

    /// Reads every register for a dump, then lets the host add its own.
    pub fn dump(regs: &impl Io<CqhciBlock>, host: &impl CqhciHost) -> RegisterDump {
        let dump = RegisterDump::read(regs);
        host.dump_vendor_regs(regs);
        dump
    }

    fn set_irqs(regs: &impl Io<CqhciBlock>, irqs: Interrupts) {
        regs.write(CQISTE::zeroed().with_enabled(irqs));
        regs.write(CQISGE::zeroed().with_signalled(irqs));
    }

    fn halted(regs: &impl Io<CqhciBlock>) -> bool {
        WaitCondition::Halted.is_met(regs)
    }

    /// `cqe_enable`: writes the link descriptors and switches the controller on.
    pub fn enable(
        &mut self,
        regs: &impl Io<CqhciBlock>,
        host: &impl CqhciHost,
        card: CardInfo,
        mem: &mut DescriptorMemory<'_>,
    ) -> Result<(), Error> {
        if !card.command_queue_enabled {
            return Err(Error::CommandQueueDisabled);
        }
        if self.enabled {
            return Ok(());
        }
        if mem.tdl.len() < self.layout.tdl_len()
            || mem.transfers.len() < self.layout.transfer_area_len()
        {
            return Err(Error::MemoryTooSmall);
        }
        if self.config.dma == DmaWidth::Bits32 {
            let tdl_end = mem.tdl_bus.checked_add(self.layout.tdl_len() as u64);
            let xfer_end = mem
                .transfers_bus
                .checked_add(self.layout.transfer_area_len() as u64);
            let limit = 1u64 << u32::BITS;
            if !matches!((tdl_end, xfer_end), (Some(a), Some(b)) if a <= limit && b <= limit) {
                return Err(Error::AddressNotReachable);
            }
        }
        // The low and high halves of the list's bus address.
        let tdlba = CQTDLBA::zeroed().try_with_tdlba(mem.tdl_bus as u32)?;
        let tdlbau = CQTDLBAU::zeroed().try_with_tdlbau((mem.tdl_bus >> u32::BITS) as u32)?;
        let ssc2 = CQSSC2::zeroed().try_with_rca(u32::from(card.rca))?;
        for tag in TaskMask::ALL.iter() {
            let link = if self.is_dcmd_slot(tag) {
                LinkDescriptor::Terminal
            } else {
                let offset = self.layout.transfer_offset(tag) as u64;
                let target = mem
                    .transfers_bus
                    .checked_add(offset)
                    .ok_or(Error::AddressNotReachable)?;
                LinkDescriptor::Next(target)
            };
            self.layout.write_task(mem.tdl, tag, 0)?;
            self.layout.write_link(mem.tdl, tag, link)?;
        }
        self.tdlba = tdlba;
        self.tdlbau = tdlbau;
        self.ssc2 = ssc2;
        self.activate(regs, host);
        self.enabled = true;
        Ok(())
    }

    fn is_dcmd_slot(&self, tag: Tag) -> bool {
        self.config.direct_commands && tag == Tag::DCMD
    }

    /// Programs the controller and switches it on (C's `__cqhci_enable`).
    fn activate(&mut self, regs: &impl Io<CqhciBlock>, host: &impl CqhciHost) {
        let mut cfg = regs.read::<CQCFG>();
        // The configuration must not change while the controller is enabled.
        if cfg.cq_en() {
            cfg = cfg.with_cq_en(false);
            regs.write(cfg);
        }
        cfg = cfg
            .with_cr_general_en(false)
            .with_dcmd_en(self.config.direct_commands)
            .with_task_desc_sz(self.config.task_descriptor);
        regs.write(cfg);
        regs.write(self.tdlba);
        regs.write(self.tdlbau);
        regs.write(self.ssc2);
        if let Some(ic) = self.coalescing {
            regs.write(ic);
        }
        Self::set_irqs(regs, Interrupts::EMPTY);
        regs.write(cfg.with_cq_en(true));
        if Self::halted(regs) {
            regs.write(CQCTL::zeroed());
        }
        self.on = true;
        host.enable(regs);
        Self::set_irqs(regs, Interrupts::OPERATIONAL);
        self.activated = true;
    }

    fn deactivate_now(&mut self, regs: &impl Io<CqhciBlock>) {
        regs.update::<CQCFG>(|cfg| cfg.with_cq_en(false));
        self.on = false;
        self.activated = false;
    }

    /// Suspend (`cqhci_suspend`/`cqhci_deactivate`): switches the controller off; the next
    /// request programs it again, so resume needs no call.
    pub fn deactivate(&mut self, regs: &impl Io<CqhciBlock>) {
        if self.enabled && self.activated {
            self.deactivate_now(regs);
        }
    }

    /// Makes sure the controller runs before a request (lazy re-enable and un-halt).
    fn ensure_on(&mut self, regs: &impl Io<CqhciBlock>, host: &impl CqhciHost) {
        if !self.activated {
            self.activate(regs, host);
        }
        if !self.on {
            host.pre_enable(regs);
            regs.write(CQCTL::zeroed());
            self.on = true;
            host.enable(regs);
        }
    }

    fn check_can_issue(&self, tag: Tag) -> Result<(), Error> {
        if !self.enabled {
            return Err(Error::NotEnabled);
        }
        if self.recovery_halt || self.operation.is_some() {
            return Err(Error::Busy);
        }
        if self.busy.contains(tag) {
            return Err(Error::SlotBusy);
        }
        Ok(())
    }

    fn ring(&mut self, regs: &impl Io<CqhciBlock>, tag: Tag) -> Ticket {
        self.generation = self.generation.wrapping_add(1);
        if let Some(slot) = self.slots.get_mut(tag.index()) {
            *slot = Slot {
                flags: SlotFlags::default(),
                generation: self.generation,
            };
        }
        self.busy = self.busy.with(tag);
        // A completion bit still set for this free slot can only be spurious (this slot's
        // last completion was consumed before it became free); left there, it would
        // complete the new task before the card has run it.
        regs.write(CQTCN::zeroed().with_tcn(tag.mask()));
        regs.write(CQTDBR::zeroed().with_dbr(tag.mask()));
        Ticket {
            tag,
            generation: self.generation,
        }
    }

    /// `cqe_request` for a data task in slot `tag`: writes the task and transfer descriptors
    /// for `segments` and rings the doorbell.
    pub fn issue_data(
        &mut self,
        regs: &impl Io<CqhciBlock>,
        host: &impl CqhciHost,
        mem: &mut DescriptorMemory<'_>,
        tag: Tag,
        task: &DataTask,
        segments: impl IntoIterator<Item = Segment>,
    ) -> Result<Ticket, Error> {
        if tag.number() >= self.queue_depth() {
            return Err(Error::InvalidTag);
        }
        if task.block_count == 0 {
            return Err(Error::NoBlocks);
        }
        self.check_can_issue(tag)?;
        let mut segments = segments.into_iter().peekable();
        if segments.peek().is_none() {
            return Err(Error::NoSegments);
        }
        let interrupt = self.config.coalescing.is_none();
        let word = task.encode(interrupt)?;
        self.ensure_on(regs, host);
        self.layout.write_task(mem.tdl, tag, word.raw())?;
        let start = self.layout.transfer_offset(tag);
        let end = start
            .checked_add(self.layout.transfer_slot_len())
            .ok_or(Error::MemoryTooSmall)?;
        let area = mem
            .transfers
            .get_mut(start..end)
            .ok_or(Error::MemoryTooSmall)?;
        let mut list = TransferList::new(area, self.layout);
        while let Some(segment) = segments.next() {
            let last = segments.peek().is_none();
            match host.prepare_transfer_descriptors(segment, last, &mut list) {
                Some(result) => result?,
                None => list.push_segment(segment, last)?,
            }
        }
        if !list.is_ended() {
            return Err(Error::UnterminatedTransferList);
        }
        Ok(self.ring(regs, tag))
    }

    /// `cqe_request` for a direct command: writes the DCMD task descriptor in slot 31 and
    /// rings the doorbell.
    pub fn issue_dcmd(
        &mut self,
        regs: &impl Io<CqhciBlock>,
        host: &impl CqhciHost,
        mem: &mut DescriptorMemory<'_>,
        command: &DirectCommand,
    ) -> Result<Ticket, Error> {
        if !self.config.direct_commands {
            return Err(Error::NoDirectCommand);
        }
        self.check_can_issue(Tag::DCMD)?;
        let word = command.encode()?;
        self.ensure_on(regs, host);
        self.layout.write_task(mem.tdl, Tag::DCMD, word.raw())?;
        Ok(self.ring(regs, Tag::DCMD))
    }

    /// Marks recovery as needed; returns true if this call started it.
    fn recovery_needed(&mut self) -> bool {
        if self.recovery_halt {
            return false;
        }
        self.recovery_halt = true;
        true
    }

    fn flag_error(&mut self, tag: Tag, flags: SlotFlags, out: &mut IrqOutcome) {
        if !self.busy.contains(tag) {
            return;
        }
        if let Some(slot) = self.slots.get_mut(tag.index()) {
            slot.flags = flags;
        }
        if self.recovery_needed() {
            out.notify_recovery = Some(tag);
            out.wake = true;
        }
    }

    fn error_irq(
        &mut self,
        regs: &impl Io<CqhciBlock>,
        status: Interrupts,
        cmd_error: Option<HostError>,
        data_error: Option<HostError>,
        out: &mut IrqOutcome,
    ) {
        let terri = regs.read::<CQTERRI>();
        out.task_error = Some(terri);
        // Once recovery has been triggered further errors add nothing.
        if self.recovery_halt {
            return;
        }
        if self.busy.is_empty() {
            out.error_while_idle = true;
            return;
        }
        if terri.rmefv() {
            let flags = SlotFlags::from_errors(cmd_error, data_error);
            self.flag_error(terri.rmetid(), flags, out);
        }
        if terri.dtefv() {
            let flags = SlotFlags::from_errors(data_error, cmd_error);
            self.flag_error(terri.dtetid(), flags, out);
        }
        if status.contains(Interrupts::ICCE) {
            let tdpe = regs.read::<CQTDPE>().tdpe();
            out.descriptor_errors = Some(tdpe);
            for tag in tdpe.iter() {
                self.flag_error(tag, SlotFlags::from_errors(data_error, cmd_error), out);
            }
        }
        // Forward progress needs at least one task in error: if nothing named one, pick the
        // lowest queued task.
        if !self.recovery_halt {
            if let Some(tag) = self.busy.iter().next() {
                self.flag_error(tag, SlotFlags::from_errors(data_error, cmd_error), out);
            }
        }
    }

    fn finish_task(&mut self, tag: Tag, out: &mut IrqOutcome) {
        if !self.busy.contains(tag) {
            out.spurious = out.spurious.with(tag);
            return;
        }
        if self.recovery_halt {
            // No completion during recovery; recovery finish reports the task.
            if let Some(slot) = self.slots.get_mut(tag.index()) {
                slot.flags.0 |= SlotFlags::COMPLETED;
            }
            return;
        }
        self.busy = self.busy.without(tag);
        out.completed.add(tag, CompletionStatus::Done);
    }

    /// The CQHCI interrupt (`cqhci_irq`): `cmd_error` and `data_error` are what the host
    /// controller detected itself. Complete the returned tasks after the call.
    pub fn irq(
        &mut self,
        regs: &impl Io<CqhciBlock>,
        cmd_error: Option<HostError>,
        data_error: Option<HostError>,
    ) -> IrqOutcome {
        let cqis = regs.read::<CQIS>();
        // Writing the pending bits back clears them.
        regs.write(cqis);
        let status = Interrupts::from_status(cqis);
        let mut out = IrqOutcome {
            status,
            ..IrqOutcome::default()
        };
        if status.intersects(Interrupts::ERRORS) || cmd_error.is_some() || data_error.is_some() {
            self.error_irq(regs, status, cmd_error, data_error, &mut out);
        }
        if status.contains(Interrupts::TCC) {
            if self.coalescing.is_some() {
                // Before CQTCN is read: a completion counted after the reset interrupts on
                // its own, one counted before it is in the CQTCN read below. Reset after the
                // read, a task completing in between would be in neither.
                regs.write(CQIC::reset_counter());
            }
            let tcn = regs.read::<CQTCN>();
            // Writing the completed bits back clears them.
            regs.write(tcn);
            for tag in tcn.tcn().iter() {
                self.finish_task(tag, &mut out);
            }
            if self.busy.is_empty() {
                out.wake = true;
            }
        }
        if status.intersects(Interrupts::TCL.union(Interrupts::HAC)) {
            out.wake = true;
        }
        out
    }

    /// `cqe_timeout`: the core's timer expired for the task behind `ticket`.
    pub fn timeout(&mut self, ticket: Ticket) -> TimeoutVerdict {
        let current = self
            .slots
            .get(ticket.tag.index())
            .is_some_and(|slot| slot.generation == ticket.generation);
        if !current || !self.busy.contains(ticket.tag) {
            return TimeoutVerdict::AlreadyCompleted;
        }
        if let Some(slot) = self.slots.get_mut(ticket.tag.index()) {
            slot.flags.0 |= SlotFlags::EXTERNAL_TIMEOUT;
        }
        self.recovery_needed();
        TimeoutVerdict::TimedOut {
            recovery_needed: self.recovery_halt,
        }
    }

    /// The `cqe_wait_for_idle` predicate; re-check it whenever an [`IrqOutcome`] says `wake`.
    pub fn idle_state(&self) -> IdleState {
        if self.recovery_halt {
            IdleState::RecoveryNeeded
        } else if self.busy.is_empty() {
            IdleState::Idle
        } else {
            IdleState::Busy
        }
    }

    /// `cqe_off`: halts the controller before the core sends a non-queued command.
    pub fn off(&mut self, regs: &impl Io<CqhciBlock>, host: &impl CqhciHost) -> Step {
        if !self.enabled || !self.on || self.recovery_halt || self.operation.is_some() {
            return Step::Done(Finished::default());
        }
        self.start_off(regs, host, false)
    }

    fn start_off(
        &mut self,
        regs: &impl Io<CqhciBlock>,
        host: &impl CqhciHost,
        then_disable: bool,
    ) -> Step {
        host.disable(regs, false);
        regs.write(CQCTL::zeroed().with_halt(true));
        self.operation = Some(Operation::Off { then_disable });
        Step::Wait(Wait {
            condition: WaitCondition::Halted,
            timeout_us: OFF_HALT_TIMEOUT_US,
        })
    }

    /// `cqe_disable`: halts (as `cqe_off`), then switches the controller off. The descriptor
    /// memory may be freed once this is done.
    pub fn disable(&mut self, regs: &impl Io<CqhciBlock>, host: &impl CqhciHost) -> Step {
        if !self.enabled || self.operation.is_some() {
            return Step::Done(Finished::default());
        }
        if self.on && !self.recovery_halt {
            return self.start_off(regs, host, true);
        }
        self.finish_disable(regs);
        Step::Done(Finished::default())
    }

    fn finish_disable(&mut self, regs: &impl Io<CqhciBlock>) {
        self.deactivate_now(regs);
        self.enabled = false;
    }

    /// Asks for a halt; returns false if the controller is already halted (nothing to wait
    /// for).
    fn request_halt(regs: &impl Io<CqhciBlock>) -> bool {
        if Self::halted(regs) {
            return false;
        }
        Self::set_irqs(regs, Interrupts::HAC);
        regs.update::<CQCTL>(|ctl| ctl.with_halt(true));
        true
    }

    fn request_clear(regs: &impl Io<CqhciBlock>) {
        Self::set_irqs(regs, Interrupts::TCL);
        regs.update::<CQCTL>(|ctl| ctl.with_clr_all_tasks(true));
    }

    /// `cqe_recovery_start`: halts the controller (waiting up to 500 ms) and tells the host
    /// to stop its data path, so the core can send CMD12 and CMD48.
    pub fn recovery_start(&mut self, regs: &impl Io<CqhciBlock>, host: &impl CqhciHost) -> Step {
        let warnings = if self.recovery_halt {
            Warnings::default()
        } else {
            Warnings::NOT_IN_RECOVERY
        };
        if self.operation.is_some() {
            return Step::Done(Finished {
                warnings,
                ..Finished::default()
            });
        }
        if Self::request_halt(regs) {
            self.operation = Some(Operation::RecoveryStart { warnings });
            return Step::Wait(Wait {
                condition: WaitCondition::Halted,
                timeout_us: RECOVERY_START_HALT_TIMEOUT_US,
            });
        }
        Step::Done(Finished {
            warnings: warnings.with(self.end_recovery_start(regs, host, false)),
            ..Finished::default()
        })
    }

    fn end_recovery_start(
        &mut self,
        regs: &impl Io<CqhciBlock>,
        host: &impl CqhciHost,
        waited: bool,
    ) -> Warnings {
        let mut warnings = Warnings::default();
        if waited {
            Self::set_irqs(regs, Interrupts::EMPTY);
            if !Self::halted(regs) {
                warnings = Warnings::HALT_FAILED;
            }
        }
        host.disable(regs, true);
        self.on = false;
        warnings
    }

    /// `cqe_recovery_finish`: halts, clears all tasks, toggles the enable, and completes
    /// every queued task with the status its error flags imply.
    pub fn recovery_finish(&mut self, regs: &impl Io<CqhciBlock>) -> Step {
        if self.operation.is_some() {
            return Step::Done(Finished::default());
        }
        let warnings = if self.recovery_halt {
            Warnings::default()
        } else {
            Warnings::NOT_IN_RECOVERY
        };
        self.run_finish(regs, FinishStage::FirstHalt, true, warnings, false)
    }

    fn wait_for(
        &mut self,
        operation: Operation,
        condition: WaitCondition,
        timeout_us: u32,
    ) -> Step {
        self.operation = Some(operation);
        Step::Wait(Wait {
            condition,
            timeout_us,
        })
    }

    /// Runs recovery finish from `stage`; `waited` says whether the glue has just waited for
    /// that stage's condition.
    fn run_finish(
        &mut self,
        regs: &impl Io<CqhciBlock>,
        mut stage: FinishStage,
        mut ok: bool,
        mut warnings: Warnings,
        mut waited: bool,
    ) -> Step {
        loop {
            match (stage, waited) {
                (FinishStage::FirstHalt | FinishStage::SecondHalt, false) => {
                    if Self::request_halt(regs) {
                        return self.wait_for(
                            Operation::RecoveryFinish {
                                stage,
                                ok,
                                warnings,
                            },
                            WaitCondition::Halted,
                            RECOVERY_FINISH_HALT_TIMEOUT_US,
                        );
                    }
                    // Already halted: go straight on, as after a successful wait.
                    if stage == FinishStage::FirstHalt {
                        stage = FinishStage::Clear;
                    } else if ok {
                        break;
                    } else {
                        stage = FinishStage::FinalClear;
                    }
                }
                (FinishStage::FirstHalt, true) => {
                    Self::set_irqs(regs, Interrupts::EMPTY);
                    if !Self::halted(regs) {
                        ok = false;
                        warnings = warnings.with(Warnings::HALT_FAILED);
                    }
                    stage = FinishStage::Clear;
                    waited = false;
                }
                // Clearing is attempted even if the halt failed; the specification is
                // ambiguous and trying costs nothing.
                (FinishStage::Clear | FinishStage::FinalClear, false) => {
                    Self::request_clear(regs);
                    return self.wait_for(
                        Operation::RecoveryFinish {
                            stage,
                            ok,
                            warnings,
                        },
                        WaitCondition::TasksCleared,
                        CLEAR_ALL_TASKS_TIMEOUT_US,
                    );
                }
                (FinishStage::Clear, true) => {
                    Self::set_irqs(regs, Interrupts::EMPTY);
                    if !WaitCondition::TasksCleared.is_met(regs) {
                        ok = false;
                        warnings = warnings.with(Warnings::CLEAR_FAILED);
                    }
                    // Toggle the enable so the controller really forgets the tasks.
                    regs.update::<CQCFG>(|cfg| cfg.with_cq_en(false));
                    regs.update::<CQCFG>(|cfg| cfg.with_cq_en(true));
                    stage = FinishStage::SecondHalt;
                    waited = false;
                }
                (FinishStage::SecondHalt, true) => {
                    Self::set_irqs(regs, Interrupts::EMPTY);
                    if !Self::halted(regs) {
                        warnings = warnings.with(Warnings::HALT_FAILED);
                    }
                    if ok {
                        break;
                    }
                    stage = FinishStage::FinalClear;
                    waited = false;
                }
                (FinishStage::FinalClear, true) => {
                    Self::set_irqs(regs, Interrupts::EMPTY);
                    if !WaitCondition::TasksCleared.is_met(regs) {
                        warnings = warnings.with(Warnings::CLEAR_FAILED);
                    }
                    break;
                }
            }
        }
        let mut completions = Completions::default();
        for tag in self.busy.iter() {
            let flags = self
                .slots
                .get(tag.index())
                .map(|s| s.flags)
                .unwrap_or_default();
            completions.add(tag, flags.recovery_status());
        }
        self.busy = TaskMask::EMPTY;
        self.recovery_halt = false;
        self.on = false;
        regs.write(Interrupts::HAC.union(Interrupts::TCL).status());
        Self::set_irqs(regs, Interrupts::OPERATIONAL);
        Step::Done(Finished {
            completions,
            warnings,
        })
    }

    /// Continues the operation in progress after the glue's wait (met or timed out).
    pub fn resume(&mut self, regs: &impl Io<CqhciBlock>, host: &impl CqhciHost) -> Step {
        match self.operation.take() {
            None => Step::Done(Finished::default()),
            Some(Operation::Off { then_disable }) => {
                let warnings = if Self::halted(regs) {
                    Warnings::default()
                } else {
                    Warnings::STUCK_ON
                };
                host.post_disable(regs);
                self.on = false;
                if then_disable {
                    self.finish_disable(regs);
                }
                Step::Done(Finished {
                    warnings,
                    ..Finished::default()
                })
            }
            Some(Operation::RecoveryStart { warnings }) => {
                let warnings = warnings.with(self.end_recovery_start(regs, host, true));
                Step::Done(Finished {
                    warnings,
                    ..Finished::default()
                })
            }
            Some(Operation::RecoveryFinish {
                stage,
                ok,
                warnings,
            }) => self.run_finish(regs, stage, ok, warnings, true),
        }
    }

    /// Runs an operation to its end, calling `wait` for each wait (e.g. [`Wait::poll`]); for
    /// glue code that may block where it stands (the engine needs at most four waits per
    /// operation).
    pub fn drive(
        &mut self,
        regs: &impl Io<CqhciBlock>,
        host: &impl CqhciHost,
        first: Step,
        mut wait: impl FnMut(Wait),
    ) -> Finished {
        let mut step = first;
        for _ in 0..MAX_WAITS {
            match step {
                Step::Done(finished) => return finished,
                Step::Wait(w) => {
                    wait(w);
                    step = self.resume(regs, host);
                }
            }
        }
        match step {
            Step::Done(finished) => finished,
            Step::Wait(_) => Finished::default(),
        }
    }
}

/// More waits than any operation needs; bounds [`Cqhci::drive`].
const MAX_WAITS: usize = 8;
