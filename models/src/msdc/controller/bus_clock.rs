// SPDX-License-Identifier: GPL-2.0
//! The card bus as `MSDC_CFG` and `SDC_CFG` program it: the clock fields in the SoC's
//! divider layout, the bus clock they give, double data rate, the data width, and whether
//! the clock is within the card's limit.

use super::super::{
    regs::{BusWidth, ClockMode, MSDC_CFG},
    slot::{BusSetting, CardSlot},
};
use super::{MsdcModel, Violation};

/// The clock fields of `MSDC_CFG` in the layout the SoC uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ClockSetting {
    div: u32,
    pub(super) mode: ClockMode,
    hs400: bool,
}

impl MsdcModel {
    /// The bus as `MSDC_CFG` and `SDC_CFG` program it now.
    pub(super) fn bus_setting(&self) -> BusSetting {
        BusSetting {
            hz: self.bus_clock_hz(),
            width: self.host_bus_width(),
            ddr: self.double_data_rate(),
        }
    }

    /// The clock fields of `cfg` in the SoC's divider layout.
    pub(super) fn clock_setting(&self, cfg: MSDC_CFG) -> ClockSetting {
        if self.config.divider_12bit {
            ClockSetting {
                div: cfg.ckdiv_extra(),
                mode: cfg.ckmod_extra(),
                hs400: cfg.hs400_ck_mode_extra(),
            }
        } else {
            ClockSetting {
                div: cfg.ckdiv(),
                mode: cfg.ckmod(),
                hs400: cfg.hs400_ck_mode(),
            }
        }
    }

    /// Whether `MSDC_CFG` selects a double data rate clock mode (DDR or HS400).
    pub(super) fn double_data_rate(&self) -> bool {
        matches!(
            self.clock_setting(self.cfg).mode,
            ClockMode::Ddr | ClockMode::Hs400
        )
    }

    /// The bus clock `MSDC_CFG` selects, in Hz (what the card sees while a command runs);
    /// 0 while the source clock is gated or the power is off.
    ///
    /// CKMOD 0 divides: CKDIV 0 gives source/2, otherwise source/(4 × CKDIV). CKMOD 1 passes
    /// the source through. CKMOD 2 (DDR) and 3 (HS400) give source/4 for CKDIV 0, otherwise
    /// source/(8 × CKDIV); HS400 with HS400_CK_MODE gives source/2.
    pub fn bus_clock_hz(&self) -> u32 {
        if !self.clocked() {
            return 0;
        }
        let src = self.config.source_hz;
        let ClockSetting { div, mode, hs400 } = self.clock_setting(self.cfg);
        match (mode, div) {
            (ClockMode::Undivided, _) => src,
            (ClockMode::Divided, 0) => src / 2,
            (ClockMode::Divided, d) => src / d.saturating_mul(4),
            (ClockMode::Hs400, _) if hs400 => src / 2,
            (_, 0) => src / 4,
            (_, d) => src / d.saturating_mul(8),
        }
    }

    /// Whether the bus clock is within what `card` allows; records a violation if not.
    pub(super) fn clock_ok<C: CardSlot + ?Sized>(&mut self, card: &C) -> bool {
        let hz = self.bus_clock_hz();
        match card.max_clock_hz() {
            Some(max) if hz > max => {
                self.violation(Violation::ClockTooFast { hz, max });
                false
            }
            _ => true,
        }
    }

    /// The data lines `SDC_CFG` selects (0 for the reserved encoding).
    pub(super) fn host_bus_width(&self) -> u8 {
        self.sdc_cfg.buswidth().map_or(0, BusWidth::lines)
    }
}
