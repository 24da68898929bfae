// SPDX-License-Identifier: GPL-2.0
//! The latency model's arithmetic on its own, and its defaults. The time the MSDC model
//! charges for the requests of the request engine is tested in msdc's `linux` target.

use sim::latency::{Latency, ResponseLength};
use sim::msdc::ModelConfig;

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
