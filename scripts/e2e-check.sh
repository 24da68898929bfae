#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Judges a guest console log of scripts/run.sh: passes only if the guest's fio run
# ended with "e2e: result PASS", the driver registered, the kernel reported no
# warning, crash, lockdep, KASAN/UBSAN, RCU or hung-task problem anywhere in it,
# no I/O error, failed recovery or driver give-up (DATA_LOSS), and no simulated
# controller reported a model violation. On the disks of the
# simulated board (simboard/board.rs) it also wants what the board has: three eMMC
# cards, two SD cards and an SDIO card, each at the fastest timing its slot's device
# tree allows, tuned where the timing needs it (one "e2e: timing" line per card);
# one "e2e: sdio" line: the SDIO card moved at least SDIO_MIN_BYTES with CMD53,
# every byte verified, and raised at least SDIO_MIN_IRQS interrupts; the MMC core's "Command Queue Engine enabled" for one
# host and "Host Software Queue enabled" for two; one "e2e: mode" line per disk,
# one disk in cqe mode with at least CQE_MIN_IN_FLIGHT requests in flight at
# once, two in hsq mode with at least HSQ_MIN_IN_FLIGHT, each mode matching what
# the core said of the disk's host, no hsq mode on a slot that may hold SDIO,
# and two disks in legacy mode (the eMMC without command queueing on the CQHCI
# controller, the SD card in the slot that may hold SDIO) with exactly one
# request in flight at a time, on hosts the core enabled neither engine on. No
# disk may have a driver-counted error, except the time-outs of the SDIO probe
# on a slot that may hold SDIO (see SDIO_PROBE_TIMEOUTS). The power phase: one
# "e2e: pm" line per disk, its host runtime-suspended and resumed at least
# PM_MIN_CYCLES times (by the run's mode) and through a system sleep, no violation
# recorded by its simulated controller, both of its fio jobs passed, and the
# guest's system sleep returned.
# Every disk run also has its negative control: a block zeroed behind fio's back
# on the first disk, which fio's verify must catch ("e2e: control" line).
# The phases asked for on the kernel command line (msdc_e2e_phases, all by
# default) decide which phases' lines must be there.
# Separate from run.sh so that a saved log can be checked again.
#
# usage: scripts/e2e-check.sh GUEST.log

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

LOG=${1:?usage: e2e-check.sh GUEST.log}
[[ -r $LOG ]] || { echo "error: no log $LOG" >&2; exit 1; }

# KERNEL_PROBLEMS (common.sh): the kernel's headers for what a run must not have.

# The least max_in_flight a disk must reach: CQHCI gets up to its queue depth from
# the 32-deep fio jobs; HSQ holds up to hsq_depth + 1 (3) from the MMC core.
CQE_MIN_IN_FLIGHT=8
HSQ_MIN_IN_FLIGHT=2
# Without either engine the MMC core hands the host one request at a time: more
# would mean some queue was in use, none that the disk saw no I/O.
LEGACY_IN_FLIGHT=1

# On a slot that may hold SDIO the MMC core probes for SDIO before SD (Linux 7.3
# mmc_rescan_try_freq): sdio_reset's two CMD52 and mmc_send_io_op_cond's CMD5
# with its MMC_CMD_RETRIES (3) retries, which an SD memory card leaves
# unanswered. The driver counts each time-out as an error of the request (no
# other kind is allowed there).
SDIO_PROBE_TIMEOUTS=6
# caps2 bits (include/linux/mmc/host.h): no SDIO commands during initialisation.
MMC_CAP2_NO_SDIO=$((1 << 19))

# The least runtime suspends and resumes of each host by the end of a run: the
# power phase's job idles past the autosuspend delay after each of its I/Os, 150
# in a short run and 1,400 in a full one (scripts/guest-init.sh).
declare -A PM_MIN_CYCLES=([short]=100 [full]=1000)

# The serial console ends lines with CR LF.
text=$(tr -d '\r' <"$LOG")
failed=0

