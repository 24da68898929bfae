// SPDX-License-Identifier: GPL-2.0

//! The SDIO function driver API for the board's test drivers: registering a driver, its
//! probe, remove and interrupt callbacks, and a function's accesses with its host claimed.

use core::pin::Pin;

use kernel::{error::to_result, ffi::c_int, prelude::*, types::Opaque};

use super::bindings;

/// An SDIO function driver of the board: what it does with the functions it binds.
pub(crate) trait SdioDriver: Sized + Send + Sync + 'static {
    /// The driver's name (`/sys/bus/sdio/drivers/<NAME>`).
    const NAME: &'static CStr;
    /// The vendor and device IDs of the functions it binds, whatever their interface class.
    const ID: (u16, u16);
    /// What the driver keeps for each function it binds.
    type Data: Send + Sync;

    /// Sets up a function the core matched and returns its data, which stays with the
    /// function until it is removed. An error fails the probe.
    fn probe(&self, func: &SdioFunc<Self>) -> Result<KBox<Self::Data>>;

    /// Goes on with the probe once the data is attached (its interrupt handler reaches it
    /// from then on). An error fails the probe, which releases the interrupt if it is still
    /// claimed and drops the data.
    fn start(&self, func: &SdioFunc<Self>, data: &Self::Data) -> Result;

    /// Handles the function's interrupt ([`SdioHost::claim_irq`]); the core holds the host.
    fn interrupt(&self, host: &SdioHost<'_, Self>, data: &Self::Data);
}

/// The SDIO bus's view of the class byte of a match entry that matches any class
/// (`(__u8)SDIO_ANY_ID`).
const SDIO_ANY_CLASS: u8 = u8::MAX;

/// An SDIO function driver's C structure, its match table and the Rust driver behind them.
#[repr(C)]
struct SdioDriverBox<T> {
    /// First, so that the C driver's address is the box's.
    driver: Opaque<bindings::sdio_driver>,
    /// The driver's match entry and the table's terminator.
    ids: [bindings::sdio_device_id; 2],
    ops: T,
}

/// A registered SDIO function driver; dropping it unregisters the driver, which removes
/// the functions it bound first.
pub(crate) struct SdioRegistration<T: SdioDriver> {
    inner: Pin<KBox<SdioDriverBox<T>>>,
}

// SAFETY: after registration the C driver is only touched by the driver core (under its
// own locks), and `T` is `Send`.
unsafe impl<T: SdioDriver> Send for SdioRegistration<T> {}
// SAFETY: `&self` gives nothing but the drop; `T` is `Sync`.
unsafe impl<T: SdioDriver> Sync for SdioRegistration<T> {}

impl<T: SdioDriver> SdioRegistration<T> {
    /// Registers `ops` as an SDIO function driver of `module`; the bus probes it on the
    /// functions that match at once and as they appear.
    pub(crate) fn new(ops: T, module: &'static kernel::ThisModule) -> Result<Self> {
        let (vendor, device) = T::ID;
        let inner = KBox::pin(
            SdioDriverBox {
                driver: Opaque::zeroed(),
                ids: [
                    bindings::sdio_device_id {
                        class: SDIO_ANY_CLASS,
                        vendor,
                        device,
                        driver_data: 0,
                    },
                    // All zeroes: the terminator the bus looks for.
                    bindings::sdio_device_id {
                        class: 0,
                        vendor: 0,
                        device: 0,
                        driver_data: 0,
                    },
                ],
                ops,
            },
            GFP_KERNEL,
        )?;
        let driver = inner.driver.get();
        // SAFETY: the driver is not registered yet, so nothing else reaches it.
        unsafe {
            (*driver).name = T::NAME.as_char_ptr().cast_mut();
            (*driver).id_table = inner.ids.as_ptr();
            (*driver).probe = Some(sdio_probe::<T>);
            (*driver).remove = Some(sdio_remove::<T>);
        }
        // SAFETY: the driver is zeroed apart from its name (static, only read), its
        // terminated match table and its callbacks; it never moves (pinned) and outlives
        // its registration (`drop` unregisters it first). `module` is this module's
        // `THIS_MODULE` (null when built in), the same C type.
        to_result(unsafe { bindings::__sdio_register_driver(driver, module.as_ptr().cast()) })?;
        Ok(Self { inner })
    }
}

