// SPDX-License-Identifier: GPL-2.0

//! Register programming and the bounded waits: initialisation values written out from the
//! bit definitions (mtk-sd.c `msdc_init_hw`), clock and bus width, card detect, card busy,
//! SDIO interrupts, refused requests, and hardware that never finishes a self-clearing bit.

use mmc_request::{Data, ErrorKind, Request};
use models::sd::BLOCK_SIZE;
use msdc::clock::{ClockError, Timing};
use msdc::command::CommandError;
use msdc::controller::{
    CardDetect, Controller, HostSetup, HwError, Progress, StartError, POLL_LIMIT,
    RESET_POLL_LIMIT_IRQ,
};
use msdc::dma::DmaError;
use msdc::soc::{self, SocData};

use slot::Refusal;

use crate::rig::{
    block_request, command, flags, legacy_config, modern_config, read_data, request, Host, Rig,
    CFG_CKSTB, MSDC_CFG, MSDC_DMA_CFG, MSDC_DMA_CTRL, MSDC_INTEN, MSDC_PS,
};
use crate::sd::{rca_arg, sd_host, sd_init, sd_rig};

const MSDC_IOCON: usize = 0x04;
const SDC_CFG: usize = 0x30;
const SDC_ADV_CFG0: usize = 0x64;
const DMA_SA_H4BIT: usize = 0x8C;
const MSDC_DMA_SA: usize = 0x90;
const MSDC_PATCH_BIT0: usize = 0xB0;
const MSDC_PATCH_BIT1: usize = 0xB4;
const MSDC_PATCH_BIT2: usize = 0xB8;
const EMMC50_CFG0: usize = 0x208;

const CFG_MODE: u32 = 1 << 0;
const CFG_CKPDN: u32 = 1 << 1;
const CFG_PIO: u32 = 1 << 3;
const INT_CDSC: u32 = 1 << 1;
const INT_SDIOIRQ: u32 = 1 << 7;
const INT_CMDRDY: u32 = 1 << 8;
/// CMDRDY, CMDTMO, RSPCRCERR, ACMDRDY, ACMDTMO, ACMDCRCERR.
const COMMAND_INTERRUPTS: u32 = 0x700 | 0x38;
const SDC_CFG_INSWKUP: u32 = 1 << 1;
const SDC_CFG_SDIO: u32 = 1 << 19;
const SDC_CFG_SDIOIDE: u32 = 1 << 20;
const ADV_DAT1_IRQ_TRIGGER: u32 = 1 << 19;
const ADV_RX_ENHANCE_EN: u32 = 1 << 20;
const PS_CDEN: u32 = 1 << 0;
const PS_CDSTS: u32 = 1 << 1;
const PS_DAT0: u32 = 1 << 16;
const PS_DATA1: u32 = 1 << 17;

fn dtoc(sdc_cfg: u32) -> u32 {
    sdc_cfg >> 24
}

/// `MSDC_PATCH_BIT0` after init on every SoC: ODDSUPP 1, DIS_WRMON 2, DESCUP_SEL 6,
/// CKGEN_MSDC_DLY_SEL 14:10 = 1, BUSYDLY 21:18 = 15, DECRCTMO 30.
const PATCH_BIT0: u32 = (1 << 1) | (1 << 2) | (1 << 6) | (1 << 10) | (15 << 18) | (1 << 30);

/// `MSDC_PATCH_BIT1` after init without per-SoC bits: WRDAT_CRC_TACNTR 2:0 = 1,
/// CMDTA 5:3 = 1, DDR_CMD_FIX_SEL 14, SINGLE_BURST 16 (AXI_SET_LEN is 0), RSVD20 18:17,
/// AUTO_SYNCST_CLR 19, MARK_POP_WATER 20, LP_DCM_EN 21, RSVD3 22, AHB_GDMA_HCLK 23,
/// MSDC_CLK_ENFEAT 31:24.
const PATCH_BIT1_COMMON: u32 = 1 | (1 << 3) | (1 << 14) | (0xFF << 16) | (0xFF << 24);

#[test]
fn legacy_initialisation() {
    let config = legacy_config();
    let rig = Rig::new(
        &config,
        models::sd::SdCard::new(&mut [], Default::default()),
    );
    let mut ctrl = Controller::<()>::new(config);
    ctrl.init_hardware(&rig).unwrap();
    // MODE, clock gated (CKPDN clear), DMA (PIO clear), 400 kHz = 200 MHz / (4 * 125),
    // stable.
    assert_eq!(
        rig.peek(MSDC_CFG),
        CFG_MODE | (125 << 8) | CFG_CKSTB,
        "MSDC_CFG"
    );
    assert_eq!(rig.peek(MSDC_INTEN), 0);
    assert_eq!(rig.peek(0x0C), 0, "MSDC_INT clear");
    assert_eq!(rig.peek(MSDC_IOCON), 0);
    assert_eq!(rig.peek(MSDC_PATCH_BIT0), PATCH_BIT0);
    // Without busy_check, the controller checks R1b busy itself: BUSY_CHECK_SEL 7.
    assert_eq!(rig.peek(MSDC_PATCH_BIT1), PATCH_BIT1_COMMON | (1 << 7));
    assert_eq!(rig.peek(MSDC_PATCH_BIT2), 0, "32-bit DMA, no async FIFO");
    assert_eq!(rig.peek(SDC_ADV_CFG0), 0);
    assert_eq!(rig.peek(EMMC50_CFG0), 1 << 4, "CFCSTS_SEL");
    assert_eq!(rig.peek(SDC_CFG), 3 << 24, "DTOC 3, 1-bit, no SDIO");
    assert_eq!(rig.peek(MSDC_DMA_CFG), 1 << 1, "descriptor checksums on");
    assert_eq!(rig.peek(MSDC_PS) & 0xF001, 0, "internal card detect off");
    assert_eq!(ctrl.bus_clock_hz(), 0);
    assert!(ctrl.is_idle());
    rig.assert_no_violations();
}

