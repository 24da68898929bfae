// SPDX-License-Identifier: GPL-2.0
/*
 * Glue between upstream's C MSDC driver (mtk_sd_upstream.c) and the simulated
 * board, test kernels only (CONFIG_MMC_MTK_RUST_SIM_C_DRIVER):
 *
 * - the register accessors that upstream_io.h puts in place of readl and
 *   writel in the upstream files, and the register "mapping" of a board
 *   window: a cookie that names the slot, served through the functions the
 *   board exports to the Rust driver (simboard/board/exports.rs);
 * - the choice of driver for each slot. Both drivers match the same
 *   compatibles; mtk_sd_rust_sim.driver= on the kernel command line sets each
 *   board device's driver_override before it can probe: "rust" (the default)
 *   or "c" for every slot, or a comma-separated list in slot order (the order
 *   of the overlay's nodes, dts/msdc-sim.dtso), e.g. "c,rust,c,c,c,c"; slots
 *   the list leaves out get the Rust driver.
 */

#include <linux/device.h>
#include <linux/init.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/notifier.h>
#include <linux/platform_device.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "upstream_access.h"

/* The board's functions (simboard/board/exports.rs). */
int mtk_sd_rust_sim_claim(u64 base);
int mtk_sd_rust_sim_slot(u64 base);
void mtk_sd_rust_sim_release(u32 slot);
u32 mtk_sd_rust_sim_read(u32 slot, u32 offset);
void mtk_sd_rust_sim_write(u32 slot, u32 offset, u32 value);

#define MSDC_SIM_SLOTS		6
#define MSDC_SIM_DRIVER_C	"mtk-msdc"	/* mtk-sd.c's platform driver */
#define MSDC_SIM_DRIVER_RUST	"mtk_sd_rust"

/*
 * A cookie is non-canonical on x86_64 and arm64 (bits 63..48 neither all
 * zeros nor all ones), so a dereference faults. Bits 19..16 name the slot,
 * bits 15..0 the offset in the slot's register space as the board serves it:
 * the base window at 0 (the CQHCI block at 0x800 within it, where mtk-sd.c
 * puts cq_host->mmio), the top window at 0x1000.
 */
#define MSDC_SIM_COOKIE		0x5a5a000000000000UL
#define MSDC_SIM_COOKIE_MASK	0xffff000000000000UL
#define MSDC_SIM_SLOT_SHIFT	16
#define MSDC_SIM_OFFSET_MASK	0xffffUL
#define MSDC_SIM_TOP_OFFSET	0x1000

static bool msdc_sim_cookie(const volatile void __iomem *addr, u32 *slot,
			    u32 *offset)
{
	unsigned long a = (unsigned long)addr;

	if ((a & MSDC_SIM_COOKIE_MASK) != MSDC_SIM_COOKIE)
		return false;
	*slot = (a & ~MSDC_SIM_COOKIE_MASK) >> MSDC_SIM_SLOT_SHIFT;
	*offset = a & MSDC_SIM_OFFSET_MASK;
	return true;
}

static void __iomem *msdc_sim_cookie_of(u32 slot, u32 offset)
{
	return (void __iomem *)(MSDC_SIM_COOKIE |
				((unsigned long)slot << MSDC_SIM_SLOT_SHIFT) |
				offset);
}

/*
 * The ordering readl and writel give MMIO against memory (descriptors the
 * DMA engine reads) is kept around the board's accesses: a barrier before a
 * write, after a read, as the architectures' non-relaxed accessors have.
 */
u32 msdc_sim_readl(const volatile void __iomem *addr)
{
	u32 slot, offset, value;

	if (!msdc_sim_cookie(addr, &slot, &offset))
		return readl(addr);
	value = mtk_sd_rust_sim_read(slot, offset);
	rmb();
	return value;
}

u32 msdc_sim_readl_relaxed(const volatile void __iomem *addr)
{
	u32 slot, offset;

	if (!msdc_sim_cookie(addr, &slot, &offset))
		return readl_relaxed(addr);
	return mtk_sd_rust_sim_read(slot, offset);
}

void msdc_sim_writel(u32 value, volatile void __iomem *addr)
{
	u32 slot, offset;

	if (!msdc_sim_cookie(addr, &slot, &offset)) {
		writel(value, addr);
		return;
	}
	wmb();
	mtk_sd_rust_sim_write(slot, offset, value);
}

void msdc_sim_writel_relaxed(u32 value, volatile void __iomem *addr)
{
	u32 slot, offset;

	if (!msdc_sim_cookie(addr, &slot, &offset)) {
		writel_relaxed(value, addr);
		return;
	}
	mtk_sd_rust_sim_write(slot, offset, value);
}

/* Which device holds each claimed slot, so that its second window finds it. */
static DEFINE_SPINLOCK(msdc_sim_lock);
static struct device *msdc_sim_owner[MSDC_SIM_SLOTS];

static void msdc_sim_release(void *data)
{
	u32 slot = (uintptr_t)data;

	spin_lock(&msdc_sim_lock);
	msdc_sim_owner[slot] = NULL;
	spin_unlock(&msdc_sim_lock);
	mtk_sd_rust_sim_release(slot);
}

