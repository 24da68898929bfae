#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# /init of the QEMU guest: mounts the pseudo file systems, reports the MSDC
# driver's state, runs the end-to-end fio test on the MMC disks, prints lines that
# scripts/e2e-check.sh parses, and reboots (ending QEMU).
#
# On each disk (five on the simulated board, simboard/board.rs): two jobs one
# request at a time (psync), then three queued jobs (libaio, 32 requests in
# flight, O_DIRECT), each writing its region and reading it back with every
# block's crc32c checked; then one line per disk with how the driver queued
# (CQHCI, HSQ or one at a time) from its debugfs statistics. The queued jobs
# run on the disks served one request at a time as well: there the block layer
# holds what the host cannot take.
#
# Then the power phase, on every disk at once: a job whose idle gaps outlast the
# driver's 50 ms autosuspend delay, so that each host runtime-suspends and resumes
# once per I/O, and a system sleep (suspend to RAM, ACPI S3, woken by the CMOS
# clock's alarm) in the middle of another job; then one line per disk with the driver's
# power counters and the simulated controller's violation count.
#
# Kernel command-line parameters (scripts/run.sh sets them):
#   msdc_e2e=short|full      fio size per job: 2 or 16 MiB; absent: report only
#   msdc_e2e_disks=N         whole-disk mmcblk devices to wait for (default 5)
#   msdc_e2e_wait=S          how long to wait for them (default 60 s)
#   msdc_e2e_size=MiB        overrides the size per job
#   msdc_e2e_pm_ios=N        I/Os of the runtime PM job: 150 (short) or 1400 (full)
#   msdc_e2e_pm_think=MS     idle time after each of them (default 80 ms)
#   msdc_e2e_sleep=rtc       the system sleep's wake-up: the RTC alarm (default), or
#                  pm_test   /sys/power/pm_test "devices": devices suspend and resume
#                            without a wake source (if the RTC cannot wake the guest)
#   msdc_e2e_wake=S          the RTC alarm's delay (default 3 s)
#   msdc_e2e_sleep_state=mem the state written to /sys/power/state (default mem,
#                            ACPI S3: QEMU wakes a guest from S3 at the CMOS
#                            alarm, but not from suspend to idle, "freeze",
#                            where the alarm is an interrupt no wake-up is armed
#                            for; freeze works with msdc_e2e_sleep=pm_test)
#   msdc_e2e_matrix=full     the whole fault matrix and 100 lifecycle cycles per slot
#                            (make stress; default short)
#   msdc_e2e_phases=LIST     only these of jobs,power,matrix,retune,lifecycle,removal,
#                            module (comma-separated; scripts/e2e-check.sh reads the
#                            list from the kernel command line and wants each)
#   msdc_e2e_cycles=N        debugging: unbind/bind cycles per slot instead of 2 (100)
#   msdc_e2e_driver=module   the driver is the module build at /lib/modules (the
#                            built-in one blacklisted): loaded first, and the module
#                            phase unloads and reloads it 2 times (100 in full matrix)
#   msdc_e2e_module_cycles=N debugging: unload/reload cycles instead
#   msdc_e2e_target=file     test hook: the same jobs on a file in tmpfs
#   msdc_e2e_fault=corrupt   test hook: zero 4 KiB in the middle of each job's region
#                            between writing and verifying
#
# No `set -e`: this is PID 1, and an exiting init panics the kernel; every step
# reports its own failure and the script always reaches the reboot.

/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# The driver's per-host statistics (CONFIG_DEBUG_FS; without it the directory is absent).
[ -d /sys/kernel/debug ] && mount -t debugfs debugfs /sys/kernel/debug

# Everything /init and its jobs print reaches the console through the kernel log, one
# record per line. The kernel prints a record whole, so its own messages (a card coming
# up, a driver's error) can no longer land inside one of these lines, as they could on
# the serial port the two shared, and scripts/e2e-check.sh reads each line intact.
# The kernel command line lifts the log's rate limit on such writes (printk.devkmsg=on,
# scripts/run.sh); a line longer than a record holds is cut at 900 characters.
mkfifo /tmp/console
while IFS= read -r line; do printf '%.900s\n' "$line" >/dev/kmsg; done </tmp/console &
RELAY=$!
exec >/tmp/console 2>&1

# The last NAME=value of the kernel command line, or $2.
param() {
	local v
	v=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1)
	echo "${v:-$2}"
}

# Whether $1 is a whole number: a typo in a count parameter must fail the run, not
# end PID 1 in a shell arithmetic error.
is_count() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
}

uptime_s() { cut -d' ' -f1 /proc/uptime; }

# How long the system sleep's jobs may run on after the wake-up (they need 3 s).
SLEEP_STUCK_S=60

# The base names of the paths that exist, on one line, or "none".
names() {
	local p out=""
	for p in "$@"; do [ -e "$p" ] && out="$out${p##*/} "; done
	echo "${out:-none}"
}

echo "guest: kernel $(uname -r)"
# msdc_e2e_driver=module: the kernel's built-in driver did not start
# (initcall_blacklist), and the out-of-tree module build, packed at MODULE_KO,
# serves the board instead; the module phase unloads and reloads it.
MODULE_KO=/lib/modules/mtk_sd_rust.ko
DRIVER=$(param msdc_e2e_driver builtin)
if [ "$DRIVER" = module ]; then
	t0=$(awk '{ printf "%d", $1 * 1000 }' /proc/uptime)
	if insmod "$MODULE_KO" 2>/tmp/insmod.err; then
		echo "guest: module $MODULE_KO loaded in" \
			"$(($(awk '{ printf "%d", $1 * 1000 }' /proc/uptime) - t0)) ms"
	else
		echo "guest: module $MODULE_KO NOT loaded: $(cat /tmp/insmod.err)"
	fi
fi
if [ -d /sys/bus/platform/drivers/mtk_sd_rust ]; then
	echo "guest: platform driver mtk_sd_rust registered"
	for p in /sys/bus/platform/drivers/mtk_sd_rust/*; do echo "guest:   ${p##*/}"; done
else
	echo "guest: platform driver mtk_sd_rust MISSING"
fi
# Upstream's C driver (mtk-sd.c) on the slots mtk_sd_rust_sim.driver= gave it
# (CONFIG_MMC_MTK_RUST_SIM_C_DRIVER): the devices it holds.
if [ -d /sys/bus/platform/drivers/mtk-msdc ]; then
	echo "guest: platform driver mtk-msdc (upstream C) registered," \
		"bound to $(names /sys/bus/platform/drivers/mtk-msdc/*.mmc)"
fi
echo "guest: mmc hosts: $(names /sys/class/mmc_host/*)"

MODE=$(param msdc_e2e "")
NDISKS=$(param msdc_e2e_disks 5)
WAIT=$(param msdc_e2e_wait 60)
TARGET=$(param msdc_e2e_target disks)
FAULT=$(param msdc_e2e_fault none)
FAILED=0
POWER=0

fail() {
	echo "e2e: FAIL $*"
	FAILED=1
}

# Whole-disk MMC devices only: mmcblkN, never mmcblkNbootM, mmcblkNrpmb or partitions.
is_whole_disk() {
	case $1 in mmcblk?*) ;; *) return 1 ;; esac
	case ${1#mmcblk} in *[!0-9]*) return 1 ;; esac
}

whole_disks() {
	local p
	for p in /sys/block/mmcblk*; do
		is_whole_disk "${p##*/}" && [ -b "/dev/${p##*/}" ] && echo "${p##*/}"
	done
}

# What the MMC core found: hosts, their cards and the cards' disks.
report() {
	local host card p d
	echo "e2e: mmc hosts: $(names /sys/class/mmc_host/*)"
	for host in /sys/class/mmc_host/*; do
		[ -e "$host" ] || continue
		set -- "$host/${host##*/}":*
		if [ ! -e "$1" ]; then
			echo "e2e:   ${host##*/}: no card"
			continue
		fi
		for card in "$@"; do
			echo "e2e:   ${host##*/}: card ${card##*/} type=$(cat "$card/type" 2>/dev/null)" \
				"name=$(cat "$card/name" 2>/dev/null)"
			for p in "$card"/block/mmcblk*; do
				d=${p##*/}
				is_whole_disk "$d" || continue
				echo "e2e:   ${host##*/}: disk $d size=$(cat "/sys/block/$d/size") sectors" \
					"($(($(cat "/sys/block/$d/size") / 2048)) MiB)"
			done
		done
	done
}

# Polls rather than waits on an event: card detection and block registration run
# in the kernel's work queues, at a pace TCG makes unpredictable.
wait_for_disks() {
	local start found n
	start=$(date +%s)
	echo "e2e: waiting up to $WAIT s for $NDISKS whole-disk mmcblk devices"
	while :; do
		found=$(whole_disks | tr '\n' ' ')
		found=${found% }
		n=$(echo "$found" | wc -w)
		[ "$n" -ge "$NDISKS" ] && break
		if [ $(($(date +%s) - start)) -ge "$WAIT" ]; then
			fail "wait: $n of $NDISKS whole-disk mmcblk devices after $WAIT s: ${found:-none}"
			report
			return 1
		fi
		sleep 1
	done
	echo "e2e: $n disks after $(($(date +%s) - start)) s: $found"
	[ "$n" -eq "$NDISKS" ] || echo "e2e: note: more disks than the $NDISKS expected; testing all"
	report
}

