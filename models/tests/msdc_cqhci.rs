// SPDX-License-Identifier: GPL-2.0
//! The MSDC model with its CQHCI block: one `Bus<MsdcModel>` is an `Io<MsdcBase>` and an
//! `Io<CqhciBlock>` on one register space, the legacy engine and the CQHCI engine drive the
//! same eMMC card, and `MSDC_INT.CMDQ` follows the block's interrupt. The descriptors are
//! built with the model's own CQHCI definitions (JESD84-B51 CQHCI); the one number checked
//! against the hardware is the block's place at `base + 0x800` (mtk-sd.c).

use models::bus::Bus;
use models::cqhci::desc::{Act, DATA_DESC, DATA_DESC_HI, DESC_ATTRIBUTES, TASK_DESC};
use models::cqhci::regs::{
    CQCFG, CQCTL, CQIC, CQIS, CQISGE, CQISTE, CQSSC1, CQSSC2, CQTCN, CQTDBR, CQTDLBA, CQTDLBAU,
    CQVER,
};
use models::cqhci::Fault as CqFault;
use models::emmc::{Card, ReadyOrder};
use models::latency::{Latency, ResponseLength};
use models::msdc::controller::CLOCK_SETTLE_NS;
use models::msdc::regs::{
    BusWidth, ClockMode, ResponseType, MSDC_CFG, MSDC_INT, MSDC_INTEN, SDC_ARG, SDC_CFG, SDC_CMD,
    SDC_RESP0,
};
use models::msdc::{ModelConfig, MsdcModel, Violation};
use models::{BusMemory, Ram};
use registers::{Io, PollLimit};

const RCA: u16 = 1;
const RAM_BASE: u64 = 0x4000_0000;
const RAM_LEN: usize = 0x4000;
/// Task descriptor list at the start of RAM; 64-bit task descriptor + 128-bit link = 24
/// bytes a slot.
const SLOT_LEN: u64 = 24;
/// Transfer descriptors (one a task, 16 bytes each).
const XFER_AT: u64 = RAM_BASE + 0x1000;
/// Data buffers (0x800 bytes a task).
const DATA_AT: u64 = RAM_BASE + 0x2000;
const BLOCKS: u16 = 2;
const SECTOR: u32 = 8;

fn config() -> ModelConfig {
    ModelConfig {
        latency: Latency::EMMC,
        ..ModelConfig::default()
    }
}

fn joined() -> Bus<MsdcModel> {
    joined_with(Latency::EMMC)
}

fn joined_with(latency: Latency) -> Bus<MsdcModel> {
    joined_on(ModelConfig {
        latency,
        ..config()
    })
}

fn joined_on(config: ModelConfig) -> Bus<MsdcModel> {
    Bus::new(MsdcModel::with_cqhci(
        config,
        models::cqhci::ModelConfig::MEDIATEK,
    ))
}

/// SD mode, 25 MHz (200 MHz / (4 × 2)): within the initialised card's 26 MHz.
fn legacy_setup(bus: &Bus<MsdcModel>) {
    bus.write(MSDC_CFG::zeroed().with_mode(true).with_const_ckdiv::<2>());
    let limit = PollLimit {
        // 1 µs apart: one read more than the settling takes.
        attempts: u32::try_from(CLOCK_SETTLE_NS / 1_000).unwrap() + 1,
        interval_us: 1,
    };
    bus.poll::<MSDC_CFG>(MSDC_CFG::ckstb, limit).unwrap();
}

/// CMD13 with the card's RCA through the legacy registers, stepped to completion; the
/// MSDC_INT it leaves (cleared afterwards).
fn legacy_cmd13(bus: &Bus<MsdcModel>, card: &mut Card<'_>, ram: &mut Ram<'_>) -> MSDC_INT {
    bus.write(SDC_ARG::from_raw(u32::from(RCA) << 16));
    bus.write(
        SDC_CMD::zeroed()
            .with_const_opcode::<13>()
            .with_const_rsptyp::<{ ResponseType::R1 as u32 }>(),
    );
    bus.model().run(card, ram, 4);
    let int = bus.read::<MSDC_INT>();
    bus.write(MSDC_INT::from_raw(
        int.raw() & !MSDC_INT::zeroed().with_cmdq(true).raw(),
    ));
    int
}

fn enable_cqhci(bus: &Bus<MsdcModel>) {
    bus.write(CQTDLBA::zeroed().try_with_tdlba(RAM_BASE as u32).unwrap());
    bus.write(CQTDLBAU::zeroed());
    bus.write(CQSSC2::zeroed().try_with_rca(u32::from(RCA)).unwrap());
    bus.write(CQISTE::zeroed().with_const_enabled::<0x3F>());
    bus.write(CQISGE::zeroed().with_const_signalled::<0x3F>());
    bus.write(CQCFG::zeroed().with_cq_en(true));
}

/// Writes task `tag`'s descriptors: a data task of `BLOCKS` blocks at `SECTOR`, its link to
/// one transfer descriptor over the task's data buffer.
fn put_task(ram: &mut Ram<'_>, tag: u8, read: bool) -> u64 {
    let data = DATA_AT + 0x800 * u64::from(tag);
    put_task_at(ram, tag, read, (BLOCKS, SECTOR), data)
}

