// SPDX-License-Identifier: GPL-2.0

//! The host software queue engine: it accepts up to 64 tagged requests, hands them to a host
//! that runs one at a time in arrival order, and tells its caller what to do next.
//!
//! The engine never calls out. Every method is an event; the ones that can start a request
//! or wake a sleeper return [`Actions`], which the caller carries out after dropping the lock
//! that guards the engine. That is what lets the kernel glue keep a spinlock around the
//! engine without holding it across the host's `request` operation or the MMC core's
//! completion, both of which can re-enter the queue.
//!
//! # Contract with the caller
//!
//! * **Locking.** One lock (in the kernel, an IRQ-safe spinlock) guards the engine; every
//!   method is called with it held and every returned action is performed with it released.
//! * **Issuing.** For each [`Dispatch`]: publish [`Dispatch::depth`] as `hsq_depth`, call the
//!   host's `request`, then report the outcome with [`Dispatch::accepted`],
//!   [`Hsq::host_busy`] (then schedule the retry work, which calls [`Hsq::retry`] from process
//!   context) or [`Hsq::host_failed`] (then complete the request as below). A completion can
//!   arrive before `request` returns; the engine accepts it.
//! * **Completing.** The host's completion path calls [`Hsq::finalize_request`]. On
//!   [`HsqError::NotInFlight`] the request is not the queue's and the host completes it the
//!   legacy way. Otherwise the caller drops the lock, calls `mmc_cqe_request_done`, and passes
//!   the [`Finished`] token to [`Hsq::request_done`]. The split keeps a `recovery_start` made
//!   from inside the MMC core's completion ahead of the next dispatch.
//! * **Chains.** Carrying out actions can produce more actions (a failed issue completes,
//!   which dispatches the next request). The caller loops rather than recursing, so a run of
//!   failures does not deepen the stack.
//! * **Waiting.** `cqe_wait_for_idle` sleeps until [`Hsq::poll_idle`] is not
//!   [`IdleState::Busy`]; `cqe_disable` and runtime suspend sleep, for at most 500 ms, until
//!   [`Hsq::try_disable`] or [`Hsq::try_suspend`] return [`Progress::Done`]. Each check runs
//!   under the lock after the sleeper has joined the wait queue, and a check that answers
//!   "busy" records a waiter, so the next event that can change the answer asks to wake it
//!   ([`Actions::wake_idle_waiters`]). A disable that times out changes nothing.

use super::actions::{Actions, Dispatch, Finished, IdleState, Progress};
use super::depth::{DepthPolicy, RequestShape, NORMAL_DEPTH};
use super::error::HsqError;
use super::fifo::TagFifo;
use super::tag::{Tag, SLOT_COUNT};

/// How long `cqe_disable` and runtime suspend wait for the queue to drain.
pub const DISABLE_TIMEOUT_MS: u32 = 500;

/// A request holding a slot: queued, or with the host until it is finalized.
#[derive(Clone, Copy, Debug)]
struct Entry<R> {
    request: R,
    shape: RequestShape,
}

/// Where the request owned by the host stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Handed to the host's `request` operation; the host completes it.
    Issued,
    /// The host answered busy; the retry work or the end of recovery issues it again.
    Deferred,
    /// Finalized; the host is released once the MMC core has seen the completion.
    Finished,
}

/// The request owned by the host. `generation` names the dispatch, so that tokens from an
/// earlier dispatch of the same tag cannot act on this one.
#[derive(Clone, Copy, Debug)]
struct HostOwned<R> {
    tag: Tag,
    request: R,
    generation: u32,
    phase: Phase,
}

/// The host software queue for one MMC host, generic over the request handle `R` (in the
/// kernel, a pointer to the `mmc_request`).
///
/// Handles are compared to recognise the request the host completes, so two requests that
/// are live at the same time must have different handles.
#[derive(Debug)]
pub struct Hsq<R> {
    /// Requests by tag, from submission until they are finalized.
    slots: [Option<Entry<R>>; SLOT_COUNT],
    /// Tags of requests not yet dispatched, oldest first.
    arrivals: TagFifo,
    with_host: Option<HostOwned<R>>,
    policy: DepthPolicy,
    published_depth: u8,
    generation: u32,
    /// Set by the MMC core (`cqe_enable` / `cqe_disable`).
    enabled: bool,
    /// Set by runtime PM, independently of `enabled`, so that a resume never enables a queue
    /// the MMC core has not enabled.
    suspended: bool,
    /// Recovery in progress: no new request is accepted or dispatched.
    halted: bool,
    /// Someone is sleeping until the queue drains or recovery starts.
    idle_waiters: bool,
}

