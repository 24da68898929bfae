// SPDX-License-Identifier: GPL-2.0
//! Engine tests against a scripted register file: exact register sequences, every error
//! path, and the halt/clear failure branches that a well-behaved model rarely takes.

use cqhci::engine::{
    CLEAR_ALL_TASKS_TIMEOUT_US, OFF_HALT_TIMEOUT_US, RECOVERY_FINISH_HALT_TIMEOUT_US,
    RECOVERY_START_HALT_TIMEOUT_US,
};
use std::cell::{Cell, RefCell};

use cqhci::regs::{
    CQCFG, CQCTL, CQIC, CQIS, CQISGE, CQISTE, CQSSC2, CQTCN, CQTDBR, CQTDLBA, CQTDLBAU, CQTDPE,
    CQTERRI, CQVER,
};
use cqhci::{
    CardInfo, Coalescing, CompletionStatus, Config, Cqhci, CqhciBlock, CqhciHost, DataTask,
    DcmdResponse, DescriptorMemory, DirectCommand, Direction, DmaWidth, Error, Finished, HostError,
    IdleState, RegisterDump, Segment, Step, Tag, TaskDescriptorSize, TaskError, TaskFlags,
    TimeoutVerdict, TransferDescriptor, TransferList, Wait, WaitCondition, Warnings,
};
use models::bus::{Bus, RegisterFile, Serves};
use registers::Io;

/// A custom transfer-descriptor hook.
type CustomHook = fn(Segment, bool, &mut TransferList<'_>) -> Option<Result<(), Error>>;

/// The scripted register file: it records every write; CQIS and CQTCN clear the bits
/// written, and CQCTL's halt and clear take effect at once unless the test says otherwise.
#[derive(Default)]
struct Script {
    regs: [u32; 24],
    writes: Vec<(usize, u32)>,
    /// Every access in order: the offset, and whether it was a write.
    accesses: Vec<(usize, bool)>,
    /// A halt request takes effect at once.
    halts: bool,
    /// CLEAR ALL TASKS completes at once.
    clears: bool,
    /// Microseconds that polls waited.
    waited_us: u32,
}

impl RegisterFile for Script {
    fn read(&mut self, offset: usize) -> u32 {
        self.accesses.push((offset, false));
        self.regs[offset / 4]
    }

    fn write(&mut self, offset: usize, value: u32) {
        self.accesses.push((offset, true));
        self.writes.push((offset, value));
        let old = self.regs[offset / 4];
        self.regs[offset / 4] = match offset {
            CQIS::OFFSET | CQTCN::OFFSET => old & !value,
            CQCTL::OFFSET => {
                let ctl = CQCTL::from_raw(value);
                ctl.with_halt(ctl.halt() && self.halts)
                    .with_clr_all_tasks(ctl.clr_all_tasks() && !self.clears)
                    .raw()
            }
            _ => value,
        };
    }

    fn wait_us(&mut self, us: u32) {
        self.waited_us += us;
    }
}

impl Serves<CqhciBlock> for Script {
    const BASE: usize = 0;
}

/// A test host: the scripted registers on a bus, and hooks that record their calls.
struct Fake {
    regs: Bus<Script>,
    hooks: RefCell<Vec<&'static str>>,
    custom: Cell<Option<CustomHook>>,
}

impl Fake {
    fn new() -> Self {
        Fake {
            regs: Bus::new(Script {
                halts: true,
                clears: true,
                ..Script::default()
            }),
            hooks: RefCell::default(),
            custom: Cell::default(),
        }
    }

    fn set(&self, offset: usize, value: u32) {
        self.regs.model().regs[offset / 4] = value;
    }

    fn get(&self, offset: usize) -> u32 {
        self.regs.model().regs[offset / 4]
    }

    fn set_halts(&self, halts: bool) {
        self.regs.model().halts = halts;
    }

    fn set_clears(&self, clears: bool) {
        self.regs.model().clears = clears;
    }

    /// The position of the first access to `offset` (a write if `write`) in the log.
    fn first_access(&self, offset: usize, write: bool) -> Option<usize> {
        self.regs
            .model()
            .accesses
            .iter()
            .position(|&a| a == (offset, write))
    }

    fn writes(&self) -> Vec<(usize, u32)> {
        self.regs.model().writes.clone()
    }

    fn writes_to(&self, offset: usize) -> Vec<u32> {
        self.writes()
            .into_iter()
            .filter(|(o, _)| *o == offset)
            .map(|(_, v)| v)
            .collect()
    }

    fn clear_writes(&self) {
        self.regs.model().writes.clear();
        self.regs.model().accesses.clear();
    }

    fn hooks(&self) -> Vec<&'static str> {
        self.hooks.borrow().clone()
    }

    fn clear_hooks(&self) {
        self.hooks.borrow_mut().clear();
    }

    fn hook(&self, name: &'static str) {
        self.hooks.borrow_mut().push(name);
    }
}

impl CqhciHost for Fake {
    fn enable(&self, _regs: &impl Io<CqhciBlock>) {
        self.hook("enable");
    }

    fn disable(&self, _regs: &impl Io<CqhciBlock>, recovery: bool) {
        self.hook(if recovery {
            "disable(recovery)"
        } else {
            "disable"
        });
    }

    fn pre_enable(&self, _regs: &impl Io<CqhciBlock>) {
        self.hook("pre_enable");
    }

    fn post_disable(&self, _regs: &impl Io<CqhciBlock>) {
        self.hook("post_disable");
    }

    fn dump_vendor_regs(&self, _regs: &impl Io<CqhciBlock>) {
        self.hook("dump");
    }

    fn prepare_transfer_descriptors(
        &self,
        segment: Segment,
        last: bool,
        list: &mut TransferList<'_>,
    ) -> Option<Result<(), Error>> {
        self.custom.get().and_then(|f| f(segment, last, list))
    }
}

const TDL_BUS: u64 = 0x1_0000_0400;
const XFER_BUS: u64 = 0x1_0001_0000;

struct Mem {
    tdl: Vec<u8>,
    xfer: Vec<u8>,
    tdl_bus: u64,
    xfer_bus: u64,
}

impl Mem {
    fn for_engine(e: &Cqhci) -> Self {
        Mem {
            tdl: vec![0xEE; e.layout().tdl_len()],
            xfer: vec![0xEE; e.layout().transfer_area_len()],
            tdl_bus: TDL_BUS,
            xfer_bus: XFER_BUS,
        }
    }

    fn lend(&mut self) -> DescriptorMemory<'_> {
        DescriptorMemory {
            tdl: &mut self.tdl,
            tdl_bus: self.tdl_bus,
            transfers: &mut self.xfer,
            transfers_bus: self.xfer_bus,
        }
    }
}

/// Descriptor memory at the usual bus addresses, of whatever size the test gives.
fn lent<'a>(tdl: &'a mut [u8], transfers: &'a mut [u8]) -> DescriptorMemory<'a> {
    DescriptorMemory {
        tdl,
        tdl_bus: TDL_BUS,
        transfers,
        transfers_bus: XFER_BUS,
    }
}

