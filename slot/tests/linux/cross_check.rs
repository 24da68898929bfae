// SPDX-License-Identifier: GPL-2.0

//! Cross-checks the request engine against the independently written MSDC, SD card and eMMC
//! models: register values come from the engine (`msdc::controller`), behaviour from
//! `models::msdc`, `models::sd` and `models::emmc`. An SD card at UHS SDR104, scatter lists, faults,
//! descriptor checksums, bus width and clock mismatches, 32- and 36-bit DMA, and the clock
//! settings of both divider layouts.

use mmc_request::{Direction, ErrorKind, Request, RequestResult};
use models::emmc::{Card, CardState, ReadyOrder};
use models::msdc::{CardSlot, Fault, Violation};
use models::sd::{SdCard, SdConfig, ACMD41_BUSY_POLLS, BLOCK_SIZE, DEFAULT_RCA};
use msdc::clock::Timing;
use msdc::command::{Command, DataTransfer, ResponseType};
use msdc::controller::HostSetup;
use msdc::regs::{InterruptSet, MSDC_DMA_CTRL, MSDC_INT, SDC_ACMD_RESP, SDC_ARG, SDC_BLK_NUM};
use registers::Io;

use crate::replay::Phase;
use crate::rig::flags::{AC, BC, BCR, NONE, R1, R1B, R2, R3};
use crate::rig::{adtc_read, block_request, legacy_config, modern_config, patterned, Host, Rig};

type SdHost<'r, 's> = Host<'r, SdCard<'s>>;

fn rca_arg() -> u32 {
    u32::from(DEFAULT_RCA) << 16
}

fn assert_ok(result: &RequestResult) {
    assert_eq!(result.first_error(), None, "{result:?}");
}

/// A CMD18 or CMD25 whose request has no stop: the card goes on sending (or receiving) until
/// a CMD12 of its own.
fn unstopped(write: bool, address: u32, blocks: u32) -> Request {
    Request {
        stop: None,
        ..block_request(write, address, blocks, false)
    }
}

/// The data phase of `req` (with its data at the start of the window) fails with `error`
/// after a command that went through.
fn assert_data_fails<C: CardSlot>(h: &mut Host<'_, C>, req: &Request, error: ErrorKind) {
    let failed = h.mrq(req).unwrap_err();
    assert_eq!(
        (failed.phase, failed.error),
        (Phase::Data, error),
        "{failed:?}"
    );
}

/// Runs `test` with a host for `config` that `sd_init` took to UHS SDR104 with an SD card of
/// `blocks` blocks, filled with the rig's pattern; `test` also gets the card's contents from
/// before.
fn at_sdr104(config: HostSetup, blocks: usize, test: impl FnOnce(&mut SdHost<'_, '_>, &[u8])) {
    let (mut storage, expect) = patterned(blocks * BLOCK_SIZE);
    let rig = Rig::new(&config, SdCard::new(&mut storage, SdConfig::default()));
    let mut h = Host::new(&rig);
    sd_init(&mut h);
    test(&mut h, &expect);
}

/// Runs `test` with a host for a 36-bit controller and an eMMC of 32 sectors (filled with the
/// rig's pattern) put straight into the transfer state at RCA 1 and one bit; `test` also gets
/// the card's contents from before.
fn emmc_in_tran(test: impl FnOnce(&mut Host<'_, Card<'_>>, &[u8])) {
    let (mut storage, expect) = patterned(32 * 512);
    let mut card = Card::new(&mut storage, 8, ReadyOrder::Immediate);
    card.initialize(1, false).unwrap();
    let rig = Rig::new(&modern_config(), card);
    let mut h = Host::new(&rig);
    test(&mut h, &expect);
}

