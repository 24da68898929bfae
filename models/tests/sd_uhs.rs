// SPDX-License-Identifier: GPL-2.0
//! Tests of the SD card model's UHS-I signalling against the SD Physical Layer
//! Specification: the CMD11 voltage switch as the lines show it (§4.2.4.2) and as the
//! Linux core's mmc_set_uhs_voltage checks it (card busy, DAT0 low, after the response;
//! released after the clock restarts), CMD19 and its tuning block (§4.2.4.5), and the
//! maximum clock of each access mode.

use models::emmc::{CardState, Command, NoResponse, Response};
use models::msdc::{CardSlot, Socket};
use models::sd::card::status;
use models::sd::{SdCard, SdConfig, ACMD41_BUSY_POLLS, BLOCK_SIZE, DEFAULT_RCA};

mod spec_patterns;
use spec_patterns::PATTERN_4BIT;

const RCA: u32 = (DEFAULT_RCA as u32) << 16;
/// ACMD41: HCS, S18R, 3.2–3.4 V.
const ACMD41_S18R: u32 = 0x4130_0000;
/// ACMD41: HCS, 3.2–3.4 V.
const ACMD41_3V3: u32 = 0x4030_0000;

fn cmd(c: &mut SdCard<'_>, index: u8, argument: u32) -> Result<Response, NoResponse> {
    c.command(Command::new(index, argument))
}

fn acmd(c: &mut SdCard<'_>, index: u8, argument: u32) -> Result<Response, NoResponse> {
    let rca = u32::from(c.rca()) << 16;
    cmd(c, 55, rca)?;
    cmd(c, index, argument)
}

/// CMD0, CMD8, then ACMD41 with `arg` until the card is ready; the last OCR.
fn power_up(c: &mut SdCard<'_>, arg: u32) -> u32 {
    cmd(c, 0, 0).unwrap();
    cmd(c, 8, 0x1AA).unwrap();
    let mut ocr = 0;
    for _ in 0..=ACMD41_BUSY_POLLS {
        ocr = acmd(c, 41, arg).unwrap().value();
    }
    assert_ne!(ocr & (1 << 31), 0, "ready");
    assert_eq!(c.state(), CardState::Ready);
    ocr
}

/// The host's card_busy: DAT0 low.
fn card_busy(slot: &dyn CardSlot) -> bool {
    slot.data_lines() & 1 == 0
}

/// The core's mmc_set_uhs_voltage over the slot interface: CMD11, card busy expected, the
/// clock stopped and started again, card busy no more.
fn voltage_switch(slot: &mut dyn CardSlot) {
    let r = slot.command(Command::new(11, 0)).unwrap();
    assert!(matches!(r, Response::R1(_)), "CMD11 answers R1");
    assert_eq!(r.value() & 0xFFF9_0000, 0, "no error bit");
    assert!(card_busy(slot), "DAT0 held low after the response");
    assert_eq!(slot.data_lines(), 0, "all four DAT lines low");
    assert!(!slot.cmd_line(), "CMD held low");
    slot.clock_running(false);
    assert!(card_busy(slot), "still low while the clock is stopped");
    assert!(!slot.cmd_line());
    slot.clock_running(true);
    assert!(!card_busy(slot), "released once the clock runs again");
    assert_eq!(slot.data_lines(), 0xF);
    assert!(slot.cmd_line());
}

/// From ready (after S18A) to tran at 1.8 V, 4-bit bus, access mode `mode` (CMD6 group 1).
fn to_uhs_tran(c: &mut SdCard<'_>, mode: u32) {
    c.clock_running(true);
    voltage_switch(c);
    assert!(c.signal_1v8());
    cmd(c, 2, 0).unwrap();
    cmd(c, 3, 0).unwrap();
    cmd(c, 7, RCA).unwrap();
    acmd(c, 6, 2).unwrap();
    assert_eq!(c.bus_width(), 4);
    switch_access_mode(c, mode);
}

/// CMD6 in switch mode selecting access mode `mode`, its status block read.
fn switch_access_mode(c: &mut SdCard<'_>, mode: u32) {
    cmd(c, 6, 0x80FF_FFF0 | mode).unwrap();
    let mut status = [0u8; 64];
    c.read_data(&mut status).unwrap();
    assert_eq!(u32::from(status[16] & 0xF), mode, "function switched");
    assert_eq!(c.access_mode(), mode as u8);
}

/// CMD19 and its block; `None` when the card refuses the command.
fn tuning_block(c: &mut SdCard<'_>) -> Option<[u8; 64]> {
    let r = cmd(c, 19, 0).ok()?;
    assert!(matches!(r, Response::R1(_)), "CMD19 answers R1");
    let mut block = [0u8; 64];
    c.read_data(&mut block[..16]).unwrap();
    c.read_data(&mut block[16..]).unwrap();
    assert_eq!(c.state(), CardState::Tran);
    Some(block)
}

fn illegal_reported(c: &mut SdCard<'_>) -> bool {
    cmd(c, 13, RCA).unwrap().value() & status::ILLEGAL_COMMAND != 0
}