/// Writes task `tag`'s descriptors for `blocks` blocks at `sector`, its data at `data`.
fn put_task_at(
    ram: &mut Ram<'_>,
    tag: u8,
    read: bool,
    (blocks, sector): (u16, u32),
    data: u64,
) -> u64 {
    let slot = RAM_BASE + SLOT_LEN * u64::from(tag);
    let xfer = XFER_AT + 16 * u64::from(tag);
    let task = DESC_ATTRIBUTES::zeroed()
        .with_valid(true)
        .with_end(true)
        .with_int(true)
        .with_act(Act::Task)
        .raw()
        | TASK_DESC::zeroed()
            .with_data_direction(read)
            .try_with_block_count(u64::from(blocks))
            .unwrap()
            .try_with_block_address(u64::from(sector))
            .unwrap()
            .raw();
    let link = DESC_ATTRIBUTES::zeroed()
        .with_valid(true)
        .with_act(Act::Link)
        .raw()
        | DATA_DESC::zeroed().try_with_address_lo(xfer).unwrap().raw();
    let transfer = DESC_ATTRIBUTES::zeroed()
        .with_valid(true)
        .with_end(true)
        .with_act(Act::Transfer)
        .raw()
        | DATA_DESC::zeroed()
            .try_with_length(u64::from(blocks) * 512)
            .unwrap()
            .try_with_address_lo(data)
            .unwrap()
            .raw();
    ram.write(slot, &task.to_le_bytes()).unwrap();
    ram.write(slot + 8, &link.to_le_bytes()).unwrap();
    ram.write(slot + 16, &DATA_DESC_HI::zeroed().raw().to_le_bytes())
        .unwrap();
    ram.write(xfer, &transfer.to_le_bytes()).unwrap();
    ram.write(xfer + 8, &DATA_DESC_HI::zeroed().raw().to_le_bytes())
        .unwrap();
    data
}

fn pattern() -> Vec<u8> {
    (0..usize::from(BLOCKS) * 512)
        .map(|i| (i * 7 + 3) as u8)
        .collect()
}

fn sector_range() -> core::ops::Range<usize> {
    let at = SECTOR as usize * 512;
    at..at + usize::from(BLOCKS) * 512
}

/// An initialised eMMC card (RCA 1, command queueing on), RAM and the joined model set up
/// for legacy commands, handed to `f`.
fn with_rig(f: impl FnOnce(&Bus<MsdcModel>, &mut Card<'_>, &mut Ram<'_>)) {
    with_rig_on(Latency::EMMC, RAM_LEN, f);
}

/// [`with_rig`] with the card timing `latency` and `ram_len` bytes of RAM.
fn with_rig_on(
    latency: Latency,
    ram_len: usize,
    f: impl FnOnce(&Bus<MsdcModel>, &mut Card<'_>, &mut Ram<'_>),
) {
    with_bus(joined_with(latency), ram_len, |bus, card, ram| {
        legacy_setup(bus);
        f(bus, card, ram);
    });
}

/// An initialised eMMC card (RCA 1, command queueing on) and `ram_len` bytes of RAM with
/// `bus`, handed to `f`.
fn with_bus(
    bus: Bus<MsdcModel>,
    ram_len: usize,
    f: impl FnOnce(&Bus<MsdcModel>, &mut Card<'_>, &mut Ram<'_>),
) {
    let mut storage = vec![0u8; 1024 * 512];
    let mut card = Card::new(&mut storage, 32, ReadyOrder::Immediate);
    card.initialize(RCA, true).unwrap();
    let mut bytes = vec![0u8; ram_len];
    let mut ram = Ram::new(RAM_BASE, &mut bytes);
    f(&bus, &mut card, &mut ram);
}

#[test]
fn the_cqhci_block_sits_at_0x800_of_the_base_window() {
    assert_eq!(
        <MsdcModel as models::bus::Serves<models::windows::CqhciBlock>>::BASE,
        0x800
    );
    assert_eq!(models::msdc::regs::CQHCI_BASE, 0x800);
    assert_eq!(models::msdc::regs::WINDOW, 0x860);
    let bus = joined();
    // CQVER through the CQHCI window and as a raw offset of the base window agree.
    let version = bus.read::<CQVER>().raw();
    assert_eq!(version, models::cqhci::ModelConfig::MEDIATEK.version.raw());
    assert_eq!(bus.model().read(0x800), version);
    // Past the block the base window's offsets stay unknown registers.
    bus.model().read(0x860);
    let model = bus.model();
    let (count, first) = model.violations();
    assert_eq!(count, 1);
    assert_eq!(first[0], Some(Violation::UnknownRegister(0x860)));
}

#[test]
fn queued_write_and_read_reach_the_card_the_legacy_path_initialised() {
    with_rig(|bus, card, ram| {
        // The legacy path talks to the card before queueing starts.
        let int = legacy_cmd13(bus, card, ram);
        assert!(int.cmdrdy(), "{int:?}");
        assert_eq!(bus.read::<SDC_RESP0>().raw() >> 9 & 0xF, 4, "tran state");
        let _ = bus.model().take_elapsed_ns();

        enable_cqhci(bus);
        let write_buf = put_task(ram, 0, false);
        ram.write(write_buf, &pattern()).unwrap();
        bus.write(CQTDBR::zeroed().try_with_dbr(1).unwrap());
        bus.model().run(card, ram, 32);
        assert_eq!(bus.read::<CQTCN>().tcn(), 1);
        assert!(bus.read::<CQIS>().tcc());
        assert_eq!(&card.storage()[sector_range()], pattern().as_slice());
        let write_ns = bus.model().take_elapsed_ns();
        // CMD44, CMD45, CMD13, CMD47 and two blocks at 25 MHz, 1 bit.
        let l = Latency::EMMC;
        let hz = 25_000_000;
        assert!(
            write_ns
                >= 4 * l.command_ns(models::latency::ResponseLength::Short, hz)
                    + l.write_ns(512, 2, 1, false, hz),
            "{write_ns}"
        );
        bus.write(CQTCN::zeroed().try_with_tcn(1).unwrap());
        bus.write(CQIS::zeroed().with_tcc(true));

        let read_buf = put_task(ram, 1, true);
        bus.write(CQTDBR::zeroed().try_with_dbr(1 << 1).unwrap());
        bus.model().run(card, ram, 32);
        assert_eq!(bus.read::<CQTCN>().tcn(), 1 << 1);
        let mut back = pattern();
        back.fill(0);
        ram.read(read_buf, &mut back).unwrap();
        assert_eq!(back, pattern());
        assert!(bus.model().take_elapsed_ns() >= l.read_ns(512, 2, 1, false, hz));
        let model = bus.model();
        assert_eq!(model.violations().0, 0, "{:?}", model.violations());
        assert_eq!(model.cqhci().unwrap().violations(), (0, None));
        assert_eq!(model.cqhci().unwrap().completions(), 2);
    });
}

