// SPDX-License-Identifier: GPL-2.0

//! 64-bit division that every kernel architecture can link.
//!
//! MSDC also ships on 32-bit Arm SoCs (MT2701, MT7623, MT8135). There the Rust kernel has no
//! `u64` division intrinsic: `rust/compiler_builtins.rs` turns `__aeabi_uldivmod` into a
//! panic, so a plain `/` on `u64` would link and then crash. These helpers divide with
//! shifts and subtractions only. They run once per clock or timeout change, so 64 loop
//! iterations cost nothing that matters.

/// `dividend / divisor`, rounded down; `None` when `divisor` is zero.
pub fn div_u64(dividend: u64, divisor: u64) -> Option<u64> {
    if divisor == 0 {
        return None;
    }
    let mut quotient = 0u64;
    let mut remainder = 0u64;
    let mut bit = 64u32;
    while bit > 0 {
        bit -= 1;
        // `remainder < divisor` holds here, so shifting it left loses nothing unless
        // `divisor` uses bit 63; that case is handled by comparing before the shift.
        let carry = remainder >> 63;
        remainder = (remainder << 1) | ((dividend >> bit) & 1);
        if carry != 0 || remainder >= divisor {
            remainder = remainder.wrapping_sub(divisor);
            quotient |= 1u64 << bit;
        }
    }
    Some(quotient)
}

/// `dividend / divisor`, rounded up; `None` when `divisor` is zero.
pub fn div_ceil_u64(dividend: u64, divisor: u64) -> Option<u64> {
    let quotient = div_u64(dividend, divisor)?;
    // `quotient * divisor <= dividend`, so neither operation can overflow.
    let remainder = dividend - quotient * divisor;
    Some(if remainder == 0 {
        quotient
    } else {
        quotient + 1
    })
}
