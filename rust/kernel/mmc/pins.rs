// SPDX-License-Identifier: GPL-2.0

//! Pin states of the controller's pads (`pinctrl-names`): "default" for 3.3 V signalling,
//! "state_uhs" for 1.8 V modes, "state_eint" while the SDIO interrupt is a GPIO, "sleep"
//! while the controller is runtime-suspended.

use core::ptr::NonNull;

use kernel::{device::Device, prelude::*};

#[cfg(CONFIG_PINCTRL)]
use kernel::error::to_result;

#[cfg(CONFIG_PINCTRL)]
use super::bindings;

/// A pad configuration the device tree names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PinState {
    /// "default": 3.3 V signalling.
    Default,
    /// "state_uhs": 1.8 V signalling (UHS-I, HS200, HS400).
    Uhs,
    /// "state_eint": the DAT1 pad as an interrupt line (SDIO wake-up).
    Eint,
    /// "sleep": the pads while the controller is suspended.
    Sleep,
}

/// The device's pin control handle and the states it defines.
///
/// # Invariants
///
/// `pinctrl` and the states were returned by the pin control core for `dev`, are managed
/// by it (devm) and stay valid while the device is bound; this value is only used while
/// the MMC host it serves is registered, which ends before the device unbinds.
pub struct Pins {
    #[cfg(CONFIG_PINCTRL)]
    pinctrl: Option<NonNull<kernel::ffi::c_void>>,
    states: [Option<NonNull<kernel::ffi::c_void>>; 4],
}

// SAFETY: pin control calls may be made from any thread; the core locks internally.
unsafe impl Send for Pins {}
// SAFETY: see `Send`; `select` only reads the handles.
unsafe impl Sync for Pins {}

impl Pins {
    /// The names the binding gives the states, indexed like [`PinState`].
    #[cfg(CONFIG_PINCTRL)]
    const NAMES: [&'static CStr; 4] = [c"default", c"state_uhs", c"state_eint", c"sleep"];

    /// Looks up the device's pin states. A device tree without `pinctrl-0` yields no
    /// states: the pads stay as the firmware set them.
    #[cfg(CONFIG_PINCTRL)]
    pub fn get(dev: &Device) -> Result<Self> {
        // `Device` is a `#[repr(transparent)]` wrapper of the C `struct device`.
        let raw = core::ptr::from_ref(dev)
            .cast_mut()
            .cast::<bindings::device>();
        // SAFETY: `raw` is a live device; the handle is devm-managed.
        let pinctrl = unsafe { bindings::devm_pinctrl_get(raw) };
        match kernel::error::from_err_ptr(pinctrl) {
            Ok(p) if !p.is_null() => {
                let mut states = [None; 4];
                for (slot, name) in states.iter_mut().zip(Self::NAMES) {
                    // SAFETY: `p` is a live pin control handle; `name` is NUL-terminated.
                    let state = unsafe { bindings::pinctrl_lookup_state(p, name.as_char_ptr()) };
                    *slot = kernel::error::from_err_ptr(state)
                        .ok()
                        .and_then(|s| NonNull::new(s.cast()));
                }
                // INVARIANT: handles from the pin control core for `dev`.
                return Ok(Self {
                    pinctrl: NonNull::new(p.cast()),
                    states,
                });
            }
            Ok(_) => {}
            Err(e) if e == ENODEV => {}
            Err(e) => return Err(e),
        }
        Ok(Self::NONE)
    }

    /// Without pin control the pads stay as the firmware set them.
    #[cfg(not(CONFIG_PINCTRL))]
    pub fn get(_dev: &Device) -> Result<Self> {
        Ok(Self::NONE)
    }

    /// No pin control handle and no states.
    const NONE: Self = Self {
        #[cfg(CONFIG_PINCTRL)]
        pinctrl: None,
        states: [None; 4],
    };

    /// Whether the device tree defines `state`.
    pub fn has(&self, state: PinState) -> bool {
        self.states[state as usize].is_some()
    }

    /// Applies `state`; a state the device tree does not define is not an error, the pads
    /// then stay as they are.
    #[cfg(CONFIG_PINCTRL)]
    pub fn select(&self, state: PinState) -> Result {
        let (Some(p), Some(s)) = (self.pinctrl, self.states[state as usize]) else {
            return Ok(());
        };
        // SAFETY: by the type invariant both handles are alive and belong together.
        to_result(unsafe { bindings::pinctrl_select_state(p.as_ptr().cast(), s.as_ptr().cast()) })
    }

    /// Without pin control no state is defined: nothing to apply.
    #[cfg(not(CONFIG_PINCTRL))]
    pub fn select(&self, _state: PinState) -> Result {
        Ok(())
    }
}
