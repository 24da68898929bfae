#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boots the x86_64 or arm64 kernel with the driver built in under QEMU (TCG) with
# the project's initramfs (busybox, fio); arm64 on QEMU's virt machine, the board's
# overlay applied to QEMU's device tree. The guest waits for the five simulated
# MSDC disks (eMMC with CQHCI, eMMC with HSQ, SD with HSQ, an eMMC without
# command queueing on a CQHCI controller and an SD card in a slot that may hold
# SDIO, both served one request at a time), writes and verifies each with fio,
# one request at a time and 32 deep (scripts/e2e/tests/jobs), then on all at once
# runtime-suspends and resumes each host after every I/O of a verified job and
# puts the guest to sleep (suspend to idle) during another, and prints the
# driver's queueing and power statistics per disk; scripts/e2e-check.sh then
# judges the console log.
#
# usage: scripts/run.sh [full|short] [x86_64|arm64]
#   full  (make run):  16 MiB per fio job, the whole console on the terminal
#   short (make test): 2 MiB per fio job, only the guest's report lines
#   the architecture:  x86_64 (default) or arm64 (make e2e-arm64)
#
# environment:
#   E2E_KERNEL=PATH    boot this kernel image; implies E2E_NO_BUILD=1 and no lock
#   E2E_NO_BUILD=1     skip scripts/kernel.sh and boot the cached image as it is
#   E2E_DISKS=N        whole-disk mmcblk devices the guest waits for (default: the
#                      memory cards the board describes)
#   E2E_WAIT=S         how long it waits for them (60)
#   E2E_SIZE=MiB       fio size per job instead of the mode's
#   E2E_SLEEP=pm_test  the system sleep without a wake-up source: /sys/power/pm_test
#                      "devices" (devices suspend, and resume after 2 s) instead of
#                      the RTC alarm's wake-up
#   E2E_TARGET=file    test hook: the same jobs on a tmpfs file, not the disks
#   E2E_FAULT=corrupt  test hook: zero a block between writing and verifying
#   E2E_CMDLINE=...    more guest parameters (scripts/e2e/check and its cases list
#                      them), e.g.
#                      "msdc_e2e_pm_think=100 msdc_e2e_wake=5"
#   E2E_LOG=PATH       the console log (default $CACHE/run-ARCH[-short].log)
#   E2E_SMP=N          vCPUs of the guest (1; 2 races the interrupt handler, the
#                      issuing threads and the time limits for real: make e2e-arm64
#                      runs two, docs/testing.md). The x86_64 test kernel is
#                      uniprocessor (TODO[UP-KERNEL]): the vCPU check below fails it
#                      with two
#   E2E_MATRIX=full    the whole fault matrix and 100 unbind/bind cycles per slot
#                      (make stress)
#   E2E_CASES=LIST     only these end-to-end cases (comma-separated groups, such as
#                      jobs, or cases, such as retune/001: scripts/e2e/tests; all
#                      by default): make e2e-arm64 runs those that differ by
#                      architecture. scripts/e2e-check.sh reads the list from the
#                      kernel command line and wants a verdict of every case on it
#   E2E_DRIVER=module  the driver as the out-of-tree module build (scripts/kernel.sh
#                      ARCH module) in place of the built-in one, which the kernel
#                      command line keeps from starting (initcall_blacklist): the
#                      guest loads it, and unloads and reloads it under fio at the
#                      end. The default on x86_64; arm64 and E2E_KERNEL boots run
#                      the built-in driver (E2E_DRIVER=builtin), as the arm64 test
#                      kernel cannot unload modules
#   E2E_DRIVER=c       upstream's C driver (mtk-sd.c, CONFIG_MMC_MTK_RUST_SIM_C_DRIVER)
#                      on every slot of the built-in test kernel
#                      (mtk_sd_rust_sim.driver=c); E2E_CMDLINE="mtk_sd_rust_sim.driver=
#                      c,rust,..." picks per slot. Its cases so far: board, jobs,
#                      power, queue
#                      (docs/testing.md, "Upstream's C driver")
#   E2E_ICOUNT=1       QEMU counts instructions (-icount shift=0,sleep=off): the
#                      guest clock then advances 1 ns per instruction, so what the
#                      guest times (the interrupt handler's longest run) is its own
#                      work, not the host's scheduling of QEMU; idle time is skipped
#   RUN_TIMEOUT=S      QEMU's time limit (1500)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

