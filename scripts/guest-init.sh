#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the QEMU guest: mounts the pseudo file systems, reports the MSDC
# driver's state in a form scripts/run.sh checks, and reboots (ending QEMU).

/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null

echo "guest: kernel $(uname -r)"
if [ -d /sys/bus/platform/drivers/mtk_sd_rust ]; then
	echo "guest: platform driver mtk_sd_rust registered"
	ls /sys/bus/platform/drivers/mtk_sd_rust | sed 's/^/guest:   /'
else
	echo "guest: platform driver mtk_sd_rust MISSING"
fi
echo "guest: mmc hosts: $(ls /sys/class/mmc_host 2>/dev/null | tr '\n' ' ')"
echo "guest: done"
# QEMU runs with -no-reboot, so a reboot ends the run (x86 has no ACPI power-off here).
reboot -f
