// SPDX-License-Identifier: GPL-2.0
//! Power and clocks of the MSDC model, against the hardware facts: a power domain that goes
//! off resets every register of the IP (the reason upstream's `msdc_runtime_suspend` saves
//! the configuration and tuning registers), a register access with `hclk` gated or the power
//! off cannot work, and a gated source clock stops the card clock with `MSDC_CFG.CKSTB` low
//! until the clock runs and has re-stabilised (upstream's `msdc_ungate_clock` polls it).

use models::bus::Bus;
use models::cqhci::regs::{
    CQCFG, CQRMEM, CQRMEM_RESET, CQSSC1, CQSSC1_RESET, CQTDBR, CQTDLBA, CQTDLBAU, CQVER,
};
use models::emmc::{Card, ReadyOrder};
use models::msdc::controller::CLOCK_SETTLE_NS;
use models::msdc::regs::{
    DataType, ResponseType, CQHCI_BASE, EMMC50_CFG0, EMMC50_CFG3, MSDC_CFG, MSDC_INT, MSDC_INTEN,
    MSDC_IOCON, MSDC_PAD_TUNE, MSDC_PAD_TUNE0, MSDC_PATCH_BIT, MSDC_PATCH_BIT1, MSDC_PATCH_BIT2,
    PAD_CMD_TUNE, PAD_DS_TUNE, SDC_ADV_CFG0, SDC_ARG, SDC_BLK_NUM, SDC_CFG, SDC_CMD, SDC_FIFO_CFG,
    SDC_RESP0, SDC_STS,
};
use models::msdc::{ModelClock, ModelConfig, MsdcModel, Violation};
use models::Ram;
use registers::{Io, PollLimit};

const RCA: u16 = 1;
const RAM_BASE: u64 = 0x4000_0000;

fn joined() -> Bus<MsdcModel> {
    Bus::new(MsdcModel::with_cqhci(
        ModelConfig::default(),
        models::cqhci::ModelConfig::MEDIATEK,
    ))
}

/// SD mode with the clock running free, 25 MHz (200 MHz / (4 × 2)), as the driver's
/// initialisation leaves it; CKSTB waited for.
fn clock_setup(bus: &Bus<MsdcModel>) {
    bus.write(
        MSDC_CFG::zeroed()
            .with_mode(true)
            .with_ckpdn(true)
            .with_const_ckdiv::<2>(),
    );
    assert!(ckstb_after_settling(bus));
}

/// Whether `MSDC_CFG.CKSTB`, clear on reads without time passing, reads set once
/// [`CLOCK_SETTLE_NS`] has passed on the model clock.
fn ckstb_after_settling(bus: &Bus<MsdcModel>) -> bool {
    for read in 0..4 {
        if bus.read::<MSDC_CFG>().ckstb() {
            panic!("CKSTB set at read {read}, before the clock settled");
        }
    }
    bus.model().elapse(CLOCK_SETTLE_NS);
    let limit = PollLimit {
        attempts: 1,
        interval_us: 1,
    };
    bus.poll::<MSDC_CFG>(MSDC_CFG::ckstb, limit).is_ok()
}

/// Starts CMD13 to the card through the legacy registers (not stepped).
fn start_cmd13(bus: &Bus<MsdcModel>) {
    bus.write(SDC_ARG::from_raw(u32::from(RCA) << 16));
    bus.write(
        SDC_CMD::zeroed()
            .with_const_opcode::<13>()
            .with_const_rsptyp::<{ ResponseType::R1 as u32 }>(),
    );
}

/// An initialised eMMC card (RCA 1, command queueing on), RAM and the joined model with
/// its clock set up, handed to `f`.
fn with_rig(f: impl FnOnce(&Bus<MsdcModel>, &mut Card<'_>, &mut Ram<'_>)) {
    let mut storage = vec![0u8; 64 * 512];
    let mut card = Card::new(&mut storage, 32, ReadyOrder::Immediate);
    card.initialize(RCA, true).unwrap();
    let mut bytes = vec![0u8; 0x1000];
    let mut ram = Ram::new(RAM_BASE, &mut bytes);
    let bus = joined();
    clock_setup(&bus);
    f(&bus, &mut card, &mut ram);
}

fn cqhci(offset: usize) -> usize {
    CQHCI_BASE + offset
}