impl<T: SdioDriver> Drop for SdioRegistration<T> {
    fn drop(&mut self) {
        // SAFETY: registered in `new`; unregistering waits for the callbacks to return and
        // removes the bound functions (dropping their data) before the box goes away.
        unsafe { bindings::sdio_unregister_driver(self.inner.driver.get()) };
    }
}

/// An SDIO function bound to (or being probed by) driver `T`, during one of its callbacks.
///
/// # Invariants
///
/// The function is alive and its `dev.driver` is the `drv` of the C driver in a live
/// [`SdioDriverBox<T>`]. Its `dev.driver_data` is null or a `KBox<T::Data>` attached by
/// [`SdioFunc::attach`], written only with the host claimed.
#[repr(transparent)]
pub(crate) struct SdioFunc<T> {
    func: Opaque<bindings::sdio_func>,
    _driver: core::marker::PhantomData<T>,
}

impl<T: SdioDriver> SdioFunc<T> {
    /// The function `ptr` points at.
    ///
    /// # Safety
    ///
    /// `ptr` meets the type invariants for `'a`.
    unsafe fn from_raw<'a>(ptr: *mut bindings::sdio_func) -> &'a Self {
        // SAFETY: `SdioFunc` is a transparent wrapper of the C structure; the caller
        // promises it lives for `'a`.
        unsafe { &*ptr.cast() }
    }

    fn as_raw(&self) -> *mut bindings::sdio_func {
        self.func.get()
    }

    /// The Rust driver bound to the function.
    fn driver(&self) -> &T {
        // SAFETY: by the type invariants `dev.driver` is the `drv` field of the `sdio_driver`
        // that starts a live `SdioDriverBox<T>` (`repr(C)`, `Opaque` is transparent).
        unsafe {
            let drv = (*self.as_raw()).dev.driver;
            let driver = kernel::container_of!(drv, bindings::sdio_driver, drv);
            &(*driver.cast::<SdioDriverBox<T>>()).ops
        }
    }

    /// The function's device name (`mmc<host>:<RCA>:<function>`).
    pub(crate) fn name(&self) -> &CStr {
        // SAFETY: by the type invariants the function, hence its device, is alive while
        // `self` is borrowed; it is the same C `struct device`.
        let dev: &kernel::device::Device = unsafe {
            kernel::device::Device::from_raw(core::ptr::addr_of_mut!((*self.as_raw()).dev).cast())
        };
        dev.name()
    }

    /// The function's number on its card (1..=7).
    pub(crate) fn number(&self) -> u32 {
        // SAFETY: set when the function is created, never written afterwards.
        unsafe { (*self.as_raw()).num }
    }

