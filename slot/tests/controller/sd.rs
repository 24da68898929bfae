// SPDX-License-Identifier: GPL-2.0

//! SD card scenarios: initialisation as the MMC core performs it (`mmc_attach_sd`), then
//! block transfers with software CMD23, open-ended transfers with CMD12, scatter lists.

use mmc_request::{Request, RequestResult};
use models::emmc::CardState;
use models::sd::{SdCard, SdConfig, BLOCK_SIZE, DEFAULT_RCA};
use msdc::clock::Timing;
use msdc::controller::{Controller, HostSetup, PadState, SignalVoltage, UnsupportedVoltage};

use crate::rig::{
    block_request, command, filled, flags, legacy_config, modern_config, patterned, read_data,
    request, Host, Rig,
};

/// `SEND_IF_COND` argument: 2.7-3.6 V and check pattern 0xAA.
const CMD8_ARG: u32 = 0x1AA;
/// ACMD41 argument: HCS, 3.2-3.4 V window.
const ACMD41_HCS: u32 = (1 << 30) | 0x0030_0000;
/// ACMD41's S18R bit.
const ACMD41_S18R: u32 = 1 << 24;
const OCR_BUSY_DONE: u32 = 1 << 31;
const OCR_CCS: u32 = 1 << 30;
const OCR_S18A: u32 = 1 << 24;

pub(crate) fn rca_arg() -> u32 {
    u32::from(DEFAULT_RCA) << 16
}

pub(crate) fn card_state(status: u32) -> u32 {
    (status >> 9) & 0xF
}

/// Identification and setup of an SD card up to 4-bit high speed (or SDR104 with `uhs`),
/// with the command flags the MMC core uses.
pub(crate) fn sd_init(host: &mut Host<'_, SdCard<'_>>, uhs: bool) {
    use flags::*;
    assert_eq!(host.command(0, 0, NONE | BC).error, None);
    let r7 = host.ok(8, CMD8_ARG, R1 | BCR)[0];
    assert_eq!(
        r7 & 0xFFF,
        CMD8_ARG,
        "CMD8 echoes the voltage and the check pattern"
    );
    let acmd41_arg = ACMD41_HCS | if uhs { ACMD41_S18R } else { 0 };
    let mut ocr = 0;
    for _ in 0..10 {
        host.ok(55, 0, R1 | AC);
        ocr = host.ok(41, acmd41_arg, R3 | BCR)[0];
        if ocr & OCR_BUSY_DONE != 0 {
            break;
        }
    }
    assert!(ocr & OCR_BUSY_DONE != 0, "card never finished power-up");
    assert!(ocr & OCR_CCS != 0, "high capacity");
    if uhs {
        assert!(ocr & OCR_S18A != 0, "card accepts 1.8 V");
        // CMD11: the word carries VOLSWTH; then the core's line sequence.
        host.ok(11, 0, R1 | AC);
        host.uhs_voltage_switch();
        assert!(host.rig.card().signal_1v8());
    }
    let cid = host.ok(2, 0, R2 | BCR);
    assert_ne!(cid, [0; 4]);
    let r6 = host.ok(3, 0, R1 | BCR)[0];
    assert_eq!(r6 >> 16, u32::from(DEFAULT_RCA));
    let csd = host.ok(9, rca_arg(), R2 | AC);
    assert_eq!(csd[0] >> 30, 1, "CSD structure 2.0");
    let status = host.ok(7, rca_arg(), R1B | AC)[0];
    assert_eq!(card_state(status), 3, "CMD7 answered in stand-by");
    assert_eq!(host.clock(25_000_000, Timing::Legacy), 25_000_000);

    // SCR and SD status, 1-bit bus.
    host.ok(55, rca_arg(), R1 | AC);
    host.read_ok(51, 0, 8, 1);
    assert_eq!(host.rig.data(0, 4), [0x02, 0x05, 0x80, 0x02]);
    host.ok(55, rca_arg(), R1 | AC);
    host.read_ok(13, 0, 64, 1);
    assert_eq!(host.rig.data(0, 1), [0], "SD status: 1-bit bus");

    // 4-bit bus (ACMD6), card first.
    host.ok(55, rca_arg(), R1 | AC);
    host.ok(6, 2, R1 | AC);
    host.ctrl().set_bus_width(host.rig, 4);
    assert_eq!(host.rig.card().bus_width(), 4);

    // CMD6: check, then switch group 1 to high speed (1) or SDR104 (3).
    let function = if uhs { 3 } else { 1 };
    host.read_ok(6, 0x00FF_FFF0 | function, 64, 1);
    assert_eq!(
        host.rig.card().access_mode(),
        0,
        "check mode switches nothing"
    );
    host.read_ok(6, 0x80FF_FFF0 | function, 64, 1);
    assert_eq!(u32::from(host.rig.data(16, 1)[0] & 0xF), function);
    let actual = if uhs {
        host.clock(208_000_000, Timing::UhsSdr104)
    } else {
        host.clock(50_000_000, Timing::SdHighSpeed)
    };
    assert_eq!(actual, if uhs { 200_000_000 } else { 50_000_000 });
    assert_eq!(host.ctrl().bus_clock_hz(), actual);

    // SD status again, now over four lines.
    host.ok(55, rca_arg(), R1 | AC);
    host.read_ok(13, 0, 64, 1);
    assert_eq!(host.rig.data(0, 1), [0x80], "SD status: 4-bit bus");
    assert_eq!(host.rig.card().state(), CardState::Tran);
}

