// SPDX-License-Identifier: GPL-2.0

//! Ownership of a `struct mmc_host` from allocation through registration to release, and
//! the [`Host`] view that callbacks and interrupt handlers use to talk to the MMC core.

use core::{
    mem::size_of,
    ptr::{self, NonNull},
};

use kernel::{
    device::{Device, DeviceContext},
    error::to_result,
    prelude::*,
    sync::aref::{ARef, AlwaysRefCounted},
    time::msecs_to_jiffies,
    types::Opaque,
};

use super::{
    bindings,
    cqe::{CqeOps, CqeOpsTable},
    ops::{HostOps, OpsTable},
};
use crate::mmc_request::ErrorStat;

/// A host known to the MMC core, as the driver's callbacks see it.
///
/// # Invariants
///
/// The wrapped `mmc_host` was returned by `mmc_alloc_host()` and is alive: either borrowed
/// from a core callback, or kept alive by a reference on its class device ([`ARef<Host>`]).
#[repr(transparent)]
pub struct Host(Opaque<bindings::mmc_host>);

// SAFETY: the MMC core's host functions used here may be called from any thread.
unsafe impl Send for Host {}
// SAFETY: every method takes `&self` and calls core functions that do their own locking.
unsafe impl Sync for Host {}

// SAFETY: a host's lifetime is that of its class device: `get_device`/`put_device` keep it
// alive, and `mmc_host_classdev_release` frees it when the last reference goes.
unsafe impl AlwaysRefCounted for Host {
    fn inc_ref(&self) {
        // SAFETY: by the type invariant the host is alive, so is its class device.
        unsafe { kernel::bindings::get_device(self.class_dev()) };
    }

    unsafe fn dec_ref(obj: NonNull<Self>) {
        // SAFETY: the caller owns one reference on the host's class device.
        unsafe { kernel::bindings::put_device(obj.as_ref().class_dev()) };
    }
}

/// Whether `ptr` is a C `ERR_PTR()` or NULL, as the regulator lookups return them.
fn is_err_or_null<T>(ptr: *mut T) -> bool {
    ptr.is_null() || (ptr as usize) >= (-(kernel::bindings::MAX_ERRNO as isize)) as usize
}

impl Host {
    /// Views a host the MMC core passed to a callback.
    ///
    /// # Safety
    ///
    /// `host` must be alive for `'a`.
    pub(super) unsafe fn from_raw<'a>(host: *mut bindings::mmc_host) -> &'a Self {
        // SAFETY: `Host` is a transparent wrapper; the caller guarantees liveness.
        unsafe { &*host.cast::<Self>() }
    }

    pub(super) fn as_raw(&self) -> *mut bindings::mmc_host {
        self.0.get()
    }

    fn class_dev(&self) -> *mut kernel::bindings::device {
        // SAFETY: by the type invariant the host is alive; `class_dev` is a plain member.
        unsafe { ptr::addr_of_mut!((*self.as_raw()).class_dev).cast() }
    }

    /// The host's index, as in `mmcN`.
    pub fn index(&self) -> i32 {
        // SAFETY: by the type invariant the host is alive.
        unsafe { (*self.as_raw()).index }
    }

    /// Capability bits (`MMC_CAP_*`), including those the device tree set.
    pub fn caps(&self) -> u32 {
        // SAFETY: by the type invariant the host is alive.
        unsafe { (*self.as_raw()).caps }
    }

    /// Second capability word (`MMC_CAP2_*`).
    pub fn caps2(&self) -> u32 {
        // SAFETY: by the type invariant the host is alive.
        unsafe { (*self.as_raw()).caps2 }
    }

    /// The bus settings the core last applied (`mmc_host::ios`), e.g. the timing a tuning
    /// is for.
    pub fn ios(&self) -> super::Ios {
        // SAFETY: by the type invariant the host is alive; the core changes `ios` only
        // with the host claimed, as it is while it calls the host's operations.
        super::Ios::from_raw(unsafe { &(*self.as_raw()).ios })
    }

