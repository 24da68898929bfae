#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Writes the address map of insncount (the QEMU plugin in insncount/, which counts
# a guest's executed instructions by component) for a built x86_64 kernel: one
# line per kernel text symbol, `<start> <end> <bucket> <symbol>`, the addresses in
# hexadecimal, sorted, each symbol's range running to the next symbol's address.
#
# A symbol's bucket is that of the objects defining it, read from the kernel's
# object tree, not guessed from names:
#   driver  the driver of the boot ($3): `rust`, the driver crate mtk_sd_rust (with
#           its engines and MMC abstraction) and the kernel's C engines it can run
#           (cqhci, mmc_hsq); `c`, upstream's mtk-sd.c on the board
#           (simboard/upstream/) with its renamed copy of cqhci-core.c and the
#           kernel's mmc_hsq. The other driver's objects are `other`'s: in a boot
#           of upstream's driver ours serves only the slots not measured.
#           The two cqhci copies define the same local names; the copy that does
#           not run in the boot (the kernel's in a boot of upstream's driver,
#           upstream's in one of ours) is listed with the one that does, so that
#           those names are the driver's and not `other`'s.
#   board   the simulated board mtk_sd_rust_sim (with the models), its C exports
#           and the glue that routes upstream's register accesses to it
#   core    drivers/mmc/core
#   block   block/
#   idle    the idle loop: symbols whose names contain "idle" in the objects of
#           kernel/sched's idle class (build_policy.o), arch/x86/kernel/process.o
#           and drivers/cpuidle, and cpu_startup_entry
# A name that vmlinux holds more often than one bucket's objects define it (a
# local name that other objects use too) is left to `other`, as is every symbol
# of no bucket. User space is the plugin's own bucket (the lower half).
#
# usage: scripts/insn-map.sh OBJ_DIR OUTPUT [rust|c]

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

OBJ=${1:?usage: insn-map.sh OBJ_DIR OUTPUT [rust|c]}
OUT=${2:?usage: insn-map.sh OBJ_DIR OUTPUT [rust|c]}
DRIVER=${3:-rust}
[[ -f $OBJ/vmlinux ]] || die "no vmlinux in $OBJ"

DRIVER_DIR=drivers/mmc/host/mtk_rust
SIM=$DRIVER_DIR/simboard
C_ENGINES="drivers/mmc/host/cqhci-core.o drivers/mmc/host/cqhci-crypto.o drivers/mmc/host/mmc_hsq.o"
UPSTREAM="$SIM/upstream/mtk_sd_upstream.o $SIM/upstream/cqhci_upstream.o"
case $DRIVER in
rust) DRIVER_OBJS="$DRIVER_DIR/drivers/mmc/host/mtk_sd_rust/built-in.a $C_ENGINES $SIM/upstream/cqhci_upstream.o" ;;
c) DRIVER_OBJS="$UPSTREAM $C_ENGINES" ;;
*) die "insn-map: the driver is rust or c, not '$DRIVER'" ;;
esac
# bucket, then the objects or archives whose text symbols it owns (those missing
# from this kernel's configuration are skipped).
BUCKETS=(
	"driver $DRIVER_OBJS"
	"board $SIM/mtk_sd_rust_sim.o $SIM/mtk_sd_rust_sim_exports.o $SIM/upstream/upstream_glue.o"
	"core drivers/mmc/core/built-in.a"
	"block block/built-in.a"
	"idle kernel/sched/build_policy.o arch/x86/kernel/process.o drivers/cpuidle/built-in.a"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Defined text symbols of a file, one name a line (a name defined twice, twice);
# compiler-local labels (.L...) are not symbols of their own.
# The archives are thin: nm reads their members where the archive names them.
text_names() {
	local syms
	syms=$(nm --defined-only "$1") || die "nm could not read $1"
	awk 'NF == 3 && $2 ~ /^[tTwW]$/ && $3 !~ /^\.L/ { print $3 }' <<<"$syms"
}

for entry in "${BUCKETS[@]}"; do
	read -r bucket files <<<"$entry"
	for f in $files; do
		[[ -e $OBJ/$f ]] || continue
		text_names "$OBJ/$f"
	done | if [[ $bucket == idle ]]; then grep idle; else cat; fi |
		sed "s/^/$bucket /" >>"$tmp/members"
	[[ $bucket != idle ]] || echo "idle cpu_startup_entry" >>"$tmp/members"
done
[[ -s $tmp/members ]] || die "no symbols in the object tree under $OBJ"

# vmlinux's symbols by address; every symbol ends a text symbol's range, text or not.
nm -n --defined-only "$OBJ/vmlinux" | awk 'NF == 3 && $3 !~ /^\.L/' >"$tmp/vmlinux"

awk -v members="$tmp/members" '
BEGIN {
	while ((getline line < members) > 0) {
		split(line, f, " ")
		defs[f[2], f[1]]++
		if (!((f[2]) in owner)) owner[f[2]] = f[1]
		else if (owner[f[2]] != f[1]) owner[f[2]] = "?"
	}
}
{ addr[NR] = $1; type[NR] = $2; name[NR] = $3; seen[$3]++ }
END {
	for (i = 1; i < NR; i++) {
		if (type[i] !~ /^[tTwW]$/) continue
		# Symbols at one address: the range starts at the first and ends at the
		# next address.
		j = i + 1
		while (j <= NR && addr[j] == addr[i]) j++
		if (j > NR) break
		b = "other"
		o = (name[i] in owner) ? owner[name[i]] : ""
		if (o != "" && o != "?" && defs[name[i], o] == seen[name[i]]) b = o
		printf "%s %s %s %s\n", addr[i], addr[j], b, name[i]
		i = j - 1
	}
}' "$tmp/vmlinux" >"$OUT"
log "insn-map: driver $DRIVER: $(wc -l <"$OUT") ranges in $OUT; by bucket: $(awk '{ n[$3]++ } END { for (b in n) printf "%s=%d ", b, n[b] }' "$OUT")"