/// Runs the SD initialisation the MMC core performs (mmc_attach_sd) up to the transfer
/// state at 4-bit UHS SDR104, and checks what the card reported on the way.
fn sd_init(h: &mut SdHost<'_, '_>) {
    let idle = h.command(0, 0, NONE | BC);
    assert_eq!((idle.response, idle.error), ([0; 4], None));
    let r7 = h.ok(8, 0x1AA, R1 | BCR)[0];
    assert_eq!(r7 & 0xFFF, 0x1AA, "CMD8 echoes VHS and check pattern");
    let mut polls = 0;
    let ocr = loop {
        h.ok(55, 0, R1 | BCR);
        let ocr = h.ok(41, 0x4100_0000 | 0x00FF_8000, R3 | BCR)[0];
        polls += 1;
        if ocr & (1 << 31) != 0 {
            break ocr;
        }
        assert!(polls < 10, "card never ready");
    };
    assert_eq!(polls, ACMD41_BUSY_POLLS + 1);
    assert!(ocr & (1 << 30) != 0, "CCS: high capacity");
    assert!(ocr & (1 << 24) != 0, "S18A");
    // CMD11: the voltage switch command carries VOLSWTH; the glue then switches the pads.
    let r = h.ok(11, 0, R1 | AC)[0];
    assert_eq!(r & 0xFFF9_0000, 0);
    h.uhs_voltage_switch();
    assert!(h.rig.card().signal_1v8());
    let cid = h.ok(2, 0, R2 | BCR);
    assert_eq!(cid[0] >> 24, 0x7E, "MID in resp[0] bits 31:24");
    let r6 = h.ok(3, 0, R1 | BCR)[0];
    assert_eq!(r6 >> 16, u32::from(DEFAULT_RCA));
    let csd = h.ok(9, rca_arg(), R2 | AC);
    assert_eq!(csd[0] >> 30, 1, "CSD version 2.0");
    // The core selects with R1 although the SD card answers R1b.
    let r = h.ok(7, rca_arg(), R1 | AC)[0];
    assert_eq!((r >> 9) & 0xF, 3, "CMD7 answered in stby");
    assert_eq!(h.rig.card().state(), CardState::Tran);
    // ACMD51: SCR, 8 bytes of data.
    h.ok(55, rca_arg(), R1 | AC);
    h.read_ok(51, 0, 8, 1);
    assert_eq!(h.rig.data(0, 4), [0x02, 0x05, 0x80, 0x02]);
    // ACMD6: 4-bit bus, then the host.
    h.ok(55, rca_arg(), R1 | AC);
    h.ok(6, 2, R1 | AC);
    h.ctrl().set_bus_width(h.rig, 4);
    assert_eq!(h.rig.card().bus_width(), 4);
    // CMD6 check then switch to SDR104 (function 3 of group 1).
    let switch = |h: &mut SdHost<'_, '_>, arg: u32| {
        assert_ok(&h.run(&adtc_read(6, arg, 64), &[(0x100, 64)]));
        h.rig.data(0x100, 64)
    };
    let status = switch(h, 0x00FF_FFF3);
    assert!(status[13] & (1 << 3) != 0, "SDR104 supported at 1.8 V");
    assert_eq!(status[16] & 0xF, 3);
    assert_eq!(h.rig.card().access_mode(), 0, "check mode switches nothing");
    let status = switch(h, 0x80FF_FFF3);
    assert_eq!(status[16] & 0xF, 3);
    assert_eq!(h.rig.card().access_mode(), 3);
    h.clock(200_000_000, Timing::UhsSdr104);
}

#[test]
fn sd_initialisation_through_the_controller() {
    at_sdr104(modern_config(), 64, |h, _| {
        let status = h.ok(13, rca_arg(), R1 | AC)[0];
        assert_eq!((status >> 9) & 0xF, 4);
        h.rig.assert_no_violations();
    });
}

