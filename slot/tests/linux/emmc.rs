// SPDX-License-Identifier: GPL-2.0

//! Replays, request by request through the request engine and the MSDC model, what the Linux
//! 7.3 MMC core sends to an eMMC on a host with an 8-bit bus, MMC_CAP_MMC_HIGHSPEED,
//! MMC_CAP_CMD23 and MMC_CAP_ERASE, without MMC_CAP_WAIT_WHILE_BUSY (busy is polled with
//! CMD13) and without MMC_CAP_BUS_WIDTH_TEST (the EXT_CSD is read again after the bus width
//! switch and compared): `mmc_rescan_try_freq` (SDIO, SD and MMC probes), `mmc_attach_mmc`,
//! `mmc_init_card`, then what `mmc_block` does (partition switches, CMD23-bounded and
//! open-ended transfers, reliable writes, cache flush, discard, trim and erase). Each step
//! decodes the card's answers the way `mmc_decode_csd`/`mmc_decode_ext_csd` do.

use models::emmc::{Card, CardConfig, CardState, PARTITION_UNIT};
use msdc::clock::Timing;

use crate::replay::{open_ended, rw, unstuff_bits, Phase};
use crate::rig::flags::{AC, BC, BCR, NONE, R1, R1B, R2, R3};
use crate::rig::{adtc_read, modern_config, Host, Rig};

const RCA: u16 = 1;
const RCA_ARG: u32 = (RCA as u32) << 16;
/// Host OCR after `mmc_select_voltage` for 3.2–3.4 V.
const HOST_OCR: u32 = 0x0030_0000;
const SECTORS: usize = 8192;

/// EXT_CSD fields `mmc_compare_ext_csds` compares after the bus width switch.
const COMPARED: [usize; 25] = [
    160, 181, 192, 194, 196, 217, 221, 223, 224, 229, 230, 231, 232, 212, 213, 214, 215, 200, 201,
    202, 203, 236, 237, 238, 239,
];

struct Storage {
    user: Vec<u8>,
    boot0: Vec<u8>,
    boot1: Vec<u8>,
}

impl Storage {
    fn new() -> Self {
        let mut user = vec![0u8; SECTORS * 512];
        for (i, b) in user.iter_mut().enumerate() {
            *b = (i * 13 + i / 512) as u8;
        }
        Self {
            user,
            boot0: vec![0xB0; 2 * PARTITION_UNIT],
            boot1: vec![0xB1; 2 * PARTITION_UNIT],
        }
    }

    /// The card in the slot of a 36-bit controller (RAM above 4 GiB).
    fn rig(&mut self) -> Rig<Card<'_>> {
        let card = Card::with_config(
            &mut self.user,
            [&mut self.boot0, &mut self.boot1],
            CardConfig::default(),
        );
        Rig::new(&modern_config(), card)
    }
}

type EmmcHost<'r, 's> = Host<'r, Card<'s>>;

/// What the core learnt while initialising.
struct Init {
    rocr: u32,
    cid: [u32; 4],
    csd: [u32; 4],
    ext_csd: Vec<u8>,
}

fn read_ext_csd(h: &mut EmmcHost<'_, '_>) -> Vec<u8> {
    h.mrq(&adtc_read(8, 0, 512)).expect("CMD8");
    h.rig.data(0, 512)
}

/// `mmc_send_op_cond`: CMD1 until the card reports ready (4 ms period, 1 s timeout).
fn send_op_cond(h: &mut EmmcHost<'_, '_>, ocr: u32) -> (u32, u32) {
    let mut arg = ocr;
    for polls in 1..=250 {
        let r = h.ok(1, arg, R3 | BCR)[0];
        if r & (1 << 31) != 0 {
            return (r, polls);
        }
        if ocr == 0 {
            arg = r | (1 << 30);
        }
    }
    panic!("card stuck busy");
}

