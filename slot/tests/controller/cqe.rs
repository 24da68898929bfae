// SPDX-License-Identifier: GPL-2.0

//! The CQHCI engine (`cqhci::Cqhci`) on the slot's hardware queue, run by the slot logic the
//! kernel runs (`slot::command_queue`, `slot::interrupt`), driving the MSDC model's CQHCI
//! block through the controller's hooks (`msdc::cqe`), with an eMMC brought up and switched
//! to command queueing by the legacy path: enable and disable on the MSDC side, queued
//! transfers, a direct command, host-detected errors through
//! `Controller::command_queue_event`, the MMC core's recovery with its legacy CMD12 and
//! CMD48, and handing the bus back to the legacy path.
//!
//! Register values are written out from upstream's bit definitions (mtk-sd.c) or read with
//! the model's own register types, never produced by the code under test.

use std::cell::{Cell, RefMut};

use cqhci::regs::{Tag, CQCRDCT};
use cqhci::{CardInfo, CompletionStatus, Cqhci, Direction, HostError, TaskError, TaskMask};
use mmc_request::{Command, Request, RequestResult, Segment};
use models::cqhci::Fault as CqFault;
use models::emmc::{Card, CardConfig, CardState, ReadyOrder, PARTITION_UNIT};
use models::latency::{Latency, ResponseLength};
use models::msdc::regs as model;
use models::msdc::CardSlot;
use models::msdc::Violation;
use msdc::clock::Timing;
use msdc::controller::{CardDetect, HostSetup, HwError, Progress};
use msdc::cqe::{send_status_idle_timer, CqeEvent, ENGINE_CONFIG, SEND_STATUS_IDLE_NS};
use msdc::dma::DmaAddressing;
use msdc::soc;
use registers::Io;
use slot::command_queue::{self, QueueEvent, TaskEnd};

use crate::block::Attempt;
use crate::emmc::emmc_init;
use crate::rig::{
    block_request, command, flags, patterned, request, BoardRuns, Host, HostSlot, Rig, DATA_OFFSET,
    SOURCE_HZ, TASK_MEMORY_AT, TASK_MEMORY_LEN,
};
use crate::slot::{Issue, QueueSide};

/// The RCA the MMC core gives the eMMC.
const RCA: u32 = 1;
/// The MSDC bus clock the block's timer runs on (the glue reads it from `h_clk`).
const HCLK_HZ: u32 = 273_000_000;
/// Card size: 256 sectors.
const SECTORS: usize = 256;
/// Blocks of each task in these tests, and the data buffer per slot.
const TASK_BLOCKS: u16 = 8;
const TASK_LEN: usize = TASK_BLOCKS as usize * 512;
/// The data window up to the end of the engine's descriptor memory, which the bench puts
/// after 32 task buffers.
const WINDOW_LEN: usize = TASK_MEMORY_AT + TASK_MEMORY_LEN;
/// The slot of the direct command (the engine's last).
const DCMD_SLOT: u32 = 31;
/// SWITCH (CMD6) writing 1 to EXT_CSD FLUSH_CACHE (byte 32): a cache flush.
const FLUSH_ARGUMENT: u32 = 3 << 24 | 32 << 16 | 1 << 8;
/// SWITCH (CMD6) writing 1 to EXT_CSD CMDQ_MODE_EN (byte 15).
const ENABLE_QUEUE_ARGUMENT: u32 = 3 << 24 | 15 << 16 | 1 << 8;
/// CMD48 CMDQ_TASK_MGMT argument: discard the whole queue.
const DISCARD_QUEUE: u32 = 1;
/// SWITCH (CMD6) writing EXT_CSD PARTITION_CONFIG (byte 179): its low three bits select the
/// partition commands access (0 user area, 1 and 2 the boot partitions).
const fn partition_access(partition: u32) -> u32 {
    3 << 24 | 179 << 16 | partition << 8
}

/// The simulated board's runs (`simboard/board.rs`: `STEPS_PER_RUN`).
const BOARD: BoardRuns = BoardRuns { steps: 8 };
/// The bus the eMMC runs at after `emmc_init`: 50 MHz, eight lines, single data rate.
const BUS_HZ: u32 = 50_000_000;
const BUS_WIDTH: u8 = 8;
/// Where the big buffers of the board tests lie in the data window: after the engine's
/// descriptor memory, two of 512 KiB.
const BIG_AT: u64 = WINDOW_LEN as u64;
const BIG_LEN: usize = 512 * 1024;

/// Bits of mtk-sd.c: `MSDC_INT_CMDQ`, `MSDC_INT_CDSC`, `MSDC_INT_SDIOIRQ`, and
/// `MSDC_PB1_BUSY_CHECK_SEL` (`MSDC_PATCH_BIT1` bit 7).
const INT_CMDQ: u32 = 1 << 28;
const INT_CDSC: u32 = 1 << 1;
const INT_SDIOIRQ: u32 = 1 << 7;
const INT_CMDRDY: u32 = 1 << 8;
const INT_CMDTMO: u32 = 1 << 9;
const INT_RSPCRCERR: u32 = 1 << 10;
const INT_DATTMO: u32 = 1 << 14;
const INT_DATCRCERR: u32 = 1 << 15;
const BUSY_CHECK_SEL: u32 = 1 << 7;

/// Register offsets, from the model's definitions.
const MSDC_INT: usize = model::MSDC_INT::OFFSET;
const MSDC_INTEN: usize = model::MSDC_INTEN::OFFSET;
const MSDC_PATCH_BIT1: usize = model::MSDC_PATCH_BIT1::OFFSET;
const SDC_CFG: usize = model::SDC_CFG::OFFSET;
const CQCFG: usize = model::CQHCI_BASE + models::cqhci::regs::CQCFG::OFFSET;
const CQSSC1_AT: usize = model::CQHCI_BASE + models::cqhci::regs::CQSSC1::OFFSET;

/// `SDC_CFG` timeout counters at the 50 MHz high-speed clock (20 ns), by upstream's
/// `msdc_timeout_cal`: 1 s is 5e7 clocks, 48 units of 2^20, so DTOC 47; 20 s is 1e9 clocks,
/// 954 units, so WRDTOC 953; a 100 ms legacy read is 5e6 clocks, 5 units, DTOC 4.
const DTOC_1S_AT_50MHZ: u32 = 47;
const WRDTOC_20S_AT_50MHZ: u32 = 953;
const DTOC_100MS_AT_50MHZ: u32 = 4;