#[test]
fn modern_initialisation() {
    let config = modern_config();
    let rig = Rig::new(
        &config,
        models::sd::SdCard::new(&mut [], Default::default()),
    );
    rig.fifo_cfg.set((1 << 24) | (1 << 25) | 1);
    let mut ctrl = Controller::<()>::new(config);
    ctrl.init_hardware(&rig).unwrap();
    // 12-bit divider: CKDIV 19:8 = 125.
    assert_eq!(rig.peek(MSDC_CFG), CFG_MODE | (125 << 8) | CFG_CKSTB);
    assert_eq!(rig.peek(MSDC_PATCH_BIT0), PATCH_BIT0);
    // busy_check: no BUSY_CHECK_SEL; stop_clk_fix: STOP_DLY 11:8 = 3.
    assert_eq!(rig.peek(MSDC_PATCH_BIT1), PATCH_BIT1_COMMON | (3 << 8));
    // SUPPORT_64G 1, RESPWAIT 3:2 = 3, CFGRESP 15 clear, CFGCRCSTS 28; enhance_rx: no
    // RESPSTSENSEL/CRCSTSENSEL, RX_ENHANCE_EN in SDC_ADV_CFG0 instead.
    assert_eq!(rig.peek(MSDC_PATCH_BIT2), (1 << 1) | (3 << 2) | (1 << 28));
    assert_eq!(rig.peek(SDC_ADV_CFG0), ADV_RX_ENHANCE_EN);
    assert_eq!(rig.fifo_cfg.get(), 1, "WRVALIDSEL and RDVALIDSEL cleared");
    rig.assert_no_violations();

    // SoCs with a top region enable the receive path there (SDC_RX_ENH_EN 15 of
    // EMMC_TOP_CONTROL); MT8196 also has the new transmit and receive paths: NEW_TX_EN 31
    // of SDC_ADV_CFG0, NEW_RX_PATH_SEL 0 of MSDC_NEW_RX_CFG, and LOOP_TEST_CONTROL with
    // the DSCLK (0) and latch (1) muxes, no loop clock (20) at the legacy timing.
    let config = HostSetup {
        soc: &soc::MT8196,
        ..config
    };
    let rig = Rig::new(
        &config,
        models::sd::SdCard::new(&mut [], Default::default()),
    );
    let mut ctrl = Controller::<()>::new(config);
    ctrl.init_hardware(&rig).unwrap();
    assert_eq!(rig.peek(MSDC_PATCH_BIT1), PATCH_BIT1_COMMON | (1 << 8));
    assert_eq!(
        rig.peek(MSDC_PATCH_BIT2),
        (1 << 1) | (3 << 2) | (2 << 20) | (1 << 28),
        "POP_EN_CNT 23:20 = 2"
    );
    assert_eq!(rig.peek(SDC_ADV_CFG0), 1 << 31);
    assert_eq!(rig.peek(0x68), 1, "MSDC_NEW_RX_CFG");
    let top = models::msdc::regs::TOP_BASE;
    // Data tuning: PAD_DAT_RD_RXDLY_SEL 13 and PAD_CMD_RD_RXDLY_SEL 11 (32-cell step).
    assert_eq!(rig.peek(top), (1 << 15) | (1 << 13), "EMMC_TOP_CONTROL");
    assert_eq!(rig.peek(top + 0x04), 1 << 11, "EMMC_TOP_CMD");
    assert_eq!(rig.peek(top + 0x30), 0b11, "LOOP_TEST_CONTROL");
    rig.assert_no_violations();

    // Async FIFO without the enhanced receive path: 2T status delays.
    const NO_ENHANCED_RX: SocData = SocData {
        enhance_rx: false,
        ..soc::MT2712
    };
    let config = HostSetup {
        soc: &NO_ENHANCED_RX,
        ..modern_config()
    };
    let rig = Rig::new(
        &config,
        models::sd::SdCard::new(&mut [], Default::default()),
    );
    Controller::<()>::new(config).init_hardware(&rig).unwrap();
    assert_eq!(
        rig.peek(MSDC_PATCH_BIT2),
        (1 << 1) | (3 << 2) | (2 << 16) | (1 << 28) | (2 << 29),
        "RESPSTSENSEL 18:16 = 2, CRCSTSENSEL 31:29 = 2"
    );
}

/// Per-SoC patch values wider than their fields (STOP_DLY 11:8, POP_EN_CNT 23:20) are
/// refused instead of being dropped.
#[test]
fn patch_values_wider_than_their_fields_fail_initialisation() {
    let config = modern_config();
    // MT2712 (stop-clock fix, no top region) with the values under test.
    let soc_with = |stop_dly_sel, pop_en_cnt| -> &'static SocData {
        Box::leak(Box::new(SocData {
            stop_dly_sel,
            pop_en_cnt,
            ..*config.soc
        }))
    };
    for (stop_dly_sel, pop_en_cnt, max) in [(16, 0, 15), (3, 16, 15)] {
        let rig = Rig::new(
            &config,
            models::sd::SdCard::new(&mut [], Default::default()),
        );
        let soc = soc_with(stop_dly_sel, pop_en_cnt);
        let result = Controller::<()>::new(HostSetup { soc, ..config }).init_hardware(&rig);
        assert_eq!(
            result,
            Err(HwError::PatchOutOfRange(registers::FieldOverflow {
                value: 16,
                max
            })),
            "{soc:?}"
        );
        // Nothing after MSDC_PATCH_BIT0 was written: PATCH_BIT1 keeps its reset value.
        assert_eq!(rig.peek(MSDC_PATCH_BIT0), PATCH_BIT0);
        assert_eq!(rig.peek(MSDC_PATCH_BIT1) & PATCH_BIT1_COMMON, 0);
    }
    // The largest values fit.
    let rig = Rig::new(
        &config,
        models::sd::SdCard::new(&mut [], Default::default()),
    );
    let soc = soc_with(15, 15);
    Controller::<()>::new(HostSetup { soc, ..config })
        .init_hardware(&rig)
        .unwrap();
    assert_eq!((rig.peek(MSDC_PATCH_BIT1) >> 8) & 0xF, 15);
    assert_eq!((rig.peek(MSDC_PATCH_BIT2) >> 20) & 0xF, 15);
}

