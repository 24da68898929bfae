// SPDX-License-Identifier: GPL-2.0

//! The legacy request engine (`msdc::controller`) driving the `models` MSDC controller model
//! with an SD or eMMC card model behind it: initialisation, transfers, every injected fault,
//! request timeouts, stray interrupts, card detect, SDIO interrupts, runtime suspend and
//! resume, and hardware whose self-clearing bits never clear. Register values in the
//! assertions are written out from the bit definitions, not produced by the code under test.

#[path = "../../../msdc/tests/common/mod.rs"]
mod common;
mod cqe;
mod emmc;
mod faults;
mod hardware;
mod power;
mod rig;
mod sd;
mod tuning;
