// SPDX-License-Identifier: GPL-2.0

//! Timeout counter values against upstream `msdc_timeout_cal()`: cycles rounded up to
//! units of 2^20, doubled in DDR modes, minus one; capped at 255 (`DTOC`) or 8191
//! (`WRDTOC`).

use msdc::clock::TimeoutClock;
use msdc::regs::SDC_CFG;
use msdc::timeout::*;
use proptest::prelude::*;

const UNIT: u64 = 1 << 20;

fn clock(hz: u32, ddr: bool) -> Option<TimeoutClock> {
    TimeoutClock::new(hz, ddr)
}

fn ns(ns: u64) -> TimeoutRequest {
    TimeoutRequest { ns, clocks: 0 }
}

/// A count the counter holds exactly.
fn exact(value: u32) -> TimeoutCount {
    TimeoutCount {
        value,
        saturated: false,
    }
}

/// A request longer than the counter: its maximum, saturated.
fn capped_at(value: u32) -> TimeoutCount {
    TimeoutCount {
        value,
        saturated: true,
    }
}

#[test]
fn no_clock_means_zero() {
    assert_eq!(counter_units(None, ns(1_000_000_000)), 0);
    assert_eq!(Counter::Data.count(None, ns(u64::MAX)), exact(0));
}

#[test]
fn upstream_examples() {
    // CQE read timeout, 1 s at 200 MHz: 2e8 cycles = 190.7 units -> 191 - 1.
    let hs200 = clock(200_000_000, false);
    assert_eq!(Counter::Data.count(hs200, ns(1_000_000_000)), exact(190));
    // CQE busy timeout, 20 s at 200 MHz: 4e9 cycles = 3814.7 units -> 3815 - 1.
    assert_eq!(Counter::Busy.count(hs200, ns(20_000_000_000)), exact(3814));
    // 1 s at 50 MHz DDR: 5e7 cycles = 47.7 units -> 48, doubled 96, - 1.
    assert_eq!(
        Counter::Data
            .count(clock(50_000_000, true), ns(1_000_000_000))
            .value,
        95
    );
    // The probe-time default: 3 * 2^20 clocks and no ns.
    assert_eq!(
        Counter::Data
            .count(
                hs200,
                TimeoutRequest {
                    ns: 0,
                    clocks: INITIAL_TIMEOUT_CLOCKS
                }
            )
            .value,
        2
    );
    // SD read timeout of 100 ms at 50 MHz: 5e6 cycles = 4.77 units -> 5 - 1.
    assert_eq!(
        Counter::Data
            .count(clock(50_000_000, false), ns(100_000_000))
            .value,
        4
    );
    // At 52 MHz the period rounds down to 19 ns: 1e8 / 19 = 5263158 cycles -> 6 - 1.
    assert_eq!(
        Counter::Data
            .count(clock(52_000_000, false), ns(100_000_000))
            .value,
        5
    );
    // Tiny timeouts round to one unit, stored as 0.
    assert_eq!(Counter::Data.count(hs200, ns(1)).value, 0);
    assert_eq!(Counter::Data.count(hs200, ns(0)).value, 0);
    // Exactly two units: 2 * 2^20 cycles of 5 ns.
    assert_eq!(Counter::Data.count(hs200, ns(2 * UNIT * 5)).value, 1);
    assert_eq!(Counter::Data.count(hs200, ns(2 * UNIT * 5 + 1)).value, 2);
    assert_eq!(INITIAL_DATA_TIMEOUT_COUNT, 3);
    // DTOC 31:24 and WRDTOC 14:2, all ones.
    assert_eq!((Counter::Data.max(), Counter::Busy.max()), (255, 8191));
}

#[test]
fn saturation() {
    let hs200 = clock(200_000_000, false);
    // 10 s at 200 MHz needs 1907 units: more than DTOC holds, within WRDTOC.
    assert_eq!(
        Counter::Data.count(hs200, ns(10_000_000_000)),
        capped_at(255)
    );
    assert_eq!(Counter::Busy.count(hs200, ns(10_000_000_000)), exact(1907));
    // 100 s overflows WRDTOC too.
    assert_eq!(
        Counter::Busy.count(hs200, ns(100_000_000_000)),
        capped_at(8191)
    );
    // Just below and at the DTOC limit: 256 units is value 255; 257 units saturates.
    assert_eq!(Counter::Data.count(hs200, ns(256 * UNIT * 5)), exact(255));
    assert!(Counter::Data.count(hs200, ns(257 * UNIT * 5)).saturated);
}

