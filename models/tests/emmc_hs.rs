// SPDX-License-Identifier: GPL-2.0
//! Tests of the eMMC card model's fast timings and hardware reset against JESD84-B51: the
//! DEVICE_TYPE, STROBE_SUPPORT and DRIVER_STRENGTH each configuration advertises, the
//! HS_TIMING and BUS_WIDTH switches the Linux MMC core makes for HS200, HS400 and HS400
//! with enhanced strobe (accepted where the card offers them and the order holds, refused
//! with SWITCH_ERROR otherwise), CMD21 and its tuning blocks, and RST_n.

use models::emmc::{
    status, Card, CardConfig, CardState, Command, NoResponse, Response, TimingSupport,
};
use models::msdc::CardSlot;

mod spec_patterns;
use spec_patterns::{PATTERN_4BIT, PATTERN_8BIT};

const RCA: u32 = 3 << 16;

// EXT_CSD bytes (JESD84-B51 §7.4).
const RST_N_FUNCTION: u32 = 162;
const USER_WP: usize = 171;
const BOOT_WP: usize = 173;
const BOOT_CONFIG_PROT: usize = 178;
const BUS_WIDTH: u32 = 183;
const STROBE_SUPPORT: usize = 184;
const HS_TIMING: u32 = 185;
const DEVICE_TYPE: usize = 196;
const DRIVER_STRENGTH: usize = 197;

// BUS_WIDTH values.
const BUS_1: u8 = 0;
const BUS_4: u8 = 1;
const BUS_8: u8 = 2;
const DDR_4: u8 = 5;
const DDR_8: u8 = 6;
const DDR_8_STROBE: u8 = 0x86;

// HS_TIMING values (driver strength type 0).
const LEGACY: u8 = 0;
const HS: u8 = 1;
const HS200: u8 = 2;
const HS400: u8 = 3;

fn cmd(c: &mut Card<'_>, index: u8, argument: u32) -> Result<Response, NoResponse> {
    c.command(Command::new(index, argument))
}

/// A card of `config` in the transfer state (1-bit bus, backward-compatible timing).
fn card(storage: &mut [u8], config: CardConfig) -> Card<'_> {
    let mut c = Card::with_config(storage, [&mut [], &mut []], config);
    c.initialize(3, false).unwrap();
    c
}

/// CMD6 writing `value` to EXT_CSD byte `index`, then CMD13 as the core's
/// mmc_switch_status: whether the card took it (no SWITCH_ERROR).
fn switch(c: &mut Card<'_>, index: u32, value: u8) -> bool {
    let r = cmd(c, 6, (3 << 24) | (index << 16) | (u32::from(value) << 8)).unwrap();
    assert!(matches!(r, Response::R1b(_)), "CMD6 answers R1b");
    let s = cmd(c, 13, RCA).unwrap().value();
    assert_eq!(s & !status::SWITCH_ERROR & 0xFFF9_0000, 0, "no other error");
    s & status::SWITCH_ERROR == 0
}

/// CMD21 and its data phase; `None` when the card refuses the command.
fn tuning_block(c: &mut Card<'_>, len: usize) -> Option<Vec<u8>> {
    let r = cmd(c, 21, 0).ok()?;
    assert!(matches!(r, Response::R1(_)), "CMD21 answers R1");
    assert_eq!(c.state(), CardState::Data);
    let mut block = vec![0u8; len];
    // In two pieces, as a FIFO would drain it.
    let (a, b) = block.split_at_mut(len / 2);
    c.read_data(a).unwrap();
    c.read_data(b).unwrap();
    assert_eq!(c.state(), CardState::Tran, "one block, then back in tran");
    Some(block)
}

/// Whether the next status reports an illegal command.
fn illegal_reported(c: &mut Card<'_>) -> bool {
    cmd(c, 13, RCA).unwrap().value() & status::ILLEGAL_COMMAND != 0
}

/// The core's mmc_select_hs200 on an 8-bit bus: BUS_WIDTH 8, then HS_TIMING 2.
fn select_hs200(c: &mut Card<'_>) {
    assert!(switch(c, BUS_WIDTH, BUS_8));
    assert!(switch(c, HS_TIMING, HS200));
    assert_eq!((c.ext_csd().timing(), c.bus_width()), (2, 8));
}