    /// Claims the card's host for this function's accesses, until the claim is dropped
    /// (may sleep; the same task may nest claims).
    pub(crate) fn claim_host(&self) -> SdioHost<'_, T> {
        // SAFETY: by the type invariants the function is alive.
        unsafe { bindings::sdio_claim_host(self.as_raw()) };
        SdioHost {
            func: self,
            owned: true,
        }
    }

    /// The data attached to the function, if any.
    ///
    /// # Safety
    ///
    /// The caller holds the host (which serialises with [`Self::attach`] and
    /// [`Self::detach`]) or is the probe or remove path that attaches and detaches it; the
    /// returned reference is not used after the data is detached.
    unsafe fn data<'a>(&self) -> Option<&'a T::Data> {
        // SAFETY: as the caller promises, nothing writes the pointer meanwhile.
        let data = unsafe { (*self.as_raw()).dev.driver_data };
        // SAFETY: by the type invariants a non-null pointer is a live `T::Data`.
        unsafe { data.cast::<T::Data>().as_ref() }
    }

    /// Attaches `data` to the function (probe).
    fn attach(&self, data: KBox<T::Data>) {
        let _host = self.claim_host();
        // SAFETY: with the host claimed no interrupt handler reads the pointer.
        unsafe { (*self.as_raw()).dev.driver_data = KBox::into_raw(data).cast() };
    }

    /// Releases the function's interrupt if it is still claimed, then detaches and drops
    /// its data (remove, or a failed probe).
    fn detach(&self) {
        let data = {
            let host = self.claim_host();
            // SAFETY: the handler is only called, installed and removed with the host
            // claimed, which we hold.
            if unsafe { (*self.as_raw()).irq_handler }.is_some() {
                // Clears the handler even if the card no longer answers.
                let _ = host.release_irq();
            }
            // SAFETY: with the host claimed and the handler gone nothing else reads it.
            unsafe {
                core::ptr::replace(
                    core::ptr::addr_of_mut!((*self.as_raw()).dev.driver_data),
                    core::ptr::null_mut(),
                )
            }
        };
        if !data.is_null() {
            // SAFETY: attached by `attach` from a `KBox<T::Data>`, and now detached.
            drop(unsafe { KBox::from_raw(data.cast::<T::Data>()) });
        }
    }
}

/// `sdio_driver.probe`: the driver's `probe`, then its `start` with the data attached.
///
/// # Safety
///
/// `func` is a live function the bus matched with `T`'s registered driver.
unsafe extern "C" fn sdio_probe<T: SdioDriver>(
    func: *mut bindings::sdio_func,
    _id: *const bindings::sdio_device_id,
) -> c_int {
    // SAFETY: the bus sets `dev.driver` to the driver it probes, `T`'s (these callbacks are
    // only `T`'s), before calling it; no data is attached yet.
    let func = unsafe { SdioFunc::<T>::from_raw(func) };
    let driver = func.driver();
    let data = match driver.probe(func) {
        Ok(data) => data,
        Err(e) => return e.to_errno(),
    };
    func.attach(data);
    // SAFETY: the probe path that attached the data; it is detached below at the earliest.
    let Some(data) = (unsafe { func.data() }) else {
        return EINVAL.to_errno();
    };
    match driver.start(func, data) {
        Ok(()) => 0,
        Err(e) => {
            func.detach();
            e.to_errno()
        }
    }
}

/// `sdio_driver.remove`.
///
/// # Safety
///
/// `func` is a live function bound to `T`'s registered driver.
unsafe extern "C" fn sdio_remove<T: SdioDriver>(func: *mut bindings::sdio_func) {
    // SAFETY: the bus keeps `dev.driver` set until `remove` returns.
    unsafe { SdioFunc::<T>::from_raw(func) }.detach();
}

/// The function interrupt handler [`SdioHost::claim_irq`] installs.
///
/// # Safety
///
/// `func` is a live function bound to `T`'s registered driver, and the caller holds its
/// host.
unsafe extern "C" fn sdio_interrupt<T: SdioDriver>(func: *mut bindings::sdio_func) {
    // SAFETY: only `SdioHost::<T>::claim_irq` installs this handler, on a function of `T`'s
    // driver, and `detach` removes it before the function is unbound; the core calls it
    // with the host claimed.
    let func = unsafe { SdioFunc::<T>::from_raw(func) };
    // SAFETY: the core holds the host for us during the call.
    let Some(data) = (unsafe { func.data() }) else {
        return;
    };
    let host = SdioHost { func, owned: false };
    func.driver().interrupt(&host, data);
}

/// The card's host, claimed for a function's accesses; released on drop.
pub(crate) struct SdioHost<'a, T: SdioDriver> {
    func: &'a SdioFunc<T>,
    /// Whether this claim is ours to release (not the core's, in the interrupt handler).
    owned: bool,
}

