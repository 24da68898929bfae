#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Sets the fault cells of two end-to-end runs side by side: one of the Rust driver and
# one of upstream's C driver (E2E_DRIVER=c) on the same board, each with the fault
# matrix, re-tuning, unbind/bind and card removal cases. One line per cell, in the
# order of the Rust run:
#
#   fault-vs: <cell> <mode>/<slot> rust=<verdict> c=<verdict>
#
# <cell> is a fault of the matrix, card_removal, retune or lifecycle; <slot> the card
# of the cell's slot (MMC, SD) from the run's report of its disks, or the register
# window for unbind/bind; <verdict> is
# "recovered" ("passed" for re-tuning and unbind/bind) or "failed", then in brackets the faults recovered of those injected,
# what fell short (io_errors, verify_failures, hung, fio_error: fio's first error
# number) and the cell's time (t=<s>: the cell's verified job, faults and recoveries
# included; for a removal the time until the disk was gone and back; for unbind/bind
# its slowest unbind and bind), or "none" when the run has no such cell. The lines
# only report: what each run's cases judged is in its own log (the C driver's cells
# are recorded there as observations, not judged).
#
# The short matrix takes the first disk of each mode by name, which follows the probe
# order and so the driver: msdc_e2e_matrix_windows= (E2E_CMDLINE) puts the same slots
# first in both runs, and cells of different slots show as separate lines. Several
# runs of one driver may be concatenated into one log.
#
# usage: scripts/fault-vs.sh RUST.log C.log

set -euo pipefail

RUST=${1:?usage: fault-vs.sh RUST.log C.log}
C=${2:?usage: fault-vs.sh RUST.log C.log}
for f in "$RUST" "$C"; do
	[[ -r $f ]] || { echo "error: no log $f" >&2; exit 1; }
done

# "<cell> <mode>\t<verdict>" per cell of log $1 (logs of several runs of one driver
# may be concatenated: each run's report of its disks comes before its cells).
cells() {
	tr -d '\r' <"$1" | awk '
	function kv(line, key,   m) {
		if (match(line, " " key "=[^ ,]*")) {
			m = substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
			return m
		}
		return ""
	}
	function verdict(cell, ok, detail) {
		return (ok ? (cell ~ /^(retune|lifecycle) / ? "passed" : "recovered") : "failed") "[" detail "]"
	}
	function add(cell, ok, detail) {
		if (!(cell in det)) order[++n] = cell
		okc[cell] = ok; det[cell] = detail
	}
	# The runner report: each host card type, each disk host.
	/^e2e:   mmc[0-9]+: card / { h = $2; sub(/:$/, "", h); type[h] = kv($0, "type"); next }
	/^e2e:   mmc[0-9]+: disk mmcblk[0-9]+ / { h = $2; sub(/:$/, "", h); dtype[$4] = type[h]; next }
	# A fault cell line; its disk, and so the card, come in the indented line after it.
	/^fault: [a-z_]+ [a-z]+ injected=/ {
		pf = $2; pm = $3
		inj = kv($0, "injected"); rec = kv($0, "recovered"); io = kv($0, "io_errors")
		ver = kv($0, "verify_failures"); hung = kv($0, "hung")
		pok = inj > 0 && rec == inj && ver == 0 && hung == 0 && ($2 == "card_removal" || io == 0)
		pd = rec "/" inj
		if (io > 0) pd = pd ",io_errors=" io
		if (ver > 0) pd = pd ",verify_failures=" ver
		if (hung > 0) pd = pd ",hung=" hung
		if ($2 == "card_removal") pd = pd ",t=" removal_t
		next
	}
	pf != "" && $1 == "fault:" && $2 == pf && $3 == pm && $4 == "on" {
		d = $5; cell = pf " " pm "/" (d in dtype ? dtype[d] : "?")
		if ($0 ~ / took=[0-9]+ s, fio exit=/) {
			t = $0; sub(/.*took=/, "", t); sub(/ s,.*/, "", t)
			e = $0; sub(/.* error=/, "", e); sub(/,.*/, "", e)
			if (e != "0" && e != "none") pd = pd ",fio_error=" e
			pd = pd ",t=" t "s"
		}
		add(cell, pok, pd); pf = ""
		next
	}
	/^e2e: removal [0-9a-f]+ [a-z]+ gone_ms=/ {
		removal_t = sprintf("%.1fs+%.1fs", kv($0, "gone_ms") / 1000, kv($0, "back_ms") / 1000)
		next
	}
	/^e2e: retune mmc[0-9]+ sdr104 / {
		rcell = "retune sdr104/SD"
		add(rcell, $NF == "passed", "drift=" kv($0, "drift") ",tunings=" kv($0, "tunings"))
		next
	}
	# The board figures, as the case judges them: the drift reached the sample point,
	# tuning commands went out, and the check job after them misread nothing.
	/^e2e:   retune mmc[0-9]+ board: tuning_commands=/ {
		det[rcell] = det[rcell] ",sampling_errors=" kv($0, "sampling_errors") \
			",tuning_commands=" kv($0, "tuning_commands") \
			",check_sampling_errors=" kv($0, "check_sampling_errors") ",check_job=" kv($0, "check_job")
		if (kv($0, "check_job") != "passed" || kv($0, "check_sampling_errors") != "+0" ||
			kv($0, "sampling_errors") == "+0" || kv($0, "tuning_commands") == "+0")
			okc[rcell] = 0
		next
	}
	/^e2e:   retune mmc[0-9]+ board: sample point before / {
		p = $0; sub(/.*sample point before /, "", p); gsub(/, after /, "->", p); gsub(/ /, ";", p)
		det[rcell] = det[rcell] ",point=" p
		next
	}
	/^e2e: lifecycle [0-9a-f]+ [a-z]+ cycles=/ {
		add("lifecycle " $4 "/" $3, $NF == "passed", "cycles=" kv($0, "cycles") ",t=" \
			sprintf("%.1fs/%.1fs", kv($0, "unbind_max_ms") / 1000, kv($0, "bind_max_ms") / 1000))
		next
	}
	END {
		for (i = 1; i <= n; i++) print order[i] "\t" verdict(order[i], okc[order[i]], det[order[i]])
	}'
}

rust=$(cells "$RUST")
c=$(cells "$C")
[[ -n $rust$c ]] || { echo "error: no fault cells in either log" >&2; exit 1; }
# The Rust run's cells in its order, then any the C run has alone.
{
	cut -f1 <<<"$rust"
	cut -f1 <<<"$c"
} | awk 'NF && !seen[$0]++' | while IFS= read -r cell; do
	r=$(awk -F'\t' -v k="$cell" '$1 == k { print $2 }' <<<"$rust")
	v=$(awk -F'\t' -v k="$cell" '$1 == k { print $2 }' <<<"$c")
	echo "fault-vs: $cell rust=${r:-none} c=${v:-none}"
done
