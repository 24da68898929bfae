// SPDX-License-Identifier: GPL-2.0
//! The latency model: its arithmetic on its own, and the time the MSDC model charges for
//! commands, data phases and card busy work at the clock and bus width it is programmed
//! with.

mod rig;

use msdc::clock::Timing;
use msdc::command::ResponseType::{None as NoRsp, R1b, R1, R3};
use rig::{Host, Mrq};
use sim::emmc::{Card, Command, ReadyOrder};
use sim::latency::{Latency, ResponseLength};
use sim::msdc::ModelConfig;
use sim::sd::{SdCard, SdConfig, BLOCK_SIZE, DEFAULT_RCA};

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
    let mut storage = vec![0u8; 64 * 512];
    let mut card = Card::new(&mut storage, 8, ReadyOrder::Immediate);
    let mut h = Host::with(ModelConfig {
        latency: Latency::ZERO,
        ..ModelConfig::default()
    });
    h.card_is_mmc = true;
    h.wait_for_cmd(&mut card, 0, 0, NoRsp).unwrap();
    while h.wait_for_cmd(&mut card, 1, 0x40FF_8080, R3).unwrap()[0] & (1 << 31) == 0 {}
    h.wait_for_cmd(&mut card, 2, 0, msdc::command::ResponseType::R2)
        .unwrap();
    h.wait_for_cmd(&mut card, 3, 1 << 16, R1).unwrap();
    h.wait_for_cmd(&mut card, 7, 1 << 16, R1).unwrap();
    h.mrq(&mut card, &Mrq::adtc_read(8, 0, 512)).unwrap();
    h.mrq(&mut card, &Mrq::rw(true, 0, 4, false)).unwrap();
    assert_eq!(h.model.take_elapsed_ns(), 0);
    assert_eq!(ModelConfig::default().latency, Latency::EMMC);
    assert_eq!(Latency::default(), Latency::EMMC);
}

/// An SD card brought to 4-bit high speed directly, and a host at 50 MHz, 4 bit.
fn sd_at_high_speed(storage: &mut [u8]) -> (Host, SdCard<'_>) {
    let mut card = SdCard::new(storage, SdConfig::default());
    let c = |card: &mut SdCard<'_>, i: u8, a: u32| card.command(Command::new(i, a)).unwrap();
    c(&mut card, 0, 0);
    c(&mut card, 8, 0x1AA);
    loop {
        c(&mut card, 55, 0);
        if c(&mut card, 41, 0x40FF_8000).value() & (1 << 31) != 0 {
            break;
        }
    }
    c(&mut card, 2, 0);
    c(&mut card, 3, 0);
    let rca = u32::from(DEFAULT_RCA) << 16;
    c(&mut card, 7, rca);
    c(&mut card, 55, rca);
    c(&mut card, 6, 2);
    c(&mut card, 6, 0x80FF_FFF1);
    let mut status = [0u8; 64];
    card.read_data(&mut status).unwrap();
    assert_eq!(card.max_clock_hz(), 50_000_000);
    let mut h = Host::with(ModelConfig {
        latency: Latency::SD,
        ..ModelConfig::default()
    });
    h.set_clock(50_000_000, Timing::SdHighSpeed);
    h.set_bus_width(1);
    assert_eq!(h.model.bus_clock_hz(), 50_000_000);
    h.model.take_elapsed_ns();
    (h, card)
}

#[test]
fn the_controller_charges_commands_and_data() {
    let mut storage = vec![0u8; 2048 * BLOCK_SIZE];
    let (mut h, mut card) = sd_at_high_speed(&mut storage);
    let l = Latency::SD;
    let hz = 50_000_000;
    // CMD13: one short exchange.
    h.wait_for_cmd(&mut card, 13, u32::from(DEFAULT_RCA) << 16, R1)
        .unwrap();
    assert_eq!(
        h.model.take_elapsed_ns(),
        l.command_ns(ResponseLength::Short, hz)
    );
    assert_eq!(h.model.take_elapsed_ns(), 0, "the counter restarts");
    // CMD23 + CMD18 of 512 KiB: two exchanges, the access time and 21.4 ms of blocks.
    h.mrq(&mut card, &Mrq::rw(false, 0, 1024, false)).unwrap();
    let t = h.model.take_elapsed_ns();
    assert_eq!(
        t,
        2 * l.command_ns(ResponseLength::Short, hz) + l.read_ns(512, 1024, 4, false, hz)
    );
    assert!((21 * MS..22 * MS).contains(&(t - l.read_access_ns)), "{t}");
    // CMD23 + CMD25 of 4 KiB: the write time with programming.
    h.mrq(&mut card, &Mrq::rw(true, 8, 8, false)).unwrap();
    assert_eq!(
        h.model.take_elapsed_ns(),
        2 * l.command_ns(ResponseLength::Short, hz) + l.write_ns(512, 8, 4, false, hz)
    );
    // A command nobody answers: the host waited the longest N_CR.
    h.wait_for_cmd(&mut card, 2, 0, msdc::command::ResponseType::R2)
        .unwrap_err();
    assert_eq!(
        h.model.take_elapsed_ns(),
        l.command_ns(ResponseLength::Missing, hz)
    );
    // Erase: CMD32, CMD33, CMD38 with the erase busy for 100 blocks.
    h.wait_for_cmd(&mut card, 32, 100, R1).unwrap();
    h.wait_for_cmd(&mut card, 33, 199, R1).unwrap();
    h.wait_for_cmd(&mut card, 38, 0, R1b).unwrap();
    assert_eq!(
        h.model.take_elapsed_ns(),
        3 * l.command_ns(ResponseLength::Short, hz) + l.erase_time_ns(100)
    );
    h.assert_no_violations();
}

