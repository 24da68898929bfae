#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Packs a minimal x86_64 initramfs: Debian's static busybox and an /init that
# shows what the driver did, then powers the guest off.
#
# usage: scripts/initramfs.sh OUTPUT.cpio.gz

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

OUT=${1:?usage: initramfs.sh OUTPUT.cpio.gz}
BUSYBOX=/bin/busybox
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q "ok installed" ||
	die "the guest needs Debian's busybox-static (scripts/setup.sh installs it)"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
cp "$BUSYBOX" "$root/bin/busybox"
install -m 0755 "$REPO/scripts/guest-init.sh" "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -9) >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