/// The SoC generation with a CQHCI block (MT8183, and MT8192/MT8195 through the DT fallback).
fn cqe_config() -> HostSetup {
    HostSetup {
        soc: &soc::MT8183,
        source_hz: SOURCE_HZ,
        addressing: DmaAddressing::Bits36,
        auto_cmd23: true,
        board: msdc::tuning::BoardTuning::defaults(false),
    }
}

/// A card with `SECTORS` sectors filled with a pattern, and a copy of it.
fn storage() -> (Vec<u8>, Vec<u8>) {
    patterned(SECTORS * 512)
}

fn rig<'s>(storage: &'s mut [u8]) -> Rig<Card<'s>> {
    Rig::with_cqhci(&cqe_config(), Card::new(storage, 32, ReadyOrder::Immediate))
}

fn field(value: u32, hi: u32, lo: u32) -> u32 {
    (value >> lo) & ((1 << (hi - lo + 1)) - 1)
}

/// A recognisable buffer for task `tag`.
fn task_pattern(tag: u32) -> Vec<u8> {
    (0..TASK_LEN)
        .map(|i| (i as u32 * 13 + tag * 101 + 7) as u8)
        .collect()
}

/// A data task to issue: its slot, direction, first sector and length, and its buffer
/// (an offset into the data window) cut into segments of `segment_len` bytes.
#[derive(Clone, Copy, Debug)]
struct TaskSpec {
    slot: u32,
    direction: Direction,
    lba: u32,
    blocks: u16,
    buffer: u64,
    segment_len: u32,
}

/// The MMC core's side of the queueing slot: what the slot logic hands back of the tasks.
struct CqeCore {
    /// The last completion status per slot.
    status: Cell<[Option<CompletionStatus>; 32]>,
    /// Completions so far.
    completions: Cell<u32>,
    /// The slot whose request's recovery notifier ran.
    notified: Cell<Option<Tag>>,
    /// Completion bits the engine found for slots that held no task.
    spurious: Cell<TaskMask>,
}

impl<'r, C: CardSlot> QueueSide<'r, Rig<C>> for CqeCore {
    type Queued = Issue;

    fn dispatching(&self, _slot: &HostSlot<'r, C, Self>, tag: u8, _depth: u8) {
        panic!("a slot without a software queue dispatched tag {tag}");
    }

    fn complete_queued(&self, _slot: &HostSlot<'r, C, Self>, issue: Issue, _: &RequestResult) {
        panic!(
            "tag {}: a task completed as a software queue's",
            issue.id.tag
        );
    }

    /// `mmc_cqe_request_done`: recorded under the task's slot.
    fn complete_task(&self, _slot: &HostSlot<'r, C, Self>, issue: Issue, end: TaskEnd) {
        let mut status = self.status.get();
        status[usize::from(issue.id.tag)] = Some(end.status);
        self.status.set(status);
        self.completions.set(self.completions.get() + 1);
    }

    /// `mmc_cqe_recovery_notifier`.
    fn notify_recovery(&self, issue: &Issue) {
        self.notified.set(Some(tag(u32::from(issue.id.tag))));
    }

    /// Completions for slots that held no task are recorded; nothing else is expected.
    fn cqe_event(&self, event: QueueEvent) {
        match event {
            QueueEvent::SpuriousCompletions(mask) => self
                .spurious
                .set(TaskMask::from_bits(self.spurious.get().bits() | mask)),
            _ => panic!("CQHCI: {event:?}"),
        }
    }
}

/// A queueing slot: the slot logic the kernel runs with its CQHCI engine (`slot::interrupt`
/// and `slot::command_queue`), the legacy host for the MMC core's own commands, and what
/// came back.
struct Queue<'r, 's> {
    host: Host<'r, Card<'s>, CqeCore>,
    /// Issues so far, which number them.
    issues: u32,
    /// The error events the MSDC latched with each CMDQ event the interrupt handler
    /// acknowledged, in order: what mtk-sd.c's `msdc_cqe_irq` passes to `cqhci_irq` (a
    /// response CRC error, else a command timeout, as the command's error; a data CRC
    /// error, else a data timeout, as the data's).
    cmdq_errors: Vec<u32>,
}

impl<'r, 's> Queue<'r, 's> {
    /// Brings the eMMC up through the legacy path (8-bit, 50 MHz), enables its command
    /// queue with CMD6, and gives the slot its engine; not enabled yet.
    fn new(rig: &'r Rig<Card<'s>>) -> Self {
        let core = CqeCore {
            status: Cell::new([None; 32]),
            completions: Cell::new(0),
            notified: Cell::new(None),
            spurious: Cell::new(TaskMask::EMPTY),
        };
        let mut host = Host::with_side(rig, core);
        emmc_init(&mut host);
        host.ok(6, ENABLE_QUEUE_ARGUMENT, flags::R1B | flags::AC);
        assert!(rig.card().ext_csd().cmdq_enabled());
        let cap = rig.read::<cqhci::regs::CQCAP>();
        let idle_timer = send_status_idle_timer(HCLK_HZ, cap, SEND_STATUS_IDLE_NS);
        let engine = Cqhci::new(ENGINE_CONFIG).expect("engine");
        let layout = engine.layout();
        assert!(layout.tdl_len() + layout.transfer_area_len() <= TASK_MEMORY_LEN);
        assert!(buffer(32) <= TASK_MEMORY_AT as u64, "task buffers below it");
        host.slot.install_hardware_queue(engine, idle_timer);
        Self {
            host,
            issues: 0,
            cmdq_errors: Vec::new(),
        }
    }

    fn rig(&self) -> &'r Rig<Card<'s>> {
        self.host.rig
    }

    /// The slot logic's view of the bench.
    fn slot(&self) -> &HostSlot<'r, Card<'s>, CqeCore> {
        &self.host.slot
    }

