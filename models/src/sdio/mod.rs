// SPDX-License-Identifier: GPL-2.0
//! SDIO card model (SDIO Simplified Specification 3.00): an I/O-only card with one function
//! (a RAM window, interrupt and scratch registers and a FIFO port), its CCCR, FBR and CIS,
//! CMD52/CMD53 transfers, I/O abort and reset, and the function interrupt on DAT1.
//!
//! The card speaks the command interface of the other card models
//! ([`super::emmc::Command`], [`super::emmc::Response`]) and plugs into the MSDC model as a
//! [`super::msdc::CardSlot`].

pub mod card;
pub mod command;
pub mod regs;

pub use card::{
    SdioCard, SdioConfig, SdioState, SdioStats, CMD5_BUSY_POLLS, DEFAULT_RCA, DEVICE_ID,
    ENABLE_POLLS, VENDOR_ID,
};
pub use command::{r5, IoState, IO_OCR, IO_RW_DIRECT_ARG, IO_RW_EXTENDED_ARG, R5};