#[test]
fn initialisation_without_a_source_clock_fails() {
    let config = HostSetup {
        source_hz: 0,
        ..legacy_config()
    };
    let rig = Rig::new(
        &legacy_config(),
        models::sd::SdCard::new(&mut [], Default::default()),
    );
    assert_eq!(
        Controller::<()>::new(config).init_hardware(&rig),
        Err(HwError::UnreachableClock(ClockError::NoSourceClock))
    );
}

#[test]
fn clock_changes_and_data_timeouts() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = Host::new(&rig);
    // The probe-time timeout (3 * 2^20 clocks) at 400 kHz: 3 units, DTOC 2.
    assert_eq!(dtoc(rig.peek(SDC_CFG)), 2);
    assert!(rig.peek(MSDC_CFG) & CFG_CKPDN != 0, "clock running");
    sd_init(&mut host, false);

    // 1 s at 50 MHz: 50,000,000 cycles = 47.7 units of 2^20, rounded up to 48, minus one.
    let req = Request {
        data: Some(Data {
            timeout_ns: 1_000_000_000,
            ..read_data(512, 1)
        }),
        ..block_request(false, 0, 1, false)
    };
    host.run(&req, &[(0, 512)]);
    assert_eq!(dtoc(rig.peek(SDC_CFG)), 47);
    // Halving the clock halves the count: 23.8 units, 24, minus one.
    assert_eq!(host.clock(25_000_000, Timing::SdHighSpeed), 25_000_000);
    assert_eq!(dtoc(rig.peek(SDC_CFG)), 23);
    // DDR doubles it.
    assert_eq!(host.clock(25_000_000, Timing::UhsDdr50), 25_000_000);
    assert_eq!(dtoc(rig.peek(SDC_CFG)), 47);

    // Interrupt enables survive a clock change.
    host.ctrl()
        .set_card_detect(&rig, CardDetect::Internal { active_high: false });
    host.clock(50_000_000, Timing::SdHighSpeed);
    assert_eq!(rig.peek(MSDC_INTEN), INT_CDSC);

    // 0 Hz gates the clock.
    assert_eq!(host.clock(0, Timing::Legacy), 0);
    assert_eq!(rig.peek(MSDC_CFG) & CFG_CKPDN, 0);
    assert_eq!(host.ctrl().bus_clock_hz(), 0);

    // Below what the divider reaches: refused, nothing changed.
    assert_eq!(
        host.ctrl().set_clock(&rig, 1000, Timing::Legacy),
        Err(HwError::UnreachableClock(ClockError::BelowMinimum {
            minimum_hz: 196_079
        }))
    );
    host.clock(50_000_000, Timing::SdHighSpeed);
    host.ok(13, rca_arg(), flags::R1 | flags::AC);
    rig.assert_no_violations();
}

#[test]
fn an_unchanged_clock_request_touches_nothing() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = Host::new(&rig);
    // `Host::new` set the identification clock: asking for it again is nothing to do.
    let (reads, writes) = (rig.reads.get(), rig.writes.get());
    assert_eq!(host.clock(400_000, Timing::Legacy), 400_000);
    assert_eq!(host.clock(400_000, Timing::Legacy), 400_000);
    assert_eq!((rig.reads.get(), rig.writes.get()), (reads, writes));

    assert_eq!(host.clock(25_000_000, Timing::SdHighSpeed), 25_000_000);
    let writes = rig.writes.get();
    assert_eq!(host.clock(25_000_000, Timing::SdHighSpeed), 25_000_000);
    assert_eq!(
        rig.writes.get(),
        writes,
        "same rate and timing: nothing written"
    );
    // The same rate for another timing is programmed again (DDR doubles the timeout).
    assert_eq!(host.clock(25_000_000, Timing::UhsDdr50), 25_000_000);
    assert!(rig.writes.get() > writes);

    // A change that never settled is forgotten: asking again programs it again.
    rig.misbehave.pin_clock_unstable.set(true);
    assert_eq!(
        host.ctrl().set_clock(&rig, 50_000_000, Timing::SdHighSpeed),
        Err(HwError::ClockTimeout)
    );
    rig.misbehave.pin_clock_unstable.set(false);
    assert_eq!(host.clock(50_000_000, Timing::SdHighSpeed), 50_000_000);
    assert_eq!(host.ctrl().bus_clock_hz(), 50_000_000);
    assert!(rig.peek(MSDC_CFG) & CFG_CKPDN != 0, "clock running");

    // Gating is a request like any other.
    assert_eq!(host.clock(0, Timing::Legacy), 0);
    let writes = rig.writes.get();
    assert_eq!(host.clock(0, Timing::Legacy), 0);
    assert_eq!(rig.writes.get(), writes);
}

#[test]
fn bus_width() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let host = Host::new(&rig);
    for (lines, code) in [(4, 1), (8, 2), (1, 0), (3, 0)] {
        host.ctrl().set_bus_width(&rig, lines);
        assert_eq!((rig.peek(SDC_CFG) >> 16) & 3, code, "{lines} lines");
    }
}