    /// The slot's engine, under its lock.
    fn engine(&self) -> RefMut<'_, Cqhci> {
        RefMut::map(self.slot().hardware_queue(), |queue| &mut queue.engine)
    }

    /// `cqe_enable`.
    fn enable(&mut self) {
        let card = CardInfo {
            command_queue_enabled: true,
            rca: RCA as u16,
        };
        let depth = command_queue::enable(self.slot(), card).expect("a CQHCI engine");
        depth.expect("cqe_enable");
    }

    /// Issues one data task of `TASK_BLOCKS` blocks per `(slot, direction)`, all before the
    /// model runs, each buffer in two segments.
    fn issue(&mut self, tasks: &[(u32, Direction)]) {
        let tasks: Vec<TaskSpec> = tasks
            .iter()
            .map(|&(slot, direction)| TaskSpec {
                slot,
                direction,
                lba: lba(slot),
                blocks: TASK_BLOCKS,
                buffer: buffer(slot),
                segment_len: TASK_LEN as u32 / 2,
            })
            .collect();
        self.issue_tasks(&tasks);
    }

    /// Issues the data tasks `tasks` (`cqe_request`), all before the model runs.
    fn issue_tasks(&mut self, tasks: &[TaskSpec]) {
        let rig = self.rig();
        rig.holding(|| {
            for spec in tasks {
                let bus = rig.base + DATA_OFFSET + spec.buffer;
                let len = u32::from(spec.blocks) * 512;
                let segments = (0..len.div_ceil(spec.segment_len))
                    .map(|n| {
                        let at = n * spec.segment_len;
                        Segment {
                            bus_address: bus + u64::from(at),
                            len: spec.segment_len.min(len - at),
                        }
                    })
                    .collect();
                let request = block_request(
                    spec.direction == Direction::Write,
                    spec.lba,
                    u32::from(spec.blocks),
                    true,
                );
                self.send(spec.slot, request, segments);
            }
        });
    }

    /// Issues the request of `command` without data, which runs as a direct command.
    fn issue_dcmd(&mut self, command: Command) {
        self.send(DCMD_SLOT, request(command), Vec::new());
    }

    /// `cqe_request` for `request` under the block-layer tag `slot`, which the engine must
    /// take.
    fn send(&mut self, slot: u32, request: Request, segments: Vec<Segment>) {
        self.issues += 1;
        let issue = Issue {
            id: Attempt {
                job: self.issues as usize,
                number: 1,
                tag: slot as u8,
            },
            request,
            segments,
            for_mmc_card: true,
        };
        if let Err(refused) = command_queue::issue(self.slot(), issue) {
            panic!("slot {slot}: {:?}", refused.error);
        }
    }

    /// One run of the glue's interrupt handler (`slot::interrupt`); false if the line is
    /// low.
    fn interrupt(&mut self) -> bool {
        const ERRORS: u32 = INT_RSPCRCERR | INT_CMDTMO | INT_DATCRCERR | INT_DATTMO;
        let card_events = self.host.card_events();
        let acknowledged = self.rig().acknowledgements.borrow().len();
        let Some(progress) = self.host.interrupt() else {
            return false;
        };
        let acknowledgements = self.rig().acknowledgements.borrow();
        self.cmdq_errors.extend(
            acknowledgements[acknowledged..]
                .iter()
                .filter(|&&ack| ack & INT_CMDQ != 0)
                .map(|&ack| ack & ERRORS),
        );
        drop(acknowledgements);
        assert_eq!(
            self.host.card_events(),
            card_events,
            "no SDIO or card-detect event"
        );
        assert!(
            matches!(progress, Progress::Pending),
            "no request of the core's completes"
        );
        true
    }

    /// Services interrupts until the line stays low.
    fn pump(&mut self) {
        for _ in 0..64 {
            if !self.interrupt() {
                return;
            }
        }
        panic!("interrupt line stuck");
    }

    /// `cqe_disable`. The bench's slot fails the test on any warning of the engine's, and
    /// on a wait never met (the engine warns of it).
    fn disable(&mut self) {
        assert!(command_queue::disable(self.slot()).is_some(), "finished");
    }

    /// `cqe_off`.
    fn off(&mut self) {
        command_queue::off(self.slot());
    }

    /// `cqe_recovery_start`.
    fn recovery_start(&mut self) {
        command_queue::recovery_start(self.slot());
    }

    /// `cqe_recovery_finish`.
    fn recovery_finish(&mut self) {
        command_queue::recovery_finish(self.slot());
    }

    /// `cqe_timeout` for the request of the task in `slot`: `Some(recovery_needed)` for a
    /// task still queued.
    fn timeout(&mut self, slot: u32) -> Option<bool> {
        let id = self.slot().hardware_queue().tasks[slot as usize]
            .as_ref()
            .map(|task| task.request.id)
            .expect("a task in the slot");
        command_queue::timeout(self.slot(), &id)
    }

    /// The core's CMD12 of recovery, through the legacy path; its error is ignored (the
    /// card may have no transfer to stop).
    fn stop_transmission(&mut self) {
        self.host.command(12, 0, flags::R1B_NO_CRC | flags::AC);
    }

    /// CMD13 through the legacy path, which must find the card in the transfer state.
    fn assert_card_in_tran(&mut self) {
        let status = self.host.ok(13, RCA << 16, flags::R1 | flags::AC)[0];
        assert_eq!(field(status, 12, 9), 4, "tran: {status:#x}");
    }

    /// The core's CMD48 of recovery, through the legacy path: the card discards its queue.
    fn discard_queue(&mut self) {
        let discards = self.rig().card().stats().discards;
        let discard = self
            .host
            .command(48, DISCARD_QUEUE, flags::R1B_NO_CRC | flags::AC);
        assert_eq!(discard.error, None);
        assert_eq!(self.rig().card().stats().discards, discards + 1);
    }

    /// `mmc_cqe_recovery`: recovery start, CMD12, the busy poll with CMD13, CMD48,
    /// recovery finish.
    fn recover(&mut self) {
        self.recovery_start();
        self.stop_transmission();
        self.assert_card_in_tran();
        self.discard_queue();
        self.recovery_finish();
    }

    fn status(&self, slot: u32) -> Option<CompletionStatus> {
        self.host.slot.side.status.get()[slot as usize]
    }

    /// Task completions so far.
    fn completions(&self) -> u32 {
        self.host.slot.side.completions.get()
    }

    /// The slot whose request's recovery notifier ran.
    fn notified(&self) -> Option<Tag> {
        self.host.slot.side.notified.get()
    }

    /// Completion bits the engine found for slots that held no task.
    fn spurious(&self) -> TaskMask {
        self.host.slot.side.spurious.get()
    }

    /// Enables the queue, arms `fault` in the CQHCI model and runs `tasks` into it, which
    /// puts the engine into recovery.
    fn fail(&mut self, fault: CqFault, tasks: &[(u32, Direction)]) {
        self.enable();
        assert!(self.rig().model().cqhci_mut().unwrap().inject(fault));
        self.issue(tasks);
        self.pump();
        assert!(self.engine().recovery_pending());
    }

    /// Asserts that the hooks of the last engine call ran into `fault`, which reached the
    /// controller and was logged by the slot from there, once.
    fn assert_fault_logged(&self, fault: HwError) {
        assert_eq!(self.host.take_hardware_fault(), Some(fault));
        assert_eq!(self.host.ctrl().take_hardware_fault(), None, "logged once");
        assert_eq!(self.host.take_hardware_fault(), None);
    }

    /// Asserts that neither model saw a violation, and that the slot logged no hardware
    /// fault the test did not take.
    fn assert_clean(&self) {
        let rig = self.rig();
        rig.assert_no_violations();
        assert_eq!(rig.model().cqhci().unwrap().violations(), (0, None));
        assert_eq!(self.host.take_hardware_fault(), None, "hardware faults");
    }
}

