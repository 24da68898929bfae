// SPDX-License-Identifier: GPL-2.0

//! The [`field_enum!`](crate::field_enum!) macro.

/// Declares an enum of the values a field may hold, with its field conversion.
///
/// ```
/// use registers::{field_enum, FieldValue, PartialFieldValue};
///
/// field_enum! {
///     /// How the bus clock is derived: every 2-bit encoding has a meaning.
///     pub enum ClockMode: 2 bits {
///         /// Divided.
///         Divided = 0,
///         /// Undivided.
///         Undivided = 1,
///         /// Double data rate.
///         Ddr = 2,
///         /// HS400.
///         Hs400 = 3,
///     }
///
///     /// Bus width: encoding 3 is reserved.
///     pub enum BusWidth: 2 bits, partial {
///         /// One data line.
///         One = 0,
///         /// Four.
///         Four = 1,
///         /// Eight.
///         Eight = 2,
///     }
/// }
///
/// assert_eq!(<ClockMode as FieldValue>::from_bits(2), ClockMode::Ddr);
/// assert_eq!(BusWidth::try_from_bits(3), None);
/// assert_eq!(BusWidth::Eight.into_bits(), 2);
/// ```
///
/// `NAME: W bits` names every one of the 2^W encodings and implements
/// [`FieldValue`](crate::FieldValue) (the build fails unless all 2^W values are named);
/// `NAME: W bits, partial` implements [`PartialFieldValue`](crate::PartialFieldValue), whose
/// decoder returns `None` for the encodings left out. Either way the build fails if a value
/// does not fit in W bits. The enums derive `Clone`, `Copy`, `Debug`, `PartialEq` and `Eq`.
///
/// ```compile_fail
/// registers::field_enum! {
///     /// Three names for four encodings, and not declared `partial`.
///     pub enum Width: 2 bits {
///         /// One.
///         One = 0,
///         /// Four.
///         Four = 1,
///         /// Eight.
///         Eight = 2,
///     }
/// }
/// ```
#[macro_export]
macro_rules! field_enum {
    (@enum $(#[$attr:meta])* $vis:vis $name:ident $width:literal
        { $($(#[$vattr:meta])* $variant:ident = $value:literal,)+ }) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $($(#[$vattr])* $variant = $value,)+
        }

        const _: () = assert!(
            $($value < (1u64 << $width))&&+,
            "a value does not fit in the field's width"
        );
    };

    (@items) => {};

    (@items $(#[$attr:meta])* $vis:vis enum $name:ident : $width:literal bits, partial {
        $($(#[$vattr:meta])* $variant:ident = $value:literal,)+
    } $($rest:tt)*) => {
        $crate::field_enum!(@enum $(#[$attr])* $vis $name $width {
            $($(#[$vattr])* $variant = $value,)+
        });

        impl $crate::registers::PartialFieldValue for $name {
            const WIDTH: u32 = $width;

            fn into_bits(self) -> u64 {
                self as u64
            }

            fn try_from_bits(bits: u64) -> Option<Self> {
                match bits {
                    $($value => Some(Self::$variant),)+
                    _ => None,
                }
            }
        }

        $crate::field_enum!(@items $($rest)*);
    };

    (@items $(#[$attr:meta])* $vis:vis enum $name:ident : $width:literal bits {
        $($(#[$vattr:meta])* $variant:ident = $value:literal,)+
    } $($rest:tt)*) => {
        $crate::field_enum!(@enum $(#[$attr])* $vis $name $width {
            $($(#[$vattr])* $variant = $value,)+
        });

        const _: () = assert!(
            [$($value),+].len() == 1 << $width,
            "every encoding needs a name (or declare the enum `partial`)"
        );

        impl $crate::registers::FieldValue for $name {
            const WIDTH: u32 = $width;

            fn into_bits(self) -> u64 {
                self as u64
            }

            fn from_bits(bits: u64) -> Self {
                // Every encoding below 2^WIDTH is named (checked above), and the field is
                // WIDTH bits wide, so the fallback is never taken.
                let mask = u64::MAX >> (64 - $width);
                $(
                    if bits & mask == $value {
                        return Self::$variant;
                    }
                )+
                [$(Self::$variant),+][0]
            }
        }

        $crate::field_enum!(@items $($rest)*);
    };

    ($($items:tt)*) => {
        $crate::field_enum!(@items $($items)*);
    };
}