#[test]
fn thirty_six_bit_dma_registers() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&modern_config(), &mut storage);
    let mut host = sd_host(&rig);
    host.run(&block_request(false, 0, 1, false), &[(0, 512)]);
    // The descriptor area sits at the bottom of RAM, 0x1_2000_0000.
    assert_eq!(rig.peek(DMA_SA_H4BIT), 1);
    assert_eq!(rig.peek(MSDC_DMA_SA), 0x2000_0000);
    // Descriptor mode 8, 64-byte bursts (BRUSTSZ 14:12 = 6).
    assert_eq!(rig.peek(MSDC_DMA_CTRL), (1 << 8) | (6 << 12));
    assert_eq!(rig.base >> 32, 1);
    rig.assert_no_violations();
}

#[test]
fn interrupt_enables_follow_the_phase() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    host.start(&request(command(13, rca_arg(), flags::R1 | flags::AC)), &[])
        .unwrap();
    assert_eq!(rig.peek(MSDC_INTEN), COMMAND_INTERRUPTS);
    host.wait().unwrap();
    assert_eq!(rig.peek(MSDC_INTEN), 0);

    host.ctrl()
        .set_card_detect(&rig, CardDetect::Internal { active_high: false });
    host.start(&request(command(13, rca_arg(), flags::R1 | flags::AC)), &[])
        .unwrap();
    assert_eq!(rig.peek(MSDC_INTEN), COMMAND_INTERRUPTS | INT_CDSC);
    host.wait().unwrap();
    assert_eq!(rig.peek(MSDC_INTEN), INT_CDSC);
}

#[test]
fn internal_card_detect() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = Host::new(&rig);
    assert_eq!(
        host.ctrl().card_detect(),
        CardDetect::Polled,
        "until the probe says"
    );
    host.ctrl()
        .set_card_detect(&rig, CardDetect::Internal { active_high: false });
    assert_eq!(
        host.ctrl().card_detect(),
        CardDetect::Internal { active_high: false }
    );
    // CDEN with a debounce of 8 (15:12), CDSC enabled, wake-up on insertion.
    assert_eq!(rig.peek(MSDC_PS) & 0xF001, (8 << 12) | PS_CDEN);
    assert_eq!(rig.peek(MSDC_INTEN), INT_CDSC);
    assert!(rig.peek(SDC_CFG) & SDC_CFG_INSWKUP != 0);
    // CDSTS low: present (active low, as upstream reads it).
    assert!(host.ctrl().card_present(&rig));
    rig.misbehave.pin_levels.set(Some((PS_CDSTS, PS_CDSTS)));
    assert!(!host.ctrl().card_present(&rig));

    // `cd-inverted` (MMC_CAP2_CD_ACTIVE_HIGH): CDSTS high is present; the same programming.
    let registers = (rig.peek(MSDC_PS) & 0xF001, rig.peek(MSDC_INTEN));
    host.ctrl()
        .set_card_detect(&rig, CardDetect::Internal { active_high: true });
    assert_eq!(
        (rig.peek(MSDC_PS) & 0xF001, rig.peek(MSDC_INTEN)),
        registers
    );
    assert!(host.ctrl().card_present(&rig));
    rig.misbehave.pin_levels.set(Some((PS_CDSTS, 0)));
    assert!(!host.ctrl().card_present(&rig));
    host.ctrl()
        .set_card_detect(&rig, CardDetect::Internal { active_high: false });
    assert!(host.ctrl().card_present(&rig));
    rig.misbehave.pin_levels.set(None);

    // A change is consumed once, by the card-detect consumer only.
    rig.misbehave.injected_events.set(INT_CDSC | INT_CMDRDY);
    assert!(matches!(
        host.ctrl().handle_interrupt(&rig),
        Progress::Pending
    ));
    assert_eq!(rig.misbehave.injected_events.get(), INT_CDSC | INT_CMDRDY);
    assert!(host.ctrl().card_detect_event(&rig));
    assert!(!host.ctrl().card_detect_event(&rig));
    assert_eq!(rig.misbehave.injected_events.get(), INT_CMDRDY);
    rig.misbehave.injected_events.set(INT_CDSC);
    assert_eq!(host.interrupt(), Some(Progress::Pending));
    assert_eq!(host.card_detect_changes(), 1);

    // A controller reset keeps a pending change for its consumer.
    rig.misbehave.injected_events.set(INT_CDSC | INT_CMDRDY);
    host.ctrl().reset(&rig).unwrap();
    assert_eq!(rig.misbehave.injected_events.get(), INT_CDSC);
    assert!(host.ctrl().card_detect_event(&rig));

    // Re-initialisation keeps the choice.
    host.ctrl().init_hardware(&rig).unwrap();
    assert_eq!(rig.peek(MSDC_PS) & PS_CDEN, PS_CDEN);
    assert_eq!(rig.peek(MSDC_INTEN), INT_CDSC);

    host.ctrl().set_card_detect(&rig, CardDetect::Polled);
    assert_eq!(rig.peek(MSDC_PS) & PS_CDEN, 0);
    assert_eq!(rig.peek(MSDC_INTEN), 0);
    assert_eq!(rig.peek(SDC_CFG) & SDC_CFG_INSWKUP, 0);
    rig.misbehave.injected_events.set(INT_CDSC);
    assert!(!host.ctrl().card_detect_event(&rig), "not enabled");
}