/// The core's mmc_select_hs400 from HS200: HS_TIMING 1, BUS_WIDTH 8-bit DDR, HS_TIMING 3.
fn hs200_to_hs400(c: &mut Card<'_>) {
    assert!(switch(c, HS_TIMING, HS));
    assert_eq!(c.max_clock_hz(), 52_000_000, "the host drops to 52 MHz");
    assert!(switch(c, BUS_WIDTH, DDR_8));
    assert!(switch(c, HS_TIMING, HS400));
    assert_eq!(c.ext_csd().timing(), 3);
    assert!(c.ext_csd().ddr());
}

#[test]
fn the_default_card_stays_high_speed_sdr_only() {
    let mut storage = vec![0u8; 64 * 512];
    let mut c = card(&mut storage, CardConfig::default());
    let ext = c.ext_csd();
    assert_eq!(ext.get(DEVICE_TYPE), 0x03, "HS 26 and 52 MHz");
    assert_eq!(ext.get(STROBE_SUPPORT), 0);
    assert_eq!(ext.get(DRIVER_STRENGTH), 0x01, "type 0 only");
    assert_eq!(
        ext.get(RST_N_FUNCTION as usize),
        0,
        "RST_n temporarily disabled"
    );
    assert_eq!(ext.timing_support(), TimingSupport::HighSpeed);
    assert!(switch(&mut c, BUS_WIDTH, BUS_8));
    assert!(!switch(&mut c, HS_TIMING, HS200), "no HS200");
    assert!(switch(&mut c, HS_TIMING, HS));
    assert_eq!(c.max_clock_hz(), 52_000_000);
    assert!(!switch(&mut c, BUS_WIDTH, DDR_8), "no DDR52");
    assert!(!switch(&mut c, BUS_WIDTH, DDR_8_STROBE), "no strobe");
    assert!(!switch(&mut c, HS_TIMING, HS400), "no HS400");
    assert!(
        !switch(&mut c, HS_TIMING, HS | (1 << 4)),
        "driver type 1 not offered"
    );
    assert_eq!((c.ext_csd().timing(), c.bus_width()), (1, 8));
    assert_eq!(tuning_block(&mut c, 128), None, "CMD21 is illegal");
    assert!(illegal_reported(&mut c));
}

#[test]
fn each_configuration_advertises_its_timings() {
    let cases = [
        (CardConfig::hs200(), TimingSupport::Hs200, 0x17, 0),
        (CardConfig::hs400(), TimingSupport::Hs400, 0x57, 0),
        (
            CardConfig::hs400_enhanced_strobe(),
            TimingSupport::Hs400EnhancedStrobe,
            0x57,
            1,
        ),
    ];
    for (config, timings, device_type, strobe) in cases {
        assert_eq!(config.timings, timings);
        assert_eq!(config, CardConfig::default().with_timings(timings));
        let mut storage = vec![0u8; 64 * 512];
        let mut c = Card::with_config(&mut storage, [&mut [], &mut []], config);
        for _ in 0..2 {
            let ext = c.ext_csd();
            assert_eq!(ext.get(DEVICE_TYPE), device_type, "{timings:?}");
            assert_eq!(ext.get(STROBE_SUPPORT), strobe, "{timings:?}");
            assert_eq!(ext.get(DRIVER_STRENGTH), 0x1F, "types 0 to 4");
            assert_eq!(ext.timing_support(), timings);
            // Power class 1 at 200 MHz, SDR (236, 237) and, with HS400, DDR (253).
            assert_eq!((ext.get(236), ext.get(237)), (0x11, 0x11));
            let ddr200 = if timings == TimingSupport::Hs200 {
                0
            } else {
                0x11
            };
            assert_eq!(ext.get(253), ddr200);
            // The properties survive CMD0.
            cmd(&mut c, 0, 0).unwrap();
        }
        // What the core reads the register with: CMD8 sends the same bytes.
        c.initialize(3, false).unwrap();
        cmd(&mut c, 8, 0).unwrap();
        let mut ext = [0u8; 512];
        c.read_data(&mut ext).unwrap();
        assert_eq!(&ext, c.ext_csd().bytes());
    }
}