#[test]
fn sd_single_and_multi_block_reads_and_writes() {
    at_sdr104(modern_config(), 64, |h, expect| {
        let rig = h.rig;
        // CMD17, one segment.
        h.read_ok(17, 5, 512, 1);
        assert_eq!(rig.data(0, 512), expect[5 * 512..6 * 512]);

        // CMD18 over three segments, ended by a CMD12 of its own.
        let segments = [(0, 1000), (0x2000, 24), (0x4000, 512)];
        assert_ok(&h.run(&unstopped(false, 10, 3), &segments));
        assert_eq!(
            rig.card().state(),
            CardState::Data,
            "open-ended read still running"
        );
        h.ok(12, 0, R1B | AC);
        assert_eq!(rig.card().state(), CardState::Tran);
        let read = [
            rig.data(0, 1000),
            rig.data(0x2000, 24),
            rig.data(0x4000, 512),
        ];
        assert_eq!(read.concat(), expect[10 * 512..13 * 512]);

        // CMD18 with the request's stop. The old test asked the controller for auto-CMD12;
        // the engine has none (nor has mtk-sd): it sends `mrq.stop` once the data is in.
        assert_ok(&h.run(&block_request(false, 20, 2, false), &[(0, 1024)]));
        assert_eq!(rig.card().state(), CardState::Tran);
        assert_eq!(rig.data(0, 1024), expect[20 * 512..22 * 512]);

        // CMD24.
        rig.fill(0, &[0xA5; 512]);
        assert_ok(&h.run(&block_request(true, 7, 1, false), &[(0, 512)]));
        // CMD23 then CMD25 of two blocks: the request's sbc, which the engine sends as its
        // own command for SD (the old test sent it as a request of its own).
        rig.fill(0x1000, &[0x3C; 1024]);
        assert_ok(&h.run(&block_request(true, 30, 2, true), &[(0x1000, 1024)]));
        assert_eq!(
            rig.card().state(),
            CardState::Tran,
            "CMD23 bounded the write"
        );
        // CMD25 with the request's stop (the old test: auto-CMD12).
        rig.fill(0x3000, &[0x77; 1536]);
        assert_ok(&h.run(&block_request(true, 40, 3, false), &[(0x3000, 1536)]));
        rig.assert_no_violations();
        let card = rig.card();
        let written = card.storage();
        assert!(written[7 * 512..8 * 512].iter().all(|&b| b == 0xA5));
        assert!(written[30 * 512..32 * 512].iter().all(|&b| b == 0x3C));
        assert_eq!(written[32 * 512], expect[32 * 512]);
        assert!(written[40 * 512..43 * 512].iter().all(|&b| b == 0x77));
        assert_eq!(written[6 * 512..7 * 512], expect[6 * 512..7 * 512]);
    });
}

#[test]
fn emmc_multi_block_with_auto_cmd23() {
    emmc_in_tran(|h, expect| {
        let rig = h.rig;
        h.set_mmc_card(true);
        h.mmc_switch(1, 183, 2).unwrap();
        h.ctrl().set_bus_width(rig, 8);
        // The engine folds the request's CMD23 into auto-CMD23 (the old test asked for it);
        // its response lands in SDC_ACMD_RESP and is reported as the sbc's.
        let result = h.run(&block_request(false, 4, 4, true), &[(0, 2048)]);
        assert_ok(&result);
        let sbc = result.sbc.expect("auto-CMD23 result");
        assert_eq!(sbc.response[0], rig.peek(SDC_ACMD_RESP::OFFSET));
        assert_ne!(sbc.response[0], 0, "auto-CMD23 answered");
        assert_eq!(
            rig.card().state(),
            CardState::Tran,
            "auto-CMD23 bounded the read"
        );
        assert_eq!(rig.data(0, 2048), expect[4 * 512..8 * 512]);
        rig.fill(0, &[0xEE; 1024]);
        assert_ok(&h.run(&block_request(true, 9, 2, true), &[(0, 1024)]));
        rig.assert_no_violations();
        assert_eq!(rig.card().storage()[9 * 512..11 * 512], [0xEE; 1024]);
    });
}

#[test]
fn injected_command_faults() {
    at_sdr104(modern_config(), 64, |h, _| {
        let mut status_with = |fault| {
            h.rig.model().inject(fault);
            h.wait_for_cmd(13, rca_arg(), R1 | AC)
        };
        assert_eq!(status_with(Fault::CommandTimeout), Err(ErrorKind::TimedOut));
        assert_eq!(status_with(Fault::ResponseCrc), Err(ErrorKind::BadCrc));
        // The fault is for one command only.
        assert!(h.wait_for_cmd(13, rca_arg(), R1 | AC).is_ok());
    });
}

#[test]
fn injected_data_faults() {
    at_sdr104(modern_config(), 64, |h, _| {
        h.rig.model().inject(Fault::DataCrc);
        assert_data_fails(h, &block_request(false, 0, 1, false), ErrorKind::BadCrc);
        h.rig.model().inject(Fault::DataTimeout);
        assert_data_fails(h, &unstopped(false, 0, 2), ErrorKind::TimedOut);
        // The card still sends: the driver stops it with CMD12 and carries on.
        assert_eq!(h.rig.card().state(), CardState::Data);
        h.ok(12, 0, R1B | AC);
        assert_ok(&h.run(&block_request(false, 1, 1, false), &[(0, 512)]));
    });
}

