// SPDX-License-Identifier: GPL-2.0

//! eMMC scenarios: initialisation to an 8-bit high-speed bus (`mmc_attach_mmc`), transfers
//! with auto-CMD23, with a software CMD23 and open-ended with CMD12.

use mmc_request::{Request, RequestResult};
use models::emmc::{Card, CardState, ReadyOrder};
use msdc::clock::Timing;
use msdc::controller::HostSetup;

use crate::rig::{
    block_request, command, filled, flags, legacy_config, modern_config, patterned,
    set_block_count, with_auto_cmd23, Host, Rig,
};
use crate::slot::QueueSide;

/// The RCA the MMC core assigns to an eMMC.
const RCA: u32 = 1;
/// CMD1 argument: sector mode, 2.7-3.6 V.
const CMD1_ARG: u32 = 0x40FF_8080;
const OCR_READY: u32 = 1 << 31;
/// EXT_CSD bytes used below.
const EXT_CSD_BUS_WIDTH: u32 = 183;
const EXT_CSD_HS_TIMING: u32 = 185;
const EXT_CSD_SEC_COUNT: usize = 212;

fn rca_arg() -> u32 {
    RCA << 16
}

/// CMD6 SWITCH, write byte `index` = `value`.
fn switch_arg(index: u32, value: u32) -> u32 {
    (3 << 24) | (index << 16) | (value << 8)
}

pub(crate) fn emmc_rig<'s>(config: &HostSetup, storage: &'s mut [u8]) -> Rig<Card<'s>> {
    Rig::new(config, Card::new(storage, 8, ReadyOrder::Immediate))
}

/// A host on `rig` with its eMMC initialised to an 8-bit bus at high speed.
pub(crate) fn emmc_host<'r, 's>(rig: &'r Rig<Card<'s>>) -> Host<'r, Card<'s>> {
    let mut host = Host::new(rig);
    emmc_init(&mut host);
    host
}

/// Identification and setup of an eMMC up to an 8-bit bus at 52 MHz high speed.
pub(crate) fn emmc_init<'r, 's, S: QueueSide<'r, Rig<Card<'s>>>>(host: &mut Host<'r, Card<'s>, S>) {
    use flags::*;
    assert_eq!(host.command(0, 0, NONE | BC).error, None);
    let mut ocr = 0;
    for _ in 0..10 {
        ocr = host.ok(1, CMD1_ARG, R3 | BCR)[0];
        if ocr & OCR_READY != 0 {
            break;
        }
    }
    assert!(ocr & OCR_READY != 0, "card never finished power-up");
    let cid = host.ok(2, 0, R2 | BCR);
    assert_ne!(cid, [0; 4]);
    host.ok(3, rca_arg(), R1 | AC);
    let csd = host.ok(9, rca_arg(), R2 | AC);
    assert_eq!(csd[0] >> 30, 3, "CSD structure: version in EXT_CSD");
    // Backward-compatible timing (26 MHz at most) once identified.
    assert_eq!(host.clock(26_000_000, Timing::Legacy), 25_000_000);
    host.ok(7, rca_arg(), R1B | AC);
    assert_eq!(host.rig.card().state(), CardState::Tran);

    host.read_ok(8, 0, 512, 1);
    let ext_csd = host.rig.data(0, 512);
    let sectors = u32::from_le_bytes(
        ext_csd[EXT_CSD_SEC_COUNT..EXT_CSD_SEC_COUNT + 4]
            .try_into()
            .unwrap(),
    );
    assert_eq!(sectors, host.rig.card().sectors());

    host.ok(6, switch_arg(EXT_CSD_HS_TIMING, 1), R1B | AC);
    assert_eq!(host.clock(52_000_000, Timing::MmcHighSpeed), 50_000_000);
    host.ok(6, switch_arg(EXT_CSD_BUS_WIDTH, 2), R1B | AC);
    host.ctrl().set_bus_width(host.rig, 8);
    let status = host.ok(13, rca_arg(), R1 | AC)[0];
    assert_eq!((status >> 9) & 0xF, 4);
    assert_eq!(status & (1 << 7), 0, "no SWITCH_ERROR");

    // The core compares EXT_CSD read over the new bus with the first copy.
    host.read_ok(8, 0, 512, 1);
    let again = host.rig.data(0, 512);
    assert_eq!(again[EXT_CSD_BUS_WIDTH as usize], 2);
    assert_eq!(again[EXT_CSD_HS_TIMING as usize], 1);
    assert_eq!(again[..EXT_CSD_BUS_WIDTH as usize], ext_csd[..183]);
}