#[test]
fn hs200_is_selected_over_a_4_or_8_bit_sdr_bus() {
    let mut storage = vec![0u8; 64 * 512];
    let mut c = card(&mut storage, CardConfig::hs200());
    assert_eq!(c.max_clock_hz(), 26_000_000);
    assert!(!switch(&mut c, HS_TIMING, HS200), "not over a 1-bit bus");
    assert_eq!(c.ext_csd().timing(), 0, "a refused switch changes nothing");
    assert!(switch(&mut c, BUS_WIDTH, BUS_4));
    assert!(switch(&mut c, HS_TIMING, HS200));
    assert_eq!(c.max_clock_hz(), 200_000_000);
    // In HS200 the width may change between 4 and 8 bits, never to 1 bit or DDR.
    assert!(!switch(&mut c, BUS_WIDTH, BUS_1));
    assert!(!switch(&mut c, BUS_WIDTH, DDR_8));
    assert!(switch(&mut c, BUS_WIDTH, BUS_8));
    assert_eq!(c.bus_width(), 8);
    // A driver strength DRIVER_STRENGTH offers (type 1), then one it does not (type 5).
    assert!(switch(&mut c, HS_TIMING, HS200 | (1 << 4)));
    assert!(!switch(&mut c, HS_TIMING, HS200 | (5 << 4)));
    // No HS400 on an HS200 card, even from high speed over 8-bit DDR (DDR52).
    assert!(switch(&mut c, HS_TIMING, HS));
    assert!(switch(&mut c, BUS_WIDTH, DDR_8));
    assert_eq!(c.max_clock_hz(), 52_000_000, "DDR52");
    assert!(!switch(&mut c, HS_TIMING, HS400));
    assert!(
        !switch(&mut c, BUS_WIDTH, DDR_8_STROBE),
        "no STROBE_SUPPORT"
    );
    // DDR needs high speed timing: neither backward compatible nor HS200 takes it.
    assert!(!switch(&mut c, HS_TIMING, LEGACY));
    assert!(!switch(&mut c, HS_TIMING, HS200));
    assert!(switch(&mut c, BUS_WIDTH, DDR_4));
    assert_eq!(c.bus_width(), 4);
    // Reserved values.
    assert!(!switch(&mut c, HS_TIMING, 4));
    assert!(!switch(&mut c, BUS_WIDTH, 3));
    assert!(!switch(&mut c, BUS_WIDTH, 0x12));
}

#[test]
fn cmd21_sends_the_tuning_block_for_the_bus_width_in_hs200() {
    let mut storage = vec![0u8; 64 * 512];
    let mut c = card(&mut storage, CardConfig::hs200());
    select_hs200(&mut c);
    assert_eq!(tuning_block(&mut c, 128).unwrap(), PATTERN_8BIT);
    // Forty times, as a tuning sweep sends it.
    for _ in 0..40 {
        assert_eq!(tuning_block(&mut c, 128).unwrap(), PATTERN_8BIT);
    }
    assert_eq!(c.stats().tuning_blocks, 41);
    assert!(switch(&mut c, BUS_WIDTH, BUS_4));
    assert_eq!(tuning_block(&mut c, 64).unwrap(), PATTERN_4BIT);
    // A longer read than the block is an overrun; CMD12 ends an abandoned block.
    cmd(&mut c, 21, 0).unwrap();
    let mut too_long = [0u8; 65];
    assert!(c.read_data(&mut too_long).is_err());
    assert_eq!(c.data_remaining(), 64);
    assert!(matches!(cmd(&mut c, 12, 0), Ok(Response::R1(_))));
    assert_eq!(c.state(), CardState::Tran);
    // A host whose CRC check failed may read part of the block or none: the card sent it
    // whole, and the next command finds it in tran.
    cmd(&mut c, 21, 0).unwrap();
    c.read_data(&mut [0u8; 16]).unwrap();
    assert_eq!(tuning_block(&mut c, 64).unwrap(), PATTERN_4BIT);
    cmd(&mut c, 21, 0).unwrap();
    let s = cmd(&mut c, 13, RCA).unwrap().value();
    assert_eq!((s >> 9) & 0xF, 4, "CMD13 after an unread block: tran");
    // The slot interface serves the same block.
    let slot: &mut dyn CardSlot = &mut c;
    slot.command(Command::new(21, 0)).unwrap();
    let mut block = [0u8; 64];
    slot.read_data(&mut block).unwrap();
    assert_eq!(block, PATTERN_4BIT);
    assert_eq!(slot.max_clock_hz(), Some(200_000_000));
}

