#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make perf: builds the performance kernel (scripts/kernel.sh x86_64 perf: the
# driver and simulated board without KASAN, lockdep or other debug options) and
# boots it under QEMU with instruction counting (-icount shift=0,sleep=off), so
# that guest time, and every figure, follows executed instructions: the same on
# an idle or a loaded machine. One boot per queue mode the board is put in
# (mtk_sd_rust_sim.queue=cqe|hsq|legacy), and the queued modes again with the
# kernel's C engines in the Rust engines' place (mtk_sd_rust_sim.engine=c: the C
# cqhci and mmc_hsq, CONFIG_MMC_MTK_RUST_C_ENGINES); in each, /perf
# (scripts/guest-perf.sh) runs time-based fio jobs and prints `perf:` lines. The same
# boots again with upstream's C driver on the slots (mtk_sd_rust_sim.driver=c,
# CONFIG_MMC_MTK_RUST_SIM_C_DRIVER), which picks its queue itself from the device
# tree the board's queue mode leaves: the perf: line's driver=<rust|c>. This script
# collects them into a CSV and a PNG chart and prints the table; where both drivers
# measured a disk, mode and job, two more charts (scripts/perf-driver-chart.sh): ours
# and upstream's IOPS side by side, and the ratios ours / upstream's. It asserts no
# speed.
#
# The smoke mode (make test's perf-smoke) checks only that this harness runs: one
# 1-s job per disk in three boots (Rust engines, C engines, upstream's C driver)
# of the x86_64 test kernel, which make test has built anyway, without -icount. Its figures are of a
# KASAN kernel on a shared machine and mean nothing.
#
# The wake mode (make perf-wake) is the sensitivity of the HSQ gain to the board's
# host wake-up cost (mtk_sd_rust_sim.wake_ns, simboard/board.rs's wake_up): on the
# performance kernel under -icount, the eMMC and MicroSD disks in HSQ and one at a
# time, random 4 KiB read and read/write at depth 1 and 32, with each wake-up cost
# of PERF_WAKE_NS; it writes perf-wake.csv (the perf: line's fields after a wake_ns
# column, then the wake-up charged and the start lag per I/O from the perf-time line)
# and prints the HSQ gain per disk, job and cost.
#
# The cal mode (make perf-cost-cal) is insncount's calibration on the driver's path:
# the performance kernel booted with the board asking our driver to run a loop of two
# instructions PERF_CAL_LOOP times per request (mtk_sd_rust_sim.cost_loop=, in its
# request and cqe_request paths) and without it, with the cost runs, on emmc-cq in CQE
# (cqe_request) and emmc one request at a time (request), random 4 KiB read at depth 1
# and 32; the driver bucket of perf-cost must grow by 2 * PERF_CAL_LOOP instructions per
# I/O within 1 %, or the mode fails. One line per job,
#   perf-cost-cal: <disk> <mode> <driver> <job> iterations=<N> expected_insn=<N> recovered_insn=<N> error_pct=<x> total_delta_insn=<N>
#
# usage: scripts/perf.sh [full|smoke|wake|cal]
#
# With PERF_COST set, each boot also loads insncount (the QEMU TCG plugin in
# insncount/, scripts/insncount.sh) and every job runs again with two numbers of
# I/Os and three seeds (scripts/guest-perf.sh's msdc_perf_cost) for its exact cost per I/O
# in executed instructions by component, one line per job,
#   perf-cost: <disk> <mode> <driver> <job> driver_insn=<N> core_insn=<N> block_insn=<N> board_insn=<N> user_insn=<N> total_insn=<N> spread_pct=<x>
# into perf-<mode>-cost.csv, and the instructions of the completion-to-next-issue
# path (from the entry of the driver's interrupt handler to the next write that
# starts a request: the board's models of SDC_CMD and of the CQHCI doorbell),
#   perf-c2i: <disk> <mode> <driver> <job> insn_median=<N> insn_p90=<N> samples=<N>
# into perf-<mode>-c2i.csv. The jobs' cpu_us_per_io is then the instructions the
# guest executed per I/O outside the idle loop, in thousands (a microsecond each
# under -icount shift=0), not /proc/stat's ticks.
#
# The cost runs' driver bucket is the driver of the boot: ours (with its engines,
# or the kernel's C engines it can run) in a boot of ours, upstream's mtk-sd.c with
# its cqhci and mmc_hsq in a boot of upstream's (scripts/insn-map.sh's rust and c
# maps): perf-cost's <driver> is rust or c.
#
# environment:
#   E2E_NO_BUILD=1   boot the cached kernel as it is (make test builds it first)
#   PERF_COST=N1,N2  the cost runs' two I/O counts per fio thread (1 means 100,400);
#                    unset: no cost runs
#   PERF_COST_TOP=N  also write, per cost run, the N kernel symbols that ran the most
#                    instructions, into each boot's log.counts (the plugin's top=N)
#   PERF_JOBS=LIST   only these jobs (comma separated names, randread-4k-qd32-j1 ...),
#                    and no transfer size sweep; the wake mode's default is randread
#                    and randrw 4k at qd1-j1, qd32-j1
#   PERF_BOOTS=LIST  only these boots of the full mode, each <queue>/<driver>/<engine>
#                    (cqe/rust/rust, cqe/rust/c, cqe/c/-, hsq/..., legacy/...)
#   PERF_DISKS=LIST  only these of each boot's disks (emmc-cq, emmc, sd, null)
#   PERF_WAKE_NS=LIST the wake mode's wake-up costs in ns (default 0,20000,95000)
#   PERF_CAL_LOOP=N  the cal mode's loop iterations per request (default 100000); its
#                    cost runs are PERF_COST's (default 200,1000)
#   PERF_SCHED=NAME  the MMC disks' block I/O scheduler in every boot (none,
#                    mq-deadline; the guest's msdc_perf_sched=); unset: the kernel's
#                    choice. Logs, CSVs and charts are named perf-<mode>-...-<NAME>.
#   PERF_CQE_COALESCING=T,V  interrupt coalescing for our CQHCI engine in every boot
#                    (mtk_sd_rust_sim.cqe_coalescing=: ICCTH T completions, ICTOVAL V
#                    units of 1024 internal timer clocks, 5.12 us each on the board);
#                    unset: off, the driver's default. Logs, CSVs and charts are
#                    named perf-<mode>-...-coalT-V.
#
# Every job also gives its latency percentiles and the interrupts its slot raised per
# I/O (the guest's perf-lat: lines, scripts/guest-perf.sh) into perf-<mode>-lat.csv.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$REPO/scripts/insncount.sh"