#[test]
fn msdc_int_cmdq_follows_the_cqhci_interrupt_and_inten_gates_it() {
    with_rig(|bus, card, ram| {
        enable_cqhci(bus);
        let cmdq = MSDC_INT::zeroed().with_cmdq(true);
        assert!(!bus.read::<MSDC_INT>().cmdq());
        run_task(bus, card, ram, 0);
        assert!(bus.read::<CQIS>().tcc());
        assert!(bus.read::<MSDC_INT>().cmdq());
        // INTEN.CMDQ off: latched but not signalled.
        assert!(!bus.model().interrupt_pending());
        bus.write(MSDC_INTEN::from_raw(cmdq.raw()));
        assert_eq!(bus.read::<MSDC_INTEN>().raw(), 1 << 28);
        assert!(bus.model().interrupt_pending());
        // Acking MSDC_INT alone does not clear it while CQIS is set (msdc_irq acks MSDC_INT,
        // cqhci_irq then CQIS).
        bus.write(MSDC_INT::from_raw(cmdq.raw()));
        assert!(bus.read::<MSDC_INT>().cmdq());
        bus.write(CQIS::from_raw(bus.read::<CQIS>().raw()));
        assert!(!bus.read::<MSDC_INT>().cmdq());
        assert!(!bus.model().interrupt_pending());
        // A status bit CQISGE does not signal does not raise CMDQ.
        bus.write(CQISGE::zeroed());
        put_task(ram, 1, true);
        bus.write(CQTDBR::zeroed().try_with_dbr(1 << 1).unwrap());
        bus.model().run(card, ram, 32);
        assert!(bus.read::<CQIS>().tcc());
        assert!(!bus.read::<MSDC_INT>().cmdq());
    });
}

#[test]
fn a_host_detected_error_latches_in_msdc_int_with_cmdq() {
    with_rig(|bus, card, ram| {
        enable_cqhci(bus);
        bus.write(MSDC_INTEN::from_raw(
            MSDC_INT::zeroed().with_cmdq(true).raw(),
        ));
        assert!(bus
            .model()
            .cqhci_mut()
            .unwrap()
            .inject(CqFault::DataCrc { tag: 0 }));
        run_task(bus, card, ram, 0);
        let int = bus.read::<MSDC_INT>();
        assert!(int.datcrcerr() && int.cmdq(), "{int:?}");
        assert!(bus.model().interrupt_pending());
        // The error is the host's own status: acking MSDC_INT clears it (CQIS holds nothing).
        assert_eq!(bus.read::<CQIS>().raw(), 0);
        bus.write(int);
        assert_eq!(bus.read::<MSDC_INT>().raw(), 0);
        assert!(!bus.model().interrupt_pending());
    });
}

#[test]
fn a_legacy_command_needs_the_cqhci_block_halted() {
    with_rig(|bus, card, ram| {
        enable_cqhci(bus);
        let commands = bus.model().commands();
        let int = legacy_cmd13(bus, card, ram);
        assert!(int.cmdtmo() && !int.cmdrdy(), "{int:?}");
        assert_eq!(bus.model().commands(), commands, "never sent");
        {
            let model = bus.model();
            let (count, first) = model.violations();
            assert_eq!(count, 1);
            assert_eq!(first[0], Some(Violation::CommandWhileCqhciActive));
        }
        // Halt (upstream's cqhci_off), then the bus is the legacy engine's again.
        bus.write(CQCTL::zeroed().with_halt(true));
        bus.model().run(card, ram, 4);
        assert!(bus.read::<CQCTL>().halt());
        assert!(bus.read::<CQIS>().hac());
        let int = legacy_cmd13(bus, card, ram);
        assert!(int.cmdrdy(), "{int:?}");
        assert_eq!(bus.model().violations().0, 1);
        // Disabled is fine too.
        bus.write(CQCFG::zeroed());
        let int = legacy_cmd13(bus, card, ram);
        assert!(int.cmdrdy(), "{int:?}");
        assert_eq!(bus.model().violations().0, 1);
    });
}

#[test]
fn a_pending_halt_or_clear_is_the_next_step_and_runs_no_task() {
    with_rig(|bus, card, ram| {
        enable_cqhci(bus);
        put_task(ram, 0, true);
        bus.write(CQTDBR::zeroed().try_with_dbr(1).unwrap());
        let cq = |bus: &Bus<MsdcModel>| bus.model().cqhci().unwrap().control_pending();
        assert!(!cq(bus), "a task waiting is not a control request");
        let commands = bus.model().commands();
        let _ = bus.model().take_elapsed_ns();
        bus.write(CQCTL::zeroed().with_halt(true));
        assert!(cq(bus));
        assert!(bus.model().step(card, ram));
        assert!(bus.read::<CQCTL>().halt());
        assert!(!cq(bus));
        assert_eq!(bus.read::<CQTDBR>().dbr(), 1, "the task still waits");
        assert_eq!(bus.read::<CQTCN>().tcn(), 0);
        bus.write(CQCTL::zeroed().with_halt(true).with_clr_all_tasks(true));
        assert!(cq(bus));
        assert!(bus.model().step(card, ram));
        assert!(!cq(bus));
        assert_eq!(bus.read::<CQTDBR>().dbr(), 0, "cleared, never run");
        assert!(bus.read::<CQIS>().tcl());
        let mut model = bus.model();
        assert_eq!(model.commands(), commands);
        assert_eq!(model.cqhci().unwrap().completions(), 0);
        assert_eq!(model.take_elapsed_ns(), 0, "no bus time");
    });
    // Disabled, nothing is pending whatever was written.
    let bus = joined();
    bus.write(CQCTL::zeroed().with_halt(true));
    assert!(!bus.model().cqhci().unwrap().control_pending());
}