pub(crate) fn sd_rig<'s>(config: &HostSetup, storage: &'s mut [u8]) -> Rig<SdCard<'s>> {
    Rig::new(config, SdCard::new(storage, SdConfig::default()))
}

/// A host on `rig` with its SD card initialised to 4-bit high speed.
pub(crate) fn sd_host<'r, 's>(rig: &'r Rig<SdCard<'s>>) -> Host<'r, SdCard<'s>> {
    let mut host = Host::new(rig);
    sd_init(&mut host, false);
    host
}

fn assert_ok(result: &RequestResult) {
    assert_eq!(result.first_error(), None, "{result:?}");
}

#[test]
fn sd_initialisation_to_4_bit_high_speed() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    let status = host.ok(13, rca_arg(), flags::R1 | flags::AC)[0];
    assert_eq!(card_state(status), 4);
    rig.assert_no_violations();
}

#[test]
fn sd_uhs_initialisation_with_voltage_switch() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let rig = sd_rig(&modern_config(), &mut storage);
    let mut host = Host::new(&rig);
    sd_init(&mut host, true);
    assert_eq!(host.ctrl().signal_voltage(), SignalVoltage::V180);
    // Data at 200 MHz SDR104 over four lines.
    let result = host.run(&block_request(false, 3, 1, false), &[(0, 512)]);
    assert_ok(&result);
    rig.assert_no_violations();
}

#[test]
fn voltage_switch_accepts_3v3_and_1v8_only() {
    let mut ctrl = Controller::<()>::new(legacy_config());
    assert_eq!(
        ctrl.start_voltage_switch(SignalVoltage::V120),
        Err(UnsupportedVoltage(SignalVoltage::V120))
    );
    assert_eq!(ctrl.signal_voltage(), SignalVoltage::V330);
    assert_eq!(
        ctrl.start_voltage_switch(SignalVoltage::V180),
        Ok(PadState::Uhs)
    );
    assert_eq!(
        ctrl.start_voltage_switch(SignalVoltage::V330),
        Ok(PadState::Default)
    );
    assert_eq!(SignalVoltage::from_mmc(1), Some(SignalVoltage::V180));
    assert_eq!(SignalVoltage::from_mmc(3), None);
}

#[test]
fn sd_single_block_read_and_write() {
    let (mut storage, expect) = patterned(64 * BLOCK_SIZE);
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);

    let result = host.run(&block_request(false, 5, 1, false), &[(0, 512)]);
    assert_ok(&result);
    assert_eq!(card_state(result.cmd.response[0]), 4, "R1 of CMD17 in tran");
    assert_eq!(result.data.unwrap().bytes_xfered, 512);
    assert_eq!(result.stop, None);
    assert_eq!(rig.data(0, 512), expect[5 * 512..6 * 512]);

    rig.fill(0x1000, &[0xA5; 512]);
    let result = host.run(&block_request(true, 7, 1, false), &[(0x1000, 512)]);
    assert_ok(&result);
    assert_eq!(result.data.unwrap().bytes_xfered, 512);
    assert!(filled(&rig.card().storage()[7 * 512..8 * 512], 0xA5));
    rig.assert_no_violations();
}

#[test]
fn sd_multi_block_with_software_set_block_count() {
    let (mut storage, expect) = patterned(64 * BLOCK_SIZE);
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    // The glue leaves auto-CMD23 off for SD cards (upstream uses it for eMMC only), so
    // CMD23 goes out as its own command.
    let before = rig.model().commands();
    let segments = [(0, 1000), (0x2000, 24), (0x4000, 512)];
    let result = host.run(&block_request(false, 10, 3, true), &segments);
    assert_ok(&result);
    assert_eq!(
        rig.model().commands() - before,
        2,
        "CMD23 and CMD18, no CMD12"
    );
    let sbc = result.sbc.expect("CMD23 ran");
    assert_eq!(card_state(sbc.response[0]), 4);
    assert_eq!(result.data.unwrap().bytes_xfered, 3 * 512);
    assert_eq!(result.stop, None, "a bounded transfer needs no stop");
    assert_eq!(rig.card().state(), CardState::Tran);
    assert_eq!(rig.data(0, 1000), expect[10 * 512..10 * 512 + 1000]);
    assert_eq!(
        rig.data(0x2000, 24),
        expect[10 * 512 + 1000..11 * 512 + 512]
    );
    assert_eq!(rig.data(0x4000, 512), expect[12 * 512..13 * 512]);

    rig.fill(0x1000, &[0x3C; 1024]);
    let result = host.run(&block_request(true, 30, 2, true), &[(0x1000, 1024)]);
    assert_ok(&result);
    assert_eq!(result.stop, None);
    assert_eq!(
        rig.card().state(),
        CardState::Tran,
        "CMD23 bounded the write"
    );
    assert!(filled(&rig.card().storage()[30 * 512..32 * 512], 0x3C));
    assert_eq!(rig.card().storage()[32 * 512], expect[32 * 512]);
    rig.assert_no_violations();
}