#[test]
fn card_detect_mode_in_upstreams_order() {
    let internal = &soc::MT7620;
    let gpio_only = &soc::MT8183;
    assert!(internal.use_internal_cd && !gpio_only.use_internal_cd);
    // (non-removable, cd-gpios, broken-cd / needs poll) for each SoC kind.
    for (non_removable, gpio, poll, with_pin, without_pin) in [
        (true, true, true, CardDetect::Fixed, CardDetect::Fixed),
        (true, false, false, CardDetect::Fixed, CardDetect::Fixed),
        (false, true, false, CardDetect::Gpio, CardDetect::Gpio),
        (false, true, true, CardDetect::Gpio, CardDetect::Gpio),
        (
            false,
            false,
            false,
            CardDetect::Internal { active_high: false },
            CardDetect::Polled,
        ),
        (false, false, true, CardDetect::Polled, CardDetect::Polled),
    ] {
        assert_eq!(
            CardDetect::for_slot(non_removable, gpio, poll, false, internal),
            with_pin
        );
        let inverted = match with_pin {
            CardDetect::Internal { .. } => CardDetect::Internal { active_high: true },
            other => other,
        };
        assert_eq!(
            CardDetect::for_slot(non_removable, gpio, poll, true, internal),
            inverted
        );
        assert_eq!(
            CardDetect::for_slot(non_removable, gpio, poll, false, gpio_only),
            without_pin
        );
    }
}

#[test]
fn card_busy_follows_dat0() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let host = Host::new(&rig);
    assert!(!host.ctrl().card_busy(&rig), "DAT0 high");
    rig.misbehave.pin_levels.set(Some((PS_DAT0, 0)));
    assert!(host.ctrl().card_busy(&rig), "DAT0 held low");
}

#[test]
fn sdio_interrupts() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    host.ctrl().set_sdio_mode(&rig, true);
    assert_eq!(
        rig.peek(SDC_CFG) & (SDC_CFG_SDIO | SDC_CFG_SDIOIDE),
        SDC_CFG_SDIO
    );
    assert_eq!(rig.peek(SDC_ADV_CFG0), ADV_DAT1_IRQ_TRIGGER);
    host.ctrl().enable_sdio_irq(&rig, true);
    assert_eq!(rig.peek(MSDC_INTEN), INT_SDIOIRQ);
    assert!(rig.peek(SDC_CFG) & SDC_CFG_SDIOIDE != 0);

    // The request handler leaves the SDIO event to its consumer.
    host.start(&request(command(13, rca_arg(), flags::R1 | flags::AC)), &[])
        .unwrap();
    rig.misbehave.injected_events.set(INT_SDIOIRQ);
    assert!(matches!(
        host.ctrl().handle_interrupt(&rig),
        Progress::Done(..)
    ));
    assert_eq!(rig.misbehave.injected_events.get(), INT_SDIOIRQ);
    assert_eq!(host.interrupt(), Some(Progress::Pending));
    assert_eq!(host.sdio_signals(), 1);
    assert_eq!(rig.misbehave.injected_events.get(), 0);
    // Masked until the core acknowledges it, while the core keeps it enabled.
    assert_eq!(rig.peek(MSDC_INTEN), 0);
    assert_eq!(rig.peek(SDC_CFG) & SDC_CFG_SDIOIDE, 0);
    assert!(host.ctrl().sdio_irq_enabled());
    host.ctrl().ack_sdio_irq(&rig);
    assert_eq!(rig.peek(MSDC_INTEN), INT_SDIOIRQ);
    assert!(rig.peek(SDC_CFG) & SDC_CFG_SDIOIDE != 0);

    // Lost interrupt: DAT1 low but nothing latched.
    assert!(
        !host.ctrl().recheck_sdio_irq(&rig),
        "DAT1 high: nothing lost"
    );
    rig.misbehave.pin_levels.set(Some((PS_DATA1, 0)));
    assert!(host.ctrl().recheck_sdio_irq(&rig));
    assert_eq!(rig.peek(MSDC_INTEN), 0);
    assert!(!host.ctrl().recheck_sdio_irq(&rig), "disabled now");
    rig.misbehave.pin_levels.set(None);

    // Leaving SDIO mode also disables the interrupt, for the core too: an ack then
    // unmasks nothing.
    host.ctrl().enable_sdio_irq(&rig, true);
    host.ctrl().set_sdio_mode(&rig, false);
    assert_eq!(rig.peek(MSDC_INTEN), 0);
    assert_eq!(rig.peek(SDC_CFG) & (SDC_CFG_SDIO | SDC_CFG_SDIOIDE), 0);
    assert_eq!(rig.peek(SDC_ADV_CFG0), 0);
    assert!(!host.ctrl().sdio_irq_enabled());
    host.ctrl().ack_sdio_irq(&rig);
    assert_eq!(rig.peek(MSDC_INTEN), 0);
    host.ok(13, rca_arg(), flags::R1 | flags::AC);
    rig.assert_no_violations();
}

