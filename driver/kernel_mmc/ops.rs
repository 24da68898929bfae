// SPDX-License-Identifier: GPL-2.0

//! The bridge from the C `struct mmc_host_ops` to the safe [`HostOps`] trait.

use core::ptr::NonNull;

use kernel::{error::VTABLE_DEFAULT_ERROR, ffi, prelude::*};

use super::{
    bindings,
    host::Host,
    ios::Ios,
    request::{unmap_ahead, PreparedData, Request, Route},
};

/// What a host driver does when the MMC core calls it.
///
/// Callbacks may run concurrently from the block layer, the core's detect work and
/// the driver's own interrupt handler, hence `Sync`.
#[vtable]
pub trait HostOps: Send + Sync + Sized {
    /// Starts `request`; the driver completes it later through [`Request::complete`].
    fn request(&self, host: &Host, request: Request);

    /// The core is preparing a request it will issue later (`pre_req`): the driver may map
    /// its data now ([`PreparedData::map_ahead`]). The layer undoes that mapping in
    /// `post_req` (and `cqe_post_req`) once the request has completed.
    fn pre_req(&self, _host: &Host, _data: &mut PreparedData<'_>) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Applies bus settings: clock, power, bus width, timing.
    fn set_ios(&self, host: &Host, ios: &Ios);

    /// Whether a card is in the slot. Hosts that cannot tell leave it out.
    fn get_cd(&self, _host: &Host) -> bool {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Whether the card is write protected. Hosts that cannot tell leave it out.
    fn get_ro(&self, _host: &Host) -> bool {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Whether the card holds DAT0 low (busy).
    fn card_busy(&self, _host: &Host) -> bool {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Pulses the eMMC hardware reset line (RST_n).
    fn card_hw_reset(&self, _host: &Host) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Moves the bus to the signal voltage in `ios` (CMD11 for SD, or an eMMC mode change).
    fn start_signal_voltage_switch(&self, _host: &Host, _ios: &Ios) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Turns the SDIO card interrupt on or off.
    fn enable_sdio_irq(&self, _host: &Host, _enable: bool) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// The core ran the SDIO interrupt handlers after [`Host::signal_sdio_irq`]: re-arm
    /// the interrupt. Hosts that signal SDIO interrupts must provide it.
    fn ack_sdio_irq(&self, _host: &Host) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

/// The `mmc_host_ops` table for host type `T`.
pub(super) struct OpsTable<T: HostOps>(core::marker::PhantomData<T>);

impl<T: HostOps> OpsTable<T> {
    const TABLE: bindings::mmc_host_ops = bindings::mmc_host_ops {
        request: Some(Self::request),
        pre_req: optional_op!(T::HAS_PRE_REQ, Self::pre_req),
        post_req: optional_op!(T::HAS_PRE_REQ, Self::post_req),
        set_ios: Some(Self::set_ios),
        get_cd: optional_op!(T::HAS_GET_CD, Self::get_cd),
        get_ro: optional_op!(T::HAS_GET_RO, Self::get_ro),
        card_busy: optional_op!(T::HAS_CARD_BUSY, Self::card_busy),
        card_hw_reset: optional_op!(T::HAS_CARD_HW_RESET, Self::card_hw_reset),
        start_signal_voltage_switch: optional_op!(
            T::HAS_START_SIGNAL_VOLTAGE_SWITCH,
            Self::start_signal_voltage_switch
        ),
        enable_sdio_irq: optional_op!(T::HAS_ENABLE_SDIO_IRQ, Self::enable_sdio_irq),
        ack_sdio_irq: optional_op!(T::HAS_ACK_SDIO_IRQ, Self::ack_sdio_irq),
        // SAFETY: every other member is an `Option` of a function pointer, for which
        // all-zero bytes mean `None`: the MMC core treats those operations as absent.
        ..unsafe { core::mem::zeroed() }
    };

    /// The table, for `mmc_host::ops`.
    pub(super) const fn build() -> &'static bindings::mmc_host_ops {
        &Self::TABLE
    }

    /// The driver data of a host registered by [`super::Registration`].
    ///
    /// # Safety
    ///
    /// `host` must be a host set up by `Registration::<T>::new`, not yet removed.
    pub(super) unsafe fn data<'a>(host: *mut bindings::mmc_host) -> &'a T {
        // SAFETY: `Registration::new` stored a pointer to the pinned `T` in the host's
        // private area before adding the host, and the `T` outlives `mmc_remove_host`,
        // after which the core makes no more calls.
        unsafe { &*(*host).private.as_ptr().cast::<*const T>().read() }
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with arguments valid for the duration of the call.
    unsafe extern "C" fn request(host: *mut bindings::mmc_host, mrq: *mut bindings::mmc_request) {
        let (Some(host_ptr), Some(mrq)) = (NonNull::new(host), NonNull::new(mrq)) else {
            return;
        };
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        let (data, view) = unsafe { (Self::data(host), Host::from_raw(host)) };
        // SAFETY: these are the callback's own arguments, wrapped once.
        match unsafe { Request::from_raw(host_ptr, mrq, Route::Request) } {
            Some(request) => data.request(view, request),
            // `mmc_request_done` needs the command: nothing can complete this request.
            None => kernel::pr_err!("the MMC core sent a request without a command\n"),
        }
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with a request it has not issued yet.
    unsafe extern "C" fn pre_req(host: *mut bindings::mmc_host, mrq: *mut bindings::mmc_request) {
        let Some(host_ptr) = NonNull::new(host) else {
            return;
        };
        // SAFETY: `mrq` is the core's, live for the call and not with the driver yet.
        let Some(mrq) = (unsafe { mrq.as_mut() }) else {
            return;
        };
        // SAFETY: `data` is null or points to the request's live data.
        let Some(data_raw) = (unsafe { mrq.data.as_mut() }) else {
            return;
        };
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        let (data, view) = unsafe { (Self::data(host), Host::from_raw(host)) };
        // SAFETY: the callback's own arguments.
        let mut prepared = unsafe { PreparedData::from_raw(host_ptr, data_raw) };
        data.pre_req(view, &mut prepared);
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with a request that completed.
    unsafe extern "C" fn post_req(
        host: *mut bindings::mmc_host,
        mrq: *mut bindings::mmc_request,
        _err: ffi::c_int,
    ) {
        let (Some(host), Some(mrq)) = (NonNull::new(host), NonNull::new(mrq)) else {
            return;
        };
        // SAFETY: the core passes a live request it got back from the driver.
        unsafe { unmap_ahead(host, mrq) };
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with arguments valid for the duration of the call.
    unsafe extern "C" fn set_ios(host: *mut bindings::mmc_host, ios: *mut bindings::mmc_ios) {
        // SAFETY: `ios` is valid for the duration of the callback.
        let Some(ios) = (unsafe { ios.as_ref() }) else {
            return;
        };
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        let (data, view) = unsafe { (Self::data(host), Host::from_raw(host)) };
        data.set_ios(view, &Ios::from_raw(ios));
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with arguments valid for the duration of the call.
    unsafe extern "C" fn get_cd(host: *mut bindings::mmc_host) -> ffi::c_int {
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        let (data, view) = unsafe { (Self::data(host), Host::from_raw(host)) };
        ffi::c_int::from(data.get_cd(view))
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with arguments valid for the duration of the call.
    unsafe extern "C" fn get_ro(host: *mut bindings::mmc_host) -> ffi::c_int {
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        let (data, view) = unsafe { (Self::data(host), Host::from_raw(host)) };
        ffi::c_int::from(data.get_ro(view))
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with arguments valid for the duration of the call.
    unsafe extern "C" fn card_busy(host: *mut bindings::mmc_host) -> ffi::c_int {
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        let (data, view) = unsafe { (Self::data(host), Host::from_raw(host)) };
        ffi::c_int::from(data.card_busy(view))
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed.
    unsafe extern "C" fn card_hw_reset(host: *mut bindings::mmc_host) {
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        let (data, view) = unsafe { (Self::data(host), Host::from_raw(host)) };
        data.card_hw_reset(view);
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with arguments valid for the duration of the call.
    unsafe extern "C" fn start_signal_voltage_switch(
        host: *mut bindings::mmc_host,
        ios: *mut bindings::mmc_ios,
    ) -> ffi::c_int {
        // SAFETY: `ios` is valid for the duration of the callback.
        let Some(ios) = (unsafe { ios.as_ref() }) else {
            return EINVAL.to_errno();
        };
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        let (data, view) = unsafe { (Self::data(host), Host::from_raw(host)) };
        match data.start_signal_voltage_switch(view, &Ios::from_raw(ios)) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed.
    unsafe extern "C" fn enable_sdio_irq(host: *mut bindings::mmc_host, enable: ffi::c_int) {
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        let (data, view) = unsafe { (Self::data(host), Host::from_raw(host)) };
        data.enable_sdio_irq(view, enable != 0);
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed.
    unsafe extern "C" fn ack_sdio_irq(host: *mut bindings::mmc_host) {
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        let (data, view) = unsafe { (Self::data(host), Host::from_raw(host)) };
        data.ack_sdio_irq(view);
    }
}