impl<R: Copy + PartialEq> Default for Hsq<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R: Copy + PartialEq> Hsq<R> {
    /// A disabled, empty queue that publishes [`NORMAL_DEPTH`].
    pub const fn new() -> Self {
        Self {
            slots: [const { None }; SLOT_COUNT],
            arrivals: TagFifo::new(),
            with_host: None,
            policy: DepthPolicy::new(),
            published_depth: NORMAL_DEPTH,
            generation: 0,
            enabled: false,
            suspended: false,
            halted: false,
            idle_waiters: false,
        }
    }

    /// `cqe_enable`: makes the queue accept requests.
    pub fn enable(&mut self) -> Result<(), HsqError> {
        if self.enabled {
            return Err(HsqError::AlreadyEnabled);
        }
        self.enabled = true;
        Ok(())
    }

    /// `cqe_disable`: disables the queue if nothing is queued or with the host.
    ///
    /// Disabling an already disabled queue is done at once.
    pub fn try_disable(&mut self) -> Progress {
        let progress = self.quiesce();
        if progress == Progress::Done {
            self.enabled = false;
        }
        progress
    }

    /// Runtime suspend: like [`Hsq::try_disable`], but undone by [`Hsq::resume`] rather than
    /// by [`Hsq::enable`].
    pub fn try_suspend(&mut self) -> Progress {
        let progress = self.quiesce();
        if progress == Progress::Done {
            self.suspended = true;
        }
        progress
    }

    /// Runtime resume: undoes [`Hsq::try_suspend`].
    pub fn resume(&mut self) -> Result<(), HsqError> {
        if !self.suspended {
            return Err(HsqError::NotSuspended);
        }
        self.suspended = false;
        Ok(())
    }

    /// `cqe_request`: queues `request` under the block-layer `tag`, and dispatches it if the
    /// host is free.
    pub fn request(
        &mut self,
        tag: i32,
        request: R,
        shape: RequestShape,
    ) -> Result<Actions<R>, HsqError> {
        if !self.is_operational() {
            return Err(HsqError::Shutdown);
        }
        if self.halted {
            return Err(HsqError::Busy);
        }
        let tag = Tag::from_raw(tag).ok_or(HsqError::InvalidTag)?;
        let slot = &mut self.slots[tag.index()];
        if slot.is_some() {
            return Err(HsqError::TagInUse);
        }
        *slot = Some(Entry { request, shape });
        self.policy.track(shape);
        self.arrivals.push_back(tag);
        // A request the host answered busy to waits for the retry work, not for the next
        // arrival.
        let dispatch = if self.with_host.is_none() {
            self.next_dispatch()
        } else {
            None
        };
        Ok(Actions::with_dispatch(dispatch))
    }

    /// The host answered busy to `dispatch`. The request stays with the host side; the
    /// caller schedules the retry work, which calls [`Hsq::retry`].
    pub fn host_busy(&mut self, dispatch: Dispatch<R>) -> Result<(), HsqError> {
        self.owned_mut(dispatch.generation, Phase::Issued)?.phase = Phase::Deferred;
        Ok(())
    }

    /// The retry work, in process context: issues again the request the host answered busy
    /// to, unless recovery is in progress ([`Hsq::recovery_finish`] issues it then).
    pub fn retry(&mut self) -> Actions<R> {
        Actions::with_dispatch(self.next_dispatch())
    }

    /// The host refused `dispatch` before it reached the hardware (for example, its DMA
    /// mapping failed) and has recorded the error in the request. The request is finished:
    /// complete it as after [`Hsq::finalize_request`].
    pub fn host_failed(&mut self, dispatch: Dispatch<R>) -> Result<Finished<R>, HsqError> {
        self.retire(dispatch.generation)
    }

    /// The host's completion path, for `request`. Succeeds only for the request the host
    /// owns; anything else is left alone and answered with [`HsqError::NotInFlight`].
    pub fn finalize_request(&mut self, request: &R) -> Result<Finished<R>, HsqError> {
        match self.with_host {
            Some(owned) if owned.phase == Phase::Issued && owned.request == *request => {
                self.retire(owned.generation)
            }
            _ => Err(HsqError::NotInFlight),
        }
    }

    /// Releases the host after the MMC core has seen the completion of `finished`, and
    /// dispatches the next request unless recovery has started meanwhile.
    pub fn request_done(&mut self, finished: Finished<R>) -> Result<Actions<R>, HsqError> {
        self.owned_mut(finished.generation, Phase::Finished)?;
        self.with_host = None;
        let wake_idle_waiters = self.idle_waiters && self.is_idle();
        if wake_idle_waiters {
            self.idle_waiters = false;
        }
        Ok(Actions {
            dispatch: self.next_dispatch(),
            wake_idle_waiters,
        })
    }