/// Registers that lose their contents with the power, each with a value other than its
/// reset value: upstream's runtime PM save set (`msdc_save_reg`) with both pad tune
/// layouts, `MSDC_INTEN` and the CQHCI block's configuration.
fn configuration() -> [(usize, u32); 17] {
    [
        (
            MSDC_CFG::OFFSET,
            MSDC_CFG::zeroed()
                .with_mode(true)
                .with_ckpdn(true)
                .with_const_ckdiv::<4>()
                .raw(),
        ),
        (MSDC_IOCON::OFFSET, 0x0000_0103),
        (MSDC_PATCH_BIT::OFFSET, 0x403C_0046),
        (MSDC_PATCH_BIT1::OFFSET, 0xFFFF_4089),
        (MSDC_PATCH_BIT2::OFFSET, 0x1000_0000 | 1 << 20),
        (MSDC_PAD_TUNE::OFFSET, 0x0A0A_0A0A),
        (MSDC_PAD_TUNE0::OFFSET, 0x0010_0000),
        (PAD_DS_TUNE::OFFSET, 0x0000_3000),
        (PAD_CMD_TUNE::OFFSET, 0x0000_0006),
        (SDC_CFG::OFFSET, 0x0301_0000 | 2 << 16),
        (
            MSDC_INTEN::OFFSET,
            MSDC_INT::zeroed().with_cmdtmo(true).with_cmdq(true).raw(),
        ),
        (EMMC50_CFG0::OFFSET, 0x0000_0001),
        (EMMC50_CFG3::OFFSET, 0x0000_0001),
        (SDC_FIFO_CFG::OFFSET, 0x0300_0000),
        (cqhci(CQTDLBA::OFFSET), 0x4000_0000),
        (cqhci(CQSSC1::OFFSET), 0),
        (
            cqhci(CQCFG::OFFSET),
            CQCFG::zeroed().with_cq_en(true).with_dcmd_en(true).raw(),
        ),
    ]
}

#[test]
fn a_new_model_is_powered_with_both_clocks_running() {
    for model in [
        MsdcModel::new(ModelConfig::default()),
        MsdcModel::with_cqhci(ModelConfig::default(), models::cqhci::ModelConfig::MEDIATEK),
    ] {
        assert!(model.is_powered());
        assert!(model.clock_running(ModelClock::Register));
        assert!(model.clock_running(ModelClock::Source));
        assert_eq!(model.power_offs(), 0);
        let bus = Bus::new(model);
        assert!(bus.read::<MSDC_CFG>().ckstb(), "stable from the start");
        assert_eq!(bus.model().violations().0, 0);
    }
}

#[test]
fn power_off_returns_every_register_to_its_reset_value() {
    let fresh = joined();
    let reset: Vec<(usize, u32)> = configuration()
        .iter()
        .map(|&(offset, _)| (offset, fresh.model().read(offset)))
        .collect();
    assert_eq!(
        fresh.model().read(cqhci(CQSSC1::OFFSET)),
        CQSSC1_RESET.raw(),
        "a reset value other than 0"
    );

    let bus = joined();
    for (offset, value) in configuration() {
        bus.model().write(offset, value);
    }
    // CKSTB comes back after the divider change; then every register holds its value.
    assert!(ckstb_after_settling(&bus));
    for ((offset, value), &(_, reset)) in configuration().iter().zip(&reset) {
        let read = bus.model().read(*offset);
        let expected = if *offset == MSDC_CFG::OFFSET {
            MSDC_CFG::from_raw(*value).with_ckstb(true).raw()
        } else {
            *value
        };
        assert_eq!(read, expected, "offset {offset:#x}");
        assert_ne!(read, reset, "offset {offset:#x} holds a non-reset value");
    }
    bus.write(CQRMEM::from_raw(0));
    assert!(bus.model().cqhci().unwrap().is_enabled());

    bus.model().power_off();
    assert!(!bus.model().is_powered());
    bus.model().power_on();
    assert!(bus.model().is_powered());
    for &(offset, value) in &reset {
        assert_eq!(bus.model().read(offset), value, "offset {offset:#x}");
    }
    assert_eq!(bus.read::<CQRMEM>().raw(), CQRMEM_RESET.raw());
    assert!(!bus.model().cqhci().unwrap().is_enabled());
    let model = bus.model();
    assert_eq!(model.violations().0, 0, "{:?}", model.violations());
    assert_eq!(model.cqhci().unwrap().violations(), (0, None));
    assert_eq!(model.power_offs(), 1);
}

