// SPDX-License-Identifier: GPL-2.0

//! What the Linux 7.3 MMC core sends to eMMC and SD cards, replayed through the legacy request
//! engine (`msdc::controller`) the way the kernel glue drives it, against the `models` MSDC model
//! and card models: card initialisation and the block layer's requests as the core builds
//! them, the engine cross-checked against the models (faults, DMA descriptors, clocks), and
//! the time the model charges for it all.

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

mod cross_check;
mod emmc;
mod latency;
mod replay;
mod sd;