# The corrupt hook's job: fio "$@" writes its region of $2 MiB on file $1 without
# verifying, one 4 KiB block in the middle is zeroed behind fio's back, then fio
# verifies what is there; output in $3, fio's (or dd's) exit status.
corrupted_job() {
	local file=$1 mib=$2 out=$3 rc=0
	shift 3
	fio "$@" --do_verify=0 >"$out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] && { dd if=/dev/zero of="$file" bs=4096 seek=$((mib * 128)) count=1 \
		conv=notrunc,fsync 2>>"$out" || rc=$?; }
	[ "$rc" -eq 0 ] && { fio "$@" --verify_only=1 >"$out" 2>&1 || rc=$?; }
	return "$rc"
}

# The negative control of every run on the disks: a 1 MiB job on disk $1 with the
# corrupt hook's zeroed block, whose verify must fail, and for that reason. A run
# whose verify passes a zeroed block proves nothing of the disks it passed. The
# power phase rewrites the region after it.
corrupt_control() {
	local d=$1 out=/tmp/fio-control
	if corrupted_job "/dev/$d" 1 "$out" --name=control --filename="/dev/$d" --direct=1 \
		--thread=1 --ioengine=psync --rw=write --bs=4k --offset=0 --size=1M \
		--verify=crc32c --verify_fatal=1 --verify_state_save=0; then
		fail "control: fio's verify passed a block zeroed behind its back on $d"
	elif [ "$(verify_failures "$out")" -gt 0 ]; then
		echo "e2e: control $d zeroed block detected"
	else
		fail "control: the corrupted job on $d failed, but not on its verify"
		head -n 20 "$out" | sed 's/^/e2e:   /'
	fi
}

# One fio job on one target: write its region, then read it back and check every
# written block's crc32c (verify_fatal stops at the first bad block; in a randrw job
# the reads of the mixed phase are not checked, the verify phase reads back every
# write). The caller gives engine, region and pattern. One line per job, whatever
# its numjobs (group_reporting sums them; any thread's error fails the job).
run_job() {
	local label=$1 job=$2 file=$3 out=/tmp/fio-$1-$2
	shift 3
	set -- --name="$job" --filename="$file" --direct="$DIRECT" --thread=1 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 \
		--group_reporting=1 --output-format=terse --terse-version=3 "$@"
	local rc=0
	if [ "$FAULT" = corrupt ]; then
		corrupted_job "$file" "$SIZE" "$out" "$@" || rc=$?
	else
		fio "$@" >"$out" 2>&1 || rc=$?
	fi
	# terse v3: 5 error, 7/8 read (verify) KiB/s and IOPS, 47/48/49 write KiB, KiB/s, IOPS
	local terse err
	terse=$(grep '^3;' "$out")
	err=none
	[ -n "$terse" ] && err=$(echo "$terse" | awk -F';' '$5 != 0 && e == "" { e = $5 }
		END { print (e == "" ? 0 : e) }')
	if [ "$rc" -eq 0 ] && [ "$err" = 0 ]; then
		echo "$terse" | tail -n 1 | awk -F';' -v d="$label" -v j="$job" '{
			printf "e2e: PASS %s %s write=%dKiB bw=%dKiB/s iops=%d verify bw=%dKiB/s iops=%d\n",
				d, j, $47, $48, $49, $7, $8 }'
	else
		fail "$label $job fio exit=$rc error=$err"
		grep -v '^3;' "$out" | head -n 20 | sed 's/^/e2e:   /'
		return 1
	fi
}

# A job one request at a time on the first SIZE MiB: the block layer never has two
# requests on the host.
sync_job() {
	local label=$1 job=$2 file=$3
	shift 3
	run_job "$label" "$job" "$file" --ioengine=psync --size="${SIZE}M" --offset=0 "$@"
}

# A queued job: up to 32 requests in flight, submitted 8 per io_submit, so that the
# host gets several before the first completes (the MMC core then hands CQHCI up to
# its queue depth, HSQ up to hsq_depth + 1, and a host without either one request
# at a time). The caller gives the region.
queued_job() {
	local label=$1 job=$2 file=$3
	shift 3
	run_job "$label" "$job" "$file" --ioengine=libaio --iodepth=32 --iodepth_batch_submit=8 "$@"
}

# The MMC host (mmcM) whose card holds disk $1: /sys/block/mmcblkN/device is the
# card, mmcM:RCA, a child of that host.
disk_host() {
	local card
	card=$(readlink -f "/sys/block/$1/device") || return 1
	card=${card##*/}
	case $card in mmc[0-9]*:*) echo "${card%%:*}" ;; *) return 1 ;; esac
}

# The platform driver of MMC host $1: mtk_sd_rust, or mtk-msdc (upstream's C driver).
host_driver() {
	local drv
	drv=$(readlink -f "/sys/class/mmc_host/$1/device/driver") || return 1
	echo "${drv##*/}"
}

# Whether host $1 runs upstream's C driver, whose statistics are not the Rust
# driver's debugfs files: its lines take their figures from the MMC core's log and
# the board instead.
c_host() {
	[ "$(host_driver "$1")" = mtk-msdc ]
}

# The queue the MMC core enabled on host $1, from its log line ("mmcN: Command Queue
# Engine enabled", "Host Software Queue enabled"; neither: one request at a time).
core_mode() {
	local log
	log=$(dmesg)
	if echo "$log" | grep -q "$1: Command Queue Engine enabled"; then echo cqe
	elif echo "$log" | grep -q "$1: Host Software Queue enabled"; then echo hsq
	else echo legacy
	fi
}

# The timing host $1's card ended at, in the names of the "e2e: timing" line, from
# the MMC core's debugfs (mmcN/ios, "timing spec: N (name)").
host_timing() {
	local spec
	spec=$(sed -n 's/^timing spec:[[:space:]]*[0-9]* (\(.*\))$/\1/p' "/sys/kernel/debug/$1/ios" 2>/dev/null)
	case $spec in
	legacy) echo legacy ;;
	"mmc high-speed" | "sd high-speed") echo hs ;;
	"mmc HS200") echo hs200 ;;
	"mmc HS400") echo hs400 ;;
	"mmc HS400 enhanced strobe") echo hs400es ;;
	"sd uhs SDR12") echo sdr12 ;;
	"sd uhs SDR25") echo sdr25 ;;
	"sd uhs SDR50") echo sdr50 ;;
	"sd uhs SDR104") echo sdr104 ;;
	"sd uhs DDR50") echo ddr50 ;;
	"mmc DDR52") echo ddr52 ;;
	*) echo "unknown" ;;
	esac
}

# The fastest timing host $1's device tree allows for a card of type $2 (MMC, SD or
# SDIO: the board's cards support every mode), from the node's speed-mode properties.
allowed_timing() {
	local of=/sys/class/mmc_host/$1/device/of_node
	case $2 in
	MMC)
		if [ -e "$of/mmc-hs400-enhanced-strobe" ]; then echo hs400es
		elif [ -e "$of/mmc-hs400-1_8v" ] || [ -e "$of/mmc-hs400-1_2v" ]; then echo hs400
		elif [ -e "$of/mmc-hs200-1_8v" ] || [ -e "$of/mmc-hs200-1_2v" ]; then echo hs200
		elif [ -e "$of/cap-mmc-highspeed" ]; then echo hs
		else echo legacy
		fi ;;
	SD | SDIO)
		if [ -e "$of/sd-uhs-sdr104" ]; then echo sdr104
		elif [ -e "$of/sd-uhs-sdr50" ]; then echo sdr50
		elif [ -e "$of/cap-sd-highspeed" ]; then echo hs
		else echo legacy
		fi ;;
	*) echo legacy ;;
	esac
}

# One line per MMC host with a card, "e2e: timing <host> <timing> window=<lo>-<hi>
# chosen=<n>": the timing the card ended at, and the driver's last tuning (the sweep's
# passing window in delay cells, wrapping when lo > hi, and the cell it samples at;
# "none" for a timing without tuning), from mtk_sd_rust/mmcN/tuning in debugfs; then,
# indented, what the device tree allows and the tuning probes.
timing_lines() {
	local host name card type timing tuning window chosen dir
	for host in /sys/class/mmc_host/*; do
		[ -e "$host" ] || continue
		name=${host##*/}
		set -- "$host/$name":*
		[ -e "$1" ] || continue
		card=$1
		type=$(cat "$card/type" 2>/dev/null)
		timing=$(host_timing "$name")
		dir=/sys/kernel/debug/mtk_sd_rust/$name
		tuning=$(cat "$dir/tuning" 2>/dev/null || echo none)
		window=none chosen=none
		case $tuning in
		*" window="*" chosen="*)
			window=${tuning#* window=}
			window=${window%% *}
			chosen=${tuning##* chosen=}
			;;
		esac
		# Upstream's C driver keeps its tuning result to itself: n/a.
		c_host "$name" && window=n/a chosen=n/a
		echo "e2e: timing $name $timing window=$window chosen=$chosen"
		echo "e2e:   driver $name $(host_driver "$name")"
		echo "e2e:   timing $name: card $type, device tree allows $(allowed_timing "$name" "$type")," \
			"last tuning: $tuning, probes $(cat "$dir/tuning_probes" 2>/dev/null || echo '?')" \
			"($(cat "$dir/tuning_probes_failed" 2>/dev/null || echo '?') failed)"
	done
}

# One line per SDIO card the board's test function driver exercised, "e2e: sdio
# <host> bytes=<N> verified irqs=<N>" (the bytes it moved with CMD53 and compared,
# and the function interrupts it counted), or "e2e: sdio <host> bytes=<N> FAILED
# ..." when a byte differed or a step failed; from mtk_sd_rust_sim/sdio/<host> in
# debugfs ("bytes=N verified=N irqs=N wakeups=N errors=N"), which the driver writes
# when its probe has run; the wake-ups (interrupts the card raised while the controller
# slept) go on the indented line.
sdio_lines() {
	local f name line bytes verified irqs errors waited=0
	while [ ! -d /sys/kernel/debug/mtk_sd_rust_sim/sdio ] && [ "$waited" -lt 30 ]; do
		sleep 1
		waited=$((waited + 1))
	done
	for f in /sys/kernel/debug/mtk_sd_rust_sim/sdio/*; do
		[ -r "$f" ] || continue
		name=${f##*/}
		# The driver's probe runs the test; the line ends with done=1 once it is over.
		waited=0
		while ! grep -q 'done=1' "$f" && [ "$waited" -lt 60 ]; do
			sleep 1
			waited=$((waited + 1))
		done
		line=$(cat "$f")
		bytes=$(echo "$line" | sed -n 's/.*bytes=\([0-9]*\).*/\1/p')
		verified=$(echo "$line" | sed -n 's/.*verified=\([0-9]*\).*/\1/p')
		irqs=$(echo "$line" | sed -n 's/.*irqs=\([0-9]*\).*/\1/p')
		errors=$(echo "$line" | sed -n 's/.*errors=\([0-9]*\).*/\1/p')
		if [ -n "$bytes" ] && [ "$verified" = "$bytes" ] && [ "$errors" = 0 ]; then
			echo "e2e: sdio $name bytes=$bytes verified irqs=$irqs"
		else
			echo "e2e: sdio $name bytes=${bytes:-?} FAILED verified=${verified:-?} irqs=${irqs:-?} errors=${errors:-?}"
		fi
		echo "e2e:   sdio $name: $line"
	done
}