#[test]
fn pending_interrupts_vanish_with_the_power() {
    with_rig(|bus, card, ram| {
        // CMD13 to RCA 2: nobody answers.
        bus.write(MSDC_INTEN::from_raw(
            MSDC_INT::zeroed().with_cmdtmo(true).raw(),
        ));
        bus.write(SDC_ARG::from_raw(2 << 16));
        bus.write(
            SDC_CMD::zeroed()
                .with_const_opcode::<13>()
                .with_const_rsptyp::<{ ResponseType::R1 as u32 }>(),
        );
        bus.model().run(card, ram, 4);
        assert!(bus.model().interrupt_pending());
        bus.model().power_off();
        assert!(!bus.model().interrupt_pending());
        bus.model().power_on();
        assert!(!bus.model().interrupt_pending());
        assert_eq!(bus.read::<MSDC_INT>().raw(), 0);
        assert_eq!(bus.model().violations().0, 0);
    });
}

#[test]
fn an_access_while_off_or_with_hclk_gated_is_recorded_and_reads_0() {
    let bus = joined();
    bus.write(SDC_ARG::from_raw(0x1234));
    let version = models::cqhci::ModelConfig::MEDIATEK.version.raw();

    bus.model().power_off();
    assert_eq!(bus.read::<MSDC_CFG>().raw(), 0);
    bus.write(SDC_ARG::from_raw(5));
    assert_eq!(bus.read::<CQVER>().raw(), 0);
    bus.write(CQTDLBAU::from_raw(1));
    {
        let model = bus.model();
        let (count, first) = model.violations();
        assert_eq!(count, 4);
        assert_eq!(
            first[..4],
            [
                Some(Violation::UnpoweredAccess {
                    offset: MSDC_CFG::OFFSET,
                    write: false
                }),
                Some(Violation::UnpoweredAccess {
                    offset: SDC_ARG::OFFSET,
                    write: true
                }),
                Some(Violation::UnpoweredAccess {
                    offset: cqhci(CQVER::OFFSET),
                    write: false
                }),
                Some(Violation::UnpoweredAccess {
                    offset: cqhci(CQTDLBAU::OFFSET),
                    write: true
                }),
            ]
        );
    }
    // Powered off with hclk gated as well: the power is the reason.
    bus.model().set_clock(ModelClock::Register, false);
    bus.read::<SDC_ARG>();
    assert_eq!(
        bus.model().last_violation(),
        Some(Violation::UnpoweredAccess {
            offset: SDC_ARG::OFFSET,
            write: false
        })
    );
    bus.model().power_on();

    // Powered, hclk gated.
    bus.write(SDC_ARG::from_raw(0x5678));
    bus.model().set_clock(ModelClock::Register, true);
    assert_eq!(bus.read::<SDC_ARG>().raw(), 0, "the power-off reset it");
    bus.write(SDC_ARG::from_raw(0x1234));
    bus.model().set_clock(ModelClock::Register, false);
    assert!(!bus.model().clock_running(ModelClock::Register));
    assert_eq!(bus.read::<SDC_ARG>().raw(), 0);
    bus.write(SDC_ARG::from_raw(9));
    assert_eq!(bus.read::<CQVER>().raw(), 0);
    {
        let model = bus.model();
        assert_eq!(model.violations().0, 9);
        assert_eq!(
            model.violations().1[5..8],
            [
                Some(Violation::GatedAccess {
                    offset: SDC_ARG::OFFSET,
                    write: true
                }),
                Some(Violation::GatedAccess {
                    offset: SDC_ARG::OFFSET,
                    write: false
                }),
                Some(Violation::GatedAccess {
                    offset: SDC_ARG::OFFSET,
                    write: true
                }),
            ]
        );
        assert_eq!(
            model.last_violation(),
            Some(Violation::GatedAccess {
                offset: cqhci(CQVER::OFFSET),
                write: false
            })
        );
    }
    bus.model().set_clock(ModelClock::Register, true);
    assert_eq!(
        bus.read::<SDC_ARG>().raw(),
        0x1234,
        "the gated write was lost"
    );
    assert_eq!(bus.read::<CQVER>().raw(), version);
    assert_eq!(bus.model().violations().0, 9);
}

#[test]
fn power_off_during_a_command_drops_it_and_is_a_violation() {
    with_rig(|bus, card, ram| {
        let commands = bus.model().commands();
        let _ = bus.model().take_elapsed_ns();
        start_cmd13(bus);
        assert!(bus.read::<SDC_STS>().cmdbusy());
        bus.model().power_off();
        assert_eq!(
            bus.model().last_violation(),
            Some(Violation::PowerOffWhileBusy)
        );
        assert_eq!(bus.model().run(card, ram, 4), 0, "nothing runs while off");
        bus.model().power_on();
        assert!(!bus.model().busy());
        assert_eq!(bus.model().run(card, ram, 4), 0, "the command is gone");
        assert_eq!(bus.read::<MSDC_INT>().raw(), 0, "and never completes");
        assert!(!bus.read::<SDC_STS>().cmdbusy());
        let mut model = bus.model();
        assert_eq!(model.commands(), commands, "never sent");
        assert_eq!(model.take_elapsed_ns(), 0);
        assert_eq!(model.violations().0, 1);
    });
}

