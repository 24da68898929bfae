// SPDX-License-Identifier: GPL-2.0

//! A request handed to the host driver, owned until the driver completes it: views of its
//! commands and data, the DMA mapping of its scatter list, and its completion.
//!
//! A [`Request`] is completed exactly once: [`Request::complete`] and [`Request::fail`]
//! consume it, and dropping one that was never completed fails it with `-EIO` from a work
//! item, so no path can leave the MMC core waiting for a request the driver forgot, and no
//! driver lock held at the drop is held when the core's completion runs.

use core::ptr::NonNull;

use kernel::{error::Error, prelude::*};

use super::bindings;
use crate::mmc_request::{
    flags::MMC_DATA_WRITE, Command, Data, Direction, ErrorKind, RequestResult, Segment,
};

/// The command as the engines take it.
fn command_of(cmd: &bindings::mmc_command) -> Command {
    Command {
        opcode: cmd.opcode,
        arg: cmd.arg,
        flags: cmd.flags,
        busy_timeout_ms: cmd.busy_timeout,
    }
}

/// The errno the MMC core expects for an engine's error, 0 for none: the one place the
/// engines' [`ErrorKind`] meets the core's error codes.
fn errno(error: Option<ErrorKind>) -> c_int {
    error.map_or(0, |kind| {
        match kind {
            ErrorKind::TimedOut => ETIMEDOUT,
            ErrorKind::BadCrc => EILSEQ,
            ErrorKind::DmaFault => EIO,
        }
        .to_errno()
    })
}

/// How a request ends: with the result an engine reported, or failed as a whole.
#[derive(Clone, Copy)]
enum Ending<'a> {
    /// The engine ran the request (or part of it).
    Ran(&'a RequestResult),
    /// The request could not run: this errno for the command, set-block-count and data.
    Failed(c_int),
}

impl Ending<'_> {
    /// Response and errno of the command.
    fn cmd(self) -> ([u32; 4], c_int) {
        match self {
            Self::Ran(result) => (result.cmd.response, errno(result.cmd.error)),
            Self::Failed(error) => ([0; 4], error),
        }
    }

    /// Response and errno of the set-block-count command, if it is to be written.
    fn sbc(self) -> Option<([u32; 4], c_int)> {
        match self {
            Self::Ran(result) => result.sbc.map(|sbc| (sbc.response, errno(sbc.error))),
            Self::Failed(error) => Some(([0; 4], error)),
        }
    }

    /// Response and errno of the stop command, if it ran.
    fn stop(self) -> Option<([u32; 4], c_int)> {
        match self {
            Self::Ran(result) => result.stop.map(|stop| (stop.response, errno(stop.error))),
            Self::Failed(_) => None,
        }
    }

    /// Bytes moved and errno of the data phase.
    fn data(self) -> (u32, c_int) {
        match self {
            Self::Ran(result) => match result.data {
                Some(data) => (data.bytes_xfered, errno(data.error)),
                // The data phase never ran: the command failed first.
                None => (
                    0,
                    result.cmd.error.map_or(EIO.to_errno(), |e| errno(Some(e))),
                ),
            },
            Self::Failed(error) => (0, error),
        }
    }
}

/// `mmc_data::host_cookie` of data that [`PreparedData::map_ahead`] mapped: the mapping
/// belongs to the core's `pre_req`/`post_req` pair, not to the request.
const MAPPED_AHEAD: i32 = 1;

/// The DMA direction of `data`.
fn dma_direction(data: &bindings::mmc_data) -> kernel::bindings::dma_data_direction {
    if data.flags & MMC_DATA_WRITE != 0 {
        kernel::bindings::dma_data_direction::DMA_TO_DEVICE
    } else {
        kernel::bindings::dma_data_direction::DMA_FROM_DEVICE
    }
}

/// The device that does the host's DMA (the controller, the host's parent).
///
/// # Safety
///
/// `host` must be alive.
unsafe fn dma_device(host: NonNull<bindings::mmc_host>) -> *mut kernel::bindings::device {
    // SAFETY: the caller guarantees the host is alive; `parent` is a plain member.
    unsafe { (*host.as_ptr()).parent.cast::<kernel::bindings::device>() }
}

/// A scatter list mapped for the controller's DMA.
///
/// # Invariants
///
/// `sg` (with `nents` entries) was mapped with `dma_map_sg_attrs(dev, sg, nents, dir)`,
/// which returned `mapped` > 0 segments, and is unmapped exactly once, on drop.
struct DmaMapping {
    dev: *mut kernel::bindings::device,
    sg: *mut kernel::bindings::scatterlist,
    nents: i32,
    mapped: u32,
    dir: kernel::bindings::dma_data_direction,
}