static int msdc_sim_slot_of(struct device *dev)
{
	int slot, found = -1;

	spin_lock(&msdc_sim_lock);
	for (slot = 0; slot < MSDC_SIM_SLOTS; slot++)
		if (msdc_sim_owner[slot] == dev)
			found = slot;
	spin_unlock(&msdc_sim_lock);
	return found;
}

/*
 * devm_platform_ioremap_resource() for the upstream files: what it does for a
 * window the board does not simulate; for a board window, the same request of
 * the memory region and a cookie in place of the mapping. Index 0 claims the
 * slot (released with the device's other managed resources), index 1 is the
 * slot's top window.
 */
void __iomem *msdc_sim_ioremap_resource(struct platform_device *pdev,
					unsigned int index)
{
	struct device *dev = &pdev->dev;
	struct resource *res;
	int slot, ret;

	res = platform_get_resource(pdev, IORESOURCE_MEM, index);
	if (!res)
		return devm_platform_ioremap_resource(pdev, index);

	if (index == 0) {
		if (mtk_sd_rust_sim_slot(res->start) < 0)
			return devm_platform_ioremap_resource(pdev, index);
		slot = mtk_sd_rust_sim_claim(res->start);
		if (slot < 0 || slot >= MSDC_SIM_SLOTS) {
			dev_err(dev, "simulated window %pR is held by another device\n", res);
			return IOMEM_ERR_PTR(-EBUSY);
		}
		spin_lock(&msdc_sim_lock);
		msdc_sim_owner[slot] = dev;
		spin_unlock(&msdc_sim_lock);
		ret = devm_add_action_or_reset(dev, msdc_sim_release,
					       (void *)(uintptr_t)slot);
		if (ret)
			return IOMEM_ERR_PTR(ret);
	} else {
		slot = msdc_sim_slot_of(dev);
		if (slot < 0 || index != 1)
			return devm_platform_ioremap_resource(pdev, index);
	}

	if (!devm_request_mem_region(dev, res->start, resource_size(res),
				     dev_name(dev))) {
		dev_err(dev, "can't request region for resource %pR\n", res);
		return IOMEM_ERR_PTR(-EBUSY);
	}
	return msdc_sim_cookie_of(slot, index ? MSDC_SIM_TOP_OFFSET : 0);
}

/* Slots whose device gets the C driver, from mtk_sd_rust_sim.driver=. */
static unsigned long msdc_sim_c_slots;

static int __init msdc_sim_driver_setup(char *value)
{
	unsigned int slot = 0;
	char *word;

	if (!strcmp(value, "c")) {
		msdc_sim_c_slots = GENMASK(MSDC_SIM_SLOTS - 1, 0);
		return 1;
	}
	while ((word = strsep(&value, ",")) && slot < MSDC_SIM_SLOTS) {
		if (!strcmp(word, "c")) {
			__set_bit(slot, &msdc_sim_c_slots);
		} else if (strcmp(word, "rust")) {
			pr_err("mtk_sd_rust_sim.driver= takes rust, c or a list of them, not %s\n",
			       word);
			msdc_sim_c_slots = 0;
			return 1;
		}
		slot++;
	}
	return 1;
}
__setup("mtk_sd_rust_sim.driver=", msdc_sim_driver_setup);

/*
 * Called as each platform device is added, before the bus probes it: a board
 * window's device gets the driver its slot was given. Both drivers are built
 * in (the Rust one may also be loaded later as a module), so without an
 * override whichever registered first would take every slot.
 */
static int msdc_sim_device_added(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	struct device *dev = data;
	struct resource *res;
	const char *driver;
	int slot;

	if (action != BUS_NOTIFY_ADD_DEVICE)
		return NOTIFY_DONE;
	res = platform_get_resource(to_platform_device(dev), IORESOURCE_MEM, 0);
	if (!res)
		return NOTIFY_DONE;
	slot = mtk_sd_rust_sim_slot(res->start);
	if (slot < 0 || slot >= MSDC_SIM_SLOTS)
		return NOTIFY_DONE;
	driver = test_bit(slot, &msdc_sim_c_slots) ? MSDC_SIM_DRIVER_C :
						     MSDC_SIM_DRIVER_RUST;
	if (device_set_driver_override(dev, driver))
		dev_err(dev, "simulated slot %d: driver_override not set\n", slot);
	else if (test_bit(slot, &msdc_sim_c_slots))
		dev_info(dev, "simulated slot %d: upstream's C driver %s binds it\n",
			 slot, driver);
	return NOTIFY_DONE;
}

static struct notifier_block msdc_sim_notifier = {
	.notifier_call = msdc_sim_device_added,
};

/* Before the board's devices appear (its initcall comes later, at device level). */
static int __init msdc_sim_upstream_init(void)
{
	return bus_register_notifier(&platform_bus_type, &msdc_sim_notifier);
}
postcore_initcall(msdc_sim_upstream_init);
