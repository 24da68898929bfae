/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C interfaces of the MMC core (and the few helpers around it that the
 * kernel crate does not wrap in 7.3) that bindgen turns into
 * mmc_bindings_generated.rs for the driver's MMC abstraction layer.
 */
#include <linux/mmc/card.h>
#include <linux/mmc/core.h>
#include <linux/mmc/host.h>
#include <linux/mmc/mmc.h>
#include <linux/mmc/sd.h>
#include <linux/mmc/sdio.h>
#include <linux/mmc/slot-gpio.h>
#include <linux/pinctrl/consumer.h>
#include <linux/pm_runtime.h>
#include <linux/pm_wakeirq.h>
#include <linux/pm_wakeup.h>
#include <linux/reset.h>
#include <linux/timekeeping.h>

/*
 * The kernel's C queue engines, which test kernels can run in place of the
 * driver's (CONFIG_MMC_MTK_RUST_C_ENGINES): their headers are private to
 * drivers/mmc/host, which Kbuild adds to the include path for them.
 */
#ifdef CONFIG_MMC_MTK_RUST_C_ENGINES
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "cqhci.h"
#include "mmc_hsq.h"
#endif