#[test]
fn without_the_block_the_model_is_as_before() {
    let bus = Bus::new(MsdcModel::new(config()));
    assert!(bus.model().cqhci().is_none());
    // The CQHCI window reaches nothing: offset 0x800 is an unknown register.
    assert_eq!(bus.read::<CQVER>().raw(), 0);
    bus.write(CQCFG::zeroed().with_cq_en(true));
    // INTEN has no CMDQ enable.
    bus.write(MSDC_INTEN::from_raw(
        MSDC_INT::zeroed().with_cmdq(true).raw(),
    ));
    assert_eq!(bus.read::<MSDC_INTEN>().raw(), 0);
    let model = bus.model();
    let (count, first) = model.violations();
    assert_eq!(count, 2);
    assert_eq!(first[0], Some(Violation::UnknownRegister(0x800)));
    assert_eq!(first[1], Some(Violation::UnknownRegister(0x808)));
}

#[test]
fn polls_that_find_nothing_ready_wait_the_send_status_idle_timer() {
    with_rig(|bus, card, ram| {
        enable_cqhci(bus);
        // 2000 clocks of the 200 MHz timer CQCAP advertises (200 units of 1 MHz): 10 µs.
        bus.write(CQSSC1::zeroed().try_with_cit(2000).unwrap());
        assert_eq!(bus.model().cqhci().unwrap().timer_hz(), Some(200_000_000));
        assert!(bus
            .model()
            .cqhci_mut()
            .unwrap()
            .inject(CqFault::Stall { tag: 0 }));
        put_task(ram, 0, true);
        bus.write(CQTDBR::zeroed().try_with_dbr(1).unwrap());
        // CMD44 and CMD45, then the first poll: none waits.
        assert!(bus.model().step(card, ram));
        assert!(bus.model().step(card, ram));
        let poll_ns = Latency::EMMC.command_ns(ResponseLength::Short, 25_000_000);
        let fetch_and_poll = bus.model().take_elapsed_ns();
        assert_eq!(fetch_and_poll, 3 * poll_ns);
        // Every poll after one that found nothing ready waits the idle timer: the step
        // takes the wait, so the model never stops with a task queued.
        for _ in 0..4 {
            assert!(bus.model().step(card, ram));
            assert_eq!(bus.model().take_elapsed_ns(), poll_ns + 10_000);
        }
        // A new task is asked about at once.
        put_task(ram, 1, true);
        bus.write(CQTDBR::zeroed().try_with_dbr(1 << 1).unwrap());
        assert!(bus.model().step(card, ram));
        assert!(bus.model().step(card, ram));
        assert_eq!(bus.model().take_elapsed_ns(), 3 * poll_ns);
        // Task 1 was ready at that poll and runs; task 0 never is.
        assert!(bus.model().step(card, ram));
        assert_eq!(bus.read::<CQTCN>().tcn(), 1 << 1);
        let model = bus.model();
        assert_eq!(model.cqhci().unwrap().violations(), (0, None));
    });
}

#[test]
fn the_last_violation_is_kept_past_the_first_ones() {
    let bus = Bus::new(MsdcModel::new(config()));
    for offset in 0..models::msdc::MAX_VIOLATIONS + 2 {
        bus.model().read(0x700 + 4 * offset);
    }
    let model = bus.model();
    let (count, first) = model.violations();
    assert_eq!(count as usize, models::msdc::MAX_VIOLATIONS + 2);
    assert_eq!(first[0], Some(Violation::UnknownRegister(0x700)));
    let last = 0x700 + 4 * (models::msdc::MAX_VIOLATIONS + 1);
    assert_eq!(
        model.last_violation(),
        Some(Violation::UnknownRegister(last))
    );
}

/// A timed queue's card for the overlap tests: `units` parallel units, a 20 ms access (far
/// above the 1.3 ms a 4 KiB task takes on the test's 25 MHz, 1-bit bus, so that the access
/// dominates), `spread` of spread.
fn overlapping(units: u8, spread: u64) -> Latency {
    Latency {
        read_access_ns: 20_000_000,
        queue_units: units,
        access_spread_ns: spread,
        ..Latency::EMMC
    }
}

/// 4 KiB reads, 8 blocks each.
const TASK_BLOCKS: u16 = 8;
/// The tasks' data buffers, 4 KiB apart, after the descriptors.
const TASK_DATA_AT: u64 = RAM_BASE + 0x4000;

/// Queues read tasks `tags` at once (doorbell for all) and runs the model until they have
/// all completed; returns the model time they took and the tags in completion order.
fn run_reads(
    bus: &Bus<MsdcModel>,
    card: &mut Card<'_>,
    ram: &mut Ram<'_>,
    tags: &[u8],
) -> (u64, Vec<u8>) {
    run_tasks(bus, card, ram, tags, true)
}