MODE=${1:-full}
case $MODE in full | smoke | wake | cal) ;; *) die "usage: perf.sh [full|smoke|wake|cal]" ;; esac
JOBS=${PERF_JOBS:-}
WAKES=
if [[ $MODE == wake ]]; then
	JOBS=${JOBS:-randread-4k-qd1-j1,randread-4k-qd32-j1,randrw-4k-qd1-j1,randrw-4k-qd32-j1}
	WAKES=${PERF_WAKE_NS:-0,20000,95000}
	[[ $WAKES =~ ^[0-9]+(,[0-9]+)*$ ]] || die "PERF_WAKE_NS is a list of ns, N1,N2,..."
fi
[[ -z $JOBS || $JOBS =~ ^[a-z0-9-]+(,[a-z0-9-]+)*$ ]] || die "PERF_JOBS is a list of job names"
BOOTS=${PERF_BOOTS:-}
[[ -z $BOOTS || $BOOTS =~ ^[a-z]+/[a-z]+/[a-z-]+(,[a-z]+/[a-z]+/[a-z-]+)*$ ]] ||
	die "PERF_BOOTS is a list of <queue>/<driver>/<engine>"
DISKS=${PERF_DISKS:-}
[[ -z $DISKS || $DISKS =~ ^[a-z-]+(,[a-z-]+)*$ ]] || die "PERF_DISKS is a list of disks"
COALESCING=${PERF_CQE_COALESCING:-}
[[ -z $COALESCING || $COALESCING =~ ^[0-9]+,[0-9]+$ ]] ||
	die "PERF_CQE_COALESCING is ICCTH,ICTOVAL (e.g. 8,10)"