/// `mmc_rescan_try_freq` at 400 kHz up to a registered card, as the 7.3 core sends it.
fn rescan(h: &mut EmmcHost<'_, '_>) -> Init {
    // sdio_reset: CMD52 read and write of CCCR ABORT (R5); an eMMC ignores CMD52.
    h.no_response(52, 0x0000_0C00, R1 | AC);
    h.no_response(52, 0x8000_0C08, R1 | AC);
    // mmc_go_idle.
    h.ok(0, 0, NONE | BC);
    // mmc_send_if_cond: CMD8 with VHS 2.7–3.6 V and pattern 0xAA; in idle it is illegal.
    h.no_response(8, 0x1AA, R1 | BCR);
    // mmc_attach_sdio: CMD5 (R4).
    h.no_response(5, 0, R3 | BCR);
    // mmc_attach_sd: CMD55 + ACMD41 inquiry, CMD55 retried (MMC_CMD_RETRIES + 1 times).
    for _ in 0..4 {
        h.no_response(55, 0, R1 | BCR);
    }
    // mmc_attach_mmc: CMD1 with a zero argument, repeated until ready (eMMC 5.1 §6.4.3).
    let (ocr, polls) = send_op_cond(h, 0);
    assert_eq!(polls, 2, "one busy answer, then ready");
    assert_eq!(ocr & 0x00FF_8080, 0x00FF_8080, "2.7–3.6 V and 1.70–1.95 V");
    // The card is an eMMC: the engine may fold a plain CMD23 into auto-CMD23, as mtk-sd
    // does for eMMC only.
    h.set_mmc_card(true);
    // mmc_init_card.
    h.ok(0, 0, NONE | BC);
    assert_eq!(h.rig.card().state(), CardState::Idle);
    let (rocr, _) = send_op_cond(h, HOST_OCR | (1 << 30));
    assert_ne!(rocr & (1 << 30), 0, "sector access mode");
    let cid = h.ok(2, 0, R2 | BCR);
    h.ok(3, RCA_ARG, R1 | AC);
    let csd = h.ok(9, RCA_ARG, R2 | AC);
    let r = h.ok(7, RCA_ARG, R1 | AC)[0];
    assert_eq!((r >> 9) & 0xF, 3, "CMD7 answered in stby");
    let ext_csd = read_ext_csd(h);
    Init {
        rocr,
        cid,
        csd,
        ext_csd,
    }
}

/// The rest of `mmc_init_card` after the EXT_CSD read, for the card `init` describes.
fn configure(h: &mut EmmcHost<'_, '_>, init: &Init) {
    let e = &init.ext_csd;
    // ERASE_GROUP_DEF (rev >= 3).
    h.mmc_switch(RCA, 175, 1).unwrap();
    // The user partition is already selected (PARTITION_CONFIG access bits 0).
    assert_eq!(e[179] & 7, 0);
    // POWER_OFF_NOTIFICATION = POWERED_ON (rev >= 6).
    h.mmc_switch(RCA, 34, 1).unwrap();
    // mmc_select_hs: HS_TIMING = 1, then mmc_set_bus_speed at 52 MHz.
    h.mmc_switch(RCA, 185, 1).unwrap();
    h.clock(52_000_000, Timing::MmcHighSpeed);
    // mmc_select_bus_width: 8 bit, then the EXT_CSD again at the new width.
    h.mmc_switch(RCA, 183, 2).unwrap();
    h.ctrl().set_bus_width(h.rig, 8);
    let again = read_ext_csd(h);
    for i in COMPARED {
        assert_eq!(again[i], e[i], "EXT_CSD[{i}] differs at 8 bit");
    }
    // mmc_select_powerclass: 8-bit at 52 MHz and 3.3 V uses PWR_CL_52_360 bits 7:4.
    let class = e[202] >> 4;
    assert!(class > 0);
    h.mmc_switch(RCA, 187, class).unwrap();
    // HPI is not supported (HPI_FEATURES 0); the cache is (CACHE_SIZE > 0): CACHE_CTRL.
    assert_eq!(e[503] & 1, 0);
    h.mmc_switch(RCA, 33, 1).unwrap();
    assert!(h.rig.card().ext_csd().cache_enabled());
}

