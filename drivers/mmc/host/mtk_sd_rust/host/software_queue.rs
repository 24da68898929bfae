// SPDX-License-Identifier: GPL-2.0

//! The host software queue in the slot: the `hsq` engine and the requests it holds by tag
//! (`slot::software_queue`, which decides every step), and the errno its refusals
//! become.

use kernel::prelude::*;

use super::{Msdc, Queue};

use crate::{
    hsq::{Hsq, HsqError},
    kernel_mmc::QueuedRequest,
    slot::software_queue,
};

/// The host software queue and the requests it accepted but has not dispatched yet.
pub(super) type SoftwareQueue = software_queue::SoftwareQueue<QueuedRequest>;

/// An empty, disabled queue, built where it is to live: its table of waiting requests
/// takes kilobytes, too many for the probe's stack.
pub(super) fn new_software_queue() -> impl Init<SoftwareQueue> {
    pin_init::init!(SoftwareQueue {
        engine: Hsq::new(),
        waiting <- pin_init::init_array_from_fn(|_| None),
        bus_wait: None,
    })
}

/// The errno the core expects for a software queue's refusal.
pub(super) fn hsq_errno(error: HsqError) -> Error {
    match error {
        HsqError::Shutdown => ESHUTDOWN,
        HsqError::Busy | HsqError::AlreadyEnabled | HsqError::NotSuspended => EBUSY,
        _ => EINVAL,
    }
}

impl Msdc {
    /// Runs `f` on the software queue, if the slot has one.
    pub(super) fn with_software_queue<T>(
        &self,
        f: impl FnOnce(&mut SoftwareQueue) -> T,
    ) -> Option<T> {
        let mut state = self.state.lock();
        match &mut state.queue {
            Queue::Software(queue) => Some(f(queue)),
            _ => None,
        }
    }
}