fn cfg(dcmd: bool) -> Config {
    Config {
        task_descriptor: TaskDescriptorSize::Bits128,
        dma: DmaWidth::Bits64,
        short_transfer_descriptor: false,
        direct_commands: dcmd,
        max_segments: 4,
        coalescing: None,
    }
}

const CARD: CardInfo = CardInfo {
    command_queue_enabled: true,
    rca: 0x1234,
};

fn tag(n: u32) -> Tag {
    Tag::new(n).unwrap()
}

fn read(blocks: u16) -> DataTask {
    DataTask {
        direction: Direction::Read,
        block_count: blocks,
        block_address: 0x10,
        flags: TaskFlags::default(),
        context: 0,
    }
}

fn seg(address: u64, length: u32) -> Segment {
    Segment { address, length }
}

/// A direct command with argument 0.
fn dcmd(opcode: u8, response: DcmdResponse) -> DirectCommand {
    DirectCommand {
        opcode,
        argument: 0,
        response,
    }
}

/// The writes that set both interrupt enables, status (CQISTE) and signal (CQISGE), to `bits`.
fn interrupts(bits: u32) -> [(usize, u32); 2] {
    [(CQISTE::OFFSET, bits), (CQISGE::OFFSET, bits)]
}

fn enabled(config: Config) -> (Cqhci, Fake, Mem) {
    let mut e = Cqhci::new(config).unwrap();
    let f = Fake::new();
    let mut m = Mem::for_engine(&e);
    e.enable(&f.regs, &f, CARD, &mut m.lend()).unwrap();
    f.clear_writes();
    f.clear_hooks();
    (e, f, m)
}

/// An enabled engine (DCMD configuration) with a one-block read issued in each of `slots`.
fn with_tasks(slots: &[u32]) -> (Cqhci, Fake, Mem) {
    let (mut e, f, mut m) = enabled(cfg(true));
    for &n in slots {
        issue(&mut e, &f, &mut m, n);
    }
    (e, f, m)
}

/// Issues a one-block read of `segment` in slot `n`.
fn issue_read(
    e: &mut Cqhci,
    f: &Fake,
    m: &mut Mem,
    n: u32,
    segment: Segment,
) -> Result<cqhci::Ticket, Error> {
    e.issue_data(&f.regs, f, &mut m.lend(), tag(n), &read(1), [segment])
}

fn issue(e: &mut Cqhci, f: &Fake, m: &mut Mem, n: u32) -> cqhci::Ticket {
    issue_read(e, f, m, n, seg(0x9000, 512)).unwrap()
}

/// Raises TCC with the given TCN bits and runs the interrupt handler.
fn complete(e: &mut Cqhci, f: &Fake, tcn: u32) -> cqhci::IrqOutcome {
    f.set(CQIS::OFFSET, 0x2);
    f.set(CQTCN::OFFSET, tcn);
    e.irq(&f.regs, None, None)
}

#[test]
fn config_validation_and_queries() {
    assert_eq!(
        Cqhci::new(Config {
            max_segments: 0,
            ..cfg(true)
        })
        .err(),
        Some(Error::InvalidConfig)
    );
    // A threshold without the timer would leave the completions short of it unsignalled.
    let bad = [(32, 1), (1, 128), (0, 0), (1, 0), (31, 0)];
    for (threshold, timeout) in bad {
        let c = Config {
            coalescing: Some(Coalescing { threshold, timeout }),
            ..cfg(true)
        };
        assert_eq!(
            Cqhci::new(c).err(),
            Some(Error::InvalidConfig),
            "{threshold} {timeout}"
        );
    }
    for (threshold, timeout) in [(31, 127), (0, 1), (1, 1)] {
        let c = Config {
            coalescing: Some(Coalescing { threshold, timeout }),
            ..cfg(true)
        };
        assert!(Cqhci::new(c).is_ok());
    }
    let e = Cqhci::new(cfg(true)).unwrap();
    assert_eq!(e.queue_depth(), 31);
    assert_eq!(e.config(), &cfg(true));
    assert_eq!(e.layout().transfer_area_len(), 16 * 4 * 31);
    assert!(!e.is_enabled());
    assert!(!e.is_on());
    let e = Cqhci::new(cfg(false)).unwrap();
    assert_eq!(e.queue_depth(), 32);
    assert_eq!(e.layout().transfer_area_len(), 16 * 4 * 32);
}

#[test]
fn version_dump_and_wait_conditions() {
    let f = Fake::new();
    f.set(CQVER::OFFSET, 0x0510);
    assert_eq!(Cqhci::version(&f.regs).printed_minor(), 10);
    let offsets = RegisterDump::read(&f.regs)
        .entries()
        .map(|(_, offset, _)| offset);
    for (i, offset) in offsets.iter().enumerate() {
        f.set(*offset, i as u32 + 100);
    }
    let dump = Cqhci::dump(&f.regs, &f);
    for (i, (_, offset, value)) in dump.entries().iter().enumerate() {
        assert_eq!((*offset, *value), (offsets[i], i as u32 + 100));
    }
    assert_eq!(dump.cqver.raw(), 100);
    assert_eq!(dump.cqcra.raw(), 122);
    assert_eq!(f.hooks(), ["dump"]);
    f.set(CQCTL::OFFSET, 0);
    assert!(!WaitCondition::Halted.is_met(&f.regs));
    assert!(WaitCondition::TasksCleared.is_met(&f.regs));
    f.set(CQCTL::OFFSET, 0x101);
    assert!(WaitCondition::Halted.is_met(&f.regs));
    assert!(!WaitCondition::TasksCleared.is_met(&f.regs));
}

