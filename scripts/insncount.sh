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
#   INSN_TOP=N       also list the N kernel symbols that ran the most per window
#                    (the plugin's top=N), in the counts file
#   INSN_OUT=DIR     where the map, the plugin's output and the log go
#                    (default $CACHE/insncount)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Builds the plugin in a target directory of its own under $1 and prints its path.
insncount_plugin() {
	log "insncount: building the plugin"
	cargo build --quiet --offline --release -p insncount --manifest-path "$REPO/Cargo.toml" \
		--target-dir "$1/target"
	[[ -f $1/target/release/libinsncount.so ]] || die "no plugin under $1/target"
	echo "$1/target/release/libinsncount.so"
}

# The windows of a boot: mark 2k to mark 2k+1 of the plugin's snapshots ($2), each
# bucket's difference, labelled with the k-th guest line `<$3>: window <k> <label>`
# of the console log ($1). Prints "window <k> <label> <bucket>=<N>... total=<N>".
insncount_windows() {
	local log=$1 counts=$2 prefix=$3
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
	}' <(tr -d '\r' <"$log") "$counts"
}

# Instructions per I/O from the windows of fio jobs (stdin, insncount_windows's
# lines labelled `<disk> <mode> <engine> <job> <driver> seed=<S> n=<N> ios=<N>`):
# for each job and seed, the longer run's counts less the shorter's, divided by the
# difference of their I/Os, so that fio's start-up and exit drop out; the mean
# over the seeds, and the spread of the total over them ((max - min) / mean). The
# driver is `rust` (ours) or `c` (upstream's mtk-sd.c); a mode our driver ran on
# the kernel's C engines is labelled <mode>-c.
# Prints
#   perf-cost: <disk> <mode> <driver> <job> driver_insn=<N> core_insn=<N> block_insn=<N> board_insn=<N> user_insn=<N> total_insn=<N> spread_pct=<x>
#   perf-cost-rest: <disk> <mode> <driver> <job> idle_insn=<N> other_insn=<N> seeds=<N>
insncount_cost() {
	awk '
	$1 == "window" {
		key = $3 " " ($5 == "c" && $7 == "rust" ? $4 "-c" : $4) " " $7 " " $6
		seed = $8; sub(/^seed=/, "", seed)
		t = $9; sub(/^n=/, "", t); t += 0
		for (i = 10; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
		if (!((key, seed) in nseed)) { nseed[key, seed] = 1; seeds[key, ++ns[key]] = seed }
		# Keep the shortest and the longest run of each seed.
		if (!((key, seed, "short") in run) || t < run[key, seed, "short"]) {
			run[key, seed, "short"] = t; for (b in v) c[key, seed, "short", b] = v[b]
		}
		if (!((key, seed, "long") in run) || t > run[key, seed, "long"]) {
			run[key, seed, "long"] = t; for (b in v) c[key, seed, "long", b] = v[b]
		}
		delete v
	}
	END {
		split("driver core block board user total idle other", buckets, " ")
		for (k = 1; k <= nk; k++) {
			key = keys[k]; n = 0; lo = hi = ""; delete sum
			for (s = 1; s <= ns[key]; s++) {
				seed = seeds[key, s]
				dios = c[key, seed, "long", "ios"] - c[key, seed, "short", "ios"]
				if (run[key, seed, "long"] == run[key, seed, "short"] || dios <= 0) continue
				n++
				for (b = 1; b <= 8; b++) {
					per = (c[key, seed, "long", buckets[b]] - c[key, seed, "short", buckets[b]]) / dios
					sum[buckets[b]] += per
					if (buckets[b] == "total") { if (lo == "" || per < lo) lo = per; if (hi == "" || per > hi) hi = per }
				}
			}
			if (n == 0) { printf "perf-cost: %s no pair of runs with more I/Os in the longer\n", key; continue }
			mean = sum["total"] / n
			printf "perf-cost: %s driver_insn=%.0f core_insn=%.0f block_insn=%.0f board_insn=%.0f user_insn=%.0f total_insn=%.0f spread_pct=%.2f\n",
				key, sum["driver"] / n, sum["core"] / n, sum["block"] / n, sum["board"] / n, sum["user"] / n,
				mean, (mean > 0 ? (hi - lo) * 100 / mean : 0)
			printf "perf-cost-rest: %s idle_insn=%.0f other_insn=%.0f seeds=%d\n", key, sum["idle"] / n, sum["other"] / n, n
		}
	}'
}

# The completion-to-next-issue path of the fio jobs: the plugin's samples (`insncount:
# path <seq> <N>...`, given entry= and issue=) of the windows (mark 2k to 2k+1) of the
# counts file $2, labelled as for insncount_cost by the guest's lines `<$3>: window
# <k> <disk> <mode> <engine> <job> <driver> ...` of the console log $1. Each job's
# samples over all its runs; prints per job
#   perf-c2i: <disk> <mode> <driver> <job> insn_median=<N> insn_p90=<N> samples=<N>
# (the mode as in perf-cost: <mode>-c for our driver on the kernel's C engines).
insncount_paths() {
	local log=$1 counts=$2 prefix=$3
	awk -v prefix="$prefix" '
	FNR == NR {
		sub(/\r$/, "")
		if (index($0, prefix ": window ") == 1) key[$3] = $4 " " ($6 == "c" && $8 == "rust" ? $5 "-c" : $5) " " $8 " " $7
		next
	}
	$2 == "path" && $3 ~ /^[0-9]+$/ && $3 % 2 == 1 {
		k = key[($3 - 1) / 2]
		if (k == "") next
		if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
		for (i = 4; i <= NF; i++) v[k, ++n[k]] = $i
	}
	function sortv(k, m,   i, j, t) {
		for (i = 1; i <= m; i++) s[i] = v[k, i] + 0
		for (i = 2; i <= m; i++) { t = s[i]; for (j = i - 1; j >= 1 && s[j] > t; j--) s[j + 1] = s[j]; s[j + 1] = t }
	}
	END {
		for (i = 1; i <= nk; i++) {
			k = keys[i]; m = n[k]
			if (m == 0) { printf "perf-c2i: %s insn_median=NaN insn_p90=NaN samples=0\n", k; continue }
			sortv(k, m)
			printf "perf-c2i: %s insn_median=%d insn_p90=%d samples=%d\n", k, s[int((m + 1) / 2)], s[int(0.9 * (m - 1)) + 1], m
		}
	}' <(tr -d '\r' <"$log") "$counts"
}

# The plugin's entry= and issue= for the path, from the address map $1 of a boot of
# driver $2: the entry of the driver's interrupt handler (ours: the kernel crate's
# trampoline for MsdcIrq; upstream's: msdc_irq), and the entries of the board's models
# of a write to SDC_CMD (a command starts) and to the CQHCI doorbell (the board's
# copy of the models, not the one the driver crate holds for its KUnit tests).
insncount_path_args() {
	local map=$1 driver=$2 entry issue
	case $driver in
	rust) entry=$(awk '$4 ~ /^_R.*handle_irq_callback.*MsdcIrq/ { print $1 }' "$map" | paste -sd:) ;;
	c) entry=$(awk '$4 == "msdc_irq" { print $1 }' "$map" | paste -sd:) ;;
	esac
	issue=$(awk '$4 ~ /^_R.*15mtk_sd_rust_sim.*(MsdcModel13start_command|CqhciModel4ring)$/ { print $1 }' "$map" | paste -sd:)
	[[ -n $entry && $(tr ':' '\n' <<<"$issue" | wc -l) -eq 2 ]] ||
		die "insncount: no interrupt handler ($entry) or not the two issue points ($issue) in $map"
	echo "entry=$entry,issue=$issue"
}

