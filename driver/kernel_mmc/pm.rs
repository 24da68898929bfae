// SPDX-License-Identifier: GPL-2.0

//! Runtime power management of the controller's device, which 7.3's kernel crate does not
//! wrap. The MMC core takes and drops runtime PM references on the host's parent device
//! around every claim of the host; the driver sets the policy (autosuspend) and holds a
//! reference of its own while it touches the hardware outside a claim.

use kernel::{
    device::{Bound, Device},
    prelude::*,
};

#[cfg(CONFIG_PM)]
use kernel::error::to_result;

#[cfg(CONFIG_PM)]
use super::bindings;

#[cfg(CONFIG_PM)]
fn raw(dev: &Device) -> *mut bindings::device {
    // `Device` is a `#[repr(transparent)]` wrapper of the C `struct device`.
    core::ptr::from_ref(dev).cast_mut().cast()
}

/// Marks the device active, lets it suspend `delay_ms` after its last use, and enables
/// runtime PM until the driver unbinds (devm).
#[cfg(CONFIG_PM)]
pub fn enable_autosuspend(dev: &Device<Bound>, delay_ms: i32) -> Result {
    let raw = raw(dev);
    // SAFETY: `raw` is a bound device; runtime PM is not enabled for it yet, so its
    // status may be set, and the devm action undoes the enabling on unbind.
    unsafe {
        to_result(bindings::__pm_runtime_set_status(
            raw,
            bindings::rpm_status_RPM_ACTIVE as u32,
        ))?;
        bindings::pm_runtime_set_autosuspend_delay(raw, delay_ms);
        bindings::__pm_runtime_use_autosuspend(raw, true);
        to_result(bindings::devm_pm_runtime_enable(raw))
    }
}

/// Without runtime PM the device stays powered while it is bound: nothing to set up.
#[cfg(not(CONFIG_PM))]
pub fn enable_autosuspend(_dev: &Device<Bound>, _delay_ms: i32) -> Result {
    Ok(())
}

/// Whether the device is powered (active, or runtime PM disabled).
#[cfg(CONFIG_PM)]
pub fn is_active(dev: &Device) -> bool {
    // SAFETY: `dev` is alive; the fields are read as `pm_runtime_active()` reads them.
    unsafe {
        let power = &(*raw(dev)).power;
        power.runtime_status == bindings::rpm_status_RPM_ACTIVE || power.disable_depth() != 0
    }
}

/// Without runtime PM a bound device is always powered.
#[cfg(not(CONFIG_PM))]
pub fn is_active(_dev: &Device) -> bool {
    true
}

/// A runtime PM reference: the device stays active while this lives; dropping it starts
/// the autosuspend delay.
pub struct ActiveReference<'a> {
    dev: &'a Device,
}

impl<'a> ActiveReference<'a> {
    /// Resumes the device (sleeping if needed) and holds it active.
    pub fn get(dev: &'a Device) -> Result<Self> {
        #[cfg(CONFIG_PM)]
        {
            // SAFETY: `dev` is alive; `RPM_GET_PUT` takes the usage reference that `drop`
            // gives back, also when resuming fails.
            let ret =
                unsafe { bindings::__pm_runtime_resume(raw(dev), bindings::RPM_GET_PUT as i32) };
            if ret < 0 {
                // SAFETY: as above: drop the reference the failed resume took.
                unsafe { bindings::__pm_runtime_idle(raw(dev), bindings::RPM_GET_PUT as i32) };
                return Err(Error::from_errno(ret));
            }
        }
        Ok(Self { dev })
    }
}

impl Drop for ActiveReference<'_> {
    fn drop(&mut self) {
        #[cfg(CONFIG_PM)]
        {
            let raw = raw(self.dev);
            // SAFETY: `raw` is alive; this gives back the reference `get` took and
            // restarts the autosuspend timer from now.
            unsafe {
                (*raw).power.last_busy = bindings::ktime_get_mono_fast_ns();
                bindings::__pm_runtime_suspend(
                    raw,
                    (bindings::RPM_GET_PUT | bindings::RPM_ASYNC | bindings::RPM_AUTO) as i32,
                );
            }
        }
    }
}