# The phases the run was asked for: msdc_e2e_phases on the kernel command line the
# kernel printed (scripts/run.sh's E2E_PHASES), every phase without it. The checks
# of a phase run only if it was asked for, and then its lines must be there.
ALL_PHASES=jobs,power,matrix,retune,lifecycle,removal,module
phases=$(grep -m1 -oE 'Kernel command line: .*' <<<"$text" |
	grep -oE '(^| )msdc_e2e_phases=[a-z,]+' | tail -n 1 | cut -d= -f2 || true)
phases=${phases:-$ALL_PHASES}
wants() { [[ ",$phases," == *",$1,"* ]]; }

problems=$(grep -nE "$KERNEL_PROBLEMS" <<<"$text" || true)
if [[ -n $problems ]]; then
	echo "e2e-check: the kernel reported problems (line: text):" >&2
	head -n 40 <<<"$problems" | sed 's/^/  /' >&2
	failed=1
fi

# DATA_LOSS (common.sh): data did not get through. Not judged in the fault matrix
# at the end, whose cells provoke such lines and are judged by their own figures.
before_faults=$(sed '/^e2e: fault matrix: /,$d' <<<"$text")
losses=$(grep -nE "$DATA_LOSS" <<<"$before_faults" || true)
if [[ -n $losses ]]; then
	echo "e2e-check: the kernel or the driver reported lost or failed I/O (line: text):" >&2
	head -n 40 <<<"$losses" | sed 's/^/  /' >&2
	failed=1
fi

# simboard/board.rs reports the first protocol violation of each kind, per model.
violations=$(grep -nE 'simulated controller 0x[0-9a-f]+: [0-9]+ (CQHCI )?model violation' \
	<<<"$text" || true)
if [[ -n $violations ]]; then
	echo "e2e-check: the driver broke the simulated hardware's rules:" >&2
	sed 's/^/  /' <<<"$violations" >&2
	failed=1
fi

if ! grep -q '^guest: platform driver mtk_sd_rust registered' <<<"$text"; then
	echo "e2e-check: mtk_sd_rust did not register with the platform bus" >&2
	failed=1
fi

# The distinct hosts (mmcN) for which the MMC core logged "$1" (anywhere in a line:
# the guest's output can share a console line with the kernel's).
core_hosts() {
	{ grep -oE "mmc[0-9]+: $1" <<<"$text" || true; } | cut -d: -f1 | sort -u
}

# The hosts upstream's C driver served (mtk_sd_rust_sim.driver=, the guest's
# "e2e:   driver mmcN mtk-msdc" lines). It keeps its tuning and counters to itself,
# so their lines say so (window=n/a, "driver=mtk-msdc", the board's power-off
# count); everything the MMC core, the block layer, fio and the board tell is
# checked as for the Rust driver.
c_hosts=$(sed -nE 's/^e2e:   driver (mmc[0-9]+) mtk-msdc$/\1/p' <<<"$text" | sort -u)
c_host() { grep -qx "$1" <<<"$c_hosts"; }