# Exactly one line per disk, "e2e: mode <disk> <cqe|hsq|legacy> max_in_flight=N
# errors=N recoveries=N", from the driver's statistics of the disk's host in
# debugfs (mtk_sd_rust/mmcM/), then the other counters indented, and the host's
# caps2 from the MMC core's debugfs (mmcM/caps2: whether the slot may hold SDIO
# or has a command queue engine), for the log and scripts/e2e-check.sh; after a
# power phase (POWER=1) also the disk's power line (pm_line).
mode_lines() {
	local d host dir f more caps2
	for d in "$@"; do
		if ! host=$(disk_host "$d"); then
			fail "$d: no MMC card behind /sys/block/$d/device"
			continue
		fi
		if c_host "$host"; then
			# Upstream's C driver: the queue the core enabled; it counts nothing in
			# debugfs (no in-flight, error or power figures).
			echo "e2e: mode $d $(core_mode "$host") driver=mtk-msdc"
			caps2=$(cat "/sys/kernel/debug/$host/caps2" 2>/dev/null || echo '?')
			echo "e2e:   $d on $host: caps2=$caps2"
			[ "$POWER" = 1 ] && pm_line "$d" "$host"
			continue
		fi
		dir=/sys/kernel/debug/mtk_sd_rust/$host
		if [ ! -r "$dir/mode" ]; then
			fail "$d: no driver statistics in $dir (debugfs, CONFIG_DEBUG_FS)"
			continue
		fi
		echo "e2e: mode $d $(cat "$dir/mode") max_in_flight=$(cat "$dir/max_in_flight")" \
			"errors=$(cat "$dir/errors") recoveries=$(cat "$dir/recoveries")"
		# completed before issued: a request is counted issued before it can complete, so
		# read in this order the two never show more completed than issued, even when the
		# core's card polling issues a command between the reads (seen with two vCPUs).
		completed=$(cat "$dir/completed" 2>/dev/null || echo '?')
		more=""
		for f in queue_depth issued completed errors_crc errors_timeout errors_other direct_commands; do
			if [ "$f" = completed ]; then
				more="$more completed=$completed"
			else
				more="$more $f=$(cat "$dir/$f" 2>/dev/null || echo '?')"
			fi
		done
		caps2=$(cat "/sys/kernel/debug/$host/caps2" 2>/dev/null || echo '?')
		echo "e2e:   $d on $host:$more caps2=$caps2"
		[ "$POWER" = 1 ] && pm_line "$d" "$host"
	done
}

# Seconds since the uptime $1, to a tenth. Uptime is CLOCK_BOOTTIME: it runs on
# through a system sleep.
since() {
	echo "$1 $(uptime_s)" | awk '{ printf "%.1f", $2 - $1 }'
}

# Writes $2 to the sysfs file $1; on failure WRITE_ERR holds the shell's message.
sys_write() {
	WRITE_ERR=$( { echo "$2" >"$1"; } 2>&1 ) && return 0
	# "/init: line N: write error: Device or resource busy": the errno's text.
	WRITE_ERR=${WRITE_ERR##*: }
	return 1
}

# The power phase runs one job on every disk at once: each in the background, its
# lines kept in a file and printed in disk order when all have ended.
# usage: start_on_disks JOB FIO-ARGS... (on $PM_DISKS), then wait_on_disks JOB.
start_on_disks() {
	local job=$1 d
	shift
	BG_JOBS=""
	for d in $PM_DISKS; do
		run_job "$d" "$job" "/dev/$d" "$@" >"/tmp/e2e-$job-$d.out" 2>&1 &
		BG_JOBS="$BG_JOBS $d:$!"
	done
}

wait_on_disks() {
	local job=$1 entry
	for entry in $BG_JOBS; do
		wait "${entry#*:}" || FAILED=1
		cat "/tmp/e2e-$job-${entry%%:*}.out"
	done
	BG_JOBS=""
}

# Writes completed on disk $1 since boot (the fifth field of its block statistics).
writes_done() {
	awk '{ print $5 }' "/sys/block/$1/stat"
}

# Every fio process, its command line and each thread's state, wait channel and top
# of the kernel stack: where a stuck job waits.
fio_threads() {
	local p t
	for p in $(pidof fio); do
		echo "e2e:   fio $p: $(cat "/proc/$p/wchan" 2>/dev/null) $(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-60)"
		for t in /proc/"$p"/task/*; do
			echo "e2e:     thread ${t##*/}: $(cut -d' ' -f3 "$t/stat" 2>/dev/null)" \
				"$(cat "$t/wchan" 2>/dev/null)" \
				"$(head -n 4 "$t/stack" 2>/dev/null | sed 's/^\[<[0-9a-f]*>\] //' | tr '\n' ' ')"
		done
	done
}

# Polls until every disk of $1 ("disk:writes ...") has completed a write more, for
# up to $2 seconds: the system sleep is to find fio busy on each.
wait_for_writes() {
	local start entry pending
	start=$(date +%s)
	while :; do
		pending=""
		for entry in $1; do
			[ "$(writes_done "${entry%%:*}")" -gt "${entry#*:}" ] || pending="$pending ${entry%%:*}"
		done
		[ -z "$pending" ] && return 0
		if [ $(($(date +%s) - start)) -ge "$2" ]; then
			echo "e2e: note: sleep: no write completed on$pending within $2 s of starting fio"
			fio_threads
			return 1
		fi
		sleep 0.2
	done
}