# The driver-path calibration (perf.sh cal): stdin the perf-cost lines of the boots
# without the loop and with $1 iterations of it per request, each prefixed with
# `loop=<iterations> `. The driver bucket per I/O must grow by the loop's two
# instructions per iteration within 1 %; prints per job
#   perf-cost-cal: <disk> <mode> <driver> <job> iterations=<N> expected_insn=<N> recovered_insn=<N> error_pct=<x> total_delta_insn=<N>
# and fails (status 1) if one does not, or if a job lacks either run.
insncount_cal_check() {
	awk -v n="$1" '
	$2 == "perf-cost:" {
		loop = $1; sub(/^loop=/, "", loop)
		key = $3 " " $4 " " $5 " " $6
		for (i = 7; i <= NF; i++) { split($i, kv, "="); v[key, loop, kv[1]] = kv[2] }
		if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
		have[key, loop] = 1
	}
	END {
		bad = nk == 0
		expected = 2 * n
		for (k = 1; k <= nk; k++) {
			key = keys[k]
			if (!((key, 0) in have) || !((key, n) in have)) {
				printf "perf-cost-cal: %s lacks the run with%s the loop\n", key, ((key, 0) in have) ? "" : "out"
				bad = 1
				continue
			}
			got = v[key, n, "driver_insn"] - v[key, 0, "driver_insn"]
			err = (got - expected) * 100 / expected
			printf "perf-cost-cal: %s iterations=%d expected_insn=%d recovered_insn=%d error_pct=%.3f total_delta_insn=%d\n",
				key, n, expected, got, err, v[key, n, "total_insn"] - v[key, 0, "total_insn"]
			if (err > 1 || err < -1) bad = 1
		}
		printf "perf-cost-cal: result %s\n", bad ? "FAIL" : "PASS"
		exit bad
	}'
}

# perf.sh sources this file for the functions above.
[[ ${BASH_SOURCE[0]} == "$0" ]] || return 0

MODE=${1:-calibrate}
case $MODE in calibrate) ;; *) die "usage: insncount.sh calibrate" ;; esac
OUT=${INSN_OUT:-$CACHE/insncount}
mkdir -p "$OUT"
OBJ=${INSN_OBJ:-$(obj_dir kunit-x86_64)}
[[ -f $OBJ/arch/x86/boot/bzImage && -f $OBJ/vmlinux ]] ||
	die "no kernel at $OBJ: run scripts/kernel.sh x86_64 builtin, or set INSN_OBJ"

PLUGIN=$(insncount_plugin "$OUT")

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
		-plugin "$PLUGIN,map=$MAP,out=$COUNTS${INSN_TOP:+,top=$INSN_TOP}" </dev/null >"$LOG" 2>&1 || status=$?
	log "insncount: QEMU ran $((SECONDS - start)) s"
	[[ $status -eq 0 ]] || die "QEMU exited with status $status; log: $LOG"
}

boot /insncal "${INSN_CMDLINE:-}"
grep -q '^insncal: done' <(tr -d '\r' <"$LOG") || die "the guest's calibration did not finish; log: $LOG"
wins=$(insncount_windows "$LOG" "$COUNTS" insncal)
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