/// As [`run_reads`], for reads (`read`) or writes.
fn run_tasks(
    bus: &Bus<MsdcModel>,
    card: &mut Card<'_>,
    ram: &mut Ram<'_>,
    tags: &[u8],
    read: bool,
) -> (u64, Vec<u8>) {
    let mut doorbell = 0u32;
    for &t in tags {
        let sector = 16 * u32::from(t) + 3;
        put_task_at(
            ram,
            t,
            read,
            (TASK_BLOCKS, sector),
            TASK_DATA_AT + 0x1000 * u64::from(t),
        );
        doorbell |= 1 << t;
    }
    let _ = bus.model().take_elapsed_ns();
    let start = bus.model().now_ns();
    bus.write(CQTDBR::zeroed().try_with_dbr(doorbell).unwrap());
    let mut order = Vec::new();
    let mut done = 0u32;
    for _ in 0..10_000 {
        if done == doorbell {
            break;
        }
        assert!(
            bus.model().step(card, ram),
            "the block never stops with tasks queued"
        );
        let tcn = bus.read::<CQTCN>().tcn();
        for t in 0..32u8 {
            if tcn & !done & (1 << t) != 0 {
                order.push(t);
            }
        }
        done = tcn;
    }
    assert_eq!(done, doorbell, "all complete");
    bus.write(CQTCN::zeroed().try_with_tcn(done).unwrap());
    bus.write(CQIS::zeroed().with_tcc(true));
    let elapsed = bus.model().take_elapsed_ns();
    assert_eq!(
        bus.model().now_ns() - start,
        elapsed,
        "the clock follows the charges"
    );
    (elapsed, order)
}

/// One 4 KiB task on the test's bus: its data and its CMD44, CMD45, CMD13 and CMD46.
fn task_bus_ns() -> u64 {
    let (l, hz) = (Latency::EMMC, 25_000_000);
    l.read_data_ns(512, u64::from(TASK_BLOCKS), 1, false, hz)
        + 4 * l.command_ns(ResponseLength::Short, hz)
}

#[test]
fn a_timed_queue_overlaps_the_access_of_queued_reads_on_its_units() {
    const N: u64 = 8;
    let tags: Vec<u8> = (0..N as u8).collect();
    let access = overlapping(1, 0).read_access_ns;
    for units in [1u8, 2, 4] {
        with_rig_on(overlapping(units, 0), 0xC000, |bus, card, ram| {
            enable_cqhci(bus);
            let (ns, _) = run_reads(bus, card, ram, &tags);
            // N / U accesses one after the other on each unit; the transfers of earlier tasks
            // overlap later accesses, and none can overlap more than N of them.
            let rounds = N.div_ceil(u64::from(units));
            let floor = rounds * access;
            assert!(ns >= floor, "{units} units: {ns} < {floor}");
            // Polls that find nothing ready end at most one poll period late.
            let slack = N * task_bus_ns() + 2 * N * 21_000;
            assert!(
                ns <= floor + slack,
                "{units} units: {ns} > {floor} + {slack}"
            );
            assert_eq!(bus.model().violations().0, 0);
        });
    }
    // One task at a time: every access is waited for in turn.
    with_rig_on(overlapping(4, 0), 0xC000, |bus, card, ram| {
        enable_cqhci(bus);
        let mut total = 0;
        for &t in &tags {
            total += run_reads(bus, card, ram, &[t]).0;
        }
        assert!(total >= N * (access + task_bus_ns()), "{total}");
        assert!(
            total <= N * (access + task_bus_ns() + 2 * 21_000),
            "{total}"
        );
    });
}

#[test]
fn a_timed_queue_completes_tasks_on_different_units_out_of_order_repeatably() {
    let tags: Vec<u8> = (0..8).collect();
    let run = || {
        let mut order = Vec::new();
        with_rig_on(overlapping(4, 10_000_000), 0xC000, |bus, card, ram| {
            enable_cqhci(bus);
            order = run_reads(bus, card, ram, &tags).1;
            let mut back = vec![0u8; 4096];
            for &t in &tags {
                ram.read(TASK_DATA_AT + 0x1000 * u64::from(t), &mut back)
                    .unwrap();
                let at = (16 * usize::from(t) + 3) * 512;
                assert_eq!(back, card.storage()[at..at + 4096], "task {t}'s data");
            }
        });
        order
    };
    let order = run();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, tags, "every task once");
    assert_ne!(order, tags, "out of order");
    assert_eq!(run(), order, "the same order every run");
}

#[test]
fn time_passing_outside_the_model_lets_queued_accesses_finish() {
    with_rig_on(overlapping(2, 0), 0xC000, |bus, card, ram| {
        enable_cqhci(bus);
        put_task_at(ram, 0, true, (TASK_BLOCKS, 40), TASK_DATA_AT);
        bus.write(CQTDBR::zeroed().try_with_dbr(1).unwrap());
        // CMD44 and CMD45: the access starts.
        assert!(bus.model().step(card, ram));
        let _ = bus.model().take_elapsed_ns();
        // The guest's time between two runs covers the access: the next poll finds the task
        // ready without waiting, and its CMD46 charges only the bus.
        let now = bus.model().now_ns();
        bus.model().elapse(15_000_000);
        // An absolute reading behind the clock changes nothing; one ahead moves it.
        bus.model().advance_to(now);
        assert_eq!(bus.model().now_ns(), now + 15_000_000);
        bus.model().advance_to(now + 20_000_000);
        assert_eq!(bus.model().now_ns(), now + 20_000_000);
        assert_eq!(
            bus.model().take_elapsed_ns(),
            0,
            "elapsed time is not charged"
        );
        assert!(bus.model().step(card, ram));
        let (l, hz) = (Latency::EMMC, 25_000_000);
        assert_eq!(
            bus.model().take_elapsed_ns(),
            l.command_ns(ResponseLength::Short, hz),
            "one poll"
        );
        assert!(bus.model().step(card, ram));
        assert_eq!(bus.read::<CQTCN>().tcn(), 1);
        assert_eq!(
            bus.model().take_elapsed_ns(),
            l.command_ns(ResponseLength::Short, hz)
                + l.read_data_ns(512, u64::from(TASK_BLOCKS), 1, false, hz)
        );
    });
}

