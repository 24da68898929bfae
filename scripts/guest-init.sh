#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# /init of the QEMU guest: mounts the pseudo file systems, relays its output to the
# kernel log, loads the driver's module build if the run asks for it, reports the
# driver's registration, runs the end-to-end cases (scripts/e2e/check: the runner,
# its common/ helpers and one file per case under tests/, which list the kernel
# command-line parameters they read), and reboots (ending QEMU).
#
# Its own parameters (scripts/run.sh sets them):
#   msdc_e2e=short|full      run the end-to-end cases (absent: report only)
#   msdc_e2e_driver=module   the driver is the module build at /lib/modules (the
#                            built-in one blacklisted): loaded first; the module
#                            case unloads and reloads it
#
# No `set -e`: this is PID 1, and an exiting init panics the kernel; every step
# reports its own failure and the script always reaches the reboot.

/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# The driver's per-host statistics (CONFIG_DEBUG_FS; without it the directory is absent).
[ -d /sys/kernel/debug ] && mount -t debugfs debugfs /sys/kernel/debug

# Everything /init and its jobs print reaches the console through the kernel log, one
# record per line. The kernel prints a record whole, so its own messages (a card coming
# up, a driver's error) can no longer land inside one of these lines, as they could on
# the serial port the two shared, and scripts/e2e-check.sh reads each line intact.
# The kernel command line lifts the log's rate limit on such writes (printk.devkmsg=on,
# scripts/run.sh); a line longer than a record holds is cut at 900 characters.
# A line "@@relayed FILE" is not logged: the relay creates FILE, which tells the
# writer that every line before it is in the kernel log (scripts/e2e/common/rc,
# say_and_flush).
mkfifo /tmp/console
while IFS= read -r line; do
	case $line in
	"@@relayed /tmp/"*) : >"${line#@@relayed }" ;;
	*) printf '%.900s\n' "$line" >/dev/kmsg ;;
	esac
done </tmp/console &
RELAY=$!
exec >/tmp/console 2>&1

# The last NAME=value of the kernel command line, or $2.
param() {
	local v
	v=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1)
	echo "${v:-$2}"
}

uptime_s() { cut -d' ' -f1 /proc/uptime; }

# The base names of the paths that exist, on one line, or "none".
names() {
	local p out=""
	for p in "$@"; do [ -e "$p" ] && out="$out${p##*/} "; done
	echo "${out:-none}"
}

echo "guest: kernel $(uname -r)"
# msdc_e2e_driver=module: the kernel's built-in driver did not start
# (initcall_blacklist), and the out-of-tree module build, packed at MODULE_KO,
# serves the board instead; the module case unloads and reloads it.
MODULE_KO=/lib/modules/mtk_sd_rust.ko
DRIVER=$(param msdc_e2e_driver builtin)
if [ "$DRIVER" = module ]; then
	t0=$(awk '{ printf "%d", $1 * 1000 }' /proc/uptime)
	if insmod "$MODULE_KO" 2>/tmp/insmod.err; then
		echo "guest: module $MODULE_KO loaded in" \
			"$(($(awk '{ printf "%d", $1 * 1000 }' /proc/uptime) - t0)) ms"
	else
		echo "guest: module $MODULE_KO NOT loaded: $(cat /tmp/insmod.err)"
	fi
fi
if [ -d /sys/bus/platform/drivers/mtk_sd_rust ]; then
	echo "guest: platform driver mtk_sd_rust registered"
	for p in /sys/bus/platform/drivers/mtk_sd_rust/*; do echo "guest:   ${p##*/}"; done
else
	echo "guest: platform driver mtk_sd_rust MISSING"
fi
# Upstream's C driver (mtk-sd.c) on the slots mtk_sd_rust_sim.driver= gave it
# (CONFIG_MMC_MTK_RUST_SIM_C_DRIVER): the devices it holds.
if [ -d /sys/bus/platform/drivers/mtk-msdc ]; then
	echo "guest: platform driver mtk-msdc (upstream C) registered," \
		"bound to $(names /sys/bus/platform/drivers/mtk-msdc/*.mmc)"
fi
echo "guest: mmc hosts: $(names /sys/class/mmc_host/*)"

# The end-to-end cases (scripts/e2e/check, at /e2e in the initramfs): their runner
# prints every line of the run, its cases' verdicts and "e2e: result PASS|FAIL".
MODE=$(param msdc_e2e "")
[ -n "$MODE" ] && /e2e/check
echo "guest: done after $(uptime_s) s of uptime"
# The relay's last lines reach the kernel log before the reboot; a job left running
# keeps the pipe open, so the wait is bounded.
exec >/dev/console 2>&1
i=0
while kill -0 "$RELAY" 2>/dev/null && [ "$i" -lt 10 ]; do sleep 1; i=$((i + 1)); done
# QEMU runs with -no-reboot, so a reboot ends the run (x86 has no ACPI power-off here).
reboot -f