#[test]
fn injected_data_faults_wait_for_their_direction() {
    at_sdr104(modern_config(), 64, |h, _| {
        // A data fault waits past commands without data, and a write fault past reads.
        h.rig.model().inject(Fault::WriteDataCrc);
        assert!(h.wait_for_cmd(13, rca_arg(), R1 | AC).is_ok());
        assert_ok(&h.run(&block_request(false, 1, 1, false), &[(0, 512)]));
        assert_eq!(h.rig.model().pending_fault(), Some(Fault::WriteDataCrc));
        assert_data_fails(h, &block_request(true, 1, 1, false), ErrorKind::BadCrc);
        assert_eq!(h.rig.model().pending_fault(), None);
        h.rig.model().inject(Fault::ReadDataCrc);
        assert_ok(&h.run(&block_request(true, 2, 1, false), &[(0, 512)]));
        assert_data_fails(h, &block_request(false, 2, 1, false), ErrorKind::BadCrc);
        // A cancelled fault never happens.
        h.rig.model().inject(Fault::DataCrc);
        h.rig.model().cancel_fault();
        assert_ok(&h.run(&block_request(false, 2, 1, false), &[(0, 512)]));
    });
}

#[test]
fn descriptor_checksum_errors() {
    at_sdr104(modern_config(), 64, |h, _| {
        let rig = h.rig;
        // Byte 4 of the GPD (its `next` field) is covered by the checksum; the first BD is
        // at offset 64. The engine writes the chain in `start`: it is broken after that,
        // before the DMA reads it.
        let corruptions = [
            (4, InterruptSet::DMA_GPDCSERR),
            (64 + 8, InterruptSet::DMA_BDCSERR),
        ];
        for (byte, event) in corruptions {
            h.start(&block_request(false, 0, 1, false), &[(0, 512)])
                .unwrap();
            rig.corrupt_descriptor(byte);
            rig.seen_events.set(0);
            let result = h.wait().expect("the data phase ends");
            assert_eq!(result.cmd.error, None);
            assert_eq!(result.data.unwrap().error, Some(ErrorKind::DmaFault));
            assert!(rig.seen_events.get() & event.bits() != 0);
            // The single block read is still open on the card's side: CMD12 ends it.
            h.ok(12, 0, R1B | AC);
        }
    });
}

#[test]
fn bus_width_mismatch_is_a_data_crc_error() {
    at_sdr104(modern_config(), 64, |h, _| {
        h.ctrl().set_bus_width(h.rig, 1);
        assert_data_fails(h, &block_request(false, 0, 1, false), ErrorKind::BadCrc);
    });
}

#[test]
fn illegal_and_out_of_range_commands() {
    at_sdr104(modern_config(), 64, |h, _| {
        // CMD2 in tran: illegal, no response; the next status reports ILLEGAL_COMMAND once.
        h.no_response(2, 0, R2 | BCR);
        let s = h.ok(13, rca_arg(), R1 | AC)[0];
        assert!(s & (1 << 22) != 0);
        let s = h.ok(13, rca_arg(), R1 | AC)[0];
        assert_eq!(s & (1 << 22), 0);
        // A read beyond the capacity: OUT_OF_RANGE in the response, no data (timeout).
        let beyond = block_request(false, 1000, 1, false);
        assert_data_fails(h, &beyond, ErrorKind::TimedOut);
        // An open-ended read that runs off the end; CMD12's response reports OUT_OF_RANGE.
        assert_data_fails(h, &unstopped(false, 63, 2), ErrorKind::TimedOut);
        let r = h.ok(12, 0, R1B | AC);
        assert!(r[0] & (1 << 31) != 0);
    });
}

#[test]
fn r3_received_as_r1_fails_crc() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let config = modern_config();
    let rig = Rig::new(&config, SdCard::new(&mut storage, SdConfig::default()));
    let mut h = Host::new(&rig);
    h.ok(0, 0, NONE | BC);
    h.ok(8, 0x1AA, R1 | BCR);
    h.ok(55, 0, R1 | BCR);
    assert_eq!(
        h.wait_for_cmd(41, 0x40FF_8000, R1 | BCR),
        Err(ErrorKind::BadCrc)
    );
}

#[test]
fn clock_settings_agree_with_the_model() {
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
    for (divider, config) in [("8-bit", legacy_config()), ("12-bit", modern_config())] {
        let rig = Rig::new(&config, SdCard::new(&mut [], SdConfig::default()));
        let mut h = Host::new(&rig);
        for (hz, timing) in cases {
            let actual = h.clock(hz, timing);
            assert_eq!(
                rig.model().bus_clock_hz(),
                actual,
                "{hz} Hz {timing:?} {divider} divider: engine and model disagree"
            );
            assert!(actual <= hz, "{hz} Hz {timing:?}: clock above request");
        }
    }
}

