// SPDX-License-Identifier: GPL-2.0

//! The queue-depth policy that the MMC block layer reads as `hsq_depth`: deeper while small
//! random writes are queued, shallow otherwise to bound latency.

/// Depth published while fewer than two queued requests are 4 KiB writes.
pub const NORMAL_DEPTH: u8 = 2;

/// Depth published while at least two queued requests are 4 KiB writes.
pub const PERFORMANCE_DEPTH: u8 = 5;

/// How many queued 4 KiB writes switch the policy to [`PERFORMANCE_DEPTH`].
const PERFORMANCE_THRESHOLD: u8 = 2;

/// Transfer size that marks a small random write.
const FOUR_KIB: u32 = 4096;

/// Direction of a request's data phase (`MMC_DATA_READ` / `MMC_DATA_WRITE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataDirection {
    /// Card to host.
    Read,
    /// Host to card.
    Write,
}

/// What the depth policy needs to know about a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestShape {
    four_kib_write: bool,
}

impl RequestShape {
    /// A request without a data phase.
    pub const fn without_data() -> Self {
        Self {
            four_kib_write: false,
        }
    }

    /// A request moving `block_count` blocks of `block_size` bytes (`mmc_data::blksz` and
    /// `mmc_data::blocks`) in `direction`.
    pub const fn with_data(direction: DataDirection, block_size: u32, block_count: u32) -> Self {
        // A product that does not fit in `u32` is far larger than 4 KiB, not a wrapped 4 KiB.
        let four_kib = matches!(block_size.checked_mul(block_count), Some(FOUR_KIB));
        Self {
            four_kib_write: four_kib && matches!(direction, DataDirection::Write),
        }
    }

    /// Whether this is a write of exactly 4 KiB, the case the deeper queue is for.
    pub const fn is_four_kib_write(self) -> bool {
        self.four_kib_write
    }
}

/// Counts the 4 KiB writes held in slots so that choosing the depth is O(1).
#[derive(Debug)]
pub(crate) struct DepthPolicy {
    four_kib_writes: u8,
}

impl DepthPolicy {
    pub(crate) const fn new() -> Self {
        Self { four_kib_writes: 0 }
    }

    /// Counts a request that has just taken a slot.
    pub(crate) fn track(&mut self, shape: RequestShape) {
        if shape.four_kib_write {
            // Bounded by the slot count; saturation only guards against a broken caller.
            self.four_kib_writes = self.four_kib_writes.saturating_add(1);
        }
    }

    /// Forgets a request that has just left its slot.
    pub(crate) fn untrack(&mut self, shape: RequestShape) {
        if shape.four_kib_write {
            self.four_kib_writes = self.four_kib_writes.saturating_sub(1);
        }
    }

    pub(crate) fn depth(&self) -> u8 {
        if self.four_kib_writes >= PERFORMANCE_THRESHOLD {
            PERFORMANCE_DEPTH
        } else {
            NORMAL_DEPTH
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{DataDirection, DepthPolicy, RequestShape, NORMAL_DEPTH, PERFORMANCE_DEPTH};

    const WRITE_4K: RequestShape = RequestShape::with_data(DataDirection::Write, 512, 8);

    #[test]
    fn only_writes_of_exactly_4_kib_count() {
        assert!(WRITE_4K.is_four_kib_write());
        assert!(RequestShape::with_data(DataDirection::Write, 4096, 1).is_four_kib_write());
        assert!(!RequestShape::with_data(DataDirection::Read, 512, 8).is_four_kib_write());
        assert!(!RequestShape::with_data(DataDirection::Write, 512, 16).is_four_kib_write());
        assert!(!RequestShape::with_data(DataDirection::Write, 512, 7).is_four_kib_write());
        assert!(!RequestShape::without_data().is_four_kib_write());
        // 0x1_0000_1000 wraps to 4096 in 32-bit arithmetic; it must not count.
        assert!(
            !RequestShape::with_data(DataDirection::Write, 0x1000_0100, 16).is_four_kib_write()
        );
    }

    /// Tracks or untracks a request.
    type Step = fn(&mut DepthPolicy, RequestShape);
    const TRACK: Step = DepthPolicy::track;
    const UNTRACK: Step = DepthPolicy::untrack;

    #[test]
    fn two_tracked_4_kib_writes_deepen_the_queue() {
        let mut policy = DepthPolicy::new();
        assert_eq!(policy.depth(), NORMAL_DEPTH);
        let none = RequestShape::without_data();
        // Each step and the depth it leaves; the last untrack has nothing left to forget.
        let steps = [
            (TRACK, WRITE_4K, NORMAL_DEPTH),
            (TRACK, none, NORMAL_DEPTH),
            (TRACK, WRITE_4K, PERFORMANCE_DEPTH),
            (TRACK, WRITE_4K, PERFORMANCE_DEPTH),
            (UNTRACK, WRITE_4K, PERFORMANCE_DEPTH),
            (UNTRACK, none, PERFORMANCE_DEPTH),
            (UNTRACK, WRITE_4K, NORMAL_DEPTH),
            (UNTRACK, WRITE_4K, NORMAL_DEPTH),
            (UNTRACK, WRITE_4K, NORMAL_DEPTH),
        ];
        for (n, (step, shape, depth)) in steps.into_iter().enumerate() {
            step(&mut policy, shape);
            assert_eq!(policy.depth(), depth, "after step {n}");
        }
    }
}
