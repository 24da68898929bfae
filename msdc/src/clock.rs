// SPDX-License-Identifier: GPL-2.0

//! Choosing the MSDC card clock divider for a requested bus rate and timing.
//!
//! The card clock derives from the source clock (`src`) in one of four `CKMOD` modes:
//!
//! | mode | divider field `d` | card clock |
//! |---|---|---|
//! | undivided | ignored | `src` |
//! | divided | 0 | `src / 2` |
//! | divided | `d >= 1` | `src / (4 * d)` |
//! | DDR / HS400 | 0 | `src / 4` |
//! | DDR / HS400 | `d >= 1` | `src / (8 * d)` |
//! | HS400 with `HS400_CK_MODE` | ignored | `src / 2` |
//!
//! [`plan`] picks the fastest setting that does not exceed the request. Rates are whole
//! hertz, rounded down, as the MMC core's `actual_clock` is.
//!
//! The upstream C driver computes the DDR divider as `ceil(src / (4 * hz)) / 2`, which
//! rounds the wrong way when `ceil(src / (4 * hz))` is odd: a request of 20 MHz from a
//! 200 MHz source then runs the card at 25 MHz while reporting 16.7 MHz. This module
//! rounds the DDR divider itself up instead.

use super::arith::{div_ceil_u64, div_u64};
use super::regs::{ClockMode, MSDC_CFG};
use crate::registers::FieldOverflow;

/// Width of the `MSDC_CFG` divider field, a per-SoC property (`clk_div_bits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DividerWidth {
    /// `CKDIV` 15:8, `CKMOD` 17:16, `HS400_CK_MODE` 18 (MT8173 and older).
    Bits8,
    /// `CKDIV_EXTRA` 19:8, `CKMOD_EXTRA` 21:20, `HS400_CK_MODE_EXTRA` 22.
    Bits12,
}

impl DividerWidth {
    /// Maps the per-SoC `clk_div_bits` value (8 or 12).
    pub const fn from_bits(bits: u32) -> Option<Self> {
        match bits {
            8 => Some(Self::Bits8),
            12 => Some(Self::Bits12),
            _ => None,
        }
    }

    /// The per-SoC `clk_div_bits` value of this width, as [`DividerWidth::from_bits`] takes it.
    pub const fn bits(self) -> u32 {
        match self {
            Self::Bits8 => 8,
            Self::Bits12 => 12,
        }
    }

    /// Largest divider value: the divider field of this width, all ones.
    pub const fn max_divider(self) -> u32 {
        let all_ones = MSDC_CFG::from_raw(u32::MAX);
        match self {
            Self::Bits8 => all_ones.ckdiv(),
            Self::Bits12 => all_ones.ckdiv_extra(),
        }
    }

    /// The slowest single data rate clock the divider reaches, rounded up; this is the
    /// host's `f_min`, so every request the MMC core makes can be met.
    pub const fn minimum_clock_hz(self, source_hz: u32) -> u32 {
        // `max_divider` is at most 4095, so the product cannot overflow.
        source_hz.div_ceil(4 * self.max_divider())
    }

    /// Reads the clock mode currently programmed in `cfg`.
    pub fn mode_of(self, cfg: MSDC_CFG) -> ClockMode {
        match self {
            Self::Bits8 => cfg.ckmod(),
            Self::Bits12 => cfg.ckmod_extra(),
        }
    }
}

/// Bus timing, the MMC core's `MMC_TIMING_*` values that an MSDC host can be asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// `MMC_TIMING_LEGACY`.
    Legacy,
    /// `MMC_TIMING_MMC_HS`.
    MmcHighSpeed,
    /// `MMC_TIMING_SD_HS`.
    SdHighSpeed,
    /// `MMC_TIMING_UHS_SDR12`.
    UhsSdr12,
    /// `MMC_TIMING_UHS_SDR25`.
    UhsSdr25,
    /// `MMC_TIMING_UHS_SDR50`.
    UhsSdr50,
    /// `MMC_TIMING_UHS_SDR104`.
    UhsSdr104,
    /// `MMC_TIMING_UHS_DDR50`.
    UhsDdr50,
    /// `MMC_TIMING_MMC_DDR52`.
    MmcDdr52,
    /// `MMC_TIMING_MMC_HS200`.
    MmcHs200,
    /// `MMC_TIMING_MMC_HS400`.
    MmcHs400,
}

