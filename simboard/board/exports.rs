// SPDX-License-Identifier: GPL-2.0

//! What the driver reaches of the board, as C functions: the board is built into the
//! test kernel while the driver may be a module (the end-to-end run loads, unloads and
//! reloads the module build), and a Rust crate's items reach another kernel object only
//! through symbols the kernel exports. `mtk_sd_rust_sim_exports.c` exports these; the
//! driver declares them in `kernel_mmc::simboard`.
//!
//! The functions take plain integers and accept any value, so none of them is unsafe to
//! call: a slot index that was never claimed, or was released, reads as all ones (as an
//! unmapped bus does) and takes no writes, and the first such access is reported.

use kernel::pr_err_once;

/// Index of the simulated slot whose register window starts at `base`, now claimed by the
/// caller, or -1 if there is none or another device holds it.
#[no_mangle]
pub(super) extern "C" fn mtk_sd_rust_sim_claim(base: u64) -> i32 {
    super::claim(base)
        .and_then(|index| i32::try_from(index).ok())
        .unwrap_or(-1)
}

/// Index of the simulated slot whose register window starts at `base`, claimed or not, or
/// -1 if the board has none there.
#[no_mangle]
pub(super) extern "C" fn mtk_sd_rust_sim_slot(base: u64) -> i32 {
    super::slot_index(base)
        .and_then(|index| i32::try_from(index).ok())
        .unwrap_or(-1)
}

/// Frees a slot the caller claimed for the next probe of its window.
#[no_mangle]
pub(super) extern "C" fn mtk_sd_rust_sim_release(slot: u32) {
    super::release(slot as usize);
}

/// Reads the 32-bit register at byte `offset` of claimed slot `slot`.
#[no_mangle]
pub(super) extern "C" fn mtk_sd_rust_sim_read(slot: u32, offset: u32) -> u32 {
    match super::slot(slot as usize) {
        Some(slot) => slot.read(offset as usize),
        None => {
            unclaimed(slot);
            u32::MAX
        }
    }
}

/// Writes `value` to the 32-bit register at byte `offset` of claimed slot `slot`.
#[no_mangle]
pub(super) extern "C" fn mtk_sd_rust_sim_write(slot: u32, offset: u32, value: u32) {
    match super::slot(slot as usize) {
        Some(slot) => slot.write(offset as usize, value),
        None => unclaimed(slot),
    }
}

/// The request size limit `make perf`'s sweep asks for, in bytes; 0 without one.
#[no_mangle]
pub(super) extern "C" fn mtk_sd_rust_sim_request_limit_bytes() -> u32 {
    super::request_limit_bytes().unwrap_or(0)
}

/// The iterations of the driver-path calibration loop per request; 0 without one.
#[no_mangle]
pub(super) extern "C" fn mtk_sd_rust_sim_cost_loop() -> u32 {
    super::cost_loop()
}

/// The interrupt coalescing the board asks the driver's CQHCI engine for: ICCTH in bits
/// 15:8 and ICTOVAL in bits 7:0 (never 0 with coalescing on); 0 for none.
#[no_mangle]
pub(super) extern "C" fn mtk_sd_rust_sim_cqe_coalescing() -> u32 {
    super::cqe_coalescing().map_or(0, |(threshold, timeout)| {
        (u32::from(threshold) << 8) | u32::from(timeout)
    })
}

/// Whether the kernel's C queue engines run in place of the driver's Rust ones.
#[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
#[no_mangle]
pub(super) extern "C" fn mtk_sd_rust_sim_c_engines() -> bool {
    super::engine_choice::c_engines()
}

fn unclaimed(slot: u32) {
    pr_err_once!(
        "simulated board: access to slot {} that no device claimed\n",
        slot
    );
}