impl DmaMapping {
    /// Maps the scatter list of `data` for `dev`.
    ///
    /// # Safety
    ///
    /// `data` must belong to a live request whose scatter list stays valid until the
    /// returned mapping is dropped.
    unsafe fn new(dev: *mut kernel::bindings::device, data: &bindings::mmc_data) -> Result<Self> {
        let sg = data.sg.cast::<kernel::bindings::scatterlist>();
        let nents = i32::try_from(data.sg_len)?;
        if sg.is_null() || nents == 0 {
            return Err(EINVAL);
        }
        let dir = dma_direction(data);
        // SAFETY: `sg` holds `nents` entries that stay valid as long as the mapping (the
        // caller's guarantee).
        let mapped = unsafe { kernel::bindings::dma_map_sg_attrs(dev, sg, nents, dir, 0) };
        if mapped == 0 {
            return Err(ENOMEM);
        }
        // INVARIANT: mapped with exactly these arguments, `mapped` > 0.
        Ok(Self {
            dev,
            sg,
            nents,
            mapped,
            dir,
        })
    }
}

impl Drop for DmaMapping {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the list was mapped with these arguments.
        unsafe { kernel::bindings::dma_unmap_sg_attrs(self.dev, self.sg, self.nents, self.dir, 0) };
    }
}

/// The `count` DMA segments of a mapped scatter list starting at `sg`.
///
/// # Safety
///
/// `sg` must be a scatter list mapped for DMA with at least `count` mapped segments, valid
/// while the iterator is used.
unsafe fn segments(
    sg: *mut kernel::bindings::scatterlist,
    count: u32,
) -> impl Iterator<Item = Segment> {
    let mut next = sg;
    (0..count).map_while(move |_| {
        if next.is_null() {
            return None;
        }
        let sg = next;
        // SAFETY: `sg` is one of the first `count` entries of the mapped list (the caller's
        // guarantee), which `sg_next` walks (following chain entries) as the DMA API laid
        // them out.
        let segment = unsafe {
            next = kernel::bindings::sg_next(sg);
            Segment {
                bus_address: kernel::bindings::sg_dma_address(sg),
                len: kernel::bindings::sg_dma_len(sg),
            }
        };
        Some(segment)
    })
}

/// The data of a request the core is preparing (`pre_req`), before it is issued.
///
/// # Invariants
///
/// `host` and `data` are valid for `'a`, and the core keeps the request from being issued
/// or completed meanwhile.
pub struct PreparedData<'a> {
    host: NonNull<bindings::mmc_host>,
    data: &'a mut bindings::mmc_data,
}

impl<'a> PreparedData<'a> {
    /// Wraps the data of a `pre_req` callback.
    ///
    /// # Safety
    ///
    /// `host` and `data` must be the (live) arguments of a `pre_req` callback.
    pub(super) unsafe fn from_raw(
        host: NonNull<bindings::mmc_host>,
        data: &'a mut bindings::mmc_data,
    ) -> Self {
        Self { host, data }
    }

    /// Maps the data for the controller's DMA now, so that issuing the request (possibly
    /// from the previous request's completion interrupt) does not map it, and completing it
    /// does not unmap it: the core's `post_req` does. Mapping twice is refused.
    pub fn map_ahead(&mut self) -> Result {
        if self.data.host_cookie == MAPPED_AHEAD {
            return Err(EBUSY);
        }
        // SAFETY: by the type invariant the host is alive.
        let dev = unsafe { dma_device(self.host) };
        // SAFETY: the request stays alive until `post_req`, which unmaps (see
        // `unmap_ahead`): the mapping is forgotten here and owned by the cookie.
        let mapping = unsafe { DmaMapping::new(dev, self.data) }?;
        self.data.sg_count = i32::try_from(mapping.mapped)?;
        self.data.host_cookie = MAPPED_AHEAD;
        core::mem::forget(mapping);
        Ok(())
    }
}

/// Undoes [`PreparedData::map_ahead`] for the core's `post_req` (and `cqe_post_req`); data
/// that was not mapped ahead is left alone.
///
/// # Safety
///
/// `host` must be alive and `mrq` a live request of it that is no longer with the driver.
pub(super) unsafe fn unmap_ahead(
    host: NonNull<bindings::mmc_host>,
    mrq: NonNull<bindings::mmc_request>,
) {
    // SAFETY: the caller guarantees the request is alive; `data` is null or valid.
    let Some(data) = (unsafe { (*mrq.as_ptr()).data.as_mut() }) else {
        return;
    };
    if data.host_cookie != MAPPED_AHEAD {
        return;
    }
    data.host_cookie = 0;
    let sg = data.sg.cast::<kernel::bindings::scatterlist>();
    let nents = i32::try_from(data.sg_len).unwrap_or(0);
    // SAFETY: `map_ahead` mapped exactly this list for this device and direction; the
    // cookie is cleared first, so it is unmapped once.
    unsafe {
        kernel::bindings::dma_unmap_sg_attrs(dma_device(host), sg, nents, dma_direction(data), 0)
    };
}

