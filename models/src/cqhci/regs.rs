// SPDX-License-Identifier: GPL-2.0
//! The CQHCI model's registers, and the command arguments it builds, written from the
//! JESD84-B51 CQHCI chapter independently of the engine crate so that an encoding bug there
//! is caught here. Only the window type comes from the driver side.

use super::super::windows::CqhciBlock;

register! {
    /// CQVER: the implemented version (5.10: major 5, minor 1, suffix 0).
    pub CQVER(u32) @ CqhciBlock + 0x00 {
        /// eMMC version suffix.
        3:0 emmc_ver_suffix;
        /// eMMC minor version number.
        7:4 emmc_ver_minor;
        /// eMMC major version number.
        11:8 emmc_ver_major;
    }

    /// CQCAP: capabilities.
    pub CQCAP(u32) @ CqhciBlock + 0x04 {
        /// Internal timer clock frequency value (ITCFVAL).
        9:0 itcfval;
        /// Internal timer clock frequency multiplier (ITCFMUL): 3 = 1 MHz units.
        15:12 itcfmul;
        /// Crypto support (CS).
        28:28 cs => bool;
    }

    /// CQCFG: configuration.
    pub CQCFG(u32) @ CqhciBlock + 0x08 {
        /// Command queuing enable (CQ_EN).
        0:0 cq_en => bool;
        /// Crypto general enable (CR_GENERAL_EN).
        1:1 cr_general_en => bool;
        /// Task descriptor size (TASK_DESC_SZ): set for 128-bit task descriptors.
        8:8 task_desc_sz => bool;
        /// Direct command enable (DCMD_EN): slot 31 holds direct commands.
        12:12 dcmd_en => bool;
    }

    /// CQCTL: control.
    pub CQCTL(u32) @ CqhciBlock + 0x0C {
        /// Halt: request (write) and state (read).
        0:0 halt => bool;
        /// Clear all tasks (CLR_ALL_TASKS); self-clearing.
        8:8 clr_all_tasks => bool;
    }

    /// CQIS: interrupt status, write 1 to clear.
    pub CQIS(u32) @ CqhciBlock + 0x10 {
        /// Halt complete (HAC).
        0:0 hac => bool;
        /// Task complete (TCC).
        1:1 tcc => bool;
        /// Response error detected (RED).
        2:2 red => bool;
        /// Task cleared (TCL).
        3:3 tcl => bool;
        /// General crypto error (GCE).
        4:4 gce => bool;
        /// Invalid crypto configuration error (ICCE).
        5:5 icce => bool;
    }

    /// CQISTE: interrupt status enable.
    pub CQISTE(u32) @ CqhciBlock + 0x14 {
        /// The CQIS bits that are recorded, in CQIS's layout.
        5:0 enabled;
    }

    /// CQISGE: interrupt signal enable.
    pub CQISGE(u32) @ CqhciBlock + 0x18 {
        /// The CQIS bits that assert the interrupt line, in CQIS's layout.
        5:0 signalled;
    }

    /// CQIC: interrupt coalescing.
    pub CQIC(u32) @ CqhciBlock + 0x1C {
        /// Timeout value (ICTOVAL), in units of 1024 internal timer clocks.
        6:0 ictoval;
        /// ICTOVAL write enable (ICTOVALWEN).
        7:7 ictovalwen => bool;
        /// Counter threshold (ICCTH).
        12:8 iccth;
        /// ICCTH write enable (ICCTHWEN).
        15:15 iccthwen => bool;
        /// Counter and timer reset (ICCTR), write-only.
        16:16 icctr => bool;
        /// Status (ICSB), read-only: a counted completion is pending.
        20:20 icsb => bool;
        /// Coalescing enable (ICENDIS).
        31:31 icendis => bool;
    }

    /// CQTDLBA: task descriptor list base, low half.
    pub CQTDLBA(u32) @ CqhciBlock + 0x20 {
        /// Address bits 31:0.
        31:0 tdlba;
    }

    /// CQTDLBAU: task descriptor list base, high half.
    pub CQTDLBAU(u32) @ CqhciBlock + 0x24 {
        /// Address bits 63:32.
        31:0 tdlbau;
    }

    /// CQTDBR: doorbell, bit `n` for task `n`.
    pub CQTDBR(u32) @ CqhciBlock + 0x28 {
        /// Doorbell (DBR).
        31:0 dbr;
    }

    /// CQTCN: task completion notification, bit `n` for task `n`; write 1 to clear.
    pub CQTCN(u32) @ CqhciBlock + 0x2C {
        /// Completed tasks (TCN).
        31:0 tcn;
    }

    /// CQDQS: device queue status, bit `n` for task `n`.
    pub CQDQS(u32) @ CqhciBlock + 0x30 {
        /// Tasks the card reported ready (DQS).
        31:0 dqs;
    }

    /// CQDPT: device pending tasks, bit `n` for task `n`.
    pub CQDPT(u32) @ CqhciBlock + 0x34 {
        /// Tasks queued in the card (DPT).
        31:0 dpt;
    }

    /// CQTCLR: task clear, bit `n` for task `n`.
    pub CQTCLR(u32) @ CqhciBlock + 0x38 {
        /// Tasks to clear (TCLR).
        31:0 tclr;
    }

    /// CQTDPE: task descriptor processing error, bit `n` for task `n`; write 1 to clear.
    pub CQTDPE(u32) @ CqhciBlock + 0x3C {
        /// Tasks whose descriptor was refused (TDPE).
        31:0 tdpe;
    }

    /// CQSSC1: send-status configuration 1.
    pub CQSSC1(u32) @ CqhciBlock + 0x40 {
        /// Send-status command idle timer (CIT).
        15:0 cit;
        /// Send-status command block counter (CBC).
        19:16 cbc;
    }

    /// CQSSC2: send-status configuration 2.
    pub CQSSC2(u32) @ CqhciBlock + 0x44 {
        /// The RCA the controller sends in CMD13.
        15:0 rca;
    }

    /// CQCRDCT: the last direct command's response.
    pub CQCRDCT(u32) @ CqhciBlock + 0x48 {
        /// Response bits 39:8.
        31:0 response;
    }

    /// CQRMEM: response mode error mask.
    pub CQRMEM(u32) @ CqhciBlock + 0x50 {
        /// The R1 bits that count as a response error.
        31:0 rmem;
    }

    /// CQTERRI: task error information.
    pub CQTERRI(u32) @ CqhciBlock + 0x54 {
        /// Response mode error command index (RMECI).
        5:0 rmeci;
        /// Response mode error task ID (RMETID).
        12:8 rmetid;
        /// Response mode error fields valid (RMEFV).
        15:15 rmefv => bool;
        /// Data transfer error command index (DTECI).
        21:16 dteci;
        /// Data transfer error task ID (DTETID).
        28:24 dtetid;
        /// Data transfer error fields valid (DTEFV).
        31:31 dtefv => bool;
    }

    /// CQCRI: command response index.
    pub CQCRI(u32) @ CqhciBlock + 0x58 {
        /// Index of the last command that got a response.
        5:0 index;
    }

    /// CQCRA: command response argument.
    pub CQCRA(u32) @ CqhciBlock + 0x5C {
        /// The last response's bits 39:8.
        31:0 argument;
    }
}

/// CQSSC1 after reset: poll every 0x1000 timer clocks, one block before the end.
pub const CQSSC1_RESET: CQSSC1 = CQSSC1::zeroed()
    .with_const_cit::<0x1000>()
    .with_const_cbc::<1>();

/// CQRMEM after reset: the R1 bits that count as a response error.
pub const CQRMEM_RESET: CQRMEM = CQRMEM::zeroed().with_const_rmem::<0xFDF9_A080>();