/// Runs `test` with a host that probed and `rescan`ned an eMMC up to its EXT_CSD; `test`
/// also gets the user area's contents from before.
fn rescanned(test: impl FnOnce(&mut EmmcHost<'_, '_>, &Init, &[u8])) {
    let mut storage = Storage::new();
    let expect = storage.user.clone();
    let rig = storage.rig();
    let mut h = Host::new(&rig);
    let init = rescan(&mut h);
    test(&mut h, &init, &expect);
}

/// Runs `test` with a host that initialised an eMMC as the core does (`rescan`, then
/// `configure`).
fn initialised(test: impl FnOnce(&mut EmmcHost<'_, '_>, &Init, &[u8])) {
    rescanned(|h, init, expect| {
        configure(h, init);
        test(h, init, expect);
    });
}

#[test]
fn csd_and_cid_decode_as_the_core_expects() {
    rescanned(|h, init, _| {
        let csd = &init.csd;
        // mmc_decode_csd.
        assert_eq!(
            unstuff_bits(csd, 126, 2),
            3,
            "CSD_STRUCTURE: version in EXT_CSD"
        );
        assert_eq!(unstuff_bits(csd, 122, 4), 4, "SPEC_VERS 4: EXT_CSD exists");
        let cmdclass = unstuff_bits(csd, 84, 12);
        assert_ne!(cmdclass & (1 << 5), 0, "CCC_ERASE");
        assert_eq!(unstuff_bits(csd, 80, 4), 9, "READ_BL_LEN 512");
        assert_eq!(unstuff_bits(csd, 22, 4), 9, "WRITE_BL_LEN 512");
        let (a, b) = (unstuff_bits(csd, 42, 5), unstuff_bits(csd, 37, 5));
        assert_eq!((a + 1) * (b + 1), 1024, "erase group 512 KiB");
        let m = unstuff_bits(csd, 62, 12);
        let e = unstuff_bits(csd, 47, 3);
        assert_eq!(
            ((1 + m) << (e + 2)) as usize,
            SECTORS,
            "C_SIZE/C_SIZE_MULT give the capacity of a card below 1 GiB"
        );
        assert_eq!(unstuff_bits(csd, 96, 3), 2, "TRAN_SPEED unit 10 MHz");
        // mmc_decode_cid for MMCA version 4.
        let cid = &init.cid;
        assert_eq!(unstuff_bits(cid, 120, 8), 0x7E);
        let name: Vec<u8> = (0..6)
            .map(|i| unstuff_bits(cid, 96 - 8 * i, 8) as u8)
            .collect();
        assert_eq!(&name, b"SIMMC1");
        assert_eq!(unstuff_bits(cid, 12, 4), 1, "month");
        assert_eq!(init.rocr & 0x6000_0000, 0x4000_0000);
        h.rig.assert_no_violations();
    });
}

