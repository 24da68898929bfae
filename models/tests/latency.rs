// SPDX-License-Identifier: GPL-2.0
//! The latency model's arithmetic on its own, and its defaults. The time the MSDC model
//! charges for the requests of the request engine is tested in msdc's `linux` target.

use models::latency::{Latency, ResponseLength};
use models::msdc::ModelConfig;

const MS: u64 = 1_000_000;

#[test]
fn bus_arithmetic() {
    // 400 kHz: 2.5 µs a clock.
    assert_eq!(Latency::clocks_ns(1, 400_000), 2_500);
    assert_eq!(Latency::clocks_ns(3, 3_000_000_000), 1, "rounded up");
    assert_eq!(Latency::clocks_ns(100, 0), 0, "no clock, no time");
    let l = Latency::SD;
    assert_eq!(l.command_clocks(ResponseLength::Short), 48 + 64 + 48 + 8);
    assert_eq!(l.command_clocks(ResponseLength::Long), 48 + 64 + 136 + 8);
    assert_eq!(l.command_clocks(ResponseLength::None), 48 + 8);
    assert_eq!(l.command_clocks(ResponseLength::Missing), 48 + 64 + 8);
    assert_eq!(l.command_ns(ResponseLength::Short, 400_000), 420_000);
    // One 512-byte block on 4 lines: 1024 data clocks, start, CRC16, end, N_AC gap.
    assert_eq!(Latency::data_clocks(512, 1, 4, false, false), 1024 + 18 + 2);
    // On 8 lines, written: 512 data clocks, framing, N_WR, N_CRC and the CRC status.
    assert_eq!(Latency::data_clocks(512, 1, 8, false, true), 512 + 18 + 9);
    // Double data rate halves the data clocks only.
    assert_eq!(Latency::data_clocks(512, 1, 8, true, false), 256 + 18 + 2);
    // 1-bit EXT_CSD read at 400 kHz: about 10 ms.
    assert_eq!(
        Latency::clocks_ns(Latency::data_clocks(512, 1, 1, false, false), 400_000),
        (4096 + 20) * 2_500
    );
}

#[test]
fn sequential_512_kib_at_4_bit_50_mhz() {
    let l = Latency::SD;
    let bus = Latency::clocks_ns(Latency::data_clocks(512, 1024, 4, false, false), 50_000_000);
    // 1024 blocks × 1044 clocks × 20 ns.
    assert_eq!(bus, 21_381_120);
    assert!((21 * MS..22 * MS).contains(&bus), "≈ 21 ms of bus time");
    assert_eq!(
        l.read_ns(512, 1024, 4, false, 50_000_000),
        bus + l.read_access_ns
    );
    // Writes add programming: 20 µs a block and 1 ms at the end.
    let w = l.write_ns(512, 1024, 4, false, 50_000_000);
    assert_eq!(w, 1024 * 1051 * 20 + 1024 * 20_000 + MS);
    // That is about 12 MB/s, above speed class 10's 10 MB/s.
    let mb_per_s = (512 * 1024 * 1_000_000) / (w / 1000);
    assert!((10_000_000..16_000_000).contains(&mb_per_s), "{mb_per_s}");
    // eMMC high speed, 8 bit at 50 MHz: bus bound around 40 MB/s.
    let e = Latency::EMMC.write_ns(512, 1024, 8, false, 50_000_000);
    let mb_per_s = (512 * 1024 * 1_000_000) / (e / 1000);
    assert!((35_000_000..45_000_000).contains(&mb_per_s), "{mb_per_s}");
    // A random 4 KiB eMMC write: about 200 µs.
    let r = Latency::EMMC.write_ns(512, 8, 8, false, 50_000_000);
    assert!((150_000..250_000).contains(&r), "{r}");
}

#[test]
fn zero_latency_charges_nothing() {
    let z = Latency::ZERO;
    assert_eq!(z.command_ns(ResponseLength::Long, 400_000), 0);
    assert_eq!(z.read_ns(512, 1024, 1, false, 400_000), 0);
    assert_eq!(z.write_ns(512, 1024, 1, false, 400_000), 0);
    assert_eq!(z.erase_time_ns(1 << 20), 0);
    assert_eq!(ModelConfig::default().latency, Latency::EMMC);
    assert_eq!(Latency::default(), Latency::EMMC);
}

/// A legacy read as Linux sends it to a card that takes CMD23 (mtk-sd's auto-CMD23): CMD23
/// and CMD18, each with a 48-bit response, then the access and the blocks.
fn legacy_read_ns(l: &Latency, blocks: u64, width: u8, ddr: bool, hz: u32) -> u64 {
    2 * l.command_ns(ResponseLength::Short, hz) + l.read_ns(512, blocks, width, ddr, hz)
}

/// A legacy write likewise (CMD23, CMD25, the blocks, programming, the final busy).
fn legacy_write_ns(l: &Latency, blocks: u64, width: u8, ddr: bool, hz: u32) -> u64 {
    2 * l.command_ns(ResponseLength::Short, hz) + l.write_ns(512, blocks, width, ddr, hz)
}

/// Host time per I/O of the driver's legacy path that `make perf` measured, which the SD
/// profile is fitted with: a 4 KiB random read at depth 32 (`make perf-wake`, where the
/// board charges no wake-up for gaps this short), a 512 KiB sequential read at depth 1
/// (the board's wake-up included).
const HOST_RANDOM_NS: u64 = 59_400;
const HOST_SEQUENTIAL_NS: u64 = 229_700;

