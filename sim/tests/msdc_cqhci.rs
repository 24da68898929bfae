// SPDX-License-Identifier: GPL-2.0
//! The MSDC model with its CQHCI block: one `Bus<MsdcModel>` is an `Io<MsdcBase>` and an
//! `Io<CqhciBlock>` on one register space, the legacy engine and the CQHCI engine drive the
//! same eMMC card, and `MSDC_INT.CMDQ` follows the block's interrupt. The descriptors are
//! built with the model's own CQHCI definitions (JESD84-B51 CQHCI); the one number checked
//! against the hardware is the block's place at `base + 0x800` (mtk-sd.c).

use registers::{Io, PollLimit};
use sim::bus::Bus;
use sim::cqhci::desc::{Act, DATA_DESC, DATA_DESC_HI, DESC_ATTRIBUTES, TASK_DESC};
use sim::cqhci::regs::{
    CQCFG, CQCTL, CQIS, CQISGE, CQISTE, CQSSC1, CQSSC2, CQTCN, CQTDBR, CQTDLBA, CQTDLBAU, CQVER,
};
use sim::cqhci::Fault as CqFault;
use sim::emmc::{Card, ReadyOrder};
use sim::latency::{Latency, ResponseLength};
use sim::msdc::controller::CLOCK_STABLE_POLLS;
use sim::msdc::regs::{ResponseType, MSDC_CFG, MSDC_INT, MSDC_INTEN, SDC_ARG, SDC_CMD, SDC_RESP0};
use sim::msdc::{ModelConfig, MsdcModel, Violation};
use sim::{BusMemory, Ram};

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
    Bus::new(MsdcModel::with_cqhci(
        config(),
        sim::cqhci::ModelConfig::MEDIATEK,
    ))
}

/// SD mode, 25 MHz (200 MHz / (4 × 2)): within the initialised card's 26 MHz.
fn legacy_setup(bus: &Bus<MsdcModel>) {
    bus.write(MSDC_CFG::zeroed().with_mode(true).with_const_ckdiv::<2>());
    let limit = PollLimit {
        attempts: CLOCK_STABLE_POLLS + 1,
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
    let slot = RAM_BASE + SLOT_LEN * u64::from(tag);
    let xfer = XFER_AT + 16 * u64::from(tag);
    let data = DATA_AT + 0x800 * u64::from(tag);
    let task = DESC_ATTRIBUTES::zeroed()
        .with_valid(true)
        .with_end(true)
        .with_int(true)
        .with_act(Act::Task)
        .raw()
        | TASK_DESC::zeroed()
            .with_data_direction(read)
            .try_with_block_count(u64::from(BLOCKS))
            .unwrap()
            .try_with_block_address(u64::from(SECTOR))
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
            .try_with_length(u64::from(BLOCKS) * 512)
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
    let mut storage = vec![0u8; 64 * 512];
    let mut card = Card::new(&mut storage, 32, ReadyOrder::Immediate);
    card.initialize(RCA, true).unwrap();
    let mut bytes = vec![0u8; RAM_LEN];
    let mut ram = Ram::new(RAM_BASE, &mut bytes);
    let bus = joined();
    legacy_setup(&bus);
    f(&bus, &mut card, &mut ram);
}

#[test]
fn the_cqhci_block_sits_at_0x800_of_the_base_window() {
    assert_eq!(
        <MsdcModel as sim::bus::Serves<sim::windows::CqhciBlock>>::BASE,
        0x800
    );
    assert_eq!(sim::msdc::regs::CQHCI_BASE, 0x800);
    assert_eq!(sim::msdc::regs::WINDOW, 0x860);
    let bus = joined();
    // CQVER through the CQHCI window and as a raw offset of the base window agree.
    let version = bus.read::<CQVER>().raw();
    assert_eq!(version, sim::cqhci::ModelConfig::MEDIATEK.version.raw());
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
                >= 4 * l.command_ns(sim::latency::ResponseLength::Short, hz)
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
        put_task(ram, 0, true);
        bus.write(CQTDBR::zeroed().try_with_dbr(1).unwrap());
        bus.model().run(card, ram, 32);
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
        put_task(ram, 0, true);
        bus.write(CQTDBR::zeroed().try_with_dbr(1).unwrap());
        bus.model().run(card, ram, 32);
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
    for offset in 0..sim::msdc::MAX_VIOLATIONS + 2 {
        bus.model().read(0x700 + 4 * offset);
    }
    let model = bus.model();
    let (count, first) = model.violations();
    assert_eq!(count as usize, sim::msdc::MAX_VIOLATIONS + 2);
    assert_eq!(first[0], Some(Violation::UnknownRegister(0x700)));
    let last = 0x700 + 4 * (sim::msdc::MAX_VIOLATIONS + 1);
    assert_eq!(
        model.last_violation(),
        Some(Violation::UnknownRegister(last))
    );
}
