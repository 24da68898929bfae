#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Mutation testing of the engine crates with cargo-mutants (pinned, installed
# under the cache). Prints cargo-mutants' own summary for each crate; the figures
# recorded in each crate's README come from this command.
#
# usage: scripts/mutants.sh [crate...]   (default: hsq cqhci)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! [[ -x $TOOLS/bin/cargo-mutants ]] ||
	! "$TOOLS/bin/cargo-mutants" mutants --version | grep -qF "$MUTANTS_VERSION"; then
	log "installing cargo-mutants $MUTANTS_VERSION"
	cargo install --quiet --locked --root "$TOOLS" "cargo-mutants@$MUTANTS_VERSION"
fi

cd "$REPO"
crates=("$@")
[[ ${#crates[@]} -gt 0 ]] || crates=(hsq cqhci)
for crate in "${crates[@]}"; do
	log "cargo mutants -p $crate"
	config=()
	[[ -f $crate/mutants.toml ]] && config=(--config "$crate/mutants.toml")
	"$TOOLS/bin/cargo-mutants" mutants --package "$crate" "${config[@]}" --jobs 2 --timeout 180 \
		--output "$CACHE/mutants-$crate" --no-shuffle ||
		log "$crate: some mutants were missed (see $CACHE/mutants-$crate/mutants.out)"
done
