// SPDX-License-Identifier: GPL-2.0

//! The send-status idle timer against upstream `msdc_cqe_cit_cal()`: the MSDC bus clock
//! scaled by `CQCAP.ITCFMUL` (0: /1000, 1: /100, 2: /10, 3: ×1, 4: ×10, else a fixed 0x40),
//! times the time in ns over 10^9, rounded down; here saturated at the 16-bit `CIT` field
//! of `CQSSC1` (bits 15:0), with `CBC` (bits 19:16) left 0.

use cqhci::regs::{CQCAP, CQSSC1};
use msdc::cqe::{send_status_idle_timer, SEND_STATUS_IDLE_NS};
use proptest::prelude::*;

/// `CQCAP` with ITCFMUL (bits 15:12) `multiplier` and ITCFVAL (bits 9:0) 200, which the
/// calculation ignores.
fn cap(multiplier: u32) -> CQCAP {
    CQCAP::from_raw(multiplier << 12 | 200)
}

fn timer(hclk_hz: u32, multiplier: u32, ns: u32) -> u32 {
    send_status_idle_timer(hclk_hz, cap(multiplier), ns).raw()
}

#[test]
fn upstream_idle_time_is_2_35_us() {
    assert_eq!(SEND_STATUS_IDLE_NS, 2350);
}

#[test]
fn each_defined_multiplier_scales_the_bus_clock() {
    // 200 MHz: 200 kHz, 2 MHz, 20 MHz, 200 MHz, 2 GHz timer clocks.
    assert_eq!(timer(200_000_000, 0, 100_000_000), 20_000);
    assert_eq!(timer(200_000_000, 1, 10_000_000), 20_000);
    assert_eq!(timer(200_000_000, 2, 1_000_000), 20_000);
    assert_eq!(timer(200_000_000, 3, 2350), 470);
    assert_eq!(timer(200_000_000, 4, 2350), 4700);
    // 273 MHz at upstream's 2.35 µs: 641.55 clocks, rounded down.
    assert_eq!(timer(273_000_000, 3, SEND_STATUS_IDLE_NS), 641);
}

#[test]
fn the_divided_clock_rounds_down_before_it_is_multiplied() {
    // 199 999 999 Hz / 1000 = 199 999 (do_div), then 199 999 × 0.1 s = 19 999.9.
    assert_eq!(timer(199_999_999, 0, 100_000_000), 19_999);
    // 2349 ns × 200 MHz = 469.8.
    assert_eq!(timer(200_000_000, 3, 2349), 469);
    // Less than one clock is 0.
    assert_eq!(timer(200_000_000, 0, 4_999), 0);
}

#[test]
fn undefined_multipliers_give_upstreams_fixed_0x40() {
    for multiplier in 5..16 {
        assert_eq!(timer(200_000_000, multiplier, 2350), 0x40, "{multiplier}");
        assert_eq!(timer(0, multiplier, 0), 0x40, "{multiplier}");
    }
}

#[test]
fn the_timer_saturates_at_the_cit_field() {
    // 65 535 clocks fit; one more saturates instead of spilling into CBC.
    assert_eq!(timer(1_000_000_000, 3, 65_535), 0xFFFF);
    assert_eq!(timer(1_000_000_000, 3, 65_534), 0xFFFE);
    assert_eq!(timer(1_000_000_000, 3, 65_536), 0xFFFF);
    assert_eq!(timer(200_000_000, 3, 1_000_000_000), 0xFFFF);
}

#[test]
fn products_beyond_64_bits_saturate_instead_of_wrapping() {
    // 42 949 672 950 Hz × 4 294 967 295 ns is about 1.8e20, past u64::MAX.
    assert_eq!(timer(u32::MAX, 4, u32::MAX), 0xFFFF);
    // The largest product of a divided clock still fits 64 bits (4 294 967 Hz ×
    // 4 294 967 295 ns), and saturates the field; 10 ms of it is 42 949.67 clocks.
    assert_eq!(timer(u32::MAX, 0, u32::MAX), 0xFFFF);
    assert_eq!(timer(u32::MAX, 0, 10_000_000), 42_949);
}

#[test]
fn no_clock_gives_no_timer() {
    for multiplier in 0..5 {
        assert_eq!(timer(0, multiplier, u32::MAX), 0, "{multiplier}");
    }
}

proptest! {
    #[test]
    fn cbc_stays_zero_and_cit_matches_the_formula(
        hclk in any::<u32>(),
        multiplier in 0u32..16,
        ns in any::<u32>(),
    ) {
        let value = send_status_idle_timer(hclk, cap(multiplier), ns);
        prop_assert_eq!(value.raw() >> 16, 0);
        prop_assert_eq!(value, CQSSC1::from_raw(value.cit()));
        let hclk = u128::from(hclk);
        let scaled = match multiplier {
            0 => hclk / 1000,
            1 => hclk / 100,
            2 => hclk / 10,
            3 => hclk,
            4 => hclk * 10,
            _ => {
                prop_assert_eq!(value.cit(), 0x40);
                return Ok(());
            }
        };
        let expected = (scaled * u128::from(ns) / 1_000_000_000).min(0xFFFF);
        prop_assert_eq!(u128::from(value.cit()), expected);
    }
}
