// SPDX-License-Identifier: GPL-2.0

//! The kernel's own C queue engines, `mmc_hsq` and `cqhci`, installed on a host in place of
//! the driver's Rust engines (test kernels, `CONFIG_MMC_MTK_RUST_C_ENGINES`), so that the same
//! disks and jobs can be measured with upstream's engines, and the simulated CQHCI block is
//! checked by an implementation that is not the driver's own.
//!
//! # Who calls what
//!
//! Once installed, the C engine is the host's `mmc_cqe_ops`: the MMC core calls it directly.
//! The driver reaches it in three places only: completions of requests issued through
//! the host's `request` callback go through [`hsq_finalize`] first (the C software queue
//! dispatches its requests there), the interrupt handler hands the CMDQ interrupt to
//! [`CEngine::cqhci_irq`], and runtime PM calls [`CEngine::suspend`] and
//! [`CEngine::resume`]. The C `cqhci` calls back through its `cqhci_host_ops`, which
//! [`CqhciVendorOps`] serves: register accesses and the vendor hooks.
//!
//! # Lifetime of the C structures
//!
//! As in upstream's `mtk-sd.c`, `struct mmc_hsq` and `struct cqhci_host` are device-managed
//! allocations of the controller: `mmc_hsq_init` registers a device-managed cancel of the
//! retry work that lives inside its structure, so the structure must outlive the release of
//! the device's managed resources. The MMC core reaches it through `mmc_host::cqe_private`
//! until the host is removed; the driver, through a [`CEngine`], only from its interrupt
//! handler and its runtime PM callbacks, which the platform core stops (the interrupt is
//! freed, the driver data dropped) before it releases managed resources.

use core::{
    marker::PhantomData,
    mem::size_of,
    ptr::{self, addr_of},
    sync::atomic::{AtomicBool, AtomicPtr, Ordering},
};

use kernel::{device::Device, error::to_result, ffi, prelude::*};

use super::{
    bindings,
    host::Host,
    ops::{HostOps, OpsTable},
};

/// Which of the kernel's C engines a host runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CEngineKind {
    /// The host software queue, `mmc_hsq` (`drivers/mmc/host/mmc_hsq.c`).
    Hsq,
    /// The command queue engine, `cqhci` (`drivers/mmc/host/cqhci-core.c`), with 64-bit
    /// descriptor addresses and 128-bit task descriptors, as upstream's `mtk-sd.c` sets it up.
    Cqhci,
}

/// What the C `cqhci` needs of the host driver (its `struct cqhci_host_ops`): the CQHCI
/// registers and the vendor hooks around its own register sequences.
///
/// Each call comes from the C engine, from whatever context the MMC core or the driver
/// called it in (the register accesses also from the driver's interrupt handler, inside
/// `cqhci_irq`, and with the engine's own spinlock held): the register accesses must not
/// take a lock the driver holds while it calls the engine, and the driver calls the engine
/// with none of its locks held.
pub trait CqhciVendorOps: HostOps {
    /// Reads the CQHCI register at byte `offset` of the CQHCI block.
    fn cqhci_read(&self, offset: usize) -> u32;

    /// Writes `value` to the CQHCI register at byte `offset` of the CQHCI block.
    fn cqhci_write(&self, offset: usize, value: u32);

    /// The block has been switched on (`enable`: after `cqe_enable`, and when a request
    /// takes it out of halt).
    fn cqhci_enable(&self);

    /// The block is being switched off (`disable`): `recovery` at the start of error
    /// recovery, otherwise for `cqe_off`.
    fn cqhci_disable(&self, recovery: bool);

    /// Before a request takes the block out of halt (`pre_enable`).
    fn cqhci_pre_enable(&self);

    /// After `cqe_off` halted the block (`post_disable`).
    fn cqhci_post_disable(&self);

    /// After the engine printed its registers (`dumpregs`): the host's own.
    fn cqhci_dump(&self);
}

