// SPDX-License-Identifier: GPL-2.0

//! The bridge from the C `struct mmc_host_ops` to the safe [`HostOps`] trait.

use core::{marker::PhantomData, ptr::NonNull};

use kernel::{
    error::{to_result, VTABLE_DEFAULT_ERROR},
    ffi,
    prelude::*,
};

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

    /// The host has left the MMC core (`mmc_remove_host` returned): its card is gone and the
    /// core calls nothing more. The driver silences the hardware here, so that no interrupt
    /// asks for a rescan or signals an SDIO card on a host about to be freed.
    fn removed(&self, _host: &Host) {}

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

    /// Finds the sample points for the current timing (HS200 with CMD21, SD UHS-I with
    /// CMD19, `opcode`), sending the tuning commands through `bus`. An error leaves the
    /// card at a timing the host cannot use; the core then gives up that timing.
    fn execute_tuning(&self, _host: &Host, _bus: &TuningBus<'_>, _opcode: u32) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// The core tuned HS200 and is about to switch the eMMC to HS400.
    fn prepare_hs400_tuning(&self, _host: &Host, _ios: &Ios) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// The eMMC runs HS400: finds the data-strobe sample point, reading EXT_CSD through
    /// `card`.
    fn execute_hs400_tuning(&self, _host: &Host, _card: &TuningCard<'_>) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Turns HS400 enhanced strobe on or off, as `ios.enhanced_strobe` says (the core has
    /// no way to hear of a failure).
    fn hs400_enhanced_strobe(&self, _host: &Host, _ios: &Ios) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

/// The bus while the core runs a host's `execute_tuning`: the core has claimed the host for
/// the tuning, which is what allows the driver to send tuning commands itself.
///
/// # Invariants
///
/// `host` is a registered host claimed by the core for the lifetime `'a`.
pub struct TuningBus<'a> {
    host: NonNull<bindings::mmc_host>,
    _claimed: PhantomData<&'a Host>,
}

/// How one tuning command fared: its response, and the whole exchange (response, data
/// block and the block's contents against the pattern).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TuningExchange {
    /// The command's response came back without error.
    pub response_ok: bool,
    /// The response and a tuning block equal to the pattern came back.
    pub block_ok: bool,
}

impl TuningBus<'_> {
    /// Sends one tuning command (`opcode`: CMD19 or CMD21) and checks the tuning block the
    /// card returns against the pattern for the bus width.
    pub fn send_tuning(&self, opcode: u32) -> TuningExchange {
        let mut cmd_error: ffi::c_int = 0;
        // SAFETY: by the type invariant the host is registered and claimed; `cmd_error`
        // lives across the call.
        let err = unsafe { bindings::mmc_send_tuning(self.host.as_ptr(), opcode, &mut cmd_error) };
        TuningExchange {
            response_ok: cmd_error == 0,
            block_ok: err == 0,
        }
    }
}

/// The card while the core runs a host's `execute_hs400_tuning`.
///
/// # Invariants
///
/// `card` is the card being initialised on a host the core has claimed, for `'a`.
pub struct TuningCard<'a> {
    card: NonNull<bindings::mmc_card>,
    _claimed: PhantomData<&'a Host>,
}