#[test]
fn huge_requests_do_not_overflow_or_wrap() {
    let fastest = clock(u32::MAX, true);
    let request = TimeoutRequest {
        ns: u64::MAX,
        clocks: u64::MAX,
    };
    // Saturated cycles: (2^64 - 1) rounds up to 2^44 units, doubled, minus one.
    assert_eq!(counter_units(fastest, request), (1 << 45) - 1);
    assert_eq!(Counter::Data.count(fastest, request).value, 255);
    assert_eq!(Counter::Busy.count(fastest, request).value, 8191);
    // 2^32 + 6 units: upstream's min_t(u32, ...) truncates this to 5 before clamping.
    let wraps_upstream = ns(((1u64 << 32) + 6) * UNIT);
    let one_ghz = clock(1_000_000_000, false);
    assert_eq!(counter_units(one_ghz, wraps_upstream), (1 << 32) + 5);
    assert_eq!(Counter::Data.count(one_ghz, wraps_upstream), capped_at(255));
    assert_eq!(TimeoutRequest::from_millis(u64::MAX).ns, u64::MAX);
    assert_eq!(TimeoutRequest::from_millis(250).ns, 250_000_000);
}

#[test]
fn register_fields() {
    let base = SDC_CFG::from_raw(0x0001_0000); // 4-bit bus, kept.
    let hs200 = clock(200_000_000, false);
    let with_dtoc = Counter::Data.program(base, hs200, ns(1_000_000_000));
    assert_eq!(with_dtoc.raw(), 0x0001_0000 | (190 << 24));
    let with_both = Counter::Busy.program(with_dtoc, hs200, ns(20_000_000_000));
    assert_eq!(with_both.raw(), 0x0001_0000 | (190 << 24) | (3814 << 2));
    let saturated = Counter::Busy.program(base, hs200, ns(u64::MAX));
    assert_eq!(saturated.raw(), 0x0001_0000 | (8191 << 2));
}

/// `msdc_timeout_cal()` with 128-bit arithmetic, which the kernel cannot use; also returns
/// whether the cycle count fits in 64 bits, beyond which the crate saturates.
fn reference(hz: u32, ddr: bool, ns: u64, clocks: u64) -> (u128, bool) {
    let period = u128::from((1_000_000_000 / hz).max(1));
    let cycles = u128::from(ns).div_ceil(period) + u128::from(clocks);
    let units = cycles.div_ceil(u128::from(UNIT)) * if ddr { 2 } else { 1 };
    (units.saturating_sub(1), cycles <= u128::from(u64::MAX))
}

proptest! {
    #[test]
    fn matches_wide_reference(hz in 1u32.., ddr: bool, ns: u64, clocks in 0u64..1 << 40) {
        let (want, exact) = reference(hz, ddr, ns, clocks);
        let clock = clock(hz, ddr);
        let request = TimeoutRequest { ns, clocks };
        if exact {
            prop_assert_eq!(u128::from(counter_units(clock, request)), want);
        }
        let dtoc = Counter::Data.count(clock, request);
        prop_assert_eq!(u128::from(dtoc.value), want.min(255));
        prop_assert_eq!(dtoc.saturated, want > 255);
        let wrdtoc = Counter::Busy.count(clock, request);
        prop_assert_eq!(u128::from(wrdtoc.value), want.min(8191));
        prop_assert_eq!(wrdtoc.saturated, want > 8191);
    }

    #[test]
    fn longer_requests_never_shorten_the_timeout(hz in 1u32.., ddr: bool, a: u64, b: u64) {
        let clock = clock(hz, ddr);
        let (short, long) = (a.min(b), a.max(b));
        prop_assert!(counter_units(clock, ns(short)) <= counter_units(clock, ns(long)));
    }
}
