// SPDX-License-Identifier: GPL-2.0

//! Converting MMC data and busy timeouts into the `SDC_CFG` counter values.
//!
//! Both counters (`DTOC` for reads, `WRDTOC` for writes and R1b busy) count in units of
//! 2^20 card clock cycles, and a register value `n` waits `n + 1` units. DDR modes double
//! the count. Requests longer than a counter can express saturate at its maximum (255 and
//! 8191) instead of wrapping: upstream clamps with `min_t(u32, ...)`, which truncates the
//! 64-bit count before comparing, and all arithmetic here saturates for the same reason.

use super::arith::div_ceil_u64;
use super::clock::TimeoutClock;
use super::regs::SDC_CFG;

/// log2 of the number of card clock cycles in one timeout counter unit.
pub const UNIT_CYCLES_SHIFT: u32 = 20;

/// `DTOC` value the controller is initialised with, before any request sets its own.
pub const INITIAL_DATA_TIMEOUT_COUNT: u32 = 3;

/// Clock cycles a data timeout defaults to before the first request (3 units).
pub const INITIAL_TIMEOUT_CLOCKS: u64 = 3 << UNIT_CYCLES_SHIFT;

/// The largest `SDC_CFG.DTOC` value: the field, all ones.
const DTOC_MAX: u32 = SDC_CFG::from_raw(u32::MAX).dtoc();

/// The largest `SDC_CFG.WRDTOC` value: the field, all ones.
const WRDTOC_MAX: u32 = SDC_CFG::from_raw(u32::MAX).wrdtoc();

/// A timeout the way the MMC core states it: nanoseconds plus card clock cycles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeoutRequest {
    /// Nanoseconds (`mmc_data.timeout_ns`, or a busy timeout converted to ns).
    pub ns: u64,
    /// Additional card clock cycles (`mmc_data.timeout_clks`).
    pub clocks: u64,
}

impl TimeoutRequest {
    /// A timeout of `ms` milliseconds (`mmc_command.busy_timeout`).
    pub const fn from_millis(ms: u64) -> Self {
        Self {
            ns: ms.saturating_mul(1_000_000),
            clocks: 0,
        }
    }
}

/// A counter value ready for `SDC_CFG`, and whether the request had to be cut short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeoutCount {
    /// The value for `DTOC` or `WRDTOC`.
    pub value: u32,
    /// The request was longer than the counter can wait.
    pub saturated: bool,
}

/// Counter units minus one for `request` on `clock`, before any cap; 0 with no clock.
pub fn counter_units(clock: Option<TimeoutClock>, request: TimeoutRequest) -> u64 {
    let Some(clock) = clock else {
        return 0;
    };
    let cycles = div_ceil_u64(request.ns, u64::from(clock.period_ns()))
        .unwrap_or(u64::MAX)
        .saturating_add(request.clocks);
    let unit_mask = (1u64 << UNIT_CYCLES_SHIFT) - 1;
    let mut units = (cycles >> UNIT_CYCLES_SHIFT) + u64::from(cycles & unit_mask != 0);
    if clock.double_data_rate() {
        units = units.saturating_mul(2);
    }
    units.saturating_sub(1)
}

fn capped(units: u64, max: u32) -> TimeoutCount {
    match u32::try_from(units) {
        Ok(value) if value <= max => TimeoutCount {
            value,
            saturated: false,
        },
        _ => TimeoutCount {
            value: max,
            saturated: true,
        },
    }
}

/// One of the two timeout counters of `SDC_CFG`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    /// `DTOC`: read data.
    Data,
    /// `WRDTOC`: write data and R1b busy.
    Busy,
}

impl Counter {
    /// The largest value the counter holds.
    pub const fn max(self) -> u32 {
        match self {
            Self::Data => DTOC_MAX,
            Self::Busy => WRDTOC_MAX,
        }
    }

    /// The counter value for `request` on `clock`, saturating at [`Counter::max`].
    pub fn count(self, clock: Option<TimeoutClock>, request: TimeoutRequest) -> TimeoutCount {
        capped(counter_units(clock, request), self.max())
    }

    /// Returns `cfg` with this counter set for `request`.
    pub fn program(
        self,
        cfg: SDC_CFG,
        clock: Option<TimeoutClock>,
        request: TimeoutRequest,
    ) -> SDC_CFG {
        self.apply(cfg, self.count(clock, request))
    }

    /// Returns `cfg` with this counter set to `count`, a value [`Counter::count`] computed
    /// earlier.
    pub fn apply(self, cfg: SDC_CFG, count: TimeoutCount) -> SDC_CFG {
        let value = count.value;
        // The count saturates at the field maximum; a value the field refused would saturate
        // the same way, never leave the old count.
        match self {
            Self::Data => cfg
                .try_with_dtoc(value)
                .unwrap_or(cfg.with_const_dtoc::<DTOC_MAX>()),
            Self::Busy => cfg
                .try_with_wrdtoc(value)
                .unwrap_or(cfg.with_const_wrdtoc::<WRDTOC_MAX>()),
        }
    }
}
