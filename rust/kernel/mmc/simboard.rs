// SPDX-License-Identifier: GPL-2.0

//! The simulated board's register windows (test kernels, `CONFIG_MMC_MTK_RUST_SIM`). The
//! board is a kernel object of its own, built into the kernel (`mtk_sd_rust_sim`); the
//! driver, built in or loaded as a module, reaches it through the C functions the board
//! exports (`simboard/board/exports.rs`), declared here once.

// The board's functions, exported by `simboard/mtk_sd_rust_sim_exports.c`. Each takes any
// value: a slot that is not claimed reads as all ones and takes no writes.
extern "C" {
    fn mtk_sd_rust_sim_claim(base: u64) -> i32;
    fn mtk_sd_rust_sim_release(slot: u32);
    fn mtk_sd_rust_sim_read(slot: u32, offset: u32) -> u32;
    fn mtk_sd_rust_sim_write(slot: u32, offset: u32, value: u32);
    fn mtk_sd_rust_sim_request_limit_bytes() -> u32;
    fn mtk_sd_rust_sim_cost_loop() -> u32;
    fn mtk_sd_rust_sim_cqe_coalescing() -> u32;
    #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
    fn mtk_sd_rust_sim_c_engines() -> bool;
}

/// A simulated controller's register space, held by the device that probed its window:
/// the base window, the CQHCI block inside it and, after them, the top window. The next
/// probe of the window may claim it once this is dropped.
pub struct SimulatedWindow {
    slot: u32,
}

impl SimulatedWindow {
    /// The simulated controller whose register window starts at `base`, if the board has
    /// one there and no other device holds it.
    pub fn claim(base: u64) -> Option<Self> {
        // SAFETY: the board's function takes any address and returns -1 or a slot index.
        let slot = unsafe { mtk_sd_rust_sim_claim(base) };
        u32::try_from(slot).ok().map(|slot| Self { slot })
    }

    /// The 32-bit register at byte `offset`.
    pub fn read(&self, offset: usize) -> u32 {
        let Ok(offset) = u32::try_from(offset) else {
            return u32::MAX;
        };
        // SAFETY: any slot and offset are accepted; this slot is claimed by `self`.
        unsafe { mtk_sd_rust_sim_read(self.slot, offset) }
    }

    /// Writes the 32-bit register at byte `offset`.
    pub fn write(&self, offset: usize, value: u32) {
        if let Ok(offset) = u32::try_from(offset) {
            // SAFETY: any slot, offset and value are accepted; this slot is claimed by `self`.
            unsafe { mtk_sd_rust_sim_write(self.slot, offset, value) }
        }
    }
}

impl Drop for SimulatedWindow {
    fn drop(&mut self) {
        // SAFETY: any slot is accepted; `self` claimed this one and gives it up once.
        unsafe { mtk_sd_rust_sim_release(self.slot) }
    }
}

/// The request size limit `make perf`'s transfer size sweep sets on the simulated board
/// (`mtk_sd_rust_sim.max_request_kib=`), in bytes, if any.
pub fn request_limit_bytes() -> Option<u32> {
    // SAFETY: the board's function takes no arguments and only reads the command line.
    let bytes = unsafe { mtk_sd_rust_sim_request_limit_bytes() };
    (bytes != 0).then_some(bytes)
}

/// Whether the board asks for the kernel's C queue engines in place of the driver's
/// (`mtk_sd_rust_sim.engine=c`).
#[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
pub fn c_engines() -> bool {
    // SAFETY: the board's function takes no arguments and only reads the command line.
    unsafe { mtk_sd_rust_sim_c_engines() }
}

/// The driver-path calibration of insncount (`make perf-cost-cal`): the iterations of
/// [`cost_loop`] the board asks the driver to run per request (`mtk_sd_rust_sim.cost_loop=`),
/// 0 without.
pub fn cost_loop_iterations() -> u32 {
    // SAFETY: the board's function takes no arguments and only reads the command line.
    unsafe { mtk_sd_rust_sim_cost_loop() }
}

/// The CQHCI interrupt coalescing the board asks for (`mtk_sd_rust_sim.cqe_coalescing=`,
/// `make perf`'s coalescing measurement): the counter threshold (`CQIC.ICCTH`) and the
/// timeout in the register's units (`CQIC.ICTOVAL`, never 0), or `None` for none.
pub fn cqe_coalescing() -> Option<(u8, u8)> {
    // SAFETY: the board's function takes no arguments and only reads the command line.
    let value = unsafe { mtk_sd_rust_sim_cqe_coalescing() };
    let [timeout, threshold, ..] = value.to_le_bytes();
    (timeout != 0).then_some((threshold, timeout))
}

/// Runs a loop of exactly two instructions (decrement, branch while not zero) `n` times,
/// inline in the caller, so that the instructions counted in the caller's component grow by
/// `2 * n`: a known cost in the driver's request path for insncount's calibration. No loop
/// for `n == 0`.
#[inline(always)]
pub fn cost_loop(n: u32) {
    if n == 0 {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the loop touches only the register it is given, which it leaves at zero, and
    // neither memory nor the stack.
    unsafe {
        core::arch::asm!(
            "2:",
            "dec {n:e}",
            "jnz 2b",
            n = inout(reg) n => _,
            options(nomem, nostack),
        );
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: as above.
    unsafe {
        core::arch::asm!(
            "2:",
            "subs {n:w}, {n:w}, #1",
            "b.ne 2b",
            n = inout(reg) n => _,
            options(nomem, nostack),
        );
    }
}