#[test]
fn the_emmc_profile_queues_about_11000_random_reads_and_13000_writes_a_second_at_hs400() {
    // HS400 at 200 MHz: a 400 MHz source halved, 8 bits. The card model stays at its
    // initial timing: the queued path does not check the bus against the card.
    let config = ModelConfig {
        latency: Latency::EMMC_HS400_CQ,
        source_hz: 400_000_000,
        ..config()
    };
    let hs400 = |bus: &Bus<MsdcModel>| {
        let cfg = MSDC_CFG::zeroed()
            .with_mode(true)
            .with_ckmod(ClockMode::Hs400)
            .with_hs400_ck_mode(true);
        bus.write(cfg);
        bus.model().elapse(CLOCK_SETTLE_NS);
        assert!(bus.read::<MSDC_CFG>().ckstb());
        bus.write(SDC_CFG::zeroed().with_buswidth(BusWidth::Eight));
        assert_eq!(bus.model().bus_clock_hz(), 200_000_000);
    };
    let tags: Vec<u8> = (0..32).collect();
    with_bus(joined_on(config), 0x2_4000, |bus, card, ram| {
        hs400(bus);
        enable_cqhci(bus);
        // QD32: two units at 182 µs each, 16 rounds.
        let (ns, _) = run_reads(bus, card, ram, &tags);
        let iops = 32 * 1_000_000_000 / ns;
        assert!(
            (10_000..=11_000).contains(&iops),
            "QD32: {iops} IOPS ({ns} ns)"
        );
        // QD1: one task at a time, each access waited for.
        let mut total = 0;
        for &t in &tags {
            total += run_reads(bus, card, ram, &[t]).0;
        }
        let iops = 32 * 1_000_000_000 / total;
        assert!(
            (4_600..=5_100).contains(&iops),
            "QD1: {iops} IOPS ({total} ns)"
        );
        // Writes at QD32: each needs a unit free for its transfer and programming (154 µs
        // together), so two units take about 13 000 a second (the data sheet's figure),
        // not the bus's rate; a second burst waits for the first one's programming.
        let (first, _) = run_tasks(bus, card, ram, &tags, false);
        let (ns, _) = run_tasks(bus, card, ram, &tags, false);
        let iops = 32 * 1_000_000_000 / ns;
        assert!(
            (11_500..=13_500).contains(&iops),
            "QD32 writes: {iops} IOPS ({ns} ns, first burst {first} ns)"
        );
        // A read after a burst of writes waits for a unit too.
        let (read_after, _) = run_reads(bus, card, ram, &[0]);
        assert!(read_after >= 150_000, "{read_after} ns");
        // Every charge is in the split, and each part has some: the reads' access and the
        // writes' programming are the card's, the frames the bus's, the status polls that
        // found nothing ready the waits. The model clock has the clock's settling on top,
        // time that passed outside the model.
        let split = bus.model().time_split();
        assert_eq!(
            split.bus_ns + split.card_ns + split.wait_ns + CLOCK_SETTLE_NS,
            bus.model().now_ns(),
            "{split:?}"
        );
        assert!(split.bus_ns > 0 && split.card_ns > split.bus_ns && split.wait_ns > 0);
        assert_eq!(
            bus.model().violations().0,
            0,
            "{:?}",
            bus.model().violations()
        );
    });
}

#[test]
fn a_task_data_phase_latches_xfer_compl_which_only_cmdq_signals() {
    with_rig(|bus, card, ram| {
        enable_cqhci(bus);
        let cmdq = MSDC_INT::zeroed().with_cmdq(true);
        bus.write(MSDC_INTEN::from_raw(cmdq.raw()));
        run_task(bus, card, ram, 0);
        let int = bus.read::<MSDC_INT>();
        assert!(int.xfer_compl() && int.cmdq(), "{int:?}");
        // The handler acknowledges the enabled events, as upstream's msdc_irq does, and the
        // task's completion: XFER_COMPL stays latched, with no interrupt.
        bus.write(MSDC_INT::from_raw(int.raw() & cmdq.raw()));
        bus.write(CQIS::from_raw(bus.read::<CQIS>().raw()));
        assert!(!bus.model().interrupt_pending());
        assert!(
            bus.read::<MSDC_INT>().xfer_compl(),
            "stale until acknowledged"
        );
        // msdc_cqe_disable's acknowledgement of everything pending clears it.
        bus.write(MSDC_INTEN::zeroed());
        let int = bus.read::<MSDC_INT>();
        bus.write(int);
        assert_eq!(bus.read::<MSDC_INT>().raw(), 0);
        // A task whose data fails latches its error, not XFER_COMPL.
        bus.write(MSDC_INTEN::from_raw(cmdq.raw()));
        assert!(bus
            .model()
            .cqhci_mut()
            .unwrap()
            .inject(CqFault::DataCrc { tag: 1 }));
        put_task(ram, 1, true);
        bus.write(CQTDBR::zeroed().try_with_dbr(1 << 1).unwrap());
        bus.model().run(card, ram, 32);
        let int = bus.read::<MSDC_INT>();
        assert!(int.datcrcerr() && !int.xfer_compl(), "{int:?}");
    });
}

/// The queue on, only its CMDQ interrupt enabled (as upstream's `msdc_cqe_enable`), and
/// the stale transfer-complete fault armed.
fn queue_with_a_stale_transfer_complete_armed(bus: &Bus<MsdcModel>) {
    enable_cqhci(bus);
    let cmdq = MSDC_INT::zeroed().with_cmdq(true);
    bus.write(MSDC_INTEN::from_raw(cmdq.raw()));
    bus.model().inject_stale_transfer_complete();
}

