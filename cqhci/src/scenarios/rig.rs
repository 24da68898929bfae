// SPDX-License-Identifier: GPL-2.0
//! The rig the CQHCI scenarios run on: the engine, the `models` crate's CQHCI model on a register bus with
//! MediaTek-like vendor hooks, an eMMC card model, and the memory the controller reaches by
//! DMA (the descriptor areas and a data window checked against a pattern).
//!
//! Everything fits in one stack frame of a few KiB (2-sector card, 3 transfer descriptors
//! per slot), small enough for a KUnit test's kernel stack.

use core::cell::Cell;

// `super::super` is the engine's module tree: the `cqhci` module in the kernel, the test
// crate's root (which imports the engine's modules) on the host.
use super::super::completion::{CompletionStatus, HostError};
use super::super::desc::{
    DataTask, DcmdResponse, DirectCommand, Direction, DmaWidth, TaskDescriptorSize, TaskFlags,
};
use super::super::engine::{
    CardInfo, Config, Cqhci, DescriptorMemory, Finished, Step, Ticket, Wait,
};
use super::super::host::{CqhciHost, Segment};
use super::super::regs::{CqhciBlock, Tag, CQCFG};
use super::{ensure, Outcome, ScenarioError};
use crate::models::bus::Bus;
use crate::models::cqhci::controller::{CqhciModel, Fault, HostErrorKind, ModelConfig};
use crate::models::emmc::card::{Card, ReadyOrder, SECTOR_SIZE};
use crate::models::emmc::command::Command;
use crate::models::memory::{BusFault, BusMemory, Ram};
use crate::registers::Io;

/// The card's relative address.
pub(super) const RCA: u16 = 0x0002;
/// Sectors on the card.
pub(super) const SECTORS: usize = 2;
const STORAGE_LEN: usize = SECTORS * SECTOR_SIZE;
const MAX_SEGMENTS: u16 = 3;
const TDL_LEN: usize = 32 * 32;
const XFER_LEN: usize = 16 * MAX_SEGMENTS as usize * 32;
const STEP_BUDGET: u32 = 20_000;
/// The block's clock between two steps of the model, ns.
const STEP_NS: u64 = 1_000;
/// SWITCH (CMD6) writing 1 to EXT_CSD FLUSH_CACHE (byte 32): a cache flush.
const FLUSH_ARGUMENT: u32 = 0x0320_0100;

/// The byte a data buffer holds at offset `offset` of sector `lba`.
fn pattern(lba: u64, offset: u64) -> u8 {
    ((lba as u8).wrapping_mul(37) ^ (offset as u8) ^ ((offset >> 8) as u8).wrapping_mul(11))
        .wrapping_add(1)
}

/// The pattern at byte `at` of the card.
fn pattern_at(at: u64) -> u8 {
    let sector = SECTOR_SIZE as u64;
    pattern(at / sector, at % sector)
}

/// Fills the card with the pattern so reads can be checked.
fn fill(storage: &mut [u8]) {
    for (i, b) in storage.iter_mut().enumerate() {
        *b = pattern_at(i as u64);
    }
}

/// Bus addresses of the three regions.
#[derive(Clone, Copy, Debug)]
pub(super) struct Map {
    /// The task descriptor list.
    pub(super) tdl: u64,
    transfers: u64,
    data: u64,
}

const MAP_HIGH: Map = Map {
    tdl: 0x1_2000_0000,
    transfers: 0x1_2000_4000,
    data: 0x2_0000_0000,
};

const MAP_LOW: Map = Map {
    tdl: 0x8000_0000,
    transfers: 0x8000_4000,
    data: 0x9000_0000,
};

/// The data window: a data buffer for every sector, at `data + lba * 512`. Reads (memory to
/// card) return the pattern; writes (card to memory) are checked against it.
#[derive(Debug, Default)]
pub(super) struct DataWindow {
    base: u64,
    mismatches: u32,
    /// Bytes the controller wrote to memory.
    pub(super) bytes_written: u32,
}

impl DataWindow {
    fn offset(&self, address: u64, len: usize) -> Option<u64> {
        let off = address.checked_sub(self.base)?;
        let end = off.checked_add(len as u64)?;
        if end <= STORAGE_LEN as u64 {
            Some(off)
        } else {
            None
        }
    }
}

/// What the controller reaches by DMA.
struct Memory<'r> {
    tdl: Ram<'r>,
    transfers: Ram<'r>,
    window: &'r mut DataWindow,
}

