// SPDX-License-Identifier: GPL-2.0
//! Cross-checks the MSDC driver's logic crate against the independently written MSDC and
//! SD card models: register values come from `msdc::{command, dma, clock, regs}`, behaviour
//! from `sim::msdc` and `sim::sd`.

mod rig;

use msdc::clock::{self, DividerWidth, Timing};
use msdc::command::{
    AutoCommand, Command as DrvCommand, DataDirection, DataTransfer, ResponseType,
};
use msdc::errors::ErrorKind;
use msdc::regs::{InterruptSet, MSDC_CFG, MSDC_DMA_CTRL, MSDC_INT, SDC_ARG, SDC_BLK_NUM, SDC_CMD};
use rig::{pattern, rca_arg, seg, Host, Outcome, SOURCE_HZ};
use sim::emmc::{Card, CardState, ReadyOrder};
use sim::msdc::{Fault, ModelConfig, MsdcModel, Violation};
use sim::sd::{SdCard, SdConfig, ACMD41_BUSY_POLLS, BLOCK_SIZE, DEFAULT_RCA};
use sim::Ram;

/// A host and a default SD card brought to 4-bit SDR104 transfer state.
fn initialised_sd(storage: &mut [u8]) -> (Host, SdCard<'_>) {
    let mut card = SdCard::new(storage, SdConfig::default());
    let mut h = Host::new();
    sd_init(&mut h, &mut card);
    (h, card)
}

/// Runs the SD initialisation the MMC core performs (mmc_attach_sd) up to the transfer
/// state at 4-bit UHS SDR104, and checks what the card reported on the way.
fn sd_init(h: &mut Host, card: &mut SdCard<'_>) {
    use ResponseType::*;
    assert_eq!(h.simple(card, 0, None, 0), Outcome::Done([0; 4]));
    let r7 = h.ok(card, 8, R1, 0x1AA)[0];
    assert_eq!(r7 & 0xFFF, 0x1AA, "CMD8 echoes VHS and check pattern");
    let mut polls = 0;
    let ocr = loop {
        h.ok(card, 55, R1, 0);
        let ocr = h.ok(card, 41, R3, 0x4100_0000 | 0x00FF_8000)[0];
        polls += 1;
        if ocr & (1 << 31) != 0 {
            break ocr;
        }
        assert!(polls < 10, "card never ready");
    };
    assert_eq!(polls, ACMD41_BUSY_POLLS + 1);
    assert!(ocr & (1 << 30) != 0, "CCS: high capacity");
    assert!(ocr & (1 << 24) != 0, "S18A");
    // CMD11: the voltage switch command carries VOLSWTH.
    let r = h.ok(card, 11, R1, 0)[0];
    assert_eq!(r & 0xFFF9_0000, 0);
    assert!(card.signal_1v8());
    let cid = h.ok(card, 2, R2, 0);
    assert_eq!(cid[0] >> 24, 0x7E, "MID in resp[0] bits 31:24");
    let r6 = h.ok(card, 3, R1, 0)[0];
    assert_eq!(r6 >> 16, u32::from(DEFAULT_RCA));
    let csd = h.ok(card, 9, R2, rca_arg());
    assert_eq!(csd[0] >> 30, 1, "CSD version 2.0");
    // The core selects with R1 although the SD card answers R1b.
    let r = h.ok(card, 7, R1, rca_arg())[0];
    assert_eq!((r >> 9) & 0xF, 3, "CMD7 answered in stby");
    assert_eq!(card.state(), CardState::Tran);
    // ACMD51: SCR, 8 bytes of data.
    h.ok(card, 55, R1, rca_arg());
    let scr = h.read(card, 51, 0, (8, 1), AutoCommand::None, &[seg(0, 8)]);
    assert!(matches!(scr, Outcome::Done(_)), "{scr:?}");
    assert_eq!(h.data(0, 4), &[0x02, 0x05, 0x80, 0x02]);
    // ACMD6: 4-bit bus, then the host.
    h.ok(card, 55, R1, rca_arg());
    h.ok(card, 6, R1, 2);
    h.set_bus_width(1);
    assert_eq!(card.bus_width(), 4);
    // CMD6 check then switch to SDR104 (function 3 of group 1).
    let switch = |h: &mut Host, card: &mut SdCard<'_>, arg: u32| {
        let out = h.read(card, 6, arg, (64, 1), AutoCommand::None, &[seg(0x100, 64)]);
        assert!(matches!(out, Outcome::Done(_)), "{out:?}");
        h.data(0x100, 64).to_vec()
    };
    let status = switch(h, card, 0x00FF_FFF3);
    assert!(status[13] & (1 << 3) != 0, "SDR104 supported at 1.8 V");
    assert_eq!(status[16] & 0xF, 3);
    assert_eq!(card.access_mode(), 0, "check mode switches nothing");
    let status = switch(h, card, 0x80FF_FFF3);
    assert_eq!(status[16] & 0xF, 3);
    assert_eq!(card.access_mode(), 3);
    h.set_clock(200_000_000, Timing::UhsSdr104);
}