impl TuningCard<'_> {
    /// Reads the card's EXT_CSD (CMD8, one 512-byte block) and throws it away: `Ok` only
    /// if the block arrived intact, which is what a data-strobe delay is judged by.
    pub fn read_ext_csd(&self) -> Result {
        let mut ext_csd: *mut u8 = core::ptr::null_mut();
        // SAFETY: by the type invariant the card is alive and its host claimed.
        to_result(unsafe { bindings::mmc_get_ext_csd(self.card.as_ptr(), &mut ext_csd) })?;
        // SAFETY: on success `mmc_get_ext_csd` handed over a kmalloc'ed buffer, freed once.
        unsafe { kernel::bindings::kfree(ext_csd.cast()) };
        Ok(())
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
        execute_tuning: optional_op!(T::HAS_EXECUTE_TUNING, Self::execute_tuning),
        prepare_hs400_tuning: optional_op!(T::HAS_PREPARE_HS400_TUNING, Self::prepare_hs400_tuning),
        execute_hs400_tuning: optional_op!(T::HAS_EXECUTE_HS400_TUNING, Self::execute_hs400_tuning),
        hs400_enhanced_strobe: optional_op!(
            T::HAS_HS400_ENHANCED_STROBE,
            Self::hs400_enhanced_strobe
        ),
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

    /// Runs `f` on the driver data, the host and the bus settings of a callback that
    /// passes `ios`; `None` for a null `ios`.
    ///
    /// # Safety
    ///
    /// `host` is a host set up by `Registration::<T>::new`, not yet removed, and `ios`
    /// is null or valid, both for the duration of the call.
    unsafe fn with_ios<R>(
        host: *mut bindings::mmc_host,
        ios: *mut bindings::mmc_ios,
        f: impl FnOnce(&T, &Host, &Ios) -> R,
    ) -> Option<R> {
        // SAFETY: by the caller's promise `ios` is null or valid.
        let ios = unsafe { ios.as_ref() }?;
        // SAFETY: by the caller's promise this is a registered host of type `T`.
        let (data, view) = unsafe { (Self::data(host), Host::from_raw(host)) };
        Some(f(data, view, &Ios::from_raw(ios)))
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
        // SAFETY: the MMC core's arguments, valid for the call.
        unsafe { Self::with_ios(host, ios, |data, view, ios| data.set_ios(view, ios)) };
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
        // SAFETY: the MMC core's arguments, valid for the call.
        let result = unsafe {
            Self::with_ios(host, ios, |data, view, ios| {
                data.start_signal_voltage_switch(view, ios)
            })
        };
        match result.unwrap_or(Err(EINVAL)) {
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

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, which the core has claimed for the tuning.
    unsafe extern "C" fn execute_tuning(host: *mut bindings::mmc_host, opcode: u32) -> ffi::c_int {
        let Some(host_ptr) = NonNull::new(host) else {
            return EINVAL.to_errno();
        };
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        let (data, view) = unsafe { (Self::data(host), Host::from_raw(host)) };
        // INVARIANT: the core claimed the host for the duration of this callback.
        let bus = TuningBus {
            host: host_ptr,
            _claimed: PhantomData,
        };
        match data.execute_tuning(view, &bus, opcode) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with arguments valid for the duration of the call.
    unsafe extern "C" fn prepare_hs400_tuning(
        host: *mut bindings::mmc_host,
        ios: *mut bindings::mmc_ios,
    ) -> ffi::c_int {
        // SAFETY: the MMC core's arguments, valid for the call.
        let result = unsafe {
            Self::with_ios(host, ios, |data, view, ios| {
                data.prepare_hs400_tuning(view, ios)
            })
        };
        match result.unwrap_or(Err(EINVAL)) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, which it has claimed to initialise `card`.
    unsafe extern "C" fn execute_hs400_tuning(
        host: *mut bindings::mmc_host,
        card: *mut bindings::mmc_card,
    ) -> ffi::c_int {
        let Some(card) = NonNull::new(card) else {
            return EINVAL.to_errno();
        };
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        let (data, view) = unsafe { (Self::data(host), Host::from_raw(host)) };
        // INVARIANT: the core initialises `card` with the host claimed for this callback.
        let card = TuningCard {
            card,
            _claimed: PhantomData,
        };
        match data.execute_hs400_tuning(view, &card) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with arguments valid for the duration of the call.
    unsafe extern "C" fn hs400_enhanced_strobe(
        host: *mut bindings::mmc_host,
        ios: *mut bindings::mmc_ios,
    ) {
        // SAFETY: the MMC core's arguments, valid for the call.
        unsafe {
            Self::with_ios(host, ios, |data, view, ios| {
                data.hs400_enhanced_strobe(view, ios)
            })
        };
    }
}