MODE=${1:-full}
ARCH=${2:-x86_64}
case $MODE in
full) LOG=${E2E_LOG:-$CACHE/run-$ARCH.log} ;;
short) LOG=${E2E_LOG:-$CACHE/run-$ARCH-short${E2E_MATRIX:+-$E2E_MATRIX}.log} ;;
*) die "usage: run.sh [full|short] [x86_64|arm64]" ;;
esac
# The kernel image in the object tree, and the machine: x86_64 under QEMU's default
# PC, arm64 on the virt machine (its GIC, PL011 console and PL031 real-time clock,
# whose alarm wakes the system sleep). pauth-impdef: TCG emulates pointer
# authentication with a cheap hash instead of the architected cipher, several times
# faster for a kernel that signs every return address.
case $ARCH in
x86_64)
	IMAGE=arch/x86/boot/bzImage
	QEMU=(qemu-system-x86_64 -accel tcg -cpu max)
	CONSOLE=ttyS0
	;;
arm64)
	IMAGE=arch/arm64/boot/Image
	QEMU=(qemu-system-aarch64 -accel tcg -machine virt -cpu max,pauth-impdef=on)
	CONSOLE=ttyAMA0
	;;
*) die "usage: run.sh [full|short] [x86_64|arm64]" ;;
esac
INITRAMFS=$CACHE/initramfs-$ARCH.cpio
mkdir -p "$CACHE"

DRIVER=${E2E_DRIVER:-}
if [[ -z $DRIVER ]]; then
	DRIVER=builtin
	[[ $ARCH != x86_64 || -n ${E2E_KERNEL:-} ]] || DRIVER=module
fi
C_DRIVER=0
if [[ $DRIVER == c ]]; then
	DRIVER=builtin C_DRIVER=1
fi
case $DRIVER in
builtin) ;;
module) [[ -z ${E2E_KERNEL:-} ]] || die "E2E_DRIVER=module needs the test kernel's own tree, not E2E_KERNEL" ;;
*) die "E2E_DRIVER is builtin, module or c, not $DRIVER" ;;
esac

KERNEL=$(mktemp "$CACHE/run-$ARCH-image.XXXXXX")
MODULE_KO=$KERNEL.ko
trap 'rm -f "$KERNEL" "$MODULE_KO"' EXIT
if [[ -n ${E2E_KERNEL:-} ]]; then
	[[ -f $E2E_KERNEL ]] || die "E2E_KERNEL=$E2E_KERNEL is not a file"
	cp "$E2E_KERNEL" "$KERNEL"
else
	if [[ ${E2E_NO_BUILD:-0} != 1 ]]; then
		"$REPO/scripts/kernel.sh" "$ARCH" builtin
		[[ $DRIVER != module ]] || "$REPO/scripts/kernel.sh" "$ARCH" ko
	fi
	OBJ=$(obj_dir "kunit-$ARCH")
	[[ -f $OBJ/$IMAGE ]] || die "no kernel at $OBJ: run scripts/kernel.sh $ARCH builtin"
	# A copy taken under the build lock: the boot takes minutes, during which a
	# build may run and replace the image, and it need not wait for the boot.
	with_lock "kunit-$ARCH" cp "$OBJ/$IMAGE" "$KERNEL"
	if [[ $DRIVER == module ]]; then
		ko=$CACHE/module-$(basename "$OBJ")/drivers/mmc/host/mtk_sd_rust/mtk_sd_rust.ko
		# One the kernel does not take fails the guest's insmod, and the check with it.
		[[ -f $ko ]] || die "no module build at $ko: run scripts/kernel.sh $ARCH ko"
		with_lock "kunit-$ARCH" cp "$ko" "$MODULE_KO"
	fi
fi
if [[ $DRIVER == module ]]; then
	INITRAMFS=$CACHE/initramfs-$ARCH-module.cpio
	"$REPO/scripts/initramfs.sh" "$ARCH" "$INITRAMFS" "$MODULE_KO"
else
	"$REPO/scripts/initramfs.sh" "$ARCH" "$INITRAMFS"
fi