    /// Counts an error in the core's statistics (`mmc_debugfs_err_stats_inc()`, read in
    /// debugfs `err_stats` and `err_state`).
    pub fn count_error(&self, stat: ErrorStat) {
        let index = match stat {
            ErrorStat::CommandTimeout => bindings::mmc_err_stat_MMC_ERR_CMD_TIMEOUT,
            ErrorStat::CommandCrc => bindings::mmc_err_stat_MMC_ERR_CMD_CRC,
            ErrorStat::DataTimeout => bindings::mmc_err_stat_MMC_ERR_DAT_TIMEOUT,
            ErrorStat::DataCrc => bindings::mmc_err_stat_MMC_ERR_DAT_CRC,
            ErrorStat::Dma => bindings::mmc_err_stat_MMC_ERR_ADMA,
            ErrorStat::RequestTimeout => bindings::mmc_err_stat_MMC_ERR_REQ_TIMEOUT,
            ErrorStat::ControllerTimeout => bindings::mmc_err_stat_MMC_ERR_CTRL_TIMEOUT,
            ErrorStat::QueueResponseError => bindings::mmc_err_stat_MMC_ERR_CMDQ_RED,
            ErrorStat::QueueCryptoError => bindings::mmc_err_stat_MMC_ERR_CMDQ_GCE,
            ErrorStat::QueueCryptoConfigError => bindings::mmc_err_stat_MMC_ERR_CMDQ_ICCE,
            ErrorStat::QueueRequestTimeout => bindings::mmc_err_stat_MMC_ERR_CMDQ_REQ_TIMEOUT,
        };
        // Each index above is below `MMC_ERR_MAX`, the array's length.
        let index = index as usize;
        // SAFETY: by the type invariant the host is alive and the index is in bounds. The
        // counters are plain `u32`s that the core reads (debugfs) and clears without a lock;
        // an unsynchronised increment, as the C inline helper does it.
        unsafe {
            let counter = ptr::addr_of_mut!((*self.as_raw()).err_stats[index]);
            ptr::write_volatile(counter, ptr::read_volatile(counter).wrapping_add(1));
        }
    }

    /// Asks the core to re-tune before its next request (`mmc_retune_needed()`): the
    /// sampling may have drifted, e.g. after the clock had to be programmed again. Does
    /// nothing for a card that is not re-tunable at its current timing (`can_retune`).
    pub fn retune_needed(&self) {
        let host = self.as_raw();
        // SAFETY: by the type invariant the host is alive; a load of a plain `bool` and a
        // store of a plain `int` that the core reads before its next request, as the C
        // inline helper does them.
        unsafe {
            if ptr::read_volatile(ptr::addr_of!((*host).can_retune)) {
                ptr::write_volatile(ptr::addr_of_mut!((*host).need_retune), 1);
            }
        }
    }

    /// Publishes how many requests the block layer may keep with the host software queue
    /// (`mmc_host::hsq_depth`, read by blk-mq without a lock, as the C queue writes it).
    pub fn set_hsq_depth(&self, depth: u8) {
        // SAFETY: by the type invariant the host is alive; a volatile store of a plain
        // `int` the block layer only reads.
        unsafe {
            ptr::write_volatile(
                ptr::addr_of_mut!((*self.as_raw()).hsq_depth),
                i32::from(depth),
            )
        };
    }

    /// Tells the core whether the command queue engine owns the bus (`mmc_host::cqe_on`):
    /// while it does, the core calls `cqe_off` before any command outside the queue.
    pub fn set_cqe_on(&self, on: bool) {
        // SAFETY: by the type invariant the host is alive; a volatile store of a plain
        // `bool` the core reads before its own commands.
        unsafe { ptr::write_volatile(ptr::addr_of_mut!((*self.as_raw()).cqe_on), on) };
    }

    /// Whether the core serves the card through the host's queue engine
    /// (`mmc_host::cqe_enabled`: `cqe_enable` succeeded for the card).
    #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
    pub fn cqe_enabled(&self) -> bool {
        // SAFETY: by the type invariant the host is alive; a volatile load of a plain
        // `bool` the core writes with the host claimed.
        unsafe { ptr::read_volatile(ptr::addr_of!((*self.as_raw()).cqe_enabled)) }
    }

    /// Whether that queue engine is a software queue (`mmc_host::hsq_enabled`).
    #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
    pub fn hsq_enabled(&self) -> bool {
        // SAFETY: as for `cqe_enabled`.
        unsafe { ptr::read_volatile(ptr::addr_of!((*self.as_raw()).hsq_enabled)) }
    }

    /// Asks the core to rescan the slot after `delay_ms` (card inserted or removed).
    pub fn detect_change(&self, delay_ms: u32) {
        // SAFETY: by the type invariant the host is alive; the core serialises rescans.
        unsafe { bindings::mmc_detect_change(self.as_raw(), msecs_to_jiffies(delay_ms)) };
    }

