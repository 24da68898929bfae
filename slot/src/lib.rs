// SPDX-License-Identifier: GPL-2.0

//! The slot logic of the MediaTek MSDC host driver: what the kernel glue decides under its
//! lock, written once for the kernel and the host tests.
//!
//! A slot runs the core's requests one at a time ([`start_request`]) or through the host
//! software queue ([`software_queue`]); either way a request goes to the request engine
//! (`msdc::controller::Controller`) and comes back through [`finish`], or through the
//! [`watchdog`]'s abort when its interrupt never comes. The order of those steps (the lock
//! taken and released, a request completed with the lock free, the next dispatch chosen
//! after the core saw the completion) lives here. What it needs of the kernel (its lock,
//! completing a request to the MMC core, the watchdog's timer, counters and the log) is
//! the [`SlotKernel`] trait: the driver implements it over the MMC abstraction layer, the
//! host tests over models of the controller and cards. The CQHCI command queue engine's
//! tasks, its interrupt and its waits go through [`command_queue`] the same way.
//!
//! Request ownership stays with the types: a request is in exactly one place (with its
//! caller, in the software queue's table, or on the controller as the token of
//! [`InFlight`]) and leaves through one [`SlotKernel`] call that consumes it.

#![cfg_attr(not(CONFIG_RUST), no_std)]
#![forbid(unsafe_code)]

// The crates below this one are crates of their own on the host and modules of the kernel
// crate in the kernel: `crate::<name>` names each in both builds.
#[cfg(not(CONFIG_RUST))]
extern crate cqhci;
#[cfg(not(CONFIG_RUST))]
extern crate hsq;
#[cfg(not(CONFIG_RUST))]
extern crate mmc_request;
#[cfg(not(CONFIG_RUST))]
extern crate msdc;
#[cfg(not(CONFIG_RUST))]
extern crate registers;

pub mod command_queue;
pub mod request;
pub mod sdio_irq;
pub mod services;
pub mod software_queue;
pub mod watchdog;

pub use request::{
    finish, interrupt, note_hardware_fault, recheck_sdio_irq, start_request, InterruptKind,
};
pub use services::{
    DescriptorArea, InFlight, Owner, QueueFault, QueuedSlotRequest, Refusal, SlotKernel, SlotOwner,
    SlotRequest, SlotView,
};