impl BusMemory for Memory<'_> {
    fn read(&mut self, address: u64, buf: &mut [u8]) -> Result<(), BusFault> {
        if self.tdl.contains(address, buf.len()) {
            return self.tdl.read(address, buf);
        }
        if self.transfers.contains(address, buf.len()) {
            return self.transfers.read(address, buf);
        }
        let off = self
            .window
            .offset(address, buf.len())
            .ok_or(BusFault { address })?;
        for (i, b) in buf.iter_mut().enumerate() {
            *b = pattern_at(off + i as u64);
        }
        Ok(())
    }

    fn write(&mut self, address: u64, data: &[u8]) -> Result<(), BusFault> {
        // The controller never writes descriptor memory.
        let off = self
            .window
            .offset(address, data.len())
            .ok_or(BusFault { address })?;
        for (i, b) in data.iter().enumerate() {
            if *b != pattern_at(off + i as u64) {
                self.window.mismatches = self.window.mismatches.saturating_add(1);
            }
        }
        self.window.bytes_written = self.window.bytes_written.saturating_add(data.len() as u32);
        Ok(())
    }
}

/// Counts of host hook calls.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct HookCalls {
    enable: u32,
    /// `disable` on a plain `cqe_off`.
    pub(super) disable: u32,
    /// `disable` at the start of recovery.
    pub(super) disable_recovery: u32,
    /// `pre_enable`.
    pub(super) pre_enable: u32,
    /// `post_disable`.
    pub(super) post_disable: u32,
    dump: u32,
}

/// MediaTek-like vendor hooks: pre-enable sets CQCFG.CQ_EN, post-disable clears it.
#[derive(Debug, Default)]
pub(super) struct Hooks {
    calls: Cell<HookCalls>,
}

impl Hooks {
    /// The calls so far.
    pub(super) fn calls(&self) -> HookCalls {
        self.calls.get()
    }

    fn count(&self, hook: impl FnOnce(&mut HookCalls) -> &mut u32) {
        let mut calls = self.calls.get();
        let count = hook(&mut calls);
        *count = count.saturating_add(1);
        self.calls.set(calls);
    }
}

impl CqhciHost for Hooks {
    fn enable(&self, _regs: &impl Io<CqhciBlock>) {
        self.count(|c| &mut c.enable);
    }

    fn disable(&self, _regs: &impl Io<CqhciBlock>, recovery: bool) {
        if recovery {
            self.count(|c| &mut c.disable_recovery);
        } else {
            self.count(|c| &mut c.disable);
        }
    }

    fn pre_enable(&self, regs: &impl Io<CqhciBlock>) {
        self.count(|c| &mut c.pre_enable);
        regs.update::<CQCFG>(|cfg| cfg.with_cq_en(true));
    }

    fn post_disable(&self, regs: &impl Io<CqhciBlock>) {
        self.count(|c| &mut c.post_disable);
        regs.update::<CQCFG>(|cfg| cfg.with_cq_en(false));
    }

    fn dump_vendor_regs(&self, _regs: &impl Io<CqhciBlock>) {
        self.count(|c| &mut c.dump);
    }
}

/// What the scenario issued in a slot.
#[derive(Clone, Copy, Debug)]
struct Request {
    /// The engine's ticket for the task.
    ticket: Ticket,
    direction: Option<Direction>,
    lba: u32,
    blocks: u16,
}

/// The memory a rig borrows: card storage and descriptor memory, kept outside the rig so
/// that moving the rig around copies little.
pub(super) struct Buffers {
    storage: [u8; STORAGE_LEN],
    tdl: [u8; TDL_LEN],
    transfers: [u8; XFER_LEN],
}

impl Buffers {
    /// Zeroed buffers.
    pub(super) fn new() -> Self {
        Self {
            storage: [0; STORAGE_LEN],
            tdl: [0; TDL_LEN],
            transfers: [0; XFER_LEN],
        }
    }
}

/// The descriptor memory the engine is lent on every call.
struct Descriptors<'a> {
    tdl: &'a mut [u8; TDL_LEN],
    transfers: &'a mut [u8; XFER_LEN],
    map: Map,
}

impl Descriptors<'_> {
    fn lend(&mut self) -> DescriptorMemory<'_> {
        DescriptorMemory {
            tdl: &mut self.tdl[..],
            tdl_bus: self.map.tdl,
            transfers: &mut self.transfers[..],
            transfers_bus: self.map.transfers,
        }
    }
}