fn tag(slot: u32) -> Tag {
    Tag::new(slot).expect("slot")
}

/// The first sector of task `slot`.
fn lba(slot: u32) -> u32 {
    slot * u32::from(TASK_BLOCKS)
}

/// The data window offset of slot `slot`'s buffer.
fn buffer(slot: u32) -> u64 {
    u64::from(slot) * TASK_LEN as u64
}

fn sectors(storage: &[u8], slot: u32) -> &[u8] {
    let at = lba(slot) as usize * 512;
    &storage[at..at + TASK_LEN]
}

/// Runs `test` on a bench (`make`) with an eMMC of `SECTORS` patterned sectors behind
/// the glue of a queueing slot, brought up and not yet enabled ([`Queue::new`]); `test`
/// also gets the copy of the card's first contents to compare with.
fn with_queue(
    make: for<'s> fn(&'s mut [u8]) -> Rig<Card<'s>>,
    test: impl for<'r, 's> FnOnce(&'r Rig<Card<'s>>, &mut Queue<'r, 's>, &[u8]),
) {
    let (mut storage, expect) = storage();
    let rig = make(&mut storage);
    let mut queue = Queue::new(&rig);
    test(&rig, &mut queue, &expect);
}

/// [`with_queue`] on the plain bench ([`rig`]).
fn on_bench(test: impl for<'r, 's> FnOnce(&'r Rig<Card<'s>>, &mut Queue<'r, 's>, &[u8])) {
    with_queue(rig, test);
}

/// [`with_queue`] on the board bench ([`board_rig`]).
fn on_board(test: impl for<'r, 's> FnOnce(&'r Rig<Card<'s>>, &mut Queue<'r, 's>, &[u8])) {
    with_queue(board_rig, test);
}

#[test]
fn enable_gives_the_queue_the_msdc_side_and_disable_takes_it_back() {
    on_bench(|rig, queue, _| {
        // Standing interrupts the controller owns; they must survive the queue.
        queue
            .host
            .ctrl()
            .set_card_detect(rig, CardDetect::Internal { active_high: false });
        queue.host.ctrl().enable_sdio_irq(rig, true);
        assert_eq!(rig.peek(MSDC_INTEN), INT_CDSC | INT_SDIOIRQ);
        // MT8183 has busy_check: initialisation leaves BUSY_CHECK_SEL clear.
        assert_eq!(rig.peek(MSDC_PATCH_BIT1) & BUSY_CHECK_SEL, 0);
        assert_eq!(field(rig.peek(SDC_CFG), 31, 24), DTOC_100MS_AT_50MHZ);

        queue.enable();
        assert_eq!(rig.peek(MSDC_INTEN), INT_CMDQ | INT_CDSC | INT_SDIOIRQ);
        assert_ne!(rig.peek(MSDC_PATCH_BIT1) & BUSY_CHECK_SEL, 0);
        let sdc_cfg = rig.peek(SDC_CFG);
        assert_eq!(field(sdc_cfg, 31, 24), DTOC_1S_AT_50MHZ);
        assert_eq!(field(sdc_cfg, 14, 2), WRDTOC_20S_AT_50MHZ);
        // The model's CQCAP says ITCFMUL 3: 273 MHz × 2.35 µs = 641 clocks, CBC 0.
        assert_eq!(rig.peek(CQSSC1_AT), 641);
        assert_eq!(rig.peek(CQCFG) & 1, 1, "CQ_EN");
        // The hooks ran into no fault: the slot logged none, and the controller holds none.
        assert_eq!(queue.host.take_hardware_fault(), None);
        assert_eq!(queue.host.ctrl().take_hardware_fault(), None);

        queue.disable();
        assert!(!queue.engine().is_enabled());
        assert_eq!(rig.peek(MSDC_INTEN), INT_CDSC | INT_SDIOIRQ);
        assert_eq!(rig.peek(MSDC_PATCH_BIT1) & BUSY_CHECK_SEL, 0);
        assert_eq!(rig.peek(CQCFG) & 1, 0, "CQ_EN");
        queue.assert_clean();
    });
}

#[test]
fn queued_writes_and_reads_are_byte_exact() {
    on_bench(|rig, queue, _| {
        queue.enable();
        for slot in 0..4 {
            rig.fill(buffer(slot), &task_pattern(slot));
        }
        queue.issue(&[
            (0, Direction::Write),
            (1, Direction::Write),
            (2, Direction::Write),
            (3, Direction::Write),
        ]);
        queue.pump();
        for slot in 0..4 {
            assert_eq!(queue.status(slot), Some(CompletionStatus::Done), "{slot}");
            assert_eq!(
                sectors(rig.card().storage(), slot),
                task_pattern(slot).as_slice(),
                "{slot}"
            );
        }

        // Read them back into other slots' buffers, which start out zeroed.
        queue.issue(&[(8, Direction::Read), (9, Direction::Read)]);
        queue.pump();
        for slot in 8..10 {
            assert_eq!(queue.status(slot), Some(CompletionStatus::Done), "{slot}");
            assert_eq!(
                rig.data(buffer(slot), TASK_LEN),
                sectors(rig.card().storage(), slot),
                "{slot}"
            );
        }
        assert_eq!(queue.completions(), 6);
        // No CMDQ event came with an error event.
        let errors = &queue.cmdq_errors;
        assert!(!errors.is_empty());
        assert!(errors.iter().all(|&e| e == 0), "{errors:x?}");
        assert_eq!(rig.model().cqhci().unwrap().completions(), 6);
        assert_eq!(rig.card().stats().tasks_completed, 6);
        // Every event was acknowledged: the line is low and nothing is latched.
        assert_eq!(rig.peek(MSDC_INT), 0);
        queue.assert_clean();
    });
}