#[test]
fn a_data_phase_waiting_for_its_dma_is_work_in_progress() {
    with_rig(|bus, card, ram| {
        // CMD17: the card answers and opens its data phase; the DMA was never started.
        bus.write(SDC_BLK_NUM::from_raw(1));
        bus.write(SDC_ARG::from_raw(0));
        bus.write(
            SDC_CMD::zeroed()
                .with_const_opcode::<17>()
                .with_const_rsptyp::<{ ResponseType::R1 as u32 }>()
                .with_dtype(DataType::Single)
                .with_const_blklen::<512>(),
        );
        bus.model().run(card, ram, 4);
        assert!(bus.read::<MSDC_INT>().cmdrdy());
        assert!(bus.model().busy() && bus.read::<SDC_STS>().sdcbusy());
        bus.model().set_clock(ModelClock::Source, false);
        assert_eq!(
            bus.model().last_violation(),
            Some(Violation::ClockGatedWhileBusy(ModelClock::Source))
        );
        bus.model().power_off();
        assert_eq!(
            bus.model().last_violation(),
            Some(Violation::PowerOffWhileBusy)
        );
        bus.model().power_on();
        assert!(!bus.model().busy());
        assert_eq!(bus.model().violations().0, 2);
    });
}

#[test]
fn power_off_with_a_cqhci_task_in_progress_is_a_violation() {
    let bus = joined();
    // A violation of the block's own first: its count survives the power cycle.
    bus.write(CQTDBR::zeroed().try_with_dbr(1).unwrap());
    assert_eq!(bus.model().cqhci().unwrap().violations().0, 1);
    bus.write(CQTDLBA::from_raw(RAM_BASE as u32));
    bus.write(CQCFG::zeroed().with_cq_en(true));
    bus.write(CQTDBR::zeroed().try_with_dbr(1).unwrap());
    assert!(bus.model().cqhci().unwrap().tasks_in_progress());
    bus.model().power_off();
    bus.model().power_on();
    let model = bus.model();
    assert_eq!(model.last_violation(), Some(Violation::PowerOffWhileBusy));
    let cq = model.cqhci().unwrap();
    assert!(!cq.tasks_in_progress() && !cq.is_enabled() && !cq.is_halted());
    assert_eq!(cq.violations().0, 1);
    drop(model);
    assert_eq!(bus.read::<CQTDBR>().raw(), 0);
}

#[test]
fn a_gated_source_clock_stops_the_bus_and_ckstb_until_it_runs_again() {
    with_rig(|bus, card, ram| {
        // Gating while idle is fine, and ungating makes CKSTB settle again.
        bus.model().set_clock(ModelClock::Source, false);
        assert!(!bus.model().clock_running(ModelClock::Source));
        bus.model().set_clock(ModelClock::Source, true);
        assert!(ckstb_after_settling(bus));
        assert_eq!(bus.model().violations().0, 0);

        let _ = bus.model().take_elapsed_ns();
        start_cmd13(bus);
        bus.model().set_clock(ModelClock::Source, false);
        assert_eq!(
            bus.model().last_violation(),
            Some(Violation::ClockGatedWhileBusy(ModelClock::Source))
        );
        assert!(!bus.model().step(card, ram));
        assert_eq!(bus.model().run(card, ram, 8), 0);
        assert_eq!(bus.model().take_elapsed_ns(), 0, "no time passes");
        assert_eq!(bus.model().bus_clock_hz(), 0);
        bus.model().elapse(2 * CLOCK_SETTLE_NS);
        for _ in 0..4 {
            assert!(!bus.read::<MSDC_CFG>().ckstb(), "CKSTB low while gated");
        }
        // The registers still answer (hclk runs): the command waits.
        assert!(bus.read::<SDC_STS>().cmdbusy());
        assert_eq!(bus.read::<MSDC_INT>().raw(), 0);

        bus.model().set_clock(ModelClock::Source, true);
        assert!(ckstb_after_settling(bus));
        assert_eq!(bus.model().bus_clock_hz(), 25_000_000);
        assert_eq!(bus.model().run(card, ram, 8), 1);
        assert!(bus.read::<MSDC_INT>().cmdrdy());
        assert_eq!(bus.read::<SDC_RESP0>().raw() >> 9 & 0xF, 4, "tran state");
        assert!(bus.model().take_elapsed_ns() > 0);
        assert_eq!(bus.model().violations().0, 1);
    });
}