#[test]
fn ext_csd_decodes_as_the_core_expects() {
    rescanned(|h, init, _| {
        let e = &init.ext_csd;
        // mmc_decode_ext_csd, in its order.
        assert_eq!(e[192], 8, "EXT_CSD_REV 5.1");
        assert!(e[194] <= 2, "EXT_CSD_STRUCTURE");
        let sectors = u32::from_le_bytes([e[212], e[213], e[214], e[215]]);
        assert_eq!(sectors as usize, SECTORS);
        assert_eq!(e[196] & 0x03, 0x03, "HS 26 and 52 MHz");
        assert_eq!(
            e[196] & !0x03,
            0,
            "no DDR/HS200/HS400: the model does not do them"
        );
        assert!(e[217] > 0 && e[217] <= 0x17, "S_A_TIMEOUT");
        assert!(e[223] > 0, "ERASE_TIMEOUT_MULT");
        assert_eq!(e[224], 1, "HC_ERASE_GRP_SIZE 512 KiB");
        assert_eq!(e[226], 2, "BOOT_SIZE_MULT from the 256 KiB boot storage");
        assert_eq!(e[179], 0, "PARTITION_CONFIG");
        assert!(e[199] > 0, "PARTITION_SWITCH_TIME");
        assert_eq!(e[175], 0, "ERASE_GROUP_DEF off after reset");
        assert!(e[222] >= 1, "REL_WR_SEC_C");
        assert_eq!(
            e[160], 0,
            "PARTITIONING_SUPPORT: no GP or enhanced partitions"
        );
        assert_eq!(e[231], 0x10, "SEC_FEATURE_SUPPORT: trim only");
        assert!(e[232] > 0, "TRIM_MULT");
        assert_eq!(e[502] & 1, 0, "BKOPS unsupported");
        assert_eq!(e[503] & 1, 0, "HPI unsupported");
        assert_eq!(e[166] & 0x04, 0x04, "WR_REL_PARAM EN_REL_WR");
        assert_eq!(e[168], 32, "RPMB 4 MiB");
        assert_eq!(e[181], 0, "ERASED_MEM_CONT");
        assert_eq!(e[248], 10, "GENERIC_CMD6_TIME 100 ms");
        assert!(e[247] > 0, "POWER_OFF_LONG_TIME");
        let cache = u32::from_le_bytes([e[249], e[250], e[251], e[252]]);
        assert_eq!(cache, 64);
        assert_eq!(e[61], 0, "512-byte sectors");
        assert_eq!(e[499] & 1, 0, "no data tags");
        assert_eq!(e[493] & 1, 0, "no FFU");
        assert_eq!(e[267], 1, "PRE_EOL normal");
        assert_eq!(e[308] & 1, 1, "CMDQ_SUPPORT");
        assert_eq!(e[307] & 0x1F, 31, "CMDQ_DEPTH 32");
        assert_eq!(e[184], 0, "no enhanced strobe");
        h.rig.assert_no_violations();
    });
}

#[test]
fn initialisation_reaches_high_speed_8_bit() {
    initialised(|h, _, _| {
        {
            let card = h.rig.card();
            assert_eq!(card.state(), CardState::Tran);
            assert_eq!(card.bus_width(), 8);
            assert_eq!(card.max_clock_hz(), 52_000_000);
            let e = card.ext_csd();
            assert_eq!(e.get(175), 1);
            assert_eq!(e.get(34), 1);
            assert_eq!(e.get(187), 1);
        }
        // mmc_alive / mmc_send_status.
        let s = h.ok(13, RCA_ARG, R1 | AC)[0];
        assert_eq!(s & 0xFFFF_E000, 0, "no error bits");
        assert_eq!((s >> 9) & 0xF, 4);
        h.rig.assert_no_violations();
    });
}

#[test]
fn failed_switches_report_switch_error_through_cmd13() {
    rescanned(|h, _, _| {
        let rig = h.rig;
        // DDR 8 bit is not in DEVICE_TYPE: -EBADMSG, and the card stays at 1 bit.
        let err = h.mmc_switch(RCA, 183, 6).unwrap_err();
        assert_ne!(err & (1 << 7), 0);
        assert_eq!(rig.card().bus_width(), 1);
        // HS200 timing, a read-only property, a general purpose partition, a barrier.
        for (index, value) in [(185, 2), (192, 7), (179, 4), (32, 2)] {
            assert!(
                h.mmc_switch(RCA, index, value).is_err(),
                "EXT_CSD[{index}] = {value}"
            );
        }
        // The error is cleared once read.
        let s = h.ok(13, RCA_ARG, R1 | AC)[0];
        assert_eq!(s & (1 << 7), 0);
        // Set-bits and clear-bits access modes.
        let set_bits = (1 << 24) | (175 << 16) | (1 << 8);
        h.ok(6, set_bits, R1B | AC);
        assert_eq!(rig.card().ext_csd().get(175), 1);
        let clear_bits = (2 << 24) | (175 << 16) | (1 << 8);
        h.ok(6, clear_bits, R1B | AC);
        assert_eq!(rig.card().ext_csd().get(175), 0);
        rig.assert_no_violations();
    });
}

