#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# /perf of the QEMU guest (rdinit=/perf, scripts/perf.sh): measures the simulated
# disks and null_blk with time-based fio jobs and prints one line per measurement,
#   perf: <disk> <profile> <mode> <engine> <job> iops=<N> mib_s=<N> lat_us=<mean> p99_us=<N> cpu_us_per_io=<N> driver=<rust|c>
# and its completion latency's percentiles with the interrupts the slot raised per I/O
# (the board's count; the larger of the read and write percentiles, as p99_us),
#   perf-lat: <disk> <mode> <engine> <job> p50_us=<N> p90_us=<N> p99_us=<N> p999_us=<N> irqs_per_io=<x> driver=<rust|c>
# then reboots. The guest runs under QEMU's instruction counting, so its clock,
# and every figure, follows executed instructions, not the host's load.
#
# Kernel command-line parameters (scripts/perf.sh sets them):
#   msdc_perf=full|smoke   every job for 3 s, or one 1 s job per disk and mode
#   msdc_perf_disks=LIST   which disks: emmc-cq, emmc, sd, null (comma separated)
#   msdc_perf_wait=S       how long to wait for the MMC disks (default 60 s)
#   msdc_perf_jobs=LIST    only these jobs (comma separated names; default every job)
#   msdc_perf_sched=NAME   the block layer's I/O scheduler for the MMC disks (none,
#                          mq-deadline, ...; default: the kernel's choice); each disk's
#                          scheduler is printed, "perf: scheduler <disk> <sysfs line>"
#   msdc_perf_sweep=LIMIT  instead of the jobs: the sequential-read transfer size sweep
#                          (4 KiB to 4 MiB at depth 32), labelled with the host's
#                          request limit (mtk_sd_rust_sim.max_request_kib): 512k or max
#   msdc_perf_cost=N1,N2   after each job, its exact cost (perf.sh loads insncount, the
#                          QEMU plugin that counts instructions): the job again with N1
#                          and with N2 I/Os per fio thread (io_size, not time-based: the
#                          counts are exact whatever the clock) with each of three
#                          seeds, each run between two snapshots of the plugin's
#                          counters (/bin/insnmark), and a line per run for perf.sh to
#                          difference,
#   perf: window <k> <disk> <mode> <engine> <job> <driver> seed=<S> n=<N> ios=<N>
# The queue mode each MMC disk runs in is the board's (mtk_sd_rust_sim.queue=...),
# and its engine the board's too (mtk_sd_rust_sim.engine=rust|c: the driver's
# engines or the kernel's C cqhci and mmc_hsq), both read back from the driver's
# debugfs; a disk whose engine is not the one asked for fails the run.
# With mtk_sd_rust_sim.driver=c, upstream's C driver (mtk-msdc) serves the slots
# instead (driver=c): it picks its queue itself from the same device tree (CQHCI
# with supports-cqe, else HSQ with no-sdio, else one request at a time), which
# is read back from the MMC core's log ("mmcN: Command Queue Engine enabled",
# "Host Software Queue enabled"; neither: one at a time); its engines are C
# (engine c) and it has no debugfs of the Rust driver. A disk whose host is bound
# to the other driver fails the run.

/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

param() {
	local v
	v=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1)
	echo "${v:-$2}"
}

MODE=$(param msdc_perf smoke)
DISKS=$(param msdc_perf_disks emmc-cq,emmc,sd,null | tr ',' ' ')
WAIT=$(param msdc_perf_wait 60)
ENGINE=$(param mtk_sd_rust_sim.engine rust)
DRIVERS=$(param mtk_sd_rust_sim.driver rust)
SWEEP=$(param msdc_perf_sweep "")
COST=$(param msdc_perf_cost "" | tr ',' ' ')
JOBS=$(param msdc_perf_jobs "")
SCHED=$(param msdc_perf_sched "")
WINDOW=0
FAILED=0

fail() {
	echo "perf: FAIL $*"
	FAILED=1
}