/// Rings the doorbell for one read task in `tag` and lets the model run it.
fn run_task(bus: &Bus<MsdcModel>, card: &mut Card<'_>, ram: &mut Ram<'_>, tag: u8) {
    put_task(ram, tag, true);
    bus.write(CQTDBR::zeroed().try_with_dbr(1 << tag).unwrap());
    bus.model().run(card, ram, 32);
}

#[test]
fn a_stale_transfer_complete_latches_behind_the_handler_and_is_taken_at_cqe_off() {
    with_rig(|bus, card, ram| {
        queue_with_a_stale_transfer_complete_armed(bus);
        // Two tasks: the first one's data phase leaves the second in the doorbell and
        // latches as usual; the last one's latches behind the handler's acknowledgement.
        put_task(ram, 0, true);
        put_task(ram, 1, true);
        bus.write(CQTDBR::zeroed().try_with_dbr(0b11).unwrap());
        bus.model().run(card, ram, 64);
        assert_eq!(bus.read::<CQTCN>().tcn(), 0b11);
        let int = bus.read::<MSDC_INT>();
        assert!(int.cmdq() && int.xfer_compl(), "the first task's: {int:?}");
        // The handler acknowledges everything it read, then the tasks' completions.
        bus.write(int);
        bus.write(CQIS::from_raw(bus.read::<CQIS>().raw()));
        let stale = bus.read::<MSDC_INT>();
        assert!(stale.xfer_compl() && !stale.cmdq(), "{stale:?}");
        assert!(!bus.model().interrupt_pending(), "no interrupt for it");
        assert!(bus.model().stale_transfer_complete_pending());
        assert!(!bus.model().stale_transfer_complete_taken());
        // cqe_off: the CMDQ interrupt disabled with the event latched takes the fault.
        bus.write(MSDC_INTEN::zeroed());
        assert!(bus.model().stale_transfer_complete_taken());
        assert!(bus.model().take_stale_transfer_complete());
        assert!(!bus.model().take_stale_transfer_complete(), "once");
        assert!(
            bus.read::<MSDC_INT>().xfer_compl(),
            "still there to acknowledge"
        );
    });
}

#[test]
fn a_stale_transfer_complete_acknowledged_by_the_running_queue_is_re_armed() {
    with_rig(|bus, card, ram| {
        queue_with_a_stale_transfer_complete_armed(bus);
        for tag in 0..2u8 {
            run_task(bus, card, ram, tag);
            let int = bus.read::<MSDC_INT>();
            assert!(int.cmdq(), "{int:?}");
            bus.write(int);
            bus.write(CQIS::from_raw(bus.read::<CQIS>().raw()));
            // A task's handler that finds the stale event acknowledges it.
            let again = bus.read::<MSDC_INT>();
            bus.write(again);
            assert!(bus.model().stale_transfer_complete_pending(), "tag {tag}");
        }
        bus.write(MSDC_INTEN::zeroed());
        assert!(
            !bus.model().take_stale_transfer_complete(),
            "nothing left latched"
        );
    });
}

#[test]
fn a_power_off_takes_a_stale_transfer_complete_away_and_keeps_the_fault_armed() {
    with_rig(|bus, card, ram| {
        queue_with_a_stale_transfer_complete_armed(bus);
        run_task(bus, card, ram, 0);
        let int = bus.read::<MSDC_INT>();
        bus.write(int);
        assert!(
            bus.read::<MSDC_INT>().xfer_compl(),
            "latched behind the handler"
        );
        bus.model().power_off();
        bus.model().power_on();
        assert_eq!(bus.read::<MSDC_INT>().raw(), 0, "registers reset");
        assert!(bus.model().stale_transfer_complete_pending(), "armed again");
        assert!(!bus.model().stale_transfer_complete_taken());
    });
}

/// Task `tag` as [`put_task`] writes it (a read), but with INT = 0 in its descriptor: its
/// completion counts towards interrupt coalescing.
fn put_counted_task(ram: &mut Ram<'_>, tag: u8) {
    put_task(ram, tag, true);
    let slot = RAM_BASE + SLOT_LEN * u64::from(tag);
    let mut word = [0u8; 8];
    ram.read(slot, &mut word).unwrap();
    let int = DESC_ATTRIBUTES::zeroed().with_int(true).raw();
    let task = u64::from_le_bytes(word) & !int;
    ram.write(slot, &task.to_le_bytes()).unwrap();
}

/// Rings the doorbell of the tasks in `mask` (already written) and runs the model.
fn ring(bus: &Bus<MsdcModel>, card: &mut Card<'_>, ram: &mut Ram<'_>, mask: u32) {
    bus.write(CQTDBR::zeroed().try_with_dbr(mask).unwrap());
    bus.model().run(card, ram, 32);
}

/// The software's acknowledgement of a completion interrupt: CQIS and CQTCN written back.
fn acknowledge(bus: &Bus<MsdcModel>) {
    bus.write(CQIS::from_raw(bus.read::<CQIS>().raw()));
    bus.write(CQTCN::from_raw(bus.read::<CQTCN>().raw()));
}

/// CQIC with coalescing on: `threshold` completions, `timeout` units (ICCTH, ICTOVAL with
/// their write enables).
fn coalescing(threshold: u32, timeout: u32) -> CQIC {
    CQIC::zeroed()
        .with_icendis(true)
        .with_iccthwen(true)
        .try_with_iccth(threshold)
        .unwrap()
        .with_ictovalwen(true)
        .try_with_ictoval(timeout)
        .unwrap()
}

/// The counter and timer reset (ICCTR), coalescing left on.
fn reset_counter() -> CQIC {
    CQIC::zeroed().with_icendis(true).with_icctr(true)
}