# A system sleep (msdc_e2e_sleep_state) while a verified fio job runs on every disk: the
# driver's system sleep callbacks with requests queued and in flight, and the
# data written before the sleep read back after it. $1: the jobs' offset (KiB).
# The wake-up is armed before the sleep, and without one there is no sleep:
# nothing else would end it.
sleep_during_fio() {
	local method wake state rtc=/sys/class/rtc/rtc0 delay=/sys/module/suspend/parameters/pm_test_delay
	local how before="" d t0 left
	method=$(param msdc_e2e_sleep rtc)
	wake=$(param msdc_e2e_wake 3)
	is_count "$wake" || { fail "msdc_e2e_wake=$wake is not a whole number of seconds"; wake=3; }
	case $method in
	rtc)
		if [ ! -d $rtc ]; then
			fail "sleep: no $rtc, nothing to wake the guest (CONFIG_RTC_DRV_CMOS;" \
				"msdc_e2e_sleep=pm_test sleeps without one)"
			return
		fi
		if [ ! -w $rtc/wakealarm ]; then
			fail "sleep: $rtc ($(cat $rtc/name 2>/dev/null)) has no wakealarm: its device" \
				"cannot wake the system (msdc_e2e_sleep=pm_test sleeps without one)"
			return
		fi
		how="$rtc alarm after $wake s"
		;;
	pm_test)
		if [ ! -w /sys/power/pm_test ]; then
			fail "sleep: no /sys/power/pm_test for msdc_e2e_sleep=pm_test (CONFIG_PM_DEBUG)"
			return
		fi
		how="pm_test devices"
		;;
	*)
		fail "sleep: unknown msdc_e2e_sleep=$method (rtc or pm_test)"
		return
		;;
	esac
	state=$(param msdc_e2e_sleep_state mem)
	if ! grep -qw "$state" /sys/power/state 2>/dev/null; then
		fail "sleep: /sys/power/state offers \"$(cat /sys/power/state 2>&1)\", no $state" \
			"(CONFIG_SUSPEND)"
		return
	fi

	for d in $PM_DISKS; do before="$before $d:$(writes_done "$d")"; done
	# 256 random writes at 100 a second: 2.6 s on every disk, the fastest too.
	# fio's own clock is the TSC where it looks reliable, and a vCPU coming back from
	# S3 starts its TSC again from zero: rate limiting by it would then sleep for
	# ages. The kernel's monotonic clock is the one that survives the sleep.
	# psync: with libaio (8 in flight), some runs left a job waiting in io_getevents
	# after the wake-up with nothing in flight in the block layer or the driver
	# (TODO[PM-STALL], docs/todo.md); a write that is lost below the system call now
	# leaves its thread blocked, in the report of blocked tasks.
	start_on_disks pm-sleep-4k --ioengine=psync --rw=randwrite --bs=4k \
		--offset="$1"k --size=1M --rate_iops=100 --clocksource=clock_gettime
	wait_for_writes "$before" 30
	sleep 1

	case $method in
	rtc)
		if ! sys_write $rtc/wakealarm 0 || ! sys_write $rtc/wakealarm "+$wake"; then
			fail "sleep: arming $rtc/wakealarm: $WRITE_ERR"
			wait_on_disks pm-sleep-4k
			return
		fi
		;;
	pm_test)
		if ! sys_write /sys/power/pm_test devices; then
			fail "sleep: echo devices > /sys/power/pm_test: $WRITE_ERR"
			wait_on_disks pm-sleep-4k
			return
		fi
		[ -w $delay ] && sys_write $delay 2
		how="$how, $(cat $delay 2>/dev/null || echo '?') s"
		;;
	esac
	echo "e2e: sleep: $state ($(cat /sys/power/mem_sleep 2>/dev/null)) with fio running on every disk; wake-up: $how"
	t0=$(uptime_s)
	if sys_write /sys/power/state "$state"; then
		echo "e2e: sleep: $state returned after $(since "$t0") s (wake-up: $how)"
	else
		fail "sleep: echo $state > /sys/power/state failed after $(since "$t0") s: $WRITE_ERR"
	fi
	case $method in
	rtc)
		# An alarm still set did not end the sleep: something else woke the guest.
		left=$(cat $rtc/wakealarm 2>/dev/null)
		[ -n "$left" ] && echo "e2e: note: sleep: the alarm (at $left) had not fired yet"
		sys_write $rtc/wakealarm 0
		;;
	pm_test) sys_write /sys/power/pm_test none ;;
	esac
	# A job that does not finish soon after the wake-up is stuck: say what the hosts
	# and the kernel's blocked tasks look like, and end it, rather than wait for
	# QEMU's time limit.
	(
		sleep "$SLEEP_STUCK_S"
		[ -e /tmp/e2e-sleep-done ] && exit 0
		echo "e2e: FAIL sleep: fio still running $SLEEP_STUCK_S s after the wake-up"
		for h in /sys/kernel/debug/mtk_sd_rust/mmc*; do
			echo "e2e:   ${h##*/}: $(for f in mode issued completed errors runtime_suspends \
				runtime_resumes system_sleeps; do printf '%s=%s ' $f "$(cat "$h/$f")"; done)"
		done
		for r in /sys/bus/platform/devices/*.mmc/power/runtime_status; do
			echo "e2e:   $r: $(cat "$r")"
		done
		# Where the stuck I/O is: the block layer's view of each disk, and what the
		# fio threads wait in.
		for b in /sys/block/mmcblk*; do
			[ -r "$b/inflight" ] || continue
			q=/sys/kernel/debug/block/${b##*/}
			echo "e2e:   ${b##*/}: inflight $(cat "$b/inflight")," \
				"hctx0 state $(cat "$q/hctx0/state" 2>/dev/null | tr '\n' ' ')" \
				"busy $(cat "$q/hctx0/busy" 2>/dev/null | wc -l)" \
				"dispatch $(cat "$q/hctx0/dispatch" 2>/dev/null | wc -l)," \
				"requeue $(cat "$q/requeue_list" 2>/dev/null | wc -l)," \
				"queued $(cat "$q"/hctx0/cpu*/*_rq_list 2>/dev/null | wc -l)," \
				"scheduler $(cat "$q"/sched/*fifo_list "$q"/sched/dispatch* 2>/dev/null | wc -l)," \
				"tags $(grep -h '^busy=\|^active_queues' "$q/hctx0/tags" 2>/dev/null | tr '\n' ' ')"
		done
		fio_threads
		[ -w /proc/sysrq-trigger ] && echo w >/proc/sysrq-trigger
		killall -9 fio 2>/dev/null
	) &
	wait_on_disks pm-sleep-4k
	: >/tmp/e2e-sleep-done
}

# The power phase on the disks $@, after the jobs above (it rewrites the start of
# each disk): runtime suspend/resume cycles, then a system sleep during fio.
power_phase() {
	local ios think blocks sleep_off need d t0
	if [ "$FAULT" != none ]; then
		echo "e2e: note: fault $FAULT: no power phase"
		return
	fi
	POWER=1
	ios=$(param msdc_e2e_pm_ios "$PM_IOS")
	is_count "$ios" || { fail "msdc_e2e_pm_ios=$ios is not a whole number"; ios=$PM_IOS; }
	think=$(param msdc_e2e_pm_think 80)
	is_count "$think" || { fail "msdc_e2e_pm_think=$think is not a whole number of ms"; think=80; }
	blocks=$((ios / 2))
	# The sleep's jobs on the MiB after the runtime PM jobs' region.
	sleep_off=$(((blocks * 4 + 1023) / 1024 * 1024))
	need=$((sleep_off / 1024 + 1))
	PM_DISKS=""
	for d in "$@"; do
		if [ $(($(cat "/sys/block/$d/size") / 2048)) -lt "$need" ]; then
			fail "$d is smaller than the $need MiB the power phase writes"
			continue
		fi
		PM_DISKS="$PM_DISKS $d"
	done
	t0=$(uptime_s)
	# Each I/O followed by more idle time than the driver's 50 ms autosuspend delay
	# (and the runtime PM core's 25 % timer slack), so that the host suspends after
	# it and resumes for the next one: verify_backlog=1 reads each block back right
	# after writing it, and the read too comes after a gap, so each block costs two
	# suspend/resume cycles, the second between its write and its check.
	echo "e2e: power: runtime PM on every disk at once: $((blocks * 2)) I/Os ($blocks 4 KiB writes," \
		"each read back), ${think} ms idle after each"
	start_on_disks pm-runtime-4k --ioengine=psync --rw=randwrite --bs=4k --offset=0 \
		--size=$((blocks * 4))k --thinktime="${think}ms" --thinktime_blocks=1 --verify_backlog=1
	wait_on_disks pm-runtime-4k
	sleep_during_fio "$sleep_off"
	echo "e2e: power phase took $(since "$t0") s"
}

# The register window of host $1 (lowercase hex, no 0x): its parent device, which
# /sys/class/mmc_host/mmcM/device links to, is the platform device <window>.mmc.
host_window() {
	local dev
	dev=$(readlink -f "/sys/class/mmc_host/$1/device") || return 1
	dev=${dev##*/}
	dev=$(echo "${dev%%.*}" | tr 'A-F' 'a-f')
	case $dev in '' | *[!0-9a-f]*) return 1 ;; esac
	echo "$dev"
}

# The line "e2e: pm <disk> runtime_suspends=N runtime_resumes=N system_sleeps=N
# violations=N" of disk $1 on host $2: the driver's power counters of the host
# (debugfs mtk_sd_rust/mmcM/, counted since boot) and the violations the
# simulated controller recorded (mtk_sd_rust_sim/<window>/), such as a register
# access while its clocks were gated. A missing counter reads "?" and fails.
pm_line() {
	local window line f v phase
	if ! window=$(host_window "$2"); then
		fail "pm $1: no <window>.mmc platform device behind /sys/class/mmc_host/$2/device"
		window=unknown
	fi
	echo "e2e:   pm $1: host $2, register window $window"
	line="e2e: pm $1"
	# Upstream's C driver counts nothing: for its hosts, the board's count of the times
	# the slot's power domain went off (a runtime suspend of the host lets it go).
	if c_host "$2"; then
		set -- "$1" mtk_sd_rust_sim/$window/power_offs mtk_sd_rust_sim/$window/violations
	else
		set -- "$1" mtk_sd_rust/$2/runtime_suspends mtk_sd_rust/$2/runtime_resumes \
			mtk_sd_rust/$2/system_sleeps mtk_sd_rust_sim/$window/violations
	fi
	phase=$1
	shift
	for f in "$@"; do
		v=$(cat "/sys/kernel/debug/$f" 2>/dev/null)
		case $v in
		'' | *[!0-9]*)
			fail "pm $phase: no count in /sys/kernel/debug/$f"
			v='?'
			;;
		esac
		line="$line ${f##*/}=$v"
	done
	echo "$line"
}