# The driver the board gave disk $1: mtk_sd_rust_sim.driver= is rust, c, or a list
# in slot order (emmc-cq, emmc, sd first), whose missing entries are rust.
driver_of() {
	local n
	case $DRIVERS in rust | c) echo "$DRIVERS"; return ;; esac
	case $1 in emmc-cq) n=1 ;; emmc) n=2 ;; sd) n=3 ;; *) echo rust; return ;; esac
	n=$(echo "$DRIVERS" | cut -d, -f"$n")
	echo "${n:-rust}"
}

# The register window of each measured simulated slot, by the board's layout
# (simboard/board.rs); its platform device is <window>.mmc.
slot_window() {
	case $1 in
	emmc-cq) echo 1011f60000 ;;
	emmc) echo 1011f70000 ;;
	sd) echo 1011f80000 ;;
	esac
}

# The card profile of each simulated disk (models/README.md, "Card profiles": the
# eMMC 5.1 of Latency::EMMC_HS400_CQ, the MicroSD A2 card of Latency::SD_A2_SDR104).
profile_of() {
	case $1 in
	emmc-cq | emmc) echo emmc51-hs400-cq ;;
	sd) echo microsd-a2-sdr104 ;;
	null) echo null_blk ;;
	esac
}

# The simulated controller's debugfs file of its models' guest time (ns), if any.
model_file() {
	local window
	window=$(slot_window "$1")
	[ -n "$window" ] && echo "/sys/kernel/debug/mtk_sd_rust_sim/$window/model_ns"
}

model_ns() {
	local f
	f=$(model_file "$1")
	if [ -n "$f" ] && [ -r "$f" ]; then cat "$f"; else echo 0; fi
}

# The board's file $2 of disk $1's slot (mtk_sd_rust_sim/<window>/$2) through the sed
# script $3, or $4 where there is none (null_blk).
board_figures() {
	local window f
	window=$(slot_window "$1")
	f=/sys/kernel/debug/mtk_sd_rust_sim/$window/$2
	if [ -n "$window" ] && [ -r "$f" ]; then sed "$3" "$f"; else echo "$4"; fi
}

# Where the slot's simulated hardware time went so far, "bus card wait wake" in ns.
hardware_ns() {
	board_figures "$1" hardware_ns \
		's/bus=\([0-9]*\) card=\([0-9]*\) wait=\([0-9]*\) wake=\([0-9]*\)/\1 \2 \3 \4/' "0 0 0 0"
}

# The lag from a register write that started the slot's work to the run that started
# it so far, "total starts".
start_lag() {
	board_figures "$1" start_lag_ns 's/total=\([0-9]*\) starts=\([0-9]*\) .*/\1 \2/' "0 0"
}

# The interrupts the slot's simulated controller raised so far.
raised() {
	board_figures "$1" raised 's/^\([0-9]*\)$/\1/' 0
}

# mmcblkN for a slot name, or nothing.
disk_of_slot() {
	local p host dev
	for p in /sys/block/mmcblk*; do
		[ -e "$p/device" ] || continue
		case ${p##*/} in *boot* | *rpmb*) continue ;; esac
		host=$(readlink -f "$p/device")
		host=${host%/*}         # .../mmc_host/mmcM
		dev=${host%/mmc_host/*} # .../<platform device>
		if [ "${dev##*/}" = "$(slot_window "$1").mmc" ]; then
			echo "${p##*/} ${host##*/}"
			return
		fi
	done
}

# The platform driver of the slots for mtk_sd_rust_sim.driver=$1: rust or c (the
# perf harness gives every slot the same driver).
driver_name() {
	case $1 in
	rust) echo mtk_sd_rust ;;
	c) echo mtk-msdc ;;
	esac
}

# The queue the MMC core enabled on host $1, from its log: cqe, hsq, or legacy
# (neither line). Upstream's C driver has no debugfs of its mode.
core_mode() {
	if dmesg | grep -q "$1: Command Queue Engine enabled"; then echo cqe
	elif dmesg | grep -q "$1: Host Software Queue enabled"; then echo hsq
	else echo legacy
	fi
}

