// SPDX-License-Identifier: GPL-2.0

//! The MMC core's command queue interface (`mmc_cqe_ops`) of the slot: each call goes to
//! the slot's queue engine, CQHCI or the host software queue.

use core::sync::atomic::Ordering;

use kernel::{
    prelude::*,
    sync::CondVarTimeoutResult,
    time::{delay::fsleep, msecs_to_jiffies, Delta, Instant, Monotonic},
};

use super::{
    counters::Mode, hardware_queue::cqhci_errno, software_queue::hsq_errno, Msdc, MsdcSlot, Queue,
    State, IDLE_WAIT_LIMIT_MS, WAIT_RECHECK_MS,
};
use crate::{
    cqhci, hsq,
    kernel_mmc::{CqeOps, Host, QueueCard, QueuedRequest, Refused, RequestId},
    slot::{command_queue, software_queue},
};

impl Msdc {
    /// Sleeps until `check` (run under the lock) answers, or `limit_ms` have passed
    /// (`None`). Each check runs after the waiter is on the wait queue, so a wake-up between
    /// the check and the sleep is not lost.
    pub(super) fn wait_for<T>(
        &self,
        limit_ms: i64,
        mut check: impl FnMut(&mut State) -> Option<T>,
    ) -> Option<T> {
        let deadline = Instant::<Monotonic>::now();
        let limit = Delta::from_millis(limit_ms);
        let mut guard = self.state.lock();
        loop {
            if let Some(answer) = check(&mut guard) {
                return Some(answer);
            }
            if deadline.elapsed() >= limit {
                return None;
            }
            let result = self
                .idle
                .wait_interruptible_timeout(&mut guard, msecs_to_jiffies(WAIT_RECHECK_MS));
            if let CondVarTimeoutResult::Signal { .. } = result {
                // A signal must not turn the wait into a busy loop: sleep out the step.
                drop(guard);
                fsleep(Delta::from_millis(i64::from(WAIT_RECHECK_MS)));
                guard = self.state.lock();
            }
        }
    }
}

#[vtable]
impl CqeOps for MsdcSlot {
    fn cqe_enable(&self, host: &Host, card: QueueCard) -> Result {
        let msdc = &self.msdc;
        let mut guard = msdc.state.lock();
        let state = &mut *guard;
        match &mut state.queue {
            Queue::OneAtATime => Err(EINVAL),
            Queue::Software(sq) => {
                sq.engine.enable().map_err(hsq_errno)?;
                host.set_hsq_depth(sq.engine.depth());
                msdc.counters.set_mode(Mode::Hsq);
                msdc.counters
                    .queue_depth
                    .store(u32::from(sq.engine.depth()), Ordering::Relaxed);
                Ok(())
            }
            Queue::Hardware(_) => {
                drop(guard);
                let rca = u16::try_from(card.rca).map_err(|_| EINVAL)?;
                let info = cqhci::CardInfo {
                    command_queue_enabled: card.command_queue_enabled,
                    rca,
                };
                match command_queue::enable(msdc, info) {
                    Some(Ok(depth)) => {
                        msdc.counters.set_mode(Mode::Cqe);
                        msdc.counters.queue_depth.store(depth, Ordering::Relaxed);
                        Ok(())
                    }
                    // The card has no command queue: the slot serves it one request at a
                    // time, as the core then expects.
                    Some(Err(e)) => Err(cqhci_errno(e)),
                    None => Err(EINVAL),
                }
            }
        }
    }

    fn cqe_disable(&self, _host: &Host) {
        let msdc = &self.msdc;
        let software = matches!(msdc.state.lock().queue, Queue::Software(_));
        if software {
            let done = msdc.wait_for(i64::from(hsq::DISABLE_TIMEOUT_MS), |state| match &mut state
                .queue
            {
                Queue::Software(sq) => {
                    (sq.engine.try_disable() == hsq::Progress::Done).then_some(())
                }
                _ => Some(()),
            });
            if done.is_none() {
                dev_warn!(
                    msdc.dev,
                    "could not stop the software queue: requests remain\n"
                );
            } else {
                msdc.counters.set_mode(Mode::Legacy);
            }
            return;
        }
        if command_queue::disable(msdc).is_some() {
            msdc.counters.set_mode(Mode::Legacy);
        }
    }

    fn cqe_request(&self, _host: &Host, request: QueuedRequest) -> Result<(), Refused> {
        let msdc = &self.msdc;
        #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
        crate::kernel_mmc::simboard::cost_loop(msdc.cost_loop);
        let hardware = matches!(msdc.state.lock().queue, Queue::Hardware(_));
        let queued = if hardware {
            command_queue::issue(msdc, request)
        } else {
            software_queue::enqueue(msdc, request)
        };
        queued.map_err(|refused| Refused {
            request: refused.request,
            error: refused.error,
        })
    }

    fn cqe_off(&self, _host: &Host) {
        command_queue::off(&self.msdc);
    }

    fn cqe_wait_for_idle(&self, _host: &Host) -> Result {
        let msdc = &self.msdc;
        let answer = msdc.wait_for(IDLE_WAIT_LIMIT_MS, |state| match &mut state.queue {
            Queue::OneAtATime => Some(Ok(())),
            Queue::Software(sq) => match sq.engine.poll_idle() {
                hsq::IdleState::Idle => Some(Ok(())),
                hsq::IdleState::Recovering => Some(Err(EBUSY)),
                hsq::IdleState::Busy => None,
            },
            Queue::Hardware(hq) => match hq.engine.idle_state() {
                cqhci::IdleState::Idle => Some(Ok(())),
                cqhci::IdleState::RecoveryNeeded => Some(Err(EBUSY)),
                cqhci::IdleState::Busy => None,
            },
        });
        answer.unwrap_or_else(|| {
            dev_err!(
                msdc.dev,
                "the queue did not drain in {} ms\n",
                IDLE_WAIT_LIMIT_MS
            );
            Err(ETIMEDOUT)
        })
    }

    fn cqe_timeout(&self, _host: &Host, request: RequestId) -> Option<bool> {
        // The software queue's requests have the driver's own watchdog.
        command_queue::timeout(&self.msdc, &request)
    }

    fn cqe_recovery_start(&self, _host: &Host) {
        let msdc = &self.msdc;
        msdc.counters.recoveries.fetch_add(1, Ordering::Relaxed);
        // From the core's completion, possibly in the interrupt handler.
        if !software_queue::recovery_start(msdc) {
            command_queue::recovery_start(msdc);
        }
    }

    fn cqe_recovery_finish(&self, _host: &Host) {
        let msdc = &self.msdc;
        if !software_queue::recovery_finish(msdc) {
            command_queue::recovery_finish(msdc);
        }
    }
}
