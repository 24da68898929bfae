#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# insncount: counts the x86_64 guest's executed instructions exactly, by component,
# with the QEMU TCG plugin in insncount/ (a measurement, not a test).
#
#   calibrate   boots the kernel with rdinit=/insncal (insncount/guest/calibrate.sh):
#               windows of a known loop of 2 * N user-space instructions, two
#               lengths alternating. Prints one line per window and per pair,
#                 insncount-cal: window <i> n=<N> <bucket>=<N>... total=<N>
#                 insncount-cal: pair <r> expected=<N> measured=<N> error_pct=<x>
#               and the spread of each length's windows (user and total).
#
# Each window is the difference of two snapshots of the plugin's counters, taken
# when the guest runs /bin/insnmark; see docs/performance.md ("Exact cost per I/O").
#
# environment:
#   INSN_OBJ=DIR     the kernel's object tree (default: the x86_64 test kernel's,
#                    scripts/kernel.sh x86_64 builtin); its bzImage is booted and its
#                    symbols and objects make the address map (scripts/insn-map.sh)
#   INSN_ICOUNT=0    boot without -icount shift=0,sleep=off (default 1)
#   INSN_CMDLINE=... more guest parameters, e.g. "insncal_n=1000000,3000000 insncal_reps=5"
#   INSN_OUT=DIR     where the map, the plugin's output and the log go
#                    (default $CACHE/insncount)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

MODE=${1:-calibrate}
case $MODE in calibrate) ;; *) die "usage: insncount.sh calibrate" ;; esac
OUT=${INSN_OUT:-$CACHE/insncount}
mkdir -p "$OUT"
OBJ=${INSN_OBJ:-$(obj_dir kunit-x86_64)}
[[ -f $OBJ/arch/x86/boot/bzImage && -f $OBJ/vmlinux ]] ||
	die "no kernel at $OBJ: run scripts/kernel.sh x86_64 builtin, or set INSN_OBJ"

# The plugin, in a target directory of its own under the cache.
log "insncount: building the plugin"
cargo build --quiet --offline --release -p insncount --manifest-path "$REPO/Cargo.toml" \
	--target-dir "$OUT/target"
PLUGIN=$OUT/target/release/libinsncount.so
[[ -f $PLUGIN ]] || die "no plugin at $PLUGIN"

# The image and its address map from one state of the tree: a build may replace
# them while the guest runs.
KERNEL=$OUT/bzImage
MAP=$OUT/map.txt
copy_kernel() {
	cp "$OBJ/arch/x86/boot/bzImage" "$KERNEL"
	"$REPO/scripts/insn-map.sh" "$OBJ" "$MAP"
}
if [[ -z ${INSN_OBJ:-} ]]; then with_lock kunit-x86_64 copy_kernel; else copy_kernel; fi
INITRAMFS=$CACHE/initramfs-x86_64.cpio
"$REPO/scripts/initramfs.sh" x86_64 "$INITRAMFS"

ICOUNT=()
[[ ${INSN_ICOUNT:-1} == 0 ]] || ICOUNT=(-icount shift=0,sleep=off)

# Boots once with the plugin; $1 the guest's init, $2 more parameters. Leaves the
# console in $LOG and the plugin's snapshots in $COUNTS.
boot() {
	local init=$1 params=$2 status=0 start=$SECONDS
	LOG=$OUT/$MODE.log
	COUNTS=$OUT/$MODE.counts
	log "insncount: booting with rdinit=$init ${ICOUNT[*]} (log: $LOG)"
	timeout "${INSN_TIMEOUT:-1800}" qemu-system-x86_64 -accel tcg "${ICOUNT[@]}" \
		-cpu max -smp 1 -m 2048 -nodefaults -display none -no-reboot -serial stdio \
		-kernel "$KERNEL" -initrd "$INITRAMFS" \
		-append "console=ttyS0 kunit.enable=0 panic=-1 nokaslr rdinit=$init $params" \
		-plugin "$PLUGIN,map=$MAP,out=$COUNTS" </dev/null >"$LOG" 2>&1 || status=$?
	log "insncount: QEMU ran $((SECONDS - start)) s"
	[[ $status -eq 0 ]] || die "QEMU exited with status $status; log: $LOG"
}

# The windows: mark 2k to mark 2k+1, each bucket's difference, labelled with the
# guest's k-th `<prefix> window` line. Prints "window <k> <label> <bucket>=<N>...".
windows() {
	local prefix=$1
	awk -v prefix="$prefix" '
	FNR == NR {
		sub(/\r$/, "")
		if (index($0, prefix ": window ") == 1) { k = $3; $1 = $2 = $3 = ""; label[k] = substr($0, 4) }
		next
	}
	$2 == "mark" {
		seq = $3
		for (i = 4; i <= NF; i++) { split($i, kv, "="); v[seq, kv[1]] = kv[2]; if (seq == 0) names[i - 3] = kv[1]; nn = NF - 3 }
		if (seq % 2 == 1) {
			k = (seq - 1) / 2
			line = "window " k " " label[k]
			for (i = 1; i <= nn; i++) line = line " " names[i] "=" (v[seq, names[i]] - v[seq - 1, names[i]])
			print line
		}
	}' <(tr -d '\r' <"$LOG") "$COUNTS"
}

boot /insncal "${INSN_CMDLINE:-}"
grep -q '^insncal: done' <(tr -d '\r' <"$LOG") || die "the guest's calibration did not finish; log: $LOG"
wins=$(windows insncal)
[[ -n $wins ]] || die "no window came back; counts: $COUNTS"
sed 's/^/insncount-cal: /' <<<"$wins"
# Pairs: the k-th window of the first length with the k-th of the second; the user
# bucket must differ by exactly 2 * (N2 - N1) instructions (the loop's dec, jnz).
awk '
{
	n = $3; sub(/^n=/, "", n)
	for (i = 4; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "user") u = kv[2]; if (kv[1] == "total") t = kv[2] }
	if (!(n in idx)) { idx[n] = ++ns; len[ns] = n }
	s = idx[n]; c = ++cnt[s]; user[s, c] = u; tot[s, c] = t
}
function spread(s, arr,   c, lo, hi, sum) {
	lo = hi = arr[s, 1]; sum = 0
	for (c = 1; c <= cnt[s]; c++) { if (arr[s, c] < lo) lo = arr[s, c]; if (arr[s, c] > hi) hi = arr[s, c]; sum += arr[s, c] }
	return sprintf("mean=%.0f min=%d max=%d spread_pct=%.4f", sum / cnt[s], lo, hi, sum > 0 ? (hi - lo) * 100 * cnt[s] / sum : 0)
}
END {
	if (ns != 2) { print "insncount-cal: want two loop lengths, got " ns; exit 1 }
	for (s = 1; s <= 2; s++) {
		printf "insncount-cal: n=%d windows=%d user %s\n", len[s], cnt[s], spread(s, user)
		printf "insncount-cal: n=%d windows=%d total %s\n", len[s], cnt[s], spread(s, tot)
	}
	expected = 2 * (len[2] - len[1])
	for (c = 1; c <= cnt[1] && c <= cnt[2]; c++) {
		m = user[2, c] - user[1, c]
		printf "insncount-cal: pair %d expected=%d measured=%d error_pct=%.4f\n", c, expected, m, (m - expected) * 100 / expected
	}
}' <<<"$wins"
log "insncount: counts: $COUNTS; console: $LOG"
