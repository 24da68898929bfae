// SPDX-License-Identifier: GPL-2.0

//! The bridge from the C `struct mmc_cqe_ops` to the safe [`CqeOps`] trait: the MMC core's
//! interface to a command queue engine (CQHCI) or a software queue (HSQ).

use core::ptr::NonNull;

use kernel::{error::VTABLE_DEFAULT_ERROR, ffi, prelude::*};

use super::{
    bindings,
    host::Host,
    ops::{HostOps, OpsTable},
    request::Request,
};
use crate::mmc_request::{Command, Data, ErrorKind, Segment};

/// What the queue engine needs to know of the card it queues for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueCard {
    /// Relative card address (for the queue status polls).
    pub rca: u32,
    /// Tasks the card queues (`EXT_CSD` `CMDQ_DEPTH` + 1), 0 without command queueing.
    pub queue_depth: u32,
}

/// A request the core queued with [`CqeOps::cqe_request`], identified by its tag.
///
/// # Invariants
///
/// Wraps a request handed to `cqe_request` that was accepted; it is completed once, by
/// [`QueuedRequest::complete`], consuming `self`.
pub struct QueuedRequest {
    inner: Request,
    tag: i32,
}

impl QueuedRequest {
    /// The queue slot the core gave the request.
    pub fn tag(&self) -> i32 {
        self.tag
    }

    /// The data phase; `None` for a direct command (DCMD).
    pub fn data(&self) -> Option<Data> {
        self.inner.data()
    }

    /// The direct command, for a request without data.
    /// (Its user, the CQHCI glue, comes with the command-queueing issue, #10.)
    pub fn direct_command(&self) -> Option<Command> {
        self.inner
            .spec()
            .and_then(|spec| spec.data.is_none().then_some(spec.cmd))
    }

    /// Maps the data for the controller's DMA; see [`Request::map_data`].
    pub fn map_data(&mut self) -> Result<impl Iterator<Item = Segment> + '_> {
        self.inner.map_data()
    }

    /// Records `error` (if any) and `bytes_xfered` and hands the request back
    /// (`mmc_cqe_request_done`).
    pub fn complete(self, bytes_xfered: u32, error: Option<ErrorKind>) {
        self.inner.complete_queued(bytes_xfered, error);
    }
}

/// What a host's queue engine does when the MMC core calls it (`mmc_cqe_ops`).
///
/// The MMC core serialises these calls per host; completions come from the driver's
/// interrupt handler through [`QueuedRequest::complete`].
#[vtable]
pub trait CqeOps: HostOps {
    /// The card was initialised with command queueing: start the engine for it.
    fn cqe_enable(&self, host: &Host, card: QueueCard) -> Result;

    /// Stop the engine for good (card removed or queueing switched off).
    fn cqe_disable(&self, host: &Host);

    /// Queue `request`. On error the core still owns it: the driver drops it unqueued.
    fn cqe_request(&self, host: &Host, request: QueuedRequest) -> Result;

    /// Called after the request with `tag` completed, to release what it still holds.
    fn cqe_post_req(&self, _host: &Host, _tag: i32) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// The queue is idle: the engine may stop (halt) until the next request.
    fn cqe_off(&self, host: &Host);

    /// Wait until every queued request completed; `-EBUSY` while recovering.
    fn cqe_wait_for_idle(&self, host: &Host) -> Result;

    /// The block layer timed out the request with `tag`. Returns whether the request had
    /// in fact completed; `recovery_needed` asks the core for recovery.
    fn cqe_timeout(&self, host: &Host, tag: i32, recovery_needed: &mut bool) -> bool;

    /// Error recovery begins: stop the engine.
    fn cqe_recovery_start(&self, host: &Host);

    /// Error recovery ends: fail what is left and restart the engine.
    fn cqe_recovery_finish(&self, host: &Host);
}

/// The `mmc_cqe_ops` table for host type `T`.
pub(super) struct CqeOpsTable<T: CqeOps>(core::marker::PhantomData<T>);

impl<T: CqeOps> CqeOpsTable<T> {
    const TABLE: bindings::mmc_cqe_ops = bindings::mmc_cqe_ops {
        cqe_enable: Some(Self::cqe_enable),
        cqe_disable: Some(Self::cqe_disable),
        cqe_request: Some(Self::cqe_request),
        cqe_post_req: optional_op!(T::HAS_CQE_POST_REQ, Self::cqe_post_req),
        cqe_off: Some(Self::cqe_off),
        cqe_wait_for_idle: Some(Self::cqe_wait_for_idle),
        cqe_timeout: Some(Self::cqe_timeout),
        cqe_recovery_start: Some(Self::cqe_recovery_start),
        cqe_recovery_finish: Some(Self::cqe_recovery_finish),
    };