#[test]
fn a_cache_flush_runs_as_a_direct_command() {
    on_bench(|rig, queue, _| {
        queue.enable();
        let flushes = rig.card().stats().flushes;
        queue.issue_dcmd(command(6, FLUSH_ARGUMENT, flags::R1B | flags::AC));
        queue.pump();
        assert_eq!(queue.status(31), Some(CompletionStatus::Done));
        assert_eq!(rig.card().stats().flushes, flushes + 1);
        // The R1b card status: transfer state (bits 12:9), no error.
        let response = rig.read::<CQCRDCT>().raw();
        assert_eq!(field(response, 12, 9), 4, "{response:#x}");
        queue.assert_clean();
    });
}

#[test]
fn a_data_crc_error_reaches_the_engine_and_recovery_completes_every_task() {
    on_bench(|rig, queue, expect| {
        // Both are queued on the card before the first one runs into the error.
        queue.fail(
            CqFault::DataCrc { tag: 0 },
            &[(0, Direction::Read), (1, Direction::Read)],
        );
        // A data CRC error and no command error.
        assert_eq!(queue.cmdq_errors.first(), Some(&INT_DATCRCERR));
        assert_eq!(queue.notified(), Some(tag(0)));
        assert!(queue.engine().recovery_pending());
        assert_eq!(queue.completions(), 0, "nothing completes before recovery");
        assert_eq!(rig.peek(MSDC_INT) & INT_DATCRCERR, 0, "acknowledged");

        let (resets, stops) = (rig.resets.get(), rig.dma_stops.get());
        queue.recovery_start();
        assert_eq!(rig.dma_stops.get(), stops + 1, "DMA stopped");
        assert_eq!(rig.resets.get(), resets + 1, "controller reset");
        assert_eq!(rig.peek(MSDC_INTEN) & INT_CMDQ, 0);
        assert_eq!(queue.host.take_hardware_fault(), None);
        // The core's legacy commands, through the controller's request path.
        queue.stop_transmission();
        queue.discard_queue();
        queue.recovery_finish();
        assert_eq!(
            queue.status(0),
            Some(CompletionStatus::Failed(TaskError::Crc))
        );
        assert_eq!(queue.status(1), Some(CompletionStatus::Requeue));
        assert_eq!(queue.completions(), 2);
        assert!(!queue.engine().recovery_pending());
        assert!(queue.engine().in_flight().is_empty());

        // The block layer retries both; the queue runs again.
        queue.issue(&[(0, Direction::Read), (1, Direction::Read)]);
        assert_eq!(rig.peek(MSDC_INTEN) & INT_CMDQ, INT_CMDQ);
        queue.pump();
        for slot in 0..2 {
            assert_eq!(queue.status(slot), Some(CompletionStatus::Done));
            assert_eq!(rig.data(buffer(slot), TASK_LEN), sectors(expect, slot));
        }
        queue.assert_clean();
    });
}

#[test]
fn a_command_timeout_reaches_the_engine_as_a_command_error() {
    on_bench(|rig, queue, expect| {
        queue.fail(CqFault::CommandTimeout { tag: 2 }, &[(2, Direction::Read)]);
        // A command timeout and no data error.
        assert_eq!(queue.cmdq_errors.first(), Some(&INT_CMDTMO));
        assert_eq!(queue.notified(), Some(tag(2)));
        // The card still holds the task CMD46 never reached: CMD48 discards it.
        queue.recover();
        assert_eq!(
            queue.status(2),
            Some(CompletionStatus::Failed(TaskError::Timeout))
        );
        queue.issue(&[(2, Direction::Read)]);
        queue.pump();
        assert_eq!(queue.status(2), Some(CompletionStatus::Done));
        assert_eq!(rig.data(buffer(2), TASK_LEN), sectors(expect, 2));
        queue.assert_clean();
    });
}

#[test]
fn command_queue_event_decodes_and_acknowledges_only_its_own_events() {
    on_bench(|rig, queue, _| {
        queue
            .host
            .ctrl()
            .set_card_detect(rig, CardDetect::Internal { active_high: false });
        queue.enable();
        let injected = &rig.misbehave.injected_events;
        let mut ctrl = queue.host.ctrl();

        // Both CRC errors win over the timeouts; card detect and SDIO stay pending.
        injected.set(
            INT_CMDQ
                | INT_RSPCRCERR
                | INT_CMDTMO
                | INT_DATCRCERR
                | INT_DATTMO
                | INT_CMDRDY
                | INT_CDSC
                | INT_SDIOIRQ,
        );
        assert_eq!(
            ctrl.command_queue_event(rig),
            Some(CqeEvent {
                cmd_error: Some(HostError::Crc),
                data_error: Some(HostError::Crc),
            })
        );
        assert_eq!(injected.get(), INT_CDSC | INT_SDIOIRQ);

        injected.set(INT_CMDQ | INT_CMDTMO | INT_DATTMO);
        assert_eq!(
            ctrl.command_queue_event(rig),
            Some(CqeEvent {
                cmd_error: Some(HostError::Timeout),
                data_error: Some(HostError::Timeout),
            })
        );
        assert_eq!(injected.get(), 0);

        // Without CMDQ nothing is consumed, not even its error bits.
        injected.set(INT_DATCRCERR | INT_CDSC);
        let writes = rig.writes.get();
        assert_eq!(ctrl.command_queue_event(rig), None);
        assert_eq!(rig.writes.get(), writes);
        assert_eq!(injected.get(), INT_DATCRCERR | INT_CDSC);
        // Card detect is the controller's.
        assert!(ctrl.card_detect_event(rig));
        injected.set(0);
        queue.assert_clean();
    });
}

