// SPDX-License-Identifier: GPL-2.0
//! eMMC card model (JESD84-B51): card states, EXT_CSD, partitions, erase, legacy and
//! command-queue transfers, the HS200/HS400 timings with CMD21 tuning, and RST_n.

pub mod card;
pub mod command;
pub mod ext_csd;

pub use card::{
    Card, CardConfig, CardStats, DataError, QueuedTask, ReadyOrder, PARTITION_UNIT, SECTOR_SIZE,
};
pub use command::{status, CardState, CardWork, Command, NoResponse, Response};
pub use ext_csd::{ExtCsd, Geometry, TimingSupport};