#[test]
fn cmd11_holds_the_lines_low_until_the_clock_restarts_after_a_stop() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    // The slot reports the clock as it starts for identification.
    c.clock_running(true);
    let ocr = power_up(&mut c, ACMD41_S18R);
    assert_ne!(ocr & (1 << 24), 0, "S18A");
    assert_eq!((c.data_lines(), c.cmd_line()), (0xF, true));
    cmd(&mut c, 11, 0).unwrap();
    assert!(!c.signal_1v8(), "not before the sequence ends");
    assert_eq!((c.data_lines(), c.cmd_line()), (0x0, false));
    // A start without a stop changes nothing: the card waits for the stop.
    c.clock_running(true);
    assert_eq!(c.data_lines(), 0);
    c.clock_running(false);
    assert!(!c.signal_1v8());
    c.clock_running(true);
    assert!(c.signal_1v8());
    assert_eq!((c.data_lines(), c.cmd_line()), (0xF, true));
    // Identification goes on at 1.8 V; further clock stops change nothing.
    c.clock_running(false);
    c.clock_running(true);
    assert!(matches!(cmd(&mut c, 2, 0), Ok(Response::R2(_))));
    assert_eq!(c.state(), CardState::Ident);
    // Only once: a second CMD11 is illegal (out of ready, and at 1.8 V already).
    assert_eq!(cmd(&mut c, 11, 0), Err(NoResponse));
    // CMD0 keeps the signalling level; the card no longer offers S18A.
    let ocr = power_up(&mut c, ACMD41_S18R);
    assert_eq!(ocr & (1 << 24), 0);
    assert!(c.signal_1v8());
}

#[test]
fn the_sequence_runs_through_the_slot_interface() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    c.clock_running(true);
    power_up(&mut c, ACMD41_S18R);
    let slot: &mut dyn CardSlot = &mut c;
    voltage_switch(slot);
    assert!(!slot.sdio_interrupt());
    // No RST_n on an SD card: the pulse changes nothing.
    slot.hardware_reset();
    assert!(c.signal_1v8());
    assert_eq!(c.state(), CardState::Ready);
}

#[test]
fn a_command_before_the_clock_restarts_is_lost_and_the_switch_fails() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    c.clock_running(true);
    power_up(&mut c, ACMD41_S18R);
    cmd(&mut c, 11, 0).unwrap();
    // The host goes on without stopping the clock.
    assert_eq!(cmd(&mut c, 2, 0), Err(NoResponse));
    assert_eq!(c.data_lines(), 0, "the lines stay low");
    c.clock_running(false);
    assert_eq!(
        cmd(&mut c, 2, 0),
        Err(NoResponse),
        "nor with the clock stopped"
    );
    // The core's answer to a failed switch: power cycle, and retry.
    c.power_cycle();
    assert!(!c.signal_1v8());
    assert_eq!((c.data_lines(), c.cmd_line()), (0xF, true));
    assert_eq!(c.state(), CardState::Idle);
    let ocr = power_up(&mut c, ACMD41_S18R);
    assert_ne!(ocr & (1 << 24), 0, "S18A again after the power cycle");
    voltage_switch(&mut c);
    assert!(c.signal_1v8());
}

#[test]
fn a_slot_that_never_reports_the_clock_switches_at_the_response() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    power_up(&mut c, ACMD41_S18R);
    cmd(&mut c, 11, 0).unwrap();
    assert!(c.signal_1v8());
    assert_eq!((c.data_lines(), c.cmd_line()), (0xF, true));
    assert!(matches!(cmd(&mut c, 2, 0), Ok(Response::R2(_))));
}

#[test]
fn cmd11_is_illegal_without_s18a() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    // The host did not ask for 1.8 V.
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    c.clock_running(true);
    power_up(&mut c, ACMD41_3V3);
    assert_eq!(cmd(&mut c, 11, 0), Err(NoResponse));
    assert_eq!((c.data_lines(), c.cmd_line()), (0xF, true));
    // A card without UHS-I never grants S18A.
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let config = SdConfig {
        uhs: false,
        ..SdConfig::default()
    };
    let mut c = SdCard::new(&mut storage, config);
    c.clock_running(true);
    let ocr = power_up(&mut c, ACMD41_S18R);
    assert_eq!(ocr & (1 << 24), 0);
    assert_eq!(cmd(&mut c, 11, 0), Err(NoResponse));
    assert!(!c.signal_1v8());
    assert_eq!(c.data_lines(), 0xF);
}

