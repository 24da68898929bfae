#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves that scripts/e2e-check.sh can fail (make test runs it after make e2e):
#  1. the corrupt hook: a boot whose guest zeroes a block of each disk between
#     fio's write and its verify (E2E_FAULT=corrupt, 1 MiB jobs) must fail the
#     check, and for that reason: a fio job failed;
#  2. the checker's teeth, on the passing log of make e2e: the same log with a line
#     the kernel prints for lost I/O added, with a fault cell that did not recover
#     or had an I/O error outside a card removal, with a card removal whose disk did
#     not verify afterwards, or with a model violation, must each fail it.
# Fails if the checker passes any of them.
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

# The corrupt hook, booted: the check must reject the run for its failed verify.
status=0
E2E_NO_BUILD=1 E2E_FAULT=corrupt E2E_SIZE=1 E2E_LOG="$work/corrupt.log" \
	"$REPO/scripts/run.sh" short >"$work/corrupt.out" 2>&1 || status=$?
[[ $status -ne 0 ]] || die "the run with the corrupt hook passed; it must fail"
must_fail "the corrupt hook's run" "$work/corrupt.log" 'end-to-end run failed'
grep -qE '^e2e: FAIL .* fio exit=' <(tr -d '\r' <"$work/corrupt.log") ||
	die "the corrupt hook's run failed, but no fio job did: $work/corrupt.log"
log "e2e-negative: the checker failed every run it must fail"