#[test]
fn refused_requests_send_nothing() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    let before = rig.model().commands();
    let status = request(command(13, rca_arg(), flags::R1 | flags::AC));
    let read = block_request(false, 0, 1, false);

    assert_eq!(
        host.engine_start(&read, 7),
        Err((7, StartError::MissingDmaChain))
    );
    // The glue writes no chain for a request without data; the engine refuses one.
    assert_eq!(
        host.write_chain(&status, &[(0, 512)]),
        Err(StartError::UnexpectedDmaChain)
    );
    assert_eq!(
        host.start(&read, &[(0, 256)]),
        Err(StartError::LengthMismatch {
            expected: 512,
            described: 256
        })
    );
    assert_eq!(
        host.start(&read, &[]),
        Err(StartError::Dma(DmaError::NoSegments))
    );
    assert_eq!(
        host.start(
            &block_request(false, 0, 256, true),
            &[(0, 0x1_0000), (0x1_0000, 0x1_0000)]
        ),
        Err(StartError::Dma(DmaError::SegmentTooLong {
            len: 0x1_0000,
            max: 0xFFFF
        })),
        "32-bit DMA: 16-bit BD lengths"
    );
    let many: Vec<(u64, u32)> = (0..1025).map(|i| (i, 1)).collect();
    let odd = Request {
        data: Some(Data {
            block_size: 1025,
            ..read_data(1025, 1)
        }),
        ..read
    };
    assert_eq!(
        host.start(&odd, &many),
        Err(StartError::Dma(DmaError::TooManySegments { max: 1024 }))
    );
    // PRESENT | BUSY is no response type of the MMC core.
    assert_eq!(
        host.start(&request(command(13, 0, 0x9)), &[]),
        Err(StartError::Command(CommandError::UnsupportedResponse(0x9)))
    );
    let huge = Request {
        data: Some(read_data(4096, 1)),
        ..read
    };
    assert_eq!(
        host.start(&huge, &[(0, 4096)]),
        Err(StartError::Command(CommandError::InvalidBlockSize(4096)))
    );
    assert_eq!(rig.model().commands(), before, "nothing reached the card");
    assert!(host.ctrl().is_idle());

    // One request at a time.
    rig.misbehave.hide_interrupts.set(true);
    host.start(&status, &[]).unwrap();
    // The glue refuses a second request itself; the engine would too.
    assert_eq!(host.request(&status, &[]), Err(Refusal::ControllerBusy));
    assert_eq!(host.engine_start(&status, 9), Err((9, StartError::Busy)));
    host.abort().unwrap();
    rig.misbehave.hide_interrupts.set(false);
    host.ok(13, rca_arg(), flags::R1 | flags::AC);
    rig.assert_no_violations();
}

#[test]
fn reset_bit_that_never_clears() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);

    rig.misbehave.pin_reset.set(true);
    let reads = rig.reads.get();
    assert_eq!(host.ctrl().reset(&rig), Err(HwError::ResetTimeout));
    let polled = rig.reads.get() - reads;
    assert!(
        polled <= u64::from(POLL_LIMIT) + 2,
        "{polled} reads: bounded"
    );
    assert!(rig.delayed_us.get() >= u64::from(POLL_LIMIT) - 1);
    let mut fresh = Controller::<()>::new(legacy_config());
    assert_eq!(fresh.init_hardware(&rig), Err(HwError::ResetTimeout));

    // An error while the reset hangs: the request still completes, after a reset bounded
    // to microseconds in the interrupt; the reset stays pending (no fault yet), and the
    // next start retries it first, with the full bound, and reports it.
    rig.misbehave.pin_reset.set(false);
    rig.model().inject(models::msdc::Fault::CommandTimeout);
    host.start(&request(command(13, rca_arg(), flags::R1 | flags::AC)), &[])
        .unwrap();
    rig.misbehave.pin_reset.set(true);
    let waited = rig.delayed_us.get();
    let result = host.wait().unwrap();
    assert_eq!(result.cmd.error, Some(ErrorKind::TimedOut));
    assert!(rig.delayed_us.get() - waited <= u64::from(RESET_POLL_LIMIT_IRQ));
    assert!(host.ctrl().reset_pending());
    assert_eq!(host.take_hardware_fault(), None);
    let before = rig.model().commands();
    assert_eq!(
        host.start(&request(command(13, rca_arg(), flags::R1 | flags::AC)), &[]),
        Err(StartError::Hardware(HwError::ResetTimeout))
    );
    assert_eq!(rig.model().commands(), before);
    rig.misbehave.pin_reset.set(false);
    host.ok(13, rca_arg(), flags::R1 | flags::AC);
}

/// A controller reset that clears later than the interrupt handler's bound (500 reads of
/// `MSDC_CFG.RST`, past [`RESET_POLL_LIMIT_IRQ`]): the failed request's interrupt polls it
/// for microseconds only and completes the request; the reset is left pending, which makes
/// the bus busy for a dispatch from the interrupt (`bus_busy_for`), until it is completed
/// from process context with the full bound: by `finish_reset` (the busy retry work's call,
/// `slot::software_queue::retry_busy`), or first thing by the core's next request
/// (`slot::start_request`); then requests run again. Upstream polls it from the interrupt
/// without a bound.
#[test]
fn a_late_reset_in_the_interrupt_is_finished_from_process_context() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    let status = request(command(13, rca_arg(), flags::R1 | flags::AC));
    let late_reset = |host: &mut Host<'_, _>| {
        rig.model().inject(models::msdc::Fault::CommandTimeout);
        host.start(&status, &[]).unwrap();
        rig.misbehave.reset_set_reads.set(500);
        let waited = rig.delayed_us.get();
        let result = host.wait().unwrap();
        assert_eq!(result.cmd.error, Some(ErrorKind::TimedOut));
        let waited = rig.delayed_us.get() - waited;
        assert!(
            waited <= u64::from(RESET_POLL_LIMIT_IRQ),
            "the interrupt polled the reset for {waited} µs"
        );
        assert!(host.ctrl().reset_pending(), "left to process context");
        assert!(
            host.ctrl().bus_busy_for(&rig, &status),
            "busy while it resets"
        );
        assert_eq!(host.take_hardware_fault(), None, "not a fault yet");
    };

    late_reset(&mut host);
    host.ctrl().finish_reset(&rig);
    assert!(!host.ctrl().reset_pending());
    assert_eq!(host.ctrl().take_hardware_fault(), None);
    assert!(!host.ctrl().bus_busy_for(&rig, &status));
    host.ok(13, rca_arg(), flags::R1 | flags::AC);

    late_reset(&mut host);
    let resets = rig.resets.get();
    host.ok(13, rca_arg(), flags::R1 | flags::AC);
    assert_eq!(rig.resets.get(), resets + 1, "the start reset first");
    assert!(!host.ctrl().reset_pending());
    assert_eq!(host.take_hardware_fault(), None);
    rig.assert_no_violations();
}

