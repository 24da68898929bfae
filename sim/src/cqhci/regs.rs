// SPDX-License-Identifier: GPL-2.0
//! The CQHCI model's register offsets and bits, written from the JESD84-B51 CQHCI chapter
//! independently of the engine crate so that an encoding bug there is caught here.

/// CQVER.
pub const VER: usize = 0x00;
/// CQCAP.
pub const CAP: usize = 0x04;
/// CQCFG.
pub const CFG: usize = 0x08;
/// CQCTL.
pub const CTL: usize = 0x0C;
/// CQIS.
pub const IS: usize = 0x10;
/// CQISTE.
pub const ISTE: usize = 0x14;
/// CQISGE.
pub const ISGE: usize = 0x18;
/// CQIC.
pub const IC: usize = 0x1C;
/// CQTDLBA.
pub const TDLBA: usize = 0x20;
/// CQTDLBAU.
pub const TDLBAU: usize = 0x24;
/// CQTDBR.
pub const TDBR: usize = 0x28;
/// CQTCN.
pub const TCN: usize = 0x2C;
/// CQDQS.
pub const DQS: usize = 0x30;
/// CQDPT.
pub const DPT: usize = 0x34;
/// CQTCLR.
pub const TCLR: usize = 0x38;
/// CQTDPE.
pub const TDPE: usize = 0x3C;
/// CQSSC1.
pub const SSC1: usize = 0x40;
/// CQSSC2.
pub const SSC2: usize = 0x44;
/// CQCRDCT.
pub const CRDCT: usize = 0x48;
/// CQRMEM.
pub const RMEM: usize = 0x50;
/// CQTERRI.
pub const TERRI: usize = 0x54;
/// CQCRI.
pub const CRI: usize = 0x58;
/// CQCRA.
pub const CRA: usize = 0x5C;

/// CQCFG bits.
pub mod cfg {
    /// CQ enable.
    pub const ENABLE: u32 = 1 << 0;
    /// Crypto general enable.
    pub const CRYPTO: u32 = 1 << 1;
    /// 128-bit task descriptors.
    pub const TASK_DESC_128: u32 = 1 << 8;
    /// Direct command enable.
    pub const DCMD: u32 = 1 << 12;
}

/// CQCTL bits.
pub mod ctl {
    /// Halt.
    pub const HALT: u32 = 1 << 0;
    /// Clear all tasks.
    pub const CLEAR_ALL: u32 = 1 << 8;
}

/// CQIS bits.
pub mod is {
    /// Halt complete.
    pub const HAC: u32 = 1 << 0;
    /// Task complete.
    pub const TCC: u32 = 1 << 1;
    /// Response error detected.
    pub const RED: u32 = 1 << 2;
    /// Task cleared.
    pub const TCL: u32 = 1 << 3;
    /// General crypto error.
    pub const GCE: u32 = 1 << 4;
    /// Invalid crypto configuration error.
    pub const ICCE: u32 = 1 << 5;
}

/// CQIC bits.
pub mod ic {
    /// Coalescing enable.
    pub const ENABLE: u32 = 1 << 31;
    /// Status: a counted completion is pending.
    pub const STATUS: u32 = 1 << 20;
    /// Counter and timer reset.
    pub const RESET: u32 = 1 << 16;
    /// Threshold write enable.
    pub const THRESHOLD_WEN: u32 = 1 << 15;
    /// Timeout write enable.
    pub const TIMEOUT_WEN: u32 = 1 << 7;
}

/// CQRMEM reset value: the R1 bits that count as a response error.
pub const RMEM_DEFAULT: u32 = 0xFDF9_A080;

/// CQTERRI for a response-mode error of command `index` on task `task`.
pub const fn terri_command(index: u8, task: u8) -> u32 {
    (1 << 15) | ((task as u32 & 0x1F) << 8) | (index as u32 & 0x3F)
}

/// CQTERRI for a data-transfer error of command `index` on task `task`.
pub const fn terri_data(index: u8, task: u8) -> u32 {
    (1 << 31) | ((task as u32 & 0x1F) << 24) | ((index as u32 & 0x3F) << 16)
}
