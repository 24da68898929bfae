// SPDX-License-Identifier: GPL-2.0

//! What the queue asks its caller to do after an event, once the caller has released the
//! lock that guards the queue.

/// Work for the caller, returned by every event that can start a request or wake a waiter.
///
/// The caller drops its lock, wakes the idle waiters if asked, then issues the dispatch.
#[must_use = "a dropped dispatch leaves the queue waiting for a request the host never got"]
#[derive(Debug)]
pub struct Actions<R> {
    /// A request to hand to the host's `request` operation.
    pub dispatch: Option<Dispatch<R>>,
    /// Whether to wake the tasks sleeping in `wait_for_idle`, `disable` or `suspend`.
    pub wake_idle_waiters: bool,
}

impl<R> Actions<R> {
    pub(crate) fn with_dispatch(dispatch: Option<Dispatch<R>>) -> Self {
        Self {
            dispatch,
            wake_idle_waiters: false,
        }
    }
}

/// The one request the host now owns, to be issued with the host's `request` operation.
///
/// Only the queue creates a `Dispatch`, and the token is consumed by exactly one outcome:
/// [`Dispatch::accepted`] when the host started the request (its completion path then calls
/// `finalize_request`), `Hsq::host_busy` when the host asks to be retried from process
/// context, or `Hsq::host_failed` when the host refused the request before it reached the
/// hardware. Since a refusal is itself an outcome, a request the host never started cannot
/// stay "in flight" and stall the queue.
#[must_use = "report how the host took the request: accepted, host_busy or host_failed"]
#[derive(Debug)]
pub struct Dispatch<R> {
    pub(crate) request: R,
    pub(crate) generation: u32,
    pub(crate) depth: u8,
}

impl<R: Copy> Dispatch<R> {
    /// The request to issue.
    pub fn request(&self) -> R {
        self.request
    }

    /// The depth to publish as `mmc_host::hsq_depth` before issuing, chosen at this dispatch.
    pub fn depth(&self) -> u8 {
        self.depth
    }

    /// The host started the request; its completion will come through `finalize_request`.
    pub fn accepted(self) {}
}

/// A request the host has finished with, to be completed to the MMC core.
///
/// The caller completes the request (`mmc_cqe_request_done`) with the lock released, because
/// completion may call back into the queue (`recovery_start`), and then hands this token to
/// `Hsq::request_done`, which frees the host for the next request.
#[must_use = "pass the token to request_done or the queue never dispatches again"]
#[derive(Debug)]
pub struct Finished<R> {
    pub(crate) request: R,
    pub(crate) generation: u32,
}

impl<R: Copy> Finished<R> {
    /// The request to complete.
    pub fn request(&self) -> R {
        self.request
    }
}

/// Answer to `Hsq::poll_idle`, the condition of `cqe_wait_for_idle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleState {
    /// Nothing queued and nothing with the host: stop waiting, return 0.
    Idle,
    /// Recovery is in progress: stop waiting, return `-EBUSY`.
    Recovering,
    /// Requests remain: keep sleeping until an event asks to wake the idle waiters.
    Busy,
}

/// Answer to `Hsq::try_disable` and `Hsq::try_suspend`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// The queue is now disabled (or suspended).
    Done,
    /// Requests remain; nothing changed. Sleep until woken and try again, up to the deadline.
    Busy,
}
