// SPDX-License-Identifier: GPL-2.0

//! The slot logic against the models: the host software queue (`hsq`) on an eMMC and an
//! SD card, and the CQHCI engine (`cqhci`) on an eMMC with its command queue, each run by
//! the slot logic the kernel runs (`slot::software_queue`, `slot::command_queue`,
//! `slot::interrupt`) with a harness that plays the MMC core and block layer around it.
//!
//! Every test runs many requests at once with their data checked byte for byte, and
//! proves that each one was completed exactly once and none was lost, also when a data
//! CRC error, a response error or a timeout hits one of them and the core recovers; the
//! models must see nothing they forbid.

mod block;
mod board;
#[path = "../../../msdc/tests/common/mod.rs"]
mod common;
mod cqe_glue;
mod hardware_queue;
mod hsq_harness;
mod sdio_irq;
mod slot;
mod software_queue;
mod watchdog;
