// SPDX-License-Identifier: GPL-2.0

//! Bus settings (`struct mmc_ios`) as the host driver sees them.

use super::bindings;

/// Power state the MMC core asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerMode {
    /// Power off the card.
    Off,
    /// Ramp the supply up; the clock stays off.
    Up,
    /// Powered and clocked.
    On,
    /// A value this layer does not know; treated as "leave as is".
    Undefined,
}

/// A snapshot of the bus settings the MMC core passed to `set_ios`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ios {
    /// Bus clock in Hz; 0 gates the clock.
    pub clock_hz: u32,
    /// Requested power state.
    pub power_mode: PowerMode,
    /// Data bus width in lines: 1, 4 or 8.
    pub bus_width: u8,
    /// `MMC_TIMING_*` value.
    pub timing: u8,
    /// `MMC_SIGNAL_VOLTAGE_*` value.
    pub signal_voltage: u8,
    /// Supply voltage bit number (`fls(ocr) - 1`).
    pub vdd: u16,
    /// HS400 enhanced strobe is selected (`ios.enhanced_strobe`).
    pub enhanced_strobe: bool,
}

impl Ios {
    /// Copies the settings out of the core's `struct mmc_ios`.
    pub(super) fn from_raw(ios: &bindings::mmc_ios) -> Self {
        let power_mode = match u32::from(ios.power_mode) {
            bindings::MMC_POWER_OFF => PowerMode::Off,
            bindings::MMC_POWER_UP => PowerMode::Up,
            bindings::MMC_POWER_ON => PowerMode::On,
            _ => PowerMode::Undefined,
        };
        let bus_width = match u32::from(ios.bus_width) {
            bindings::MMC_BUS_WIDTH_8 => 8,
            bindings::MMC_BUS_WIDTH_4 => 4,
            _ => 1,
        };
        Self {
            clock_hz: ios.clock,
            power_mode,
            bus_width,
            timing: ios.timing,
            signal_voltage: ios.signal_voltage,
            vdd: ios.vdd,
            enhanced_strobe: ios.enhanced_strobe,
        }
    }
}