/// How a request goes back to the MMC core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Route {
    /// From the host's `request` callback: `mmc_request_done`.
    Request,
    /// From `cqe_request` (a command queue engine or the host software queue):
    /// `mmc_cqe_request_done`.
    Queue,
}

/// An `mmc_request` the MMC core passed to the host's `request` or `cqe_request` callback.
///
/// # Invariants
///
/// `host` and `request` are valid: the core keeps both alive until the request is
/// completed, which happens exactly once, by [`Request::complete`], [`Request::fail`] or
/// the drop of a request never completed. A request on [`Route::Request`] has a command.
pub struct Request {
    host: NonNull<bindings::mmc_host>,
    request: NonNull<bindings::mmc_request>,
    route: Route,
    mapping: Option<DmaMapping>,
}

// SAFETY: a request may be completed from any context (the IRQ handler, a work item);
// `mmc_request_done`, `mmc_cqe_request_done` and the DMA unmapping have no thread affinity.
unsafe impl Send for Request {}

impl Request {
    /// Wraps a request passed to the host's `request` (`route` [`Route::Request`]) or
    /// `cqe_request` ([`Route::Queue`]) callback. `None` for a request the core could not
    /// take back on that route (a `request` without a command): nothing can complete it.
    ///
    /// # Safety
    ///
    /// `host` and `request` must be the arguments of that callback, and the returned value
    /// must be the only handle through which the request is completed.
    pub(super) unsafe fn from_raw(
        host: NonNull<bindings::mmc_host>,
        request: NonNull<bindings::mmc_request>,
        route: Route,
    ) -> Option<Self> {
        // SAFETY: the caller passes a live request.
        let has_command = unsafe { !(*request.as_ptr()).cmd.is_null() };
        if route == Route::Request && !has_command {
            return None;
        }
        // INVARIANT: the caller guarantees both pointers stay valid until completion, and
        // a request on `Route::Request` has a command.
        Some(Self {
            host,
            request,
            route,
            mapping: None,
        })
    }

    /// Gives the request back to the core uncompleted: it refused the request (an
    /// `-EBUSY` from `cqe_request`) and still owns it.
    pub(super) fn into_refused(self) {
        let mut this = core::mem::ManuallyDrop::new(self);
        // The mapping is the driver's, not the core's.
        drop(this.mapping.take());
    }

    /// Identifies the request among those live on its host.
    pub(super) fn address(&self) -> usize {
        self.request.as_ptr() as usize
    }

    /// The raw request, for the layer's own calls into the core.
    pub(super) fn raw_ptr(&self) -> *mut bindings::mmc_request {
        self.request.as_ptr()
    }

    fn raw(&self) -> &bindings::mmc_request {
        // SAFETY: by the type invariant `request` is valid until completion.
        unsafe { self.request.as_ref() }
    }

    fn command(&self) -> Option<&bindings::mmc_command> {
        // SAFETY: `cmd` is either null or points to a command that lives as long as the
        // request.
        unsafe { self.raw().cmd.as_ref() }
    }

    /// The request as the engines take it: its commands and data phase. `None` for a
    /// request without a command (a command queue engine's data task).
    pub fn spec(&self) -> Option<crate::mmc_request::Request> {
        Some(crate::mmc_request::Request {
            sbc: self.sbc(),
            cmd: self.command().map(command_of)?,
            data: self.data(),
            stop: self.stop(),
        })
    }

    /// Whether the request is for an eMMC (false while the core is still identifying the
    /// card, when no card is attached yet). Upstream uses the hardware auto-CMD23 for eMMC
    /// only.
    pub fn for_mmc_card(&self) -> bool {
        // SAFETY: by the type invariant the host is alive while the request is; the core
        // sets `card` before a card's first request and clears it only with the host
        // claimed, which a request in progress holds.
        let card = unsafe { (*self.host.as_ptr()).card };
        // SAFETY: a non-null `card` is the host's attached card, alive as argued above.
        !card.is_null() && unsafe { (*card).type_ } == bindings::MMC_TYPE_MMC
    }