/// `SDC_CMD` words: the opcode (5:0) and the automatic command (29:28, 2 = CMD23).
fn opcodes_and_auto_commands(words: &[u32]) -> Vec<(u32, u32)> {
    words.iter().map(|w| (w & 0x3F, (w >> 28) & 3)).collect()
}

/// The glue allows auto-CMD23 per card type (eMMC only): on an SD card a request with a
/// set-block-count sends CMD23 from software, and the switch takes effect per request,
/// never on the request in flight.
#[test]
fn sd_set_block_count_from_software_when_auto_cmd23_is_off() {
    let (mut storage, expect) = patterned(64 * BLOCK_SIZE);
    let config = crate::rig::with_auto_cmd23(modern_config());
    let rig = sd_rig(&config, &mut storage);
    let mut host = sd_host(&rig);
    host.set_mmc_card(false);
    rig.command_words.take();
    let result = host.run(&block_request(false, 4, 2, true), &[(0, 1024)]);
    assert_ok(&result);
    assert_eq!(
        opcodes_and_auto_commands(&rig.command_words.take()),
        [(23, 0), (18, 0)],
        "CMD23 on its own, then CMD18 without auto-CMD23"
    );
    assert_eq!(card_state(result.sbc.expect("CMD23 ran").response[0]), 4);
    assert_eq!(rig.data(0, 1024), expect[4 * 512..6 * 512]);

    // Allowed when the request starts: auto-CMD23, even if forbidden while it runs.
    host.set_mmc_card(true);
    host.start(&block_request(false, 8, 2, true), &[(0, 1024)])
        .unwrap();
    host.set_mmc_card(false);
    assert_ok(&host.wait().unwrap());
    assert_eq!(
        opcodes_and_auto_commands(&rig.command_words.take()),
        [(18, 2)]
    );
    // And the next request follows the new setting.
    assert_ok(&host.run(&block_request(false, 8, 2, true), &[(0, 1024)]));
    assert_eq!(
        opcodes_and_auto_commands(&rig.command_words.take()),
        [(23, 0), (18, 0)]
    );
    assert_eq!(rig.data(0, 1024), expect[8 * 512..10 * 512]);
    rig.assert_no_violations();
}

#[test]
fn sd_open_ended_multi_block_with_stop() {
    let (mut storage, expect) = patterned(64 * BLOCK_SIZE);
    let rig = sd_rig(&modern_config(), &mut storage);
    let mut host = sd_host(&rig);

    let result = host.run(&block_request(false, 20, 4, false), &[(0, 2048)]);
    assert_ok(&result);
    assert_eq!(result.sbc, None);
    let stop = result.stop.expect("CMD12 ends an open-ended read");
    assert_eq!(card_state(stop.response[0]), 5, "CMD12 answered in data");
    assert_eq!(rig.card().state(), CardState::Tran);
    assert_eq!(rig.data(0, 2048), expect[20 * 512..24 * 512]);

    rig.fill(0, &[0x77; 1536]);
    let result = host.run(&block_request(true, 40, 3, false), &[(0, 1536)]);
    assert_ok(&result);
    let stop = result.stop.expect("CMD12 ends an open-ended write");
    assert_eq!(card_state(stop.response[0]), 6, "CMD12 answered in receive");
    assert_eq!(rig.card().state(), CardState::Tran);
    assert!(filled(&rig.card().storage()[40 * 512..43 * 512], 0x77));
    rig.assert_no_violations();
}

#[test]
fn sd_large_transfer_over_many_segments() {
    let (mut storage, expect) = patterned(512 * BLOCK_SIZE);
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    // 128 KiB in 64 segments of 2 KiB, scattered every 4 KiB.
    let segments: Vec<(u64, u32)> = (0..64).map(|i| (i * 0x1000, 0x800)).collect();
    let result = host.run(&block_request(false, 100, 256, true), &segments);
    assert_ok(&result);
    assert_eq!(result.data.unwrap().bytes_xfered, 256 * 512);
    for (i, &(offset, len)) in segments.iter().enumerate() {
        let at = 100 * 512 + i * 0x800;
        assert_eq!(rig.data(offset, len as usize), expect[at..at + 0x800]);
    }
    rig.assert_no_violations();
}

#[test]
fn sd_switch_status_read_through_a_single_block_register_transfer() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    // CMD6 check mode with 64 bytes: block size below 512 and a response.
    let req = Request {
        data: Some(read_data(64, 1)),
        ..request(command(6, 0x00FF_FFF1, flags::R1 | flags::ADTC))
    };
    let result = host.run(&req, &[(0x100, 64)]);
    assert_ok(&result);
    assert_eq!(result.data.unwrap().bytes_xfered, 64);
    assert_eq!(rig.data(0x100 + 16, 1)[0] & 0xF, 1);
    rig.assert_no_violations();
}
