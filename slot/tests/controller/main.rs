// SPDX-License-Identifier: GPL-2.0

//! The slot logic and its legacy request engine (`msdc::controller`) driving the `models`
//! MSDC controller model with an SD or eMMC card model behind it: initialisation,
//! transfers, every injected fault, request timeouts, stray interrupts, card detect, SDIO
//! interrupts, runtime suspend and resume, and hardware whose self-clearing bits never
//! clear. Requests go through the slot logic the kernel runs (`slot::start_request`,
//! `slot::interrupt`, the watchdog); the engine's own calls (clock, power, tuning, its
//! refusals) straight to the engine. Register values in the assertions are written out
//! from the bit definitions, not produced by the code under test.

#[path = "../queue/block.rs"]
#[expect(
    dead_code,
    reason = "the block layer serves the queue target; the bench slot names its requests"
)]
mod block;
#[path = "../queue/board.rs"]
#[expect(
    dead_code,
    reason = "the queue bench serves the queue target; these tests use its bench trait"
)]
mod board;
#[path = "../../../msdc/tests/common/mod.rs"]
mod common;
mod cqe;
mod emmc;
mod faults;
mod hardware;
mod power;
mod rig;
mod sd;
#[path = "../queue/slot.rs"]
#[expect(
    dead_code,
    reason = "the bench slot serves the queue target too; these tests use part of it"
)]
mod slot;
mod tuning;