    /// `cqe_wait_for_idle`'s condition. Answering [`IdleState::Busy`] records a waiter.
    pub fn poll_idle(&mut self) -> IdleState {
        if self.halted {
            return IdleState::Recovering;
        }
        match self.quiesce() {
            Progress::Done => IdleState::Idle,
            Progress::Busy => IdleState::Busy,
        }
    }

    /// Whether nothing is queued and nothing is with the host.
    pub fn is_idle(&self) -> bool {
        self.with_host.is_none() && self.arrivals.is_empty()
    }

    /// `cqe_timeout`: whether `request`, submitted under `tag`, is still queued or with the
    /// host. Recovery is never needed on the queue's account: the host driver's own timer
    /// completes a hung request.
    pub fn timeout(&self, tag: i32, request: &R) -> bool {
        Tag::from_raw(tag).is_some_and(
            |tag| matches!(&self.slots[tag.index()], Some(entry) if entry.request == *request),
        )
    }

    /// `cqe_recovery_start`: stops dispatching and refuses new requests with
    /// [`HsqError::Busy`]. Wakes `cqe_wait_for_idle` so that it can report the recovery.
    pub fn recovery_start(&mut self) -> Actions<R> {
        self.halted = true;
        Actions {
            dispatch: None,
            wake_idle_waiters: core::mem::take(&mut self.idle_waiters),
        }
    }

    /// `cqe_recovery_finish`: resumes dispatching where recovery stopped it.
    pub fn recovery_finish(&mut self) -> Actions<R> {
        self.halted = false;
        Actions::with_dispatch(self.next_dispatch())
    }

    /// `cqe_off`: nothing to do. The host runs every queued request as an ordinary command,
    /// so there is no command-queue mode to leave (the MMC core never calls this for a
    /// software queue, as it never sets `cqe_on`).
    pub fn off(&self) {}

    /// The depth chosen at the latest dispatch, for `mmc_host::hsq_depth`.
    pub fn depth(&self) -> u8 {
        self.published_depth
    }

    /// Whether the MMC core has enabled the queue.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Whether runtime PM has suspended the queue.
    pub fn is_suspended(&self) -> bool {
        self.suspended
    }

    /// Whether recovery is in progress.
    pub fn is_halted(&self) -> bool {
        self.halted
    }

    fn is_operational(&self) -> bool {
        self.enabled && !self.suspended
    }

    /// Answers whether the queue is idle, recording a waiter if it is not.
    fn quiesce(&mut self) -> Progress {
        if self.is_idle() {
            Progress::Done
        } else {
            self.idle_waiters = true;
            Progress::Busy
        }
    }

    /// The request the host owns, if `generation` names its dispatch and it is in `phase`.
    fn owned_mut(&mut self, generation: u32, phase: Phase) -> Result<&mut HostOwned<R>, HsqError> {
        match &mut self.with_host {
            Some(owned) if owned.generation == generation && owned.phase == phase => Ok(owned),
            _ => Err(HsqError::StaleToken),
        }
    }

    /// Marks the issued request `generation` finished and frees its slot and tag.
    fn retire(&mut self, generation: u32) -> Result<Finished<R>, HsqError> {
        let owned = self.owned_mut(generation, Phase::Issued)?;
        owned.phase = Phase::Finished;
        let (tag, request) = (owned.tag, owned.request);
        if let Some(entry) = self.slots[tag.index()].take() {
            self.policy.untrack(entry.shape);
        }
        Ok(Finished {
            request,
            generation,
        })
    }

    /// Gives the host its next request: the deferred one again, or else the oldest queued
    /// one, choosing the depth to publish at that moment.
    fn next_dispatch(&mut self) -> Option<Dispatch<R>> {
        if self.halted || !self.is_operational() {
            return None;
        }
        let generation = self.generation.wrapping_add(1);
        let request = match &mut self.with_host {
            Some(owned) if owned.phase == Phase::Deferred => {
                owned.phase = Phase::Issued;
                owned.generation = generation;
                owned.request
            }
            Some(_) => return None,
            None => {
                let tag = self.arrivals.pop_front()?;
                let entry = self.slots[tag.index()]?;
                self.published_depth = self.policy.depth();
                self.with_host = Some(HostOwned {
                    tag,
                    request: entry.request,
                    generation,
                    phase: Phase::Issued,
                });
                entry.request
            }
        };
        self.generation = generation;
        Some(Dispatch {
            request,
            generation,
            depth: self.published_depth,
        })
    }
}
