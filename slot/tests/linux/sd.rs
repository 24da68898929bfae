// SPDX-License-Identifier: GPL-2.0

//! Replays, request by request through the request engine and the MSDC model, what the Linux
//! 7.3 MMC core sends to an SD card on a host with a 4-bit bus, MMC_CAP_SD_HIGHSPEED,
//! MMC_CAP_CMD23 and MMC_CAP_ERASE, no UHS modes and no MMC_CAP_WAIT_WHILE_BUSY:
//! `mmc_rescan_try_freq`, `mmc_attach_sd`, `mmc_sd_init_card` (SCR, SD status, switch
//! function in check and set mode, bus width), then what `mmc_block` does (CMD23-bounded
//! transfers with CMD23 sent by the host, busy polling, erase, ACMD22 in recovery). The card's
//! registers are decoded the way `mmc_decode_csd`, `mmc_decode_scr`, `mmc_read_ssr` and
//! `mmc_read_switch` do.

use models::emmc::CardState;
use models::sd::{SdCard, SdConfig, BLOCK_SIZE};
use msdc::clock::Timing;

use crate::replay::{open_ended, rw, unstuff_bits};
use crate::rig::flags::{AC, BC, BCR, NONE, R1, R1B, R2, R3};
use crate::rig::{adtc_read, modern_config, Host, Rig};

const HOST_OCR: u32 = 0x0030_0000;
const SD_OCR_CCS: u32 = 1 << 30;
const SD_OCR_2T: u32 = 1 << 27;
const SD_OCR_XPC: u32 = 1 << 28;
/// 8 MiB: a whole number of the CSD's 512 KiB capacity units.
const BLOCKS: usize = 16 * 1024;

type SdHost<'r, 's> = Host<'r, SdCard<'s>>;

/// `mmc_app_cmd`: CMD55, which must come back with APP_CMD set (BCR before the card has an
/// address).
fn app_cmd(h: &mut SdHost<'_, '_>, rca: u32) {
    let kind = if rca == 0 { BCR } else { AC };
    let r = h.ok(55, rca << 16, R1 | kind)[0];
    assert_ne!(r & (1 << 5), 0, "APP_CMD");
}

/// What the core learnt while initialising.
struct Init {
    rca: u32,
    rocr: u32,
    csd: [u32; 4],
    scr: [u32; 4],
    ssr: [u32; 16],
    switch_caps: Vec<u8>,
}

/// `mmc_rescan_try_freq` through `mmc_sd_init_card`, non-UHS host.
fn init(h: &mut SdHost<'_, '_>) -> Init {
    // sdio_reset (CMD52), mmc_go_idle, mmc_send_if_cond.
    h.no_response(52, 0x0000_0C00, R1 | AC);
    h.no_response(52, 0x8000_0C08, R1 | AC);
    h.ok(0, 0, NONE | BC);
    let r7 = h.ok(8, 0x1AA, R1 | BCR)[0];
    assert_eq!(r7 & 0xFFF, 0x1AA);
    // mmc_attach_sdio: CMD5 gets no answer from a memory card.
    h.no_response(5, 0, R3 | BCR);
    // mmc_attach_sd: ACMD41 inquiry.
    app_cmd(h, 0);
    let ocr = h.ok(41, 0, R3 | BCR)[0];
    assert_eq!(ocr & 0x00FF_8000, 0x00FF_8000);
    // mmc_sd_get_cid: CMD0, CMD8, ACMD41 with HCS, HO2T and XPC until ready (10 ms period).
    h.ok(0, 0, NONE | BC);
    h.ok(8, 0x1AA, R1 | BCR);
    let arg = HOST_OCR | SD_OCR_CCS | SD_OCR_2T | SD_OCR_XPC;
    let mut rocr = 0;
    for _ in 0..200 {
        app_cmd(h, 0);
        rocr = h.ok(41, arg, R3 | BCR)[0];
        if rocr & (1 << 31) != 0 {
            break;
        }
    }
    assert_ne!(rocr & (1 << 31), 0, "power-up never finished");
    assert_ne!(rocr & SD_OCR_CCS, 0, "SDHC");
    assert_eq!(rocr & SD_OCR_2T, 0, "not SDUC");
    assert_eq!(rocr & (1 << 24), 0, "no S18A without S18R");
    h.ok(2, 0, R2 | BCR);
    let rca = h.ok(3, 0, R1 | BCR)[0] >> 16;
    let csd = h.ok(9, rca << 16, R2 | AC);
    // mmc_select_card: R1 (the card answers R1b).
    h.ok(7, rca << 16, R1 | AC);
    // mmc_app_send_scr.
    app_cmd(h, rca);
    h.mrq(&adtc_read(51, 0, 8)).unwrap();
    let raw = h.rig.data(0, 8);
    let scr = [
        0,
        0,
        u32::from_be_bytes([raw[0], raw[1], raw[2], raw[3]]),
        u32::from_be_bytes([raw[4], raw[5], raw[6], raw[7]]),
    ];
    // mmc_read_ssr: ACMD13.
    app_cmd(h, rca);
    h.mrq(&adtc_read(13, 0, 64)).unwrap();
    let raw = h.rig.data(0, 64);
    let mut ssr = [0u32; 16];
    for (i, w) in ssr.iter_mut().enumerate() {
        *w = u32::from_be_bytes([raw[4 * i], raw[4 * i + 1], raw[4 * i + 2], raw[4 * i + 3]]);
    }
    // mmc_read_switch: CMD6 check mode, group 1 function 0.
    h.mrq(&adtc_read(6, 0x00FF_FFF0, 64)).unwrap();
    let switch_caps = h.rig.data(0, 64);
    // mmc_sd_switch_hs: CMD6 set mode, high speed.
    h.mrq(&adtc_read(6, 0x80FF_FFF1, 64)).unwrap();
    assert_eq!(h.rig.data(0, 64)[16] & 0xF, 1, "switched to high speed");
    h.clock(50_000_000, Timing::SdHighSpeed);
    // mmc_app_set_bus_width(4).
    app_cmd(h, rca);
    h.ok(6, 2, R1 | AC);
    h.ctrl().set_bus_width(h.rig, 4);
    Init {
        rca,
        rocr,
        csd,
        scr,
        ssr,
        switch_caps,
    }
}

