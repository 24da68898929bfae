// SPDX-License-Identifier: GPL-2.0

//! The [`register!`](crate::register!) macro.

/// Declares register and descriptor-word types with their `HI:LO` fields.
///
/// ```
/// use registers::{register, FieldValue, Io, Window};
///
/// /// The controller's main register window.
/// pub struct Base;
/// impl Window for Base {
///     const NAME: &'static str = "base";
/// }
///
/// /// How the bus clock is derived (every 2-bit encoding has a meaning).
/// #[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// pub enum ClockMode {
///     Divided,
///     Undivided,
///     Ddr,
///     Hs400,
/// }
///
/// impl FieldValue for ClockMode {
///     const WIDTH: u32 = 2;
///     fn into_bits(self) -> u64 {
///         self as u64
///     }
///     fn from_bits(bits: u64) -> Self {
///         match bits {
///             0 => Self::Divided,
///             1 => Self::Undivided,
///             2 => Self::Ddr,
///             _ => Self::Hs400,
///         }
///     }
/// }
///
/// register! {
///     /// Controller configuration.
///     pub CFG(u32) @ Base + 0x00 {
///         /// Soft reset; self-clearing.
///         2:2 rst => bool;
///         /// Clock divider.
///         15:8 ckdiv;
///         /// Clock mode.
///         17:16 ckmod => ClockMode;
///     }
///
///     /// First word of a DMA descriptor (in memory: no window).
///     pub DESC0(u64) {
///         /// Buffer length.
///         47:32 length;
///     }
/// }
///
/// const INIT: CFG = CFG::zeroed().with_const_ckdiv::<4>().with_rst(true);
/// assert_eq!(INIT.ckdiv(), 4);
/// let cfg = INIT.with_ckmod(ClockMode::Ddr);
/// assert_eq!(cfg.ckmod(), ClockMode::Ddr);
/// assert!(cfg.try_with_ckdiv(0x100).is_err());
/// assert_eq!(DESC0::zeroed().try_with_length(512).map(DESC0::raw), Ok(512 << 32));
/// ```
///
/// Each item declares a `#[repr(transparent)]` newtype over `u32` or `u64` with
/// `zeroed`, `from_raw` and `raw`. An item with `@ Window + offset` is also a
/// [`Register`](crate::Register) of that window, reachable through [`Io`](crate::Io);
/// an item without is a word kept in memory, such as a DMA descriptor word.
///
/// Each field `HI:LO name` gives:
/// - `HI:LO name;`: `name()` returning the bits, `with_const_name::<V>()` (a `V` wider than
///   the field fails the build) and `try_with_name(v)` (a `v` wider than the field is
///   refused with [`FieldOverflow`](crate::FieldOverflow));
/// - `HI:LO name => bool;`: `name()` (any bit set) and `with_name(bool)` (all bits set or
///   clear);
/// - `HI:LO name => Type;`: `name()` and `with_name(Type)` through
///   [`FieldValue`](crate::FieldValue);
/// - `HI:LO name ?=> Type;`: `name()` returning `Option<Type>` and `with_name(Type)` through
///   [`PartialFieldValue`](crate::PartialFieldValue).
///
/// A range outside the word, a reversed range, or a converted type wider than its field fails
/// the build.
#[macro_export]
macro_rules! register {
    (@word $(#[$attr:meta])* $vis:vis $name:ident($storage:ident) { $($fields:tt)* }) => {
        $(#[$attr])*
        #[repr(transparent)]
        #[derive(Clone, Copy, Default, PartialEq, Eq)]
        // Datasheet names (`MSDC_CFG`) are kept; CamelCase names are accepted too.
        #[allow(non_camel_case_types)]
        $vis struct $name($storage);

        // Generated accessors: a user needs some of them, not all (as the kernel's own
        // `bitfield!` does).
        #[allow(dead_code)]
        impl $name {
            /// The value with every bit clear.
            #[inline]
            $vis const fn zeroed() -> Self {
                Self(0)
            }

            /// Wraps a raw value, e.g. one just read from the hardware.
            #[inline]
            $vis const fn from_raw(raw: $storage) -> Self {
                Self(raw)
            }

            /// The raw value, e.g. to write to the hardware.
            #[inline]
            $vis const fn raw(self) -> $storage {
                self.0
            }
        }

        impl ::core::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, "{}({:#x})", stringify!($name), self.0)
            }
        }

        $crate::register!(@fields $vis $name $storage { $($fields)* });
    };

    (@located $vis:vis $name:ident @ $window:ident + $offset:literal) => {
        // Generated accessors: a user needs some of them, not all (as the kernel's own
        // `bitfield!` does).
        #[allow(dead_code)]
        impl $name {
            /// Byte offset of the register from the start of its window.
            $vis const OFFSET: usize = $offset;
        }

        impl $crate::registers::Register for $name {
            type Window = $window;
            const OFFSET: usize = $offset;
            const NAME: &'static str = stringify!($name);

            #[inline]
            fn from_raw(raw: u32) -> Self {
                Self(raw)
            }

            #[inline]
            fn raw(self) -> u32 {
                self.0
            }
        }
    };

    (@mask u32 $hi:literal $lo:literal) => {
        $crate::registers::field::mask_u32($hi, $lo)
    };
    (@mask u64 $hi:literal $lo:literal) => {
        $crate::registers::field::mask_u64($hi, $lo)
    };

    (@fields $vis:vis $name:ident $storage:ident {}) => {};

    // The build-time range check and the documented const getter of a field, whose value
    // `$value` computes from the raw word and the field's mask.
    (@getter $vis:vis $name:ident $storage:ident $(#[$fattr:meta])* $hi:literal : $lo:literal
        $field:ident -> $ret:ty { |$raw:ident: $rs:ty, $mask:ident: $ms:ty| $value:expr }) => {
        const _: $storage = $crate::register!(@mask $storage $hi $lo);

        // Generated accessors: a user needs some of them, not all (as the kernel's own
        // `bitfield!` does).
        #[allow(dead_code)]
        impl $name {
            $(#[$fattr])*
            #[doc = ""]
            #[doc = concat!("Bits `", stringify!($hi), ":", stringify!($lo), "`.")]
            #[inline]
            $vis const fn $field(self) -> $ret {
                let $raw: $rs = self.0;
                let $mask: $ms = $crate::register!(@mask $storage $hi $lo);
                $value
            }
        }
    };

    (@fields $vis:vis $name:ident $storage:ident {
        $(#[$fattr:meta])* $hi:literal : $lo:literal $field:ident => bool; $($rest:tt)*
    }) => {
        $crate::register!(@getter $vis $name $storage $(#[$fattr])* $hi:$lo $field -> bool {
            |raw: $storage, mask: $storage| raw & mask != 0
        });

        // Generated accessors: a user needs some of them, not all (as the kernel's own
        // `bitfield!` does).
        #[allow(dead_code)]
        impl $name {

            $crate::registers::paste! {
                #[doc = concat!("Sets (`true`) or clears every bit of `", stringify!($field), "`.")]
                #[inline]
                #[must_use]
                $vis const fn [<with_ $field>](self, set: bool) -> Self {
                    let mask = $crate::register!(@mask $storage $hi $lo);
                    if set {
                        Self(self.0 | mask)
                    } else {
                        Self(self.0 & !mask)
                    }
                }
            }
        }

        $crate::register!(@fields $vis $name $storage { $($rest)* });
    };

    (@fields $vis:vis $name:ident $storage:ident {
        $(#[$fattr:meta])* $hi:literal : $lo:literal $field:ident => $ty:ty; $($rest:tt)*
    }) => {
        $crate::register!(@converted $vis $name $storage $(#[$fattr])* $hi:$lo $field
            [$crate::registers::FieldValue] == [$ty] [$ty] from_bits
            "`.");
        $crate::register!(@fields $vis $name $storage { $($rest)* });
    };

    (@fields $vis:vis $name:ident $storage:ident {
        $(#[$fattr:meta])* $hi:literal : $lo:literal $field:ident ?=> $ty:ty; $($rest:tt)*
    }) => {
        $crate::register!(@converted $vis $name $storage $(#[$fattr])* $hi:$lo $field
            [$crate::registers::PartialFieldValue] <= [$ty] [Option<$ty>] try_from_bits
            "`; `None` for a reserved encoding.");
        $crate::register!(@fields $vis $name $storage { $($rest)* });
    };

    // A field read and written as `$ty` through `$conversion` (`FieldValue` or
    // `PartialFieldValue`), whose `$decode` gives the getter's `$getter` type. A `FieldValue`
    // names every encoding, so its width must be the field's (`$fits` is `==`); a
    // `PartialFieldValue` may leave the upper encodings unnamed (`<=`).
    (@converted $vis:vis $name:ident $storage:ident $(#[$fattr:meta])* $hi:literal : $lo:literal
        $field:ident [$conversion:path] $fits:tt [$ty:ty] [$getter:ty] $decode:ident
        $doc_tail:literal) => {
        const _: () = assert!(
            <$ty as $conversion>::WIDTH $fits $hi - $lo + 1,
            "the field's type does not have the field's width"
        );

        // Generated accessors: a user needs some of them, not all (as the kernel's own
        // `bitfield!` does).
        #[allow(dead_code)]
        impl $name {
            $(#[$fattr])*
            #[doc = ""]
            #[doc = concat!("Bits `", stringify!($hi), ":", stringify!($lo), $doc_tail)]
            #[inline]
            $vis fn $field(self) -> $getter {
                use $crate::registers::field::Storage as _;
                let mask = $crate::register!(@mask $storage $hi $lo).widen();
                <$ty as $conversion>::$decode((self.0.widen() & mask) >> $lo)
            }

            $crate::registers::paste! {
                #[doc = concat!("Sets `", stringify!($field), "`.")]
                #[inline]
                #[must_use]
                $vis fn [<with_ $field>](self, value: $ty) -> Self {
                    use $crate::registers::field::Storage;
                    let mask = $crate::register!(@mask $storage $hi $lo).widen();
                    let bits = (<$ty as $conversion>::into_bits(value) << $lo) & mask;
                    Self(<$storage as Storage>::narrow((self.0.widen() & !mask) | bits))
                }
            }
        }
    };

    (@fields $vis:vis $name:ident $storage:ident {
        $(#[$fattr:meta])* $hi:literal : $lo:literal $field:ident; $($rest:tt)*
    }) => {
        $crate::register!(@getter $vis $name $storage $(#[$fattr])* $hi:$lo $field -> $storage {
            |raw: $storage, mask: $storage| (raw & mask) >> $lo
        });

        // Generated accessors: a user needs some of them, not all (as the kernel's own
        // `bitfield!` does).
        #[allow(dead_code)]
        impl $name {

            $crate::registers::paste! {
                #[doc = concat!("Sets `", stringify!($field),
                    "` to `VALUE`; a `VALUE` wider than the field fails the build.")]
                #[inline]
                #[must_use]
                $vis const fn [<with_const_ $field>]<const VALUE: $storage>(self) -> Self {
                    let mask = $crate::register!(@mask $storage $hi $lo);
                    const {
                        assert!(
                            VALUE <= $crate::register!(@mask $storage $hi $lo) >> $lo,
                            "the value is wider than its field"
                        )
                    };
                    Self((self.0 & !mask) | (VALUE << $lo))
                }

                #[doc = concat!("Sets `", stringify!($field),
                    "` to `value`, refusing a value wider than the field.")]
                #[inline]
                $vis fn [<try_with_ $field>](
                    self,
                    value: $storage,
                ) -> ::core::result::Result<Self, $crate::registers::FieldOverflow> {
                    use $crate::registers::field::Storage as _;
                    let mask = $crate::register!(@mask $storage $hi $lo);
                    let max = mask >> $lo;
                    if value > max {
                        return Err($crate::registers::FieldOverflow {
                            value: value.widen(),
                            max: max.widen(),
                        });
                    }
                    Ok(Self((self.0 & !mask) | (value << $lo)))
                }
            }
        }

        $crate::register!(@fields $vis $name $storage { $($rest)* });
    };

    ($(
        $(#[$attr:meta])*
        $vis:vis $name:ident($storage:ident) $(@ $window:ident + $offset:literal)? {
            $($fields:tt)*
        }
    )*) => {
        $(
            $crate::register!(@word $(#[$attr])* $vis $name($storage) { $($fields)* });
            $($crate::register!(@located $vis $name @ $window + $offset);)?
        )*
    };
}