wait_for_disks() {
	local start=$(date +%s) d missing
	while :; do
		missing=""
		for d in $DISKS; do
			[ "$d" = null ] && continue
			[ -n "$(disk_of_slot "$d")" ] || missing="$missing $d"
		done
		[ -z "$missing" ] && return 0
		if [ $(($(date +%s) - start)) -ge "$WAIT" ]; then
			fail "no disk for:$missing after $WAIT s"
			return 1
		fi
		sleep 1
	done
}

# Busy jiffies (user, nice, system, irq, softirq, steal) of all CPUs, in USER_HZ.
busy_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat
}

# One time-based job: prints its perf line. $1 disk label, $2 mode, $3 engine,
# $4 job name, $5 device, then fio options; the driver is $DRIVER (rust or c).
measure() {
	local label=$1 mode=$2 engine=$3 job=$4 dev=$5 out=/tmp/perf-$1-$4 before after rc=0
	shift 5
	local model_before model_after hw_before hw_after lag_before lag_after irq_before irq_after
	irq_before=$(raised "$label")
	model_before=$(model_ns "$label")
	hw_before=$(hardware_ns "$label")
	lag_before=$(start_lag "$label")
	before=$(busy_ticks)
	fio --name="$job" --filename="$dev" --direct=1 --thread=1 --group_reporting=1 \
		--time_based=1 --runtime="$RUNTIME" --ramp_time=0 --size="$SPAN" \
		--randrepeat=1 --randseed=12345 --norandommap=1 --output-format=terse --terse-version=3 \
		"$@" >"$out" 2>&1 || rc=$?
	after=$(busy_ticks)
	model_after=$(model_ns "$label")
	hw_after=$(hardware_ns "$label")
	lag_after=$(start_lag "$label")
	irq_after=$(raised "$label")
	local terse
	terse=$(grep '^3;' "$out" | tail -n 1)
	if [ "$rc" -ne 0 ] || [ -z "$terse" ] || [ "$(echo "$terse" | cut -d';' -f5)" != 0 ]; then
		fail "$label $mode $job fio exit=$rc"
		grep -v '^3;' "$out" | head -n 10 | sed 's/^/perf:   /'
		return
	fi
	# terse v3: read 6 KiB 7 KiB/s 8 IOPS 16 lat mean(us); write 47 48 49 57;
	# clat percentiles 18..37 (read) and 59..78 (write) as "p=value", 99.00% is the 13th.
	echo "$terse" | awk -F';' -v d="$label" -v p="$(profile_of "$label")" -v m="$mode" \
		-v e="$engine" -v j="$job" -v busy=$((after - before)) -v rt="$RUNTIME" \
		-v model_ns=$((model_after - model_before)) -v hw0="$hw_before" -v hw1="$hw_after" \
		-v lag0="$lag_before" -v lag1="$lag_after" -v drv="$DRIVER" \
		-v irqs=$((irq_after - irq_before)) '{
		iops = $8 + $49; kib = $7 + $48
		lat = (($8 * $40) + ($49 * $81)) / (iops > 0 ? iops : 1)
		split($30, rp, "="); split($71, wp, "=")
		p99 = rp[2] > wp[2] ? rp[2] : wp[2]
		ios = iops * rt
		cpu = ios > 0 ? busy * 10000 / ios : 0
		printf "perf: %s %s %s %s %s iops=%d mib_s=%.1f lat_us=%.0f p99_us=%d cpu_us_per_io=%.1f driver=%s\n",
			d, p, m, e, j, iops, kib / 1024, lat, p99, cpu, drv
		model = ios > 0 ? model_ns / 1000 / ios : 0
		host = cpu > model ? cpu - model : 0
		# The hardware side per I/O: bus, card, waits of the CQHCI block, the wake-up.
		split(hw0, h0, " "); split(hw1, h1, " ")
		for (i = 1; i <= 4; i++) hw[i] = ios > 0 ? (h1[i] - h0[i]) / 1000 / ios : 0
		wall = iops > 0 ? 1000000 / iops : 0
		# The mean lag from the register write that started work to the run starting it.
		split(lag0, l0, " "); split(lag1, l1, " ")
		starts = l1[2] - l0[2]
		lag = starts > 0 ? (l1[1] - l0[1]) / 1000 / starts : 0
		printf "perf-time: %s %s %s %s model_us_per_io=%.1f host_us_per_io=%.1f" \
			" bus_us_per_io=%.1f card_us_per_io=%.1f wait_us_per_io=%.1f wake_us_per_io=%.1f" \
			" wall_us_per_io=%.1f start_lag_us=%.1f driver=%s\n", d, m, e, j, model, host, hw[1], hw[2], hw[3], hw[4], wall, lag, drv
		# clat percentiles: 50 % is the 7th, 90 % the 11th, 99.9 % the 15th.
		split($24, r50, "="); split($65, w50, "="); split($28, r90, "="); split($69, w90, "=")
		split($32, r999, "="); split($73, w999, "=")
		p50 = r50[2] > w50[2] ? r50[2] : w50[2]
		p90 = r90[2] > w90[2] ? r90[2] : w90[2]
		p999 = r999[2] > w999[2] ? r999[2] : w999[2]
		per_io = ios > 0 ? irqs / ios : 0
		printf "perf-lat: %s %s %s %s p50_us=%d p90_us=%d p99_us=%d p999_us=%d irqs_per_io=%.3f driver=%s\n",
			d, m, e, j, p50, p90, p99, p999, per_io, drv }'
}

