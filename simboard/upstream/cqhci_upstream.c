// SPDX-License-Identifier: GPL-2.0
/*
 * Upstream's CQHCI engine, drivers/mmc/host/cqhci-core.c of the kernel tree
 * being built, compiled unmodified for the upstream MSDC driver on the
 * simulated board: upstream_io.h comes first, routes its register accesses to
 * the board and renames its global functions (why: upstream_io.h). Test
 * kernels only (CONFIG_MMC_MTK_RUST_SIM_C_DRIVER).
 */
#include "upstream_io.h"
#include "cqhci-core.c"
