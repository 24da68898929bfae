#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Judges a guest console log of scripts/run.sh. The end-to-end cases judge themselves
# in the guest (scripts/e2e/tests/<group>/<NNN>, each printing "e2e: case <name>
# passed|FAILED in N s" or "skipped: <reason>"); this check reads their verdicts and
# adds what only the whole log shows:
#
# - every case the kernel command line asked for (msdc_e2e_cases, all by default)
#   ran, between its markers ("msdc-e2e: case <name> begin|end", written into the
#   kernel log by the guest's runner), and passed; a skipped case gave its reason,
#   and the module case is not skipped in a run of the module build;
# - the kernel reported no warning, crash, lockdep, KASAN/UBSAN, RCU, hung-task or
#   PM problem anywhere (KERNEL_PROBLEMS in common.sh), each charged to the case whose
#   markers enclose it (or to the boot and the runner's set-up outside them);
# - no line that means data did not get through (DATA_LOSS in common.sh), except in
#   a case that provokes such lines on purpose (its begin marker says "data loss
#   expected": the fault matrix, card removal, module reloads);
# - no simulated controller reported a model violation;
# - the driver registered (and the module build was loaded when the command line
#   says msdc_e2e_driver=module), and the guest said "e2e: result PASS".
#
# Separate from run.sh so that a saved log can be checked again.
#
# usage: scripts/e2e-check.sh GUEST.log

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

LOG=${1:?usage: e2e-check.sh GUEST.log}
[[ -r $LOG ]] || { echo "error: no log $LOG" >&2; exit 1; }
E2E_DIR=$REPO/scripts/e2e

# The serial console ends lines with CR LF.
text=$(tr -d '\r' <"$LOG")
failed=0

