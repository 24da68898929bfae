#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves that the end-to-end verdicts can fail (make test runs it after make e2e),
# without a boot, on make e2e's passing log:
#
# - scripts/e2e-check.sh must fail edited copies of the log, each for its own reason:
#   a line the kernel prints for lost I/O added inside a case that expects none; a
#   kernel warning added inside a case, which must be charged to that case (the system
#   sleep, and the fault matrix, where only a run of upstream's C driver records
#   them as observations); a model
#   violation added; a case's verdict turned to FAILED; a case's verdict removed (the
#   negative control's, the re-tuning's); the guest's result turned to FAIL.
# - The cases' own judges (scripts/e2e/common/verdicts, run here under busybox sh as
#   in the guest) must pass each result line of the log as it is and fail it edited:
#   a fault cell that did not recover, a fault cell other than a card removal with an
#   I/O error, a card removal whose disk did not verify after the insertion, a sample
#   point outside its window, a card at another timing or a disk in another mode
#   than the board describes, a CQHCI disk with one request in flight at most, a
#   host short of runtime suspends, a re-tuning that kept the old sample point, whose
#   drift never reached the sample point or whose check job still misread (the
#   board's counts of sampling errors), an
#   unbind/bind or a module reload run cut short after its first cycle.
#
# Fails if any edited copy passes. That fio's verify catches a corrupted block is
# shown inside every run by the negative control (scripts/e2e/tests/jobs/002).
#
# usage: scripts/e2e-negative.sh [PASSING-LOG]   (default: make e2e's log)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PASSING=${1:-$CACHE/run-x86_64-short.log}
[[ -r $PASSING ]] || die "no passing end-to-end log at $PASSING: run make e2e first"
"$REPO/scripts/e2e-check.sh" "$PASSING" >/dev/null 2>&1 ||
	die "the log $PASSING does not pass the check to begin with"
command -v busybox >/dev/null || die "no busybox (Debian's busybox-static; scripts/setup.sh installs it)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# usage: must_fail NAME LOG WHY: the check fails on LOG and says WHY (a regex).
must_fail() {
	local out
	if out=$("$REPO/scripts/e2e-check.sh" "$2" 2>&1); then
		die "e2e-check passed $1; it must fail"
	fi
	grep -qE "$3" <<<"$out" || {
		sed 's/^/  /' <<<"$out" >&2
		die "e2e-check failed $1, but not for the expected reason ($3)"
	}
	log "e2e-negative: $1: the check fails, as it must"
}

# The teeth of the host check, on edited copies of the passing log (CR LF as the
# console writes it).
sed '/^e2e: fio jobs took /i [  123.456789] I/O error, dev mmcblk0, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2\r' \
	"$PASSING" >"$work/io-error.log"
must_fail "a log with a block I/O error in the jobs" "$work/io-error.log" \
	'lost or failed I/O, during jobs/001'
# A warning inside the power case's markers must be charged to it.
sed '/^e2e: sleep: [a-z]* returned after /i [  123.456789] WARNING: CPU: 0 PID: 1 at drivers/mmc/host/mtk_sd_rust/mtk_sd_rust.rs:1 example+0x0/0x10\r' \
	"$PASSING" >"$work/warning.log"
must_fail "a log with a kernel warning in the system sleep" "$work/warning.log" \
	'the kernel reported problems, during power/002'
# Inside the fault matrix too: only a run of upstream's C driver records the kernel's
# complaints there as observations.
if grep -q '^e2e: fault matrix took ' "$PASSING"; then
	sed '0,/^e2e: fault matrix took /s//[  123.456789] WARNING: CPU: 0 PID: 1 at drivers\/mmc\/host\/mtk_sd_rust\/mtk_sd_rust.rs:1 example+0x0\/0x10\r\n&/' \
		"$PASSING" >"$work/matrix-warning.log"
	must_fail "a log with a kernel warning in the fault matrix" "$work/matrix-warning.log" \
		'the kernel reported problems, during matrix/00[0-9]'
fi
sed '/^e2e: result PASS/i simulated controller 0x11f60000: 1 model violation(s), new kind: Example\r' \
	"$PASSING" >"$work/violation.log"
must_fail "a log with a model violation" "$work/violation.log" "broke the simulated hardware"
sed -E 's/^e2e: case jobs\/001 passed in /e2e: case jobs\/001 FAILED in /' "$PASSING" >"$work/job.log"
must_fail "a log whose jobs case failed" "$work/job.log" 'case jobs/001 failed'
sed '/^e2e: case jobs\/002 passed in /d' "$PASSING" >"$work/control.log"
must_fail "a log without the negative control's verdict" "$work/control.log" \
	'case jobs/002: 0 verdict lines'
if grep -q '^e2e: case retune/001 passed in ' "$PASSING"; then
	sed '/^e2e: case retune\/001 passed in /d' "$PASSING" >"$work/phase.log"
	must_fail "a log whose re-tuning case left no verdict" "$work/phase.log" \
		'case retune/001: 0 verdict lines'
fi
sed -E 's/^e2e: result PASS/e2e: result FAIL/' "$PASSING" >"$work/result.log"
must_fail "a log whose guest reported a failure" "$work/result.log" "end-to-end run failed"