/// The engine, the model, the card and the memory, and what the scenario saw happen.
pub(super) struct Rig<'a> {
    /// The engine under test.
    pub(super) engine: Cqhci,
    /// The CQHCI model behind its registers.
    pub(super) bus: Bus<CqhciModel>,
    /// The vendor hooks.
    pub(super) hooks: Hooks,
    /// The card.
    pub(super) card: Card<'a>,
    /// Where the regions are on the bus.
    pub(super) map: Map,
    descriptors: Descriptors<'a>,
    /// The data window.
    pub(super) window: DataWindow,
    /// The request in each slot.
    requests: [Option<Request>; 32],
    /// Final status of the last completion per slot.
    last_status: [Option<CompletionStatus>; 32],
    /// Completions so far.
    pub(super) completed: u32,
    /// CQTCN bits reported for slots without a task.
    pub(super) spurious: u32,
    /// The slot whose recovery notifier ran.
    pub(super) notified: Option<Tag>,
    /// Interrupts serviced.
    pub(super) interrupts: u32,
    /// The slots in completion order.
    pub(super) order: [u8; 32],
    /// Entries of `order` in use.
    pub(super) order_len: usize,
}

/// An engine configuration with the rig's transfer descriptors per slot.
pub(super) fn config(task: TaskDescriptorSize, dma: DmaWidth, dcmd: bool) -> Config {
    Config {
        task_descriptor: task,
        dma,
        short_transfer_descriptor: false,
        direct_commands: dcmd,
        max_segments: MAX_SEGMENTS,
        coalescing: None,
    }
}

/// MediaTek's configuration: 128-bit task descriptors, 64-bit DMA, direct commands.
pub(super) fn mediatek() -> Config {
    config(TaskDescriptorSize::Bits128, DmaWidth::Bits64, true)
}

/// An engine for `config`.
pub(super) fn engine(config: Config) -> Result<Cqhci, ScenarioError> {
    Cqhci::new(config).map_err(|_| ScenarioError("engine rejected config"))
}

/// Slot `n`.
pub(super) fn tag(n: u32) -> Result<Tag, ScenarioError> {
    Tag::new(n).ok_or(ScenarioError("tag out of range"))
}

impl<'a> Rig<'a> {
    /// A rig for `engine` whose card makes tasks ready in `order`.
    // Infallible and returned by value, so the rig is built in place in the scenario's frame
    // (a `Result<Rig>` would be a second copy); `start` does the fallible part.
    pub(super) fn new(buffers: &'a mut Buffers, engine: Cqhci, order: ReadyOrder) -> Self {
        let Buffers {
            storage,
            tdl,
            transfers,
        } = buffers;
        let config = *engine.config();
        let map = if config.dma == DmaWidth::Bits64 {
            MAP_HIGH
        } else {
            MAP_LOW
        };
        let model_config = ModelConfig {
            dma64: config.dma == DmaWidth::Bits64,
            short_transfer_descriptor: config.short_transfer_descriptor,
            ..ModelConfig::MEDIATEK
        };
        fill(storage);
        Rig {
            engine,
            bus: Bus::new(CqhciModel::new(model_config)),
            hooks: Hooks::default(),
            card: Card::new(storage, 32, order),
            map,
            descriptors: Descriptors {
                tdl,
                transfers,
                map,
            },
            window: DataWindow {
                base: map.data,
                ..DataWindow::default()
            },
            requests: [None; 32],
            last_status: [None; 32],
            completed: 0,
            spurious: 0,
            notified: None,
            interrupts: 0,
            order: [0; 32],
            order_len: 0,
        }
    }

    /// Brings the card up with its queue enabled and enables the engine (`cqe_enable`).
    pub(super) fn start(&mut self) -> Outcome {
        self.card
            .initialize(RCA, true)
            .map_err(|_| ScenarioError("card initialisation failed"))?;
        let info = CardInfo {
            command_queue_enabled: self.card.ext_csd().cmdq_enabled(),
            rca: RCA,
        };
        self.engine
            .enable(&self.bus, &self.hooks, info, &mut self.descriptors.lend())
            .map_err(|_| ScenarioError("enable failed"))
    }

    /// Arms `fault` in the model.
    pub(super) fn inject(&mut self, fault: Fault) -> Outcome {
        ensure(self.bus.model().inject(fault), "fault table full")
    }

    /// Lets the model do `steps` units of work, without servicing interrupts.
    pub(super) fn run_model(&mut self, steps: u32) {
        for _ in 0..steps {
            self.step_model();
        }
    }

