# SPDX-License-Identifier: GPL-2.0
# Shared settings for the build and test scripts: where the caches live, which
# toolchain the kernel is built with, and the lock that serialises kernel builds.
# Sourced, not run.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MSDC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/msdc-rust}
TOOLS=$CACHE/tools

# The kernel we build against: Debian's source package of the 7.3 series.
KERNEL_PACKAGE=linux-source-7.3
KERNEL_SUITE=trixie-backports

BINDGEN_VERSION=0.72.1
MUTANTS_VERSION=27.1.0

# dt-schema for scripts/dt-check.sh (Linux 7.3's bindings need 2024.4 or later),
# installed by setup.sh into a venv under the cache with the versions of its
# requirements pinned beside it. libfdt is Debian's python3-libfdt, not PyPI's
# pylibfdt (no wheel there: it would need swig and a compiler).
DTSCHEMA_VERSION=2026.9
DTSCHEMA_REQUIREMENTS=(ruamel.yaml==0.19.1 jsonschema==4.26.0 rfc3987==1.3.8
                       referencing==0.37.0 jsonschema-specifications==2025.9.1
                       rpds-py==2026.9.1 attrs==26.1.0 typing_extensions==4.16.0)
DTSCHEMA_VENV=$TOOLS/dtschema

# The arm64 guest's userland (busybox, fio and the libraries they link): Debian's
# arm64 packages of this machine's own release, unpacked by setup.sh.
USERLAND_ARM64=$CACHE/userland-arm64
USERLAND_PACKAGES=(busybox-static fio)

# Kernel Rust needs Debian's rustc-web (1.96) and its library sources; the rustup
# toolchain on the PATH has no rust-src, so every kernel make names the tools.
KMAKE_VARS=(LLVM=-19 RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
            RUSTFMT=/usr/bin/rustfmt CLIPPY_DRIVER=/usr/bin/clippy-driver
            BINDGEN="$TOOLS/bin/bindgen" HOSTRUSTC=/usr/bin/rustc)
JOBS=$(nproc)

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The unpacked kernel tree, once setup.sh has made it ready.
# The head of a gnuplot script for a clustered bar chart, 1400x700 PNG: output, title.
histogram_chart() {
	cat <<EOF
set terminal pngcairo size 1400,700 noenhanced
set output '$1'
set title '$2'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
EOF
}

kernel_src() {
	local ready=$CACHE/$KERNEL_PACKAGE.ready
	[[ -s $ready ]] || die "kernel source not set up: run scripts/setup.sh"
	echo "$CACHE/$(cat "$ready")"
}

# Object tree for one kernel configuration, keyed by kernel version and config name.
obj_dir() { echo "$CACHE/obj/$(basename "$(kernel_src)")-$1"; }

# Run "$@" holding the named lock, so concurrent runs (a developer's and a helper's,
# or make test and make run) never build in the same object tree at once.
with_lock() {
	local name=$1; shift
	mkdir -p "$CACHE/locks"
	(
		flock 9
		"$@"
	) 9>"$CACHE/locks/$name"
}

# Headers the kernel prints for the problems a test or measurement run must not have
# (scripts/e2e-check.sh, scripts/perf.sh). "INFO: " starts lockdep's, RCU stall and
# hung-task reports.
KERNEL_PROBLEMS='WARNING:|BUG:|Oops|[Kk]ernel panic|Call Trace:|possible circular locking'
KERNEL_PROBLEMS+='|possible recursive locking|inconsistent lock state|suspicious RCU usage'
KERNEL_PROBLEMS+='|INFO: |KASAN:|UBSAN:|general protection fault|hung_task|blocked for more than'
# Power management, in Linux 7.3's words: a device's system sleep callback failed
# (drivers/base/power/main.c prefixes its device messages with "PM: "), a sleep
# was aborted (kernel/power/suspend.c, process.c), the device PM watchdog fired,
# the runtime PM core caught an imbalance (runtime.c), or a power domain stays on
# for a device's sake (drivers/pmdomain/core.c).
KERNEL_PROBLEMS+='|PM: failed to |PM: dpm_run_callback\(\)|PM: Some devices failed to suspend'
KERNEL_PROBLEMS+='|PM: (late|noirq) suspend of devices failed|PM: Freezing .* (failed|aborted) after'
KERNEL_PROBLEMS+='|DPM device timeout|Runtime PM usage count underflow|Unbalanced pm_runtime_enable'
KERNEL_PROBLEMS+='|runtime PM trying to activate child|Enabling runtime PM for inactive device'
KERNEL_PROBLEMS+='|PM domain .* will not be powered off'

# Lines that mean data did not get through, in Linux 7.3's and the driver's words:
# the block layer failed a request (blk_print_req_error: "I/O error, dev mmcblkN",
# "timeout error, dev ..."; fs/buffer.c), the MMC block driver's recovery or reset
# failed (core/block.c, core/core.c), a card stayed busy (core/mmc_ops.c), a
# tuning failed (core/core.c), and the driver's own give-ups: a request its watchdog
# aborted, a hardware wait that ran out (drivers/mmc/host/mtk_sd_rust/host.rs). scripts/e2e-check.sh fails
# on them except in a fault cell that expects them.
DATA_LOSS=' error, dev mmcblk|Buffer I/O error on dev|: recovery failed!|Card stuck being busy'
DATA_LOSS+='|tuning execution failed|tried to (HW|SW) reset card, got error|mmc_erase: .*error'
DATA_LOSS+='|did not complete in [0-9]+ ms; controller reset|controller fault: '