    /// The command, if the request has one.
    pub fn cmd(&self) -> Option<Command> {
        self.command().map(command_of)
    }

    /// SET_BLOCK_COUNT to send before the command, if any.
    fn sbc(&self) -> Option<Command> {
        // SAFETY: `sbc` is null or lives as long as the request.
        unsafe { self.raw().sbc.as_ref() }.map(command_of)
    }

    /// STOP_TRANSMISSION to send after the data, if any.
    fn stop(&self) -> Option<Command> {
        // SAFETY: `stop` is null or lives as long as the request.
        unsafe { self.raw().stop.as_ref() }.map(command_of)
    }

    pub(super) fn data_raw(&self) -> Option<&bindings::mmc_data> {
        // SAFETY: `data` is null or lives as long as the request.
        unsafe { self.raw().data.as_ref() }
    }

    /// The data phase, if any.
    pub fn data(&self) -> Option<Data> {
        self.data_raw().map(|data| Data {
            block_size: data.blksz,
            blocks: data.blocks,
            direction: if data.flags & MMC_DATA_WRITE != 0 {
                Direction::Write
            } else {
                Direction::Read
            },
            timeout_ns: data.timeout_ns,
            timeout_clks: data.timeout_clks,
        })
    }

    /// Maps the data's scatter list for the controller (the host's parent device) and
    /// returns its segments in order. Data the core's `pre_req` had mapped ahead is used as
    /// it is; otherwise the mapping lasts until the request completes.
    pub fn map_data(&mut self) -> Result<impl Iterator<Item = Segment> + '_> {
        let data = self.data_raw().ok_or(EINVAL)?;
        let (sg, count) = if data.host_cookie == MAPPED_AHEAD {
            (
                data.sg.cast::<kernel::bindings::scatterlist>(),
                u32::try_from(data.sg_count)?,
            )
        } else {
            if self.mapping.is_none() {
                // SAFETY: by the type invariant the host is alive.
                let dev = unsafe { dma_device(self.host) };
                // SAFETY: the request (and its scatter list) lives until completion, which
                // drops the mapping first.
                self.mapping = Some(unsafe { DmaMapping::new(dev, data) }?);
            }
            match &self.mapping {
                Some(mapping) => (mapping.sg, mapping.mapped),
                None => (core::ptr::null_mut(), 0),
            }
        };
        // SAFETY: `sg` has `count` mapped segments, valid until completion, and the
        // iterator borrows `self`.
        Ok(unsafe { segments(sg, count) })
    }

    /// Completes the request with `error` on its command (and set-block-count and data, if
    /// any): for a request that could not run.
    pub fn fail(self, error: Error) {
        self.finish(Ending::Failed(error.to_errno()));
    }

    /// Records `result` in the request and hands it back to the MMC core.
    pub fn complete(self, result: &RequestResult) {
        self.finish(Ending::Ran(result));
    }

    /// Completes a command queue engine's task: `bytes_xfered` and `error` go to its data
    /// phase, or, for a direct command, `error` and `response` to its command.
    pub(super) fn complete_task(self, bytes_xfered: u32, error: Option<ErrorKind>, response: u32) {
        let mut this = core::mem::ManuallyDrop::new(self);
        drop(this.mapping.take());
        let request = this.request.as_ptr();
        let code = errno(error);
        // SAFETY: by the type invariant the request and its members are valid, and until
        // the core's completion runs nobody else writes these fields.
        unsafe {
            if let Some(data) = (*request).data.as_mut() {
                data.bytes_xfered = bytes_xfered;
                data.error = code;
            } else if let Some(cmd) = (*request).cmd.as_mut() {
                cmd.resp = [response, 0, 0, 0];
                cmd.error = code;
            }
        }
        this.hand_back();
    }

    /// Writes `ending` into the request and hands it back to the MMC core.
    fn finish(self, ending: Ending<'_>) {
        let mut this = core::mem::ManuallyDrop::new(self);
        this.end(ending);
    }

    /// Writes `ending` into the request and hands it back; the caller makes sure it runs
    /// once.
    fn end(&mut self, ending: Ending<'_>) {
        // Undo the DMA mapping before the core (and the block layer) see the buffers.
        drop(self.mapping.take());
        let request = self.request.as_ptr();
        // SAFETY: by the type invariant the request and its members are valid, and until
        // the core's completion runs nobody else writes these fields.
        unsafe {
            let set_cmd = |cmd: *mut bindings::mmc_command, answer: ([u32; 4], c_int)| {
                if let Some(cmd) = cmd.as_mut() {
                    (cmd.resp, cmd.error) = answer;
                }
            };
            set_cmd((*request).cmd, ending.cmd());
            if let Some(sbc) = ending.sbc() {
                set_cmd((*request).sbc, sbc);
            }
            if let Some(stop) = ending.stop() {
                set_cmd((*request).stop, stop);
            }
            if let Some(data) = (*request).data.as_mut() {
                (data.bytes_xfered, data.error) = ending.data();
            }
        }
        self.hand_back();
    }

    /// The core's completion for the request's route.
    fn hand_back(&self) {
        let (host, request) = (self.host.as_ptr(), self.request.as_ptr());
        // SAFETY: by the type invariant both are valid, a request on `Route::Request` has
        // the command `mmc_request_done` reads, and every caller completes the request once
        // (consuming or forgetting `self`).
        unsafe {
            match self.route {
                Route::Request => {
                    // On a host running the kernel's C software queue, the requests it
                    // dispatched go back through it (`mmc_hsq_finalize_request`).
                    #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
                    if super::c_engines::hsq_finalize(host, request) {
                        return;
                    }
                    bindings::mmc_request_done(host, request)
                }
                Route::Queue => bindings::mmc_cqe_request_done(host, request),
            }
        }
    }
}

