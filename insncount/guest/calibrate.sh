#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# /insncal of the QEMU guest (rdinit=/insncal, scripts/insncount.sh calibrate):
# insncount's calibration. Each window is a snapshot of the plugin's counters
# (/bin/insnmark), then `insncal N` (2 * N instructions of a known loop), then
# another snapshot; the windows alternate between two loop lengths, so that the
# host can difference them: the user bucket must grow by 2 * (N2 - N1).
#   insncal_n=N1,N2   the two loop lengths (default 10000000,20000000)
#   insncal_reps=R    windows of each length (default 3)
# Prints `insncal: window <index> n=<N>` after each window, then powers off.

/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t proc proc /proc

param() {
	local v
	v=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1)
	echo "${v:-$2}"
}

NS=$(param insncal_n 10000000,20000000 | tr ',' ' ')
REPS=$(param insncal_reps 3)
i=0
rep=0
while [ "$rep" -lt "$REPS" ]; do
	for n in $NS; do
		insnmark
		insncal "$n"
		insnmark
		echo "insncal: window $i n=$n"
		i=$((i + 1))
	done
	rep=$((rep + 1))
done
echo "insncal: done"
poweroff -f
