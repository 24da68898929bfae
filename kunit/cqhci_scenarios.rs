// SPDX-License-Identifier: GPL-2.0
//! Engine-against-model scenarios for the CQHCI engine, shared by `cargo test` and KUnit.
//!
//! The including module must have the engine in scope as `cqhci` and the hardware model as
//! `sim`; only their module paths are used, not the crates' re-exports. Scenarios never panic: each returns `Err` naming the first expectation that failed.
//! A test rig keeps everything in one stack frame of a few KiB (2-sector card, 3 transfer
//! descriptors per slot).

use super::cqhci::completion::{CompletionStatus, HostError, IdleState, TaskError, TimeoutVerdict};
use super::cqhci::desc::{
    DataTask, DcmdResponse, DirectCommand, Direction, DmaWidth, TaskDescriptorSize, TaskFlags,
};
use super::cqhci::engine::{
    CardInfo, Coalescing, Config, Cqhci, DescriptorMemory, Finished, Step, Ticket, Wait, Warnings,
};
use super::cqhci::host::{CqhciHost, Segment};
use super::cqhci::regs::{CqhciRegisters, Reg, Tag};
use super::sim::cqhci::controller::{CqhciModel, Fault, HostErrorKind, ModelConfig};
use super::sim::emmc::card::{Card, ReadyOrder, SECTOR_SIZE};
use super::sim::emmc::command::Command;
use super::sim::memory::{BusFault, BusMemory, Ram};

/// A failed expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ScenarioError(pub(crate) &'static str);

/// A scenario's result.
pub(crate) type Outcome = Result<(), ScenarioError>;

fn ensure(condition: bool, what: &'static str) -> Outcome {
    if condition {
        Ok(())
    } else {
        Err(ScenarioError(what))
    }
}

const RCA: u16 = 0x0002;
const SECTORS: usize = 2;
const STORAGE_LEN: usize = SECTORS * SECTOR_SIZE;
const MAX_SEGMENTS: u16 = 3;
const TDL_LEN: usize = 32 * 32;
const XFER_LEN: usize = 16 * MAX_SEGMENTS as usize * 32;
const STEP_BUDGET: u32 = 20_000;

/// The byte a data buffer holds at offset `offset` of sector `lba`.
fn pattern(lba: u64, offset: u64) -> u8 {
    ((lba as u8).wrapping_mul(37) ^ (offset as u8) ^ ((offset >> 8) as u8).wrapping_mul(11))
        .wrapping_add(1)
}

/// Fills the card with the pattern so reads can be checked.
fn fill(storage: &mut [u8]) {
    for (i, b) in storage.iter_mut().enumerate() {
        let i = i as u64;
        *b = pattern(i / 512, i % 512);
    }
}

/// Bus addresses of the three regions.
#[derive(Clone, Copy, Debug)]
struct Map {
    tdl: u64,
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
struct Window {
    base: u64,
    mismatches: u32,
    bytes_written: u32,
}

impl Window {
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

struct Bus<'r> {
    tdl: Ram<'r>,
    transfers: Ram<'r>,
    window: &'r mut Window,
}

impl BusMemory for Bus<'_> {
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
            let at = off + i as u64;
            *b = pattern(at / 512, at % 512);
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
            let at = off + i as u64;
            if *b != pattern(at / 512, at % 512) {
                self.window.mismatches = self.window.mismatches.saturating_add(1);
            }
        }
        self.window.bytes_written = self.window.bytes_written.saturating_add(data.len() as u32);
        Ok(())
    }
}

/// Counts of host hook calls.
#[derive(Clone, Copy, Debug, Default)]
struct HookCalls {
    enable: u32,
    disable: u32,
    disable_recovery: u32,
    pre_enable: u32,
    post_disable: u32,
    dump: u32,
}

/// The device under test as the engine sees it: the model's registers plus MediaTek-like
/// hooks (pre-enable sets CQCFG.ENABLE, post-disable clears it).
struct Dut {
    model: CqhciModel,
    hooks: HookCalls,
}

impl CqhciRegisters for Dut {
    fn read(&self, reg: Reg) -> u32 {
        self.model.read(reg.offset())
    }