#[test]
fn sd_initialisation_through_the_controller() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    let status = h.ok(&mut card, 13, ResponseType::R1, rca_arg())[0];
    assert_eq!((status >> 9) & 0xF, 4);
    assert_eq!(h.model.violations().0, 0, "{:?}", h.model.violations());
}

#[test]
fn sd_single_and_multi_block_reads_and_writes() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    pattern(&mut storage);
    let expect = storage.clone();
    let (mut h, mut card) = initialised_sd(&mut storage);

    // CMD17, one segment.
    let out = h.read(
        &mut card,
        17,
        5,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.data(0, 512), &expect[5 * 512..6 * 512]);

    // CMD18 over three segments, ended by a software CMD12.
    let segs = [seg(0, 1000), seg(0x2000, 24), seg(0x4000, 512)];
    let out = h.read(&mut card, 18, 10, (512, 3), AutoCommand::None, &segs);
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(
        card.state(),
        CardState::Data,
        "open-ended read still running"
    );
    let stop = DrvCommand::new(12, ResponseType::R1b);
    assert!(matches!(
        h.request(&mut card, stop, 0, &[]),
        Outcome::Done(_)
    ));
    assert_eq!(card.state(), CardState::Tran);
    assert_eq!(h.data(0, 1000), &expect[10 * 512..10 * 512 + 1000]);
    assert_eq!(h.data(0x2000, 24), &expect[10 * 512 + 1000..11 * 512 + 512]);
    assert_eq!(h.data(0x4000, 512), &expect[12 * 512..13 * 512]);

    // CMD18 with auto-CMD12.
    let out = h.read(
        &mut card,
        18,
        20,
        (512, 2),
        AutoCommand::Cmd12,
        &[seg(0, 1024)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(card.state(), CardState::Tran);
    assert_eq!(h.data(0, 1024), &expect[20 * 512..22 * 512]);

    // CMD24.
    h.data_mut(0, 512).fill(0xA5);
    let out = h.write(&mut card, 24, 7, 1, AutoCommand::None, &[seg(0, 512)]);
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    // CMD23 (software, as for SD) then CMD25 of two blocks.
    h.data_mut(0x1000, 1024).fill(0x3C);
    h.ok(&mut card, 23, ResponseType::R1, 2);
    let out = h.write(
        &mut card,
        25,
        30,
        2,
        AutoCommand::None,
        &[seg(0x1000, 1024)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(card.state(), CardState::Tran, "CMD23 bounded the write");
    // CMD25 with auto-CMD12.
    h.data_mut(0x3000, 1536).fill(0x77);
    let out = h.write(
        &mut card,
        25,
        40,
        3,
        AutoCommand::Cmd12,
        &[seg(0x3000, 1536)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.model.violations().0, 0, "{:?}", h.model.violations());
    assert!(storage[7 * 512..8 * 512].iter().all(|&b| b == 0xA5));
    assert!(storage[30 * 512..32 * 512].iter().all(|&b| b == 0x3C));
    assert_eq!(storage[32 * 512], expect[32 * 512]);
    assert!(storage[40 * 512..43 * 512].iter().all(|&b| b == 0x77));
    assert_eq!(storage[6 * 512..7 * 512], expect[6 * 512..7 * 512]);
}

#[test]
fn emmc_multi_block_with_auto_cmd23() {
    let mut storage = vec![0u8; 32 * 512];
    pattern(&mut storage);
    let expect = storage.clone();
    let mut card = Card::new(&mut storage, 8, ReadyOrder::Immediate);
    card.initialize(1, false).unwrap();
    let mut h = Host::new();
    h.card_is_mmc = true;
    h.mmc_switch(&mut card, 1, 183, 2).unwrap();
    h.set_bus_width(2);
    let out = h.read(
        &mut card,
        18,
        4,
        (512, 4),
        AutoCommand::Cmd23,
        &[seg(0, 2048)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(card.state(), CardState::Tran, "auto-CMD23 bounded the read");
    assert_eq!(h.data(0, 2048), &expect[4 * 512..8 * 512]);
    h.data_mut(0, 1024).fill(0xEE);
    let out = h.write(&mut card, 25, 9, 2, AutoCommand::Cmd23, &[seg(0, 1024)]);
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.model.violations().0, 0, "{:?}", h.model.violations());
    assert!(card.storage()[9 * 512..11 * 512].iter().all(|&b| b == 0xEE));
}

#[test]
fn injected_command_faults() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    h.model.inject(Fault::CommandTimeout);
    assert_eq!(
        h.simple(&mut card, 13, ResponseType::R1, rca_arg()),
        Outcome::Command(ErrorKind::TimedOut)
    );
    h.model.inject(Fault::ResponseCrc);
    assert_eq!(
        h.simple(&mut card, 13, ResponseType::R1, rca_arg()),
        Outcome::Command(ErrorKind::BadCrc)
    );
    // The fault is for one command only.
    assert!(matches!(
        h.simple(&mut card, 13, ResponseType::R1, rca_arg()),
        Outcome::Done(_)
    ));
}

#[test]
fn injected_data_faults() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    h.model.inject(Fault::DataCrc);
    let out = h.read(
        &mut card,
        17,
        0,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::BadCrc));
    h.model.inject(Fault::DataTimeout);
    let out = h.read(
        &mut card,
        18,
        0,
        (512, 2),
        AutoCommand::None,
        &[seg(0, 1024)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::TimedOut));
    // The card still sends: the driver stops it with CMD12 and carries on.
    assert_eq!(card.state(), CardState::Data);
    let stop = DrvCommand::new(12, ResponseType::R1b);
    assert!(matches!(
        h.request(&mut card, stop, 0, &[]),
        Outcome::Done(_)
    ));
    let out = h.read(
        &mut card,
        17,
        1,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
}

#[test]
fn descriptor_checksum_errors() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    // Byte 4 of the GPD (its `next` field) is covered by the checksum.
    h.corrupt_descriptor = Some(4);
    let out = h.read(
        &mut card,
        17,
        0,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::DmaFault));
    assert!(h.last_events & InterruptSet::DMA_GPDCSERR.bits() != 0);
    let stop = DrvCommand::new(12, ResponseType::R1b);
    // The single block read is still open on the card's side: CMD12 ends it.
    assert!(matches!(
        h.request(&mut card, stop, 0, &[]),
        Outcome::Done(_)
    ));
    // First BD at offset 64.
    h.corrupt_descriptor = Some(64 + 8);
    let out = h.read(
        &mut card,
        17,
        0,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::DmaFault));
    assert!(h.last_events & InterruptSet::DMA_BDCSERR.bits() != 0);
}