# kunit.enable=0: the suites are built in but this run is about the disks. Unknown
# msdc_e2e* parameters are left to /init, which reads them from /proc/cmdline.
# printk.devkmsg=on: the guest prints its lines through /dev/kmsg (guest-init.sh),
# without the rate limit user space gets by default. no_console_suspend: the console
# prints through a system sleep, so a sleep that never ends shows how far it got.
CMDLINE="console=$CONSOLE kunit.enable=0 panic=-1 rdinit=/init printk.devkmsg=on no_console_suspend"
CMDLINE+=" msdc_e2e=$MODE"
CMDLINE+=" msdc_e2e_wait=${E2E_WAIT:-60}"
[[ -z ${E2E_DISKS:-} ]] || CMDLINE+=" msdc_e2e_disks=$E2E_DISKS"
CMDLINE+=" msdc_e2e_target=${E2E_TARGET:-disks}"
[[ -z ${E2E_SIZE:-} ]] || CMDLINE+=" msdc_e2e_size=$E2E_SIZE"
[[ -z ${E2E_FAULT:-} ]] || CMDLINE+=" msdc_e2e_fault=$E2E_FAULT"
[[ -z ${E2E_MATRIX:-} ]] || CMDLINE+=" msdc_e2e_matrix=$E2E_MATRIX"
[[ -z ${E2E_PHASES:-} ]] || die "E2E_PHASES is gone: E2E_CASES names groups or cases (scripts/e2e/tests)"
[[ -z ${E2E_CASES:-} ]] || CMDLINE+=" msdc_e2e_cases=$E2E_CASES"
[[ -z ${E2E_SLEEP:-} ]] || CMDLINE+=" msdc_e2e_sleep=$E2E_SLEEP"
[[ -z ${E2E_CMDLINE:-} ]] || CMDLINE+=" $E2E_CMDLINE"
# The built-in driver's initcall (the module! macro's __<name>_init) is skipped, so
# that the module build can register the platform driver; the board starts as ever.
[[ $DRIVER != module ]] || CMDLINE+=" initcall_blacklist=__mtk_sd_rust_init msdc_e2e_driver=module"
[[ $C_DRIVER != 1 ]] || CMDLINE+=" mtk_sd_rust_sim.driver=c"

show() {
	if [[ $MODE == full ]]; then cat; else grep --line-buffered -E '^(guest|e2e|fault):' || true; fi
}

# TCG only: /dev/kvm can exist and still hang the boot here. The guest reboots
# when done, which -no-reboot turns into QEMU's exit. 2 GiB of RAM is plenty: the
# board's storage is vmalloc'ed in the guest (3 × 64 MiB and 2 × 16 MiB of cards
# plus 4 × 4 MiB of eMMC boot partitions, 240 MiB) next to the 80 MiB initramfs
# and fio's buffers (32 × 512 KiB for the queued sequential job).
log "booting $ARCH under QEMU TCG, end-to-end $MODE (log: $LOG)"
start=$SECONDS
status=0
ICOUNT=()
[[ ${E2E_ICOUNT:-0} != 1 ]] || ICOUNT=(-icount shift=0,sleep=off)
timeout "${RUN_TIMEOUT:-1500}" "${QEMU[@]}" "${ICOUNT[@]}" -smp "${E2E_SMP:-1}" -m 2048 \
	-nodefaults -display none -no-reboot -serial stdio \
	-kernel "$KERNEL" -initrd "$INITRAMFS" -append "$CMDLINE" </dev/null 2>&1 |
	tee "$LOG" | tr -d '\r' | show || status=$?
log "QEMU ran $((SECONDS - start)) s"

# The log is judged even after a time-out: it may show why the guest hung.
checked=0
"$REPO/scripts/e2e-check.sh" "$LOG" || checked=$?
case $status in
0) ;;
124) die "QEMU timed out after ${RUN_TIMEOUT:-1500} s (RUN_TIMEOUT); log: $LOG" ;;
*) die "QEMU exited with status $status; log: $LOG" ;;
esac
[[ $checked -eq 0 ]] || die "end-to-end $MODE run failed; log: $LOG"
# A run asked for more vCPUs than the guest brought up did not race what it was for.
cpus=${E2E_SMP:-1}
[[ $cpus -eq 1 ]] || grep -qE "smp: Brought up [0-9]+ nodes?, $cpus CPUs" <(tr -d '\r' <"$LOG") ||
	die "the guest did not bring up the $cpus vCPUs asked for (E2E_SMP); log: $LOG"
log "end-to-end $MODE ($ARCH): fio wrote and verified every ${E2E_TARGET:-disk} without a kernel complaint"