    /// Lets the model do one unit of work, a microsecond of the block's clock after the
    /// last (its coalescing timer runs on that clock).
    fn step_model(&mut self) -> bool {
        self.bus.model().elapse(STEP_NS);
        let mut memory = Memory {
            tdl: Ram::new(self.map.tdl, &mut self.descriptors.tdl[..]),
            transfers: Ram::new(self.map.transfers, &mut self.descriptors.transfers[..]),
            window: &mut self.window,
        };
        self.bus.model().step(&mut self.card, &mut memory)
    }

    /// Issues a data task in `slot` for `blocks` blocks at `lba`, with its buffer split into
    /// `segments` pieces.
    pub(super) fn issue(
        &mut self,
        slot: u32,
        direction: Direction,
        lba: u32,
        blocks: u16,
        segments: u8,
        flags: TaskFlags,
    ) -> Outcome {
        let tag = tag(slot)?;
        let task = DataTask {
            direction,
            block_count: blocks,
            block_address: lba,
            flags,
            context: 0,
        };
        // Split the buffer into `segments` pieces of whole 128-byte units.
        let total = task.byte_count();
        let n = u32::from(segments.max(1));
        let unit = (total / n) & !127;
        let base = self.map.data + u64::from(lba) * SECTOR_SIZE as u64;
        let mut list = [Segment {
            address: 0,
            length: 0,
        }; 8];
        let mut used = 0u32;
        for (i, seg) in list.iter_mut().enumerate().take(n as usize) {
            let len = if i as u32 + 1 == n {
                total - used
            } else {
                unit
            };
            *seg = Segment {
                address: base + u64::from(used),
                length: len,
            };
            used += len;
        }
        let ticket = self
            .engine
            .issue_data(
                &self.bus,
                &self.hooks,
                &mut self.descriptors.lend(),
                tag,
                &task,
                list.iter().copied().take(n as usize),
            )
            .map_err(|_| ScenarioError("issue_data failed"))?;
        self.track(ticket, Some(direction), lba, blocks)
    }

    fn track(
        &mut self,
        ticket: Ticket,
        direction: Option<Direction>,
        lba: u32,
        blocks: u16,
    ) -> Outcome {
        let entry = self
            .requests
            .get_mut(ticket.tag.index())
            .ok_or(ScenarioError("bad tag"))?;
        ensure(entry.is_none(), "slot reused before completion")?;
        *entry = Some(Request {
            ticket,
            direction,
            lba,
            blocks,
        });
        Ok(())
    }

    /// Issues a read in one segment.
    pub(super) fn read(&mut self, slot: u32, lba: u32, blocks: u16) -> Outcome {
        self.issue(slot, Direction::Read, lba, blocks, 1, TaskFlags::default())
    }

    /// Issues a cache flush as a direct command.
    pub(super) fn flush(&mut self) -> Outcome {
        let cmd = DirectCommand {
            opcode: 6,
            argument: FLUSH_ARGUMENT,
            response: DcmdResponse::ShortBusy,
        };
        let ticket = self
            .engine
            .issue_dcmd(&self.bus, &self.hooks, &mut self.descriptors.lend(), &cmd)
            .map_err(|_| ScenarioError("issue_dcmd failed"))?;
        self.track(ticket, None, 0, 0)
    }

    fn complete(&mut self, tag: Tag, status: CompletionStatus) -> Outcome {
        let entry = self
            .requests
            .get_mut(tag.index())
            .ok_or(ScenarioError("bad tag"))?;
        let request = entry
            .take()
            .ok_or(ScenarioError("completion without a request"))?;
        if let Some(s) = self.last_status.get_mut(tag.index()) {
            *s = Some(status);
        }
        if status == CompletionStatus::Done {
            if let Some(Direction::Write) = request.direction {
                let start = request.lba as usize * SECTOR_SIZE;
                let end = start + usize::from(request.blocks) * SECTOR_SIZE;
                let stored = self
                    .card
                    .storage()
                    .get(start..end)
                    .ok_or(ScenarioError("write beyond card"))?;
                for (i, b) in stored.iter().enumerate() {
                    ensure(*b == pattern_at((start + i) as u64), "written data differs")?;
                }
            }
        }
        self.completed += 1;
        if let Some(o) = self.order.get_mut(self.order_len) {
            *o = tag.number() as u8;
            self.order_len += 1;
        }
        Ok(())
    }

    fn host_error(kind: Option<HostErrorKind>) -> Option<HostError> {
        kind.map(|k| match k {
            HostErrorKind::Crc => HostError::Crc,
            HostErrorKind::Timeout => HostError::Timeout,
            HostErrorKind::Other => HostError::Other,
        })
    }