#[test]
fn cmd21_is_illegal_outside_hs200() {
    let mut storage = vec![0u8; 64 * 512];
    let mut c = card(&mut storage, CardConfig::hs400());
    // Backward compatible and high speed timing.
    assert_eq!(tuning_block(&mut c, 64), None);
    assert!(illegal_reported(&mut c));
    assert!(switch(&mut c, BUS_WIDTH, BUS_8));
    assert!(switch(&mut c, HS_TIMING, HS));
    assert_eq!(tuning_block(&mut c, 128), None);
    assert!(illegal_reported(&mut c));
    // HS200 outside the transfer state: deselected (stand-by).
    assert!(switch(&mut c, HS_TIMING, HS200));
    assert!(cmd(&mut c, 7, 0).is_err());
    assert_eq!(c.state(), CardState::Stby);
    assert_eq!(tuning_block(&mut c, 128), None);
    assert!(illegal_reported(&mut c));
    cmd(&mut c, 7, RCA).unwrap();
    assert_eq!(tuning_block(&mut c, 128).unwrap(), PATTERN_8BIT);
    // HS400: tuned in HS200 before the switch, not in HS400.
    hs200_to_hs400(&mut c);
    assert_eq!(tuning_block(&mut c, 128), None);
    assert!(illegal_reported(&mut c));
}

#[test]
fn hs400_follows_the_jedec_order_and_returns_to_hs200() {
    let mut storage = vec![0u8; 64 * 512];
    let mut c = card(&mut storage, CardConfig::hs400());
    // 8-bit DDR only from high speed timing.
    assert!(switch(&mut c, BUS_WIDTH, BUS_8));
    assert!(
        !switch(&mut c, BUS_WIDTH, DDR_8),
        "not in backward-compatible timing"
    );
    select_hs200(&mut c);
    assert!(!switch(&mut c, BUS_WIDTH, DDR_8), "not in HS200");
    assert!(!switch(&mut c, HS_TIMING, HS400), "HS400 not from HS200");
    assert!(switch(&mut c, HS_TIMING, HS));
    assert!(
        !switch(&mut c, HS_TIMING, HS400),
        "HS400 needs 8-bit DDR first"
    );
    assert!(switch(&mut c, BUS_WIDTH, DDR_4));
    assert!(!switch(&mut c, HS_TIMING, HS400), "not 4-bit DDR");
    assert!(
        !switch(&mut c, BUS_WIDTH, DDR_8_STROBE),
        "no STROBE_SUPPORT"
    );
    assert!(switch(&mut c, BUS_WIDTH, DDR_8));
    assert!(switch(&mut c, HS_TIMING, HS400 | (4 << 4)), "driver type 4");
    assert!(switch(&mut c, HS_TIMING, HS));
    assert!(switch(&mut c, HS_TIMING, HS400));
    assert_eq!(c.max_clock_hz(), 200_000_000);
    assert_eq!(c.bus_width(), 8);
    assert!(!c.ext_csd().enhanced_strobe());
    // HS400 keeps its bus: no width change, no HS200 and no legacy timing directly.
    assert!(!switch(&mut c, BUS_WIDTH, BUS_8));
    assert!(!switch(&mut c, HS_TIMING, HS200));
    assert!(!switch(&mut c, HS_TIMING, LEGACY));
    assert!(
        !switch(&mut c, HS_TIMING, HS400),
        "HS400 again is no step from HS"
    );
    // The core's mmc_hs400_to_hs200: HS_TIMING 1, BUS_WIDTH 8-bit SDR, HS_TIMING 2.
    assert!(switch(&mut c, HS_TIMING, HS));
    assert!(switch(&mut c, BUS_WIDTH, BUS_8));
    assert!(switch(&mut c, HS_TIMING, HS200));
    assert_eq!(tuning_block(&mut c, 128).unwrap(), PATTERN_8BIT);
    hs200_to_hs400(&mut c);
    // Data still moves (the card does not model bus timing).
    assert!(cmd(&mut c, 17, 5).is_ok());
    let mut block = [0u8; 512];
    c.read_data(&mut block).unwrap();
    assert_eq!(c.state(), CardState::Tran);
}