#[test]
fn the_sd_a2_profile_gives_the_chromebook_figures_at_sdr104() {
    let l = Latency::SD_A2_SDR104;
    let (hz, width) = (200_000_000, 4);
    // 48 + 64 + 48 + 8 clocks a command at 200 MHz; 1 044 clocks a block on the bus.
    assert_eq!(l.command_ns(ResponseLength::Short, hz), 840);
    assert_eq!(
        l.read_data_ns(512, 1, width, false, hz),
        5_848,
        "card-bound"
    );
    assert_eq!(Latency::SD.read_data_ns(512, 1, width, false, hz), 5_220);
    // 4 KiB random read: 1 680 + 500 700 + 8 × 5 848.
    let random = legacy_read_ns(&l, 8, width, false, hz);
    assert_eq!(random, 549_164);
    // The CPU that waits for it idles too briefly for MT8195's retention state.
    assert_eq!(models::idle::WakeUp::DEFAULT.charge_ns(random), 0);
    let iops = 1_000_000_000 / (random + HOST_RANDOM_NS);
    assert_eq!(iops, 1_643, "the HSQ patch's figure without HSQ");
    // 512 KiB sequential read: 1 680 + 500 700 + 1 024 × 5 848, long enough for it.
    let sequential = legacy_read_ns(&l, 1024, width, false, hz);
    assert_eq!(sequential, 6_490_732);
    assert_eq!(models::idle::WakeUp::DEFAULT.charge_ns(sequential), 95_000);
    // 74.4 MiB/s within 0.1 MiB/s.
    let kib_per_s = 512 * 1_000_000_000 / (sequential + HOST_SEQUENTIAL_NS);
    assert!((76_100..=76_300).contains(&kib_per_s), "{kib_per_s} KiB/s");
}

#[test]
fn the_emmc_profile_gives_the_data_sheet_figures_at_hs400() {
    let l = Latency::EMMC_HS400_CQ;
    let (hz, width, ddr) = (200_000_000, 8, true);
    // 276 clocks a block read on the bus, 283 written; the card reads 512 B in 2 048 ns.
    assert_eq!(Latency::EMMC.read_data_ns(512, 1, width, ddr, hz), 1_380);
    assert_eq!(l.read_data_ns(512, 1, width, ddr, hz), 2_048, "card-bound");
    assert_eq!(l.write_data_ns(512, 1, width, ddr, hz), 1_415 + 2_681);
    // 4 KiB random read at QD1: 1 680 + 182 000 + 8 × 2 048 ≈ 5 000 IOPS (assumed).
    let random = legacy_read_ns(&l, 8, width, ddr, hz);
    assert_eq!(random, 200_064);
    assert_eq!(1_000_000_000 / random, 4_998);
    // QD32: two units overlap their accesses: 2 / 182 µs ≈ 11 000 IOPS (the data sheet).
    assert_eq!(
        u64::from(l.queue_units) * 1_000_000_000 / l.read_access_ns,
        10_989
    );
    // 512 KiB sequential read: 1 680 + 182 000 + 1 024 × 2 048; long reads reach the
    // card's 250 MB/s less the access.
    let sequential = legacy_read_ns(&l, 1024, width, ddr, hz);
    assert_eq!(sequential, 2_280_832);
    assert_eq!(512 * 1024 * 1_000_000 / sequential, 229_866, "KB/s");
    assert_eq!(
        512 * 1024 * 1_000_000 / l.read_data_ns(512, 1024, width, ddr, hz),
        250_000,
        "KB/s"
    );
    // Writes: 125 MB/s sequential; 13 000 random 4 KiB IOPS at QD32, on two units that
    // each take a write's transfer and busy, 153.5 µs.
    let write = legacy_write_ns(&l, 8, width, ddr, hz);
    assert_eq!(write, 1_680 + 8 * 4_096 + 119_000);
    assert_eq!(1_000_000_000 * u64::from(l.queue_units) / write, 13_033);
    assert_eq!(
        512 * 1024 * 1_000_000 / l.write_data_ns(512, 1024, width, ddr, hz),
        125_000,
        "KB/s"
    );
    // Queued reads take 170..194 µs, centred on the access time, and vary by address.
    let accesses: Vec<u64> = (0..64).map(|a| l.task_access_ns(a * 8)).collect();
    assert!(accesses.iter().all(|a| (170_000..=194_000).contains(a)));
    assert!(accesses.iter().any(|&a| a != accesses[0]));
    assert_eq!(
        Latency::EMMC.task_access_ns(8),
        Latency::EMMC.read_access_ns
    );
}

#[test]
fn the_generic_defaults_keep_the_untimed_queue_and_the_bus_bound_reads() {
    for l in [Latency::EMMC, Latency::SD, Latency::ZERO] {
        assert_eq!(l.queue_units, 0);
        assert_eq!(l.read_block_ns, 0);
        assert_eq!(l.access_spread_ns, 0);
    }
    assert_eq!(Latency::EMMC_HS400_CQ.erase_ns, Latency::EMMC.erase_ns);
    assert_eq!(
        Latency::SD_A2_SDR104.program_busy_ns,
        Latency::SD.program_busy_ns
    );
}