    #[inline(never)]
    fn service(&mut self) -> Outcome {
        self.interrupts += 1;
        let errors = self.bus.model().take_host_errors();
        let out = self.engine.irq(
            &self.bus,
            Self::host_error(errors.command),
            Self::host_error(errors.data),
        );
        self.spurious |= out.spurious.bits();
        if out.notify_recovery.is_some() {
            ensure(self.notified.is_none(), "recovery notified twice")?;
            self.notified = out.notify_recovery;
        }
        for c in out.completed.iter() {
            self.complete(c.tag, c.status)?;
        }
        Ok(())
    }

    /// Lets the model do one unit of work and services the interrupt it raises, as an IRQ
    /// would.
    fn step_and_service(&mut self) -> Outcome {
        self.step_model();
        let pending = self.bus.model().interrupt_pending();
        if pending {
            self.service()?;
        }
        Ok(())
    }

    /// Runs the model and the interrupt handler until `done` holds.
    pub(super) fn pump_until(&mut self, done: fn(&Rig<'a>) -> bool) -> Outcome {
        for _ in 0..STEP_BUDGET {
            if done(self) {
                return Ok(());
            }
            self.step_and_service()?;
        }
        Err(ScenarioError("model did not reach the expected state"))
    }

    /// Runs the model and the interrupt handler until no task is in flight.
    pub(super) fn pump_idle(&mut self) -> Outcome {
        self.pump_until(|r| r.engine.in_flight().is_empty())
    }

    /// Performs a wait the engine asked for, servicing interrupts as an IRQ would.
    fn wait(&mut self, wait: Wait) -> Outcome {
        for _ in 0..64 {
            if wait.condition.is_met(&self.bus) {
                return Ok(());
            }
            self.step_and_service()?;
        }
        // Timed out; the engine copes.
        Ok(())
    }

    /// Runs an operation to its end, performing each wait it asks for.
    pub(super) fn drive(&mut self, mut step: Step) -> Result<Finished, ScenarioError> {
        for _ in 0..8 {
            match step {
                Step::Done(finished) => return Ok(finished),
                Step::Wait(w) => {
                    self.wait(w)?;
                    step = self.engine.resume(&self.bus, &self.hooks);
                }
            }
        }
        Err(ScenarioError("operation needed too many waits"))
    }

    /// The core's CQE recovery: recovery start, CMD12, CMD48 (discard queue), recovery finish.
    #[inline(never)]
    pub(super) fn recover(&mut self) -> Result<Finished, ScenarioError> {
        let step = self.engine.recovery_start(&self.bus, &self.hooks);
        let started = self.drive(step)?;
        ensure(
            !self.engine.is_on(),
            "controller still on after recovery start",
        )?;
        ensure(started.warnings.is_empty(), "recovery start warned")?;
        let _ = self.card.command(Command::new(12, 0));
        self.card
            .command(Command::new(48, 1))
            .map_err(|_| ScenarioError("CMD48 not answered"))?;
        let step = self.engine.recovery_finish(&self.bus);
        let finished = self.drive(step)?;
        for c in finished.completions.iter() {
            self.complete(c.tag, c.status)?;
        }
        ensure(
            self.engine.in_flight().is_empty(),
            "tasks left after recovery",
        )?;
        ensure(!self.engine.recovery_pending(), "still in recovery")?;
        self.notified = None;
        Ok(finished)
    }

    /// Checks that the model saw no protocol violation and that read data was right.
    pub(super) fn no_violations(&self) -> Outcome {
        ensure(
            self.bus.model().violations().0 == 0,
            "the model saw a protocol violation",
        )?;
        ensure(self.window.mismatches == 0, "read data differs")
    }

    /// The status of `slot`'s last completion.
    pub(super) fn status(&self, slot: u32) -> Option<CompletionStatus> {
        self.last_status.get(slot as usize).copied().flatten()
    }

    /// `Ok` if `slot`'s last completion had `status`, else the failure `what`.
    pub(super) fn ensure_status(
        &self,
        slot: u32,
        status: CompletionStatus,
        what: &'static str,
    ) -> Outcome {
        ensure(self.status(slot) == Some(status), what)
    }

    /// The ticket of the task in flight in `slot`.
    pub(super) fn ticket(&self, slot: u32) -> Result<Ticket, ScenarioError> {
        self.requests
            .get(slot as usize)
            .copied()
            .flatten()
            .map(|request| request.ticket)
            .ok_or(ScenarioError("no task in the slot"))
    }
}

/// Stack taken by one scenario's rig and the buffers it borrows.
pub(super) const RIG_SIZE: usize =
    core::mem::size_of::<Rig<'static>>() + core::mem::size_of::<Buffers>();