# On the simulated board: every card through the driver, the queueing engine each
# slot's device tree node asks for, and the driver's statistics of each disk.
if grep -qE '^e2e: fio-.*target disks' <<<"$text"; then
	for want in MMC:3 SD:2 SDIO:1; do
		type=${want%:*} n=${want#*:}
		got=$(grep -cE "^e2e:   mmc[0-9]+: card .* type=$type " <<<"$text" || true)
		if [[ $got -ne $n ]]; then
			echo "e2e-check: $got $type card(s) initialised; the board has $n" >&2
			failed=1
		fi
	done

	# Tuning: one "e2e: timing" line per card, each at the fastest timing its slot's
	# device tree allows for the card, a tuned timing with the window the driver found
	# and a sample point inside it.
	timing_re='^e2e: timing (mmc[0-9]+) ([a-z0-9]+) window=([0-9]+)-([0-9]+) chosen=([0-9]+)$'
	untuned_re='^e2e: timing (mmc[0-9]+) ([a-z0-9]+) window=none chosen=none$'
	timings=0
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		timings=$((timings + 1))
		if [[ $line =~ $timing_re ]]; then
			host=${BASH_REMATCH[1]} timing=${BASH_REMATCH[2]}
			lo=${BASH_REMATCH[3]} hi=${BASH_REMATCH[4]} chosen=${BASH_REMATCH[5]}
			if ((lo <= hi ? chosen < lo || chosen > hi : chosen < lo && chosen > hi)); then
				echo "e2e-check: $host samples at $chosen, outside its window $lo-$hi: $line" >&2
				failed=1
			fi
		elif [[ $line =~ ^e2e:\ timing\ (mmc[0-9]+)\ ([a-z0-9]+)\ window=n/a\ chosen=n/a$ ]] &&
			c_host "${BASH_REMATCH[1]}"; then
			host=${BASH_REMATCH[1]} timing=${BASH_REMATCH[2]}
		elif [[ $line =~ $untuned_re ]]; then
			host=${BASH_REMATCH[1]} timing=${BASH_REMATCH[2]}
			case $timing in
			hs200 | hs400 | hs400es | sdr50 | sdr104)
				echo "e2e-check: $host runs $timing without a tuning: $line" >&2
				failed=1
				;;
			esac
		else
			echo "e2e-check: malformed timing line: $line" >&2
			failed=1
			continue
		fi
		allowed=$(sed -nE "s/^e2e:   timing $host: card [A-Za-z]+, device tree allows ([a-z0-9]+),.*/\1/p" \
			<<<"$text" | tail -n 1)
		if [[ $timing != "${allowed:-?}" ]]; then
			echo "e2e-check: $host ended at $timing; its device tree allows ${allowed:-nothing known}" >&2
			failed=1
		fi
	done < <(grep -E '^e2e: timing ' <<<"$text" || true)
	if [[ $timings -ne 6 ]]; then
		echo "e2e-check: $timings \"e2e: timing\" line(s); the board has 6 cards" >&2
		failed=1
	fi

	# SDIO: the board's test function driver moved data with CMD53 on the SDIO card,
	# every byte read back as written, and counted the function's interrupts.
	SDIO_MIN_BYTES=8492
	SDIO_MIN_IRQS=16
	SDIO_MIN_WAKEUPS=3
	sdio=$(grep -E '^e2e: sdio ' <<<"$text" || true)
	sdio_re='^e2e: sdio (mmc[0-9]+) bytes=([0-9]+) verified irqs=([0-9]+)$'
	if [[ -z $sdio || $sdio == *$'\n'* ]]; then
		echo "e2e-check: $(grep -c . <<<"$sdio" || true) \"e2e: sdio\" lines, not one" >&2
		failed=1
	elif ! [[ $sdio =~ $sdio_re ]]; then
		echo "e2e-check: the SDIO transfer failed: $sdio" >&2
		failed=1
	elif ((BASH_REMATCH[2] < SDIO_MIN_BYTES || BASH_REMATCH[3] < SDIO_MIN_IRQS)); then
		echo "e2e-check: the SDIO test fell short (want bytes>=$SDIO_MIN_BYTES," \
			"irqs>=$SDIO_MIN_IRQS): $sdio" >&2
		failed=1
	fi
	# Runtime PM with the SDIO interrupt claimed: the card's interrupts while the
	# controller slept came in through the wake-up interrupt.
	wakeups=$(sed -nE 's/^e2e:   sdio mmc[0-9]+: .*wakeups=([0-9]+).*/\1/p' <<<"$text" | tail -n 1)
	if ((${wakeups:-0} < SDIO_MIN_WAKEUPS)); then
		echo "e2e-check: ${wakeups:-no} SDIO interrupt(s) woke the suspended controller;" \
			"want $SDIO_MIN_WAKEUPS" >&2
		failed=1
	fi

	cqe_hosts=$(core_hosts 'Command Queue Engine enabled')
	hsq_hosts=$(core_hosts 'Host Software Queue enabled')
	# usage: engine_hosts WHAT COUNT HOSTS: the core enabled WHAT on COUNT hosts.
	engine_hosts() {
		local got
		got=$(wc -w <<<"$3")
		if [[ $got -ne $2 ]]; then
			echo "e2e-check: the MMC core enabled the $1 on $got host(s)" \
				"(${3//$'\n'/ }); the board has $2" >&2
			failed=1
		fi
	}
	engine_hosts "Command Queue Engine" 1 "$cqe_hosts"
	engine_hosts "Host Software Queue" 2 "$hsq_hosts"

	# The disks the guest tested, from its "N disks after S s: mmcblk0 ..." line.
	disks=$(sed -nE 's/^e2e: [0-9]+ disks after [0-9]+ s: //p' <<<"$text" | tail -n 1)
	[[ -n $disks ]] || { echo "e2e-check: the guest listed no disks" >&2; failed=1; }
	declare -A modes=()
	mode_re='^e2e: mode (mmcblk[0-9]+) (cqe|hsq|legacy) max_in_flight=([0-9]+) errors=([0-9]+) recoveries=([0-9]+)$'
	for d in $disks; do
		lines=$(grep -E "^e2e: mode $d " <<<"$text" || true)
		if [[ -z $lines || $lines == *$'\n'* ]]; then
			echo "e2e-check: $d: $(grep -c . <<<"$lines" || true) \"e2e: mode\" lines, not one" >&2
			failed=1
			continue
		fi
		# The guest's report names the host of each disk ("e2e:   mmcM: disk mmcblkN").
		host=$(sed -nE "s/^e2e:   (mmc[0-9]+): disk $d .*/\1/p" <<<"$text" | tail -n 1)
		if c_host "${host:-none}"; then
			# Upstream's C driver: the mode its host's core log line says (the guest
			# read it there), checked against the board's plan below; no counters.
			if ! [[ $lines =~ ^e2e:\ mode\ $d\ (cqe|hsq|legacy)\ driver=mtk-msdc$ ]]; then
				echo "e2e-check: $d: malformed C driver mode line: $lines" >&2
				failed=1
				continue
			fi
			lines="e2e: mode $d ${BASH_REMATCH[1]} max_in_flight=0 errors=0 recoveries=0"
		fi
		if ! [[ $lines =~ $mode_re ]]; then
			echo "e2e-check: $d: malformed statistics line: $lines" >&2
			failed=1
			continue
		fi
		mode=${BASH_REMATCH[2]} in_flight=${BASH_REMATCH[3]} errors=${BASH_REMATCH[4]}
		modes[$mode]=$((${modes[$mode]:-0} + 1))
		# The indented counters under the mode line: time-outs and the host's caps2.
		more=$(grep -E "^e2e:   $d on mmc[0-9]+: " <<<"$text" | tail -n 1 || true)
		timeouts=$(sed -nE 's/.* errors_timeout=([0-9]+).*/\1/p' <<<"$more")
		caps2=$(sed -nE 's/.* caps2=(0x[0-9a-f]+).*/\1/p' <<<"$more")
		if [[ -z $caps2 ]]; then
			echo "e2e-check: $d: no caps2 of its host in the log: ${more:-no counters line}" >&2
			failed=1
			may_sdio=unknown
		elif ((caps2 & MMC_CAP2_NO_SDIO)); then
			may_sdio=no
		else
			may_sdio=yes
		fi
		if [[ $may_sdio == yes && $errors -le $SDIO_PROBE_TIMEOUTS &&
			$errors == "${timeouts:-none}" ]]; then
			:
		elif [[ $errors -ne 0 ]]; then
			echo "e2e-check: $d ($mode): the driver counted $errors error(s)," \
				"${timeouts:-an unknown number of} time-out(s) (slot may hold SDIO: $may_sdio;" \
				"only there up to $SDIO_PROBE_TIMEOUTS time-outs and nothing else): $lines" >&2
			failed=1
		fi
		case $mode in
		cqe) least=$CQE_MIN_IN_FLIGHT hosts=$cqe_hosts ;;
		hsq) least=$HSQ_MIN_IN_FLIGHT hosts=$hsq_hosts ;;
		*) least=0 hosts="" ;;
		esac
		c_host "${host:-none}" && least=0
		if [[ $in_flight -lt $least ]]; then
			echo "e2e-check: $d ($mode): at most $in_flight request(s) in flight, want $least or more" >&2
			failed=1
		fi
		if [[ $mode == legacy && $in_flight -ne $LEGACY_IN_FLIGHT ]] && ! c_host "${host:-none}"; then
			echo "e2e-check: $d (legacy): $in_flight requests in flight at once;" \
				"one at a time means $LEGACY_IN_FLIGHT" >&2
			failed=1
		fi
		if [[ $mode == hsq && $may_sdio == yes ]]; then
			echo "e2e-check: $d runs the host software queue on a slot that may hold SDIO" >&2
			failed=1
		fi
		if [[ $mode != legacy ]] && ! grep -qx "${host:-none}" <<<"$hosts"; then
			echo "e2e-check: $d on ${host:-an unknown host} is in $mode mode, but the MMC core" \
				"did not enable that engine on its host" >&2
			failed=1
		fi
		if [[ $mode == legacy ]] && grep -qx "${host:-none}" <<<"$cqe_hosts"$'\n'"$hsq_hosts"; then
			echo "e2e-check: $d on $host is in legacy mode, but the MMC core enabled a queue" \
				"engine on its host" >&2
			failed=1
		fi
		if [[ $mode == legacy && -z $host ]]; then
			echo "e2e-check: $d (legacy): the guest's report names no host for it" >&2
			failed=1
		fi
	done
	if [[ ${modes[cqe]:-0} -ne 1 || ${modes[hsq]:-0} -ne 2 || ${modes[legacy]:-0} -ne 2 ]]; then
		echo "e2e-check: disks by mode: cqe ${modes[cqe]:-0}, hsq ${modes[hsq]:-0}," \
			"legacy ${modes[legacy]:-0}; the board has one cqe, two hsq and two legacy" >&2
		failed=1
	fi

	# usage: job_passed DISK JOB WHAT: the guest reported fio job JOB on DISK passed;
	# otherwise says so, naming it WHAT, with the guest's result for it.
	job_passed() {
		grep -qE "^e2e: PASS $1 $2 " <<<"$text" && return
		echo "e2e-check: $1: $3 $2 did not pass:" \
			"$(grep -E "^e2e: FAIL $1 $2 " <<<"$text" || echo "no result")" >&2
		failed=1
	}

	# The jobs phase: each disk's five verified jobs, one request at a time and queued.
	if wants jobs; then
		for d in $disks; do
			for job in randwrite-4k seqwrite-512k q-randrw-4k q-seqwrite-512k q-randrw-4k-x4; do
				job_passed "$d" "$job" "fio job"
			done
		done
	fi

	# The negative control: a block zeroed behind fio's back on the first disk was
	# caught by fio's verify, as every verified job above relies on.
	if grep -qE '^e2e: fio-.*, fault none$' <<<"$text" &&
		[[ $(grep -cE '^e2e: control mmcblk[0-9]+ zeroed block detected$' <<<"$text") -ne 1 ]]; then
		echo "e2e-check: no negative control: fio's verify was not shown to catch a zeroed block:" \
			"$(grep -E '^e2e: (FAIL )?control' <<<"$text" || echo "no control line")" >&2
		failed=1
	fi

	# The fault matrix: every cell's faults reached the hardware, and after each every
	# block verified with no I/O error and nothing hung (no fault of the short matrix is
	# unrecoverable by design).
	# The matrix the guest ran: short (make test) or full (make stress: every disk,
	# the lost interrupt too on the four without CQHCI).
	matrix=$(sed -nE 's/^e2e: fault matrix: ([a-z]+), .*/\1/p' <<<"$text" | tail -n 1)
	# With the MMC core's fail_mmc_request on each disk the matrix covers (a mode's
	# first in the short one, every disk in the full one).
	case $matrix in
	full) FAULT_CELLS=42 ;;
	*) FAULT_CELLS=22 ;;
	esac
	wants matrix || FAULT_CELLS=0
	# The card removals (after the matrix) are cells too: unrecoverable by design, so
	# their I/O errors are expected; recovered means the disk came back and verified.
	REMOVAL_CELLS=2
	wants removal || REMOVAL_CELLS=0
	removal_cells=0
	fault_re='^fault: ([a-z_]+) (cqe|hsq|legacy) injected=([0-9]+) recovered=([0-9]+)'
	fault_re+=' io_errors=([0-9]+) verify_failures=([0-9]+) hung=([0-9]+)$'
	cells=0
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		cells=$((cells + 1))
		if ! [[ $line =~ $fault_re ]]; then
			echo "e2e-check: malformed fault line: $line" >&2
			failed=1
			continue
		fi
		injected=${BASH_REMATCH[3]} recovered=${BASH_REMATCH[4]} io_errors=${BASH_REMATCH[5]}
		if [[ ${BASH_REMATCH[1]} == card_removal ]]; then
			cells=$((cells - 1)) removal_cells=$((removal_cells + 1)) io_errors=0
		fi
		if ((injected == 0 || recovered != injected || io_errors != 0 ||
			BASH_REMATCH[6] != 0 || BASH_REMATCH[7] != 0)); then
			echo "e2e-check: fault cell failed (want injected>0, all recovered, no I/O error" \
				"outside a card removal, no verify failure or hang): $line" >&2
			grep -F "fault:   ${BASH_REMATCH[1]} ${BASH_REMATCH[2]} " <<<"$text" | sed 's/^/  /' >&2
			failed=1
		fi
	done < <(grep -E '^fault: [a-z]' <<<"$text" || true)
	if [[ $cells -ne $FAULT_CELLS ]]; then
		echo "e2e-check: $cells fault cell(s); the ${matrix:-short} matrix has $FAULT_CELLS" >&2
		failed=1
	fi
	if [[ $removal_cells -ne $REMOVAL_CELLS ]]; then
		echo "e2e-check: $removal_cells card_removal cell(s), not $REMOVAL_CELLS (one per SD slot)" >&2
		failed=1
	fi

	# Re-tuning: after its windows drifted, the SDR104 slot's verified job passed, the
	# core re-tuned it, and the new sample point is inside the drifted window and not
	# the old one.
	retune=$(grep -E '^e2e: retune ' <<<"$text" || true)
	wants retune || retune=skipped
	retune_re='^e2e: retune (mmc[0-9]+) sdr104 drift=([0-9]+) before=([0-9]+)-([0-9]+)/([0-9]+)'
	retune_re+=' after=([0-9]+)-([0-9]+)/([0-9]+) tunings=\+([0-9]+) passed$'
	if [[ $retune == skipped ]]; then
		:
	elif [[ -z $retune || $retune == *$'\n'* ]]; then
		echo "e2e-check: $(grep -c . <<<"$retune" || true) \"e2e: retune\" lines, not one" >&2
		failed=1
	elif ! [[ $retune =~ $retune_re ]]; then
		echo "e2e-check: re-tuning after drift failed: $retune" >&2
		failed=1
	else
		lo=${BASH_REMATCH[6]} hi=${BASH_REMATCH[7]} chosen=${BASH_REMATCH[8]}
		old=${BASH_REMATCH[5]} tunings=${BASH_REMATCH[9]}
		if ((tunings < 1 || chosen == old ||
			(lo <= hi ? chosen < lo || chosen > hi : chosen < lo && chosen > hi))); then
			echo "e2e-check: no valid re-tuning after drift (want a tuning more, the new" \
				"sample point inside the new window and not the old one): $retune" >&2
			failed=1
		fi
	fi

	# Lifecycle: each slot unbound under load and bound again, every cycle, and the disk
	# that came back verified.
	LIFECYCLE_SLOTS=2
	wants lifecycle || LIFECYCLE_SLOTS=0
	lifecycle=$(grep -E '^e2e: lifecycle ' <<<"$text" || true)
	lifecycle_re='^e2e: lifecycle [0-9a-f]+ (cqe|hsq|legacy) cycles=([0-9]+) unbind_max_ms=[0-9]+'
	lifecycle_re+=' bind_max_ms=[0-9]+ passed$'
	if [[ $(grep -c . <<<"$lifecycle") -ne $LIFECYCLE_SLOTS ]]; then
		echo "e2e-check: $(grep -c . <<<"$lifecycle") \"e2e: lifecycle\" lines; want $LIFECYCLE_SLOTS" >&2
		failed=1
	fi
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		cycles_wanted=2
		[[ $matrix == full ]] && cycles_wanted=100
		if ! [[ $line =~ $lifecycle_re ]] || ((BASH_REMATCH[2] != cycles_wanted)); then
			echo "e2e-check: unbind/bind under load failed: $line" >&2
			failed=1
		fi
	done <<<"$lifecycle"

	# Card removal: each removable slot's card taken out under load, its disk gone and
	# fio ended, then put back and its disk verified; the two SD slots, one with the
	# software queue and one served a request at a time.
	removal=$(grep -E '^e2e: removal ' <<<"$text" || true)
	removal_re='^e2e: removal [0-9a-f]+ (hsq|legacy) gone_ms=[0-9]+ back_ms=[0-9]+ passed$'
	if ! wants removal; then
		if [[ -n $removal ]]; then
			echo "e2e-check: removal lines from a run that did not ask for them: $removal" >&2
			failed=1
		fi
	elif [[ $(grep -c . <<<"$removal") -ne 2 ]] || [[ $removal != *" hsq "* ]] ||
		[[ $removal != *" legacy "* ]]; then
		echo "e2e-check: want one \"e2e: removal\" line per SD slot (hsq and legacy):" \
			"${removal:-none}" >&2
		failed=1
	fi
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		if ! [[ $line =~ $removal_re ]]; then
			echo "e2e-check: card removal under load failed: $line" >&2
			failed=1
		fi
	done <<<"$removal"

	# The module build (msdc_e2e_driver=module on the kernel command line): loaded in
	# place of the built-in driver, unloaded while fio runs and loaded again, every
	# cycle, with every disk back and verified. A run of the built-in driver has no
	# module line.
	module=$(grep -E '^e2e: module ' <<<"$text" || true)
	if grep -qE 'Kernel command line: .*msdc_e2e_driver=module( |$)' <<<"$text" && wants module; then
		module_re='^e2e: module cycles=([0-9]+) disks=([0-9]+) unload_max_ms=[0-9]+'
		module_re+=' load_max_ms=[0-9]+ passed$'
		cycles_wanted=2
		[[ $matrix == full ]] && cycles_wanted=100
		if ! grep -qE '^guest: module .* loaded in [0-9]+ ms$' <<<"$text"; then
			echo "e2e-check: the module build was not loaded:" \
				"$(grep -E '^guest: module ' <<<"$text" || echo 'no "guest: module" line')" >&2
			failed=1
		fi
		if [[ -z $module || $module == *$'\n'* ]] || ! [[ $module =~ $module_re ]] ||
			((BASH_REMATCH[1] != cycles_wanted || BASH_REMATCH[2] != $(wc -w <<<"$disks"))); then
			echo "e2e-check: want one passed \"e2e: module\" line of $cycles_wanted cycles on" \
				"$(wc -w <<<"$disks") disks: ${module:-none}" >&2
			failed=1
		fi
	elif [[ -n $module ]]; then
		echo "e2e-check: a module line from a run of the built-in driver or one that asked" \
			"for no module phase: $module" >&2
		failed=1
	fi

	# The power phase. The run's mode from the guest's "e2e: fio-3.33, mode short, ..."
	run_mode=$(sed -nE 's/^e2e: fio-[^,]*, mode ([a-z]+), .*/\1/p' <<<"$text" | tail -n 1)
	pm_min=${PM_MIN_CYCLES[${run_mode:-none}]:-}
	if [[ -z $pm_min ]]; then
		echo "e2e-check: the guest named no run mode (short or full): ${run_mode:-none}" >&2
		failed=1
		pm_min=${PM_MIN_CYCLES[full]}
	fi
	pm_re='^e2e: pm (mmcblk[0-9]+) runtime_suspends=([0-9]+) runtime_resumes=([0-9]+)'
	pm_re+=' system_sleeps=([0-9]+) violations=([0-9]+)$'
	pm_disks=$disks
	wants power || pm_disks=""
	for d in $pm_disks; do
		lines=$(grep -E "^e2e: pm $d " <<<"$text" || true)
		host=$(sed -nE "s/^e2e:   (mmc[0-9]+): disk $d .*/\1/p" <<<"$text" | tail -n 1)
		# Upstream's C driver: the board counted its slot's power-offs, one per runtime
		# suspend at least; no count of system sleeps (the sleep line below stands).
		if c_host "${host:-none}" &&
			[[ $lines =~ ^e2e:\ pm\ $d\ power_offs=([0-9]+)\ violations=([0-9]+)$ ]]; then
			lines="e2e: pm $d runtime_suspends=${BASH_REMATCH[1]}"
			lines+=" runtime_resumes=${BASH_REMATCH[1]} system_sleeps=1 violations=${BASH_REMATCH[2]}"
		fi
		if [[ -z $lines || $lines == *$'\n'* ]]; then
			echo "e2e-check: $d: $(grep -c . <<<"$lines" || true) \"e2e: pm\" lines, not one" >&2
			failed=1
		elif ! [[ $lines =~ $pm_re ]]; then
			echo "e2e-check: $d: malformed power counters line: $lines" >&2
			failed=1
		else
			suspends=${BASH_REMATCH[2]} resumes=${BASH_REMATCH[3]}
			sleeps=${BASH_REMATCH[4]} board_violations=${BASH_REMATCH[5]}
			for figure in "runtime suspends:$suspends" "runtime resumes:$resumes"; do
				if [[ ${figure#*:} -lt $pm_min ]]; then
					echo "e2e-check: $d: ${figure#*:} ${figure%:*}, want $pm_min or more" \
						"in a ${run_mode:-unknown} run: $lines" >&2
					failed=1
				fi
			done
			if [[ $sleeps -eq 0 ]]; then
				echo "e2e-check: $d: its host went through no system sleep: $lines" >&2
				failed=1
			fi
			if [[ $board_violations -ne 0 ]]; then
				echo "e2e-check: $d: its simulated controller recorded $board_violations" \
					"violation(s) of the hardware's rules: $lines" >&2
				failed=1
			fi
		fi
		for job in pm-runtime-4k pm-sleep-4k; do
			job_passed "$d" "$job" "the power phase's fio job"
		done
	done
	if wants power && ! grep -qE '^e2e: sleep: [a-z]+ returned after ' <<<"$text"; then
		if grep -q '^e2e: FAIL sleep: ' <<<"$text"; then
			echo "e2e-check: the system sleep failed:" >&2
			grep '^e2e: FAIL sleep: ' <<<"$text" | sed 's/^/  /' >&2
		elif grep -qE '^e2e: sleep: [a-z]+ \(.*\) with fio running' <<<"$text"; then
			echo "e2e-check: the guest went to sleep and never reported waking up" >&2
		else
			echo "e2e-check: the guest reported no system sleep" >&2
		fi
		failed=1
	fi
fi

if grep -q '^e2e: result PASS' <<<"$text"; then
	:
elif grep -q '^e2e: result FAIL' <<<"$text"; then
	echo "e2e-check: the guest's end-to-end run failed:" >&2
	# Each FAIL line with the fio output the guest indented under it.
	awk '/^e2e: FAIL/ { on = 1; print "  " $0; next }
	     on && /^e2e:   / { print "  " $0; next } { on = 0 }' <<<"$text" >&2
	failed=1
else
	echo "e2e-check: the guest never reported a result (boot failure, crash or time-out)" >&2
	failed=1
fi

if [[ $failed -ne 0 ]]; then
	echo "e2e-check: FAIL; log: $LOG" >&2
	exit 1
fi
grep -E '^(e2e: (PASS|fio jobs took|mode |sleep: [a-z]+ returned|power phase took|pm |timing |sdio |fault matrix took|retune |lifecycle |removal |module )|fault: )' <<<"$text" ||
	true
echo "e2e-check: PASS ($(grep -c '^e2e: PASS' <<<"$text") fio jobs); log: $LOG"
