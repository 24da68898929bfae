// SPDX-License-Identifier: GPL-2.0

//! What the Linux 7.3 MMC core sends to eMMC and SD cards, replayed through the slot logic
//! the kernel runs and its legacy request engine (`msdc::controller`), against the `models`
//! MSDC model and card models: card initialisation and the block layer's requests as the
//! core builds them, the engine cross-checked against the models (faults, DMA descriptors,
//! clocks), and the time the model charges for it all.

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
#[expect(
    unused_imports,
    reason = "the builders serve the controller and queue targets too; these tests use part of them"
)]
mod common;
#[path = "../controller/rig.rs"]
#[expect(
    dead_code,
    reason = "the rig serves the controller target too; these tests use part of it"
)]
mod rig;
#[path = "../queue/slot.rs"]
#[expect(
    dead_code,
    reason = "the bench slot serves the queue target too; these tests use part of it"
)]
mod slot;

mod cross_check;
mod emmc;
mod latency;
mod replay;
mod sd;