#[test]
fn enable_sequence() {
    let mut e = Cqhci::new(cfg(true)).unwrap();
    let f = Fake::new();
    let mut m = Mem::for_engine(&e);
    // Enabled with a stale configuration, and halted.
    f.set(CQCFG::OFFSET, 0x0000_0103);
    f.set(CQCTL::OFFSET, 0x1);
    e.enable(&f.regs, &f, CARD, &mut m.lend()).unwrap();
    let configure = [
        (CQCFG::OFFSET, 0x0000_0102),
        (CQCFG::OFFSET, 0x0000_1100),
        (CQTDLBA::OFFSET, 0x0000_0400),
        (CQTDLBAU::OFFSET, 0x1),
        (CQSSC2::OFFSET, 0x1234),
    ];
    let switch_on = [(CQCFG::OFFSET, 0x0000_1101), (CQCTL::OFFSET, 0)];
    assert_eq!(
        f.writes(),
        [
            &configure[..],
            &interrupts(0),
            &switch_on,
            &interrupts(0x36)
        ]
        .concat()
    );
    assert_eq!(f.hooks(), ["enable"]);
    assert!(e.is_enabled() && e.is_on());
    // Link descriptors: slot 0 points at its transfer area, slot 31 (DCMD) ends.
    assert_eq!(&m.tdl[16..20], &[0x31, 0, 0, 0]);
    assert_eq!(&m.tdl[20..28], &XFER_BUS.to_le_bytes());
    assert_eq!(&m.tdl[0..16], &[0; 16]);
    let at = 30 * 32 + 16;
    assert_eq!(&m.tdl[at + 4..at + 12], &(XFER_BUS + 30 * 64).to_le_bytes());
    assert_eq!(
        &m.tdl[31 * 32 + 16..32 * 32],
        &[2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    // A second enable does nothing.
    f.clear_writes();
    assert_eq!(e.enable(&f.regs, &f, CARD, &mut m.lend()), Ok(()));
    assert!(f.writes().is_empty());
}

#[test]
fn enable_without_dcmd_links_slot_31() {
    let (_, f, m) = enabled(cfg(false));
    let at = 31 * 32 + 16;
    assert_eq!(&m.tdl[at..at + 4], &[0x31, 0, 0, 0]);
    assert_eq!(&m.tdl[at + 4..at + 12], &(XFER_BUS + 31 * 64).to_le_bytes());
    assert_eq!(f.get(CQCFG::OFFSET), 0x101);
}

#[test]
fn enable_errors() {
    let mut e = Cqhci::new(cfg(true)).unwrap();
    let f = Fake::new();
    let mut m = Mem::for_engine(&e);
    let off = CardInfo {
        command_queue_enabled: false,
        rca: 1,
    };
    assert_eq!(
        e.enable(&f.regs, &f, off, &mut m.lend()),
        Err(Error::CommandQueueDisabled)
    );
    m.tdl.pop();
    assert_eq!(
        e.enable(&f.regs, &f, CARD, &mut m.lend()),
        Err(Error::MemoryTooSmall)
    );
    let mut m = Mem::for_engine(&e);
    m.xfer.pop();
    assert_eq!(
        e.enable(&f.regs, &f, CARD, &mut m.lend()),
        Err(Error::MemoryTooSmall)
    );
    assert!(f.writes().is_empty());
    assert!(!e.is_enabled());

    let narrow = Config {
        dma: DmaWidth::Bits32,
        ..cfg(true)
    };
    let mut e = Cqhci::new(narrow).unwrap();
    let mut m = Mem::for_engine(&e);
    assert_eq!(
        e.enable(&f.regs, &f, CARD, &mut m.lend()),
        Err(Error::AddressNotReachable)
    );
    m.tdl_bus = 0x1000;
    assert_eq!(
        e.enable(&f.regs, &f, CARD, &mut m.lend()),
        Err(Error::AddressNotReachable)
    );
    // Exactly at the 4 GiB limit is fine.
    m.xfer_bus = (1 << 32) - e.layout().transfer_area_len() as u64;
    m.tdl_bus = (1 << 32) - e.layout().tdl_len() as u64;
    assert_eq!(e.enable(&f.regs, &f, CARD, &mut m.lend()), Ok(()));
    let mut e = Cqhci::new(narrow).unwrap();
    m.xfer_bus += 1;
    assert_eq!(
        e.enable(&f.regs, &f, CARD, &mut m.lend()),
        Err(Error::AddressNotReachable)
    );
    m.xfer_bus = 0x1000;
    m.tdl_bus += 1;
    assert_eq!(
        e.enable(&f.regs, &f, CARD, &mut m.lend()),
        Err(Error::AddressNotReachable)
    );
    m.tdl_bus = u64::MAX;
    assert_eq!(
        e.enable(&f.regs, &f, CARD, &mut m.lend()),
        Err(Error::AddressNotReachable)
    );
}

#[test]
fn issue_writes_descriptors_and_rings() {
    let (mut e, f, mut m) = enabled(cfg(true));
    let task = DataTask {
        direction: Direction::Write,
        block_count: 261,
        block_address: 0xABCD,
        flags: TaskFlags::default(),
        context: 0,
    };
    // 64 KiB exactly (length field 0), then 70000 bytes split 65536 + 4464.
    let t = e
        .issue_data(
            &f.regs,
            &f,
            &mut m.lend(),
            tag(2),
            &task,
            [seg(0x1_0000_0000, 65536), seg(0x2_0000_0000, 68096)],
        )
        .unwrap();
    assert_eq!(t.tag, tag(2));
    // A stale completion bit of the free slot is cleared, then the doorbell rung.
    assert_eq!(f.writes(), [(CQTCN::OFFSET, 0x4), (CQTDBR::OFFSET, 0x4)]);
    assert!(f.hooks().is_empty());
    let d = 64;
    assert_eq!(
        &m.tdl[d..d + 8],
        &task.encode(true).unwrap().raw().to_le_bytes()
    );
    assert_eq!(&m.tdl[d + 8..d + 16], &[0; 8]);
    let x = 2 * 64;
    assert_eq!(&m.xfer[x..x + 4], &[0x21, 0, 0, 0]);
    assert_eq!(&m.xfer[x + 4..x + 12], &0x1_0000_0000u64.to_le_bytes());
    assert_eq!(&m.xfer[x + 16..x + 20], &[0x21, 0, 0, 0]);
    assert_eq!(&m.xfer[x + 20..x + 28], &0x2_0000_0000u64.to_le_bytes());
    assert_eq!(&m.xfer[x + 32..x + 36], &[0x23, 0, 0x00, 0x0A]);
    assert_eq!(&m.xfer[x + 36..x + 44], &0x2_0001_0000u64.to_le_bytes());
    assert_eq!(m.xfer[x + 48], 0xEE);
    assert_eq!(e.in_flight().bits(), 0x4);
    assert_eq!(e.idle_state(), IdleState::Busy);
}

#[test]
fn issue_errors() {
    let mut e = Cqhci::new(cfg(true)).unwrap();
    let f = Fake::new();
    let mut m = Mem::for_engine(&e);
    let one = [seg(0x1000, 512)];
    assert_eq!(
        e.issue_data(&f.regs, &f, &mut m.lend(), tag(0), &read(1), one)
            .err(),
        Some(Error::NotEnabled)
    );
    let flush = dcmd(6, DcmdResponse::ShortBusy);
    assert_eq!(
        e.issue_dcmd(&f.regs, &f, &mut m.lend(), &flush).err(),
        Some(Error::NotEnabled)
    );

    let (mut e, f, mut m) = enabled(cfg(true));
    assert_eq!(
        e.issue_data(&f.regs, &f, &mut m.lend(), Tag::DCMD, &read(1), one)
            .err(),
        Some(Error::InvalidTag)
    );
    assert_eq!(
        e.issue_data(&f.regs, &f, &mut m.lend(), tag(0), &read(0), one)
            .err(),
        Some(Error::NoBlocks)
    );
    assert_eq!(
        e.issue_data(&f.regs, &f, &mut m.lend(), tag(0), &read(1), [])
            .err(),
        Some(Error::NoSegments)
    );
    assert_eq!(
        issue_read(&mut e, &f, &mut m, 0, seg(0x1000, 0)).err(),
        Some(Error::EmptySegment)
    );
    let five = [seg(0, 512); 5];
    assert_eq!(
        e.issue_data(&f.regs, &f, &mut m.lend(), tag(0), &read(5), five)
            .err(),
        Some(Error::TooManySegments)
    );
    let split = [seg(0, 512), seg(0, 512), seg(0, 512), seg(0, 65537)];
    assert_eq!(
        e.issue_data(&f.regs, &f, &mut m.lend(), tag(0), &read(9), split)
            .err(),
        Some(Error::TooManySegments)
    );
    let four = [seg(0, 512); 4];
    assert!(e
        .issue_data(&f.regs, &f, &mut m.lend(), tag(0), &read(4), four)
        .is_ok());
    assert_eq!(
        e.issue_data(&f.regs, &f, &mut m.lend(), tag(0), &read(1), one)
            .err(),
        Some(Error::SlotBusy)
    );
    assert_eq!(
        issue_read(&mut e, &f, &mut m, 1, seg(u64::MAX - 65535, 65536 + 512)).err(),
        Some(Error::AddressNotReachable)
    );
    assert_eq!(f.writes_to(CQTDBR::OFFSET), [1]);
    // No DCMD without the capability.
    let (mut e, f, mut m) = enabled(cfg(false));
    assert_eq!(
        e.issue_dcmd(&f.regs, &f, &mut m.lend(), &flush).err(),
        Some(Error::NoDirectCommand)
    );
    assert!(e
        .issue_data(&f.regs, &f, &mut m.lend(), Tag::DCMD, &read(1), one)
        .is_ok());
    // 32-bit DMA refuses high data addresses.
    let narrow = Config {
        dma: DmaWidth::Bits32,
        ..cfg(true)
    };
    let mut e = Cqhci::new(narrow).unwrap();
    let mut m = Mem::for_engine(&e);
    m.tdl_bus = 0x1000;
    m.xfer_bus = 0x10000;
    e.enable(&f.regs, &f, CARD, &mut m.lend()).unwrap();
    assert_eq!(
        issue_read(&mut e, &f, &mut m, 0, seg(0x1_0000_0000, 512)).err(),
        Some(Error::AddressNotReachable)
    );
    assert!(issue_read(&mut e, &f, &mut m, 0, seg(0xFFFF_FE00, 512)).is_ok());
    assert_eq!(&m.tdl[16..20], &[0x31, 0, 0, 0]);
    assert_eq!(&m.tdl[20..24], &0x10000u32.to_le_bytes());
    assert_eq!(&m.tdl[40..44], &[0x31, 0, 0, 0]);
    assert_eq!(&m.tdl[44..48], &(0x10000u32 + 32).to_le_bytes());
    assert_eq!(&m.xfer[0..8], &[0x23, 0, 0, 2, 0, 0xFE, 0xFF, 0xFF]);
}

#[test]
fn memory_lent_too_small_after_enable() {
    let (mut e, f, mut m) = enabled(cfg(true));
    let mut short_tdl = m.tdl[..100].to_vec();
    let mut short_xfer = m.xfer[..100].to_vec();
    for mut mem in [
        lent(&mut short_tdl, &mut m.xfer),
        lent(&mut m.tdl, &mut short_xfer),
    ] {
        assert_eq!(
            e.issue_data(&f.regs, &f, &mut mem, tag(5), &read(1), [seg(0, 512)])
                .err(),
            Some(Error::MemoryTooSmall)
        );
    }
    let mut mem = lent(&mut [], &mut m.xfer);
    assert_eq!(
        e.issue_dcmd(&f.regs, &f, &mut mem, &dcmd(13, DcmdResponse::Short))
            .err(),
        Some(Error::MemoryTooSmall)
    );
    assert!(e.in_flight().is_empty());
}

#[test]
fn dcmd_descriptor_written_in_slot_31() {
    let (mut e, f, mut m) = enabled(cfg(true));
    m.tdl[31 * 32 + 8..31 * 32 + 16].fill(0xFF);
    let dcmd = DirectCommand {
        argument: 0x0320_0100,
        ..dcmd(6, DcmdResponse::ShortBusy)
    };
    let t = e.issue_dcmd(&f.regs, &f, &mut m.lend(), &dcmd).unwrap();
    assert_eq!(t.tag, Tag::DCMD);
    assert_eq!(
        &m.tdl[31 * 32..31 * 32 + 8],
        &dcmd.encode().unwrap().raw().to_le_bytes()
    );
    assert_eq!(&m.tdl[31 * 32 + 8..31 * 32 + 16], &[0; 8]);
    assert_eq!(
        f.writes(),
        [(CQTCN::OFFSET, 0x8000_0000), (CQTDBR::OFFSET, 0x8000_0000)]
    );
    assert_eq!(
        e.issue_dcmd(&f.regs, &f, &mut m.lend(), &dcmd).err(),
        Some(Error::SlotBusy)
    );
}

#[test]
fn custom_transfer_descriptors() {
    let (mut e, f, mut m) = enabled(cfg(true));
    // Split every segment at 4 KiB.
    f.custom.set(Some(|s, last, list| {
        let half = s.length / 2;
        let a = TransferDescriptor::new(s.address, half, false).unwrap();
        let b =
            TransferDescriptor::new(s.address + u64::from(half), s.length - half, last).unwrap();
        let before = list.len();
        let pushed = list.push(a).and_then(|()| list.push(b));
        assert_eq!(list.len(), before + 2);
        Some(pushed)
    }));
    e.issue_data(
        &f.regs,
        &f,
        &mut m.lend(),
        tag(0),
        &read(4),
        [seg(0x1000, 1024), seg(0x8000, 1024)],
    )
    .unwrap();
    let words: Vec<u32> = (0..4)
        .map(|i| u32::from_le_bytes(m.xfer[i * 16..i * 16 + 4].try_into().unwrap()))
        .collect();
    assert_eq!(words, [0x0200_0021, 0x0200_0021, 0x0200_0021, 0x0200_0023]);
    // A hook that forgets END is refused.
    f.custom.set(Some(|s, _, list| {
        Some(list.push(TransferDescriptor::new(s.address, s.length, false).unwrap()))
    }));
    assert_eq!(
        issue_read(&mut e, &f, &mut m, 1, seg(0x1000, 512)).err(),
        Some(Error::UnterminatedTransferList)
    );
    // Hook errors propagate; nothing after END is accepted.
    f.custom.set(Some(|s, _, list| {
        let end = TransferDescriptor::new(s.address, s.length, true).unwrap();
        list.push(end).unwrap();
        assert!(list.is_ended());
        assert_eq!(list.len(), 1);
        assert!(!list.is_empty());
        Some(list.push(end))
    }));
    assert_eq!(
        issue_read(&mut e, &f, &mut m, 1, seg(0x1000, 512)).err(),
        Some(Error::TooManySegments)
    );
    // Declining falls back to the default split.
    f.custom.set(Some(|_, _, list| {
        assert!(list.is_empty());
        None
    }));
    assert!(issue_read(&mut e, &f, &mut m, 1, seg(0x1000, 512)).is_ok());
    assert_eq!(e.in_flight().bits(), 0x3);
}

#[test]
fn request_after_off_turns_controller_on() {
    let (mut e, f, mut m) = enabled(cfg(true));
    let step = e.off(&f.regs, &f);
    assert_eq!(
        step,
        Step::Wait(Wait {
            condition: WaitCondition::Halted,
            timeout_us: OFF_HALT_TIMEOUT_US,
        })
    );
    assert_eq!(f.writes(), [(CQCTL::OFFSET, 1)]);
    // Nothing else may start while an operation waits.
    assert_eq!(e.off(&f.regs, &f), Step::Done(Finished::default()));
    assert_eq!(e.disable(&f.regs, &f), Step::Done(Finished::default()));
    assert_eq!(
        issue_read(&mut e, &f, &mut m, 0, seg(0, 512)).err(),
        Some(Error::Busy)
    );
    let done = e.resume(&f.regs, &f);
    assert_eq!(done, Step::Done(Finished::default()));
    assert_eq!(f.hooks(), ["disable", "post_disable"]);
    assert!(!e.is_on());
    assert_eq!(e.off(&f.regs, &f), Step::Done(Finished::default()));
    f.clear_writes();
    f.clear_hooks();
    issue(&mut e, &f, &mut m, 0);
    assert_eq!(f.hooks(), ["pre_enable", "enable"]);
    assert_eq!(
        f.writes(),
        [(CQCTL::OFFSET, 0), (CQTCN::OFFSET, 1), (CQTDBR::OFFSET, 1)]
    );
    assert!(e.is_on());
    // A resume with nothing pending is harmless.
    assert_eq!(e.resume(&f.regs, &f), Step::Done(Finished::default()));
}

#[test]
fn off_reports_stuck_controller() {
    let (mut e, f, _) = enabled(cfg(true));
    f.set_halts(false);
    let step = e.off(&f.regs, &f);
    let finished = e.drive(&f.regs, &f, step, |w| {
        assert_eq!(w.condition, WaitCondition::Halted)
    });
    assert_eq!(finished.warnings, Warnings::STUCK_ON);
    assert!(!finished.warnings.is_empty());
    assert!(!e.is_on());
}

#[test]
fn off_needs_enabled_controller() {
    let mut e = Cqhci::new(cfg(true)).unwrap();
    let f = Fake::new();
    assert_eq!(e.off(&f.regs, &f), Step::Done(Finished::default()));
    assert_eq!(e.disable(&f.regs, &f), Step::Done(Finished::default()));
    e.deactivate(&f.regs);
    assert!(f.writes().is_empty());
}

#[test]
fn disable_halts_then_switches_off() {
    let (mut e, f, mut m) = enabled(cfg(true));
    let step = e.disable(&f.regs, &f);
    assert!(matches!(step, Step::Wait(_)));
    assert!(e.is_enabled());
    let done = e.resume(&f.regs, &f);
    assert_eq!(done, Step::Done(Finished::default()));
    assert!(!e.is_enabled());
    assert_eq!(f.get(CQCFG::OFFSET) & 1, 0);
    assert_eq!(
        issue_read(&mut e, &f, &mut m, 0, seg(0, 512)).err(),
        Some(Error::NotEnabled)
    );
    // Re-enable works again, and disabling while off needs no wait.
    e.enable(&f.regs, &f, CARD, &mut m.lend()).unwrap();
    let step = e.off(&f.regs, &f);
    finish(&mut e, &f, step);
    f.clear_writes();
    assert_eq!(e.disable(&f.regs, &f), Step::Done(Finished::default()));
    assert_eq!(f.writes(), [(CQCFG::OFFSET, 0x1100)]);
    assert!(!e.is_enabled());
}

#[test]
fn suspend_and_lazy_resume() {
    let (mut e, f, mut m) = enabled(cfg(true));
    e.deactivate(&f.regs);
    assert_eq!(f.writes(), [(CQCFG::OFFSET, 0x1100)]);
    assert!(!e.is_on());
    f.clear_writes();
    e.deactivate(&f.regs);
    assert!(f.writes().is_empty());
    // The controller lost its state while suspended.
    f.regs.model().regs = [0; 24];
    issue(&mut e, &f, &mut m, 3);
    assert_eq!(f.get(CQTDLBA::OFFSET), 0x400);
    assert_eq!(f.get(CQTDLBAU::OFFSET), 1);
    assert_eq!(f.get(CQSSC2::OFFSET), 0x1234);
    assert_eq!(f.get(CQCFG::OFFSET), 0x1101);
    assert_eq!(f.get(CQISTE::OFFSET), 0x36);
    assert_eq!(f.hooks(), ["enable"]);
    assert!(e.is_on());
}

#[test]
fn completions_and_spurious_bits() {
    let (mut e, f, _) = with_tasks(&[0, 5]);
    f.clear_writes();
    let out = complete(&mut e, &f, 0x0000_0121);
    assert_eq!(f.writes(), [(CQIS::OFFSET, 2), (CQTCN::OFFSET, 0x121)]);
    assert_eq!(out.completed.len(), 2);
    assert!(!out.completed.is_empty());
    assert_eq!(out.status.bits(), 0x2);
    assert_eq!(out.completed.status(tag(0)), Some(CompletionStatus::Done));
    assert_eq!(out.completed.status(tag(5)), Some(CompletionStatus::Done));
    assert_eq!(out.completed.status(tag(8)), None);
    assert_eq!(out.spurious.bits(), 0x100);
    assert!(out.wake);
    assert!(out.notify_recovery.is_none());
    assert!(out.task_error.is_none());
    let tags: Vec<u32> = out.completed.iter().map(|c| c.tag.number()).collect();
    assert_eq!(tags, [0, 5]);
    assert_eq!(out.completed.mask().bits(), 0x21);
    assert_eq!(e.idle_state(), IdleState::Idle);
    // The same bits again complete nothing twice.
    let again = complete(&mut e, &f, 0x21);
    assert!(again.completed.is_empty());
    assert_eq!(again.spurious.bits(), 0x21);
}

#[test]
fn wake_only_when_idle_or_halt_or_clear() {
    let (mut e, f, _) = with_tasks(&[0, 1]);
    let out = complete(&mut e, &f, 0x1);
    assert!(!out.wake);
    f.set(CQIS::OFFSET, 0x1);
    assert!(e.irq(&f.regs, None, None).wake);
    f.set(CQIS::OFFSET, 0x8);
    assert!(e.irq(&f.regs, None, None).wake);
    f.set(CQIS::OFFSET, 0x0);
    f.set(CQTCN::OFFSET, 0x2);
    let out = e.irq(&f.regs, None, None);
    assert!(!out.wake);
    assert!(out.completed.is_empty(), "TCN is only read on TCC");
    assert_eq!(f.get(CQTCN::OFFSET), 0x2);
}

#[test]
fn coalescing_programs_ic_and_clears_int() {
    let c = Config {
        coalescing: Some(Coalescing {
            threshold: 8,
            timeout: 20,
        }),
        ..cfg(true)
    };
    let mut e = Cqhci::new(c).unwrap();
    let f = Fake::new();
    let mut m = Mem::for_engine(&e);
    e.enable(&f.regs, &f, CARD, &mut m.lend()).unwrap();
    assert_eq!(f.writes_to(CQIC::OFFSET), [0x8000_8894]);
    issue(&mut e, &f, &mut m, 0);
    assert_eq!(m.tdl[0] & 0x4, 0, "INT must be clear for coalesced tasks");
    f.clear_writes();
    complete(&mut e, &f, 1);
    assert_eq!(f.writes_to(CQIC::OFFSET), [0x8001_0000]);
    // The counter and timer are reset before CQTCN is read, so that a task completing
    // between the two is either read now or counted afresh.
    let reset = f.first_access(CQIC::OFFSET, true).expect("CQIC reset");
    let read = f.first_access(CQTCN::OFFSET, false).expect("CQTCN read");
    assert!(reset < read, "CQIC reset at {reset}, CQTCN read at {read}");
    e.issue_dcmd(&f.regs, &f, &mut m.lend(), &dcmd(13, DcmdResponse::Short))
        .unwrap();
    assert_eq!(m.tdl[31 * 32] & 0x4, 0x4, "a DCMD interrupts at once");
    // Without coalescing IC is never written.
    let (mut e, f, m) = with_tasks(&[0]);
    assert_eq!(m.tdl[0] & 0x4, 0x4);
    complete(&mut e, &f, 1);
    assert!(f.writes_to(CQIC::OFFSET).is_empty());
}

fn error_irq(
    e: &mut Cqhci,
    f: &Fake,
    is: u32,
    terri: u32,
    cmd: Option<HostError>,
    data: Option<HostError>,
) -> cqhci::IrqOutcome {
    f.set(CQIS::OFFSET, is);
    f.set(CQTERRI::OFFSET, terri);
    e.irq(&f.regs, cmd, data)
}

/// Runs an operation to its end, each wait over at once.
fn finish(e: &mut Cqhci, f: &Fake, step: Step) -> Finished {
    e.drive(&f.regs, f, step, |_| {})
}

/// Recovery start, run to its end.
fn start_recovery(e: &mut Cqhci, f: &Fake) -> Finished {
    let step = e.recovery_start(&f.regs, f);
    finish(e, f, step)
}

/// Recovery start and finish, run to their ends.
fn recover(e: &mut Cqhci, f: &Fake) -> Finished {
    start_recovery(e, f);
    let step = e.recovery_finish(&f.regs);
    finish(e, f, step)
}

/// An enabled engine whose task in slot `n` timed out: recovery is pending.
fn timed_out(n: u32) -> (Cqhci, Fake, Mem) {
    let (mut e, f, mut m) = enabled(cfg(true));
    let t = issue(&mut e, &f, &mut m, n);
    e.timeout(t);
    (e, f, m)
}

fn failed(err: TaskError) -> Option<CompletionStatus> {
    Some(CompletionStatus::Failed(err))
}

const REQUEUE: Option<CompletionStatus> = Some(CompletionStatus::Requeue);

/// Runs recovery; the status it completes slot `n` with.
fn recovered(e: &mut Cqhci, f: &Fake, n: u32) -> Option<CompletionStatus> {
    recover(e, f).completions.status(tag(n))
}

/// Expects the interrupt's outcome `out` to ask for recovery of slot `n`, and recovery to
/// complete that task with `status` and requeue the tasks in `others`.
fn expect_recovery(
    e: &mut Cqhci,
    f: &Fake,
    out: &cqhci::IrqOutcome,
    n: u32,
    status: Option<CompletionStatus>,
    others: &[u32],
) {
    assert_eq!(out.notify_recovery, Some(tag(n)));
    let completions = recover(e, f).completions;
    assert_eq!(completions.status(tag(n)), status);
    for &other in others {
        assert_eq!(completions.status(tag(other)), REQUEUE, "slot {other}");
    }
}

#[test]
fn command_error_flags_the_named_task() {
    let (mut e, f, mut m) = with_tasks(&[0, 1, 2, 3]);
    // RED with TERRI naming task 2's CMD46.
    let out = error_irq(&mut e, &f, 0x4, 0x0000_822E, None, None);
    assert_eq!(out.notify_recovery, Some(tag(2)));
    assert!(out.wake);
    assert_eq!(out.task_error.map(CQTERRI::raw), Some(0x822E));
    assert_eq!(e.idle_state(), IdleState::RecoveryNeeded);
    assert!(e.recovery_pending());
    // Further errors add nothing; completions during recovery are held back.
    let again = error_irq(&mut e, &f, 0x4, 0x0000_8128, Some(HostError::Crc), None);
    assert_eq!(again.notify_recovery, None);
    let held = complete(&mut e, &f, 0x1);
    assert!(held.completed.is_empty());
    assert_eq!(
        issue_read(&mut e, &f, &mut m, 9, seg(0, 512)).err(),
        Some(Error::Busy)
    );
    let finished = recover(&mut e, &f);
    let c = finished.completions;
    assert_eq!(c.len(), 4);
    assert_eq!(
        c.status(tag(0)),
        failed(TaskError::Io),
        "finished during recovery"
    );
    assert_eq!(c.status(tag(1)), REQUEUE);
    assert_eq!(c.status(tag(2)), failed(TaskError::Io));
    assert_eq!(c.status(tag(3)), REQUEUE);
    assert!(finished.warnings.is_empty());
    assert!(e.in_flight().is_empty());
    assert!(!e.recovery_pending());
    assert_eq!(e.idle_state(), IdleState::Idle);
}

#[test]
fn host_error_kinds_map_to_statuses() {
    let cases = [
        (Some(HostError::Crc), None, failed(TaskError::Crc)),
        (Some(HostError::Timeout), None, failed(TaskError::Timeout)),
        (Some(HostError::Other), None, failed(TaskError::Io)),
        (None, Some(HostError::Crc), failed(TaskError::Crc)),
        (
            Some(HostError::Timeout),
            Some(HostError::Crc),
            failed(TaskError::Timeout),
        ),
    ];
    for (cmd, data, want) in cases {
        let (mut e, f, _) = with_tasks(&[7]);
        let out = error_irq(&mut e, &f, 0, 0x0000_872E, cmd, data);
        expect_recovery(&mut e, &f, &out, 7, want, &[]);
    }
    // A data error prefers the data error kind.
    let (mut e, f, _) = with_tasks(&[6]);
    let out = error_irq(
        &mut e,
        &f,
        0,
        0x862F_0000,
        Some(HostError::Timeout),
        Some(HostError::Crc),
    );
    expect_recovery(&mut e, &f, &out, 6, failed(TaskError::Crc), &[]);
}

#[test]
fn descriptor_error_uses_tdpe() {
    let (mut e, f, _) = with_tasks(&[1, 4]);
    f.set(CQTDPE::OFFSET, 0x10);
    let out = error_irq(&mut e, &f, 0x20, 0, None, None);
    assert_eq!(out.descriptor_errors.map(|m| m.bits()), Some(0x10));
    expect_recovery(&mut e, &f, &out, 4, failed(TaskError::Io), &[1]);
}

#[test]
fn unnamed_error_picks_first_task() {
    let (mut e, f, _) = with_tasks(&[9, 3]);
    // TERRI names an empty slot and nothing else.
    let out = error_irq(
        &mut e,
        &f,
        0x10,
        0x8000_8000,
        None,
        Some(HostError::Timeout),
    );
    expect_recovery(&mut e, &f, &out, 3, failed(TaskError::Timeout), &[9]);
}

#[test]
fn error_while_idle_is_reported_only() {
    let (mut e, f, _) = enabled(cfg(true));
    let out = error_irq(&mut e, &f, 0x4, 0x8000, None, None);
    assert!(out.error_while_idle);
    assert!(!e.recovery_pending());
    assert_eq!(out.notify_recovery, None);
    let quiet = complete(&mut e, &f, 0);
    assert!(!quiet.error_while_idle);
    assert!(quiet.task_error.is_none());
}

#[test]
fn timeout_verdicts() {
    let (mut e, f, mut m) = enabled(cfg(true));
    let t = issue(&mut e, &f, &mut m, 4);
    complete(&mut e, &f, 1 << 4);
    assert_eq!(e.timeout(t), TimeoutVerdict::AlreadyCompleted);
    // The slot is reused: the old ticket must not hit the new task.
    let t2 = issue(&mut e, &f, &mut m, 4);
    assert_eq!(e.timeout(t), TimeoutVerdict::AlreadyCompleted);
    assert!(!e.recovery_pending());
    assert_eq!(
        e.timeout(t2),
        TimeoutVerdict::TimedOut {
            recovery_needed: true
        }
    );
    assert!(e.recovery_pending());
    // No notification for a timeout: the core starts recovery itself.
    let out = error_irq(&mut e, &f, 0x4, 0x8000 | (4 << 8), None, None);
    assert_eq!(out.notify_recovery, None);
    assert_eq!(recovered(&mut e, &f, 4), failed(TaskError::Timeout));
}

#[test]
fn timeout_keeps_crc_priority() {
    let (mut e, f, mut m) = enabled(cfg(true));
    let t = issue(&mut e, &f, &mut m, 2);
    error_irq(&mut e, &f, 0, 0x8000 | (2 << 8), Some(HostError::Crc), None);
    assert_eq!(
        e.timeout(t),
        TimeoutVerdict::TimedOut {
            recovery_needed: true
        }
    );
    assert_eq!(recovered(&mut e, &f, 2), failed(TaskError::Crc));
}

#[test]
fn recovery_register_sequence() {
    let (mut e, f, _) = timed_out(0);
    f.set_halts(false);
    f.clear_writes();
    let step = e.recovery_start(&f.regs, &f);
    assert_eq!(
        step,
        Step::Wait(Wait {
            condition: WaitCondition::Halted,
            timeout_us: RECOVERY_START_HALT_TIMEOUT_US,
        })
    );
    assert_eq!(
        f.writes(),
        [&interrupts(1)[..], &[(CQCTL::OFFSET, 1)]].concat()
    );
    assert_eq!(e.recovery_finish(&f.regs), Step::Done(Finished::default()));
    f.set_halts(true);
    f.set(CQCTL::OFFSET, 1);
    f.clear_writes();
    assert_eq!(e.resume(&f.regs, &f), Step::Done(Finished::default()));
    assert_eq!(f.writes(), interrupts(0));
    assert_eq!(f.hooks(), ["disable(recovery)"]);
    assert!(!e.is_on());

    f.clear_writes();
    f.set_clears(false);
    let step = e.recovery_finish(&f.regs);
    // Already halted: straight to clearing.
    assert_eq!(
        step,
        Step::Wait(Wait {
            condition: WaitCondition::TasksCleared,
            timeout_us: CLEAR_ALL_TASKS_TIMEOUT_US,
        })
    );
    assert_eq!(
        f.writes(),
        [&interrupts(8)[..], &[(CQCTL::OFFSET, 0x101)]].concat()
    );
    f.set(CQCTL::OFFSET, 0x1);
    f.set(CQCFG::OFFSET, 0x1101);
    f.clear_writes();
    let done = e.resume(&f.regs, &f);
    let re_enable = [
        (CQCFG::OFFSET, 0x1100),
        (CQCFG::OFFSET, 0x1101),
        (CQIS::OFFSET, 0x9),
    ];
    assert_eq!(
        f.writes(),
        [&interrupts(0)[..], &re_enable, &interrupts(0x36)].concat()
    );
    let Step::Done(finished) = done else {
        panic!("recovery must end")
    };
    assert!(finished.warnings.is_empty());
    assert_eq!(
        finished.completions.status(tag(0)),
        failed(TaskError::Timeout)
    );
    assert!(!e.is_on());
}

#[test]
fn recovery_with_failed_halt_and_clear() {
    let (mut e, f, _) = timed_out(0);
    f.set_halts(false);
    f.set_clears(false);
    assert_eq!(start_recovery(&mut e, &f).warnings, Warnings::HALT_FAILED);
    let mut waits = Vec::new();
    let step = e.recovery_finish(&f.regs);
    let finished = e.drive(&f.regs, &f, step, |w| waits.push(w));
    let halt = Wait {
        condition: WaitCondition::Halted,
        timeout_us: RECOVERY_FINISH_HALT_TIMEOUT_US,
    };
    let clear = Wait {
        condition: WaitCondition::TasksCleared,
        timeout_us: CLEAR_ALL_TASKS_TIMEOUT_US,
    };
    assert_eq!(waits, [halt, clear, halt, clear]);
    assert!(finished.warnings.contains(Warnings::HALT_FAILED));
    assert!(finished.warnings.contains(Warnings::CLEAR_FAILED));
    assert!(!finished.warnings.contains(Warnings::STUCK_ON));
    assert_eq!(
        finished.completions.status(tag(0)),
        failed(TaskError::Timeout)
    );
    assert!(e.in_flight().is_empty());
}

#[test]
fn recovery_with_failed_first_halt_only() {
    let (mut e, f, _) = timed_out(1);
    f.set_halts(false);
    start_recovery(&mut e, &f);
    let mut waits = 0;
    let step = e.recovery_finish(&f.regs);
    // The halt succeeds only once the tasks are cleared (second halt).
    let finished = e.drive(&f.regs, &f, step, |w| {
        waits += 1;
        if w.condition == WaitCondition::TasksCleared {
            f.set_halts(true);
        }
    });
    // First halt failed, so the tasks are cleared a second time.
    assert_eq!(waits, 4);
    assert_eq!(finished.warnings, Warnings::HALT_FAILED);
    assert_eq!(finished.completions.len(), 1);
}

#[test]
fn recovery_with_failed_second_halt() {
    let (mut e, f, _) = timed_out(1);
    start_recovery(&mut e, &f);
    let mut waits = 0;
    let step = e.recovery_finish(&f.regs);
    // Re-enabling un-halts this controller, and then it will not halt again.
    let finished = e.drive(&f.regs, &f, step, |_| {
        waits += 1;
        f.set_halts(false);
        f.set(CQCTL::OFFSET, 0);
    });
    assert_eq!(waits, 2);
    assert_eq!(finished.warnings, Warnings::HALT_FAILED);
}

#[test]
fn recovery_without_error_warns() {
    let (mut e, f, _) = with_tasks(&[2]);
    assert_eq!(
        start_recovery(&mut e, &f).warnings,
        Warnings::NOT_IN_RECOVERY
    );
    let step = e.recovery_finish(&f.regs);
    let finished = finish(&mut e, &f, step);
    assert_eq!(finished.warnings, Warnings::NOT_IN_RECOVERY);
    assert_eq!(finished.completions.status(tag(2)), REQUEUE);
    // Recovery start while another operation waits ends at once.
    let step = e.off(&Fake::new().regs, &());
    assert_eq!(step, Step::Done(Finished::default()));
    f.set_halts(false);
    f.set(CQCTL::OFFSET, 0);
    let step = e.recovery_start(&f.regs, &f);
    assert!(matches!(step, Step::Wait(_)));
    assert_eq!(
        e.recovery_start(&f.regs, &f),
        Step::Done(Finished {
            warnings: Warnings::NOT_IN_RECOVERY,
            ..Finished::default()
        })
    );
}

#[test]
fn drive_gives_up_after_bounded_waits() {
    let (mut e, f, _) = enabled(cfg(true));
    let finished = e.drive(&f.regs, &f, Step::Done(Finished::default()), |_| {
        panic!("no wait")
    });
    assert_eq!(finished, Finished::default());
    let mut calls = 0;
    let endless = Step::Wait(Wait {
        condition: WaitCondition::Halted,
        timeout_us: 1,
    });
    // `resume` without an operation ends the loop after one wait.
    let finished = e.drive(&f.regs, &f, endless, |_| calls += 1);
    assert_eq!(calls, 1);
    assert_eq!(finished, Finished::default());
}

#[test]
fn default_hooks_do_nothing() {
    let mut e = Cqhci::new(cfg(true)).unwrap();
    let p = Fake::new();
    let mut m = Mem::for_engine(&e);
    e.enable(&p.regs, &(), CARD, &mut m.lend()).unwrap();
    e.issue_data(
        &p.regs,
        &(),
        &mut m.lend(),
        tag(0),
        &read(1),
        [seg(0x1000, 512)],
    )
    .unwrap();
    let step = e.off(&p.regs, &());
    e.drive(&p.regs, &(), step, |_| {});
    let dump = Cqhci::dump(&p.regs, &());
    assert_eq!(dump.entries().len(), 23);
    assert!(p.hooks().is_empty());
}

#[test]
fn disable_during_recovery_skips_the_halt() {
    let (mut e, f, _) = timed_out(0);
    f.clear_writes();
    assert_eq!(e.disable(&f.regs, &f), Step::Done(Finished::default()));
    assert_eq!(f.writes(), [(CQCFG::OFFSET, 0x1100)]);
    assert!(f.hooks().is_empty());
    assert!(!e.is_enabled());
}

#[test]
fn recovery_start_when_already_halted() {
    let (mut e, f, _) = enabled(cfg(true));
    f.set(CQCTL::OFFSET, 1);
    f.clear_writes();
    let step = e.recovery_start(&f.regs, &f);
    assert_eq!(
        step,
        Step::Done(Finished {
            warnings: Warnings::NOT_IN_RECOVERY,
            ..Finished::default()
        })
    );
    assert!(
        f.writes().is_empty(),
        "no halt request and no interrupt change"
    );
    assert_eq!(f.hooks(), ["disable(recovery)"]);
    assert!(!e.is_on());
}

#[test]
fn warnings_are_distinct() {
    let all = [
        Warnings::STUCK_ON,
        Warnings::HALT_FAILED,
        Warnings::CLEAR_FAILED,
        Warnings::NOT_IN_RECOVERY,
    ];
    for (i, a) in all.iter().enumerate() {
        assert!(!a.is_empty());
        for (j, b) in all.iter().enumerate() {
            assert_eq!(a.contains(*b), i == j);
        }
    }
    assert!(Warnings::default().is_empty());
}

#[test]
fn waits_poll_cqctl() {
    let f = Fake::new();
    let halt = Wait {
        condition: WaitCondition::Halted,
        timeout_us: 100,
    };
    f.set(CQCTL::OFFSET, 0x1);
    assert!(halt.poll(&f.regs, 10));
    assert_eq!(f.regs.model().waited_us, 0);
    f.set(CQCTL::OFFSET, 0x100);
    assert!(!halt.poll(&f.regs, 10));
    // Eleven reads 10 µs apart cover the 100 µs: ten waits between them.
    assert_eq!(f.regs.model().waited_us, 100);
    let cleared = Wait {
        condition: WaitCondition::TasksCleared,
        timeout_us: 3,
    };
    assert!(!cleared.poll(&f.regs, 0), "an interval of 0 polls every µs");
    assert_eq!(f.regs.model().waited_us, 100 + 3);
    f.set(CQCTL::OFFSET, 0x1);
    assert!(cleared.poll(&f.regs, 0));
    assert!(WaitCondition::Halted.holds(CQCTL::from_raw(0x1)));
    assert!(!WaitCondition::TasksCleared.holds(CQCTL::from_raw(0x100)));
}

#[test]
fn values_too_wide_for_their_fields_are_refused() {
    let (mut e, f, mut m) = enabled(cfg(true));
    let task = DataTask {
        context: 16,
        ..read(1)
    };
    assert_eq!(
        e.issue_data(&f.regs, &f, &mut m.lend(), tag(0), &task, [seg(0, 512)])
            .err(),
        Some(Error::ValueTooWide)
    );
    assert_eq!(
        e.issue_dcmd(&f.regs, &f, &mut m.lend(), &dcmd(64, DcmdResponse::None))
            .err(),
        Some(Error::ValueTooWide)
    );
    assert!(f.writes().is_empty(), "nothing reaches the controller");
    assert!(e.in_flight().is_empty());
}
