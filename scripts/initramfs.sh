#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Packs a guest's initramfs: Debian's static busybox as the shell, fio with the
# shared libraries it links (among them libaio, for the queued jobs' libaio
# engine), /init (scripts/guest-init.sh) and the end-to-end cases at /e2e
# (scripts/e2e/); on x86_64 also insncount's guest side
# (insncount/guest/: /bin/insncal, /bin/insnmark and the calibration's /insncal). The x86_64 guest gets the host's own
# files (the host is x86_64 like the guest); the arm64 guest gets those of
# Debian's arm64 packages, which setup.sh unpacks into $USERLAND_ARM64, its
# libraries found by reading the ELF files' NEEDED and RUNPATH entries. Repacks
# only when one of these inputs changed, judged by a hash of their contents kept
# beside the output.
#
# The cpio is not compressed: fio's libraries make it 80 MiB, which a KASAN
# kernel under TCG copies in 5 s but takes 16 s to inflate from gzip.
#
# usage: scripts/initramfs.sh x86_64|arm64 OUTPUT.cpio [MODULE.ko]

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ARCH=${1:?usage: initramfs.sh x86_64|arm64 OUTPUT.cpio [MODULE.ko]}
OUT=${2:?usage: initramfs.sh x86_64|arm64 OUTPUT.cpio [MODULE.ko]}
# The driver's module build, packed as /lib/modules/mtk_sd_rust.ko (scripts/run.sh's
# E2E_DRIVER=module).
KO=${3:-}
[[ -z $KO || -s $KO ]] || die "no module at $KO"
STAMP=$OUT.sha256

# Every library fio needs, by the absolute paths the dynamic loader finds them at
# (the guest has no ld.so.cache), and the loader itself; ROOT is where the guest's
# files are on this machine ("" for the host's own).
host_libraries() {
	local ldd_out
	ldd_out=$(ldd "$FIO") || die "ldd $FIO failed"
	if grep -q 'not found' <<<"$ldd_out"; then
		die "fio's libraries are incomplete on this host:"$'\n'"$(grep 'not found' <<<"$ldd_out")"
	fi
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$ldd_out" | sort -u
}