SCHED=${PERF_SCHED:-}
[[ -z $SCHED || $SCHED =~ ^[a-z-]+$ ]] || die "PERF_SCHED is a scheduler's name"
# The name of the run's CSVs and charts.
NAME=perf-$MODE${COALESCING:+-coal${COALESCING/,/-}}${SCHED:+-$SCHED}
CAL_ITERATIONS=
if [[ $MODE == cal ]]; then
	JOBS=${JOBS:-randread-4k-qd1-j1,randread-4k-qd32-j1}
	CAL_ITERATIONS=${PERF_CAL_LOOP:-100000}
	[[ $CAL_ITERATIONS =~ ^[1-9][0-9]*$ ]] || die "PERF_CAL_LOOP is a number of iterations"
	: "${PERF_COST:=200,1000}"
fi
# What the guest's /perf is told to run: the wake and cal modes run full-length jobs.
GUEST_MODE=$MODE
[[ $MODE != wake && $MODE != cal ]] || GUEST_MODE=full
OUT=${PERF_OUT:-$CACHE/perf}
mkdir -p "$OUT"
INITRAMFS=$CACHE/initramfs-x86_64.cpio

# The kernel (scripts/kernel.sh's target and object tree) and QEMU's clock.
if [[ $MODE != smoke ]]; then
	BUILD=perf FLAVOUR=perf
	ICOUNT=(-icount shift=0,sleep=off)
else
	BUILD=builtin FLAVOUR=kunit
	ICOUNT=()
fi
[[ ${E2E_NO_BUILD:-0} == 1 ]] || "$REPO/scripts/kernel.sh" x86_64 "$BUILD"
OBJ=$(obj_dir "$FLAVOUR-x86_64")
[[ -f $OBJ/arch/x86/boot/bzImage ]] || die "no kernel at $OBJ: run scripts/kernel.sh x86_64"
KERNEL=$(mktemp "$CACHE/perf-bzImage.XXXXXX")
MAP=$KERNEL.map
trap 'rm -f "$KERNEL" "$MAP"-*' EXIT
COST=${PERF_COST:-}
[[ $COST != 1 ]] || COST=100,400
[[ -z $COST || $COST =~ ^[0-9]+,[0-9]+$ ]] || die "PERF_COST is two I/O counts, N1,N2 (or 1)"
# The image and, for the cost runs, its address maps (one per driver: the objects
# of the driver bucket), from one state of the tree.
copy_kernel() {
	cp "$OBJ/arch/x86/boot/bzImage" "$KERNEL"
	[[ -z $COST ]] || {
		"$REPO/scripts/insn-map.sh" "$OBJ" "$MAP-rust" rust
		"$REPO/scripts/insn-map.sh" "$OBJ" "$MAP-c" c
	}
}
with_lock "$FLAVOUR-x86_64" copy_kernel
PLUGIN=
[[ -z $COST ]] || PLUGIN=$(insncount_plugin "$OUT/insncount")
"$REPO/scripts/initramfs.sh" x86_64 "$INITRAMFS"


# What must not appear in the log of a boot with the kernel's C engines: their
# errors (cqhci's "cqhci: " messages; its version line says "CQHCI version"), the
# core's recovery, mmc_hsq's failed drain, the driver's own reports of the C
# path, and a violation of the simulated hardware's rules. The C cqhci is an
# independent check of the CQHCI model: it must run every job without an error.
C_ENGINE_PROBLEMS='cqhci: |running CQE recovery|could not stop mmc software queue'
C_ENGINE_PROBLEMS+='|C engine: |did not initialise|model violation|engine= takes'

