// SPDX-License-Identifier: GPL-2.0
//! Tests of the SD card model on its own, against the SD Physical Layer Simplified
//! Specification: power-up negotiation, identification, R6 packing, illegal commands, CMD6
//! and the data-carrying application commands.

use models::emmc::{CardState, CardWork, Command, NoResponse, Response};
use models::sd::card::status;
use models::sd::{SdCard, SdConfig, ACMD41_BUSY_POLLS, BLOCK_SIZE, DEFAULT_RCA};

fn cmd(c: &mut SdCard<'_>, index: u8, argument: u32) -> Result<Response, NoResponse> {
    c.command(Command::new(index, argument))
}

fn acmd(c: &mut SdCard<'_>, index: u8, argument: u32) -> Result<Response, NoResponse> {
    let rca = u32::from(c.rca()) << 16;
    let r = cmd(c, 55, rca)?;
    assert!(r.value() & status::APP_CMD != 0);
    cmd(c, index, argument)
}

/// The card status a command answers with.
fn status_of(c: &mut SdCard<'_>, index: u8, argument: u32) -> u32 {
    cmd(c, index, argument).unwrap().value()
}

const RCA: u32 = (DEFAULT_RCA as u32) << 16;

/// CMD8, then ACMD41 (HCS, 3.3 V) until the card is ready; the busy work of each answer.
fn power_up(c: &mut SdCard<'_>) -> Vec<CardWork> {
    cmd(c, 8, 0x1AA).unwrap();
    let mut work = Vec::new();
    for _ in 0..=ACMD41_BUSY_POLLS {
        acmd(c, 41, 0x40FF_8000).unwrap();
        work.push(c.take_work());
    }
    work
}

/// Brings the card to the transfer state (3.3 V, no UHS).
fn to_tran(c: &mut SdCard<'_>) {
    cmd(c, 0, 0).unwrap();
    power_up(c);
    assert_eq!(c.state(), CardState::Ready);
    cmd(c, 2, 0).unwrap();
    cmd(c, 3, 0).unwrap();
    cmd(c, 7, RCA).unwrap();
    assert_eq!(c.state(), CardState::Tran);
}

#[test]
fn power_up_needs_cmd8_and_hcs() {
    let mut storage = vec![0u8; 8 * BLOCK_SIZE];
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    // Inquiry (no voltage window) does not start power-up.
    assert_eq!(acmd(&mut c, 41, 0), Ok(Response::R3(0x00FF_8000)));
    // Without CMD8 the card stays busy forever.
    for _ in 0..10 {
        let r = acmd(&mut c, 41, 0x40FF_8000).unwrap().value();
        assert_eq!(r & (1 << 31), 0);
    }
    cmd(&mut c, 0, 0).unwrap();
    // CMD8 with an unsupported voltage: no answer.
    assert_eq!(cmd(&mut c, 8, 0x2AA), Err(NoResponse));
    assert_eq!(cmd(&mut c, 8, 0x1AA), Ok(Response::R1(0x1AA)));
    // HCS clear: still busy forever.
    for _ in 0..10 {
        let r = acmd(&mut c, 41, 0x00FF_8000).unwrap().value();
        assert_eq!(r & (1 << 31), 0);
    }
    let mut polls = 0;
    loop {
        polls += 1;
        let r = acmd(&mut c, 41, 0x41FF_8000).unwrap().value();
        if r & (1 << 31) != 0 {
            assert!(r & (1 << 30) != 0, "CCS");
            assert!(r & (1 << 24) != 0, "S18A");
            break;
        }
        assert!(polls < 20);
    }
    // The 10 HCS=0 polls already counted towards the busy time.
    assert_eq!(polls, 1);
}

#[test]
fn voltage_window_mismatch_makes_the_card_inactive() {
    let mut storage = vec![0u8; 8 * BLOCK_SIZE];
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    cmd(&mut c, 8, 0x1AA).unwrap();
    assert_eq!(acmd(&mut c, 41, 0x4000_0080), Err(NoResponse));
    assert!(c.inactive());
    assert_eq!(cmd(&mut c, 0, 0), Err(NoResponse));
}

#[test]
fn r6_publishes_the_rca_with_packed_status() {
    let mut storage = vec![0u8; 8 * BLOCK_SIZE];
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    power_up(&mut c);
    // An illegal command first, so the R6 carries ILLEGAL_COMMAND in bit 14.
    assert_eq!(cmd(&mut c, 13, 0), Err(NoResponse));
    cmd(&mut c, 2, 0).unwrap();
    let r6 = cmd(&mut c, 3, 0).unwrap().value();
    assert_eq!(r6 >> 16, u32::from(DEFAULT_RCA));
    assert!(r6 & (1 << 14) != 0);
    assert_eq!((r6 >> 9) & 0xF, CardState::Ident as u32);
    assert_eq!(c.state(), CardState::Stby);
}

