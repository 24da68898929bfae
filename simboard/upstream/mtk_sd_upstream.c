// SPDX-License-Identifier: GPL-2.0
/*
 * Upstream's MSDC driver, drivers/mmc/host/mtk-sd.c of the kernel tree being
 * built, compiled unmodified for the simulated board: upstream_io.h comes
 * first and routes its register accesses to the board. Test kernels only
 * (CONFIG_MMC_MTK_RUST_SIM_C_DRIVER); mtk_sd_rust_sim.driver= on the kernel
 * command line says which slots it binds (upstream_glue.c).
 */
#include "upstream_io.h"
#include "mtk-sd.c"