impl Drop for Request {
    /// A request dropped without being completed fails with `-EIO`, so the core never waits
    /// for a request the driver lost track of; but not here: a drop may run under a driver
    /// lock that the core's completion takes again (an HSQ host's error recovery does). The
    /// failure is handed to a work item, which completes it in process context, no driver
    /// lock held.
    fn drop(&mut self) {
        kernel::pr_warn!("a request was dropped uncompleted; failing it from a work item\n");
        deferred::fail(self);
    }
}

/// The failures of dropped requests, run from the kernel's default work queue.
mod deferred {
    use core::{
        mem::ManuallyDrop,
        sync::atomic::{AtomicUsize, Ordering},
    };

    use kernel::{
        new_work,
        prelude::*,
        time::{delay::fsleep, Delta},
        workqueue::{impl_has_work, Work, WorkItem},
    };

    use super::{Ending, Request};

    /// Failures queued and not yet run. Their work items run the module's code: host
    /// removal waits until none is left ([`wait_for_all`]).
    static PENDING: AtomicUsize = AtomicUsize::new(0);

    /// A dropped request on its way back to the core.
    #[pin_data]
    struct Failure {
        /// Ended and handed back exactly once, by `run`; never dropped.
        request: ManuallyDrop<Request>,
        #[pin]
        work: Work<Failure>,
    }

    impl_has_work! {
        impl HasWork<Self> for Failure { self.work }
    }

    impl WorkItem for Failure {
        type Pointer = Pin<KBox<Failure>>;

        fn run(mut this: Pin<KBox<Failure>>) {
            // SAFETY: `request` is not structurally pinned; nothing moves out of the box.
            let failure = unsafe { this.as_mut().get_unchecked_mut() };
            failure.request.end(Ending::Failed(EIO.to_errno()));
            PENDING.fetch_sub(1, Ordering::Release);
        }
    }

    /// Takes over `dropped` (left without its DMA mapping) and fails it from a work item;
    /// in place if no memory is left for one, which is only right with no driver lock
    /// held, but the alternative is a request the core would wait for without end.
    pub(super) fn fail(dropped: &mut Request) {
        let (host, request, route) = (dropped.host, dropped.request, dropped.route);
        let mapping = dropped.mapping.take();
        PENDING.fetch_add(1, Ordering::Relaxed);
        // On an allocation failure the initialiser, and the mapping it holds, is dropped:
        // the buffers are unmapped before the core sees them either way.
        let failure = KBox::pin_init(
            pin_init!(Failure {
                request: ManuallyDrop::new(Request { host, request, route, mapping }),
                work <- new_work!("mmc::Request::drop"),
            }),
            GFP_ATOMIC,
        );
        match failure {
            // A new item is never queued already: the enqueue cannot fail.
            Ok(failure) => super::super::default_workqueue().enqueue(failure),
            Err(_) => {
                kernel::pr_err!("no memory to defer a dropped request; failing it here\n");
                let mut request = ManuallyDrop::new(Request {
                    host,
                    request,
                    route,
                    mapping: None,
                });
                request.end(Ending::Failed(EIO.to_errno()));
                PENDING.fetch_sub(1, Ordering::Release);
            }
        }
    }

    /// Waits until every queued failure has run. Process context only.
    pub(crate) fn wait_for_all() {
        while PENDING.load(Ordering::Acquire) != 0 {
            fsleep(Delta::from_millis(1));
        }
    }
}

pub(crate) use deferred::wait_for_all as wait_for_dropped_requests;