# The fault matrix (after the statistics, whose error counts it would change): on one
# disk per queue mode, a verified queued fio job while the board injects a fault
# (mtk_sd_rust_sim/<window>/inject, simboard/board/faults.rs) FAULT_COUNT times
# (CQE_FAULT_COUNT on the CQHCI disk), and one
# line per cell, "fault: <fault> <mode> injected=N recovered=N io_errors=N
# verify_failures=N hung=N": the faults that reached the hardware, those after which
# every block still verified, the block layer's I/O errors on the disk, the blocks
# that read back wrong, and whether fio outlived its limit (FAULT_LIMIT_S, more for a
# card stuck busy or a lost interrupt, below). Then the driver's
# errors and recoveries in the cell, indented.
# msdc_e2e_matrix=full (make stress): every disk, ten faults per cell (two with CQHCI,
# fewer of the waiting ones on an SD card: SD_HOLD_S below), the lost
# interrupt too (on the disks without CQHCI: the driver's 5 s watchdog finds it; the
# CQHCI block's lost completion waits for the block layer's 60 s time-out, too long
# for a matrix), and a hundred lifecycle cycles per slot.
# The faults of a cell are FAULT_EVERY apart: block transfers that succeeded (task
# completions, for the CQHCI block's faults), counted from the one that took the
# previous fault. More than the 32 requests a job keeps in flight, so that a fault
# cannot hit the retries of the request the previous one failed: the MMC core's retry
# budget (MMC_DATA_RETRIES, MMC_CQE_RETRIES) is spent by design on repeated errors of
# one request, and a cell tests the recovery from one fault at a time. FAULT_SIZE is
# the region of a cell's job, large enough for all of its faults. The block layer
# merges no request of a cell's disk (queue/nomerges 2): the core retries a failed
# request one block at a time (MQRQ_XFER_SINGLE_BLOCK, which 7.3 never clears from the
# tag's request data) on one budget of retries for the whole request, so a merged
# request of more than FAULT_EVERY blocks could take two faults and be failed by
# design (TODO[MERGED-RETRY]). A 4 KiB request is at most 8 block transfers.
MATRIX=$(param msdc_e2e_matrix short)
# msdc_e2e_faults=<fault>,... (for debugging one fault): only those faults' cells run,
# which fails the check on its count of cells.
FAULTS_WANTED=$(param msdc_e2e_faults all)
FAULT_COUNT=3
# A CQHCI recovery ends every task in flight (cqhci_recover_mrq) and the MMC core
# charges each of those requests a retry, of the MMC_CQE_RETRIES (2) it gives one:
# two recoveries are what every request is sure to survive, however the faults are
# spaced, so a CQHCI cell injects two.
CQE_FAULT_COUNT=2
FAULT_EVERY=50
FAULT_SIZE=1M
FAULT_LIMIT_S=120
# Faults whose recovery waits by design get more time per fault: a card stuck busy
# costs the MMC core two 10 s busy polls on an eMMC (after the write, and after the
# cache flush that follows; ten faults take over 200 s in make stress), a lost
# interrupt the driver's 5 s watchdog and the core's recovery after it.
BUSY_FAULT_S=25
LOST_IRQ_FAULT_S=10
# On an SD card the faults whose recovery waits by design hold the host: about
# BUSY_SD_HOLD_S for a card stuck busy (the core's 10 s busy polls, then the card's
# re-initialisation; BUSY_FAULT_S is that with a margin, as a time limit), up to
# LOST_IRQ_FAULT_S for a lost interrupt. The block layer keeps the host claimed while
# fio's requests follow one another, and the core's card detect (mmc_rescan, polled
# every second on a removable slot) waits for it: past the hung-task detector's 60 s
# the kernel reports that wait. An SD cell injects no more of such faults than fit in
# SD_HOLD_S (two stuck-busy, four lost interrupts); ten lost interrupts kept the
# detect work waiting past the detector's limit (TODO[SD-DETECT-HOLD]). That wait
# is the MMC core's, not what the cell tests.
SD_HOLD_S=40
BUSY_SD_HOLD_S=20
# The faults of each mode: the CQHCI block's with command queueing, the controller's
# own commands otherwise; and in every mode the MMC core's own (fail_mmc_request,
# CONFIG_FAIL_MMC_REQUEST), a data error on a request the host completed.
CQE_FAULTS="task_data_crc task_response_error task_cmd_timeout descriptor_error spurious_completion"
MSDC_FAULTS="cmd_crc read_crc write_crc cmd_timeout data_timeout descriptor_checksum busy_stuck"
CORE_FAULTS="fail_mmc_request"

# The MMC core's fault attributes of host $1 (debugfs <mmcN>/fail_mmc_request) armed
# for $2 failures, one every $3 data requests that completed without an error
# (interval, probability 100 %); $2 = 0 disarms them. `times` counts down.
core_fault_set() {
	local a=/sys/kernel/debug/$1/fail_mmc_request
	[ -d "$a" ] || { WRITE_ERR="no $a (CONFIG_FAIL_MMC_REQUEST)"; return 1; }
	sys_write "$a/times" 0 && sys_write "$a/verbose" 0 && sys_write "$a/interval" "$3" &&
		sys_write "$a/probability" 100 && sys_write "$a/times" "$2"
}

# Blocks fio reported read back wrong in its output file $1.
verify_failures() {
	grep -ciE 'verify: bad|verify failed|bad magic|bad header' "$1" || true
}

# Kernel lines of the block layer's I/O errors on disk $1 so far.
io_error_lines() {
	dmesg | grep -c " error, dev $1," || true
}

fault_cell() {
	local fault=$1 mode=$2 d=$3 host dir window inj out=/tmp/fault-$1-$3 rc=0 hung=0
	local e0 r0 io0 terse err injected recovered io verify started resets resets0 merges
	local nomerges=/sys/block/$3/queue/nomerges
	local limit=$FAULT_LIMIT_S
	case $fault in
	busy_stuck) limit=$((FAULT_LIMIT_S + $4 * BUSY_FAULT_S)) ;;
	lost_irq) limit=$((FAULT_LIMIT_S + $4 * LOST_IRQ_FAULT_S)) ;;
	esac
	host=$(disk_host "$d") || { fail "fault $fault: no host behind $d"; return; }
	dir=/sys/kernel/debug/mtk_sd_rust/$host
	window=$(host_window "$host") || { fail "fault $fault: no window for $host"; return; }
	inj=/sys/kernel/debug/mtk_sd_rust_sim/$window/inject
	e0=$(cat "$dir/errors") r0=$(cat "$dir/recoveries") io0=$(io_error_lines "$d")
	# RST_n pulses that reset the card (eMMC; "none" on SD and SDIO slots).
	resets0=$(cat "/sys/kernel/debug/mtk_sd_rust_sim/$window/card_resets")
	merges=$(cat "$nomerges")
	sys_write "$nomerges" 2 || {
		fail "fault $fault: disabling merges on $d: $WRITE_ERR"
		return
	}
	if [ "$fault" = fail_mmc_request ]; then
		inj=/sys/kernel/debug/$host/fail_mmc_request/times
		core_fault_set "$host" "$4" "$FAULT_EVERY"
	else
		sys_write "$inj" "$fault $4 $FAULT_EVERY"
	fi || {
		fail "fault $fault: arming it on $host: $WRITE_ERR"
		sys_write "$nomerges" "$merges"
		return
	}
	# The region after the jobs' and the power phase's: 4 MiB on.
	started=$(date +%s)
	timeout "$limit" fio --name="fault-$fault" --filename="/dev/$d" --direct=1 \
		--thread=1 --ioengine=libaio --iodepth=32 --iodepth_batch_submit=8 --rw=randrw \
		--bs=4k --offset=4M --size="$FAULT_SIZE" --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--verify_state_save=0 --output-format=terse --terse-version=3 >"$out" 2>&1 || rc=$?
	# Killed at the limit (busybox's and coreutils' timeout exit differently).
	[ $(($(date +%s) - started)) -ge "$limit" ] && hung=1
	sys_write "$nomerges" "$merges" ||
		fail "fault $fault: restoring merges on $d: $WRITE_ERR"
	if [ "$fault" = fail_mmc_request ]; then
		injected=$(($4 - $(cat "$inj")))
		core_fault_set "$host" 0 1 || fail "fault $fault: disarming it on $host: $WRITE_ERR"
	else
		sys_write "$inj" none
		injected=$(sed -n 's/.* injected=\([0-9]*\).*/\1/p' "$inj")
	fi
	terse=$(grep '^3;' "$out" | tail -n 1)
	err=$(echo "$terse" | cut -d';' -f5)
	verify=$(verify_failures "$out")
	io=$(($(io_error_lines "$d") - io0))
	resets=none
	[ "$resets0" = none ] ||
		resets=$(($(cat "/sys/kernel/debug/mtk_sd_rust_sim/$window/card_resets") - resets0))
	recovered=0
	[ "$rc" -eq 0 ] && [ "${err:-1}" = 0 ] && [ "$verify" -eq 0 ] && [ "$io" -eq 0 ] &&
		recovered=${injected:-0}
	# Only a reset gets an eMMC stuck busy back, and the core's recovery resets it through
	# RST_n (the board's eMMC slots have cap-mmc-hw-reset, their cards RST_n enabled):
	# each such fault must have cost the card a hardware reset.
	if [ "$fault" = busy_stuck ] && [ "$resets" != none ] && [ "$resets" -lt "${injected:-0}" ]; then
		echo "fault:   busy_stuck on $d: ${injected:-0} cards stuck, $resets RST_n resets"
		recovered=0
	fi
	echo "fault: $fault $mode injected=${injected:-0} recovered=$recovered io_errors=$io" \
		"verify_failures=$verify hung=$hung"
	# The card resets outside the stuck-busy cells are TODO[HS400-RESET].
	echo "fault:   $fault $mode on $d ($host): fio exit=$rc error=${err:-none}," \
		"driver errors +$(($(cat "$dir/errors") - e0)) recoveries +$(($(cat "$dir/recoveries") - r0))" \
		"card resets +$resets"
	if [ "$recovered" != "${injected:-0}" ] || [ "$hung" -ne 0 ]; then
		grep -v '^3;' "$out" | head -n 10 | sed 's/^/fault:   /'
	fi
}

