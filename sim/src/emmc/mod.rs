// SPDX-License-Identifier: GPL-2.0
//! eMMC card model (JESD84-B51): card states, EXT_CSD, legacy and command-queue transfers.

pub mod card;
pub mod command;
pub mod ext_csd;

pub use card::{Card, CardStats, DataError, QueuedTask, ReadyOrder, SECTOR_SIZE};
pub use command::{status, CardState, Command, NoResponse, Response};
pub use ext_csd::ExtCsd;