fn storage() -> Vec<u8> {
    let mut s = vec![0u8; BLOCKS * BLOCK_SIZE];
    for (i, b) in s.iter_mut().enumerate() {
        *b = (i * 11 + i / 512) as u8;
    }
    s
}

/// Runs `test` with a host that initialised an SD card as the core does; `test` also gets
/// the card's contents from before.
fn initialised(test: impl FnOnce(&mut SdHost<'_, '_>, &Init, &[u8])) {
    let mut storage = storage();
    let expect = storage.clone();
    // The card in the slot of a 36-bit controller (RAM above 4 GiB).
    let rig = Rig::new(
        &modern_config(),
        SdCard::new(&mut storage, SdConfig::default()),
    );
    let mut h = Host::new(&rig);
    let init = init(&mut h);
    test(&mut h, &init, &expect);
}

#[test]
fn registers_decode_as_the_core_expects() {
    initialised(|h, i, _| {
        let card = h.rig.card();
        let found = (card.bus_width(), card.access_mode(), card.signal_1v8());
        assert_eq!(card.state(), CardState::Tran);
        assert_eq!(
            found,
            (4, 1, false),
            "bus width, access mode, 1.8 V signalling"
        );
        drop(card);
        // mmc_decode_csd, structure 1.
        let csd = &i.csd;
        assert_eq!(unstuff_bits(csd, 126, 2), 1);
        let c_size = unstuff_bits(csd, 48, 22);
        assert_eq!(((c_size + 1) << 10) as usize, BLOCKS);
        let cmdclass = unstuff_bits(csd, 84, 12);
        for class in [5, 8, 10] {
            assert_ne!(cmdclass & (1 << class), 0, "CCC class {class}");
        }
        assert_eq!(unstuff_bits(csd, 13, 1), 0, "not write protected");
        // mmc_decode_scr.
        let scr = &i.scr;
        assert_eq!(unstuff_bits(scr, 60, 4), 0, "SCR structure");
        assert_eq!(unstuff_bits(scr, 56, 4), 2, "SD_SPEC 2");
        assert_eq!(unstuff_bits(scr, 48, 4), 0x5, "1- and 4-bit");
        assert_eq!(unstuff_bits(scr, 47, 1), 1, "SD_SPEC3");
        assert_eq!(unstuff_bits(scr, 42, 1), 0, "no SD_SPEC4");
        assert_eq!(unstuff_bits(scr, 55, 1), 0, "erased data reads 0");
        assert_eq!(unstuff_bits(scr, 32, 2) & 2, 2, "CMD23 supported");
        // mmc_read_ssr (unstuff_bits sees the first four words: bits 511:384).
        let ssr = &[i.ssr[0], i.ssr[1], i.ssr[2], i.ssr[3]];
        assert_eq!(
            unstuff_bits(ssr, 510 - 384, 2),
            0,
            "DAT_BUS_WIDTH: 1 bit before ACMD6"
        );
        let au = unstuff_bits(ssr, 428 - 384, 4);
        assert_eq!(au, 9, "AU 4 MiB");
        let es = unstuff_bits(ssr, 408 - 384, 16);
        let et = unstuff_bits(ssr, 402 - 384, 6);
        let eo = unstuff_bits(ssr, 400 - 384, 2);
        assert_eq!(
            (et * 1000 / es, eo * 1000),
            (1000, 1000),
            "erase timeout/offset in ms"
        );
        let word6 = [0, 0, 0, i.ssr[6]];
        assert_eq!(unstuff_bits(&word6, 313 - 288, 1), 0, "no DISCARD_SUPPORT");
        assert_eq!(unstuff_bits(ssr, 440 - 384, 8), 4, "speed class 10");
        // mmc_read_switch.
        let st = &i.switch_caps;
        assert_ne!(st[13] & 0x02, 0, "high speed supported");
        assert_eq!(
            st[13] & 0x1C,
            0,
            "no UHS modes at 3.3 V (mmc_sd_card_using_v18)"
        );
        assert_eq!(st[16] & 0xF, 0, "check mode with function 0");
        assert_eq!(i.rocr & 0x00FF_8000, 0x00FF_8000);
        // CMD9 in transfer state is illegal; the CSD after the switch says 50 MHz.
        h.no_response(9, i.rca << 16, R2 | AC);
        assert_eq!(h.rig.card().csd()[0] & 0xFF, 0x5A);
        h.rig.assert_no_violations();
    });
}