#[test]
fn a_command_issued_with_the_source_clock_gated_has_no_stable_clock() {
    with_rig(|bus, card, ram| {
        bus.model().set_clock(ModelClock::Source, false);
        start_cmd13(bus);
        assert_eq!(
            bus.model().last_violation(),
            Some(Violation::ClockNotStable)
        );
        assert_eq!(bus.model().run(card, ram, 8), 0);
        bus.model().set_clock(ModelClock::Source, true);
        assert_eq!(bus.model().run(card, ram, 8), 1);
        assert!(bus.read::<MSDC_INT>().cmdrdy());
    });
}

#[test]
fn hclk_gating_stops_the_registers_not_the_engine() {
    with_rig(|bus, card, ram| {
        start_cmd13(bus);
        bus.model().set_clock(ModelClock::Register, false);
        assert_eq!(bus.model().violations().0, 0, "gating hclk is no violation");
        assert_eq!(bus.model().run(card, ram, 8), 1);
        bus.model().set_clock(ModelClock::Register, true);
        assert!(bus.read::<MSDC_INT>().cmdrdy());
    });
}

#[test]
fn power_offs_count_and_the_clocks_stay_as_they_were_set() {
    let bus = joined();
    bus.model().set_clock(ModelClock::Source, false);
    bus.model().power_off();
    bus.model().power_off();
    assert_eq!(bus.model().power_offs(), 1, "already off");
    bus.model().power_on();
    bus.model().power_on();
    assert!(!bus.model().clock_running(ModelClock::Source));
    assert!(bus.model().clock_running(ModelClock::Register));
    assert!(!bus.read::<MSDC_CFG>().ckstb(), "still gated");
    bus.model().set_clock(ModelClock::Source, true);
    assert!(ckstb_after_settling(&bus));
    bus.model().power_off();
    bus.model().power_on();
    let model = bus.model();
    assert_eq!(model.power_offs(), 2);
    assert_eq!(model.violations().0, 0);
}

/// A runtime suspend on MediaTek's SoCs gates the controller's clocks and nothing more:
/// none of their device trees gives an MSDC node a power domain, and upstream programs
/// its CQHCI block again only after a system sleep (`msdc_suspend()` →
/// `cqhci_suspend()`), not after a runtime suspend (`msdc_runtime_resume()`). Gating
/// both clocks must keep every register, the CQHCI block's task list base and
/// configuration included, and `SDC_ADV_CFG0`'s DAT1 interrupt detection, which upstream
/// sets only in `msdc_init_hw()` and saves nowhere; the gatings of `hclk` are counted.
#[test]
fn gating_the_clocks_keeps_every_register_the_cqhci_blocks_included() {
    let bus = joined();
    let adv = SDC_ADV_CFG0::zeroed().with_dat1_irq_trigger(true);
    let mut written = configuration().to_vec();
    written.push((SDC_ADV_CFG0::OFFSET, adv.raw()));
    for &(offset, value) in &written {
        bus.model().write(offset, value);
    }
    assert!(ckstb_after_settling(&bus));
    let before: Vec<(usize, u32)> = written
        .iter()
        .map(|&(offset, _)| (offset, bus.model().read(offset)))
        .collect();
    assert_eq!(bus.read::<SDC_ADV_CFG0>(), adv);
    assert_eq!(bus.model().register_clock_gatings(), 0);
    for round in 1..=2 {
        bus.model().set_clock(ModelClock::Source, false);
        bus.model().set_clock(ModelClock::Register, false);
        bus.model().set_clock(ModelClock::Register, false);
        bus.model().set_clock(ModelClock::Register, true);
        bus.model().set_clock(ModelClock::Source, true);
        assert!(ckstb_after_settling(&bus));
        assert_eq!(bus.model().register_clock_gatings(), round, "already gated");
    }
    for &(offset, value) in &before {
        assert_eq!(bus.model().read(offset), value, "offset {offset:#x}");
    }
    assert!(bus.model().cqhci().unwrap().is_enabled());
    bus.model().power_off();
    bus.model().power_on();
    let model = bus.model();
    assert_eq!(
        model.register_clock_gatings(),
        2,
        "the count outlives the power"
    );
    assert_eq!(model.violations().0, 0, "{:?}", model.violations());
}