#[test]
fn hs400_with_enhanced_strobe_needs_strobe_support() {
    let mut storage = vec![0u8; 64 * 512];
    let mut c = card(&mut storage, CardConfig::hs400_enhanced_strobe());
    // The core's mmc_select_hs400es: 8-bit bus, HS, 8-bit DDR with strobe, HS400; no HS200
    // and no tuning on the way.
    assert!(switch(&mut c, BUS_WIDTH, BUS_8));
    assert!(
        !switch(&mut c, BUS_WIDTH, DDR_8_STROBE),
        "from high speed only"
    );
    assert!(switch(&mut c, HS_TIMING, HS));
    assert!(
        !switch(&mut c, BUS_WIDTH, DDR_4 | 0x80),
        "strobe only with 8-bit DDR"
    );
    assert!(
        !switch(&mut c, BUS_WIDTH, BUS_8 | 0x80),
        "strobe only with 8-bit DDR"
    );
    assert!(switch(&mut c, BUS_WIDTH, DDR_8_STROBE));
    assert!(c.ext_csd().enhanced_strobe());
    assert!(switch(&mut c, HS_TIMING, HS400));
    assert_eq!(c.max_clock_hz(), 200_000_000);
    assert_eq!(c.bus_width(), 8);
    assert!(c.ext_csd().enhanced_strobe() && c.ext_csd().ddr());
    assert_eq!(tuning_block(&mut c, 128), None, "no CMD21 in HS400");
    assert!(illegal_reported(&mut c));
    // CMD0 brings back the power-up register: 1-bit bus, backward compatible, no strobe.
    cmd(&mut c, 0, 0).unwrap();
    assert_eq!((c.ext_csd().timing(), c.bus_width()), (0, 1));
    assert!(!c.ext_csd().enhanced_strobe());
}

#[test]
fn rst_n_is_ignored_until_rst_n_function_enables_it() {
    let mut storage = vec![0u8; 64 * 512];
    let mut c = card(&mut storage, CardConfig::hs200());
    select_hs200(&mut c);
    // RST_n_FUNCTION 0 (temporarily disabled): the pulse changes nothing.
    let slot: &mut dyn CardSlot = &mut c;
    slot.hardware_reset();
    assert_eq!(c.state(), CardState::Tran);
    assert_eq!(c.ext_csd().timing(), 2);
    assert_eq!(c.stats().hardware_resets, 0);
    // The host enables it, once (one-time programmable).
    assert!(switch(&mut c, RST_N_FUNCTION, 1));
    assert!(c.ext_csd().rst_n_enabled());
    assert!(!switch(&mut c, RST_N_FUNCTION, 2), "written once");
    assert!(!switch(&mut c, RST_N_FUNCTION, 0), "written once");
    assert!(
        switch(&mut c, RST_N_FUNCTION, 1),
        "the same value again changes nothing"
    );
    c.storage_mut()[512] = 0x5A;
    let slot: &mut dyn CardSlot = &mut c;
    slot.hardware_reset();
    assert_eq!(c.stats().hardware_resets, 1);
    // Pre-idle, as after power-up: no RCA, default bus, storage and RST_n_FUNCTION kept.
    assert_eq!(c.state(), CardState::Idle);
    assert_eq!(c.rca(), 0);
    assert_eq!(cmd(&mut c, 13, RCA), Err(NoResponse));
    assert_eq!((c.ext_csd().timing(), c.bus_width()), (0, 1));
    assert_eq!(c.max_clock_hz(), 400_000);
    assert!(c.ext_csd().rst_n_enabled());
    assert_eq!(c.storage()[512], 0x5A);
    c.initialize(3, false).unwrap();
    select_hs200(&mut c);
    assert_eq!(tuning_block(&mut c, 128).unwrap(), PATTERN_8BIT);
}