    fn write(&mut self, reg: Reg, value: u32) {
        self.model.write(reg.offset(), value);
    }
}

impl CqhciHost for Dut {
    fn enable(&mut self) {
        self.hooks.enable += 1;
    }

    fn disable(&mut self, recovery: bool) {
        if recovery {
            self.hooks.disable_recovery += 1;
        } else {
            self.hooks.disable += 1;
        }
    }

    fn pre_enable(&mut self) {
        self.hooks.pre_enable += 1;
        let cfg = self.read(Reg::Cfg);
        self.write(Reg::Cfg, cfg | 1);
    }

    fn post_disable(&mut self) {
        self.hooks.post_disable += 1;
        let cfg = self.read(Reg::Cfg);
        self.write(Reg::Cfg, cfg & !1);
    }

    fn dump_vendor_regs(&mut self) {
        self.hooks.dump += 1;
    }
}

/// What the scenario issued in a slot.
#[derive(Clone, Copy, Debug)]
struct Request {
    ticket: Ticket,
    direction: Option<Direction>,
    lba: u32,
    blocks: u16,
}

/// The memory a rig borrows: card storage and descriptor memory, kept outside the rig so
/// that moving the rig around copies little.
struct Buffers {
    storage: [u8; STORAGE_LEN],
    tdl: [u8; TDL_LEN],
    transfers: [u8; XFER_LEN],
}

impl Buffers {
    fn new() -> Self {
        Self {
            storage: [0; STORAGE_LEN],
            tdl: [0; TDL_LEN],
            transfers: [0; XFER_LEN],
        }
    }
}

struct Rig<'a> {
    engine: Cqhci,
    dut: Dut,
    card: Card<'a>,
    map: Map,
    tdl: &'a mut [u8; TDL_LEN],
    transfers: &'a mut [u8; XFER_LEN],
    window: Window,
    requests: [Option<Request>; 32],
    /// Final status of the last completion per slot.
    last_status: [Option<CompletionStatus>; 32],
    completed: u32,
    spurious: u32,
    notified: Option<Tag>,
    interrupts: u32,
    order: [u8; 32],
    order_len: usize,
}

fn config(task: TaskDescriptorSize, dma: DmaWidth, dcmd: bool) -> Config {
    Config {
        task_descriptor: task,
        dma,
        short_transfer_descriptor: false,
        direct_commands: dcmd,
        max_segments: MAX_SEGMENTS,
        coalescing: None,
    }
}

fn mediatek() -> Config {
    config(TaskDescriptorSize::Bits128, DmaWidth::Bits64, true)
}

fn engine(config: Config) -> Result<Cqhci, ScenarioError> {
    Cqhci::new(config).map_err(|_| ScenarioError("engine rejected config"))
}

fn tag(n: u32) -> Result<Tag, ScenarioError> {
    Tag::new(n).ok_or(ScenarioError("tag out of range"))
}

