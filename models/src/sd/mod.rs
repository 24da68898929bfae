// SPDX-License-Identifier: GPL-2.0
//! SD memory card model (SD Physical Layer Simplified Specification): an SDHC/SDXC, UHS-I
//! capable card with identification, bus width, switch function and block transfers.
//!
//! The card speaks the same command interface as the eMMC model
//! ([`super::emmc::Command`], [`super::emmc::Response`]), so the MSDC model drives either.

pub mod card;

pub use card::{
    SdCard, SdConfig, ACMD41_BUSY_POLLS, BLOCK_SIZE, DEFAULT_RCA, OCR_VOLTAGE_WINDOW,
    SWITCH_STATUS_LEN,
};
