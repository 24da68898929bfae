// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated board's functions the driver calls (simboard/board/exports.rs): defined
 * in Rust, exported here, so that the driver built as a module reaches the board built
 * into the test kernel. Test kernels only (CONFIG_MMC_MTK_RUST_SIM).
 */

#include <linux/export.h>
#include <linux/types.h>

int mtk_sd_rust_sim_claim(u64 base);
void mtk_sd_rust_sim_release(u32 slot);
u32 mtk_sd_rust_sim_read(u32 slot, u32 offset);
void mtk_sd_rust_sim_write(u32 slot, u32 offset, u32 value);
u32 mtk_sd_rust_sim_request_limit_bytes(void);
u32 mtk_sd_rust_sim_cost_loop(void);
u32 mtk_sd_rust_sim_cqe_coalescing(void);

EXPORT_SYMBOL_GPL(mtk_sd_rust_sim_claim);
EXPORT_SYMBOL_GPL(mtk_sd_rust_sim_release);
EXPORT_SYMBOL_GPL(mtk_sd_rust_sim_read);
EXPORT_SYMBOL_GPL(mtk_sd_rust_sim_write);
EXPORT_SYMBOL_GPL(mtk_sd_rust_sim_request_limit_bytes);
EXPORT_SYMBOL_GPL(mtk_sd_rust_sim_cost_loop);
EXPORT_SYMBOL_GPL(mtk_sd_rust_sim_cqe_coalescing);

#ifdef CONFIG_MMC_MTK_RUST_C_ENGINES
bool mtk_sd_rust_sim_c_engines(void);
EXPORT_SYMBOL_GPL(mtk_sd_rust_sim_c_engines);
#endif