impl<'a> Rig<'a> {
    // Infallible and returned by value, so the rig is built in place in the scenario's frame
    // (a `Result<Rig>` would be a second copy); `start` does the fallible part.
    fn new(buffers: &'a mut Buffers, engine: Cqhci, order: ReadyOrder) -> Self {
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
            dut: Dut {
                model: CqhciModel::new(model_config),
                hooks: HookCalls::default(),
            },
            card: Card::new(storage, 32, order),
            map,
            tdl,
            transfers,
            window: Window {
                base: map.data,
                ..Window::default()
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
    fn start(&mut self) -> Outcome {
        self.card
            .initialize(RCA, true)
            .map_err(|_| ScenarioError("card initialisation failed"))?;
        let mut mem = DescriptorMemory {
            tdl: &mut self.tdl[..],
            tdl_bus: self.map.tdl,
            transfers: &mut self.transfers[..],
            transfers_bus: self.map.transfers,
        };
        let info = CardInfo {
            command_queue_enabled: self.card.ext_csd().cmdq_enabled(),
            rca: RCA,
        };
        self.engine
            .enable(&mut self.dut, info, &mut mem)
            .map_err(|_| ScenarioError("enable failed"))
    }

    fn step_model(&mut self) -> bool {
        let mut bus = Bus {
            tdl: Ram::new(self.map.tdl, &mut self.tdl[..]),
            transfers: Ram::new(self.map.transfers, &mut self.transfers[..]),
            window: &mut self.window,
        };
        self.dut.model.step(&mut self.card, &mut bus)
    }

    fn issue(
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
        let total = u32::from(blocks) * 512;
        let n = u32::from(segments.max(1));
        let unit = (total / n) & !127;
        let base = self.map.data + u64::from(lba) * 512;
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
        let mut mem = DescriptorMemory {
            tdl: &mut self.tdl[..],
            tdl_bus: self.map.tdl,
            transfers: &mut self.transfers[..],
            transfers_bus: self.map.transfers,
        };
        let ticket = self
            .engine
            .issue_data(
                &mut self.dut,
                &mut mem,
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

    fn read(&mut self, slot: u32, lba: u32, blocks: u16) -> Outcome {
        self.issue(slot, Direction::Read, lba, blocks, 1, TaskFlags::default())
    }

    fn flush(&mut self) -> Outcome {
        let cmd = DirectCommand {
            opcode: 6,
            argument: (3 << 24) | (32 << 16) | (1 << 8),
            response: DcmdResponse::ShortBusy,
        };
        let mut mem = DescriptorMemory {
            tdl: &mut self.tdl[..],
            tdl_bus: self.map.tdl,
            transfers: &mut self.transfers[..],
            transfers_bus: self.map.transfers,
        };
        let ticket = self
            .engine
            .issue_dcmd(&mut self.dut, &mut mem, &cmd)
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
                let start = request.lba as usize * 512;
                let end = start + usize::from(request.blocks) * 512;
                let stored = self
                    .card
                    .storage()
                    .get(start..end)
                    .ok_or(ScenarioError("write beyond card"))?;
                for (i, b) in stored.iter().enumerate() {
                    let at = (start + i) as u64;
                    ensure(*b == pattern(at / 512, at % 512), "written data differs")?;
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
        let errors = self.dut.model.take_host_errors();
        let out = self.engine.irq(
            &mut self.dut,
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

    /// Runs the model and the interrupt handler until `done` holds.
    fn pump_until(&mut self, done: fn(&Rig<'a>) -> bool) -> Outcome {
        for _ in 0..STEP_BUDGET {
            if done(self) {
                return Ok(());
            }
            self.step_model();
            if self.dut.model.interrupt_pending() {
                self.service()?;
            }
        }
        Err(ScenarioError("model did not reach the expected state"))
    }

    fn pump_idle(&mut self) -> Outcome {
        self.pump_until(|r| r.engine.in_flight().is_empty())
    }

    /// Performs a wait the engine asked for, servicing interrupts as an IRQ would.
    fn wait(&mut self, wait: Wait) -> Outcome {
        for _ in 0..64 {
            if wait.condition.is_met(&self.dut) {
                return Ok(());
            }
            self.step_model();
            if self.dut.model.interrupt_pending() {
                self.service()?;
            }
        }
        // Timed out; the engine copes.
        Ok(())
    }

    fn drive(&mut self, mut step: Step) -> Result<Finished, ScenarioError> {
        for _ in 0..8 {
            match step {
                Step::Done(finished) => return Ok(finished),
                Step::Wait(w) => {
                    self.wait(w)?;
                    step = self.engine.resume(&mut self.dut);
                }
            }
        }
        Err(ScenarioError("operation needed too many waits"))
    }

    /// The core's CQE recovery: recovery start, CMD12, CMD48 (discard queue), recovery finish.
    #[inline(never)]
    fn recover(&mut self) -> Result<Finished, ScenarioError> {
        let step = self.engine.recovery_start(&mut self.dut);
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
        let step = self.engine.recovery_finish(&mut self.dut);
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

    fn no_violations(&self) -> Outcome {
        ensure(
            self.dut.model.violations().0 == 0,
            "the model saw a protocol violation",
        )?;
        ensure(self.window.mismatches == 0, "read data differs")
    }

    fn status(&self, slot: u32) -> Option<CompletionStatus> {
        self.last_status.get(slot as usize).copied().flatten()
    }
}

/// One read task, issued and completed.
pub(crate) fn one_task() -> Outcome {
    let mut buffers = Buffers::new();
    let mut rig = Rig::new(&mut buffers, engine(mediatek())?, ReadyOrder::Immediate);
    rig.start()?;
    ensure(
        rig.engine.queue_depth() == 31,
        "DCMD host must have depth 31",
    )?;
    rig.read(0, 1, 1)?;
    rig.pump_idle()?;
    ensure(rig.completed == 1, "one completion expected")?;
    ensure(
        rig.status(0) == Some(CompletionStatus::Done),
        "task not done",
    )?;
    ensure(rig.window.bytes_written == 512, "wrong amount of data")?;
    ensure(
        rig.engine.idle_state() == IdleState::Idle,
        "engine not idle",
    )?;
    rig.no_violations()
}

/// All 32 slots busy at once (no DCMD), completing out of order, each exactly once.
pub(crate) fn all_slots() -> Outcome {
    let mut buffers = Buffers::new();
    let cfg = config(TaskDescriptorSize::Bits128, DmaWidth::Bits64, false);
    let mut rig = Rig::new(
        &mut buffers,
        engine(cfg)?,
        ReadyOrder::Shuffled(0x1234_5678),
    );
    rig.start()?;
    ensure(rig.engine.queue_depth() == 32, "depth 32 without DCMD")?;
    for slot in 0..32 {
        rig.read(slot, slot % SECTORS as u32, 1)?;
    }
    ensure(rig.engine.in_flight().count() == 32, "32 tasks in flight")?;
    rig.pump_idle()?;
    ensure(rig.completed == 32, "32 completions expected")?;
    let in_order = rig.order.windows(2).all(|w| w.first() < w.get(1));
    ensure(!in_order, "completions should be out of order")?;
    for slot in 0..32 {
        ensure(
            rig.status(slot) == Some(CompletionStatus::Done),
            "a slot not done",
        )?;
    }
    rig.no_violations()
}

/// Writes, then a flush as a direct command, then reads: the flush waits for the writes.
pub(crate) fn dcmd_among_data() -> Outcome {
    let mut buffers = Buffers::new();
    let mut rig = Rig::new(&mut buffers, engine(mediatek())?, ReadyOrder::Shuffled(99));
    rig.start()?;
    for lba in 0..SECTORS as u32 {
        if let Some(s) = rig
            .card
            .storage_mut()
            .get_mut(lba as usize * 512..lba as usize * 512 + 512)
        {
            s.fill(0);
        }
    }
    let reliable = TaskFlags {
        reliable_write: true,
        ..TaskFlags::default()
    };
    rig.issue(0, Direction::Write, 0, 1, 2, reliable)?;
    rig.issue(1, Direction::Write, 1, 1, 3, TaskFlags::default())?;
    rig.flush()?;
    rig.read(2, 0, 2)?;
    ensure(
        rig.issue(31, Direction::Read, 0, 1, 1, TaskFlags::default())
            .is_err(),
        "slot 31 is for DCMD",
    )?;
    rig.pump_idle()?;
    ensure(rig.completed == 4, "four completions expected")?;
    let position = |t: u8| rig.order.iter().take(rig.order_len).position(|&x| x == t);
    let flush_at = position(31).ok_or(ScenarioError("flush never completed"))?;
    ensure(
        position(0).is_some_and(|p| p < flush_at),
        "flush overtook write 0",
    )?;
    ensure(
        position(1).is_some_and(|p| p < flush_at),
        "flush overtook write 1",
    )?;
    ensure(rig.card.stats().flushes == 1, "card did not flush")?;
    ensure(rig.card.stats().reliable_writes == 1, "reliable write lost")?;
    rig.no_violations()
}

/// 32-bit DMA with 64-bit task descriptors, multi-segment transfers both ways.
pub(crate) fn dma32_segments() -> Outcome {
    let mut buffers = Buffers::new();
    let cfg = config(TaskDescriptorSize::Bits64, DmaWidth::Bits32, false);
    let mut rig = Rig::new(&mut buffers, engine(cfg)?, ReadyOrder::Immediate);
    rig.start()?;
    if let Some(s) = rig.card.storage_mut().get_mut(512..1024) {
        s.fill(0);
    }
    rig.issue(3, Direction::Write, 1, 1, 3, TaskFlags::default())?;
    rig.issue(4, Direction::Read, 0, 2, 3, TaskFlags::default())?;
    rig.pump_idle()?;
    ensure(rig.completed == 2, "two completions expected")?;
    ensure(rig.window.bytes_written == 1024, "read data incomplete")?;
    rig.no_violations()
}

/// Issues five tasks, injects `fault`, runs recovery and retries until everything is done.
fn fault_and_recover(fault: Fault, faulty: u32, expect: CompletionStatus) -> Outcome {
    let mut buffers = Buffers::new();
    let mut rig = Rig::new(&mut buffers, engine(mediatek())?, ReadyOrder::Shuffled(7));
    rig.start()?;
    ensure(rig.dut.model.inject(fault), "fault table full")?;
    for slot in 0..5 {
        rig.read(slot, slot % SECTORS as u32, 1)?;
    }
    rig.pump_until(|r| r.notified.is_some() || r.engine.in_flight().is_empty())?;
    ensure(rig.notified.is_some(), "recovery was not requested")?;
    ensure(
        rig.engine.idle_state() == IdleState::RecoveryNeeded,
        "idle must report recovery",
    )?;
    ensure(
        rig.engine.off(&mut rig.dut) == Step::Done(Finished::default()),
        "cqe_off must do nothing during recovery",
    )?;
    let mut again = [false; 5];
    let finished = rig.recover()?;
    ensure(finished.warnings.is_empty(), "recovery warned")?;
    ensure(
        rig.status(faulty) == Some(expect),
        "faulty task has the wrong status",
    )?;
    for (slot, retry) in again.iter_mut().enumerate() {
        match rig.status(slot as u32) {
            Some(CompletionStatus::Done) => {}
            Some(_) => *retry = true,
            None => return Err(ScenarioError("a request was lost")),
        }
    }
    ensure(rig.completed == 5, "every request completes exactly once")?;
    // The block layer retries what failed or was requeued.
    for (slot, retry) in again.iter().enumerate() {
        if *retry {
            rig.read(slot as u32, slot as u32 % SECTORS as u32, 1)?;
        }
    }
    rig.pump_idle()?;
    for slot in 0..5 {
        ensure(
            rig.status(slot) == Some(CompletionStatus::Done),
            "retry failed",
        )?;
    }
    ensure(
        rig.dut.hooks.disable_recovery == 1,
        "disable(recovery) not called once",
    )?;
    ensure(rig.card.queued_tasks() == 0, "card queue not empty")?;
    rig.no_violations()
}

/// A response error (RED, CQTERRI) on CMD46.
pub(crate) fn fault_response_error() -> Outcome {
    fault_and_recover(
        Fault::ResponseError {
            tag: 2,
            command: 46,
        },
        2,
        CompletionStatus::Failed(TaskError::Io),
    )
}

/// A response error while queueing (CMD44).
pub(crate) fn fault_queueing_error() -> Outcome {
    fault_and_recover(
        Fault::ResponseError {
            tag: 3,
            command: 44,
        },
        3,
        CompletionStatus::Failed(TaskError::Io),
    )
}

/// A data CRC error the host detects.
pub(crate) fn fault_data_crc() -> Outcome {
    fault_and_recover(
        Fault::DataCrc { tag: 1 },
        1,
        CompletionStatus::Failed(TaskError::Crc),
    )
}

/// A command response timeout.
pub(crate) fn fault_timeout() -> Outcome {
    fault_and_recover(
        Fault::CommandTimeout { tag: 4 },
        4,
        CompletionStatus::Failed(TaskError::Timeout),
    )
}

/// A task descriptor error (ICCE with CQTDPE).
pub(crate) fn fault_descriptor_error() -> Outcome {
    fault_and_recover(
        Fault::DescriptorError { tag: 0 },
        0,
        CompletionStatus::Failed(TaskError::Io),
    )
}

/// CQTCN bits for empty slots are reported and ignored.
pub(crate) fn spurious_completion() -> Outcome {
    let mut buffers = Buffers::new();
    let mut rig = Rig::new(&mut buffers, engine(mediatek())?, ReadyOrder::Immediate);
    rig.start()?;
    ensure(
        rig.dut
            .model
            .inject(Fault::SpuriousCompletion { mask: 0x0000_F000 }),
        "fault table full",
    )?;
    rig.read(1, 0, 1)?;
    rig.pump_idle()?;
    ensure(rig.completed == 1, "only the real task completes")?;
    ensure(rig.spurious == 0x0000_F000, "spurious bits not reported")?;
    rig.read(12, 1, 1)?;
    rig.pump_idle()?;
    ensure(rig.completed == 2, "slot 12 works after a spurious bit")?;
    rig.no_violations()
}

/// A task the card never finishes: the core's timeout starts recovery.
pub(crate) fn software_timeout() -> Outcome {
    let mut buffers = Buffers::new();
    let mut rig = Rig::new(&mut buffers, engine(mediatek())?, ReadyOrder::Immediate);
    rig.start()?;
    ensure(
        rig.dut.model.inject(Fault::Stall { tag: 5 }),
        "fault table full",
    )?;
    rig.read(4, 0, 1)?;
    rig.read(5, 1, 1)?;
    rig.pump_until(|r| r.completed == 1)?;
    for _ in 0..50 {
        rig.step_model();
    }
    ensure(
        rig.engine.in_flight().count() == 1,
        "stalled task must stay queued",
    )?;
    let stale = rig.requests.get(4).copied().flatten().map(|r| r.ticket);
    ensure(stale.is_none(), "task 4 must be done")?;
    let ticket = rig
        .requests
        .get(5)
        .copied()
        .flatten()
        .ok_or(ScenarioError("task 5 missing"))?
        .ticket;
    ensure(
        rig.engine.timeout(ticket)
            == TimeoutVerdict::TimedOut {
                recovery_needed: true,
            },
        "timeout must need recovery",
    )?;
    rig.recover()?;
    ensure(
        rig.status(5) == Some(CompletionStatus::Failed(TaskError::Timeout)),
        "timeout status",
    )?;
    ensure(
        rig.engine.timeout(ticket) == TimeoutVerdict::AlreadyCompleted,
        "stale ticket",
    )?;
    rig.read(5, 1, 1)?;
    rig.pump_idle()?;
    ensure(
        rig.status(5) == Some(CompletionStatus::Done),
        "retry after timeout",
    )?;
    rig.no_violations()
}

/// `cqe_off`, suspend and resume: the next request switches the controller back on.
pub(crate) fn suspend_resume() -> Outcome {
    let mut buffers = Buffers::new();
    let mut rig = Rig::new(&mut buffers, engine(mediatek())?, ReadyOrder::Immediate);
    rig.start()?;
    rig.read(0, 0, 1)?;
    rig.pump_idle()?;
    let step = rig.engine.off(&mut rig.dut);
    let finished = rig.drive(step)?;
    ensure(finished.warnings.is_empty(), "off warned")?;
    ensure(!rig.engine.is_on(), "off must clear cqe_on")?;
    ensure(
        rig.dut.hooks.disable == 1 && rig.dut.hooks.post_disable == 1,
        "off hooks",
    )?;
    rig.read(1, 1, 1)?;
    ensure(
        rig.dut.hooks.pre_enable == 1,
        "request must call pre_enable",
    )?;
    ensure(rig.engine.is_on(), "request must switch on")?;
    rig.pump_idle()?;
    // Suspend: the controller loses its configuration.
    rig.engine.deactivate(&mut rig.dut);
    ensure(rig.dut.read(Reg::Cfg) & 1 == 0, "suspend must disable")?;
    rig.dut.model = CqhciModel::new(ModelConfig::MEDIATEK);
    rig.read(2, 0, 1)?;
    ensure(
        rig.dut.read(Reg::Tdlbau) == (rig.map.tdl >> 32) as u32,
        "TDL base not restored",
    )?;
    ensure(
        rig.dut.read(Reg::Ssc2) == u32::from(RCA),
        "RCA not restored",
    )?;
    rig.pump_idle()?;
    ensure(
        rig.status(2) == Some(CompletionStatus::Done),
        "request after resume",
    )?;
    let step = rig.engine.disable(&mut rig.dut);
    rig.drive(step)?;
    ensure(!rig.engine.is_enabled(), "disable")?;
    rig.no_violations()
}

/// Coalescing: fewer interrupts than tasks, and the timer flushes the remainder.
pub(crate) fn coalescing() -> Outcome {
    let mut buffers = Buffers::new();
    let mut cfg = mediatek();
    cfg.coalescing = Some(Coalescing {
        threshold: 4,
        timeout: 3,
    });
    let mut rig = Rig::new(&mut buffers, engine(cfg)?, ReadyOrder::Immediate);
    rig.start()?;
    for slot in 0..6 {
        rig.read(slot, slot % SECTORS as u32, 1)?;
    }
    rig.pump_idle()?;
    ensure(rig.completed == 6, "six completions")?;
    ensure(rig.interrupts < 6, "coalescing should save interrupts")?;
    ensure(
        rig.interrupts >= 2,
        "threshold and timer interrupts expected",
    )?;
    rig.flush()?;
    rig.pump_idle()?;
    ensure(
        rig.status(31) == Some(CompletionStatus::Done),
        "DCMD interrupts at once",
    )?;
    rig.no_violations()
}

/// Halt and clear that never complete: off and recovery warn but lose no request.
pub(crate) fn stuck_controller() -> Outcome {
    let mut buffers = Buffers::new();
    let mut rig = Rig::new(&mut buffers, engine(mediatek())?, ReadyOrder::Immediate);
    rig.start()?;
    ensure(rig.dut.model.inject(Fault::IgnoreHalt), "fault table full")?;
    let step = rig.engine.off(&mut rig.dut);
    let finished = rig.drive(step)?;
    ensure(
        finished.warnings.contains(Warnings::STUCK_ON),
        "stuck halt not reported",
    )?;
    ensure(
        rig.dut.model.inject(Fault::Stall { tag: 0 }),
        "fault table full",
    )?;
    rig.read(0, 0, 1)?;
    for _ in 0..20 {
        rig.step_model();
    }
    let ticket = rig
        .requests
        .first()
        .copied()
        .flatten()
        .ok_or(ScenarioError("task 0 missing"))?
        .ticket;
    rig.engine.timeout(ticket);
    ensure(rig.dut.model.inject(Fault::IgnoreClear), "fault table full")?;
    let step = rig.engine.recovery_start(&mut rig.dut);
    rig.drive(step)?;
    let _ = rig.card.command(Command::new(48, 1));
    let step = rig.engine.recovery_finish(&mut rig.dut);
    let finished = rig.drive(step)?;
    ensure(
        finished.warnings.contains(Warnings::CLEAR_FAILED),
        "failed clear not reported",
    )?;
    ensure(
        finished.completions.status(tag(0)?) == Some(CompletionStatus::Failed(TaskError::Timeout)),
        "stalled task must time out",
    )?;
    rig.no_violations()
}

/// Stack taken by one scenario's rig and the buffers it borrows.
pub(crate) fn rig_size() -> usize {
    core::mem::size_of::<Rig<'static>>() + core::mem::size_of::<Buffers>()
}

/// A named scenario.
pub(crate) type Scenario = (&'static str, fn() -> Outcome);

/// Every scenario, by name.
pub(crate) const ALL: &[Scenario] = &[
    ("one_task", one_task),
    ("all_slots", all_slots),
    ("dcmd_among_data", dcmd_among_data),
    ("dma32_segments", dma32_segments),
    ("fault_response_error", fault_response_error),
    ("fault_queueing_error", fault_queueing_error),
    ("fault_data_crc", fault_data_crc),
    ("fault_timeout", fault_timeout),
    ("fault_descriptor_error", fault_descriptor_error),
    ("spurious_completion", spurious_completion),
    ("software_timeout", software_timeout),
    ("suspend_resume", suspend_resume),
    ("coalescing", coalescing),
    ("stuck_controller", stuck_controller),
];
