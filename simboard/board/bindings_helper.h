/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C interfaces the test-only simulated board needs (device tree overlays,
 * the interrupt simulator, clock and PM domain providers, a view of RAM by
 * physical address, an SDIO function driver) that the kernel crate does not
 * wrap in 7.3. bindgen turns them into sim_bindings_generated.rs; only kernels
 * with CONFIG_MMC_MTK_RUST_SIM build it.
 */
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/irq.h>
#include <linux/irq_sim.h>
#include <linux/smp.h>
#include <linux/irqdomain.h>
#include <linux/interrupt.h>
#include <linux/of.h>
#include <linux/of_platform.h>
#include <linux/init.h>
#include <linux/clk-provider.h>
#include <linux/pm_domain.h>
#include <linux/mmc/sdio_func.h>