    /// Whether the core's card-detect work is queued or running (KUnit).
    #[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
    pub fn detect_work_busy(&self) -> bool {
        let raw = self.as_raw();
        // SAFETY: by the type invariant the host is alive and its work item initialised;
        // `work_busy` only reads the item's state.
        unsafe { kernel::bindings::work_busy(ptr::addr_of_mut!((*raw).detect.work).cast()) != 0 }
    }

    /// Tells the core an SDIO card raised its interrupt; the core runs the handlers.
    pub fn signal_sdio_irq(&self) {
        // SAFETY: by the type invariant the host is alive; callable from hard-IRQ context.
        unsafe { bindings::sdio_signal_irq(self.as_raw()) };
    }

    /// Whether an SDIO function driver has claimed the card's interrupt
    /// (`sdio_irq_claimed`).
    pub fn sdio_irq_claimed(&self) -> bool {
        // SAFETY: by the type invariant the host is alive; the core changes the count with
        // the host claimed, and a stale read only delays the decision it feeds.
        unsafe { (*self.as_raw()).sdio_irqs > 0 }
    }

    /// Whether the attached SDIO card signals its interrupt asynchronously (CCCR EAI set by
    /// the core: the card can wake a host whose clock is stopped); false without a card.
    pub fn card_async_irq(&self) -> bool {
        // SAFETY: by the type invariant the host is alive; `card` is set and cleared with
        // the host claimed, which the operations that ask this hold.
        let card = unsafe { (*self.as_raw()).card };
        // SAFETY: a non-null `card` is the host's attached card, alive as argued above.
        !card.is_null() && unsafe { (*card).cccr.enable_async_irq() } != 0
    }

    /// Power management capabilities (`MMC_PM_*`), from the device tree.
    pub fn pm_caps(&self) -> u32 {
        // SAFETY: by the type invariant the host is alive.
        unsafe { (*self.as_raw()).pm_caps }
    }

    /// Card presence from a `cd-gpios` line, or `None` without one.
    pub fn gpio_card_detect(&self) -> Option<bool> {
        // SAFETY: by the type invariant the host is alive.
        let state = unsafe { bindings::mmc_gpio_get_cd(self.as_raw()) };
        (state >= 0).then_some(state != 0)
    }

    /// Write protection from a `wp-gpios` line, or `None` without one.
    pub fn gpio_write_protect(&self) -> Option<bool> {
        // SAFETY: by the type invariant the host is alive.
        let state = unsafe { bindings::mmc_gpio_get_ro(self.as_raw()) };
        (state >= 0).then_some(state != 0)
    }

    /// Whether the device tree gave the slot a `vmmc-supply`.
    pub fn has_vmmc(&self) -> bool {
        // SAFETY: by the type invariant the host is alive.
        !is_err_or_null(unsafe { (*self.as_raw()).supply.vmmc })
    }

    /// Whether the device tree gave the slot a `vqmmc-supply`.
    pub fn has_vqmmc(&self) -> bool {
        // SAFETY: by the type invariant the host is alive.
        !is_err_or_null(unsafe { (*self.as_raw()).supply.vqmmc })
    }

    /// Sets the card supply for `vdd` (an `ios.vdd` bit number), or turns it off with
    /// `None`. Without a `vmmc-supply` there is nothing to do.
    pub fn set_vmmc(&self, vdd: Option<u16>) -> Result {
        if !self.has_vmmc() {
            return Ok(());
        }
        #[cfg(CONFIG_REGULATOR)]
        {
            let raw = self.as_raw();
            // SAFETY: by the type invariant the host is alive and `vmmc` is a valid
            // regulator.
            to_result(unsafe {
                bindings::mmc_regulator_set_ocr(raw, (*raw).supply.vmmc, vdd.unwrap_or(0))
            })
        }
        // Without regulator support no supply can have been found.
        #[cfg(not(CONFIG_REGULATOR))]
        {
            let _ = vdd;
            Ok(())
        }
    }

    /// Turns the I/O supply on (the core remembers whether it already is).
    pub fn enable_vqmmc(&self) -> Result {
        if !self.has_vqmmc() {
            return Ok(());
        }
        // SAFETY: by the type invariant the host is alive.
        to_result(unsafe { bindings::mmc_regulator_enable_vqmmc(self.as_raw()) })
    }