impl Timing {
    /// Maps an `MMC_TIMING_*` value; SD Express and UHS-II timings have no MSDC clock mode.
    pub const fn from_mmc(timing: u32) -> Option<Self> {
        use crate::mmc_request::timing::*;
        Some(match timing {
            MMC_TIMING_LEGACY => Self::Legacy,
            MMC_TIMING_MMC_HS => Self::MmcHighSpeed,
            MMC_TIMING_SD_HS => Self::SdHighSpeed,
            MMC_TIMING_UHS_SDR12 => Self::UhsSdr12,
            MMC_TIMING_UHS_SDR25 => Self::UhsSdr25,
            MMC_TIMING_UHS_SDR50 => Self::UhsSdr50,
            MMC_TIMING_UHS_SDR104 => Self::UhsSdr104,
            MMC_TIMING_UHS_DDR50 => Self::UhsDdr50,
            MMC_TIMING_MMC_DDR52 => Self::MmcDdr52,
            MMC_TIMING_MMC_HS200 => Self::MmcHs200,
            MMC_TIMING_MMC_HS400 => Self::MmcHs400,
            _ => return None,
        })
    }

    /// Whether the timing moves data on both clock edges.
    pub const fn is_double_data_rate(self) -> bool {
        matches!(self, Self::UhsDdr50 | Self::MmcDdr52 | Self::MmcHs400)
    }
}

/// Why no clock setting could be chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockError {
    /// The source clock rate is zero.
    NoSourceClock,
    /// Even the largest divider runs faster than requested.
    BelowMinimum {
        /// The smallest request this timing can meet.
        minimum_hz: u32,
    },
}

/// A running card clock: the `MSDC_CFG` fields and the rate they produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockSetting {
    /// `CKMOD` value.
    pub mode: ClockMode,
    /// `CKDIV` value; 0 in the undivided and HS400 half-source settings.
    pub divider: u32,
    /// `HS400_CK_MODE`: the HS400 clock is half the source clock, ignoring the divider.
    pub hs400_half_source: bool,
    /// The resulting card clock in hertz, rounded down; never above the request.
    pub bus_hz: u32,
}

impl ClockSetting {
    /// Returns `cfg` with the mode, divider and HS400 flag of this setting, leaving every
    /// other bit alone. `CKPDN` and the `CKSTB` wait stay with the caller.
    ///
    /// A divider wider than the field of `width` is refused.
    pub fn apply(self, cfg: MSDC_CFG, width: DividerWidth) -> Result<MSDC_CFG, FieldOverflow> {
        Ok(match width {
            DividerWidth::Bits8 => cfg
                .with_ckmod(self.mode)
                .try_with_ckdiv(self.divider)?
                .with_hs400_ck_mode(self.hs400_half_source),
            DividerWidth::Bits12 => cfg
                .with_ckmod_extra(self.mode)
                .try_with_ckdiv_extra(self.divider)?
                .with_hs400_ck_mode_extra(self.hs400_half_source),
        })
    }

    /// The clock the data and busy timeout counters run on.
    pub fn timeout_clock(self) -> Option<TimeoutClock> {
        TimeoutClock::new(self.bus_hz, self.mode.is_double_data_rate())
    }
}

/// What to do with the card clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockPlan {
    /// A 0 Hz request: stop the card clock by clearing `MSDC_CFG.CKPDN`.
    Gated,
    /// Program this setting.
    Running(ClockSetting),
}

impl ClockPlan {
    /// The card clock rate this plan produces (`mmc->actual_clock`).
    pub const fn bus_hz(self) -> u32 {
        match self {
            Self::Gated => 0,
            Self::Running(setting) => setting.bus_hz,
        }
    }

    /// The clock the timeout counters run on; `None` while gated.
    pub fn timeout_clock(self) -> Option<TimeoutClock> {
        match self {
            Self::Gated => None,
            Self::Running(setting) => setting.timeout_clock(),
        }
    }
}

/// The clock the `SDC_CFG` timeout counters count, as the timeout module needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeoutClock {
    period_ns: u32,
    double_data_rate: bool,
}

impl TimeoutClock {
    /// The timeout clock of a card clock at `bus_hz`; `None` for a stopped clock.
    ///
    /// The period is rounded down to whole nanoseconds, as upstream does, which can only
    /// make timeouts longer. Rates above 1 GHz count as a 1 ns period instead of dividing
    /// by zero.
    pub const fn new(bus_hz: u32, double_data_rate: bool) -> Option<Self> {
        if bus_hz == 0 {
            return None;
        }
        let period_ns = 1_000_000_000 / bus_hz;
        Some(Self {
            period_ns: if period_ns == 0 { 1 } else { period_ns },
            double_data_rate,
        })
    }