#[test]
fn data_above_the_card_clock_limit_fails() {
    at_sdr104(modern_config(), 64, |h, _| {
        // Back to default speed on the card, but the host keeps 200 MHz.
        assert_data_fails(h, &adtc_read(6, 0x80FF_FFF0, 64), ErrorKind::BadCrc);
        assert_eq!(h.rig.card().max_clock_hz(), 25_000_000);
        assert_eq!(
            h.rig.model().violations().1[0],
            Some(Violation::ClockTooFast {
                hz: 200_000_000,
                max: 25_000_000
            })
        );
    });
}

#[test]
fn thirty_two_bit_dma_and_long_segments() {
    // 32-bit controller: 16-bit BD lengths, no high nibbles. The old test asked for
    // auto-CMD12; the engine sends the request's stop instead.
    at_sdr104(legacy_config(), 256, |h, expect| {
        let segments = [(0, 0xFFFF), (0x1_0000, 0x1_0000 - 0xFFFF + 512)];
        assert_ok(&h.run(&block_request(false, 2, 129, false), &segments));
        let read = [h.rig.data(0, 0xFFFF), h.rig.data(0x1_0000, 513)];
        assert_eq!(read.concat(), expect[2 * 512..131 * 512]);
        h.rig.assert_no_violations();
    });
    // 36-bit controller: one 128 KiB segment needs the 24-bit length field.
    at_sdr104(modern_config(), 512, |h, expect| {
        assert_ok(&h.run(&block_request(false, 100, 256, false), &[(0, 0x2_0000)]));
        assert_eq!(h.rig.data(0, 0x2_0000), expect[100 * 512..356 * 512]);
        h.rig.assert_no_violations();
    });
}

#[test]
fn a_consumed_gpd_must_be_rearmed() {
    at_sdr104(modern_config(), 64, |h, _| {
        h.read_ok(17, 0, 512, 1);
        let rig = h.rig;
        // Reissue by hand without rewriting the chain (the engine always rewrites it): the
        // DMA finds the GPD the engine armed at the start of the descriptor area handed back
        // (HWO clear). The old test read HWO from RAM; the rig does not show the descriptor
        // area, so the hand-back is seen in the violation, at that GPD's address.
        let word = Command::new(17, ResponseType::R1)
            .with_data(DataTransfer::blocks(Direction::Read, 512, 1))
            .sdc_cmd()
            .unwrap();
        rig.write(SDC_BLK_NUM::from_raw(1));
        rig.write(SDC_ARG::from_raw(0));
        rig.write(word);
        rig.update::<MSDC_DMA_CTRL>(|ctrl| ctrl.with_start(true));
        assert!(rig.peek(MSDC_INT::OFFSET) & InterruptSet::DATTMO.bits() != 0);
        assert_eq!(
            rig.model().violations().1[0],
            Some(Violation::GpdNotOwned(rig.base))
        );
    });
}

#[test]
fn emmc_ext_csd_read_and_switch() {
    emmc_in_tran(|h, _| {
        let rig = h.rig;
        // CMD8 at the wrong bus width fails its CRC; after BUS_WIDTH = 8 bit it reads.
        h.ctrl().set_bus_width(rig, 8);
        assert_data_fails(h, &adtc_read(8, 0, 512), ErrorKind::BadCrc);
        h.ctrl().set_bus_width(rig, 1);
        h.mmc_switch(1, 183, 2).unwrap();
        h.ctrl().set_bus_width(rig, 8);
        // CMD8 SEND_EXT_CSD: one 512-byte block.
        h.mrq(&adtc_read(8, 0, 512)).unwrap();
        assert_eq!(rig.data(0, 512), rig.card().ext_csd().bytes()[..]);
        // CMD6 SWITCH (R1b) enabling the command queue, then CMD13.
        let r = h.ok(6, (3 << 24) | (15 << 16) | (1 << 8), R1B | AC);
        assert_eq!(r[0] & 0xFDF9_A080, 0);
        assert!(rig.card().ext_csd().cmdq_enabled());
        let s = h.ok(13, 1 << 16, R1 | AC)[0];
        assert_eq!((s >> 9) & 0xF, 4);
        rig.assert_no_violations();
    });
}