#[test]
fn block_io_with_cmd23_reliable_writes_and_flush() {
    initialised(|h, _, expect| {
        let rig = h.rig;
        // Partition table scan: single and multiple block reads (auto-CMD23).
        h.mrq(&rw(false, 0, 1, false)).unwrap();
        assert_eq!(rig.data(0, 512), expect[..512]);
        h.mrq(&rw(false, 1, 33, false)).unwrap();
        assert_eq!(rig.data(0, 33 * 512), expect[512..34 * 512]);
        // Random 4 KiB writes, each followed by the CMD13 busy poll (mmc_blk_card_busy).
        let mut shadow = expect.to_vec();
        for (n, sector) in [100u32, 7, 4000, 8184].into_iter().enumerate() {
            let fill = 0x40 + n as u8;
            h.write_and_wait(RCA, &rw(true, sector, 8, false), |_| fill, &mut shadow);
        }
        // Sequential 512 KiB (max_req_size) write and read back. The rig's data window holds
        // 256 KiB: the write sends it twice, and the read back takes several reads.
        let sequential = |write| rw(write, 2048, 1024, false);
        let written = h.write_and_wait(RCA, &sequential(true), |i| (i / 3) as u8, &mut shadow);
        assert_eq!(h.read_back(&sequential(false)), written);
        // A FUA write: CMD23 with the reliable write bit goes out in software.
        h.write_and_wait(RCA, &rw(true, 300, 8, true), |_| 0x77, &mut shadow);
        assert_eq!(rig.card().stats().reliable_writes, 1);
        // A single-sector FUA write still uses CMD23 + CMD25.
        h.write_and_wait(RCA, &rw(true, 310, 1, true), |_| 0x78, &mut shadow);
        assert_eq!(rig.card().stats().reliable_writes, 2);
        // REQ_OP_FLUSH: FLUSH_CACHE.
        h.mmc_switch(RCA, 32, 1).unwrap();
        assert_eq!(rig.card().stats().flushes, 1);
        assert!(
            rig.card().storage() == shadow,
            "card contents differ from what was written"
        );
        rig.assert_no_violations();
    });
}

#[test]
fn open_ended_transfers_and_stop() {
    initialised(|h, _, expect| {
        let rig = h.rig;
        h.mrq(&open_ended(false, 64, 16)).unwrap();
        assert_eq!(rig.card().state(), CardState::Tran);
        assert_eq!(rig.data(0, 16 * 512), expect[64 * 512..80 * 512]);
        rig.fill(0, &[0x5C; 8 * 512]);
        h.mrq(&open_ended(true, 96, 8)).unwrap();
        h.poll_busy(RCA, false).unwrap();
        // CMD12 without a transfer is illegal: no response, and the next status says so.
        h.no_response(12, 0, R1B | AC);
        let s = h.ok(13, RCA_ARG, R1 | AC)[0];
        assert_ne!(s & (1 << 22), 0, "ILLEGAL_COMMAND");
        assert_eq!(rig.card().storage()[96 * 512..104 * 512], [0x5C; 8 * 512]);
        rig.assert_no_violations();
    });
}

