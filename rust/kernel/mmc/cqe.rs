// SPDX-License-Identifier: GPL-2.0

//! The bridge from the C `struct mmc_cqe_ops` to the safe [`CqeOps`] trait: the MMC core's
//! interface to a command queue engine (CQHCI) or a software queue (HSQ).

use core::ptr::NonNull;

use kernel::{ffi, prelude::*};

use super::{
    bindings,
    host::Host,
    ops::{HostOps, OpsTable},
    request::{unmap_ahead, Request, Route},
};
use crate::mmc_request::{ErrorKind, RequestResult};

/// What the queue engine needs to know of the card it queues for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueCard {
    /// Relative card address (for the queue status polls).
    pub rca: u32,
    /// Tasks the card queues (`EXT_CSD` `CMDQ_DEPTH` + 1), 0 without command queueing.
    pub queue_depth: u32,
    /// The core switched the card's command queue on (`EXT_CSD` `CMDQ_MODE_EN`).
    pub command_queue_enabled: bool,
}

/// Identifies a queued request among those live on its host (for `cqe_timeout`, which
/// names a request the engine may already have completed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestId {
    tag: i32,
    address: usize,
}

/// A request the core queued with [`CqeOps::cqe_request`], identified by its tag.
///
/// Completed once, by one of the consuming methods; a queued request dropped without
/// completion fails with `-EIO` (see [`Request`]).
pub struct QueuedRequest {
    inner: Request,
    tag: i32,
}

impl QueuedRequest {
    /// The queue slot the core gave the request (the block layer's tag).
    pub fn tag(&self) -> i32 {
        self.tag
    }

    /// The request's identity, as [`CqeOps::cqe_timeout`] names it.
    pub fn id(&self) -> RequestId {
        RequestId {
            tag: self.tag,
            address: self.inner.address(),
        }
    }

    /// The request: its commands (a software queue's request has set-block-count, command
    /// and stop like any other; a command queue engine's data task has none), its data and
    /// their DMA mapping.
    pub fn request(&self) -> &Request {
        &self.inner
    }

    /// The request, to map its data ([`Request::map_data`]).
    pub fn request_mut(&mut self) -> &mut Request {
        &mut self.inner
    }

    /// The first block a data task moves (`mmc_data::blk_addr`), and its `MMC_DATA_*` flags.
    pub fn block_address_and_flags(&self) -> Option<(u32, u32)> {
        self.inner
            .data_raw()
            .map(|data| (data.blk_addr, data.flags))
    }

    /// Tells the block layer that this request needs error recovery
    /// (`mrq->recovery_notifier`): it schedules the recovery work, which calls
    /// `cqe_recovery_start` and `cqe_recovery_finish`. Callable from interrupt context.
    pub fn notify_recovery(&self) {
        let request = self.inner.raw_ptr();
        // SAFETY: the request is alive while queued; the notifier, when the core set one,
        // takes the block queue's lock with interrupts saved and schedules work.
        unsafe {
            if let Some(notifier) = (*request).recovery_notifier {
                notifier(request);
            }
        }
    }

    /// Hands a software queue's request back with `result` (`mmc_cqe_request_done`).
    pub fn complete(self, result: &RequestResult) {
        self.inner.complete(result);
    }

    /// Hands a command queue engine's task back: `bytes_xfered` and `error` go to its data
    /// phase, or, for a direct command, `error` and `response` (`CQCRDCT`) to its command.
    pub fn complete_task(self, bytes_xfered: u32, error: Option<ErrorKind>, response: u32) {
        self.inner.complete_task(bytes_xfered, error, response);
    }

    /// Fails the request with `error` on every phase it has.
    pub fn fail(self, error: Error) {
        self.inner.fail(error);
    }
}

/// A request [`CqeOps::cqe_request`] did not take, going back to the core with the reason.
pub struct Refused {
    /// The request, uncompleted: the core still owns it and may queue it again.
    pub request: QueuedRequest,
    /// `-EBUSY` makes the core requeue it; anything else fails it.
    pub error: Error,
}

/// What a host's queue engine does when the MMC core calls it (`mmc_cqe_ops`).
///
/// The MMC core serialises these calls per host; completions come from the driver's
/// interrupt handler through [`QueuedRequest`]'s completion methods.
#[vtable]
pub trait CqeOps: HostOps {
    /// The card was initialised: start the engine for it, or refuse (a command queue
    /// engine with a card without command queueing), leaving the host to serve requests one
    /// at a time.
    fn cqe_enable(&self, host: &Host, card: QueueCard) -> Result;

    /// Stop the engine for good (card removed).
    fn cqe_disable(&self, host: &Host);

    /// Queue `request`, or give it back with the reason.
    fn cqe_request(&self, host: &Host, request: QueuedRequest) -> Result<(), Refused>;

    /// Prepare for a command outside the queue (halt a command queue engine).
    fn cqe_off(&self, host: &Host);

    /// Wait until every queued request completed; `-EBUSY` while recovering.
    fn cqe_wait_for_idle(&self, host: &Host) -> Result;

    /// The block layer timed out `request`. `None` if the request is not queued any more
    /// (it completed meanwhile); otherwise whether recovery is needed.
    fn cqe_timeout(&self, host: &Host, request: RequestId) -> Option<bool>;

    /// Error recovery begins: stop the engine.
    fn cqe_recovery_start(&self, host: &Host);

    /// Error recovery ends: complete what is left and restart the engine.
    fn cqe_recovery_finish(&self, host: &Host);
}

/// The `mmc_cqe_ops` table for host type `T`.
pub(super) struct CqeOpsTable<T: CqeOps>(core::marker::PhantomData<T>);

impl<T: CqeOps> CqeOpsTable<T> {
    const TABLE: bindings::mmc_cqe_ops = bindings::mmc_cqe_ops {
        cqe_enable: Some(Self::cqe_enable),
        cqe_disable: Some(Self::cqe_disable),
        cqe_request: Some(Self::cqe_request),
        cqe_post_req: Some(Self::cqe_post_req),
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
            command_queue_enabled: card.ext_csd.cmdq_en,
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
        // SAFETY: the callback's own arguments, wrapped once; a refused request is handed
        // back uncompleted below, so the core keeps it.
        let Some(inner) = (unsafe { Request::from_raw(host_ptr, mrq_ptr, Route::Queue) }) else {
            return EINVAL.to_errno();
        };
        match data.cqe_request(view, QueuedRequest { inner, tag }) {
            Ok(()) => 0,
            Err(Refused { request, error }) => {
                request.inner.into_refused();
                error.to_errno()
            }
        }
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a registered host and a completed request.
    unsafe extern "C" fn cqe_post_req(
        host: *mut bindings::mmc_host,
        mrq: *mut bindings::mmc_request,
    ) {
        let (Some(host), Some(mrq)) = (NonNull::new(host), NonNull::new(mrq)) else {
            return;
        };
        // SAFETY: the core passes a live request it got back from the engine.
        unsafe { unmap_ahead(host, mrq) };
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
        let (Some(request), Some(recovery_needed)) =
            (unsafe { mrq.as_ref() }, unsafe { recovery_needed.as_mut() })
        else {
            return false;
        };
        // SAFETY: the core calls this only for a registered host.
        let (data, view) = unsafe { Self::parts(host) };
        let id = RequestId {
            tag: request.tag,
            address: mrq as usize,
        };
        match data.cqe_timeout(view, id) {
            Some(needed) => {
                *recovery_needed = needed;
                true
            }
            None => false,
        }
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