#[test]
fn addressing_illegal_commands_and_stop() {
    let mut storage = vec![0u8; 8 * BLOCK_SIZE];
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    to_tran(&mut c);
    // Another RCA: silence, no error recorded.
    assert_eq!(cmd(&mut c, 13, 0x1234 << 16), Err(NoResponse));
    let s = status_of(&mut c, 13, RCA);
    assert_eq!(s & status::ILLEGAL_COMMAND, 0);
    // CMD12 in tran is illegal for SD.
    assert_eq!(cmd(&mut c, 12, 0), Err(NoResponse));
    let s = status_of(&mut c, 13, RCA);
    assert!(s & status::ILLEGAL_COMMAND != 0);
    // CMD16 beyond 512.
    let s = status_of(&mut c, 16, 1024);
    assert!(s & status::BLOCK_LEN_ERROR != 0);
    // Out of range start.
    let s = status_of(&mut c, 17, 8);
    assert!(s & status::OUT_OF_RANGE != 0);
    assert_eq!(c.state(), CardState::Tran);
    // CMD7 deselect: no response, stby.
    assert_eq!(cmd(&mut c, 7, 0), Err(NoResponse));
    assert_eq!(c.state(), CardState::Stby);
}

#[test]
fn switch_function_without_uhs() {
    let mut storage = vec![0u8; 8 * BLOCK_SIZE];
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    to_tran(&mut c);
    // SDR104 is not available at 3.3 V: the group reports 0xF and nothing switches.
    cmd(&mut c, 6, 0x80FF_FFF3).unwrap();
    let mut st = [0u8; 64];
    c.read_data(&mut st).unwrap();
    assert_eq!(st[16] & 0xF, 0xF);
    assert_eq!(st[13], 0x03);
    assert_eq!(c.access_mode(), 0);
    // High speed is.
    cmd(&mut c, 6, 0x80FF_FFF1).unwrap();
    c.read_data(&mut st).unwrap();
    assert_eq!(st[16] & 0xF, 1);
    assert_eq!(c.access_mode(), 1);
    assert_eq!(c.max_clock_hz(), 50_000_000);
    // CMD11 outside the ready state is illegal.
    assert_eq!(cmd(&mut c, 11, 0), Err(NoResponse));
}

#[test]
fn well_written_blocks_and_bounded_writes() {
    let mut storage = vec![0u8; 8 * BLOCK_SIZE];
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    to_tran(&mut c);
    cmd(&mut c, 23, 2).unwrap();
    cmd(&mut c, 25, 1).unwrap();
    assert_eq!(c.state(), CardState::Rcv);
    c.write_data(&[0x11; 700]).unwrap();
    c.write_data(&[0x22; 324]).unwrap();
    assert_eq!(c.state(), CardState::Tran);
    acmd(&mut c, 22, 0).unwrap();
    let mut n = [0u8; 4];
    c.read_data(&mut n).unwrap();
    assert_eq!(u32::from_be_bytes(n), 2);
    // ACMD6 with a reserved width code: ERROR, width unchanged.
    let s = acmd(&mut c, 6, 1).unwrap().value();
    assert!(s & status::ERROR != 0);
    assert_eq!(c.bus_width(), 1);
    assert!(c.storage()[512..1212].iter().all(|&b| b == 0x11));
    assert!(c.storage()[1212..1536].iter().all(|&b| b == 0x22));
}

#[test]
fn erase_and_busy_work() {
    let mut storage = vec![0x33u8; 16 * BLOCK_SIZE];
    let mut c = SdCard::new(&mut storage, SdConfig::default());
    let work = power_up(&mut c);
    assert_eq!(
        work.last(),
        Some(&CardWork::PowerUp),
        "only the ready answer"
    );
    assert!(work[..work.len() - 1].iter().all(|w| *w == CardWork::None));
    cmd(&mut c, 2, 0).unwrap();
    cmd(&mut c, 3, 0).unwrap();
    cmd(&mut c, 7, RCA).unwrap();
    // CMD32/CMD33/CMD38: blocks 3..=5 read 0x00 afterwards.
    cmd(&mut c, 32, 3).unwrap();
    cmd(&mut c, 33, 5).unwrap();
    assert!(matches!(cmd(&mut c, 38, 0), Ok(Response::R1b(_))));
    assert_eq!(c.take_work(), CardWork::Erase { blocks: 3 });
    assert!(c.storage()[3 * 512..6 * 512].iter().all(|&b| b == 0));
    assert!(c.storage()[2 * 512..3 * 512].iter().all(|&b| b == 0x33));
    assert!(c.storage()[6 * 512..7 * 512].iter().all(|&b| b == 0x33));
    // Beyond the capacity: OUT_OF_RANGE and the sequence is gone.
    let s = status_of(&mut c, 32, 16);
    assert!(s & status::OUT_OF_RANGE != 0);
    let s = status_of(&mut c, 38, 0);
    assert!(s & status::ERASE_SEQ_ERROR != 0);
    // The SD status: AU 4 MiB, class 10, A1.
    acmd(&mut c, 13, 0).unwrap();
    let mut ssr = [0u8; 64];
    c.read_data(&mut ssr).unwrap();
    assert_eq!((ssr[8], ssr[10] >> 4, ssr[21] & 0xF), (4, 9, 1));
}