#[test]
fn reads_past_the_end_report_out_of_range() {
    initialised(|h, _, _| {
        // Starting beyond the end: ADDRESS_OUT_OF_RANGE in the response, no data.
        let err = h.mrq(&rw(false, SECTORS as u32, 1, false)).unwrap_err();
        assert_eq!(err.phase, Phase::Data, "{err:?}");
        // The card never started: the single block read left it in tran.
        assert_eq!(h.rig.card().state(), CardState::Tran);
        // Running off the end of an open-ended read: the data stops, CMD12's response
        // carries ADDRESS_OUT_OF_RANGE. The engine sends the request's stop itself after a
        // failed data phase (the old test rig left it to a CMD12 of its own), so the bit is
        // read from the stop's response.
        let err = h
            .mrq(&open_ended(false, SECTORS as u32 - 1, 2))
            .unwrap_err();
        assert_eq!(err.phase, Phase::Data, "{err:?}");
        let stop = err.result.stop.expect("the stop went out");
        assert_eq!(stop.error, None);
        assert_ne!(stop.response[0] & (1 << 31), 0);
        assert_eq!(h.rig.card().state(), CardState::Tran);
    });
}

#[test]
fn boot_partitions_are_separate_storage() {
    initialised(|h, init, expect| {
        let rig = h.rig;
        let part_config = init.ext_csd[179];
        // mmc_blk_part_switch to boot0 and boot1: reads see their own contents.
        for (n, fill) in [(1u8, 0xB0u8), (2, 0xB1)] {
            h.mmc_switch(RCA, 179, (part_config & !7) | n).unwrap();
            h.mrq(&rw(false, 0, 8, false)).unwrap();
            assert!(rig.data(0, 4096).iter().all(|&b| b == fill));
            // The last sector of a 256 KiB boot partition, and one past it.
            h.mrq(&rw(false, 511, 1, false)).unwrap();
            assert!(h.mrq(&rw(false, 512, 1, false)).is_err());
        }
        // A write to boot1 lands there only.
        rig.fill(0, &[0x11; 512]);
        h.mrq(&rw(true, 3, 1, false)).unwrap();
        h.poll_busy(RCA, false).unwrap();
        assert_eq!(rig.card().boot_storage(1)[3 * 512..4 * 512], [0x11; 512]);
        // RPMB can be selected; its frames are not modelled, so a plain read is refused.
        h.mmc_switch(RCA, 179, (part_config & !7) | 3).unwrap();
        let err = h.mrq(&rw(false, 0, 1, false)).unwrap_err();
        assert!(matches!(err.phase, Phase::Cmd | Phase::Data), "{err:?}");
        let s = h.ok(13, RCA_ARG, R1 | AC)[0];
        assert_eq!((s >> 9) & 0xF, 4);
        // Back to the user area.
        h.mmc_switch(RCA, 179, part_config).unwrap();
        h.mrq(&rw(false, 3, 1, false)).unwrap();
        assert_eq!(rig.data(0, 512), expect[3 * 512..4 * 512]);
        let card = rig.card();
        assert_eq!(card.stats().partition_switches, 4);
        assert!(card.boot_storage(0).iter().all(|&b| b == 0xB0));
        assert!(card.storage() == expect);
    });
}

/// `mmc_do_erase`: CMD35, CMD36, CMD38 (R1b), then the CMD13 busy poll (MMC_BUSY_ERASE).
fn erase(h: &mut EmmcHost<'_, '_>, from: u32, to: u32, arg: u32) {
    h.ok(35, from, R1 | AC);
    h.ok(36, to, R1 | AC);
    h.ok(38, arg, R1B | AC);
    let seen = h.poll_busy(RCA, false).unwrap();
    assert_eq!(
        seen & 0xFDF9_E000,
        0,
        "R1_STATUS errors after erase: {seen:#x}"
    );
}