/// `mmc_host::cqe_ops` of hosts that run the C software queue, recorded by the first
/// installation (`mmc_hsq_init` points every host at the same table): a host whose table is
/// this one has a `struct mmc_hsq` behind `cqe_private`.
static HSQ_OPS: AtomicPtr<bindings::mmc_cqe_ops> = AtomicPtr::new(ptr::null_mut());

/// One of the kernel's C engines for one host: chosen at probe, installed when the host is
/// registered ([`super::Registration::add_with_c_engine`]).
pub struct CEngine {
    kind: CEngineKind,
    /// The engine's initialisation succeeded: `cqe_private` of the host it was installed
    /// on points to its structure.
    installed: AtomicBool,
    /// The runtime suspend stopped an enabled software queue: the resume starts it again.
    hsq_stopped: AtomicBool,
}

impl CEngine {
    /// An engine of `kind`, not installed yet.
    pub fn new(kind: CEngineKind) -> Self {
        Self {
            kind,
            installed: AtomicBool::new(false),
            hsq_stopped: AtomicBool::new(false),
        }
    }

    /// Which engine this is.
    pub fn kind(&self) -> CEngineKind {
        self.kind
    }

    /// The engine's C name, for messages.
    pub fn name(&self) -> &'static str {
        match self.kind {
            CEngineKind::Hsq => "mmc_hsq",
            CEngineKind::Cqhci => "cqhci",
        }
    }

    /// The engine's structure behind `host`'s `cqe_private`, once installed.
    fn private<S>(&self, host: &Host) -> Option<*mut S> {
        if !self.installed.load(Ordering::Acquire) {
            return None;
        }
        // SAFETY: the host is alive (the `Host` invariant); `cqe_private` was set by the
        // engine's initialisation and is not changed afterwards.
        let private = unsafe { (*host.as_raw()).cqe_private };
        (!private.is_null()).then_some(private.cast::<S>())
    }

    /// Allocates the engine's structure for `host`'s controller and initialises the engine
    /// on `host` (`mmc_hsq_init` or `cqhci_init`), which makes it the host's `cqe_ops`.
    ///
    /// # Safety
    ///
    /// `host` must be a host set up by `Registration::<T>` (its driver data reachable, as
    /// the C `cqhci` reads its version register during initialisation) and not added yet.
    pub(super) unsafe fn install<T: CqhciVendorOps>(
        &self,
        host: *mut bindings::mmc_host,
    ) -> Result {
        // SAFETY: the caller passes a live host; `parent` is its controller, which holds a
        // reference on itself while it is bound (and the host one on its parent).
        let parent = unsafe { (*host).parent }.cast::<kernel::bindings::device>();
        // SAFETY: as above, the controller outlives this call.
        let dev: &Device = unsafe { Device::from_raw(parent) };
        // SAFETY: the caller's promise, passed on.
        let result = unsafe { self.init::<T>(host, parent) };
        match result {
            Ok(()) => {
                self.installed.store(true, Ordering::Release);
                Ok(())
            }
            Err(e) => {
                dev_err!(
                    dev,
                    "the kernel's C {} engine did not initialise: {:?}\n",
                    self.name(),
                    e
                );
                Err(e)
            }
        }
    }

    /// The initialisation of [`CEngine::install`].
    ///
    /// # Safety
    ///
    /// As [`CEngine::install`]; `parent` is the host's parent device.
    unsafe fn init<T: CqhciVendorOps>(
        &self,
        host: *mut bindings::mmc_host,
        parent: *mut kernel::bindings::device,
    ) -> Result {
        match self.kind {
            CEngineKind::Hsq => {
                // SAFETY: `parent` is a bound device (see `install`).
                let hsq = unsafe { devm_zeroed::<bindings::mmc_hsq>(parent) }?;
                // SAFETY: `hsq` is zeroed, device-managed memory of the controller, which
                // outlives the host's use of it (module documentation); `host` is live and
                // not added yet.
                to_result(unsafe { bindings::mmc_hsq_init(hsq, host) })?;
                // SAFETY: `mmc_hsq_init` just set the host's `cqe_ops` to its table, a
                // static of `mmc_hsq.c`.
                let ops = unsafe { (*host).cqe_ops };
                HSQ_OPS.store(ops.cast_mut(), Ordering::Release);
            }
            CEngineKind::Cqhci => {
                // SAFETY: `parent` is a bound device (see `install`).
                let cq_host = unsafe { devm_zeroed::<bindings::cqhci_host>(parent) }?;
                // SAFETY: `cq_host` is zeroed, device-managed memory that nothing else uses
                // yet. With `read_l` and `write_l` set, the engine never uses `mmio`.
                unsafe {
                    (*cq_host).ops = CqhciOpsTable::<T>::build();
                    (*cq_host).caps |= bindings::CQHCI_TASK_DESC_SZ_128;
                }
                // SAFETY: `cq_host` is set up as upstream's `mtk-sd.c` sets it up (64-bit
                // DMA, 128-bit task descriptors); `host` is live, not added yet, and its
                // driver data reachable for the register accesses (the caller's promise).
                to_result(unsafe { bindings::cqhci_init(cq_host, host, true) })?;
            }
        }
        Ok(())
    }

    /// The CMDQ interrupt (`cqhci_irq`) with the errors the controller saw on the queue's
    /// command and data (`-EILSEQ`, `-ETIMEDOUT`, ...). Nothing without an installed C
    /// `cqhci`. The caller holds none of its own locks: the engine completes tasks from here
    /// and calls the register accessors.
    pub fn cqhci_irq(&self, host: &Host, cmd_error: Option<Error>, data_error: Option<Error>) {
        if self.kind != CEngineKind::Cqhci || self.private::<bindings::cqhci_host>(host).is_none() {
            return;
        }
        let code = |error: Option<Error>| error.map_or(0, |e| e.to_errno());
        // SAFETY: the host is alive and runs the C `cqhci` (installed above), whose
        // structure lives while the controller is bound, which it is while its interrupt
        // handler runs; `cqhci_irq` may be called from hard-IRQ context.
        let _ = unsafe { bindings::cqhci_irq(host.as_raw(), code(cmd_error), code(data_error)) };
    }

    /// Runtime suspend: the C `cqhci` is halted (`cqe_off`) and switched off
    /// (`cqhci_deactivate`), so that the first task after resume programs the block again;
    /// `EBUSY` with tasks queued. The C `mmc_hsq`, if enabled, drains and stops
    /// (`mmc_hsq_suspend`, at most 500 ms); `EBUSY` if requests remain. May sleep; the
    /// caller holds none of its locks (the engine calls the vendor hooks).
    pub fn suspend(&self, host: &Host) -> Result {
        let mmc = host.as_raw();
        match self.kind {
            CEngineKind::Cqhci => {
                let Some(cq_host) = self.private::<bindings::cqhci_host>(host) else {
                    return Ok(());
                };
                // SAFETY: the engine's structure is alive while the controller is bound
                // (module documentation); the core holds the controller active while it
                // queues tasks, so a stale count only refuses one suspend.
                let queued = unsafe { ptr::read_volatile(addr_of!((*cq_host).qcnt)) };
                if queued != 0 {
                    return Err(EBUSY);
                }
                // SAFETY: the host is alive and its `cqe_ops` is the C `cqhci`'s table,
                // which has `cqe_off`; runtime PM runs with no request of the core in
                // progress, as the core does between its own commands.
                let deactivated = unsafe {
                    if let Some(off) = (*(*mmc).cqe_ops).cqe_off {
                        off(mmc);
                    }
                    bindings::cqhci_deactivate(mmc)
                };
                to_result(deactivated)
            }
            CEngineKind::Hsq => {
                let Some(hsq) = self.private::<bindings::mmc_hsq>(host) else {
                    return Ok(());
                };
                // SAFETY: the structure is alive while bound; `enabled` changes in
                // `cqe_enable`/`cqe_disable` and the PM callbacks, which the core and the
                // PM core never run at the same time as this.
                let enabled = || unsafe { ptr::read_volatile(addr_of!((*hsq).enabled)) };
                if !enabled() {
                    return Ok(());
                }
                // SAFETY: the host is alive and runs the C software queue.
                unsafe { bindings::mmc_hsq_suspend(mmc) };
                if enabled() {
                    // It could not drain: stay active, the queue keeps running.
                    return Err(EBUSY);
                }
                self.hsq_stopped.store(true, Ordering::Relaxed);
                Ok(())
            }
        }
    }

    /// Runtime resume: the C `cqhci` needs nothing (`cqhci_resume`; its next task programs
    /// the block); the C `mmc_hsq` starts again if [`CEngine::suspend`] stopped it
    /// (`mmc_hsq_resume`).
    pub fn resume(&self, host: &Host) -> Result {
        let mmc = host.as_raw();
        match self.kind {
            CEngineKind::Cqhci => {
                if self.private::<bindings::cqhci_host>(host).is_none() {
                    return Ok(());
                }
                // SAFETY: the host is alive and runs the C `cqhci`.
                to_result(unsafe { bindings::cqhci_resume(mmc) })
            }
            CEngineKind::Hsq => {
                if self.private::<bindings::mmc_hsq>(host).is_none()
                    || !self.hsq_stopped.swap(false, Ordering::Relaxed)
                {
                    return Ok(());
                }
                // SAFETY: the host is alive and runs the C software queue.
                to_result(unsafe { bindings::mmc_hsq_resume(mmc) })
            }
        }
    }
}

