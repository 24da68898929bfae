#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Judges a guest console log of scripts/run.sh: passes only if the guest's fio run
# ended with "e2e: result PASS", the driver registered, an eMMC and an SD card came
# up (when the run was on the disks), and the kernel reported no
# warning, crash, lockdep, KASAN/UBSAN, RCU or hung-task problem anywhere in it.
# Separate from run.sh so that a saved log can be checked again.
#
# usage: scripts/e2e-check.sh GUEST.log

set -euo pipefail

LOG=${1:?usage: e2e-check.sh GUEST.log}
[[ -r $LOG ]] || { echo "error: no log $LOG" >&2; exit 1; }

# Headers the kernel prints for the problems a test run must not have. "INFO: "
# starts lockdep's, RCU stall and hung-task reports.
KERNEL_PROBLEMS='WARNING:|BUG:|Oops|[Kk]ernel panic|Call Trace:|possible circular locking'
KERNEL_PROBLEMS+='|possible recursive locking|inconsistent lock state|suspicious RCU usage'
KERNEL_PROBLEMS+='|INFO: |KASAN:|UBSAN:|general protection fault|hung_task|blocked for more than'

# The serial console ends lines with CR LF.
text=$(tr -d '\r' <"$LOG")
failed=0

problems=$(grep -nE "$KERNEL_PROBLEMS" <<<"$text" || true)
if [[ -n $problems ]]; then
	echo "e2e-check: the kernel reported problems (line: text):" >&2
	head -n 40 <<<"$problems" | sed 's/^/  /' >&2
	failed=1
fi

if ! grep -q '^guest: platform driver mtk_sd_rust registered' <<<"$text"; then
	echo "e2e-check: mtk_sd_rust did not register with the platform bus" >&2
	failed=1
fi

# On the simulated board, both kinds of card must have come up through the driver.
if grep -qE '^e2e: fio-.*target disks' <<<"$text"; then
	for type in MMC SD; do
		grep -qE "^e2e:   mmc[0-9]+: card .* type=$type " <<<"$text" || {
			echo "e2e-check: no $type card was initialised" >&2
			failed=1
		}
	done
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
grep -E '^e2e: (PASS|fio jobs took)' <<<"$text" || true
echo "e2e-check: PASS ($(grep -c '^e2e: PASS' <<<"$text") fio jobs); log: $LOG"
