#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make test: every check, timed, in three lanes side by side as the two cores allow:
#   host    cargo tests and lint (which need no set-up, so they run beside it), then
#           the device-tree check and the patch series' check once set-up is done;
#   x86_64  after set-up: the test kernel, the module and production builds, KUnit,
#           the end-to-end run, its negative checks and the perf smoke run;
#   arm64   after set-up: the same kernel builds and KUnit, and the end-to-end cases
#           that differ by architecture or need two vCPUs.
# The arm64 lane's kernel builds run at a lower priority, so that the x86_64 kernel,
# whose lane has the longer run after it, is built first when both compete. A lane
# stops at its first failed step; the others run on.
#
# Each step's output goes to the terminal prefixed with its lane. At the end, one
# line per step, `step: <name> <seconds> s` (FAILED or NOT RUN after it when so),
# the total, and `test: N passed, N failed` over the steps.
#
# usage: scripts/test.sh [LANE...]   (host, x86_64, arm64; default all three)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Each lane is a list of make targets run in order: the Makefile's targets of the
# same names are the steps, so a step can be rerun alone. Set-up is a lane of one.
declare -A LANES=(
	[setup]="setup"
	[host]="host-test lint dt-check patches-verify"
	[x86_64]="kernel module kunit e2e e2e-negative perf-smoke"
	[arm64]="kernel-arm64 module-arm64 kunit-arm64 e2e-arm64"
)
# The steps that need set-up's packages, tools and kernel tree; every step of the
# kernel lanes does.
AFTER_SETUP=" dt-check patches-verify "
# The steps that build a kernel tree at a lower priority.
NICE_STEPS=" kernel-arm64 module-arm64 "

ORDER=(host x86_64 arm64)
[[ $# -eq 0 ]] || ORDER=("$@")
for lane in "${ORDER[@]}"; do
	[[ $lane != setup && -n ${LANES[$lane]:-} ]] || die "unknown lane $lane (host, x86_64, arm64)"
done

# Each lane builds its kernel in its first step: the steps after it boot that build.
export E2E_NO_BUILD=1

TIMES=$(mktemp -d)
trap 'rm -rf "$TIMES"' EXIT

# Runs make target $2 as a step of lane $1, its output prefixed, and records
# "<name> <seconds> <status>" in the lane's times file.
step() {
	local lane=$1 name=$2 start=$SECONDS status=0 nice=()
	[[ $NICE_STEPS != *" $name "* ]] || nice=(nice -n 10)
	"${nice[@]}" make --no-print-directory -C "$REPO" "$name" 2>&1 |
		sed -u "s/^/[$lane] /" || status=$?
	echo "$name $((SECONDS - start)) $status" >>"$TIMES/$lane"
	echo "[$lane] step: $name $((SECONDS - start)) s$([[ $status -eq 0 ]] || echo " FAILED")"
	return "$status"
}

# Set-up's outcome, once it is known: 0 if it passed, 1 if it failed or its lane
# ended without a word.
setup_passed() {
	while [[ ! -s $TIMES/setup ]]; do
		kill -0 "$SETUP_PID" 2>/dev/null || [[ -s $TIMES/setup ]] || return 1
		sleep 2
	done
	[[ $(cut -d' ' -f3 "$TIMES/setup") -eq 0 ]]
}

run_lane() {
	local lane=$1 name
	for name in ${LANES[$lane]}; do
		case $lane in
		setup) ;;
		host) [[ $AFTER_SETUP != *" $name "* ]] || setup_passed || return 1 ;;
		*) setup_passed || return 1 ;;
		esac
		step "$lane" "$name" || return 1
	done
}

start=$SECONDS
run_lane setup &
SETUP_PID=$!
pids=("$SETUP_PID")
for lane in "${ORDER[@]}"; do
	run_lane "$lane" &
	pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || true; done

# The summary: every step of every lane, in lane order, the ones a failure kept
# from running included.
passed=0 failed=0
echo
for lane in setup "${ORDER[@]}"; do
	for name in ${LANES[$lane]}; do
		line=$(awk -v n="$name" '$1 == n' "$TIMES/$lane" 2>/dev/null || true)
		if [[ -z $line ]]; then
			echo "step: $name - s NOT RUN"
			failed=$((failed + 1))
		elif [[ ${line##* } -eq 0 ]]; then
			echo "step: $name $(cut -d' ' -f2 <<<"$line") s"
			passed=$((passed + 1))
		else
			echo "step: $name $(cut -d' ' -f2 <<<"$line") s FAILED"
			failed=$((failed + 1))
		fi
	done
done
echo "step: total $((SECONDS - start)) s"
echo "test: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
