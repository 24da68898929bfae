// SPDX-License-Identifier: GPL-2.0

//! The shift-and-subtract division against the native one.

use msdc::arith::{div_ceil_u64, div_u64};
use proptest::prelude::*;

#[test]
fn division_by_zero_is_refused() {
    assert_eq!(div_u64(5, 0), None);
    assert_eq!(div_ceil_u64(5, 0), None);
}

#[test]
fn edge_values() {
    assert_eq!(div_u64(0, 7), Some(0));
    assert_eq!(div_u64(u64::MAX, 1), Some(u64::MAX));
    assert_eq!(div_u64(u64::MAX, u64::MAX), Some(1));
    assert_eq!(div_u64(u64::MAX - 1, u64::MAX), Some(0));
    assert_eq!(div_u64(u64::MAX, 1 << 63), Some(1));
    assert_eq!(div_ceil_u64(u64::MAX, 2), Some(1 << 63));
    assert_eq!(div_ceil_u64(1_000_000_000, 3), Some(333_333_334));
    assert_eq!(div_ceil_u64(10, 5), Some(2));
}

proptest! {
    #[test]
    fn matches_native_division(dividend: u64, divisor in 1u64..) {
        prop_assert_eq!(div_u64(dividend, divisor), Some(dividend / divisor));
        prop_assert_eq!(div_ceil_u64(dividend, divisor), Some(dividend.div_ceil(divisor)));
    }

    #[test]
    fn matches_native_division_for_small_divisors(dividend: u64, divisor in 1u64..1 << 20) {
        prop_assert_eq!(div_u64(dividend, divisor), Some(dividend / divisor));
        prop_assert_eq!(div_ceil_u64(dividend, divisor), Some(dividend.div_ceil(divisor)));
    }
}
