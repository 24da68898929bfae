#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The charts of our driver against upstream's C driver from make perf's CSVs
# (scripts/perf.sh calls it; it can be run again on a saved run):
#   <out>-driver.png        IOPS by disk, mode and job: ours (its Rust engines, or one
#                           request at a time) and upstream's mtk-sd.c side by side, in
#                           two colours
#   <out>-driver-ratio.png  ours / upstream's per disk, mode and job: IOPS and, when the
#                           cost CSV is given, instructions per I/O (total and driver)
# Only the disk, mode and job pairs measured with both drivers are drawn; nothing is
# written when there is none.
#
# usage: scripts/perf-driver-chart.sh PERF_CSV OUT_PREFIX [COST_CSV]

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

CSV=${1:?usage: perf-driver-chart.sh PERF_CSV OUT_PREFIX [COST_CSV]}
PREFIX=${2:?usage: perf-driver-chart.sh PERF_CSV OUT_PREFIX [COST_CSV]}
COST_CSV=${3:-}
[[ -f $CSV ]] || die "no $CSV"
[[ -z $COST_CSV || -f $COST_CSV ]] || die "no $COST_CSV"

DAT=$PREFIX-driver.dat
RATIO_DAT=$PREFIX-driver-ratio.dat
PNG=$PREFIX-driver.png
RATIO_PNG=$PREFIX-driver-ratio.png

# One row per disk, mode and job measured with both drivers: the label, ours' and
# upstream's IOPS, and the ratios (NaN where the cost runs did not measure the pair).
# Ours is the Rust engines' row (engine rust, or none one at a time): the C-engine
# boots of our driver are another comparison.
awk -F, -v cost="$COST_CSV" '
BEGIN {
	if (cost != "") {
		while ((getline l < cost) > 0) {
			split(l, f, ",")
			if (f[1] == "disk") continue
			total[f[1] "/" f[2] "/" f[4], f[3]] = f[10]
			drv[f[1] "/" f[2] "/" f[4], f[3]] = f[5]
		}
	}
}
NR > 1 {
	key = $1 "/" $3 "/" $5
	if ($11 == "rust" && $4 != "c") ours[key] = $6
	else if ($11 == "c") theirs[key] = $6
	else next
	if (!(key in seen)) { seen[key] = 1; order[++n] = key }
}
function ratio(a, b) { return (a != "" && b != "" && b > 0) ? sprintf("%.4f", a / b) : "NaN" }
END {
	for (i = 1; i <= n; i++) {
		k = order[i]
		if (!(k in ours) || !(k in theirs)) continue
		printf "%s %s %s %s %s %s\n", k, ours[k], theirs[k], ratio(ours[k], theirs[k]),
			ratio(total[k, "rust"], total[k, "c"]), ratio(drv[k, "rust"], drv[k, "c"])
	}
}' "$CSV" >"$DAT.rows"
if [[ ! -s $DAT.rows ]]; then
	rm -f "$DAT.rows"
	log "perf: no disk, mode and job was measured with both drivers: no driver chart"
	exit 0
fi
{
	echo "pair ours upstream"
	awk '{ print $1, $2, $3 }' "$DAT.rows"
} >"$DAT"
{
	echo "pair iops total_insn driver_insn"
	awk '{ print $1, $4, $5, $6 }' "$DAT.rows"
} >"$RATIO_DAT"
rm -f "$DAT.rows"

gnuplot <<EOF || die "gnuplot could not draw $PNG"
$(histogram_chart "$PNG" 'mtk-sd-rust against upstream mtk-sd.c: IOPS by disk/mode/job (QEMU -icount)')
set logscale y
set ylabel 'IOPS'
set xtics rotate by 30 right
set key outside right
plot '$DAT' using 2:xtic(1) title 'ours (Rust)' linecolor rgb '#d95f02', \
	'' using 3 title 'upstream (C)' linecolor rgb '#1b9e77'
EOF

# The instruction ratios only where the cost runs measured them.
COST_SERIES=
if awk 'NR > 1 && $3 != "NaN" { found = 1 } END { exit !found }' "$RATIO_DAT"; then
	COST_SERIES=", '' using 3 title 'instructions per I/O' linecolor rgb '#e7298a',"
	COST_SERIES+=" '' using 4 title 'driver instructions per I/O' linecolor rgb '#66a61e'"
fi
# A logarithmic axis around 1 (at least 0.9 to 1.1), so that ratios far apart stay
# readable side by side.
RANGE=$(awk 'NR > 1 { for (i = 2; i <= 4; i++) if ($i != "NaN") { if (lo == "" || $i < lo) lo = $i; if (hi == "" || $i > hi) hi = $i } }
	END { lo = lo * 0.97; hi = hi * 1.03; if (lo > 0.9) lo = 0.9; if (hi < 1.1) hi = 1.1; printf "%.3f:%.3f", lo, hi }' "$RATIO_DAT")
gnuplot <<EOF || die "gnuplot could not draw $RATIO_PNG"
$(histogram_chart "$RATIO_PNG" 'mtk-sd-rust / upstream mtk-sd.c by disk/mode/job (1 = equal; QEMU -icount)')
set ylabel 'ours / upstream'
set logscale y
set yrange [$RANGE]
set xtics rotate by 30 right
set key outside right
set arrow from graph 0, first 1 to graph 1, first 1 nohead dashtype 2
plot '$RATIO_DAT' using 2:xtic(1) title 'IOPS' linecolor rgb '#7570b3'$COST_SERIES
EOF
log "perf: ours against upstream's: $PNG, ratios: $RATIO_PNG"