#[test]
fn command_queue_event_leaves_the_legacy_path_alone() {
    on_bench(|rig, queue, _| {
        // CMDQ pending but not enabled (the queue is off): nothing to do.
        rig.misbehave.injected_events.set(INT_CMDQ | INT_DATCRCERR);
        let writes = rig.writes.get();
        assert_eq!(queue.host.ctrl().command_queue_event(rig), None);
        assert_eq!(rig.writes.get(), writes);
        rig.misbehave.injected_events.set(0);

        // A legacy request in flight whose events would look like the queue's, were CMDQ
        // enabled by mistake: they stay the request's.
        queue
            .host
            .start(&request(command(13, RCA << 16, flags::R1 | flags::AC)), &[])
            .expect("start");
        {
            let mut model = rig.model();
            let inten = model.read(MSDC_INTEN);
            model.write(MSDC_INTEN, inten | INT_CMDQ);
        }
        rig.misbehave.injected_events.set(INT_CMDQ);
        assert_eq!(queue.host.ctrl().command_queue_event(rig), None);
        assert_ne!(rig.peek(MSDC_INT) & INT_CMDRDY, 0, "left for the request");
        rig.misbehave.injected_events.set(0);
        let result = queue.host.wait().expect("the request completes");
        assert_eq!(result.cmd.error, None);
        assert_eq!(field(result.cmd.response[0], 12, 9), 4);
        queue.assert_clean();
    });
}

#[test]
fn off_hands_the_bus_back_to_the_legacy_path() {
    on_bench(|rig, queue, expect| {
        queue.enable();
        for round in 0..2 {
            queue.issue(&[(round, Direction::Read)]);
            queue.pump();
            assert_eq!(queue.status(round), Some(CompletionStatus::Done));
            assert_eq!(rig.data(buffer(round), TASK_LEN), sectors(expect, round));
            queue.off();
            assert!(!queue.engine().is_on());
            assert_eq!(rig.peek(CQCFG) & 1, 0, "CQ_EN");
            assert_eq!(rig.peek(MSDC_INTEN) & INT_CMDQ, 0);
            // A legacy command now reaches the card.
            queue.assert_card_in_tran();
            let (count, first) = {
                let model = rig.model();
                let (count, first) = model.violations();
                (count, *first)
            };
            assert!(
                !first.contains(&Some(Violation::CommandWhileCqhciActive)),
                "{first:?}"
            );
            assert_eq!(count, 0);
        }
        assert_eq!(rig.card().state(), CardState::Tran);
        queue.assert_clean();
    });
}

#[test]
fn absorbing_the_hooks_keeps_the_data_timeout_right() {
    on_bench(|rig, queue, _| {
        let dtoc = || field(rig.peek(SDC_CFG), 31, 24);
        queue.host.read_ok(8, 0, 512, 1);
        assert_eq!(dtoc(), DTOC_100MS_AT_50MHZ);
        queue.enable();
        assert_eq!(dtoc(), DTOC_1S_AT_50MHZ);
        queue.off();

        // The next legacy data command programs its own timeout again.
        queue.host.read_ok(8, 0, 512, 1);
        assert_eq!(dtoc(), DTOC_100MS_AT_50MHZ);

        // After the queue ran, a clock change rescales the timeout the hooks left: 1 s at
        // 25 MHz (40 ns) is 2.5e7 clocks, 24 units, DTOC 23 (the legacy 100 ms would be 2).
        queue.issue(&[(0, Direction::Read)]);
        queue.pump();
        queue.off();
        assert_eq!(dtoc(), DTOC_1S_AT_50MHZ);
        assert_eq!(
            queue.host.clock(25_000_000, Timing::MmcHighSpeed),
            25_000_000
        );
        assert_eq!(dtoc(), 23);
        queue.host.read_ok(8, 0, 512, 1);
        // 100 ms at 25 MHz: 2.5e6 clocks, 3 units, DTOC 2.
        assert_eq!(dtoc(), 2);
        queue.assert_clean();
    });
}

#[test]
fn a_dma_that_does_not_stop_in_recovery_is_reported_and_reset() {
    on_bench(|rig, queue, _| {
        queue.fail(CqFault::DataCrc { tag: 3 }, &[(3, Direction::Read)]);
        rig.misbehave.pin_dma_active.set(true);
        let resets = rig.resets.get();
        queue.recovery_start();
        queue.assert_fault_logged(HwError::DmaStopTimeout);
        assert_eq!(rig.resets.get(), resets + 1, "reset anyway");
        rig.misbehave.pin_dma_active.set(false);
        queue.stop_transmission();
        queue.discard_queue();
        queue.recovery_finish();
        assert_eq!(
            queue.status(3),
            Some(CompletionStatus::Failed(TaskError::Crc))
        );
        queue.assert_clean();
    });
}

#[test]
fn a_reset_that_fails_in_recovery_is_retried_by_the_next_start() {
    on_bench(|rig, queue, _| {
        queue.fail(CqFault::DataCrc { tag: 5 }, &[(5, Direction::Read)]);
        rig.misbehave.pin_reset.set(true);
        queue.recovery_start();
        queue.assert_fault_logged(HwError::ResetTimeout);
        rig.misbehave.pin_reset.set(false);
        // The next legacy command resets first.
        let resets = rig.resets.get();
        queue.assert_card_in_tran();
        assert_eq!(rig.resets.get(), resets + 1);
        queue.discard_queue();
        queue.recovery_finish();
        assert_eq!(
            queue.status(5),
            Some(CompletionStatus::Failed(TaskError::Crc))
        );
        queue.assert_clean();
    });
}

#[test]
fn a_reset_done_in_recovery_settles_one_left_pending() {
    on_bench(|rig, queue, _| {
        // A reset that timed out leaves one pending for the next start.
        rig.misbehave.pin_reset.set(true);
        assert_eq!(queue.host.ctrl().reset(rig), Err(HwError::ResetTimeout));
        rig.misbehave.pin_reset.set(false);
        queue.fail(CqFault::DataCrc { tag: 5 }, &[(5, Direction::Read)]);
        queue.recovery_start();
        assert_eq!(queue.host.take_hardware_fault(), None);
        // The hooks' reset did it: the next legacy command goes straight out.
        let resets = rig.resets.get();
        queue.assert_card_in_tran();
        assert_eq!(rig.resets.get(), resets);
        queue.discard_queue();
        queue.recovery_finish();
        queue.assert_clean();
    });
}

#[test]
fn a_legacy_read_after_the_queue_uses_the_legacy_data_path() {
    on_bench(|rig, queue, expect| {
        queue.enable();
        queue.issue(&[(4, Direction::Read)]);
        queue.pump();
        queue.off();
        // A multi-block read with auto-CMD23 through the controller, as after `cqe_off`.
        let req = block_request(false, 16, 4, true);
        let result = queue.host.run(&req, &[(0x1_0000, 2048)]);
        assert_eq!(result.first_error(), None, "{result:?}");
        assert_eq!(rig.data(0x1_0000, 2048), expect[16 * 512..20 * 512]);
        queue.assert_clean();
    });
}