# Re-tuning after CRC errors: the sampling windows of the slot of the first disk at
# SDR104 drift by RETUNE_DRIFT delay cells (mtk_sd_rust_sim/<window>/drift, as
# temperature moves a board's), so that the sample point tuned at boot fails; a
# verified fio job must still pass, the MMC core having re-tuned on the CRC errors.
# One line, "e2e: retune <host> <timing> drift=N before=<lo>-<hi>/<chosen>
# after=<lo>-<hi>/<chosen> tunings=+N passed|FAILED", then the driver's errors.
RETUNE_DRIFT=8
retune_check() {
	local d host dir window t0 before after e0 rc=0 out=/tmp/retune
	for d in "$@"; do
		host=$(disk_host "$d") || continue
		[ "$(host_timing "$host")" = sdr104 ] && break
		host=""
	done
	[ -n "$host" ] || { fail "retune: no disk at SDR104"; return; }
	dir=/sys/kernel/debug/mtk_sd_rust/$host
	window=$(host_window "$host") || { fail "retune: no window for $host"; return; }
	before=$(cat "$dir/tuning") t0=$(cat "$dir/tunings") e0=$(cat "$dir/errors")
	if ! sys_write "/sys/kernel/debug/mtk_sd_rust_sim/$window/drift" "$RETUNE_DRIFT"; then
		fail "retune: drift on $window: $WRITE_ERR"
		return
	fi
	timeout "$FAULT_LIMIT_S" fio --name=retune --filename="/dev/$d" --direct=1 --thread=1 \
		--ioengine=libaio --iodepth=32 --iodepth_batch_submit=8 --rw=randrw --bs=4k \
		--offset=4M --size=512k --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--verify_state_save=0 --output-format=terse --terse-version=3 >"$out" 2>&1 || rc=$?
	after=$(cat "$dir/tuning")
	# "<timing> window=<lo>-<hi> chosen=<n>" as "<lo>-<hi>/<n>"
	before=$(echo "$before" | sed 's/.* window=\([0-9-]*\) chosen=\([0-9]*\)/\1\/\2/')
	after=$(echo "$after" | sed 's/.* window=\([0-9-]*\) chosen=\([0-9]*\)/\1\/\2/')
	echo "e2e: retune $host sdr104 drift=$RETUNE_DRIFT before=$before after=$after" \
		"tunings=+$(($(cat "$dir/tunings") - t0)) $([ "$rc" -eq 0 ] && echo passed || echo FAILED)"
	echo "e2e:   retune $host on $d: fio exit=$rc, driver errors +$(($(cat "$dir/errors") - e0))"
	[ "$rc" -eq 0 ] || grep -v '^3;' "$out" | head -n 10 | sed 's/^/e2e:   /'
}

# Lifecycle under load: the platform device of a slot is unbound from the driver
# while fio runs on its disk (the disk goes away, so that job's I/O errors are
# expected: the removal is unrecoverable by design) and bound again, LIFECYCLE_CYCLES
# times per slot; then a verified job on the disk that came back must pass. One line
# per slot, "e2e: lifecycle <window> <mode> cycles=N unbind_max_ms=N bind_max_ms=N
# passed|FAILED"; an unbind or bind that does not return within LIFECYCLE_LIMIT_S,
# or a disk that does not come back, fails it. Two cycles: the second unbinds what
# the first bind made (100 in the full matrix, for what grows with the cycles).
LIFECYCLE_CYCLES=2
LIFECYCLE_LIMIT_S=120
LIFECYCLE_SLOTS="1011f60000 1011f80000"

# The whole disk of the card on the host of platform device $1.mmc, if any.
window_disk() {
	local d host
	for d in $(whole_disks); do
		host=$(disk_host "$d") || continue
		[ "$(host_window "$host")" = "$1" ] && { echo "$d"; return 0; }
	done
	return 1
}

# Milliseconds of uptime.
uptime_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