impl<T: SdioDriver> SdioHost<'_, T> {
    fn raw(&self) -> *mut bindings::sdio_func {
        self.func.as_raw()
    }

    /// Enables the function (CCCR I/O enable) and waits for it to be ready.
    pub(crate) fn enable(&self) -> Result {
        // SAFETY: the function is alive and its host claimed (as for every method here).
        to_result(unsafe { bindings::sdio_enable_func(self.raw()) })
    }

    /// Disables the function.
    pub(crate) fn disable(&self) -> Result {
        // SAFETY: as in `enable`.
        to_result(unsafe { bindings::sdio_disable_func(self.raw()) })
    }

    /// Sets the function's block size for block-mode CMD53 (0: the largest both the card
    /// and the host take, up to 512).
    pub(crate) fn set_block_size(&self, bytes: u32) -> Result {
        // SAFETY: as in `enable`.
        to_result(unsafe { bindings::sdio_set_block_size(self.raw(), bytes) })
    }

    /// Reads the byte at `address` of the function's space (CMD52).
    pub(crate) fn read_byte(&self, address: u32) -> Result<u8> {
        let mut err = 0;
        // SAFETY: as in `enable`; `err` receives the status.
        let value = unsafe { bindings::sdio_readb(self.raw(), address, &mut err) };
        to_result(err).map(|()| value)
    }

    /// Writes `value` to the byte at `address` of the function's space (CMD52).
    pub(crate) fn write_byte(&self, address: u32, value: u8) -> Result {
        let mut err = 0;
        // SAFETY: as in `enable`; `err` receives the status.
        unsafe { bindings::sdio_writeb(self.raw(), value, address, &mut err) };
        to_result(err)
    }

    /// Writes `data` to the function's space from `address` on, incrementing (CMD53: whole
    /// blocks in block mode, the rest in byte mode). The core maps the buffer for DMA,
    /// hence a kmalloc'ed one.
    pub(crate) fn write(&self, address: u32, data: &KVec<u8>) -> Result {
        let count = c_int::try_from(data.len())?;
        if count == 0 {
            return Err(EINVAL);
        }
        // SAFETY: as in `enable`; `data` is `count` bytes of kmalloc'ed memory (which DMA
        // may reach), borrowed for the call; the core only reads it.
        to_result(unsafe {
            bindings::sdio_memcpy_toio(self.raw(), address, data.as_ptr().cast_mut().cast(), count)
        })
    }

    /// Reads the function's space from `address` on into `buf`, incrementing (CMD53, as in
    /// [`Self::write`]).
    pub(crate) fn read(&self, address: u32, buf: &mut KVec<u8>) -> Result {
        let count = c_int::try_from(buf.len())?;
        if count == 0 {
            return Err(EINVAL);
        }
        // SAFETY: as in `enable`; `buf` is `count` bytes of kmalloc'ed memory, borrowed
        // mutably for the call.
        to_result(unsafe {
            bindings::sdio_memcpy_fromio(self.raw(), buf.as_mut_ptr().cast(), address, count)
        })
    }

    /// Claims the function's interrupt: [`SdioDriver::interrupt`] handles it from now on
    /// (with the function's data, so not before the probe attached it), until
    /// [`Self::release_irq`] or the function's removal.
    pub(crate) fn claim_irq(&self) -> Result {
        // SAFETY: as in `enable`; the handler is `T`'s and the function is bound to `T`'s
        // driver; `SdioFunc::detach` removes the handler before the data goes away.
        to_result(unsafe { bindings::sdio_claim_irq(self.raw(), Some(sdio_interrupt::<T>)) })
    }

    /// Releases the function's interrupt (the core waits for no running handler: both run
    /// with the host claimed).
    pub(crate) fn release_irq(&self) -> Result {
        // SAFETY: as in `enable`.
        to_result(unsafe { bindings::sdio_release_irq(self.raw()) })
    }
}

impl<T: SdioDriver> Drop for SdioHost<'_, T> {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: claimed in `SdioFunc::claim_host`, released once.
            unsafe { bindings::sdio_release_host(self.raw()) };
        }
    }
}