#[test]
fn discard_trim_and_erase() {
    initialised(|h, _, expect| {
        // REQ_OP_DISCARD: erase_arg is MMC_DISCARD_ARG (rev >= 6), sector granular.
        erase(h, 10, 19, 0x3);
        // REQ_OP_WRITE_ZEROES: trim (SEC_GB_CL_EN, erased byte 0).
        erase(h, 30, 30, 0x1);
        // MMC_ERASE_ARG works on whole high-capacity erase groups (ERASE_GROUP_DEF = 1):
        // sectors 1500..1600 erase the groups 1024..2047.
        erase(h, 1500, 1600, 0x0);
        let card = h.rig.card();
        assert_eq!(card.stats().erases, 3);
        let u = card.storage();
        assert!(u[10 * 512..20 * 512].iter().all(|&b| b == 0));
        assert_eq!(u[9 * 512..10 * 512], expect[9 * 512..10 * 512]);
        assert_eq!(u[20 * 512..21 * 512], expect[20 * 512..21 * 512]);
        assert!(u[30 * 512..31 * 512].iter().all(|&b| b == 0));
        assert!(u[1024 * 512..2048 * 512].iter().all(|&b| b == 0));
        assert_eq!(u[1023 * 512..1024 * 512], expect[1023 * 512..1024 * 512]);
        assert_eq!(u[2048 * 512..2049 * 512], expect[2048 * 512..2049 * 512]);
    });
}

#[test]
fn erase_sequence_errors() {
    initialised(|h, _, expect| {
        // CMD38 alone: ERASE_SEQ_ERROR.
        let r = h.ok(38, 3, R1B | AC)[0];
        assert_ne!(r & (1 << 28), 0);
        // CMD36 without CMD35: ERASE_SEQ_ERROR.
        let r = h.ok(36, 5, R1 | AC)[0];
        assert_ne!(r & (1 << 28), 0);
        // Another command inside the sequence resets it (ERASE_RESET), and CMD38 then fails.
        h.ok(35, 5, R1 | AC);
        let r = h.ok(16, 512, R1 | AC)[0];
        assert_ne!(r & (1 << 13), 0);
        let r = h.ok(38, 3, R1B | AC)[0];
        assert_ne!(r & (1 << 28), 0);
        // Out of range, secure erase (SEC_ER_EN = 0), end before start.
        let r = h.ok(35, SECTORS as u32, R1 | AC)[0];
        assert_ne!(r & (1 << 31), 0);
        h.ok(35, 5, R1 | AC);
        h.ok(36, 6, R1 | AC);
        let r = h.ok(38, 0x8000_0000, R1B | AC)[0];
        assert_ne!(r & (1 << 27), 0, "ERASE_PARAM");
        h.ok(35, 9, R1 | AC);
        h.ok(36, 6, R1 | AC);
        let r = h.ok(38, 3, R1B | AC)[0];
        assert_ne!(r & (1 << 27), 0, "ERASE_PARAM");
        assert_eq!(h.rig.card().stats().erases, 0);
        assert!(h.rig.card().storage() == expect);
        h.rig.assert_no_violations();
    });
}

#[test]
fn sleep_deselect_and_reinitialise() {
    initialised(|h, _, _| {
        let rig = h.rig;
        // mmc_sleep: deselect (CMD7 to RCA 0, no response), CMD5 with the sleep bit (R1b).
        h.ok(7, 0, NONE | AC);
        assert_eq!(rig.card().state(), CardState::Stby);
        h.ok(5, RCA_ARG | (1 << 15), R1B | AC);
        assert!(rig.card().asleep());
        // Asleep, the card answers only CMD0 and CMD5.
        h.no_response(13, RCA_ARG, R1 | AC);
        h.ok(5, RCA_ARG, R1B | AC);
        assert!(!rig.card().asleep());
        // mmc_hw_reset path: power cycle (the host's clock back to 400 kHz, 1 bit) and
        // mmc_init_card again.
        h.ctrl().set_bus_width(rig, 1);
        h.clock(400_000, Timing::Legacy);
        h.ok(0, 0, NONE | BC);
        assert_eq!(rig.card().bus_width(), 1, "BUS_WIDTH is reset by CMD0");
        send_op_cond(h, HOST_OCR | (1 << 30));
        h.ok(2, 0, R2 | BCR);
        h.ok(3, RCA_ARG, R1 | AC);
        h.ok(7, RCA_ARG, R1 | AC);
        read_ext_csd(h);
        rig.assert_no_violations();
    });
}