#[test]
fn bus_width_mismatch_is_a_data_crc_error() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    h.set_bus_width(0);
    let out = h.read(
        &mut card,
        17,
        0,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::BadCrc));
}

#[test]
fn illegal_and_out_of_range_commands() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    // CMD2 in tran: illegal, no response; the next status reports ILLEGAL_COMMAND once.
    assert_eq!(
        h.simple(&mut card, 2, ResponseType::R2, 0),
        Outcome::Command(ErrorKind::TimedOut)
    );
    let s = h.ok(&mut card, 13, ResponseType::R1, rca_arg())[0];
    assert!(s & (1 << 22) != 0);
    let s = h.ok(&mut card, 13, ResponseType::R1, rca_arg())[0];
    assert_eq!(s & (1 << 22), 0);
    // A read beyond the capacity: OUT_OF_RANGE in the response, no data (timeout).
    let out = h.read(
        &mut card,
        17,
        1000,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::TimedOut));
    // An open-ended read that runs off the end; CMD12's response reports OUT_OF_RANGE.
    let out = h.read(
        &mut card,
        18,
        63,
        (512, 2),
        AutoCommand::None,
        &[seg(0, 1024)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::TimedOut));
    let stop = DrvCommand::new(12, ResponseType::R1b);
    let Outcome::Done(r) = h.request(&mut card, stop, 0, &[]) else {
        panic!("CMD12 failed");
    };
    assert!(r[0] & (1 << 31) != 0);
}