# The case each line of the log falls in, from the markers: "<case>\t<line number>:
# <text>" for every line matching KERNEL_PROBLEMS (P), DATA_LOSS outside a case that
# expects it (D) or a model violation (V). Outside the markers: "boot" before the
# first case, "the runner" between cases and after the last.
charged=$(KP=$KERNEL_PROBLEMS DL=$DATA_LOSS awk '
	BEGIN { where = "boot"; loss_ok = 0
		violation = "simulated controller 0x[0-9a-f]+: [0-9]+ (CQHCI )?model violation" }
	/msdc-e2e: case [^ ]+ begin/ {
		sub(/.*msdc-e2e: case /, ""); where = $1; loss_ok = /data loss expected/; next }
	/msdc-e2e: case [^ ]+ end/ { where = "the runner"; loss_ok = 0; next }
	$0 ~ ENVIRON["KP"] { print "P\t" where "\t" NR ": " $0 }
	$0 ~ ENVIRON["DL"] && !loss_ok { print "D\t" where "\t" NR ": " $0 }
	$0 ~ violation { print "V\t" where "\t" NR ": " $0 }' <<<"$text")

cmdline=$(grep -m1 -oE 'Kernel command line: .*' <<<"$text" || true)
# A run of upstream's C driver on every slot (mtk_sd_rust_sim.driver=c): in the cases
# whose C results the guest records as observations of the yardstick rather than
# judges them (the fault matrix, re-tuning, unbind/bind, card removal), what the
# kernel reports is that driver's reaction to the faults, recorded (O) and printed,
# not failed. Everywhere else, and in every run of the Rust driver, it fails.
C_OBSERVED_GROUPS="matrix retune lifecycle removal"
if grep -qE ' mtk_sd_rust_sim\.driver=c( |$)' <<<"$cmdline"; then
	charged=$(awk -F'\t' -v groups=" $C_OBSERVED_GROUPS " 'BEGIN { OFS = "\t" }
		$1 == "P" { split($2, g, "/"); if (index(groups, " " g[1] " ")) $1 = "O" }
		{ print }' <<<"$charged")
fi

# usage: report KIND WHAT [observe]: the charged lines of KIND, grouped by case, under
# WHAT; they fail the check, unless observe is given (then on stdout, as a note).
report() {
	local lines where
	lines=$(grep -P "^$1\t" <<<"$charged" | cut -f2- || true)
	[[ -n $lines ]] || return 0
	while IFS= read -r where; do
		echo "e2e-check: $2, during $where (line: text):"
		awk -F'\t' -v w="$where" '$1 == w { print "  " $2 }' <<<"$lines" | head -n 40
	done < <(cut -f1 <<<"$lines" | awk '!seen[$0]++') >&"$([[ ${3:-} == observe ]] && echo 1 || echo 2)"
	[[ ${3:-} == observe ]] || failed=1
}
report P "the kernel reported problems"
report O "observed with upstream's C driver (not judged): the kernel reported problems" observe
report D "the kernel or the driver reported lost or failed I/O"
report V "the driver broke the simulated hardware's rules"

if ! grep -q '^guest: platform driver mtk_sd_rust registered' <<<"$text"; then
	echo "e2e-check: mtk_sd_rust did not register with the platform bus" >&2
	failed=1
fi
module_run=0
if grep -qE ' msdc_e2e_driver=module( |$)' <<<"$cmdline"; then
	module_run=1
	if ! grep -qE '^guest: module .* loaded in [0-9]+ ms$' <<<"$text"; then
		echo "e2e-check: the module build was not loaded:" \
			"$(grep -E '^guest: module ' <<<"$text" || echo 'no "guest: module" line')" >&2
		failed=1
	fi
fi

# The cases the command line asks for, in the runner's order (scripts/e2e/check
# selected_cases, from this checkout's scripts/e2e/tests).
CASE_GROUPS=$(sed -nE 's/^CASE_GROUPS="(.*)"$/\1/p' "$E2E_DIR/check")
want=$(grep -oE '(^| )msdc_e2e_cases=[^ ]+' <<<"$cmdline" | tail -n 1 | cut -d= -f2 | tr ',' ' ' || true)
want=${want:-all}
expected=""
for g in $CASE_GROUPS; do
	for f in "$E2E_DIR/tests/$g"/[0-9][0-9][0-9]; do
		[[ -f $f ]] || continue
		name=$g/${f##*/}
		case " $want " in *" all "* | *" $g "* | *" $name "*) expected+="$name " ;; esac
	done
done
expected=${expected% }

# The guest's list and each case's verdict.
ran=$(sed -nE 's/^e2e: cases: (.*)$/\1/p' <<<"$text" | tail -n 1)
if grep -q '^e2e: fio-.*, mode ' <<<"$text" && [[ $ran != "$expected" ]]; then
	echo "e2e-check: the guest's cases \"${ran:-none}\" are not those asked for" \
		"(msdc_e2e_cases=${want// /,}): \"$expected\"" >&2
	failed=1
fi
passed=0 skipped=0
for c in $ran; do
	verdict=$(grep -E "^e2e: case $c (passed|FAILED) in |^e2e: case $c skipped: " <<<"$text" || true)
	if [[ -z $verdict || $verdict == *$'\n'* ]]; then
		echo "e2e-check: case $c: $(grep -c . <<<"$verdict" || true) verdict lines, not one" \
			"(it did not finish, or ran twice)" >&2
		failed=1
		continue
	fi
	case $verdict in
	*" passed in "*) passed=$((passed + 1)) ;;
	*" skipped: "*)
		skipped=$((skipped + 1))
		echo "e2e-check: note: ${verdict#e2e: }" >&2
		if [[ $c == module/* && $module_run == 1 ]]; then
			echo "e2e-check: case $c skipped in a run of the module build" >&2
			failed=1
		fi
		continue
		;;
	*)
		echo "e2e-check: case $c failed:" >&2
		# Its FAIL lines with the output the guest indented under them, from its
		# description line to its verdict.
		awk -v c="$c" 'index($0, "e2e: case " c ": ") == 1 { on = 1; next }
			!on { next }
			index($0, "e2e: case " c " FAILED in ") == 1 { exit }
			/^e2e: FAIL/ { show = 1; print "  " $0; next }
			show && /^(e2e|fault):   / { print "  " $0; next }
			{ show = 0 }' <<<"$text" >&2
		failed=1
		;;
	esac
	for m in begin end; do
		if ! grep -qE "msdc-e2e: case $c $m" <<<"$text"; then
			echo "e2e-check: case $c has no \"$m\" marker in the kernel log" >&2
			failed=1
		fi
	done
done

if grep -q '^e2e: result PASS' <<<"$text"; then
	:
elif grep -q '^e2e: result FAIL' <<<"$text"; then
	echo "e2e-check: the guest's end-to-end run failed:" >&2
	# The FAIL lines outside the cases (the runner's set-up) with what is indented
	# under them.
	awk '/^e2e: FAIL/ { on = 1; print "  " $0; next }
	     on && /^e2e:   / { print "  " $0; next } { on = 0 }' <<<"$text" | head -n 60 >&2
	failed=1
else
	echo "e2e-check: the guest never reported a result (boot failure, crash or time-out)" >&2
	failed=1
fi

if [[ $failed -ne 0 ]]; then
	echo "e2e-check: FAIL; log: $LOG" >&2
	exit 1
fi
grep -E '^(e2e: (case [a-z]+/[0-9]+ (passed|skipped)|PASS|fio jobs took|mode |sleep: [a-z]+ returned|power: |pm |timing |sdio |fault matrix took|retune |lifecycle |removal |module )|fault: )' <<<"$text" ||
	true
echo "e2e-check: PASS ($passed cases passed, $skipped skipped; $(grep -c '^e2e: PASS' <<<"$text") fio jobs); log: $LOG"