/// Zeroed, device-managed memory for one `S` (`devm_kzalloc`), freed when `dev`'s managed
/// resources are released.
///
/// # Safety
///
/// `dev` must be a live device that is bound (or being probed).
unsafe fn devm_zeroed<S>(dev: *mut kernel::bindings::device) -> Result<*mut S> {
    let flags = kernel::bindings::GFP_KERNEL | kernel::bindings::__GFP_ZERO;
    // SAFETY: the caller's promise; devres data is aligned for any C structure.
    let memory = unsafe { kernel::bindings::devm_kmalloc(dev, size_of::<S>(), flags) };
    if memory.is_null() {
        Err(ENOMEM)
    } else {
        Ok(memory.cast::<S>())
    }
}

/// Hands a request that completed on the host's `request` route to the C software queue
/// (`mmc_hsq_finalize_request`), if the host runs it: true if the queue took it (and
/// completed it to the core, and dispatched its next request from here), false if the
/// request was not the queue's and is to be completed with `mmc_request_done`.
///
/// # Safety
///
/// `host` must be alive and `mrq` a live request of it, completed by the driver (responses
/// and errors written, its DMA mapping undone), that the driver no longer touches.
pub(super) unsafe fn hsq_finalize(
    host: *mut bindings::mmc_host,
    mrq: *mut bindings::mmc_request,
) -> bool {
    let hsq_ops = HSQ_OPS.load(Ordering::Acquire);
    // SAFETY: the caller guarantees the host is alive; `cqe_ops` is set before the host is
    // added and never changes afterwards.
    let ops = unsafe { (*host).cqe_ops };
    if hsq_ops.is_null() || !ptr::eq(ops, hsq_ops) {
        return false;
    }
    // SAFETY: the host runs the C software queue (its `cqe_ops`), so `cqe_private` is its
    // `struct mmc_hsq`; the request is live and done with (the caller's promise). The
    // queue may call the host's `request` from here for its next request.
    unsafe { bindings::mmc_hsq_finalize_request(host, mrq) }
}