#[test]
fn r3_received_as_r1_fails_crc() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let mut card = SdCard::new(&mut storage, SdConfig::default());
    let mut h = Host::new();
    h.ok(&mut card, 0, ResponseType::None, 0);
    h.ok(&mut card, 8, ResponseType::R1, 0x1AA);
    h.ok(&mut card, 55, ResponseType::R1, 0);
    assert_eq!(
        h.simple(&mut card, 41, ResponseType::R1, 0x40FF_8000),
        Outcome::Command(ErrorKind::BadCrc)
    );
}

#[test]
fn register_behaviour() {
    let mut m = MsdcModel::new(ModelConfig::default());
    // RST reads back set once, then clear.
    m.write(0x00, 0x5);
    assert_eq!(m.read(0x00) & 0x4, 0x4);
    assert_eq!(m.read(0x00) & 0x4, 0);
    // CKSTB drops on a divider change.
    m.write(0x00, 0x1 | (125 << 8));
    assert_eq!(m.bus_clock_hz(), 400_000);
    assert_eq!(m.read(0x00) & 0x80, 0);
    let mut stable = false;
    for _ in 0..4 {
        stable |= m.read(0x00) & 0x80 != 0;
    }
    assert!(stable);
    // DAT0 high: the card is not busy (msdc_card_busy), card present (CDSTS 0).
    assert_eq!(m.read(0x08) & ((1 << 16) | (1 << 1)), 1 << 16);
    // FIFO clear self-clears.
    m.write(0x14, 1 << 31);
    assert!(m.read(0x14) & (1 << 31) != 0);
    assert_eq!(m.read(0x14) & (1 << 31), 0);
    // W1C and masking: a command to nothing times out.
    let mut storage = vec![0u8; 8 * BLOCK_SIZE];
    let mut card = SdCard::new(&mut storage, SdConfig::default());
    let mut ram = vec![0u8; 64];
    let mut mem = Ram::new(0, &mut ram);
    m.write(0x38, 0);
    m.write(0x34, 13 | (1 << 7));
    assert_eq!(m.read(0x3C) & 3, 2, "CMDBUSY only");
    m.run(&mut card, &mut mem, 4);
    assert_eq!(m.read(0x3C) & 3, 0);
    assert_eq!(m.read(0x0C), 1 << 9);
    assert!(!m.interrupt_pending());
    m.write(0x10, 1 << 9);
    assert!(m.interrupt_pending());
    m.write(0x0C, 1 << 8);
    assert!(m.interrupt_pending());
    m.write(0x0C, 1 << 9);
    assert!(!m.interrupt_pending());
    // Unknown registers are refused visibly.
    m.write(0x300, 1);
    let (n, list) = m.violations();
    assert_eq!(n, 1);
    assert_eq!(list[0], Some(Violation::UnknownRegister(0x300)));
}

