#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boots the x86_64 kernel with the driver built in under QEMU (TCG) with a small
# initramfs, prints the guest's report and checks that the driver registered.
#
# usage: scripts/run.sh

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$REPO/scripts/kernel.sh" x86_64 builtin
OBJ=$(obj_dir kunit-x86_64)
INITRAMFS=$CACHE/initramfs-x86_64.cpio.gz
LOG=$CACHE/run-x86_64.log
"$REPO/scripts/initramfs.sh" "$INITRAMFS"

boot() {
	timeout "${RUN_TIMEOUT:-300}" qemu-system-x86_64 -accel tcg -cpu max -smp 1 -m 1024 \
		-nodefaults -display none -no-reboot -serial stdio \
		-kernel "$OBJ/arch/x86/boot/bzImage" -initrd "$INITRAMFS" \
		-append "console=ttyS0 kunit.enable=0 panic=-1 rdinit=/init" </dev/null | tee "$LOG"
}
log "booting x86_64 under QEMU TCG"
with_lock kunit-x86_64 boot

grep -q 'guest: done' "$LOG" || die "the guest did not finish its report; log: $LOG"
grep -q 'guest: platform driver mtk_sd_rust registered' "$LOG" ||
	die "mtk_sd_rust did not register; log: $LOG"
log "mtk_sd_rust is registered with the platform bus"