    /// Turns the I/O supply off.
    pub fn disable_vqmmc(&self) {
        if self.has_vqmmc() {
            // SAFETY: by the type invariant the host is alive.
            unsafe { bindings::mmc_regulator_disable_vqmmc(self.as_raw()) };
        }
    }

    /// Moves the I/O supply to the signal voltage in the host's current bus settings.
    /// `Ok(false)`: no `vqmmc-supply`, the voltage cannot change.
    pub fn switch_vqmmc_to_ios(&self) -> Result<bool> {
        if !self.has_vqmmc() {
            return Ok(false);
        }
        #[cfg(CONFIG_REGULATOR)]
        {
            let raw = self.as_raw();
            // SAFETY: by the type invariant the host is alive; the core calls the voltage
            // switch with its own `ios`, which is the one passed here.
            let ret =
                unsafe { bindings::mmc_regulator_set_vqmmc(raw, ptr::addr_of_mut!((*raw).ios)) };
            // A positive value means the voltage was already right.
            to_result(ret.min(0)).map(|()| true)
        }
        // Without regulator support no supply can have been found.
        #[cfg(not(CONFIG_REGULATOR))]
        Ok(false)
    }
}

/// A `struct mmc_host` allocated for a device and not added to the MMC core.
///
/// # Invariants
///
/// `host` points to a host returned by `mmc_alloc_host()` that this value owns:
/// nothing else frees it, and it is freed exactly once, on drop.
pub struct HostAllocation {
    host: NonNull<bindings::mmc_host>,
    private_bytes: usize,
}

/// Transfer limits the host declares to the block layer.
#[derive(Clone, Copy, Debug)]
pub struct TransferLimits {
    /// Scatter-gather segments per request.
    pub max_segments: u16,
    /// Bytes per segment.
    pub max_segment_size: u32,
    /// Bytes per block.
    pub max_block_size: u32,
    /// Blocks per request.
    pub max_block_count: u32,
    /// Bytes per request.
    pub max_request_size: u32,
    /// Longest busy wait the host can time in hardware, in ms (0: no limit known).
    pub max_busy_timeout_ms: u32,
}

// SAFETY: the host may be set up, registered and freed from any thread; `HostAllocation`
// hands out shared access only through `&self` methods that read plain fields.
unsafe impl Send for HostAllocation {}
// SAFETY: see `Send`; `&self` methods only read.
unsafe impl Sync for HostAllocation {}

impl HostAllocation {
    /// Allocates a host whose parent is `parent`, with `private_bytes` of private area.
    pub fn new<Ctx: DeviceContext>(parent: &Device<Ctx>, private_bytes: usize) -> Result<Self> {
        let requested = private_bytes;
        let private_bytes = i32::try_from(private_bytes)?;
        // `Device` is a `#[repr(transparent)]` wrapper of the C `struct device`.
        let parent = ptr::from_ref(parent).cast_mut().cast::<bindings::device>();
        // SAFETY: `parent` points to a live `struct device` for the duration of the call;
        // the MMC core takes its own reference on it for as long as the host exists.
        let host = unsafe { bindings::mmc_alloc_host(private_bytes, parent) };
        let host = NonNull::new(host).ok_or(ENOMEM)?;
        // INVARIANT: `host` was just returned by `mmc_alloc_host()` and is owned here.
        Ok(Self {
            host,
            private_bytes: requested,
        })
    }

    /// Allocates a host with room in its private area for a [`Registration`]'s data pointer.
    pub fn for_registration<Ctx: DeviceContext>(parent: &Device<Ctx>) -> Result<Self> {
        Self::new(parent, size_of::<*const ()>())
    }

    /// The host, for the queries and services of [`Host`].
    pub fn host(&self) -> &Host {
        // SAFETY: by the type invariant the host is alive as long as `self`.
        unsafe { Host::from_raw(self.host.as_ptr()) }
    }

    /// A counted reference that keeps the host's memory alive past its removal.
    pub fn host_ref(&self) -> ARef<Host> {
        ARef::from(self.host())
    }

    /// The host's index, as in `mmcN`.
    pub fn index(&self) -> i32 {
        self.host().index()
    }

    /// Capability bits (`MMC_CAP_*`).
    pub fn caps(&self) -> u32 {
        self.host().caps()
    }