#[test]
fn off_clears_events_left_from_the_queue_but_not_card_detect() {
    on_bench(|rig, queue, _| {
        queue
            .host
            .ctrl()
            .set_card_detect(rig, CardDetect::Internal { active_high: false });
        queue.enable();
        // Error and command events the queue's commands latched without CMDQ, and a card
        // detect change.
        let injected = &rig.misbehave.injected_events;
        injected.set(INT_DATCRCERR | INT_CMDRDY | INT_CDSC);
        queue.off();
        assert_eq!(injected.get(), INT_CDSC);
        assert!(queue.host.ctrl().card_detect_event(rig));
        assert_eq!(injected.get(), 0);
        queue.assert_clean();
    });
}

/// A board bench (see `rig.rs`) with an eMMC of `sectors` sectors filled with a pattern.
fn board_rig<'s>(storage: &'s mut [u8]) -> Rig<Card<'s>> {
    Rig::board(
        &cqe_config(),
        Card::new(storage, 32, ReadyOrder::Immediate),
        BOARD,
    )
}

/// Services interrupts and lets the board's timer expire until nothing is left to run; the
/// number of expiries that ran the model.
fn run_board(queue: &mut Queue<'_, '_>, rig: &Rig<Card<'_>>, limit: u32) -> u32 {
    let mut expiries = 0;
    loop {
        queue.pump();
        if !rig.expire() {
            return expiries;
        }
        expiries += 1;
        assert!(expiries <= limit, "the board keeps resuming the model");
    }
}

/// One task of `blocks` blocks at `lba` through slot 3, its buffer at `BIG_AT` in 4 KiB
/// segments (the pages of a user buffer).
fn big_task(direction: Direction, lba: u32, blocks: u16) -> TaskSpec {
    TaskSpec {
        slot: 3,
        direction,
        lba,
        blocks,
        buffer: BIG_AT,
        segment_len: 4096,
    }
}

/// What one task takes on the bus: CMD44, CMD45, one queue status poll and CMD46/47, each
/// with a 48-bit response, and its data (latency model at the test's bus).
fn task_ns(direction: Direction, blocks: u16) -> u64 {
    let l = Latency::EMMC;
    let commands = 4 * l.command_ns(ResponseLength::Short, BUS_HZ);
    let blocks = u64::from(blocks);
    commands
        + match direction {
            Direction::Read => l.read_ns(512, blocks, BUS_WIDTH, false, BUS_HZ),
            Direction::Write => l.write_ns(512, blocks, BUS_WIDTH, false, BUS_HZ),
        }
}

#[test]
fn on_the_board_a_task_of_any_size_takes_one_run_of_three_steps() {
    let mut storage = vec![0u8; 4096 * 512];
    crate::rig::pattern(&mut storage);
    let rig = board_rig(&mut storage);
    let mut queue = Queue::new(&rig);
    queue.enable();
    let written: Vec<u8> = (0..BIG_LEN).map(|i| (i * 31 + i / 4096) as u8).collect();
    // 4 KiB and 512 KiB, write then read back into a cleared buffer.
    for blocks in [8u16, 1024] {
        let len = usize::from(blocks) * 512;
        for direction in [Direction::Write, Direction::Read] {
            if direction == Direction::Write {
                rig.fill(BIG_AT, &written[..len]);
            } else {
                rig.fill(BIG_AT, &vec![0; len]);
            }
            let before = rig.board_stats();
            queue.issue_tasks(&[big_task(direction, 1024, blocks)]);
            assert_eq!(run_board(&mut queue, &rig, 0), 0, "no resume");
            let after = rig.board_stats();
            assert_eq!(queue.status(3), Some(CompletionStatus::Done));
            // CMD44/45, the queue status poll, CMD46/47 with all the data.
            assert_eq!(after.steps - before.steps, 3, "{blocks} {direction:?}");
            assert_eq!(after.runs - before.runs, 1, "{blocks} {direction:?}");
            assert_eq!(after.full_runs, before.full_runs);
            assert_eq!(
                after.elapsed_ns - before.elapsed_ns,
                task_ns(direction, blocks),
                "{blocks} {direction:?}"
            );
            let at = 1024 * 512;
            assert_eq!(&rig.card().storage()[at..at + len], &written[..len]);
            assert_eq!(rig.data(BIG_AT, len), &written[..len]);
        }
    }
    assert!(!rig.timer_armed());
    queue.assert_clean();
}

#[test]
fn on_the_board_queued_tasks_beyond_one_run_go_on_when_its_timer_expires() {
    on_board(|rig, queue, expect| {
        queue.enable();
        let slots: Vec<(u32, Direction)> = (0..16).map(|slot| (slot, Direction::Read)).collect();
        let before = rig.board_stats();
        queue.issue(&slots);
        // 16 fetches, one poll that finds them all ready, 16 executions: 33 steps. Two full
        // runs of eight fetches; then the poll and the first execution, whose completion
        // raises the line and ends the run; the runs while the line stays raised (the
        // handler has not taken it yet) go on to their step limit. A run that stopped with
        // steps or tasks left goes on when the board's timer expires, or earlier when a
        // register write (the interrupt handler's) queues a run.
        let resumes = run_board(queue, rig, 8);
        let stats = rig.board_stats();
        assert_eq!(stats.steps - before.steps, 33);
        assert_eq!(stats.runs - before.runs, 6);
        assert_eq!(stats.full_runs - before.full_runs, 3);
        assert_eq!(stats.resumes - before.resumes, u64::from(resumes));
        assert!((1..=4).contains(&resumes), "{resumes}");
        assert!(!rig.timer_armed());
        for (slot, _) in slots {
            assert_eq!(queue.status(slot), Some(CompletionStatus::Done), "{slot}");
            assert_eq!(rig.data(buffer(slot), TASK_LEN), sectors(expect, slot));
        }
        queue.assert_clean();
    });
}