#[test]
fn coalescing_counts_int0_completions_to_the_threshold_and_times_the_rest() {
    with_rig(|bus, card, ram| {
        enable_cqhci(bus);
        // ICTOVAL 127: 127 × 1024 clocks of the block's 200 MHz internal timer (CQCAP),
        // longer than a task at the set-up's 25 MHz on one line takes.
        bus.write(coalescing(3, 127));
        let ic = bus.read::<CQIC>();
        assert_eq!((ic.iccth(), ic.ictoval(), ic.icendis()), (3, 127, true));
        let timeout = bus.model().cqhci().unwrap().coalescing_timeout_ns();
        assert_eq!(timeout, Some(650_240));
        assert!(!ic.icsb());
        assert_eq!(
            bus.model().cqhci().unwrap().coalescing_deadline_ns(),
            None,
            "the timer waits for a counted completion"
        );

        // Two of three: counted, not signalled; ICSB says so.
        put_counted_task(ram, 0);
        put_counted_task(ram, 1);
        ring(bus, card, ram, 0b11);
        assert_eq!(bus.read::<CQTCN>().tcn(), 0b11);
        assert!(!bus.read::<CQIS>().tcc(), "below the threshold");
        assert!(bus.read::<CQIC>().icsb());
        // The timer started when the first task's work ended, not at its doorbell.
        let deadline = bus
            .model()
            .cqhci()
            .unwrap()
            .coalescing_deadline_ns()
            .unwrap();
        let now = bus.model().now_ns();
        assert!(
            deadline > now && deadline < now + 650_240,
            "{deadline} {now}"
        );
        // Running the block again takes no time: nothing is signalled.
        bus.model().run(card, ram, 32);
        assert!(!bus.read::<CQIS>().tcc());
        // Just short of the timeout: still nothing.
        bus.model().elapse(deadline - now - 1);
        bus.model().run(card, ram, 32);
        assert!(!bus.read::<CQIS>().tcc());
        // At the timeout: the interrupt, and the timer stops (no deadline until a reset).
        bus.model().elapse(1);
        bus.model().run(card, ram, 32);
        assert!(bus.read::<CQIS>().tcc(), "the timer flushes the count");
        assert_eq!(bus.model().cqhci().unwrap().coalescing_deadline_ns(), None);
        assert!(
            bus.read::<CQIC>().icsb(),
            "the count stays until software resets it"
        );
        bus.write(reset_counter());
        assert!(!bus.read::<CQIC>().icsb());
        acknowledge(bus);

        // Two counted completions reach a threshold of two before the timer runs out.
        bus.write(coalescing(2, 127));
        put_counted_task(ram, 2);
        put_counted_task(ram, 3);
        ring(bus, card, ram, 0b1100);
        assert!(bus.read::<CQIS>().tcc(), "the threshold signals");
        assert!(
            bus.model()
                .cqhci()
                .unwrap()
                .coalescing_deadline_ns()
                .is_some(),
            "the timer is still running"
        );
        bus.write(reset_counter());
        assert_eq!(bus.model().cqhci().unwrap().coalescing_deadline_ns(), None);
        acknowledge(bus);

        // A task with INT = 1 bypasses the counter.
        put_task(ram, 0, true);
        ring(bus, card, ram, 1);
        assert!(bus.read::<CQIS>().tcc());
        assert!(!bus.read::<CQIC>().icsb(), "not counted");
        acknowledge(bus);
        let model = bus.model();
        assert_eq!(model.cqhci().unwrap().violations(), (0, None));
    });
}

#[test]
fn cqic_takes_iccth_and_ictoval_only_with_their_write_enables_and_icendis_off_counts_nothing() {
    with_rig(|bus, card, ram| {
        enable_cqhci(bus);
        bus.write(coalescing(4, 6));
        // Without the write enables the fields keep their values; ICENDIS is always taken.
        bus.write(
            CQIC::zeroed()
                .with_icendis(true)
                .try_with_iccth(9)
                .unwrap()
                .try_with_ictoval(1)
                .unwrap(),
        );
        let ic = bus.read::<CQIC>();
        assert_eq!((ic.iccth(), ic.ictoval()), (4, 6));
        bus.write(
            CQIC::zeroed()
                .with_iccthwen(true)
                .try_with_iccth(9)
                .unwrap(),
        );
        let ic = bus.read::<CQIC>();
        assert_eq!((ic.iccth(), ic.ictoval(), ic.icendis()), (9, 6, false));
        // Coalescing off: an INT = 0 completion interrupts at once and is not counted.
        put_counted_task(ram, 0);
        ring(bus, card, ram, 1);
        assert!(bus.read::<CQIS>().tcc());
        assert!(!bus.read::<CQIC>().icsb());
        assert_eq!(bus.model().cqhci().unwrap().coalescing_deadline_ns(), None);
    });
}

#[test]
fn a_run_to_the_interrupt_stops_at_the_step_that_signals() {
    with_rig(|bus, card, ram| {
        enable_cqhci(bus);
        bus.write(MSDC_INTEN::from_raw(
            MSDC_INT::zeroed().with_cmdq(true).raw(),
        ));
        put_task(ram, 0, true);
        put_task(ram, 1, true);
        bus.write(CQTDBR::zeroed().try_with_dbr(0b11).unwrap());
        let (steps, signalled) = bus.model().run_to_interrupt(card, ram, 32);
        assert!(signalled && steps > 0, "{steps}");
        assert_eq!(
            bus.read::<CQTCN>().tcn(),
            0b01,
            "stopped at the first completion"
        );
        // With the line still pending the run goes on to the end of the work.
        let (_, signalled) = bus.model().run_to_interrupt(card, ram, 32);
        assert!(!signalled);
        assert_eq!(bus.read::<CQTCN>().tcn(), 0b11);
        // Nothing left: no step, no signal.
        acknowledge(bus);
        assert_eq!(bus.model().run_to_interrupt(card, ram, 32), (0, false));
    });
}