#[test]
fn clock_that_never_stabilises() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = Host::new(&rig);
    rig.misbehave.pin_clock_unstable.set(true);
    assert_eq!(
        host.ctrl().set_clock(&rig, 25_000_000, Timing::Legacy),
        Err(HwError::ClockTimeout)
    );
    assert_eq!(host.ctrl().bus_clock_hz(), 0);
    assert_eq!(
        Controller::<()>::new(legacy_config()).init_hardware(&rig),
        Err(HwError::ClockTimeout)
    );
    rig.misbehave.pin_clock_unstable.set(false);
    assert_eq!(host.clock(400_000, Timing::Legacy), 400_000);
}

#[test]
fn bus_that_stays_busy() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    rig.misbehave.pin_command_busy.set(true);
    let before = rig.model().commands();
    let reads = rig.reads.get();
    assert_eq!(
        host.start(&request(command(13, rca_arg(), flags::R1 | flags::AC)), &[]),
        Err(StartError::BusBusy)
    );
    assert!(rig.reads.get() - reads <= u64::from(POLL_LIMIT) + 64);
    assert_eq!(rig.model().commands(), before);
    assert!(host.ctrl().is_idle());
    rig.misbehave.pin_command_busy.set(false);
    host.ok(13, rca_arg(), flags::R1 | flags::AC);

    // Busy between two phases: CMD23 went out, the read cannot.
    host.start(&block_request(false, 0, 2, true), &[(0, 1024)])
        .unwrap();
    rig.misbehave.pin_command_busy.set(true);
    let result = host.wait().unwrap();
    assert_eq!(result.sbc.unwrap().error, None);
    assert_eq!(result.cmd.error, Some(ErrorKind::TimedOut));
    assert_eq!(result.data, None);
    assert_eq!(rig.peek(MSDC_INTEN), 0, "nothing left enabled");
    rig.misbehave.pin_command_busy.set(false);
    host.ok(13, rca_arg(), flags::R1 | flags::AC);
}

/// A command that cannot go out on a busy bus is failed and the controller reset
/// (mtk-sd.c: `msdc_cmd_is_ready` fails the command, and its completion resets the
/// controller). That reset is bounded as in the interrupt handler: one that hangs is left
/// pending, not a fault yet, though no interrupt follows a request that never started; the
/// next start retries it with the full bound and refuses its request with the fault, and
/// once the reset completes requests run again.
#[test]
fn a_reset_that_hangs_on_a_start_refused_for_a_busy_bus_is_reported_by_the_next_start() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    let status = request(command(13, rca_arg(), flags::R1 | flags::AC));
    rig.misbehave.pin_command_busy.set(true);
    rig.misbehave.pin_reset.set(true);
    let before = rig.model().commands();
    assert_eq!(host.start(&status, &[]), Err(StartError::BusBusy));
    assert_eq!(rig.model().commands(), before);
    assert!(!rig.interrupt_line(), "no interrupt follows");
    assert!(host.ctrl().reset_pending());
    assert_eq!(host.take_hardware_fault(), None, "not a fault yet");
    rig.misbehave.pin_command_busy.set(false);
    let reads = rig.reads.get();
    assert_eq!(
        host.start(&status, &[]),
        Err(StartError::Hardware(HwError::ResetTimeout))
    );
    assert!(
        rig.reads.get() - reads >= u64::from(POLL_LIMIT),
        "the full bound"
    );
    assert_eq!(rig.model().commands(), before);
    assert_eq!(host.take_hardware_fault(), None);
    // The next start retries the reset, which now completes.
    rig.misbehave.pin_reset.set(false);
    let resets = rig.resets.get();
    host.ok(13, rca_arg(), flags::R1 | flags::AC);
    assert_eq!(rig.resets.get(), resets + 1);
    assert!(!host.ctrl().reset_pending());
    assert_eq!(host.take_hardware_fault(), None);
}

/// A DMA engine that never reports idle after its stop (`MSDC_DMA_CFG.STS` stuck): the
/// data interrupt does not wait for it beyond a few microseconds; the busy retry (process
/// context) does, up to the request's data timeout, then fails the data phase with a DMA
/// error (the engine may still be writing), reports the fault and resets the controller.
/// The next request runs once the engine is idle again.
#[test]
fn dma_that_never_goes_idle() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    host.start(&block_request(false, 0, 1, false), &[(0, 512)])
        .unwrap();
    rig.misbehave.pin_dma_active.set(true);
    let resets = rig.resets.get();
    let result = host.wait().unwrap();
    assert_eq!(
        result.data.map(|data| data.error),
        Some(Some(ErrorKind::DmaFault))
    );
    assert!(
        host.slept_ns >= host.ctrl().stop_wait_limit_ns(),
        "waited in process context"
    );
    assert!(rig.resets.get() > resets, "the stuck engine was reset");
    assert_eq!(host.take_hardware_fault(), Some(HwError::DmaStopTimeout));
    rig.misbehave.pin_dma_active.set(false);
    let result = host.run(&block_request(false, 1, 1, false), &[(0, 512)]);
    assert_eq!(result.first_error(), None);
}

#[test]
fn pio_is_cleared_for_data_commands() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    let cfg = rig.peek(MSDC_CFG);
    rig.model().write(MSDC_CFG, cfg | CFG_PIO);
    let result = host.run(&block_request(false, 0, 1, false), &[(0, 512)]);
    assert_eq!(result.first_error(), None);
    assert_eq!(rig.peek(MSDC_CFG) & CFG_PIO, 0);
    rig.assert_no_violations();
}