    /// The table, for `mmc_host::cqe_ops`.
    pub(super) const fn build() -> &'static bindings::mmc_cqe_ops {
        &Self::TABLE
    }

    /// # Safety
    ///
    /// `host` must be a host registered with this table and not yet removed.
    unsafe fn parts<'a>(host: *mut bindings::mmc_host) -> (&'a T, &'a Host) {
        // SAFETY: the caller guarantees the host is registered with `T`'s tables.
        unsafe { (OpsTable::<T>::data(host), Host::from_raw(host)) }
    }

    fn errno(result: Result) -> ffi::c_int {
        match result {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a registered host, with a live card.
    unsafe extern "C" fn cqe_enable(
        host: *mut bindings::mmc_host,
        card: *mut bindings::mmc_card,
    ) -> ffi::c_int {
        // SAFETY: the core passes the host's live card.
        let Some(card) = (unsafe { card.as_ref() }) else {
            return EINVAL.to_errno();
        };
        let card = QueueCard {
            rca: card.rca,
            queue_depth: card.ext_csd.cmdq_depth,
        };
        // SAFETY: the core calls this only for a registered host.
        let (data, view) = unsafe { Self::parts(host) };
        Self::errno(data.cqe_enable(view, card))
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a registered host.
    unsafe extern "C" fn cqe_disable(host: *mut bindings::mmc_host) {
        // SAFETY: the core calls this only for a registered host.
        let (data, view) = unsafe { Self::parts(host) };
        data.cqe_disable(view);
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a registered host, with a request it hands over
    /// until `mmc_cqe_request_done`.
    unsafe extern "C" fn cqe_request(
        host: *mut bindings::mmc_host,
        mrq: *mut bindings::mmc_request,
    ) -> ffi::c_int {
        let (Some(host_ptr), Some(mrq_ptr)) = (NonNull::new(host), NonNull::new(mrq)) else {
            return EINVAL.to_errno();
        };
        // SAFETY: the core calls this only for a registered host.
        let (data, view) = unsafe { Self::parts(host) };
        // SAFETY: `mrq` is live until completed; `tag` is a plain member.
        let tag = unsafe { mrq_ptr.as_ref().tag };
        // SAFETY: the callback's own arguments, wrapped once; on error the driver drops
        // the wrapper without completing, leaving the request to the core.
        let inner = unsafe { Request::from_raw(host_ptr, mrq_ptr) };
        let request = QueuedRequest { inner, tag };
        Self::errno(data.cqe_request(view, request))
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a registered host and a completed request.
    unsafe extern "C" fn cqe_post_req(
        host: *mut bindings::mmc_host,
        mrq: *mut bindings::mmc_request,
    ) {
        // SAFETY: `mrq` is valid for the call.
        let Some(mrq) = (unsafe { mrq.as_ref() }) else {
            return;
        };
        // SAFETY: the core calls this only for a registered host.
        let (data, view) = unsafe { Self::parts(host) };
        data.cqe_post_req(view, mrq.tag);
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a registered host.
    unsafe extern "C" fn cqe_off(host: *mut bindings::mmc_host) {
        // SAFETY: the core calls this only for a registered host.
        let (data, view) = unsafe { Self::parts(host) };
        data.cqe_off(view);
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a registered host.
    unsafe extern "C" fn cqe_wait_for_idle(host: *mut bindings::mmc_host) -> ffi::c_int {
        // SAFETY: the core calls this only for a registered host.
        let (data, view) = unsafe { Self::parts(host) };
        Self::errno(data.cqe_wait_for_idle(view))
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a registered host, a request it queued and a
    /// valid `recovery_needed`.
    unsafe extern "C" fn cqe_timeout(
        host: *mut bindings::mmc_host,
        mrq: *mut bindings::mmc_request,
        recovery_needed: *mut bool,
    ) -> bool {
        // SAFETY: both pointers are valid for the call.
        let (Some(mrq), Some(recovery_needed)) =
            (unsafe { mrq.as_ref() }, unsafe { recovery_needed.as_mut() })
        else {
            return false;
        };
        // SAFETY: the core calls this only for a registered host.
        let (data, view) = unsafe { Self::parts(host) };
        data.cqe_timeout(view, mrq.tag, recovery_needed)
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a registered host.
    unsafe extern "C" fn cqe_recovery_start(host: *mut bindings::mmc_host) {
        // SAFETY: the core calls this only for a registered host.
        let (data, view) = unsafe { Self::parts(host) };
        data.cqe_recovery_start(view);
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a registered host.
    unsafe extern "C" fn cqe_recovery_finish(host: *mut bindings::mmc_host) {
        // SAFETY: the core calls this only for a registered host.
        let (data, view) = unsafe { Self::parts(host) };
        data.cqe_recovery_finish(view);
    }
}
