// SPDX-License-Identifier: GPL-2.0

//! Which queue engines the board's slots run, from `mtk_sd_rust_sim.engine=` on the kernel
//! command line (test kernels built with `CONFIG_MMC_MTK_RUST_C_ENGINES`): `make perf`
//! measures the same disks with the driver's Rust engines and with the kernel's C ones.

/// Whether the slots that would run a Rust queue engine run the kernel's C engine instead
/// (`mtk_sd_rust_sim.engine=c`; `rust`, the default, keeps the driver's own). Another value
/// is reported and keeps the Rust engines; debugfs's `engine` file shows what runs.
pub(crate) fn c_engines() -> bool {
    match super::ffi::command_line_value("mtk_sd_rust_sim.engine") {
        None | Some(b"rust") => false,
        Some(b"c") => true,
        Some(_) => {
            kernel::pr_err!("mtk_sd_rust_sim.engine= takes rust or c: the Rust engines run\n");
            false
        }
    }
}