#[test]
fn cmd19_sends_the_tuning_block_in_sdr104_and_sdr50() {
    for (mode, clock) in [(3, 208_000_000), (2, 100_000_000)] {
        let mut storage = vec![0u8; 64 * BLOCK_SIZE];
        let mut c = SdCard::new(&mut storage, SdConfig::default());
        power_up(&mut c, ACMD41_S18R);
        to_uhs_tran(&mut c, mode);
        assert_eq!(c.max_clock_hz(), clock);
        for _ in 0..40 {
            assert_eq!(tuning_block(&mut c), Some(PATTERN_4BIT));
        }
        // A block the host did not read (its CRC failed) is over by the next command.
        cmd(&mut c, 19, 0).unwrap();
        c.read_data(&mut [0u8; 8]).unwrap();
        assert_eq!(tuning_block(&mut c), Some(PATTERN_4BIT));
        cmd(&mut c, 19, 0).unwrap();
        assert_eq!(cmd(&mut c, 12, 0).map(|r| r.value() & 0xFFF9_0000), Ok(0));
        assert_eq!(c.state(), CardState::Tran, "CMD12 ends it too");
        // Through the slot too.
        let slot: &mut dyn CardSlot = &mut c;
        slot.command(Command::new(19, 0)).unwrap();
        let mut block = [0u8; 64];
        slot.read_data(&mut block).unwrap();
        assert_eq!(block, PATTERN_4BIT);
        assert_eq!(slot.max_clock_hz(), Some(clock));
        // Regular traffic after tuning.
        cmd(&mut c, 17, 1).unwrap();
        let mut data = [0u8; BLOCK_SIZE];
        c.read_data(&mut data).unwrap();
        assert_eq!(c.state(), CardState::Tran);
    }
}

#[test]
fn cmd19_follows_the_signalling_level() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    power_up(&mut c, ACMD41_S18R);
    to_uhs_tran(&mut c, 4);
    // DDR50 (50 MHz): since v3.01 the card takes CMD19 in any transfer state at 1.8 V,
    // the slower UHS-I modes included.
    assert_eq!(c.max_clock_hz(), 50_000_000);
    assert_eq!(tuning_block(&mut c), Some(PATTERN_4BIT));
    switch_access_mode(&mut c, 1);
    assert_eq!(c.max_clock_hz(), 50_000_000, "SDR25");
    assert_eq!(tuning_block(&mut c), Some(PATTERN_4BIT));
    // Outside the transfer state: illegal.
    assert!(cmd(&mut c, 7, 0).is_err());
    assert_eq!(c.state(), CardState::Stby);
    assert_eq!(tuning_block(&mut c), None);
    assert!(illegal_reported(&mut c));

    // At 3.3 V, default speed and high speed: illegal command.
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    power_up(&mut c, ACMD41_3V3);
    cmd(&mut c, 2, 0).unwrap();
    cmd(&mut c, 3, 0).unwrap();
    cmd(&mut c, 7, RCA).unwrap();
    acmd(&mut c, 6, 2).unwrap();
    assert_eq!(c.max_clock_hz(), 25_000_000);
    assert_eq!(tuning_block(&mut c), None);
    assert!(illegal_reported(&mut c));
    switch_access_mode(&mut c, 1);
    assert_eq!(c.max_clock_hz(), 50_000_000);
    assert_eq!(tuning_block(&mut c), None);
    assert!(illegal_reported(&mut c));
    // SDR50 and SDR104 are not on offer at 3.3 V.
    cmd(&mut c, 6, 0x80FF_FFF3).unwrap();
    let mut status = [0u8; 64];
    c.read_data(&mut status).unwrap();
    assert_eq!(status[16] & 0xF, 0xF, "function 3 refused");
    assert_eq!(c.access_mode(), 1);
}

#[test]
fn a_card_taken_out_goes_silent_and_comes_back_powered_up_with_its_data() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let mut socket = Socket::new(SdCard::new(&mut storage, SdConfig::default()));
    let c = socket.card_mut();
    c.clock_running(true);
    power_up(c, ACMD41_S18R);
    to_uhs_tran(c, 3);
    cmd(c, 24, 5).unwrap();
    c.write_data(&[0xA5; BLOCK_SIZE]).unwrap();
    // Out in transfer state: an empty socket, its lines pulled up.
    socket.remove();
    assert!(!socket.is_inserted());
    assert!(
        socket.command(Command::new(13, RCA)).is_err(),
        "nothing answers"
    );
    assert!(socket.command(Command::new(0, 0)).is_err());
    let mut block = [0u8; BLOCK_SIZE];
    assert!(socket.read_data(&mut block).is_err(), "no data moves");
    assert!(socket.write_data(&block).is_err());
    assert_eq!(socket.data_lines(), 0xF);
    assert!(socket.cmd_line());
    assert_eq!(socket.bus_width(), None);
    assert_eq!(socket.max_clock_hz(), None);
    // Back in: power-on state at 3.3 V, what it stored kept.
    socket.insert(SdCard::power_cycle);
    assert!(socket.is_inserted());
    let c = socket.card_mut();
    assert_eq!(c.state(), CardState::Idle);
    assert!(!c.signal_1v8());
    power_up(c, ACMD41_S18R);
    to_uhs_tran(c, 3);
    cmd(c, 17, 5).unwrap();
    c.read_data(&mut block).unwrap();
    assert_eq!(block, [0xA5; BLOCK_SIZE]);
    // A second insertion of a card that is in changes nothing.
    socket.insert(|_| panic!("a card that is in is not power-cycled"));
    assert_eq!(socket.card().state(), CardState::Tran);
}