# One job's exact cost (msdc_perf_cost): the job for each of the two I/O counts
# with each of three seeds, between two counter snapshots. The windows are numbered
# in the order the snapshots are taken, so a failed run still prints its line.
# $1 disk label, $2 mode, $3 engine, $4 job name, $5 device, $6 block size in KiB,
# then fio options.
cost() {
	local label=$1 mode=$2 engine=$3 job=$4 dev=$5 bs_kib=$6 seed n rc out terse ios
	shift 6
	out=/tmp/cost-$label-$job
	for seed in 12345 23456 34567; do
		for n in $COST; do
			rc=0
			insnmark
			fio --name="$job" --filename="$dev" --direct=1 --thread=1 --group_reporting=1 \
				--io_size="$((n * bs_kib))k" --ramp_time=0 --size="$SPAN" \
				--randrepeat=1 --randseed="$seed" --norandommap=1 --output-format=terse \
				--terse-version=3 "$@" >"$out" 2>&1 || rc=$?
			insnmark
			terse=$(grep '^3;' "$out" | tail -n 1)
			ios=-1
			if [ "$rc" -ne 0 ] || [ -z "$terse" ] || [ "$(echo "$terse" | cut -d';' -f5)" != 0 ]; then
				fail "$label $mode $job cost run (seed $seed, $n I/Os) fio exit=$rc"
			else
				# terse v3: read KiB is field 6, write KiB field 47.
				ios=$(echo "$terse" | awk -F';' -v bs="$bs_kib" '{ printf "%d", ($6 + $47) / bs }')
			fi
			echo "perf: window $WINDOW $label $mode $engine $job $DRIVER seed=$seed n=$n ios=$ios"
			WINDOW=$((WINDOW + 1))
		done
	done
}

# The jobs, named like randread-4k-qd32-j1.
run_jobs() {
	local label=$1 mode=$2 engine=$3 dev=$4 w bs rw name qd j
	for w in randread:4k randrw:4k randwrite:4k read:512k; do
		rw=${w%%:*} bs=${w##*:}
		name=$rw
		[ "$rw" = read ] && name=seqread
		for qd in 1 32; do
			for j in 1 4; do
				[ "$qd" = 1 ] && [ "$j" = 4 ] && continue
				if [ "$MODE" = smoke ] && [ "$name-$bs-qd$qd-j$j" != randread-4k-qd32-j1 ]; then
					continue
				fi
				case ,$JOBS, in ,, | *,"$name-$bs-qd$qd-j$j",*) ;; *) continue ;; esac
				if [ "$qd" = 1 ]; then
					set -- --ioengine=psync
				else
					set -- --ioengine=libaio --iodepth=32 --iodepth_batch_submit=8
				fi
				measure "$label" "$mode" "$engine" "$name-$bs-qd$qd-j$j" "$dev" "$@" \
					--rw="$rw" --bs="$bs" --numjobs="$j" --offset_increment="$SPAN"
				[ -z "$COST" ] ||
					cost "$label" "$mode" "$engine" "$name-$bs-qd$qd-j$j" "$dev" "${bs%k}" "$@" \
						--rw="$rw" --bs="$bs" --numjobs="$j" --offset_increment="$SPAN"
			done
		done
	done
}