fn assert_ok(result: &RequestResult) {
    assert_eq!(result.first_error(), None, "{result:?}");
}

#[test]
fn emmc_initialisation_to_8_bit() {
    let mut storage = vec![0u8; 64 * 512];
    let rig = emmc_rig(&legacy_config(), &mut storage);
    emmc_host(&rig);
    assert_eq!(rig.peek(0x30) >> 16 & 3, 2, "SDC_CFG.BUSWIDTH: eight lines");
    rig.assert_no_violations();
}

#[test]
fn emmc_auto_cmd23_read_and_write() {
    let (mut storage, expect) = patterned(64 * 512);
    let config = with_auto_cmd23(modern_config());
    let rig = emmc_rig(&config, &mut storage);
    let mut host = emmc_host(&rig);

    let before = rig.model().commands();
    let result = host.run(&block_request(false, 4, 4, true), &[(0, 2048)]);
    assert_ok(&result);
    assert_eq!(
        rig.model().commands() - before,
        2,
        "auto-CMD23 and CMD18, nothing else"
    );
    let sbc = result
        .sbc
        .expect("the auto-CMD23 result is reported as the sbc");
    assert_eq!((sbc.response[0] >> 9) & 0xF, 4, "CMD23 answered in tran");
    assert_eq!(result.stop, None);
    assert_eq!(result.data.unwrap().bytes_xfered, 2048);
    assert_eq!(rig.card().state(), CardState::Tran, "auto-CMD23 bounded it");
    assert_eq!(rig.data(0, 2048), expect[4 * 512..8 * 512]);

    rig.fill(0x800, &[0xEE; 1024]);
    let result = host.run(&block_request(true, 9, 2, true), &[(0x800, 1024)]);
    assert_ok(&result);
    assert!(result.sbc.is_some());
    assert_eq!(result.stop, None);
    assert!(filled(&rig.card().storage()[9 * 512..11 * 512], 0xEE));
    rig.assert_no_violations();
}

#[test]
fn emmc_software_cmd23_when_auto_cmd23_cannot_carry_it() {
    let (mut storage, _) = patterned(64 * 512);
    let config = with_auto_cmd23(legacy_config());
    let rig = emmc_rig(&config, &mut storage);
    let mut host = emmc_host(&rig);

    // A reliable write: CMD23 bit 31 cannot go through SDC_BLK_NUM.
    rig.fill(0, &[0x11; 1024]);
    let reliable = Request {
        sbc: Some(command(23, (1 << 31) | 2, flags::R1 | flags::AC)),
        ..block_request(true, 12, 2, true)
    };
    let before = rig.model().commands();
    let result = host.run(&reliable, &[(0, 1024)]);
    assert_ok(&result);
    assert_eq!(rig.model().commands() - before, 2, "CMD23 then CMD25");
    assert!(result.sbc.is_some());

    // Auto-CMD23 switched off once the card type is known otherwise.
    host.set_mmc_card(false);
    let before = rig.model().commands();
    let result = host.run(&block_request(false, 12, 2, true), &[(0x1000, 1024)]);
    assert_ok(&result);
    assert_eq!(rig.model().commands() - before, 2);
    assert_eq!(rig.data(0x1000, 1024), vec![0x11; 1024]);

    // A CMD23 whose count differs from the data: never folded into auto-CMD23.
    host.set_mmc_card(true);
    let odd = Request {
        sbc: Some(set_block_count(3)),
        ..block_request(false, 0, 2, true)
    };
    let before = rig.model().commands();
    let result = host.run(&odd, &[(0, 1024)]);
    assert_eq!(
        rig.model().commands() - before,
        2,
        "software CMD23, then CMD18"
    );
    assert_eq!(result.sbc.unwrap().error, None);
    rig.assert_no_violations();
}

#[test]
fn emmc_open_ended_read_with_stop() {
    let (mut storage, expect) = patterned(64 * 512);
    let rig = emmc_rig(&legacy_config(), &mut storage);
    let mut host = emmc_host(&rig);
    let result = host.run(
        &block_request(false, 30, 3, false),
        &[(0, 512), (0x1000, 1024)],
    );
    assert_ok(&result);
    assert!(result.stop.is_some());
    assert_eq!(rig.card().state(), CardState::Tran);
    assert_eq!(rig.data(0, 512), expect[30 * 512..31 * 512]);
    assert_eq!(rig.data(0x1000, 1024), expect[31 * 512..33 * 512]);
    rig.assert_no_violations();
}
