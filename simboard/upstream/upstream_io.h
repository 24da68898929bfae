/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included ahead of upstream's mtk-sd.c and cqhci-core.c in the test-only build
 * that runs them on the simulated board (CONFIG_MMC_MTK_RUST_SIM_C_DRIVER).
 *
 * The upstream files are compiled as they are; only the names below change
 * meaning inside them:
 *
 * - readl, writel and their relaxed forms go to msdc_sim_readl() and friends,
 *   which serve the board's register windows and pass any other address to the
 *   real accessor. The polls of <linux/iopoll.h> name readl as their accessor,
 *   so they read through the same path.
 * - devm_platform_ioremap_resource() hands out a cookie for a board window
 *   (msdc_sim_ioremap_resource()): a non-canonical address that encodes the
 *   slot and the offset, so that an access that missed the routing faults
 *   instead of touching memory.
 * - cqhci-core.c's global functions get names of their own, so that this copy,
 *   whose register accesses are routed, links beside the kernel's built-in
 *   cqhci (CONFIG_MMC_CQHCI=y, which the Rust driver's C-engine option uses)
 *   and mtk-sd.c calls this copy. mtk-sd.c gives cqhci no read_l/write_l
 *   hooks, so the kernel's own cqhci would dereference the cookie.
 */
#ifndef MSDC_SIM_UPSTREAM_IO_H
#define MSDC_SIM_UPSTREAM_IO_H

#include <linux/io.h>
#include <linux/iopoll.h>

#include "upstream_access.h"

#undef readl
#undef readl_relaxed
#undef writel
#undef writel_relaxed
#define readl msdc_sim_readl
#define readl_relaxed msdc_sim_readl_relaxed
#define writel msdc_sim_writel
#define writel_relaxed msdc_sim_writel_relaxed

/* 16-bit accessors are not used by either file: catch a new use at build time. */
#undef readw
#undef writew
#undef readb
#undef writeb
#undef readq
#undef writeq
#define readw msdc_sim_no_16bit_accessor
#define writew msdc_sim_no_16bit_accessor
#define readb msdc_sim_no_8bit_accessor
#define writeb msdc_sim_no_8bit_accessor
#define readq msdc_sim_no_64bit_accessor
#define writeq msdc_sim_no_64bit_accessor

#define devm_platform_ioremap_resource msdc_sim_ioremap_resource

#define cqhci_deactivate msdc_sim_cqhci_deactivate
#define cqhci_resume msdc_sim_cqhci_resume
#define cqhci_set_tran_desc msdc_sim_cqhci_set_tran_desc
#define cqhci_irq msdc_sim_cqhci_irq
#define cqhci_pltfm_init msdc_sim_cqhci_pltfm_init
#define cqhci_init msdc_sim_cqhci_init

#endif /* MSDC_SIM_UPSTREAM_IO_H */