#[test]
fn pio_mode_is_rejected() {
    let mut storage = vec![0u8; 8 * BLOCK_SIZE];
    let mut card = SdCard::new(&mut storage, SdConfig::default());
    let mut h = Host::new();
    let cfg = h.rd(0) | 0x8;
    h.wr(0, cfg);
    let out = h.read(
        &mut card,
        17,
        0,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert_eq!(out, Outcome::Command(ErrorKind::TimedOut));
    assert_eq!(h.model.violations().1[0], Some(Violation::PioMode));
}

#[test]
fn clock_settings_agree_with_the_model() {
    for width in [DividerWidth::Bits8, DividerWidth::Bits12] {
        let config = ModelConfig {
            divider_12bit: width == DividerWidth::Bits12,
            ..ModelConfig::default()
        };
        let cases = [
            (400_000, Timing::Legacy),
            (300_000, Timing::Legacy),
            (25_000_000, Timing::SdHighSpeed),
            (50_000_000, Timing::UhsSdr50),
            (100_000_000, Timing::UhsSdr50),
            (200_000_000, Timing::UhsSdr104),
            (208_000_000, Timing::UhsSdr104),
            (150_000_000, Timing::MmcHs200),
            (50_000_000, Timing::UhsDdr50),
            (26_000_000, Timing::MmcDdr52),
            (10_000_000, Timing::UhsDdr50),
            (7_000_000, Timing::MmcDdr52),
            (200_000_000, Timing::MmcHs400),
            (100_000_000, Timing::MmcHs400),
            (20_000_000, Timing::MmcHs400),
        ];
        for (hz, timing) in cases {
            let mut m = MsdcModel::new(config);
            let plan = clock::plan(SOURCE_HZ, hz, timing, width).unwrap();
            let clock::ClockPlan::Running(setting) = plan else {
                panic!("gated");
            };
            let cfg = setting.apply(MSDC_CFG::zeroed(), width).unwrap();
            m.write(MSDC_CFG::OFFSET, cfg.raw());
            assert_eq!(
                m.bus_clock_hz(),
                plan.bus_hz(),
                "{hz} Hz {timing:?} {width:?}: driver and model disagree"
            );
            assert!(
                plan.bus_hz() <= hz,
                "{hz} Hz {timing:?}: clock above request"
            );
        }
    }
}

#[test]
fn data_above_the_card_clock_limit_fails() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    // Back to default speed on the card, but the host keeps 200 MHz.
    let out = h.read(
        &mut card,
        6,
        0x80FF_FFF0,
        (64, 1),
        AutoCommand::None,
        &[seg(0, 64)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::BadCrc));
    assert_eq!(card.max_clock_hz(), 25_000_000);
    let (_, list) = h.model.violations();
    assert_eq!(
        list[0],
        Some(Violation::ClockTooFast {
            hz: 200_000_000,
            max: 25_000_000
        })
    );
}