# The transfer size sweep: sequential reads of 4 KiB to 4 MiB at depth 32, named
# seqread-<size>-qd32-j1-req<limit>. The span is 48 MiB, so even 4 MiB reads move
# through the disk rather than re-read one spot.
run_sweep() {
	local label=$1 mode=$2 engine=$3 dev=$4 bs
	SPAN=48M
	for bs in 4k 16k 64k 256k 512k 1m 4m; do
		measure "$label" "$mode" "$engine" "seqread-$bs-qd32-j1-req$SWEEP" "$dev" \
			--ioengine=libaio --iodepth=32 --iodepth_batch_submit=8 --rw=read --bs="$bs"
	done
}

case $MODE in
full) RUNTIME=3 ;;
smoke) RUNTIME=1 ;;
*) fail "unknown msdc_perf=$MODE (full or smoke)" ;;
esac
# Four jobs side by side each get a region of their own.
SPAN=12M

echo "perf: kernel $(uname -r), $(fio --version), mode $MODE, disks $DISKS"
if [ "$FAILED" -eq 0 ] && wait_for_disks; then
	for d in $DISKS; do
		if [ "$d" = null ]; then
			DRIVER=rust
			if [ -b /dev/nullb0 ]; then
				run_jobs null null none /dev/nullb0
			else
				fail "no /dev/nullb0 (CONFIG_BLK_DEV_NULL_BLK)"
			fi
			continue
		fi
		set -- $(disk_of_slot "$d")
		disk=$1 host=$2
		DRIVER=$(driver_of "$d")
		case $DRIVER in rust | c) ;; *) fail "$d: mtk_sd_rust_sim.driver= gives it '$DRIVER'"; continue ;; esac
		bound=$(readlink -f "/sys/class/mmc_host/$host/device/driver")
		bound=${bound##*/}
		if [ "$bound" != "$(driver_name "$DRIVER")" ]; then
			fail "$d: $host is bound to '$bound', the board asked for the $DRIVER driver"
			continue
		fi
		if [ "$DRIVER" = c ]; then
			mode=$(core_mode "$host")
			engine=c
		else
			mode=$(cat "/sys/kernel/debug/mtk_sd_rust/$host/mode" 2>/dev/null)
			[ -n "$mode" ] || { fail "$d: no debugfs mode for $host"; continue; }
			engine=$(cat "/sys/kernel/debug/mtk_sd_rust/$host/engine" 2>/dev/null)
		fi
		if [ "$mode" = legacy ]; then
			engine=none
		elif [ "$DRIVER" = rust ] && [ "$engine" != "$ENGINE" ]; then
			fail "$d: $host runs the '$engine' engine, the board asked for '$ENGINE'"
			continue
		fi
		if [ -n "$SCHED" ] && ! echo "$SCHED" >"/sys/block/$disk/queue/scheduler"; then
			fail "$d: no I/O scheduler '$SCHED' ($(cat "/sys/block/$disk/queue/scheduler"))"
			continue
		fi
		echo "perf: scheduler $d $(cat "/sys/block/$disk/queue/scheduler")"
		if [ -n "$SWEEP" ]; then
			run_sweep "$d" "$mode" "$engine" "/dev/$disk"
		else
			run_jobs "$d" "$mode" "$engine" "/dev/$disk"
		fi
	done
fi
if [ "$FAILED" -eq 0 ]; then echo "perf: result PASS"; else echo "perf: result FAIL"; fi
reboot -f
