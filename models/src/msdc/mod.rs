// SPDX-License-Identifier: GPL-2.0
//! MediaTek MSDC host controller model: the base register file (and the top window where
//! the SoC has one), command engine and the GPD/BD descriptor DMA, driving an attached eMMC
//! or SD card model, with the board's sample windows deciding which tuning settings read
//! the bus right, and the card's lines, clock, reset and SDIO interrupt passed through.
//!
//! Registers and descriptor words are the model's own `register!` definitions (from the
//! MSDC register map, not from the driver's crate), so a driver encoding bug shows up as a
//! wrong result or a violation. The model is a [`RegisterFile`](super::bus::RegisterFile)
//! serving the driver's base window, so [`Bus`](super::bus::Bus)`<MsdcModel>` is an
//! `Io<MsdcBase>`.

pub mod controller;
pub mod desc;
pub mod regs;
pub mod slot;

pub use controller::{
    Fault, FaultScope, Hole, ModelClock, ModelConfig, MsdcModel, PadTuneLayout, SamplePoint,
    SamplePoints, SampleWindows, TimeSplit, Violation, DELAY_CELLS, MAX_VIOLATIONS,
    RELAXED_CLOCK_HZ, STROBE_CELLS,
};
pub use slot::{CardSlot, Socket};