#[test]
fn on_the_board_a_task_never_ready_polls_at_the_idle_timer_until_cleared() {
    on_board(|rig, queue, _| {
        queue.enable();
        assert!(rig
            .model()
            .cqhci_mut()
            .unwrap()
            .inject(CqFault::Stall { tag: 2 }));
        queue.issue(&[(2, Direction::Read)]);
        // The first run queues the task and polls; every run after it is eight polls, each
        // after the send-status idle timer (the hooks program 641 clocks; the model's CQCAP
        // says a 200 MHz timer): the block waits, it never stops.
        let poll_ns = Latency::EMMC.command_ns(ResponseLength::Short, BUS_HZ);
        let idle_ns = (641u64 * 1_000_000_000).div_ceil(200_000_000);
        for _ in 0..10 {
            let before = rig.board_stats();
            assert!(rig.timer_armed(), "a full run is resumed");
            assert!(rig.expire());
            let after = rig.board_stats();
            assert_eq!(after.steps - before.steps, u64::from(BOARD.steps));
            assert_eq!(
                after.elapsed_ns - before.elapsed_ns,
                u64::from(BOARD.steps) * (poll_ns + idle_ns)
            );
            assert!(!rig.interrupt_line());
        }
        // The block layer's timeout: recovery discards the task with CLEAR ALL TASKS, after
        // which nothing runs and nothing completes.
        assert_eq!(queue.timeout(2), Some(true), "timed out, recovery needed");
        assert_eq!(queue.slot().cqe_events(), [QueueEvent::TaskTimedOut]);
        queue.recover();
        assert_eq!(
            queue.status(2),
            Some(CompletionStatus::Failed(TaskError::Timeout))
        );
        let completions = rig.model().cqhci().unwrap().completions();
        let (steps, armed) = (rig.board_stats().steps, rig.timer_armed());
        assert_eq!(run_board(queue, rig, 1), u32::from(armed));
        assert_eq!(rig.board_stats().steps, steps);
        assert!(!rig.timer_armed());
        assert_eq!(rig.model().cqhci().unwrap().completions(), completions);
        assert_eq!(rig.read::<cqhci::regs::CQTCN>().tcn(), TaskMask::EMPTY);
        queue.assert_clean();
    });
}

/// An eMMC with a user area of `SECTORS` sectors and two boot partitions of 128 KiB, each
/// area filled with its own pattern.
struct Partitions {
    user: Vec<u8>,
    boot: [Vec<u8>; 2],
}

impl Partitions {
    fn new() -> Self {
        let fill = |len: usize, seed: usize| -> Vec<u8> {
            (0..len)
                .map(|i| (i * 7 + seed * 61 + i / 512) as u8)
                .collect()
        };
        Self {
            user: fill(SECTORS * 512, 0),
            boot: [fill(PARTITION_UNIT, 1), fill(PARTITION_UNIT, 2)],
        }
    }
}

#[test]
fn a_queued_read_after_a_legacy_partition_switch_reads_the_selected_partition() {
    let expect = Partitions::new();
    let mut parts = Partitions::new();
    let [boot0, boot1] = &mut parts.boot;
    let card = Card::with_config(
        &mut parts.user,
        [boot0, boot1],
        CardConfig {
            queue_depth: 32,
            order: ReadyOrder::Immediate,
            ..CardConfig::default()
        },
    );
    let rig = Rig::board(&cqe_config(), card, BOARD);
    let mut queue = Queue::new(&rig);
    queue.enable();
    // The MMC core's mmcblkNbootM: switch with CMD6 through the legacy path (after
    // cqe_off), then read sector 0 through the queue; the task works in the partition
    // selected. Back to the user area the same way.
    for (partition, area) in [
        (0, &expect.user),
        (1, &expect.boot[0]),
        (2, &expect.boot[1]),
        (0, &expect.user),
    ] {
        queue.off();
        queue
            .host
            .ok(6, partition_access(partition), flags::R1B | flags::AC);
        queue.assert_card_in_tran();
        assert_eq!(
            rig.card().ext_csd().partition_access(),
            partition as u8,
            "{partition}"
        );
        queue.issue(&[(0, Direction::Read)]);
        run_board(&mut queue, &rig, 0);
        assert_eq!(queue.status(0), Some(CompletionStatus::Done), "{partition}");
        assert_eq!(
            rig.data(buffer(0), TASK_LEN),
            area[..TASK_LEN],
            "{partition}"
        );
    }
    queue.assert_clean();
}

#[test]
fn a_legacy_command_while_the_queue_owns_the_bus_is_refused_and_silences_the_queue() {
    // What the glue did before it published `mmc_host::cqe_on`: the MMC core never called
    // cqe_off, so its legacy commands (the partition switch for mmcblkNboot0 at boot) went
    // out with the block enabled and not halted.
    on_board(|rig, queue, _| {
        queue.enable();
        queue.issue(&[(0, Direction::Read)]);
        run_board(queue, rig, 0);
        assert_eq!(queue.status(0), Some(CompletionStatus::Done));
        let switch = queue
            .host
            .command(6, partition_access(1), flags::R1B | flags::AC);
        assert_eq!(switch.error, Some(mmc_request::ErrorKind::TimedOut));
        assert_eq!(rig.card().ext_csd().partition_access(), 0, "never sent");
        {
            let model = rig.model();
            let (count, first) = model.violations();
            assert_eq!(count, 1);
            assert_eq!(first[0], Some(Violation::CommandWhileCqhciActive));
        }
        // The legacy path programmed MSDC_INTEN for its own request, without CMDQ, and the
        // engine, still on, has no reason to enable it again: the next task completes in the
        // block but its interrupt never reaches the line.
        assert_eq!(rig.peek(MSDC_INTEN) & INT_CMDQ, 0);
        queue.issue(&[(13, Direction::Read)]);
        run_board(queue, rig, 0);
        assert_eq!(queue.status(13), None, "never seen complete");
        assert_eq!(rig.read::<cqhci::regs::CQTCN>().tcn(), tag(13).mask());
        assert!(!rig.interrupt_line());
        // The block layer's timeout (60 s) and the core's recovery end the task; the
        // completion it left in CQTCN survives CLEAR ALL TASKS (which discards tasks, not
        // completion notices) and comes up with the next task's as one for an empty slot.
        assert!(queue.timeout(13).is_some());
        assert_eq!(
            queue.slot().cqe_events(),
            [QueueEvent::TaskTimedOut],
            "timed out, not completing"
        );
        queue.recover();
        assert_eq!(
            queue.status(13),
            Some(CompletionStatus::Failed(TaskError::Timeout))
        );
        assert_eq!(queue.spurious(), TaskMask::EMPTY);
        queue.issue(&[(1, Direction::Read)]);
        run_board(queue, rig, 0);
        assert_eq!(queue.status(1), Some(CompletionStatus::Done));
        assert_eq!(queue.spurious(), TaskMask::EMPTY.with(tag(13)));
    });
}
