#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fuzzing of the hsq and cqhci engines and of the MSDC interrupt decoding and request
# engine: each crate's proptest target `tests/fuzz` (hostile register values and event
# orders against a shadow of every request), built in release mode and run against a time
# budget split evenly across the targets. Prints each target's summary line and the total;
# the figures in the crates' READMEs ("Fuzzing") come from this command.
#
# usage: scripts/fuzz.sh [crate...]   (default: hsq cqhci msdc)
# env:   FUZZ_SECONDS  total budget in seconds (default 120)
#        FUZZ_SEED     seed of every target (default: from the clock; printed)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cd "$REPO"
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(hsq cqhci msdc)
total=${FUZZ_SECONDS:-120}
share=$(awk -v t="$total" -v n="${#targets[@]}" 'BEGIN { printf "%.1f", t / n }')

# Build first, so the budget is spent fuzzing rather than compiling.
for crate in "${targets[@]}"; do
	cargo test --release --locked -p "$crate" --test fuzz --no-run --quiet
done

sum=0
for crate in "${targets[@]}"; do
	log "fuzz $crate for ${share} s"
	out=$(FUZZ_SECONDS=$share cargo test --release --locked -p "$crate" --test fuzz --quiet \
		-- --nocapture 2>&1) || {
		printf '%s\n' "$out"
		log "fuzz $crate: FAILED"
		exit 1
	}
	line=$(grep '^fuzz: ' <<<"$out" | tail -n 1)
	printf '%s\n' "$line"
	sum=$((sum + $(sed -n 's/.* events=\([0-9]*\).*/\1/p' <<<"$line")))
done
echo "fuzz: total events=$sum seconds=$total commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