#[test]
fn rst_n_permanently_disabled_is_ignored() {
    let mut storage = vec![0u8; 64 * 512];
    let mut c = card(&mut storage, CardConfig::default());
    assert!(switch(&mut c, RST_N_FUNCTION, 2));
    assert!(!switch(&mut c, RST_N_FUNCTION, 1), "written once");
    assert!(!switch(&mut c, RST_N_FUNCTION, 3), "reserved");
    c.hardware_reset();
    assert_eq!(c.state(), CardState::Tran);
    // A power cycle keeps the one-time-programmable byte.
    c.power_cycle();
    assert_eq!(c.ext_csd().get(RST_N_FUNCTION as usize), 2);
}

#[test]
fn a_card_preset_with_rst_n_enabled_resets_from_the_start() {
    let mut storage = vec![0u8; 64 * 512];
    let config = CardConfig::hs400().with_hardware_reset();
    assert_eq!(config.rst_n_function, 1);
    assert_eq!(config.timings, TimingSupport::Hs400);
    let mut c = card(&mut storage, config);
    assert_eq!(c.ext_csd().get(RST_N_FUNCTION as usize), 1);
    assert!(!switch(&mut c, RST_N_FUNCTION, 2), "already programmed");
    select_hs200(&mut c);
    hs200_to_hs400(&mut c);
    // Power-on write protection (R/W/C_P bits) and a permanent bit (R/W), then CMD0 keeps
    // both and RST_n clears only the first.
    assert!(switch(&mut c, USER_WP as u32, 0x01 | 0x04));
    assert!(switch(&mut c, BOOT_WP as u32, 0x01 | 0x04));
    assert!(switch(&mut c, BOOT_CONFIG_PROT as u32, 0x11));
    cmd(&mut c, 0, 0).unwrap();
    let kept = |c: &Card<'_>| {
        let e = c.ext_csd();
        (e.get(USER_WP), e.get(BOOT_WP), e.get(BOOT_CONFIG_PROT))
    };
    assert_eq!(kept(&c), (0x05, 0x05, 0x11), "CMD0 keeps them");
    c.initialize(3, false).unwrap();
    // A sleeping card (CMD5 from stand-by) wakes on RST_n.
    assert!(cmd(&mut c, 7, 0).is_err());
    assert!(cmd(&mut c, 5, RCA | (1 << 15)).is_ok());
    assert!(c.asleep());
    c.hardware_reset();
    assert!(!c.asleep());
    assert_eq!(c.state(), CardState::Idle);
    assert_eq!(
        kept(&c),
        (0x04, 0x04, 0x10),
        "the power-on bits are cleared"
    );
    assert_eq!(c.ext_csd().get(DEVICE_TYPE), 0x57, "properties unchanged");
    // An inactive card stays inactive: only a power cycle leaves that state.
    c.initialize(3, false).unwrap();
    assert_eq!(cmd(&mut c, 15, RCA), Err(NoResponse));
    c.hardware_reset();
    assert!(c.inactive());
    assert_eq!(c.stats().hardware_resets, 1);
    c.power_cycle();
    assert!(!c.inactive());
    c.initialize(3, false).unwrap();
}

#[test]
fn the_emmc_card_drives_no_lines_and_ignores_the_clock() {
    let mut storage = vec![0u8; 64 * 512];
    let mut c = card(&mut storage, CardConfig::hs400_enhanced_strobe());
    let slot: &mut dyn CardSlot = &mut c;
    assert_eq!((slot.data_lines(), slot.cmd_line()), (0xF, true));
    slot.clock_running(false);
    slot.clock_running(true);
    assert_eq!((slot.data_lines(), slot.cmd_line()), (0xF, true));
    assert!(!slot.sdio_interrupt());
    assert!(slot.command(Command::new(13, RCA)).is_ok());
}
