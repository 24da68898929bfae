// SPDX-License-Identifier: GPL-2.0

//! The CQHCI command queue engine in the slot: its descriptor memory and the requests of
//! the tasks it holds (`slot::command_queue`, which decides every step), the errno its
//! refusals become, and the kernel's side of its waits and its log.

use kernel::{
    prelude::*,
    time::{delay::fsleep, Delta, Instant, Monotonic},
};

use super::{Msdc, CQHCI_WAIT_STEP_US};
use crate::{
    cqhci::{self, Cqhci, Wait, Warnings},
    kernel_mmc::{DescriptorMemory, QueuedRequest},
    slot::command_queue::{self, Operation},
};

/// The CQHCI engine, its descriptor memory, and the tasks it holds.
pub(super) type HardwareQueue = command_queue::HardwareQueue<QueuedRequest, DescriptorMemory>;

/// An engine for `config` with its memory, before `cqe_enable`, built where it is to live:
/// its task table takes kilobytes, too many for the probe's stack.
pub(super) fn new_hardware_queue(
    config: cqhci::Config,
    memory: DescriptorMemory,
    idle_timer: cqhci::regs::CQSSC1,
) -> core::result::Result<impl Init<HardwareQueue>, cqhci::Error> {
    let engine = Cqhci::new(config)?;
    Ok(pin_init::init!(HardwareQueue {
        engine,
        memory,
        tasks <- pin_init::init_array_from_fn(|_| None),
        completing: [None; cqhci::Tag::COUNT],
        idle_timer,
    }))
}

/// The errno the core expects for a command queue engine's refusal.
pub(super) fn cqhci_errno(error: cqhci::Error) -> Error {
    match error {
        cqhci::Error::Busy | cqhci::Error::SlotBusy => EBUSY,
        cqhci::Error::MemoryTooSmall => ENOMEM,
        _ => EINVAL,
    }
}

/// An operation's name in the log.
fn operation_name(operation: Operation) -> &'static str {
    match operation {
        Operation::Off => "off",
        Operation::Disable => "disable",
        Operation::Suspend => "suspend",
        Operation::RecoveryStart => "recovery start",
        Operation::RecoveryFinish => "recovery finish",
    }
}

impl Msdc {
    /// Sleeps until `wait`'s register condition holds or its time is up (the engine copes
    /// with either).
    pub(super) fn sleep_until(&self, wait: Wait) {
        let start = Instant::<Monotonic>::now();
        let limit = Delta::from_micros(i64::from(wait.timeout_us));
        while !wait.condition.is_met(&self.regs) && start.elapsed() < limit {
            fsleep(Delta::from_micros(CQHCI_WAIT_STEP_US));
        }
    }

    /// Logs the problems a CQHCI operation ran into.
    pub(super) fn log_warnings(&self, operation: Operation, warnings: Warnings) {
        let what = operation_name(operation);
        if warnings.contains(Warnings::STUCK_ON) {
            dev_err!(
                self.dev,
                "CQHCI {}: the controller did not halt (stuck on)\n",
                what
            );
        }
        if warnings.contains(Warnings::HALT_FAILED) {
            dev_err!(self.dev, "CQHCI {}: failed to halt\n", what);
        }
        if warnings.contains(Warnings::CLEAR_FAILED) {
            dev_err!(self.dev, "CQHCI {}: failed to clear the tasks\n", what);
        }
        if warnings.contains(Warnings::NOT_IN_RECOVERY) {
            dev_warn!(self.dev, "CQHCI {}: no error was pending\n", what);
        }
    }

    /// Logs what the command queue reported.
    pub(super) fn log_queue_event(&self, event: command_queue::QueueEvent) {
        use command_queue::QueueEvent;
        match event {
            QueueEvent::ErrorWhileIdle => {
                dev_warn!(self.dev, "CQHCI error while no task was queued\n")
            }
            QueueEvent::SpuriousCompletions(mask) => {
                dev_warn!(self.dev, "CQHCI completion for empty slots {:#x}\n", mask)
            }
            QueueEvent::NoRequestForTag(tag) => {
                dev_err!(self.dev, "CQHCI completed slot {} without a request\n", tag)
            }
            QueueEvent::EngineStuck(operation) => dev_err!(
                self.dev,
                "CQHCI {}: the engine did not finish\n",
                operation_name(operation)
            ),
            QueueEvent::EnableFailed(e) => dev_err!(self.dev, "CQHCI enable failed: {:?}\n", e),
            QueueEvent::TaskTimedOut => dev_err!(self.dev, "CQHCI task timed out\n"),
        }
    }
}
