#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves that scripts/e2e-check.sh can fail (make test runs it after make e2e), on
# edited copies of make e2e's passing log: with a line the kernel prints for lost
# I/O added, with a fio job that failed, with the negative control missing (the
# run's own proof that fio's verify catches a zeroed block: scripts/guest-init.sh
# corrupt_control, which e2e-check wants in every run), with a fault cell that did
# not recover or had an I/O error outside a card removal, with a card removal
# whose disk did not verify afterwards, with a model violation, or with a module
# reload run cut short, the check must fail, each for its own reason. Fails if the
# checker passes any of them. No boot: the corrupted disk is judged inside the
# main boot, by its negative control.
#
# usage: scripts/e2e-negative.sh [PASSING-LOG]   (default: make e2e's log)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PASSING=${1:-$CACHE/run-x86_64-short.log}
[[ -r $PASSING ]] || die "no passing end-to-end log at $PASSING: run make e2e first"
"$REPO/scripts/e2e-check.sh" "$PASSING" >/dev/null 2>&1 ||
	die "the log $PASSING does not pass the check to begin with"

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

# The teeth, on edited copies of the passing log (CR LF as the console writes it).
sed '/^e2e: fio jobs took /i [  123.456789] I/O error, dev mmcblk0, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2\r' \
	"$PASSING" >"$work/io-error.log"
must_fail "a log with a block I/O error" "$work/io-error.log" 'lost or failed I/O'
# A fio job that failed its verify, as the guest reports it (its result line too).
sed -E '0,/^e2e: PASS (mmcblk[0-9]+) ([a-z0-9-]+) .*/s//e2e: FAIL \1 \2 fio exit=1 error=84/
	s/^e2e: result PASS/e2e: result FAIL/' "$PASSING" >"$work/job.log"
must_fail "a log with a failed fio job" "$work/job.log" 'did not pass|end-to-end run failed'
sed '/^e2e: control /d' "$PASSING" >"$work/control.log"
must_fail "a log without the negative control" "$work/control.log" 'no negative control'
# A phase the command line asked for (all, by default) whose line is missing.
sed '/^e2e: retune /d' "$PASSING" >"$work/phase.log"
must_fail "a log whose re-tuning phase left no line" "$work/phase.log" '"e2e: retune" lines'
sed -E 's/^(fault: [a-z_]+ [a-z]+ injected=)([0-9]+) recovered=[0-9]+/\1\2 recovered=0/' \
	"$PASSING" >"$work/fault.log"
must_fail "a fault cell that did not recover" "$work/fault.log" 'fault cell failed'
# I/O errors are expected of a card removal only.
sed -E '/^fault: card_removal /!s/^(fault: [a-z_]+ [a-z]+ injected=[0-9]+ recovered=[0-9]+ io_errors=)[0-9]+/\11/' \
	"$PASSING" >"$work/fault-io.log"
must_fail "a fault cell (not a card removal) with an I/O error" "$work/fault-io.log" 'fault cell failed'
sed -E 's/^(fault: card_removal .* verify_failures=)[0-9]+/\11/' "$PASSING" >"$work/removal.log"
must_fail "a card removal whose disk did not verify after the insertion" "$work/removal.log" \
	'fault cell failed'
sed '/^e2e: result PASS/i simulated controller 0x11f60000: 1 model violation(s), new kind: Example\r' \
	"$PASSING" >"$work/violation.log"
must_fail "a log with a model violation" "$work/violation.log" "broke the simulated hardware"
# The module build's reload cycles (a run of the module build has their line).
if grep -q '^e2e: module cycles=' "$PASSING"; then
	sed -E 's/^(e2e: module cycles=)[0-9]+/\11/' "$PASSING" >"$work/module.log"
	must_fail "a module reload run that stopped after its first cycle" "$work/module.log" \
		'"e2e: module" line'
else
	log "e2e-negative: no module reload cycles in $PASSING (a built-in driver run): not edited"
fi

log "e2e-negative: the checker failed every log it must fail"
