// SPDX-License-Identifier: GPL-2.0

//! Power management of the controller's device, which 7.3's kernel crate does not wrap:
//! the runtime-PM policy (autosuspend) and references, and the power callbacks of a
//! platform driver (runtime suspend and resume, and system sleep through them).
//!
//! The MMC core takes and drops runtime PM references on the host's parent device around
//! every claim of the host, so the controller only runtime-suspends while the core has
//! nothing in flight. System sleep forces the device through the same runtime callbacks
//! (`pm_runtime_force_suspend`/`_resume`), as upstream mtk-sd does.

use core::marker::PhantomData;

use kernel::{
    device::{self, Bound, Device},
    driver::{DriverLayout, RegistrationOps},
    error::from_result,
    ffi::c_int,
    platform,
    prelude::*,
    sync::aref::ARef,
    types::Opaque,
    ThisModule,
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

/// What a platform driver does when its device's power goes and comes back.
///
/// The callbacks get the driver's bound data. They are never called before `probe` has
/// returned it or after the driver unbound (the callbacks then find no data and refuse to
/// suspend): [`PlatformDriver`] holds the device active from `unbind` until its data is
/// gone.
pub trait PowerOps: platform::Driver + 'static {
    /// Runtime suspend: the device's clocks, and possibly its power domain, go off after
    /// this returns. An error keeps the device active (`EBUSY`: try again later).
    fn runtime_suspend(this: Pin<&Self::Data<'_>>) -> Result;

    /// Runtime resume: the power domain is back on (registers possibly at their reset
    /// values); the device is in use once this returns.
    fn runtime_resume(this: Pin<&Self::Data<'_>>) -> Result;

    /// System sleep, before the device is forced through [`PowerOps::runtime_suspend`] (if
    /// it is not runtime-suspended already).
    fn system_suspend(this: Pin<&Self::Data<'_>>) -> Result {
        let _ = this;
        Ok(())
    }

    /// System resume, after the device was forced back through
    /// [`PowerOps::runtime_resume`] (if it was active before the sleep).
    fn system_resume(this: Pin<&Self::Data<'_>>) {
        let _ = this;
    }
}

/// The platform driver `T` with `T`'s power callbacks: register it as
/// `kernel::driver::Registration<PlatformDriver<T>>` in place of `platform::Adapter<T>`.
pub struct PlatformDriver<T>(PhantomData<T>);

/// `T` as the platform adapter sees it: the same driver, whose `unbind` first holds the
/// device active so that no power callback runs while the bound data goes away.
pub struct Guarded<T>(PhantomData<T>);

impl<T: PowerOps> platform::Driver for Guarded<T> {
    type IdInfo = T::IdInfo;
    type Data<'bound> = T::Data<'bound>;
    const OF_ID_TABLE: Option<kernel::of::IdTable<Self::IdInfo>> = T::OF_ID_TABLE;
    const ACPI_ID_TABLE: Option<kernel::acpi::IdTable<Self::IdInfo>> = T::ACPI_ID_TABLE;

    fn probe<'bound>(
        dev: &'bound platform::Device<device::Core<'_>>,
        id_info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self::Data<'bound>, Error> + 'bound {
        T::probe(dev, id_info)
    }

    fn unbind<'bound>(
        dev: &'bound platform::Device<device::Core<'_>>,
        this: Pin<&Self::Data<'bound>>,
    ) {
        hold_until_unbound(dev.as_ref());
        T::unbind(dev, this);
    }
}

// SAFETY: the layout is `platform::Adapter`'s (the same C `struct platform_driver`, the
// same offset of its `struct device_driver`); the bound data is `T::Data`, as
// `Guarded<T>` stores it.
unsafe impl<T: PowerOps> DriverLayout for PlatformDriver<T> {
    type DriverType = kernel::bindings::platform_driver;
    type DriverData<'bound> = T::Data<'bound>;
    const DEVICE_DRIVER_OFFSET: usize =
        <platform::Adapter<Guarded<T>> as DriverLayout>::DEVICE_DRIVER_OFFSET;
}

// SAFETY: `unregister` is `platform::Adapter`'s, valid after its `register` succeeded.
unsafe impl<T: PowerOps> RegistrationOps for PlatformDriver<T> {
    unsafe fn register(
        reg: &Opaque<Self::DriverType>,
        name: &'static CStr,
        module: &'static ThisModule,
    ) -> Result {
        // SAFETY: the driver is not registered yet, so its fields may be written;
        // `PM_OPS` is a promoted constant (`'static`), and the adapter's `register` sets
        // other fields only.
        unsafe { (*reg.get()).driver.pm = &Self::PM_OPS };
        // SAFETY: forwarded from the caller: `reg` stays pinned until `unregister`.
        unsafe { <platform::Adapter<Guarded<T>> as RegistrationOps>::register(reg, name, module) }
    }

    unsafe fn unregister(reg: &Opaque<Self::DriverType>) {
        // SAFETY: forwarded from the caller: `register` succeeded for `reg`.
        unsafe { <platform::Adapter<Guarded<T>> as RegistrationOps>::unregister(reg) }
    }
}

#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
impl<T: PowerOps> PlatformDriver<T> {
    /// What the runtime resume callback answers for `dev`, for the KUnit suites: a device
    /// without this driver's data (a faux device, say) shows the unbound answer.
    pub fn runtime_resume_answer(dev: &Device<Bound>) -> c_int {
        // `Device` is a `#[repr(transparent)]` wrapper of the C `struct device`, which is
        // alive and bound for as long as `dev` is.
        Self::runtime_resume_callback(core::ptr::from_ref(dev).cast_mut().cast())
    }
}

impl<T: PowerOps> PlatformDriver<T> {
    /// `SYSTEM_SLEEP_PM_OPS` and `RUNTIME_PM_OPS` of upstream drivers: hibernation's
    /// freeze/thaw/poweroff/restore take the system sleep path as well.
    const PM_OPS: kernel::bindings::dev_pm_ops = kernel::bindings::dev_pm_ops {
        suspend: Some(Self::system_suspend_callback),
        resume: Some(Self::system_resume_callback),
        freeze: Some(Self::system_suspend_callback),
        thaw: Some(Self::system_resume_callback),
        poweroff: Some(Self::system_suspend_callback),
        restore: Some(Self::system_resume_callback),
        runtime_suspend: Some(Self::runtime_suspend_callback),
        runtime_resume: Some(Self::runtime_resume_callback),
        // SAFETY: all zeroes is a `dev_pm_ops` without the other callbacks.
        ..unsafe { core::mem::zeroed() }
    };

    /// The driver's data bound to `dev`, if the driver is bound.
    ///
    /// # Safety
    ///
    /// `dev` is a live device of this driver, and the PM core calls one of its callbacks
    /// for it.
    unsafe fn data<'a>(dev: *mut kernel::bindings::device) -> Option<Pin<&'a T::Data<'a>>> {
        // SAFETY: `dev` is live (the caller's guarantee).
        let data = unsafe { kernel::bindings::dev_get_drvdata(dev) };
        if data.is_null() {
            // Probe has not returned yet, or the data is gone (unbind).
            return None;
        }
        // SAFETY: the platform adapter stores a pinned `KBox<T::Data>` as the driver data
        // once probe succeeded and frees it only after unbind, from which on
        // `Guarded::unbind` holds the device active until the data is gone and the driver
        // data is NULL: the PM core runs no callback of this device in that time, so the
        // data outlives this callback.
        Some(unsafe { Pin::new_unchecked(&*data.cast::<T::Data<'a>>()) })
    }

    extern "C" fn runtime_suspend_callback(dev: *mut kernel::bindings::device) -> c_int {
        // SAFETY: the PM core calls this for a live device of this driver.
        match unsafe { Self::data(dev) } {
            Some(data) => from_result(|| T::runtime_suspend(data).map(|()| 0)),
            // Nothing bound: stay as it is until there is.
            None => EBUSY.to_errno(),
        }
    }

    extern "C" fn runtime_resume_callback(dev: *mut kernel::bindings::device) -> c_int {
        // SAFETY: the PM core calls this for a live device of this driver.
        match unsafe { Self::data(dev) } {
            Some(data) => from_result(|| T::runtime_resume(data).map(|()| 0)),
            // Nothing bound can turn the clocks on: the device stays suspended rather than
            // being recorded active over gated clocks. `EAGAIN` leaves runtime PM usable.
            None => EAGAIN.to_errno(),
        }
    }

    extern "C" fn system_suspend_callback(dev: *mut kernel::bindings::device) -> c_int {
        // SAFETY: the PM core calls this for a live device of this driver.
        if let Some(data) = unsafe { Self::data(dev) } {
            if let Err(e) = T::system_suspend(data) {
                return e.to_errno();
            }
        }
        force_suspend(dev)
    }

    extern "C" fn system_resume_callback(dev: *mut kernel::bindings::device) -> c_int {
        let ret = force_resume(dev);
        // SAFETY: the PM core calls this for a live device of this driver.
        if let Some(data) = unsafe { Self::data(dev) } {
            T::system_resume(data);
        }
        ret
    }
}

// The two helpers below are the system sleep callbacks' only: the PM core calls those
// only with `CONFIG_PM_SLEEP` (which selects `CONFIG_PM`), and `pm_runtime_force_resume`
// is a function only then (a `static inline` stub without it, which bindgen omits).

/// Forces a device that is not runtime-suspended through its runtime suspend.
#[cfg(CONFIG_PM_SLEEP)]
fn force_suspend(dev: *mut kernel::bindings::device) -> c_int {
    // SAFETY: `dev` is live: the PM core is calling its system suspend.
    unsafe { kernel::bindings::pm_runtime_force_suspend(dev) }
}

/// Without system sleep the PM core never calls the system suspend callback.
#[cfg(not(CONFIG_PM_SLEEP))]
fn force_suspend(_dev: *mut kernel::bindings::device) -> c_int {
    0
}

/// Brings a device that [`force_suspend`] took down back up.
#[cfg(CONFIG_PM_SLEEP)]
fn force_resume(dev: *mut kernel::bindings::device) -> c_int {
    // SAFETY: `dev` is live: the PM core is calling its system resume.
    unsafe { kernel::bindings::pm_runtime_force_resume(dev) }
}

/// Without system sleep the PM core never calls the system resume callback.
#[cfg(not(CONFIG_PM_SLEEP))]
fn force_resume(_dev: *mut kernel::bindings::device) -> c_int {
    0
}

/// Gives back the usage reference [`hold_until_unbound`] took, after runtime PM was disabled.
#[cfg(CONFIG_PM)]
struct UnboundRelease(*mut bindings::device);

// SAFETY: the PM core's usage counter may be dropped from any thread.
#[cfg(CONFIG_PM)]
unsafe impl Send for UnboundRelease {}

#[cfg(CONFIG_PM)]
impl Drop for UnboundRelease {
    fn drop(&mut self) {
        // SAFETY: the device outlives its devres; this drops the reference
        // `hold_until_unbound` took. The idle check it queues finds no driver data (the
        // callbacks then refuse to suspend) or is cancelled when runtime PM is disabled
        // next.
        unsafe {
            bindings::__pm_runtime_idle(
                self.0,
                (bindings::RPM_GET_PUT | bindings::RPM_ASYNC) as i32,
            )
        };
    }
}

/// Resumes `dev` and holds it active until its devres is released, which comes after the
/// driver's data is dropped: no runtime suspend races the unbinding.
#[cfg(CONFIG_PM)]
fn hold_until_unbound(dev: &Device<device::Core<'_>>) {
    let raw = raw(dev);
    // SAFETY: `raw` is a bound device; the reference is dropped by `UnboundRelease`.
    let ret = unsafe { bindings::__pm_runtime_resume(raw, bindings::RPM_GET_PUT as i32) };
    if ret < 0 {
        dev_warn!(
            dev,
            "runtime resume at unbind failed: {:?}\n",
            Error::from_errno(ret)
        );
    }
    // The hold stays taken even if the resume failed: no suspend can start either way.
    let release = UnboundRelease(raw);
    if kernel::devres::register(dev, release, GFP_KERNEL).is_err() {
        // Without the devres entry the reference is never dropped; the device stays
        // active (harmless: it is unbinding), but say so.
        dev_warn!(dev, "runtime PM reference kept after unbind\n");
    }
}

/// Without runtime PM no suspend can race the unbinding.
#[cfg(not(CONFIG_PM))]
fn hold_until_unbound(_dev: &Device<device::Core<'_>>) {}

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
            // This restarts the autosuspend delay from now; then the reference `get` took
            // goes back.
            mark_last_busy(raw);
            // SAFETY: as above.
            unsafe {
                bindings::__pm_runtime_suspend(
                    raw,
                    (bindings::RPM_GET_PUT | bindings::RPM_ASYNC | bindings::RPM_AUTO) as i32,
                );
            }
        }
    }
}

/// A runtime PM usage reference taken without sleeping, from any context: the device,
/// active when it is taken (as under the MMC core's host claim), stays active until this
/// is dropped, e.g. while an SDIO card's interrupt is enabled, which the controller only
/// sees while it runs (upstream's `pm_runtime_get_noresume` in `enable_sdio_irq`).
pub struct UsageHold {
    dev: ARef<Device>,
}

impl UsageHold {
    /// Takes the reference; a device that was suspended after all is resumed
    /// asynchronously.
    pub fn take(dev: &Device) -> Self {
        #[cfg(CONFIG_PM)]
        // SAFETY: `dev` is alive; `RPM_GET_PUT` takes the usage reference that `drop`
        // gives back, and `RPM_ASYNC` never sleeps.
        unsafe {
            bindings::__pm_runtime_resume(
                raw(dev),
                (bindings::RPM_GET_PUT | bindings::RPM_ASYNC) as i32,
            );
        }
        Self { dev: dev.into() }
    }
}

impl Drop for UsageHold {
    fn drop(&mut self) {
        #[cfg(CONFIG_PM)]
        {
            let raw = raw(&self.dev);
            mark_last_busy(raw);
            // SAFETY: gives back the reference `take` took; asynchronous, so any context.
            unsafe {
                bindings::__pm_runtime_suspend(
                    raw,
                    (bindings::RPM_GET_PUT | bindings::RPM_ASYNC | bindings::RPM_AUTO) as i32,
                );
            }
        }
    }
}

/// A device made able to wake the system, with that enabled (`device_init_wakeup(dev,
/// true)`), for a device whose dedicated wake-up interrupt the platform describes; dropping
/// this undoes both (`device_init_wakeup(dev, false)`), so that the next probe of the
/// device, after an unbind or a module reload, can register its wake-up source again.
pub struct WakeupSource {
    #[cfg(CONFIG_PM_SLEEP)]
    dev: ARef<Device>,
}

impl WakeupSource {
    /// Makes `dev` a wake-up source, enabled.
    pub fn init(dev: &Device) -> Result<Self> {
        #[cfg(CONFIG_PM_SLEEP)]
        {
            // SAFETY: `dev` is alive.
            unsafe { bindings::device_set_wakeup_capable(raw(dev), true) };
            // SAFETY: as above; the device is wakeup-capable now.
            if let Err(e) = to_result(unsafe { bindings::device_wakeup_enable(raw(dev)) }) {
                // SAFETY: as above; the capability set just now is taken back.
                unsafe { bindings::device_set_wakeup_capable(raw(dev), false) };
                return Err(e);
            }
            Ok(Self { dev: dev.into() })
        }
        #[cfg(not(CONFIG_PM_SLEEP))]
        {
            let _ = dev;
            Ok(Self {})
        }
    }
}

impl Drop for WakeupSource {
    fn drop(&mut self) {
        #[cfg(CONFIG_PM_SLEEP)]
        // SAFETY: `init` enabled the device's wake-up source and made it capable; the
        // device is alive (`self.dev` holds it).
        unsafe {
            bindings::device_wakeup_disable(raw(&self.dev));
            bindings::device_set_wakeup_capable(raw(&self.dev), false);
        }
    }
}

/// A dedicated wake-up interrupt of a runtime-suspended device
/// (`dev_pm_set_dedicated_wake_irq_reverse`): armed by the PM core after the device's
/// runtime suspend callback, it resumes the device when it fires; dropping this frees it
/// (`dev_pm_clear_wake_irq`), which may sleep.
pub struct DedicatedWakeIrq {
    dev: ARef<Device>,
}

impl DedicatedWakeIrq {
    /// Registers interrupt `irq` as `dev`'s wake-up interrupt. Sleeps (it requests the
    /// interrupt).
    /// Without runtime PM there is no runtime suspend to wake from (`ENODEV`).
    pub fn set(dev: &Device, irq: u32) -> Result<Self> {
        #[cfg(CONFIG_PM)]
        {
            let irq = c_int::try_from(irq)?;
            // SAFETY: `dev` is alive; the PM core owns the interrupt it requests until
            // `dev_pm_clear_wake_irq` in `drop`.
            to_result(unsafe { bindings::dev_pm_set_dedicated_wake_irq_reverse(raw(dev), irq) })?;
            Ok(Self { dev: dev.into() })
        }
        #[cfg(not(CONFIG_PM))]
        {
            let _ = (dev, irq);
            Err(ENODEV)
        }
    }
}

impl Drop for DedicatedWakeIrq {
    fn drop(&mut self) {
        #[cfg(CONFIG_PM)]
        // SAFETY: `set` registered the wake-up interrupt of this device.
        unsafe {
            bindings::dev_pm_clear_wake_irq(raw(&self.dev))
        };
    }
}

/// `pm_runtime_mark_last_busy()`: records now as the device's last use, for the autosuspend
/// delay. The C function is an inline `WRITE_ONCE()`, read with `READ_ONCE()` by the PM
/// core without a lock: a volatile store is the same access (a plain store could be torn
/// or merged by the compiler).
#[cfg(CONFIG_PM)]
fn mark_last_busy(raw: *mut bindings::device) {
    // SAFETY: `raw` is a live device; `last_busy` is written only this way, as the PM core
    // expects.
    unsafe {
        let now = bindings::ktime_get_mono_fast_ns();
        core::ptr::write_volatile(core::ptr::addr_of_mut!((*raw).power.last_busy), now);
    }
}