#[test]
fn power_up_switch_and_flush_are_charged() {
    let mut storage = vec![0u8; 64 * 512];
    let mut card = Card::new(&mut storage, 8, ReadyOrder::Immediate);
    let mut h = Host::new();
    h.card_is_mmc = true;
    let l = Latency::EMMC;
    let hz = 400_000;
    h.wait_for_cmd(&mut card, 0, 0, NoRsp).unwrap();
    assert_eq!(
        h.model.take_elapsed_ns(),
        l.command_ns(ResponseLength::None, hz)
    );
    // The busy answer costs the exchange, the ready one the power-up time as well.
    h.wait_for_cmd(&mut card, 1, 0x40FF_8080, R3).unwrap();
    assert_eq!(
        h.model.take_elapsed_ns(),
        l.command_ns(ResponseLength::Short, hz)
    );
    h.wait_for_cmd(&mut card, 1, 0x40FF_8080, R3).unwrap();
    assert_eq!(
        h.model.take_elapsed_ns(),
        l.command_ns(ResponseLength::Short, hz) + l.power_up_ns
    );
    h.wait_for_cmd(&mut card, 2, 0, msdc::command::ResponseType::R2)
        .unwrap();
    assert_eq!(
        h.model.take_elapsed_ns(),
        l.command_ns(ResponseLength::Long, hz)
    );
    h.wait_for_cmd(&mut card, 3, 1 << 16, R1).unwrap();
    h.wait_for_cmd(&mut card, 7, 1 << 16, R1).unwrap();
    h.model.take_elapsed_ns();
    // CMD6 (R1b): the exchange and the switch busy; a failed switch costs no busy.
    h.wait_for_cmd(&mut card, 6, (3 << 24) | (175 << 16) | (1 << 8), R1b)
        .unwrap();
    assert_eq!(
        h.model.take_elapsed_ns(),
        l.command_ns(ResponseLength::Short, hz) + l.switch_ns
    );
    h.wait_for_cmd(&mut card, 6, (3 << 24) | (200 << 16) | (1 << 8), R1b)
        .unwrap();
    assert_eq!(
        h.model.take_elapsed_ns(),
        l.command_ns(ResponseLength::Short, hz)
    );
    h.wait_for_cmd(&mut card, 6, (3 << 24) | (32 << 16) | (1 << 8), R1b)
        .unwrap();
    assert_eq!(
        h.model.take_elapsed_ns(),
        l.command_ns(ResponseLength::Short, hz) + l.flush_ns
    );
}

#[test]
fn emmc_initialisation_takes_plausible_time() {
    let mut storage = vec![0u8; 256 * 512];
    let mut card = Card::new(&mut storage, 8, ReadyOrder::Immediate);
    let mut h = Host::new();
    h.card_is_mmc = true;
    h.wait_for_cmd(&mut card, 0, 0, NoRsp).unwrap();
    while h.wait_for_cmd(&mut card, 1, 0x40FF_8080, R3).unwrap()[0] & (1 << 31) == 0 {}
    h.wait_for_cmd(&mut card, 2, 0, msdc::command::ResponseType::R2)
        .unwrap();
    h.wait_for_cmd(&mut card, 3, 1 << 16, R1).unwrap();
    h.wait_for_cmd(&mut card, 7, 1 << 16, R1).unwrap();
    h.mrq(&mut card, &Mrq::adtc_read(8, 0, 512)).unwrap();
    let t = h.model.take_elapsed_ns();
    // 20 ms power-up, about 10 ms of EXT_CSD at 1 bit and 400 kHz, and a few commands.
    assert!((32 * MS..36 * MS).contains(&t), "{t}");
    h.assert_no_violations();
}