#[test]
fn block_io_with_cmd23_and_busy_polling() {
    initialised(|h, i, expect| {
        let rig = h.rig;
        let rca = i.rca as u16;
        // Reads: CMD17, and CMD23 + CMD18 (the host sends CMD23 itself for SD).
        h.mrq(&rw(false, 0, 1, false)).unwrap();
        assert_eq!(rig.data(0, 512), expect[..512]);
        h.mrq(&rw(false, 100, 64, false)).unwrap();
        assert_eq!(rig.data(0, 64 * 512), expect[100 * 512..164 * 512]);
        assert_eq!(
            rig.card().state(),
            CardState::Tran,
            "CMD23 bounded the read"
        );
        // Writes with the busy poll, random 4 KiB and sequential 512 KiB.
        let mut shadow = expect.to_vec();
        for (n, sector) in [5u32, 999, 16_376].into_iter().enumerate() {
            let fill = 0x60 + n as u8;
            h.write_and_wait(rca, &rw(true, sector, 8, false), |_| fill, &mut shadow);
        }
        // The rig's data window holds 256 KiB: the 512 KiB write sends it twice, and the read
        // back takes several reads.
        let sequential = |write| rw(write, 4096, 1024, false);
        let written = h.write_and_wait(rca, &sequential(true), |i| (i / 5) as u8, &mut shadow);
        assert_eq!(h.read_back(&sequential(false)), written);
        // mmc_sd_num_wr_blocks (ACMD22), as recovery after a write asks.
        app_cmd(h, i.rca);
        h.mrq(&adtc_read(22, 0, 4)).unwrap();
        let well_written = u32::from_be_bytes(rig.data(0, 4).try_into().unwrap());
        assert_eq!(well_written, 1024);
        // An open-ended read ended by CMD12 (R1 after a read, as the core's stop is).
        h.mrq(&open_ended(false, 200, 4)).unwrap();
        assert_eq!(rig.card().state(), CardState::Tran);
        assert!(rig.card().storage() == shadow);
        rig.assert_no_violations();
    });
}

#[test]
fn erase_through_cmd32_33_38() {
    initialised(|h, i, expect| {
        let rca = i.rca as u16;
        // mmc_do_erase with SD_ERASE_ARG (no DISCARD_SUPPORT in the SD status).
        h.ok(32, 8192, R1 | AC);
        h.ok(33, 8192 + 8191, R1 | AC);
        h.ok(38, 0, R1B | AC);
        let seen = h.poll_busy(rca, false).unwrap();
        assert_eq!(seen & 0xFDF9_E000, 0, "{seen:#x}");
        // Discard is not supported: ERASE_PARAM, nothing erased.
        h.ok(32, 10, R1 | AC);
        h.ok(33, 12, R1 | AC);
        let r = h.ok(38, 1, R1B | AC)[0];
        assert_ne!(r & (1 << 27), 0);
        // Out of sequence.
        let r = h.ok(38, 0, R1B | AC)[0];
        assert_ne!(r & (1 << 28), 0);
        h.ok(32, 10, R1 | AC);
        let r = h.ok(13, i.rca << 16, R1 | AC)[0];
        assert_eq!(r & (1 << 13), 0, "CMD13 does not break the sequence");
        // CMD17 as a command of its own, without a data phase.
        let r = h.ok(17, 0, R1 | AC)[0];
        assert_ne!(r & (1 << 13), 0, "ERASE_RESET");
        // CMD17 started a read: end it as recovery would.
        h.ok(12, 0, R1B | AC);
        {
            let card = h.rig.card();
            let erased = &card.storage()[8192 * 512..16384 * 512];
            assert!(erased.iter().all(|&b| b == 0));
            assert_eq!(card.storage()[..8192 * 512], expect[..8192 * 512]);
        }
        h.rig.assert_no_violations();
    });
}
