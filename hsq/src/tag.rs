// SPDX-License-Identifier: GPL-2.0

//! Block-layer tags, validated once so that every slot lookup stays in range.

/// Number of slots: one per block-layer tag, matching the MMC core's queue depth of 64.
pub const SLOT_COUNT: usize = 64;

/// A block-layer tag that indexes a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tag(u8);

impl Tag {
    /// Validates a raw tag as found in `mmc_request::tag` (a C `int`).
    pub(crate) fn from_raw(raw: i32) -> Option<Self> {
        let index = u8::try_from(raw).ok()?;
        // INVARIANT: only indices below `SLOT_COUNT` become a `Tag`.
        (usize::from(index) < SLOT_COUNT).then_some(Self(index))
    }

    /// The slot index; always below [`SLOT_COUNT`].
    pub(crate) fn index(self) -> usize {
        // The remainder restates the invariant in a form the compiler can see, so slot
        // lookups compile without a bounds check and the engine has no panic path at all.
        usize::from(self.0) % SLOT_COUNT
    }
}

#[cfg(test)]
mod tests {
    use super::{Tag, SLOT_COUNT};

    #[test]
    fn accepts_exactly_the_slot_range() {
        assert_eq!(Tag::from_raw(0).map(Tag::index), Some(0));
        assert_eq!(Tag::from_raw(63).map(Tag::index), Some(SLOT_COUNT - 1));
        assert_eq!(Tag::from_raw(64), None);
        assert_eq!(Tag::from_raw(255), None);
        assert_eq!(Tag::from_raw(256), None);
        assert_eq!(Tag::from_raw(-1), None);
        assert_eq!(Tag::from_raw(i32::MIN), None);
    }
}