# The teeth of the cases' judges: each line of the passing log passes its judge, and
# the edited line must fail it.
# usage: judged NAME JUDGE-CALL: the judge (a shell command with the line in $LINE)
# passes the log's line and fails the edited one (EDITED).
judge() {
	LINE=$1 busybox sh -c ". '$REPO/scripts/e2e/common/verdicts'
		fail() { echo \"e2e: FAIL \$*\"; }
		$2" >"$work/judge.out" 2>&1
}
judged() {
	local name=$1 call=$2 line=$3 edited=$4
	[[ -n $line ]] || die "no line for \"$name\" in $PASSING"
	judge "$line" "$call" || {
		cat "$work/judge.out" >&2
		die "the judge fails the passing log's line: $line"
	}
	if judge "$edited" "$call"; then
		die "the judge passed $name: $edited"
	fi
	log "e2e-negative: $name: the case's judge fails it, as it must"
}
text=$(tr -d '\r' <"$PASSING")
first() { grep -m1 -E "$1" <<<"$text" || true; }

line=$(first '^fault: [a-z_]+ [a-z]+ injected=[1-9]')
judged "a fault cell that did not recover" 'judge_fault "$LINE"' "$line" \
	"$(sed -E 's/ recovered=[0-9]+/ recovered=0/' <<<"$line")"
line=$(grep -E '^fault: [a-z_]+ [a-z]+ injected=[1-9]' <<<"$text" | grep -vm1 '^fault: card_removal ' || true)
judged "a fault cell (not a card removal) with an I/O error" 'judge_fault "$LINE"' "$line" \
	"$(sed -E 's/ io_errors=[0-9]+/ io_errors=1/' <<<"$line")"
line=$(first '^fault: card_removal ')
judged "a card removal whose disk did not verify after the insertion" 'judge_fault "$LINE"' \
	"$line" "$(sed -E 's/ verify_failures=[0-9]+/ verify_failures=1/' <<<"$line")"
line=$(first '^e2e: timing mmc[0-9]+ [a-z0-9]+ window=[0-9]+-[0-9]+ chosen=[0-9]+$')
want=$(awk '{ print $4 }' <<<"$line")
judged "a sample point outside its window" "judge_timing \"\$LINE\" $want" "$line" \
	"$(awk '{ split($5, w, /[=-]/); $6 = "chosen=" (w[2] > 0 ? w[2] - 1 : w[3] + 1); print }' <<<"$line")"
judged "a card at another timing than the board describes" "judge_timing \"\$LINE\" $want" \
	"$line" "$(awk '{ $4 = ($4 == "hs200" ? "hs" : "hs200"); print }' <<<"$line")"
line=$(first '^e2e: mode mmcblk[0-9]+ cqe ')
d=$(awk '{ print $3 }' <<<"$line")
more=$(first "^e2e:   $d on mmc[0-9]+: ")
judged "a CQHCI disk with one request in flight at most" \
	"judge_mode \"\$LINE\" '$more' cqe cqe" "$line" \
	"$(sed -E 's/ max_in_flight=[0-9]+/ max_in_flight=1/' <<<"$line")"
judged "a disk in another mode than the board describes" \
	"judge_mode \"\$LINE\" '$more' cqe cqe" "$line" "$(sed -E 's/ cqe / hsq /' <<<"$line")"
line=$(first '^e2e: pm mmcblk[0-9]+ runtime_suspends=')
judged "a host short of runtime suspends" "judge_pm \"\$LINE\" 100" "$line" \
	"$(sed -E 's/ runtime_suspends=[0-9]+/ runtime_suspends=5/' <<<"$line")"
line=$(first '^e2e: retune ')
if [[ -n $line ]]; then
	board=$(first '^e2e:   retune mmc[0-9]+ board: ')
	old=$(sed -E 's/.* before=[0-9]+-[0-9]+\/([0-9]+) .*/\1/' <<<"$line")
	judged "a re-tuning that kept the old sample point" "judge_retune \"\$LINE\" '$board'" "$line" \
		"$(sed -E "s/( after=[0-9]+-[0-9]+\/)[0-9]+/\1$old/" <<<"$line")"
	# The board's figures: a check job after the re-tuning that still misread.
	judged "a re-tuning whose sample point still misreads (the board's count)" \
		"judge_retune '$line' \"\$LINE\"" "$board" \
		"$(sed -E 's/ check_sampling_errors=\+[0-9]+/ check_sampling_errors=+2/' <<<"$board")"
	judged "a re-tuning whose drift never reached the sample point (the board's count)" \
		"judge_retune '$line' \"\$LINE\"" "$board" \
		"$(sed -E 's/ sampling_errors=\+[0-9]+/ sampling_errors=+0/' <<<"$board")"
fi
line=$(first '^e2e: lifecycle ')
cycles=$(sed -E 's/.* cycles=([0-9]+) .*/\1/' <<<"$line")
judged "an unbind/bind run cut short after its first cycle" "judge_lifecycle \"\$LINE\" $cycles" \
	"$line" "$(sed -E 's/ cycles=[0-9]+/ cycles=1/' <<<"$line")"
# The module build's reload cycles (a run of the module build has their line).
line=$(first '^e2e: module cycles=')
if [[ -n $line ]]; then
	cycles=$(sed -E 's/.* cycles=([0-9]+) .*/\1/' <<<"$line")
	disks=$(sed -E 's/.* disks=([0-9]+) .*/\1/' <<<"$line")
	judged "a module reload run that stopped after its first cycle" \
		"judge_module \"\$LINE\" $cycles $disks" "$line" \
		"$(sed -E 's/ cycles=[0-9]+/ cycles=1/' <<<"$line")"
else
	log "e2e-negative: no module reload cycles in $PASSING (a built-in driver run): not edited"
fi

log "e2e-negative: the check and the cases' judges failed every log and line they must fail"