    /// One timeout clock period in whole nanoseconds, at least 1.
    pub const fn period_ns(self) -> u32 {
        self.period_ns
    }

    /// Whether the card clock runs in a DDR mode, which doubles the counts.
    pub const fn double_data_rate(self) -> bool {
        self.double_data_rate
    }
}

/// Chooses the card clock setting for `requested_hz` in `timing`.
///
/// `requested_hz == 0` gates the clock. The chosen rate never exceeds the request; a
/// request below the slowest reachable rate is an error rather than a faster clock.
pub fn plan(
    source_hz: u32,
    requested_hz: u32,
    timing: Timing,
    width: DividerWidth,
) -> Result<ClockPlan, ClockError> {
    if requested_hz == 0 {
        return Ok(ClockPlan::Gated);
    }
    if source_hz == 0 {
        return Err(ClockError::NoSourceClock);
    }

    let setting = if timing.is_double_data_rate() {
        double_data_rate(source_hz, requested_hz, timing, width)?
    } else {
        single_data_rate(source_hz, requested_hz, width)?
    };
    Ok(ClockPlan::Running(setting))
}

fn single_data_rate(
    source_hz: u32,
    requested_hz: u32,
    width: DividerWidth,
) -> Result<ClockSetting, ClockError> {
    if requested_hz >= source_hz {
        return Ok(ClockSetting {
            mode: ClockMode::Undivided,
            divider: 0,
            hs400_half_source: false,
            bus_hz: source_hz,
        });
    }
    if requested_hz >= source_hz >> 1 {
        return Ok(ClockSetting {
            mode: ClockMode::Divided,
            divider: 0,
            hs400_half_source: false,
            bus_hz: source_hz >> 1,
        });
    }
    let (divider, bus_hz) = divide(source_hz, requested_hz, 4, width)?;
    Ok(ClockSetting {
        mode: ClockMode::Divided,
        divider,
        hs400_half_source: false,
        bus_hz,
    })
}

fn double_data_rate(
    source_hz: u32,
    requested_hz: u32,
    timing: Timing,
    width: DividerWidth,
) -> Result<ClockSetting, ClockError> {
    let mode = if timing == Timing::MmcHs400 {
        ClockMode::Hs400
    } else {
        ClockMode::Ddr
    };
    if timing == Timing::MmcHs400 && requested_hz >= source_hz >> 1 {
        return Ok(ClockSetting {
            mode,
            divider: 0,
            hs400_half_source: true,
            bus_hz: source_hz >> 1,
        });
    }
    if requested_hz >= source_hz >> 2 {
        return Ok(ClockSetting {
            mode,
            divider: 0,
            hs400_half_source: false,
            bus_hz: source_hz >> 2,
        });
    }
    let (divider, bus_hz) = divide(source_hz, requested_hz, 8, width)?;
    Ok(ClockSetting {
        mode,
        divider,
        hs400_half_source: false,
        bus_hz,
    })
}

/// Smallest divider `d` with `source / (scale * d) <= requested`, and that rate.
fn divide(
    source_hz: u32,
    requested_hz: u32,
    scale: u32,
    width: DividerWidth,
) -> Result<(u32, u32), ClockError> {
    let source = u64::from(source_hz);
    // Both factors are below 2^32, so the product fits.
    let step = u64::from(scale) * u64::from(requested_hz);
    let max = width.max_divider();
    let divider = div_ceil_u64(source, step).unwrap_or(u64::MAX);
    if divider > u64::from(max) {
        let slowest = u64::from(scale) * u64::from(max);
        let minimum_hz = div_ceil_u64(source, slowest).unwrap_or(0);
        return Err(ClockError::BelowMinimum {
            minimum_hz: u32::try_from(minimum_hz).unwrap_or(u32::MAX),
        });
    }
    let bus_hz = div_u64(source, u64::from(scale) * divider).unwrap_or(0);
    // `divider <= max <= 4095` and `bus_hz <= source_hz`, so both conversions succeed.
    Ok((
        u32::try_from(divider).unwrap_or(max),
        u32::try_from(bus_hz).unwrap_or(0),
    ))
}
