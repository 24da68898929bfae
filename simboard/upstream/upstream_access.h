/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The accessors and the "mapping" that upstream_glue.c gives the upstream files
 * in the test-only build that runs them on the simulated board: declared once,
 * for the glue that defines them and for upstream_io.h, which puts them in place
 * of readl, writel and devm_platform_ioremap_resource().
 */
#ifndef MSDC_SIM_UPSTREAM_ACCESS_H
#define MSDC_SIM_UPSTREAM_ACCESS_H

#include <linux/platform_device.h>
#include <linux/types.h>

u32 msdc_sim_readl(const volatile void __iomem *addr);
u32 msdc_sim_readl_relaxed(const volatile void __iomem *addr);
void msdc_sim_writel(u32 value, volatile void __iomem *addr);
void msdc_sim_writel_relaxed(u32 value, volatile void __iomem *addr);
void __iomem *msdc_sim_ioremap_resource(struct platform_device *pdev,
					unsigned int index);

#endif /* MSDC_SIM_UPSTREAM_ACCESS_H */
