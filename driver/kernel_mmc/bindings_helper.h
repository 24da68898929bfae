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