# The same for a foreign root, without running its loader: the transitive NEEDED
# entries, each looked up in the RUNPATH of the object that names it, then in the
# loader's default directories for aarch64 (Debian's multiarch ones first).
foreign_libraries() {
	local -a queue=("$ROOT$FIO") dirs
	local -A seen=()
	local obj name dir found interp
	interp=$("$READELF" -l "$ROOT$FIO" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	[[ -n $interp && -e $ROOT$interp ]] || die "no program interpreter for $ROOT$FIO"
	echo "$interp"
	while [[ ${#queue[@]} -gt 0 ]]; do
		obj=${queue[0]}
		queue=("${queue[@]:1}")
		mapfile -t dirs < <("$READELF" -d "$obj" |
			sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p; s/.*(RPATH).*\[\(.*\)\]/\1/p' | tr ':' '\n')
		dirs+=(/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /lib /usr/lib)
		while read -r name; do
			[[ -n $name && -z ${seen[$name]:-} ]] || continue
			found=""
			for dir in "${dirs[@]}"; do
				if [[ -e $ROOT$dir/$name ]]; then found=$dir/$name; break; fi
			done
			[[ -n $found ]] || die "$name, which $obj needs, is in none of ${dirs[*]} under $ROOT"
			# An absolute link would lead out of the root, to the host's own files.
			[[ $(readlink -f "$ROOT$found") == "$ROOT"/* ]] ||
				die "$ROOT$found resolves outside $ROOT"
			seen[$name]=1
			echo "$found"
			queue+=("$ROOT$found")
		done < <("$READELF" -d "$obj" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	done
}

READELF=llvm-readelf-19
case $ARCH in
x86_64)
	ROOT=""
	for pkg in busybox-static fio; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
			die "the guest needs Debian's $pkg (scripts/setup.sh installs it)"
	done
	;;
arm64)
	ROOT=$USERLAND_ARM64
	[[ -f $ROOT/.ready ]] || die "no arm64 userland at $ROOT: run scripts/setup.sh"
	;;
*) die "unknown architecture $ARCH" ;;
esac
BUSYBOX=/bin/busybox
FIO=/usr/bin/fio
[[ -x $ROOT$FIO && -x $ROOT$BUSYBOX ]] || die "no $FIO or $BUSYBOX under ${ROOT:-/}"

# Through a variable, not a process substitution: a lookup's die must stop the script.
if [[ -z $ROOT ]]; then
	libs=$(host_libraries)
else
	libs=$(foreign_libraries | sort -u)
fi
mapfile -t LIBS <<<"$libs"
[[ ${#LIBS[@]} -gt 0 ]] || die "found no libraries for $ROOT$FIO"
# The queued jobs need fio's libaio engine, which Debian's fio links rather than loads.
printf '%s\n' "${LIBS[@]}" | grep -q '/libaio\.so' ||
	die "$ROOT$FIO does not link libaio; the guest's queued jobs need it"

# This script decides the layout, so it is an input too.
INSNCOUNT_GUEST=$REPO/insncount/guest
# The end-to-end cases and their runner (scripts/e2e/), packed at /e2e.
mapfile -t E2E_FILES < <(cd "$REPO/scripts/e2e" && find . -type f | LC_ALL=C sort)
INPUTS=("${BASH_SOURCE[0]}" "$REPO/scripts/guest-init.sh" "$REPO/scripts/guest-perf.sh"
	"$INSNCOUNT_GUEST/insncal.S" "$INSNCOUNT_GUEST/calibrate.sh"
	"$ROOT$BUSYBOX" "$ROOT$FIO" ${KO:+"$KO"})
for f in "${LIBS[@]}"; do INPUTS+=("$ROOT$f"); done
for f in "${E2E_FILES[@]}"; do INPUTS+=("$REPO/scripts/e2e/$f"); done
# Contents only, and the cases' names: the same files from another checkout give the
# same image.
hash=$({ sha256sum "${INPUTS[@]}" | cut -d' ' -f1; printf '%s\n' "${E2E_FILES[@]}"; } |
	sha256sum | cut -d' ' -f1)
if [[ -s $OUT && -s $STAMP && $(cat "$STAMP") == "$hash" ]]; then
	log "initramfs up to date ($OUT)"
	exit 0
fi

log "packing the $ARCH initramfs: busybox, fio and ${#LIBS[@]} libraries ($OUT)"
root=$(mktemp -d)
tmp=$(mktemp "$OUT.XXXXXX")
trap 'rm -rf "$root" "$tmp"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,tmp,mnt}
cp "$ROOT$BUSYBOX" "$root/bin/busybox"
install -m 0755 "$REPO/scripts/guest-init.sh" "$root/init"
cp -r "$REPO/scripts/e2e" "$root/e2e"
chmod 0755 "$root/e2e/check"
# make perf boots with rdinit=/perf.
install -m 0755 "$REPO/scripts/guest-perf.sh" "$root/perf"
# install copies the file a symlink points to, under the name ldd printed (the soname).
for f in "$FIO" "${LIBS[@]}"; do
	install -D -m 0755 "$ROOT$f" "$root$f"
done
[[ -z $KO ]] || install -D -m 0644 "$KO" "$root/lib/modules/mtk_sd_rust.ko"
# insncount's marker and calibration loop (x86_64 code), and the calibration's init.
if [[ $ARCH == x86_64 ]]; then
	clang-19 --target=x86_64-linux-gnu -nostdlib -static -fuse-ld=lld \
		-o "$root/bin/insncal" "$INSNCOUNT_GUEST/insncal.S" || die "could not assemble insncal"
	ln -s insncal "$root/bin/insnmark"
	install -m 0755 "$INSNCOUNT_GUEST/calibrate.sh" "$root/insncal"
fi
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$tmp"
chmod 0644 "$tmp"
# Published by renames, the image first: a run killed midway leaves no stamp that
# vouches for a stale image, and concurrent runs never read a half-written one.
mv "$tmp" "$OUT"
echo "$hash" >"$STAMP.tmp.$$"
mv "$STAMP.tmp.$$" "$STAMP"
log "initramfs: $(du -h "$OUT" | cut -f1)"