/// The `cqhci_host_ops` table for host type `T`.
struct CqhciOpsTable<T: CqhciVendorOps>(PhantomData<T>);

impl<T: CqhciVendorOps> CqhciOpsTable<T> {
    const TABLE: bindings::cqhci_host_ops = bindings::cqhci_host_ops {
        dumpregs: Some(Self::dumpregs),
        write_l: Some(Self::write_l),
        read_l: Some(Self::read_l),
        enable: Some(Self::enable),
        disable: Some(Self::disable),
        pre_enable: Some(Self::pre_enable),
        post_disable: Some(Self::post_disable),
        // SAFETY: every other member is an `Option` of a function pointer (all-zero bytes:
        // `None`, so the engine uses its defaults, as for upstream's `msdc_cmdq_ops`) or, with
        // `CONFIG_MMC_CRYPTO`, a `bool` (false: no custom crypto profile).
        ..unsafe { core::mem::zeroed() }
    };

    /// The table, for `cqhci_host::ops`.
    const fn build() -> &'static bindings::cqhci_host_ops {
        &Self::TABLE
    }

    /// The driver data of the host `cq_host` serves, once `cqhci_init` has linked them.
    ///
    /// # Safety
    ///
    /// `cq_host` must be a structure [`CEngine::install`] set up for a host of `T` that is
    /// not removed yet.
    unsafe fn data<'a>(cq_host: *mut bindings::cqhci_host) -> Option<&'a T> {
        // SAFETY: the caller passes a live structure; `mmc` is set by `cqhci_init` before
        // its first register access.
        let mmc = unsafe { (*cq_host).mmc };
        if mmc.is_null() {
            return None;
        }
        // SAFETY: the host was set up by `Registration::<T>` before the engine was
        // installed, and is not removed (the caller's promise).
        Some(unsafe { OpsTable::<T>::data(mmc) })
    }

    /// # Safety
    ///
    /// Called by the C `cqhci` only, for a host installed with this table.
    unsafe extern "C" fn read_l(cq_host: *mut bindings::cqhci_host, reg: ffi::c_int) -> u32 {
        // SAFETY: the engine passes its own structure, of a host of `T`.
        let data = unsafe { Self::data(cq_host) };
        match (data, usize::try_from(reg)) {
            (Some(data), Ok(offset)) => data.cqhci_read(offset),
            _ => 0,
        }
    }

    /// # Safety
    ///
    /// Called by the C `cqhci` only, for a host installed with this table.
    unsafe extern "C" fn write_l(cq_host: *mut bindings::cqhci_host, value: u32, reg: ffi::c_int) {
        // SAFETY: the engine passes its own structure, of a host of `T`.
        let data = unsafe { Self::data(cq_host) };
        if let (Some(data), Ok(offset)) = (data, usize::try_from(reg)) {
            data.cqhci_write(offset, value);
        }
    }

    /// # Safety
    ///
    /// Called by the C `cqhci` only, for a host of `T` that is not removed.
    unsafe extern "C" fn enable(mmc: *mut bindings::mmc_host) {
        // SAFETY: the engine passes the host it was installed on.
        unsafe { OpsTable::<T>::data(mmc) }.cqhci_enable();
    }

    /// # Safety
    ///
    /// Called by the C `cqhci` only, for a host of `T` that is not removed.
    unsafe extern "C" fn disable(mmc: *mut bindings::mmc_host, recovery: bool) {
        // SAFETY: the engine passes the host it was installed on.
        unsafe { OpsTable::<T>::data(mmc) }.cqhci_disable(recovery);
    }

    /// # Safety
    ///
    /// Called by the C `cqhci` only, for a host of `T` that is not removed.
    unsafe extern "C" fn pre_enable(mmc: *mut bindings::mmc_host) {
        // SAFETY: the engine passes the host it was installed on.
        unsafe { OpsTable::<T>::data(mmc) }.cqhci_pre_enable();
    }

    /// # Safety
    ///
    /// Called by the C `cqhci` only, for a host of `T` that is not removed.
    unsafe extern "C" fn post_disable(mmc: *mut bindings::mmc_host) {
        // SAFETY: the engine passes the host it was installed on.
        unsafe { OpsTable::<T>::data(mmc) }.cqhci_post_disable();
    }

    /// # Safety
    ///
    /// Called by the C `cqhci` only, for a host of `T` that is not removed.
    unsafe extern "C" fn dumpregs(mmc: *mut bindings::mmc_host) {
        // SAFETY: the engine passes the host it was installed on.
        unsafe { OpsTable::<T>::data(mmc) }.cqhci_dump();
    }
}