/// A card hardware reset drives RST_n low (EMMC_IOCON.BOOTRST) for the pulse time and
/// releases it, leaving the other bits of the register alone.
#[test]
fn card_reset_pulse_drives_and_releases_rst_n() {
    use msdc::controller::CARD_RESET_PULSE_US;
    use msdc::regs::{MsdcBase, EMMC_IOCON};
    use registers::{Io, PollLimit};
    use std::cell::RefCell;

    #[derive(Default)]
    struct Recorder {
        value: RefCell<u32>,
        log: RefCell<Vec<String>>,
    }
    impl Io<MsdcBase> for Recorder {
        fn read32(&self, _offset: usize) -> u32 {
            *self.value.borrow()
        }
        fn write32(&self, offset: usize, value: u32) {
            assert_eq!(offset, EMMC_IOCON::OFFSET);
            *self.value.borrow_mut() = value;
            self.log.borrow_mut().push(format!("w{value:#x}"));
        }
        fn poll32(
            &self,
            offset: usize,
            _done: impl FnMut(u32) -> bool,
            _limit: PollLimit,
        ) -> Result<u32, u32> {
            panic!("the reset pulse polls nothing (offset {offset:#x})");
        }
    }

    let regs = Recorder::default();
    *regs.value.borrow_mut() = 0x10;
    let mut ctrl = Controller::<()>::new(legacy_config());
    ctrl.pulse_card_reset(&regs, |us| regs.log.borrow_mut().push(format!("d{us}")));
    let bit = EMMC_IOCON::zeroed().with_bootrst(true).raw();
    assert_eq!(bit, 1 << 0, "BOOTRST is bit 0");
    assert_eq!(
        *regs.log.borrow(),
        [
            format!("w{:#x}", 0x10 | bit),
            format!("d{CARD_RESET_PULSE_US}"),
            "w0x10".to_string()
        ]
    );
}

/// On a SoC that can lose the SDIO interrupt (upstream's `recheck_sdio_irq`, MT8173 here),
/// an SDIO card that pulls DAT1 low while a request runs, with no event latched, is
/// signalled when the request completes: `msdc_request_done` rechecks after every request
/// of the core's (`msdc_recheck_sdio_irq`).
#[test]
fn an_sdio_interrupt_lost_during_a_request_is_signalled_when_it_completes() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let config = legacy_config();
    assert!(config.soc.recheck_sdio_irq);
    let rig = sd_rig(&config, &mut storage);
    let mut host = sd_host(&rig);
    host.ctrl().set_sdio_mode(&rig, true);
    host.ctrl().enable_sdio_irq(&rig, true);
    host.start(&request(command(13, rca_arg(), flags::R1 | flags::AC)), &[])
        .unwrap();
    // The card asserts its interrupt on DAT1; the controller latches nothing.
    rig.misbehave.pin_levels.set(Some((PS_DATA1, 0)));
    let result = host.wait().expect("the request completes");
    assert_eq!(result.cmd.error, None);
    let int = rig.peek(models::msdc::regs::MSDC_INT::OFFSET);
    assert_eq!(int & INT_SDIOIRQ, 0, "never latched");
    assert_eq!(host.sdio_signals(), 1, "signalled after the completion");
    assert_eq!(
        rig.peek(MSDC_INTEN) & INT_SDIOIRQ,
        0,
        "masked until the ack"
    );
    rig.misbehave.pin_levels.set(None);
    host.ctrl().ack_sdio_irq(&rig);
    assert_eq!(rig.peek(MSDC_INTEN), INT_SDIOIRQ);
    // DAT1 high again: the next request signals nothing.
    host.ok(13, rca_arg(), flags::R1 | flags::AC);
    assert_eq!(host.sdio_signals(), 1);
}

/// Only SoCs that can lose the SDIO interrupt look for a lost one (upstream's
/// `recheck_sdio_irq`): elsewhere DAT1 low without a latched event is left alone.
#[test]
fn lost_sdio_interrupts_rechecked_only_where_the_soc_needs_it() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let config = modern_config();
    assert!(!config.soc.recheck_sdio_irq);
    let rig = sd_rig(&config, &mut storage);
    let host = Host::new(&rig);
    host.ctrl().set_sdio_mode(&rig, true);
    host.ctrl().enable_sdio_irq(&rig, true);
    rig.misbehave.pin_levels.set(Some((PS_DATA1, 0)));
    assert!(!host.ctrl().recheck_sdio_irq(&rig));
    assert_eq!(rig.peek(MSDC_INTEN), INT_SDIOIRQ, "still unmasked");
    rig.misbehave.pin_levels.set(None);
}

#[test]
fn quiesce_silences_every_interrupt_source() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = Host::new(&rig);
    host.ctrl()
        .set_card_detect(&rig, CardDetect::Internal { active_high: false });
    host.ctrl().set_sdio_mode(&rig, true);
    host.ctrl().enable_sdio_irq(&rig, true);
    assert_ne!(rig.peek(MSDC_INTEN), 0);
    rig.misbehave.injected_events.set(INT_CDSC | INT_CMDRDY);

    host.ctrl().quiesce(&rig);
    assert_eq!(rig.peek(MSDC_INTEN), 0);
    assert_eq!(rig.peek(MSDC_PS) & PS_CDEN, 0);
    assert_eq!(rig.peek(SDC_CFG) & SDC_CFG_INSWKUP, 0);
    assert!(!host.ctrl().sdio_irq_enabled());
    assert_eq!(
        rig.misbehave.injected_events.get(),
        0,
        "latched events acknowledged"
    );
    rig.misbehave.injected_events.set(INT_CDSC);
    assert!(!host.ctrl().card_detect_event(&rig));
    assert!(!host.ctrl().sdio_irq_event(&rig));
    // A request afterwards enables only its own phase's interrupts.
    host.start(&request(command(13, rca_arg(), flags::R1 | flags::AC)), &[])
        .unwrap();
    assert_eq!(rig.peek(MSDC_INTEN), COMMAND_INTERRUPTS);
}