    /// Reads the generic MMC properties of the parent's device tree node (bus width,
    /// `max-frequency`, `non-removable`, `cd-gpios`, `wp-gpios`, speed modes, ...) into the
    /// host's capabilities.
    pub fn parse_device_tree(&mut self) -> Result {
        // SAFETY: by the type invariant the host is alive and not yet added.
        to_result(unsafe { bindings::mmc_of_parse(self.host.as_ptr()) })
    }

    /// Looks up the `vmmc` and `vqmmc` supplies; the card voltages then follow `vmmc`.
    /// Absent supplies are not an error; a supply that is not ready yet defers the probe.
    pub fn get_regulators(&mut self) -> Result {
        // SAFETY: by the type invariant the host is alive and not yet added.
        to_result(unsafe { bindings::mmc_regulator_get_supply(self.host.as_ptr()) })
    }

    /// Adds capability bits on top of what the device tree set.
    pub fn add_caps(&mut self, caps: u32, caps2: u32) {
        let raw = self.host.as_ptr();
        // SAFETY: by the type invariant the host is alive and nobody else uses it yet.
        unsafe {
            (*raw).caps |= caps;
            (*raw).caps2 |= caps2;
        }
    }

    /// Removes capability bits (for example speed modes the controller lacks).
    pub fn remove_caps(&mut self, caps: u32, caps2: u32) {
        let raw = self.host.as_ptr();
        // SAFETY: by the type invariant the host is alive and nobody else uses it yet.
        unsafe {
            (*raw).caps &= !caps;
            (*raw).caps2 &= !caps2;
        }
    }

    /// Declares the transfer limits.
    pub fn set_limits(&mut self, limits: &TransferLimits) {
        let raw = self.host.as_ptr();
        // SAFETY: by the type invariant the host is alive and nobody else uses it yet.
        unsafe {
            (*raw).max_segs = limits.max_segments;
            (*raw).max_seg_size = limits.max_segment_size;
            (*raw).max_blk_size = limits.max_block_size;
            (*raw).max_blk_count = limits.max_block_count;
            (*raw).max_req_size = limits.max_request_size;
            (*raw).max_busy_timeout = limits.max_busy_timeout_ms;
        }
    }

    /// The `max-frequency` from the device tree, 0 if it gave none.
    pub fn max_frequency(&self) -> u32 {
        // SAFETY: by the type invariant the host is alive.
        unsafe { (*self.host.as_ptr()).f_max }
    }
}

impl Drop for HostAllocation {
    fn drop(&mut self) {
        // Requests the driver dropped uncompleted are failed from work items that complete
        // them on this host: let them finish while it is still allocated.
        super::request::wait_for_dropped_requests();
        // SAFETY: by the type invariant the host came from `mmc_alloc_host()`, is not
        // registered (a `Registration` removes it first) and is released once, here.
        unsafe { bindings::mmc_free_host(self.host.as_ptr()) };
    }
}

/// Limits and capabilities a host declares before it is added.
#[derive(Clone, Copy, Debug)]
pub struct HostSettings {
    /// Slowest bus clock, in Hz.
    pub min_frequency: u32,
    /// Fastest bus clock, in Hz.
    pub max_frequency: u32,
    /// Supported card voltages (`MMC_VDD_*` bits), used when no `vmmc-supply` set them.
    pub ocr_avail: u32,
    /// `MMC_CAP_*` bits, added to those already set.
    pub caps: u32,
    /// `MMC_CAP2_*` bits, added to those already set.
    pub caps2: u32,
    /// Tasks a command queue engine holds (`cqe_qdepth`; 0 for none or a software queue).
    pub queue_depth: u32,
}

/// A host added to the MMC core, calling into the driver data `T`.
///
/// # Invariants
///
/// The host is registered with the core, its `ops` are `OpsTable::<T>`, and its private
/// area holds a pointer to `data`, which stays pinned until the host is removed.
pub struct Registration<T: HostOps> {
    // After removal the driver data goes first: whatever it still holds may use the host.
    data: Pin<KBox<T>>,
    host: HostAllocation,
}

impl<T: HostOps> Registration<T> {
    /// Allocates a host for `parent`, sets it up and adds it to the MMC core.
    pub fn new<Ctx: DeviceContext>(
        parent: &Device<Ctx>,
        settings: &HostSettings,
        data: impl PinInit<T, Error>,
    ) -> Result<Self> {
        Self::add(HostAllocation::for_registration(parent)?, settings, data)
    }