#[test]
fn thirty_two_bit_dma_and_long_segments() {
    // 32-bit controller: 16-bit BD lengths, no high nibbles.
    let mut storage = vec![0u8; 256 * BLOCK_SIZE];
    pattern(&mut storage);
    let expect = storage.clone();
    let mut card = SdCard::new(&mut storage, SdConfig::default());
    let mut h = Host::with(ModelConfig {
        support_64g: false,
        ..ModelConfig::default()
    });
    sd_init(&mut h, &mut card);
    let segs = [seg(0, 0xFFFF), seg(0x1_0000, 0x1_0000 - 0xFFFF + 512)];
    let out = h.read(&mut card, 18, 2, (512, 129), AutoCommand::Cmd12, &segs);
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.data(0, 0xFFFF), &expect[2 * 512..2 * 512 + 0xFFFF]);
    assert_eq!(h.data(0x1_0000, 513), &expect[2 * 512 + 0xFFFF..131 * 512]);
    assert_eq!(h.model.violations().0, 0, "{:?}", h.model.violations());

    // 36-bit controller: one 128 KiB segment needs the 24-bit length field.
    let mut storage = vec![0u8; 512 * BLOCK_SIZE];
    pattern(&mut storage);
    let expect = storage.clone();
    let (mut h, mut card) = initialised_sd(&mut storage);
    let out = h.read(
        &mut card,
        18,
        100,
        (512, 256),
        AutoCommand::Cmd12,
        &[seg(0, 0x2_0000)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.data(0, 0x2_0000), &expect[100 * 512..356 * 512]);
    assert_eq!(h.model.violations().0, 0, "{:?}", h.model.violations());
}

#[test]
fn a_consumed_gpd_must_be_rearmed() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    let out = h.read(
        &mut card,
        17,
        0,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.ram[0] & 1, 0, "HWO handed back");
    // Reissue without rewriting the chain: the engine finds no owned GPD.
    let data = DataTransfer::blocks(DataDirection::Read, 512, 1);
    let word = DrvCommand::new(17, ResponseType::R1)
        .with_data(data)
        .sdc_cmd()
        .unwrap();
    h.wr(SDC_BLK_NUM::OFFSET, 1);
    h.wr(SDC_ARG::OFFSET, 0);
    h.wr(SDC_CMD::OFFSET, word.raw());
    h.run(&mut card);
    let start = h.rd(MSDC_DMA_CTRL::OFFSET) | MSDC_DMA_CTRL::zeroed().with_start(true).raw();
    h.wr(MSDC_DMA_CTRL::OFFSET, start);
    h.run(&mut card);
    assert!(h.rd(MSDC_INT::OFFSET) & InterruptSet::DATTMO.bits() != 0);
    assert!(matches!(
        h.model.violations().1[0],
        Some(Violation::GpdNotOwned(_))
    ));
}

#[test]
fn emmc_ext_csd_read_and_switch() {
    let mut storage = vec![0u8; 32 * 512];
    let mut card = Card::new(&mut storage, 8, ReadyOrder::Immediate);
    card.initialize(1, false).unwrap();
    let mut h = Host::new();
    // CMD8 at the wrong bus width fails its CRC; after BUS_WIDTH = 8 bit it reads.
    h.set_bus_width(2);
    let out = h.read(&mut card, 8, 0, (512, 1), AutoCommand::None, &[seg(0, 512)]);
    assert_eq!(out, Outcome::Data(ErrorKind::BadCrc));
    h.set_bus_width(0);
    h.mmc_switch(&mut card, 1, 183, 2).unwrap();
    h.set_bus_width(2);
    // CMD8 SEND_EXT_CSD: one 512-byte block.
    let out = h.read(&mut card, 8, 0, (512, 1), AutoCommand::None, &[seg(0, 512)]);
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.data(0, 512), &card.ext_csd().bytes()[..]);
    // CMD6 SWITCH (R1b) enabling the command queue, then CMD13.
    let r = h.ok(
        &mut card,
        6,
        ResponseType::R1b,
        (3 << 24) | (15 << 16) | (1 << 8),
    );
    assert_eq!(r[0] & 0xFDF9_A080, 0);
    assert!(card.ext_csd().cmdq_enabled());
    let s = h.ok(&mut card, 13, ResponseType::R1, 1 << 16)[0];
    assert_eq!((s >> 9) & 0xF, 4);
    assert_eq!(h.model.violations().0, 0, "{:?}", h.model.violations());
}
