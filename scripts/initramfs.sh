#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Packs the x86_64 guest's initramfs: Debian's static busybox as the shell, fio
# with the shared libraries it links (copied from the host, which is x86_64 like
# the guest; among them libaio, for the queued jobs' libaio engine) and
# /init (scripts/guest-init.sh). Repacks only when one of these inputs changed,
# judged by a hash of their contents kept beside the output.
#
# The cpio is not compressed: fio's libraries make it 80 MiB, which a KASAN
# kernel under TCG copies in 5 s but takes 16 s to inflate from gzip.
#
# usage: scripts/initramfs.sh OUTPUT.cpio

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

OUT=${1:?usage: initramfs.sh OUTPUT.cpio}
BUSYBOX=/bin/busybox
FIO=/usr/bin/fio
STAMP=$OUT.sha256

for pkg in busybox-static fio; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
		die "the guest needs Debian's $pkg (scripts/setup.sh installs it)"
done

# Every library ldd resolves for fio, and the dynamic loader, by the absolute paths
# fio and the libraries' RUNPATHs name them with; the guest has no ld.so.cache.
ldd_out=$(ldd "$FIO") || die "ldd $FIO failed"
if grep -q 'not found' <<<"$ldd_out"; then
	die "fio's libraries are incomplete on this host:"$'\n'"$(grep 'not found' <<<"$ldd_out")"
fi
# The queued jobs need fio's libaio engine, which Debian's fio links rather than loads.
grep -q 'libaio\.so' <<<"$ldd_out" || die "$FIO does not link libaio; the guest's queued jobs need it"
mapfile -t LIBS < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' \
	<<<"$ldd_out" | sort -u)
[[ ${#LIBS[@]} -gt 0 ]] || die "ldd listed no libraries for $FIO"

# This script decides the layout, so it is an input too.
INPUTS=("${BASH_SOURCE[0]}" "$REPO/scripts/guest-init.sh" "$REPO/scripts/guest-perf.sh"
	"$BUSYBOX" "$FIO" "${LIBS[@]}")
# Contents only: the same files from another checkout give the same image.
hash=$(sha256sum "${INPUTS[@]}" | cut -d' ' -f1 | sha256sum | cut -d' ' -f1)
if [[ -s $OUT && -s $STAMP && $(cat "$STAMP") == "$hash" ]]; then
	log "initramfs up to date ($OUT)"
	exit 0
fi

log "packing the initramfs: busybox, fio and ${#LIBS[@]} libraries ($OUT)"
root=$(mktemp -d)
tmp=$(mktemp "$OUT.XXXXXX")
trap 'rm -rf "$root" "$tmp"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,tmp,mnt}
cp "$BUSYBOX" "$root/bin/busybox"
install -m 0755 "$REPO/scripts/guest-init.sh" "$root/init"
# make perf boots with rdinit=/perf.
install -m 0755 "$REPO/scripts/guest-perf.sh" "$root/perf"
# install copies the file a symlink points to, under the name ldd printed (the soname).
for f in "$FIO" "${LIBS[@]}"; do
	install -D -m 0755 "$f" "$root$f"
done
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$tmp"
chmod 0644 "$tmp"
# Published by renames, the image first: a run killed midway leaves no stamp that
# vouches for a stale image, and concurrent runs never read a half-written one.
mv "$tmp" "$OUT"
echo "$hash" >"$STAMP.tmp.$$"
mv "$STAMP.tmp.$$" "$STAMP"
log "initramfs: $(du -h "$OUT" | cut -f1)"