    /// Adds a host prepared by the driver (device tree parsed, supplies looked up) to the
    /// MMC core. The core starts calling `data` (power up, card detect) before this returns.
    pub fn add(
        host: HostAllocation,
        settings: &HostSettings,
        data: impl PinInit<T, Error>,
    ) -> Result<Self> {
        Self::add_with(host, settings, data, core::ptr::null(), |_| Ok(()))
    }

    /// As [`Registration::add`], for a host whose requests may also go through a queue
    /// engine (`mmc_cqe_ops`): CQHCI hardware or the host software queue.
    pub fn add_with_queue(
        host: HostAllocation,
        settings: &HostSettings,
        data: impl PinInit<T, Error>,
    ) -> Result<Self>
    where
        T: CqeOps,
    {
        Self::add_with(host, settings, data, CqeOpsTable::<T>::build(), |_| Ok(()))
    }

    /// As [`Registration::add`], with one of the kernel's C queue engines (`mmc_hsq` or
    /// `cqhci`) as the host's `mmc_cqe_ops` instead of the driver's own (test kernels only).
    /// The engine is initialised once the driver data is reachable from the host (the C
    /// `cqhci` reads its registers through it) and before the host is added; a failure
    /// fails the registration.
    #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
    pub fn add_with_c_engine(
        host: HostAllocation,
        settings: &HostSettings,
        data: impl PinInit<T, Error>,
        engine: &super::CEngine,
    ) -> Result<Self>
    where
        T: super::CqhciVendorOps,
    {
        Self::add_with(host, settings, data, core::ptr::null(), |raw| {
            // SAFETY: `add_with` passes its host set up for `T` and not added yet.
            unsafe { engine.install::<T>(raw) }
        })
    }

    /// Sets the host up for `data` with `cqe_ops`, runs `install_engine` on it (a C queue
    /// engine's initialisation, which replaces `cqe_ops`), then adds it to the core.
    fn add_with(
        host: HostAllocation,
        settings: &HostSettings,
        data: impl PinInit<T, Error>,
        cqe_ops: *const bindings::mmc_cqe_ops,
        install_engine: impl FnOnce(*mut bindings::mmc_host) -> Result,
    ) -> Result<Self> {
        if host.private_bytes < size_of::<*const T>() {
            return Err(EINVAL);
        }
        let data = KBox::pin_init(data, GFP_KERNEL)?;
        let raw = host.host.as_ptr();
        // SAFETY: `raw` is a live host that no other thread uses yet; its private area has
        // room for one pointer (checked above) and is aligned for `unsigned long`.
        unsafe {
            (*raw)
                .private
                .as_mut_ptr()
                .cast::<*const T>()
                .write(ptr::from_ref(&*data));
            (*raw).ops = OpsTable::<T>::build();
            (*raw).cqe_ops = cqe_ops;
            if (*raw).f_min == 0 {
                (*raw).f_min = settings.min_frequency;
            }
            if (*raw).f_max == 0 || (*raw).f_max > settings.max_frequency {
                (*raw).f_max = settings.max_frequency;
            }
            if (*raw).ocr_avail == 0 {
                (*raw).ocr_avail = settings.ocr_avail;
            }
            (*raw).caps |= settings.caps;
            (*raw).caps2 |= settings.caps2;
            (*raw).cqe_qdepth = i32::try_from(settings.queue_depth).unwrap_or(0);
        }
        install_engine(raw)?;
        // SAFETY: the host is fully set up; on failure the core has undone everything
        // and the host can be freed by `HostAllocation`'s drop.
        to_result(unsafe { bindings::mmc_add_host(raw) })?;
        // INVARIANT: the host is registered with ops and private data set above.
        Ok(Self { host, data })
    }

    /// The host's index, as in `mmcN`.
    pub fn index(&self) -> i32 {
        self.host.index()
    }

    /// The host.
    pub fn host(&self) -> &Host {
        self.host.host()
    }

    /// The driver data.
    pub fn data(&self) -> &T {
        &self.data
    }
}

impl<T: HostOps> Drop for Registration<T> {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the host is registered; after this call the core
        // makes no more calls into `data`, which silences the hardware before the fields
        // drop (data, then host).
        unsafe { bindings::mmc_remove_host(self.host.host.as_ptr()) };
        // An event the driver raised between the removal and `removed()` may have queued
        // the core's card-detect or SDIO interrupt work again: harmless, the work finds the
        // host removed, and `mmc_free_host()` cancels both before the host can go.
        self.data.removed(self.host.host());
    }
}
