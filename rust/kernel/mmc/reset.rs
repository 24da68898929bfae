// SPDX-License-Identifier: GPL-2.0

//! The controller's optional reset line ("hrst"), pulsed once at probe.

use kernel::{device::Device, prelude::*};

#[cfg(CONFIG_RESET_CONTROLLER)]
use kernel::{
    error::to_result,
    time::{delay::fsleep, Delta},
};

#[cfg(CONFIG_RESET_CONTROLLER)]
use super::bindings;

/// How long the reset is held, in µs (the controller needs a few bus cycles).
#[cfg(CONFIG_RESET_CONTROLLER)]
const HOLD_US: i64 = 50;

/// Pulses the device's optional exclusive reset `name`; without one, does nothing.
/// Returns whether there was a reset line.
#[cfg(CONFIG_RESET_CONTROLLER)]
pub fn pulse_optional_reset(dev: &Device, name: &CStr) -> Result<bool> {
    // `Device` is a `#[repr(transparent)]` wrapper of the C `struct device`.
    let raw = core::ptr::from_ref(dev)
        .cast_mut()
        .cast::<bindings::device>();
    // SAFETY: `raw` is a live device; the reset control is devm-managed.
    let rstc = unsafe {
        bindings::__devm_reset_control_get(
            raw,
            name.as_char_ptr(),
            0,
            bindings::reset_control_flags_RESET_CONTROL_OPTIONAL_EXCLUSIVE,
        )
    };
    let rstc = kernel::error::from_err_ptr(rstc)?;
    if rstc.is_null() {
        return Ok(false);
    }
    // SAFETY: `rstc` is a live, exclusively acquired reset control of `dev`.
    to_result(unsafe { bindings::reset_control_assert(rstc) })?;
    fsleep(Delta::from_micros(HOLD_US));
    // SAFETY: as above.
    to_result(unsafe { bindings::reset_control_deassert(rstc) })?;
    Ok(true)
}

/// Without the reset controller framework no device has a reset line.
#[cfg(not(CONFIG_RESET_CONTROLLER))]
pub fn pulse_optional_reset(_dev: &Device, _name: &CStr) -> Result<bool> {
    Ok(false)
}