# mtk_sd_rust_sim.driver= for a boot of upstream's C driver on the disks $1: C on the
# measured slots only, in slot order (emmc-cq, emmc, sd), the Rust driver on the
# others, so that a slot not measured cannot fail the boot.
c_driver_slots() {
	local slots=(rust rust rust) i=0 d
	for d in emmc-cq emmc sd; do
		[[ ,$1, != *,$d,* ]] || slots[i]=c
		i=$((i + 1))
	done
	local IFS=,
	echo "${slots[*]}"
}

# Boots once: $1 the board's queue mode, $2 the driver of its slots (rust, or c:
# upstream's mtk-sd.c), $3 the Rust driver's engines (rust, or c: the kernel's C
# engines; `-` for the C driver, whose engines are C), $4 the disks to measure, $5
# (optional) the host's request limit in KiB for the transfer size sweep instead of
# the jobs. With WAKE_NS set, the board's wake-up cost is that.
boot() {
	local queue=$1 driver=$2 engine=$3 disks=$4 sweep=${5:-} status=0 suffix= d kept=
	[[ -z $BOOTS || ,$BOOTS, == *",$queue/$driver/$engine,"* ]] || return 0
	if [[ -n $DISKS ]]; then
		for d in ${disks//,/ }; do
			[[ ,$DISKS, != *",$d,"* ]] || kept+=${kept:+,}$d
		done
		[[ -n $kept ]] || return 0
		disks=$kept
	fi
	if [[ $driver == c ]]; then
		suffix=-driver-c
	elif [[ $engine != rust ]]; then
		suffix=-$engine
	fi
	[[ -z ${WAKE_NS:-} ]] || suffix+=-wake$WAKE_NS
	[[ -z ${CAL_LOOP:-} ]] || suffix+=-loop$CAL_LOOP
	[[ -z $COALESCING ]] || suffix+=-coal${COALESCING/,/-}
	[[ -z $SCHED ]] || suffix+=-$SCHED
	local log=$OUT/perf-$MODE-$queue$suffix${sweep:+-sweep$sweep}.log
	local cmdline="console=ttyS0 kunit.enable=0 panic=-1 rdinit=/perf msdc_perf=$GUEST_MODE"
	cmdline+=" msdc_perf_disks=$disks mtk_sd_rust_sim.queue=$queue null_blk.nr_devices=1"
	if [[ $driver == c ]]; then
		cmdline+=" mtk_sd_rust_sim.driver=$(c_driver_slots "$disks")"
	else
		cmdline+=" mtk_sd_rust_sim.engine=$engine"
	fi
	[[ -z $JOBS ]] || cmdline+=" msdc_perf_jobs=$JOBS"
	[[ -z ${WAKE_NS:-} ]] || cmdline+=" mtk_sd_rust_sim.wake_ns=$WAKE_NS"
	[[ -z ${CAL_LOOP:-} ]] || cmdline+=" mtk_sd_rust_sim.cost_loop=$CAL_LOOP"
	[[ -z $COALESCING ]] || cmdline+=" mtk_sd_rust_sim.cqe_coalescing=$COALESCING"
	[[ -z $SCHED ]] || cmdline+=" msdc_perf_sched=$SCHED"
	[[ -z $sweep ]] || cmdline+=" msdc_perf_sweep=$sweep mtk_sd_rust_sim.max_request_kib=${sweep%k}"
	local plugin=()
	if [[ -n $COST && -z $sweep ]]; then
		cmdline+=" msdc_perf_cost=$COST nokaslr"
		plugin=(-plugin "$PLUGIN,map=$MAP-$driver,out=$log.counts,$(insncount_path_args "$MAP-$driver" "$driver")${PERF_COST_TOP:+,top=$PERF_COST_TOP}")
	fi
	if [[ $driver == c ]]; then
		log "perf $MODE: booting with the board's queues at most '$queue', upstream's C driver (log: $log)"
	else
		log "perf $MODE: booting with the board's queues at most '$queue', $engine engines (log: $log)"
	fi
	local start=$SECONDS
	timeout "${PERF_TIMEOUT:-1800}" qemu-system-x86_64 -accel tcg "${ICOUNT[@]}" \
		-cpu max -smp 1 -m 2048 -nodefaults -display none -no-reboot -serial stdio \
		-kernel "$KERNEL" -initrd "$INITRAMFS" -append "$cmdline" "${plugin[@]}" </dev/null >"$log" 2>&1 ||
		status=$?
	log "perf $MODE: QEMU ran $((SECONDS - start)) s"
	[[ $status -eq 0 ]] || die "QEMU exited with status $status; log: $log"
	local text
	text=$(tr -d '\r' <"$log")
	if grep -qE "$KERNEL_PROBLEMS" <<<"$text"; then
		grep -nE "$KERNEL_PROBLEMS" <<<"$text" | head -n 20 >&2
		die "the kernel complained during the measurement; log: $log"
	fi
	if [[ $engine == c || $driver == c ]] && grep -qE "$C_ENGINE_PROBLEMS" <<<"$text"; then
		grep -nE "$C_ENGINE_PROBLEMS" <<<"$text" | head -n 20 >&2
		die "the kernel's C engines reported errors during the measurement; log: $log"
	fi
	# Coalescing asked for: our CQHCI engine must have taken it.
	if [[ -n $COALESCING && $queue == cqe && $driver == rust && $engine == rust ]] &&
		[[ ,$disks, == *,emmc-cq,* ]] && ! grep -q 'CQHCI interrupt coalescing: ' <<<"$text"; then
		die "PERF_CQE_COALESCING=$COALESCING: the driver did not report coalescing; log: $log"
	fi
	grep -q '^perf: result PASS' <<<"$text" || {
		grep -E '^perf: (FAIL|  )' <<<"$text" >&2 || true
		die "the guest's measurement failed; log: $log"
	}
	local measured
	measured=$(grep -E '^perf(-time|-lat)?: [a-z-]+ ' <<<"$text" | grep -v '^perf: result' |
		grep -E ' (iops|model_us_per_io|p50_us)=' || true)
	# Every measurement names the driver the boot asked for, last.
	if [[ -n $measured ]] && grep -vqE " driver=$driver\$" <<<"$measured"; then
		grep -vE " driver=$driver\$" <<<"$measured" | head -n 5 >&2
		die "a measurement does not end in driver=$driver; log: $log"
	fi
	[[ -z $measured ]] || printf '%s\n' "$measured"
	[[ ${#plugin[@]} -eq 0 ]] || {
		insncount_windows "$log" "$log.counts" perf | insncount_cost
		insncount_paths "$log" "$log.counts" perf
	}
}

# The wake mode: the eMMC and MicroSD slots in their own mode (HSQ) and one at a
# time, for each wake-up cost; then the HSQ gain per disk, job and cost.
if [[ $MODE == wake ]]; then
	WAKE_CSV=$OUT/perf-wake.csv
	echo "wake_ns,disk,profile,mode,engine,job,iops,mib_s,lat_us,p99_us,cpu_us_per_io,driver,wake_us_per_io,start_lag_us" >"$WAKE_CSV"
	for WAKE_NS in ${WAKES//,/ }; do
		lines=$(
			boot cqe rust rust emmc,sd
			boot legacy rust rust emmc,sd
		)
		printf '%s\n' "$lines" | grep '^perf: '
		# The wake-up the board charged per I/O, from the perf-time line of the same job.
		awk -v w="$WAKE_NS" '
		$1 == "perf-time:" {
			for (i = 6; i <= NF; i++) {
				if ($i ~ /^wake_us_per_io=/) wake[$2 " " $3 " " $5] = substr($i, 16)
				if ($i ~ /^start_lag_us=/) lag[$2 " " $3 " " $5] = substr($i, 14)
			}
		}
		$1 == "perf:" { line[++n] = $0; key[n] = $2 " " $4 " " $6 }
		END {
			for (i = 1; i <= n; i++) {
				l = line[i]; sub(/^perf: /, "", l); gsub(/ [a-z0-9_]+=/, " ", l); gsub(/ /, ",", l)
				print w "," l "," (key[i] in wake ? wake[key[i]] : "NaN") "," (key[i] in lag ? lag[key[i]] : "NaN")
			}
		}' <<<"$lines" >>"$WAKE_CSV"
	done
	unset WAKE_NS
	log "perf wake: the HSQ gain (hsq / legacy IOPS - 1) by wake-up cost; CSV: $WAKE_CSV"
	awk -F, 'NR > 1 {
		k = $2 "," $6 "," $1
		if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		iops[k, $4] = $7
		if ($4 == "legacy") wake[k] = $13
	} END {
		printf "%-6s %-20s %8s %9s %9s %8s %18s\n", "disk", "job", "wake_us", "legacy", "hsq", "gain", "legacy_wake_us/io"
		for (i = 1; i <= n; i++) {
			split(order[i], p, ",")
			l = iops[order[i], "legacy"]; h = iops[order[i], "hsq"]
			gain = l > 0 ? (h / l - 1) * 100 : 0
			printf "%-6s %-20s %8.0f %9s %9s %+7.1f%% %18s\n", p[1], p[2], p[3] / 1000, l, h, gain, wake[order[i]]
		}
	}' "$WAKE_CSV"
	exit 0
fi

# The cal mode: the same boots without the loop and with it; each job's driver bucket
# must grow by the loop's instructions per I/O.
if [[ $MODE == cal ]]; then
	for CAL_LOOP in 0 "$CAL_ITERATIONS"; do
		lines=$(
			boot cqe rust rust emmc-cq
			boot legacy rust rust emmc
		)
		grep '^perf-cost: ' <<<"$lines" | sed "s/^/loop=$CAL_LOOP /"
	done | insncount_cal_check "$CAL_ITERATIONS"
	exit 0
fi

# Each disk in every mode its slot allows: the CQE slot in all three, the others
# in HSQ and legacy; null_blk once. The queued modes again on the kernel's C
# engines: the C cqhci on the CQE slot and the C mmc_hsq on the others in one
# boot, the C mmc_hsq on the CQE slot in another. Smoke runs boot only the first
# of each engine: every disk in the board's own modes.
# The transfer size sweep (full runs only): the host's request limit at upstream's
# 512 KiB and at the most its descriptors carry (8 MiB with CQHCI; without it, the GPD/BD
# chain's limit, which the 65,535-block cap keeps at 32 MiB).
# Upstream's C driver in the same boots, picking its queue from what the board's
# mode leaves of the device tree: CQHCI on the CQE slot, HSQ on the others (cqe);
# HSQ on the CQE slot (hsq); one request at a time everywhere (legacy). Smoke runs
# boot it once, in the board's own modes.
lines=$(
	boot cqe rust rust emmc-cq,emmc,sd,null
	boot cqe rust c emmc-cq,emmc,sd
	boot cqe c - emmc-cq,emmc,sd
	if [[ $MODE == full ]]; then
		boot hsq rust rust emmc-cq
		boot legacy rust rust emmc-cq,emmc,sd
		boot hsq rust c emmc-cq
		boot hsq c - emmc-cq
		boot legacy c - emmc-cq,emmc,sd
		if [[ -z $JOBS ]]; then
			boot cqe rust rust emmc-cq,emmc,sd 512k
			boot cqe rust rust emmc-cq,emmc,sd max
		fi
	fi
)
[[ -n $lines ]] || die "no measurement came back"
costs=$(grep '^perf-cost: ' <<<"$lines" || true)
rests=$(grep '^perf-cost-rest: ' <<<"$lines" || true)
paths=$(grep '^perf-c2i: ' <<<"$lines" || true)
if [[ -n $COST ]]; then
	PATH_CSV=$OUT/$NAME-c2i.csv
	{
		echo "disk,mode,driver,job,insn_median,insn_p90,samples"
		sed -E 's/^perf-c2i: //; s/ [a-z0-9_]+=/ /g; s/ /,/g' <<<"$paths"
	} >"$PATH_CSV"
	[[ -n $costs ]] || die "the cost runs gave no perf-cost line"
	! grep -q ' no pair ' <<<"$costs" || die "a job's cost runs could not be differenced: $(grep ' no pair ' <<<"$costs")"
	COST_CSV=$OUT/$NAME-cost.csv
	{
		echo "disk,mode,driver,job,driver_insn,core_insn,block_insn,board_insn,user_insn,total_insn,spread_pct,idle_insn,other_insn,seeds"
		join -j1 <(sed -E 's/^perf-cost: //; s/ [a-z_]+=/ /g; s/^([^ ]+) ([^ ]+) ([^ ]+) ([^ ]+)/\1|\2|\3|\4/' <<<"$costs" | sort) \
			<(sed -E 's/^perf-cost-rest: //; s/ [a-z_]+=/ /g; s/^([^ ]+) ([^ ]+) ([^ ]+) ([^ ]+)/\1|\2|\3|\4/' <<<"$rests" | sort) |
			tr '| ' ',,'
	} >"$COST_CSV"
	# The jobs' CPU time per I/O: the instructions outside the idle loop, in thousands.
	lines=$(awk -v costs="$COST_CSV" '
	BEGIN { FS = ","; while ((getline l < costs) > 0) { split(l, f, ","); if (f[1] != "disk") busy[f[1] " " f[2] " " f[3] " " f[4]] = f[10] - f[12] }; FS = " " }
	$1 == "perf:" {
		drv = $12; sub(/^driver=/, "", drv)
		mode = $5 == "c" && drv == "rust" ? $4 "-c" : $4
		k = $2 " " mode " " drv " " $6
		if (k in busy) sub(/cpu_us_per_io=[0-9.]+/, sprintf("cpu_us_per_io=%.1f", busy[k] / 1000))
	}
	{ print }' <<<"$lines")
fi
# Where the time goes: the simulated hardware's own guest time per I/O, and the rest.
times=$(grep '^perf-time: ' <<<"$lines" || true)
# The latency percentiles and the interrupts per I/O.
LAT_CSV=$OUT/$NAME-lat.csv
{
	echo "disk,mode,engine,job,p50_us,p90_us,p99_us,p999_us,irqs_per_io,driver"
	grep '^perf-lat: ' <<<"$lines" | sed -E 's/^perf-lat: //; s/ [a-z0-9_]+=/ /g; s/ /,/g' || true
} >"$LAT_CSV"
lines=$(grep '^perf: ' <<<"$lines")
TIMES_CSV=$OUT/$NAME-time.csv
{
	echo "disk,mode,engine,job,model_us_per_io,host_us_per_io,bus_us_per_io,card_us_per_io,wait_us_per_io,wake_us_per_io,wall_us_per_io,start_lag_us,driver"
	sed -E 's/^perf-time: //; s/ [a-z0-9_]+=/ /g; s/ /,/g' <<<"$times"
} >"$TIMES_CSV"

CSV=$OUT/$NAME.csv
{
	echo "disk,profile,mode,engine,job,iops,mib_s,lat_us,p99_us,cpu_us_per_io,driver"
	sed -E 's/^perf: //; s/ [a-z0-9_]+=/ /g; s/ /,/g' <<<"$lines"
} >"$CSV"

# A table for gnuplot from the CSV: one row per $2 (job or read size), one column per
# series (disk/mode/engine/driver, or disk/mode/limit for the sweep), values from
# column $3.
# $1: `jobs` (every measurement but the sweep's) or `sweep`.
to_table() {
	awk -F, -v kind="$1" -v col="$2" 'NR > 1 {
		sweep = match($5, /-req([0-9]+k|max)$/)
		if ((kind == "sweep") != (sweep > 0)) next
		if (sweep) {
			split($5, p, "-"); row = p[2]
			series = $1 "/" $3 "/limit-" substr($5, RSTART + 4, RLENGTH - 4)
		} else {
			row = $5; series = $1 "/" $3 "/" $4 "/" $11
		}
		if (!(series in seen)) { seen[series] = 1; order[++ns] = series }
		if (!(row in rseen)) { rseen[row] = 1; rows[++nr] = row }
		v[row, series] = $col
	} END {
		printf "%s", kind; for (s = 1; s <= ns; s++) printf " %s", order[s]; print ""
		for (r = 1; r <= nr; r++) {
			printf "%s", rows[r]
			for (s = 1; s <= ns; s++) printf " %s", ((rows[r], order[s]) in v) ? v[rows[r], order[s]] : "NaN"
			print ""
		}
	}' "$CSV"
}

# The chart: IOPS of each job, one bar per disk, mode, engine and driver (log scale, as
# null_blk is orders of magnitude faster).
DAT=$OUT/$NAME.dat
PNG=$OUT/$NAME.png
to_table jobs 6 >"$DAT"
columns=$(head -n 1 "$DAT" | wc -w)
gnuplot <<EOF || die "gnuplot could not draw $PNG"
$(histogram_chart "$PNG" "mtk-sd-rust: IOPS by job, disk, mode, engine and driver ($MODE, QEMU -icount)")
set logscale y
set ylabel 'IOPS'
set xtics rotate by -30
set key outside right
plot for [i=2:$columns] '$DAT' using i:xtic(1) title columnheader(i)
EOF

# The transfer size sweep's chart: MiB/s by read size, one line per disk and limit.
SWEEP_PNG=
if grep -qE -- '-req([0-9]+k|max),' "$CSV"; then
	SWEEP_DAT=$OUT/$NAME-sweep.dat
	SWEEP_PNG=$OUT/$NAME-sweep.png
	to_table sweep 7 >"$SWEEP_DAT"
	sweep_columns=$(head -n 1 "$SWEEP_DAT" | wc -w)
	gnuplot <<GNUPLOT || die "gnuplot could not draw $SWEEP_PNG"
set terminal pngcairo size 1200,600 noenhanced
set output '$SWEEP_PNG'
set title 'mtk-sd-rust: sequential read MiB/s by transfer size, depth 32 (QEMU -icount)'
set ylabel 'MiB/s'
set xlabel 'read size'
set key outside right
plot for [i=2:$sweep_columns] '$SWEEP_DAT' using 0:i:xtic(1) with linespoints title columnheader(i)
GNUPLOT
fi

# Ours against upstream's C driver, where both measured a disk, mode and job.
"$REPO/scripts/perf-driver-chart.sh" "$CSV" "$OUT/$NAME" ${COST:+"$COST_CSV"}

printf '%s\n' "$lines"
[[ -z $costs ]] || printf '%s\n' "$costs"
[[ -z $paths ]] || printf '%s\n' "$paths"
[[ $MODE == full ]] ||
	log "perf smoke: the harness ran; these figures are of the KASAN test kernel without -icount, not measurements"
log "perf $MODE: $(($(wc -l <"$CSV") - 1)) measurements; CSV: $CSV; chart: $PNG;"\
"${SWEEP_PNG:+ transfer size sweep: $SWEEP_PNG;}"\
 " per-I/O time of the simulated hardware and of the rest: $TIMES_CSV"\
"${COST:+; instructions per I/O: $COST_CSV; completion-to-next-issue path: $PATH_CSV}"
