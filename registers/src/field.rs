// SPDX-License-Identifier: GPL-2.0

//! What a field holds: its raw bits, or a type that converts to and from them.

use core::fmt;

/// A value did not fit in the bit range of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldOverflow {
    /// The rejected value.
    pub value: u64,
    /// The largest value the field can hold.
    pub max: u64,
}

impl fmt::Display for FieldOverflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "value {:#x} exceeds field maximum {:#x}",
            self.value, self.max
        )
    }
}

/// A type every encoding of a field converts to (`HI:LO name => Type` in
/// [`register!`](crate::register!)), such as `bool` for a one-bit flag or an enum that names
/// all 2^WIDTH values.
///
/// The macro checks at build time that [`FieldValue::WIDTH`] bits fit in the field, and masks
/// what [`FieldValue::into_bits`] returns to the field, so a conversion cannot reach a
/// neighbouring field.
pub trait FieldValue: Sized + Copy {
    /// Bits every value needs.
    const WIDTH: u32;

    /// The value's bits, below `1 << WIDTH`.
    fn into_bits(self) -> u64;

    /// The value the bits mean; `bits` is below `1 << WIDTH`.
    fn from_bits(bits: u64) -> Self;
}

/// A type some encodings of a field convert to (`HI:LO name ?=> Type`): the others are
/// reserved, and the getter returns `None` for them.
pub trait PartialFieldValue: Sized + Copy {
    /// Bits every value needs.
    const WIDTH: u32;

    /// The value's bits, below `1 << WIDTH`.
    fn into_bits(self) -> u64;

    /// The value the bits mean, or `None` for a reserved encoding.
    fn try_from_bits(bits: u64) -> Option<Self>;
}

/// Unsigned integers of a field's exact width (`15:0 rca => u16`): setting one never fails.
macro_rules! unsigned_field_values {
    ($($ty:ty),+) => {$(
        impl FieldValue for $ty {
            const WIDTH: u32 = <$ty>::BITS;

            fn into_bits(self) -> u64 {
                u64::from(self)
            }

            fn from_bits(bits: u64) -> Self {
                // The field is exactly WIDTH bits wide: the truncation drops nothing.
                bits as $ty
            }
        }
    )+};
}

unsigned_field_values!(u8, u16, u32);

impl FieldValue for bool {
    const WIDTH: u32 = 1;

    fn into_bits(self) -> u64 {
        u64::from(self)
    }

    fn from_bits(bits: u64) -> Self {
        bits != 0
    }
}

/// Mask of the `HI:LO` field of a 32-bit word. Evaluated in constants, so a range outside the
/// word, or reversed, fails the build.
#[doc(hidden)]
pub const fn mask_u32(high: u32, low: u32) -> u32 {
    assert!(high < 32, "a field is HI:LO inside its 32-bit word");
    // The mask lies in the low 32 bits: the truncation keeps all of it.
    mask_u64(high, low) as u32
}

/// Mask of the `HI:LO` field of a 64-bit word; see [`mask_u32`].
#[doc(hidden)]
pub const fn mask_u64(high: u32, low: u32) -> u64 {
    assert!(
        low <= high && high < 64,
        "a field is HI:LO inside its 64-bit word"
    );
    (u64::MAX >> (63 - (high - low))) << low
}

/// A field's storage: the word types [`register!`](crate::register!) declares.
#[doc(hidden)]
pub trait Storage: Copy {
    /// The word widened to 64 bits.
    fn widen(self) -> u64;
    /// The low bits of `bits` as a word.
    fn narrow(bits: u64) -> Self;
}

impl Storage for u32 {
    fn widen(self) -> u64 {
        u64::from(self)
    }

    fn narrow(bits: u64) -> Self {
        // Callers mask to the field first; the truncation is what a word of 32 bits holds.
        (bits & u64::from(u32::MAX)) as u32
    }
}

impl Storage for u64 {
    fn widen(self) -> u64 {
        self
    }

    fn narrow(bits: u64) -> Self {
        bits
    }
}