# Waits up to $2 s for process $1 to end; false if it still ran (then it is killed).
wait_or_kill() {
	local waited=0
	while kill -0 "$1" 2>/dev/null && [ "$waited" -lt "$2" ]; do
		sleep 1
		waited=$((waited + 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1"
		wait "$1"
		return 1
	fi
	wait "$1"
	return 0
}

# Waits up to $2 s for a disk on the host of platform device $1.mmc and prints it. The
# disk is there when its node has stayed for a second: devtmpfs removes an old node
# and creates the new one asynchronously, and a name is reused.
wait_window_disk() {
	local waited=0 d
	while [ "$waited" -lt "$2" ]; do
		if d=$(window_disk "$1") && sleep 1 && [ -b "/dev/$d" ] &&
			[ "$(window_disk "$1")" = "$d" ]; then
			echo "$d"
			return 0
		fi
		sleep 1
		waited=$((waited + 2))
	done
	return 1
}

# A regular file where the node of disk $1 was (fio created it) fails step $2, and is
# removed, so that devtmpfs can put the node of the disk that comes back there.
no_file_at_node() {
	if [ -e "/dev/$1" ] && [ ! -b "/dev/$1" ]; then
		fail "$2: /dev/$1 is no block device after the removal"
		rm -f "/dev/$1"
	fi
}

# The job a removal runs under (lifecycle and module phases): 30 s of queued
# 4 KiB random I/O on 512 KiB at 4 MiB of disk $1, in the background; its output in
# $2. allow_file_create=0: fio re-opens its file as the disk goes away, and would
# create a regular file at the vanished node's path, where devtmpfs then cannot put
# the node of the disk that comes back.
load_job() {
	fio --name=load --filename="/dev/$1" --allow_file_create=0 --direct=1 \
		--thread=1 --ioengine=libaio --iodepth=32 --rw=randrw --bs=4k --offset=4M \
		--size=512k --time_based=1 --runtime=30 >"$2" 2>&1 &
}

# A verified job on the region load_job uses, on disk $1 that came back; false (with
# fio's first lines printed) if it failed.
verify_after_load() {
	fio --name=verify-after-load --filename="/dev/$1" --direct=1 --thread=1 \
		--ioengine=libaio --iodepth=32 --rw=randrw --bs=4k --offset=4M --size=512k \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 \
		>/tmp/verify-after-load.out 2>&1 && return 0
	head -n 10 /tmp/verify-after-load.out | sed 's/^/e2e:   /'
	return 1
}

lifecycle_slot() {
	local window=$1 dev=$1.mmc drv=/sys/bus/platform/drivers/mtk_sd_rust d mode i t0 t
	local unbind_max=0 bind_max=0 result=passed fio_pid
	d=$(window_disk "$window") || { fail "lifecycle: no disk on $window"; return; }
	mode=$(cat "/sys/kernel/debug/mtk_sd_rust/$(disk_host "$d")/mode")
	i=0
	while [ "$i" -lt "$LIFECYCLE_CYCLES" ]; do
		i=$((i + 1))
		load_job "$d" /tmp/lifecycle.out
		fio_pid=$!
		sleep 1
		t0=$(uptime_ms)
		if ! timeout "$LIFECYCLE_LIMIT_S" sh -c "echo $dev > $drv/unbind"; then
			fail "lifecycle: unbind of $dev failed or took over $LIFECYCLE_LIMIT_S s (cycle $i)"
			result=FAILED
			break
		fi
		t=$(($(uptime_ms) - t0))
		[ "$t" -gt "$unbind_max" ] && unbind_max=$t
		# The disk is gone: fio ends with errors.
		if ! wait_or_kill "$fio_pid" "$LIFECYCLE_LIMIT_S"; then
			fail "lifecycle: fio on the removed $d still running after $LIFECYCLE_LIMIT_S s"
			result=FAILED
			break
		fi
		no_file_at_node "$d" "lifecycle (cycle $i)"
		t0=$(uptime_ms)
		if ! timeout "$LIFECYCLE_LIMIT_S" sh -c "echo $dev > $drv/bind"; then
			fail "lifecycle: bind of $dev failed (cycle $i)"
			result=FAILED
			break
		fi
		if ! d=$(wait_window_disk "$window" "$LIFECYCLE_LIMIT_S"); then
			fail "lifecycle: no disk came back on $window after bind (cycle $i," \
				"uptime $(uptime_s) s)"
			lifecycle_diagnostics "$window"
			result=FAILED
			break
		fi
		t=$(($(uptime_ms) - t0))
		[ "$t" -gt "$bind_max" ] && bind_max=$t
	done
	[ "$result" = passed ] && ! verify_after_load "$d" && result=FAILED
	echo "e2e: lifecycle $window $mode cycles=$i unbind_max_ms=$unbind_max bind_max_ms=$bind_max $result"
}

# What the guest sees of the slot whose disk did not come back.
lifecycle_diagnostics() {
	local h p
	echo "e2e:   /sys/block: $(names /sys/block/mmcblk*)"
	echo "e2e:   /dev: $(names /dev/mmcblk*)"
	for h in /sys/class/mmc_host/*; do
		[ -e "$h" ] || continue
		echo "e2e:   ${h##*/}: device $(readlink -f "$h/device"), window" \
			"$(host_window "${h##*/}" || echo none), cards $(names "$h/${h##*/}":*)"
	done
	for p in /sys/block/mmcblk*; do
		[ -e "$p" ] || continue
		echo "e2e:   ${p##*/}: device $(readlink -f "$p/device"), host" \
			"$(disk_host "${p##*/}" || echo none), dev $(cat "$p/dev")," \
			"node $(stat -c '%t:%T' "/dev/${p##*/}" 2>&1)"
	done
	echo "e2e:   window_disk $1: $(window_disk "$1" || echo none)"
}

lifecycle() {
	local w
	[ "$FAULT" = none ] || return
	[ "$MATRIX" = full ] && LIFECYCLE_CYCLES=100
	LIFECYCLE_CYCLES=$(param msdc_e2e_cycles "$LIFECYCLE_CYCLES")
	for w in $LIFECYCLE_SLOTS; do lifecycle_slot "$w"; done
}

# Card removal under load: the card of each removable slot is taken out of its socket
# (mtk_sd_rust_sim/<window>/card, an empty socket answers nothing) while fio runs on
# its disk, whose I/O then fails, as it must; the MMC core finds the card gone (its
# poll, or the errors) and removes the disk. Put back, the card comes up again and a
# verified job on its disk must pass. One line per slot, "e2e: removal <window>
# <mode> gone_ms=N back_ms=N passed|FAILED": from the removal until the disk is gone
# and fio has ended, and from the insertion until the disk is back; a step that takes
# over REMOVAL_LIMIT_S fails it. Then the slot's fault line, "fault: card_removal
# <mode> injected=1 recovered=0|1 io_errors=N verify_failures=N hung=0|1", whose I/O
# errors are those of the removed disk (expected: the fault is unrecoverable by
# design), its verify failures those of the job after the insertion, and hung a step
# over the limit.
REMOVAL_LIMIT_S=60
REMOVAL_SLOTS="1011f80000 1011fa0000"

removal_slot() {
	local window=$1 sock=/sys/kernel/debug/mtk_sd_rust_sim/$1/card d mode fio_pid t0
	local gone=0 back=0 result=passed waited rc=0 io0 io hung=0 verify=0
	d=$(window_disk "$window") || { fail "removal: no disk on $window"; return; }
	mode=$(cat "/sys/kernel/debug/mtk_sd_rust/$(disk_host "$d")/mode")
	io0=$(io_error_lines "$d")
	fio --name=removal --filename="/dev/$d" --allow_file_create=0 --direct=1 --thread=1 \
		--ioengine=libaio --iodepth=32 --rw=randrw --bs=4k --offset=4M --size=512k \
		--time_based=1 --runtime=60 >/tmp/removal.out 2>&1 &
	fio_pid=$!
	sleep 1
	t0=$(uptime_ms)
	if ! sys_write "$sock" remove; then
		fail "removal: echo remove > $sock: $WRITE_ERR"
		kill -9 "$fio_pid"
		wait "$fio_pid"
		return
	fi
	waited=0
	while window_disk "$window" >/dev/null && [ "$waited" -lt "$REMOVAL_LIMIT_S" ]; do
		sleep 1
		waited=$((waited + 1))
	done
	if window_disk "$window" >/dev/null; then
		fail "removal: the disk $d on $window still there $REMOVAL_LIMIT_S s after the removal"
		result=FAILED hung=1
	fi
	if ! wait_or_kill "$fio_pid" "$REMOVAL_LIMIT_S"; then
		fail "removal: fio on the removed $d still running after $REMOVAL_LIMIT_S s"
		result=FAILED hung=1
	fi
	gone=$(($(uptime_ms) - t0))
	io=$(($(io_error_lines "$d") - io0))
	no_file_at_node "$d" "removal"
	t0=$(uptime_ms)
	if ! sys_write "$sock" insert; then
		fail "removal: echo insert > $sock: $WRITE_ERR"
		echo "e2e: removal $window $mode gone_ms=$gone back_ms=0 FAILED"
		removal_fault_line "$mode" 0 "$io" 0 "$hung" "$d" "$window"
		return
	fi
	if d=$(wait_window_disk "$window" "$REMOVAL_LIMIT_S"); then
		back=$(($(uptime_ms) - t0))
		fio --name=removal-verify --filename="/dev/$d" --direct=1 --thread=1 \
			--ioengine=libaio --iodepth=32 --rw=randrw --bs=4k --offset=4M --size=512k \
			--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 \
			>/tmp/removal-verify.out 2>&1 || rc=$?
		verify=$(verify_failures /tmp/removal-verify.out)
		if [ "$rc" -ne 0 ]; then
			fail "removal: the verified job on $d after the insertion failed (exit $rc)"
			head -n 10 /tmp/removal-verify.out | sed 's/^/e2e:   /'
			result=FAILED
		fi
	else
		fail "removal: no disk came back on $window $REMOVAL_LIMIT_S s after the insertion"
		lifecycle_diagnostics "$window"
		result=FAILED hung=1
	fi
	echo "e2e: removal $window $mode gone_ms=$gone back_ms=$back $result"
	removal_fault_line "$mode" "$([ "$result" = passed ] && echo 1 || echo 0)" "$io" \
		"$verify" "$hung" "$d" "$window"
}

# The fault line of a card removal: mode, recovered, I/O errors, verify failures, hung,
# disk, register window.
removal_fault_line() {
	echo "fault: card_removal $1 injected=1 recovered=$2 io_errors=$3 verify_failures=$4 hung=$5"
	echo "fault:   card_removal $1 on $6 ($7): the card was taken out under fio; I/O errors" \
		"are expected there (unrecoverable by design, and the core fails a removed card's" \
		"requests quietly); recovered means the disk came back and verified"
}

removal() {
	local w
	[ "$FAULT" = none ] || return
	for w in $REMOVAL_SLOTS; do removal_slot "$w"; done
}

# The module build unloaded while fio runs on every disk and loaded again,
# MODULE_CYCLES times (msdc_e2e_driver=module only). rmmod unbinds every slot (fio's
# I/O then fails, as with an unbind: expected), and must leave nothing of the driver:
# no MMC host, no debugfs directory. After insmod every slot's disk must come back on
# its window, and the SDIO card's function too. A region written before the first
# cycle must read back intact after the last (the cards keep their data: the board
# is hardware), and a verified job on every disk must pass. One line,
# "e2e: module cycles=N disks=N unload_max_ms=N load_max_ms=N passed|FAILED",
# load_max_ms running until the last disk is back. Before it, one line per cycle,
# "e2e:   module cycle N: unload_ms=N load_ms=N cycle_ms=N slab_kb=N" and lockdep's
# counts, so that a cycle that slows down, or what grows with the cycles, shows
# (TODO[MODULE-SLOWDOWN]).
# Two cycles: the second unloads what the first reload bound (100 in the full matrix).
MODULE_CYCLES=2

# How many SDIO functions the core has found.
sdio_functions() {
	local f n=0
	for f in /sys/bus/sdio/devices/*; do [ -e "$f" ] && n=$((n + 1)); done
	echo "$n"
}

# The windows of the slots whose disks are $@, one per line.
disk_windows() {
	local d
	for d in "$@"; do host_window "$(disk_host "$d")"; done
}

# A sequential write (verify=crc32c headers) at 8 MiB of disk $1, or its check
# with $2 = --verify_only=1; fio's exit status.
kept_region() {
	fio --name=kept --filename="/dev/$1" --direct=1 --ioengine=psync --rw=write \
		--bs=4k --offset=8M --size=256k --verify=crc32c --do_verify=0 \
		--verify_state_save=0 ${2:+"$2"} >/tmp/kept.out 2>&1
}

# Lockdep's graph as "lockdep_classes=N lockdep_deps=N lockdep_chains=N" (lock
# classes, direct dependencies, dependency chains), or nothing without lockdep.
lockdep_counts() {
	[ -r /proc/lockdep_stats ] || return 0
	awk -F: '/^ *lock-classes:/ { c = $2 } /^ *direct dependencies:/ { d = $2 }
		/^ *dependency chains:/ { h = $2 }
		END { printf "lockdep_classes=%d lockdep_deps=%d lockdep_chains=%d", c, d, h }' \
		/proc/lockdep_stats
}

module_cycles() {
	local i=0 d w t0 t tc unload pids p disks windows n sdio sdio_after waited
	local unload_max=0 load_max=0 result=passed
	[ "$DRIVER" = module ] && [ "$FAULT" = none ] || return
	[ "$MATRIX" = full ] && MODULE_CYCLES=100
	MODULE_CYCLES=$(param msdc_e2e_module_cycles "$MODULE_CYCLES")
	disks=$(whole_disks | tr '\n' ' ')
	# shellcheck disable=SC2086
	windows=$(disk_windows $disks | tr '\n' ' ')
	n=$(echo "$disks" | wc -w)
	sdio=$(sdio_functions)
	for d in $disks; do
		kept_region "$d" || fail "module: the region to keep on $d was not written"
	done
	while [ "$i" -lt "$MODULE_CYCLES" ]; do
		i=$((i + 1))
		tc=$(uptime_ms)
		pids=""
		for d in $disks; do
			load_job "$d" "/tmp/module-$d.out"
			pids="$pids $!"
		done
		sleep 1
		t0=$(uptime_ms)
		if ! timeout "$LIFECYCLE_LIMIT_S" rmmod mtk_sd_rust 2>/tmp/rmmod.err; then
			fail "module: rmmod failed or took over $LIFECYCLE_LIMIT_S s (cycle $i):" \
				"$(cat /tmp/rmmod.err)"
			result=FAILED
			break
		fi
		unload=$(($(uptime_ms) - t0))
		[ "$unload" -gt "$unload_max" ] && unload_max=$unload
		for p in $pids; do
			wait_or_kill "$p" "$LIFECYCLE_LIMIT_S" ||
				{ fail "module: fio still running $LIFECYCLE_LIMIT_S s after rmmod (cycle $i)"; result=FAILED; }
		done
		[ "$result" = passed ] || break
		if [ "$(names /sys/class/mmc_host/*)" != none ] || [ -e /sys/kernel/debug/mtk_sd_rust ]; then
			fail "module: after rmmod: mmc hosts $(names /sys/class/mmc_host/*)," \
				"debugfs $(names /sys/kernel/debug/mtk_sd_rust) (cycle $i)"
			result=FAILED
			break
		fi
		for d in $disks; do no_file_at_node "$d" "module (cycle $i)"; done
		t0=$(uptime_ms)
		if ! timeout "$LIFECYCLE_LIMIT_S" insmod "$MODULE_KO" 2>/tmp/insmod.err; then
			fail "module: insmod failed (cycle $i): $(cat /tmp/insmod.err)"
			result=FAILED
			break
		fi
		disks=""
		for w in $windows; do
			if ! d=$(wait_window_disk "$w" "$LIFECYCLE_LIMIT_S"); then
				fail "module: no disk came back on $w after insmod (cycle $i, uptime $(uptime_s) s)"
				lifecycle_diagnostics "$w"
				result=FAILED
				break 2
			fi
			disks="$disks $d"
		done
		waited=0
		while sdio_after=$(sdio_functions) && [ "$sdio_after" != "$sdio" ] &&
			[ "$waited" -lt "$LIFECYCLE_LIMIT_S" ]; do
			sleep 1
			waited=$((waited + 1))
		done
		if [ "$sdio_after" != "$sdio" ]; then
			fail "module: SDIO functions $sdio_after after insmod, $sdio before (cycle $i)"
			result=FAILED
			break
		fi
		t=$(($(uptime_ms) - t0))
		[ "$t" -gt "$load_max" ] && load_max=$t
		echo "e2e:   module cycle $i: unload_ms=$unload load_ms=$t" \
			"cycle_ms=$(($(uptime_ms) - tc)) slab_kb=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)" \
			"$(lockdep_counts)"
	done
	if [ "$result" = passed ]; then
		for d in $disks; do
			if ! kept_region "$d" --verify_only=1; then
				fail "module: the data written to $d before the cycles did not read back"
				head -n 10 /tmp/kept.out | sed 's/^/e2e:   /'
				result=FAILED
			fi
			verify_after_load "$d" || result=FAILED
		done
	fi
	echo "e2e: module cycles=$i disks=$n unload_max_ms=$unload_max" \
		"load_max_ms=$load_max $result"
}

# One disk per mode the board runs, then each of its faults.
fault_matrix() {
	local d host mode faults count n f hold seen="" t0
	[ "$FAULT" = none ] || return
	case $MATRIX in
	short) ;;
	# Ten faults 50 apart need 500 transfers of one direction: 4 MiB of 4 KiB blocks.
	# A lost interrupt's spacing counts commands.
	full) FAULT_COUNT=10 FAULT_SIZE=4M MSDC_FAULTS="$MSDC_FAULTS lost_irq" ;;
	*) fail "unknown msdc_e2e_matrix=$MATRIX (short or full)"; return ;;
	esac
	t0=$(uptime_s)
	echo "e2e: fault matrix: $MATRIX, $FAULT_COUNT faults per cell ($CQE_FAULT_COUNT with CQHCI)," \
		"$FAULT_EVERY transfers or task completions apart"
	for d in "$@"; do
		host=$(disk_host "$d") || continue
		mode=$(cat "/sys/kernel/debug/mtk_sd_rust/$host/mode" 2>/dev/null)
		# The short matrix: the first disk of each mode.
		case " $seen " in *" $mode "*) [ "$MATRIX" = short ] && continue ;; esac
		seen="$seen $mode"
		case $mode in
		cqe) faults=$CQE_FAULTS count=$CQE_FAULT_COUNT ;;
		*) faults=$MSDC_FAULTS count=$FAULT_COUNT ;;
		esac
		for f in $faults $CORE_FAULTS; do
			case ",$FAULTS_WANTED," in *,all,* | *",$f,"*) ;; *) continue ;; esac
			n=$count
			case $f in
			busy_stuck) hold=$BUSY_SD_HOLD_S ;;
			lost_irq) hold=$LOST_IRQ_FAULT_S ;;
			*) hold=0 ;;
			esac
			[ "$hold" -gt 0 ] && [ "$(cat "/sys/block/$d/device/type")" = SD ] &&
				[ "$n" -gt $((SD_HOLD_S / hold)) ] && n=$((SD_HOLD_S / hold))
			fault_cell "$f" "$mode" "$d" "$n"
		done
	done
	echo "e2e: fault matrix took $(since "$t0") s"
}

# Whether phase $1 runs (msdc_e2e_phases).
phase() {
	case ",$PHASES," in *",$1,"*) return 0 ;; esac
	return 1
}

e2e() {
	local t0 targets t jobs_on
	PHASES=$(param msdc_e2e_phases jobs,power,matrix,retune,lifecycle,removal,module)
	case $MODE in
	short) SIZE=2 PM_IOS=150 ;;
	full) SIZE=16 PM_IOS=1400 ;;
	*) fail "unknown msdc_e2e=$MODE (short or full)"; return ;;
	esac
	SIZE=$(param msdc_e2e_size "$SIZE")
	DIRECT=1
	# fio keeps its job table in SysV shared memory, even with thread=1.
	if [ ! -d /proc/sysvipc ]; then
		fail "the kernel has no SysV IPC (CONFIG_SYSVIPC), which fio needs"
		return
	fi
	if ! fio --version >/tmp/fio-version 2>&1; then
		fail "fio does not run in the guest: $(cat /tmp/fio-version)"
		return
	fi
	# Debian's fio links libaio (initramfs.sh copies what ldd lists); the kernel needs AIO.
	if ! fio --enghelp=libaio >/tmp/fio-libaio 2>&1; then
		fail "fio in the guest has no libaio engine: $(cat /tmp/fio-libaio)"
		return
	fi
	echo "e2e: $(cat /tmp/fio-version), mode $MODE, ${SIZE} MiB per job, target $TARGET, fault $FAULT"

	case $TARGET in
	disks)
		wait_for_disks || return
		timing_lines
		sdio_lines
		targets=$(whole_disks)
		;;
	file)
		# tmpfs (shmem) takes O_DIRECT since 6.6. Without CONFIG_TMPFS user space
		# cannot mount it, and the file stays on the initramfs (ramfs), which
		# refuses O_DIRECT: buffered I/O there, still verified block by block.
		mkdir -p /mnt/e2e
		if ! mount -t tmpfs tmpfs /mnt/e2e 2>/tmp/mount.err; then
			echo "e2e: note: no tmpfs ($(cat /tmp/mount.err)); file on ramfs, direct=0"
			DIRECT=0
		fi
		targets="file"
		;;
	*) fail "unknown msdc_e2e_target=$TARGET (disks or file)"; return ;;
	esac

	t0=$(uptime_s)
	jobs_on=$targets
	phase jobs || jobs_on=""
	for t in $jobs_on; do
		local file=/dev/$t t1 tq
		[ "$t" = file ] && file=/mnt/e2e/disk.img
		if [ "$t" != file ] && [ $(($(cat "/sys/block/$t/size") / 2048)) -lt "$SIZE" ]; then
			fail "$t is smaller than the $SIZE MiB a job writes"
			continue
		fi
		t1=$(uptime_s)
		sync_job "$t" randwrite-4k "$file" --rw=randwrite --bs=4k
		sync_job "$t" seqwrite-512k "$file" --rw=write --bs=512k
		tq=$(uptime_s)
		queued_job "$t" q-randrw-4k "$file" --size="${SIZE}M" --offset=0 --rw=randrw --bs=4k
		# end_fsync: a cache flush at the end (a direct command on the CQE disk,
		# wait-for-idle and a plain CMD6 with the software queue).
		queued_job "$t" q-seqwrite-512k "$file" --size="${SIZE}M" --offset=0 \
			--rw=write --bs=512k --end_fsync=1
		# Four threads, each on its own quarter of the SIZE MiB, so that no thread
		# verifies blocks another wrote.
		queued_job "$t" q-randrw-4k-x4 "$file" --numjobs=4 --size=$((SIZE * 256))k \
			--offset=0 --offset_increment=$((SIZE * 256))k --rw=randrw --bs=4k
		echo "e2e: $t: jobs took $(echo "$t1 $tq $(uptime_s)" |
			awk '{ printf "%.1f s, the queued ones %.1f s", $3 - $1, $3 - $2 }')"
	done
	echo "e2e: fio jobs took $(since "$t0") s"
	[ "$TARGET" = disks ] || return
	[ "$FAULT" = none ] && corrupt_control "$(echo "$targets" | head -n 1)"
	# One word per disk: the list splits on purpose. The statistics come after the
	# power phase, so that its errors count too.
	# shellcheck disable=SC2086
	{
		phase power && power_phase $targets
		mode_lines $targets
		phase matrix && fault_matrix $targets
		phase retune && [ "$FAULT" = none ] && retune_check $targets
		phase lifecycle && lifecycle
		phase removal && removal
		# Last: a reloaded driver counts from zero, and the cells above read counters.
		phase module && module_cycles
	}
}

if [ -n "$MODE" ]; then
	e2e
	if [ "$FAILED" -eq 0 ]; then echo "e2e: result PASS"; else echo "e2e: result FAIL"; fi
fi
echo "guest: done after $(uptime_s) s of uptime"
# The relay's last lines reach the kernel log before the reboot; a job left running
# keeps the pipe open, so the wait is bounded.
exec >/dev/console 2>&1
i=0
while kill -0 "$RELAY" 2>/dev/null && [ "$i" -lt 10 ]; do sleep 1; i=$((i + 1)); done
# QEMU runs with -no-reboot, so a reboot ends the run (x86 has no ACPI power-off here).
reboot -f
