# SPDX-License-Identifier: GPL-2.0
#
# The user's entry point. `make run` and `make test` are the two commands the
# README starts with; the other targets are their parts. Kernel builds are cached
# under ~/.cache/msdc-rust (MSDC_CACHE overrides), so warm runs rebuild only what
# changed. This file is for people; kbuild reads Kbuild instead.

SCRIPTS := scripts
CARGO ?= cargo

.PHONY: run test setup host-test lint fmt-check clippy dt-check kernel kernel-arm64 module \
	module-arm64 kunit kunit-arm64 e2e e2e-arm64 e2e-negative stress fuzz perf perf-smoke bench \
	perf-cost perf-wake insncount-cal patches patches-verify patches-check \
	mutants help

help:
	@echo "make run        boot the x86_64 kernel with the driver in QEMU"
	@echo "make test       every check (scripts/test.sh), timed per step: set-up, then"
	@echo "                side by side the host lane (cargo tests, lint, device trees),"
	@echo "                the x86_64 lane and the arm64 lane (kernels built in and as"
	@echo "                modules, KUnit, end-to-end runs)"
	@echo "make host-test  cargo test of the workspace"
	@echo "make lint       rustfmt and clippy, host crates and kernel crate"
	@echo "make dt-check   dts/ compiled with dtc and validated with dt-schema against the"
	@echo "                kernel's mtk-sd.yaml binding, plus a self-test of broken trees"
	@echo "make kunit      KUnit on x86_64 (kunit-arm64 for arm64); KUNIT_BOOTS=N boots"
	@echo "                N times in a row"
	@echo "make e2e        short end-to-end run: fio write+verify on the MMC disks in QEMU,"
	@echo "                the power phase, the short fault matrix, re-tuning, unbind/bind,"
	@echo "                card removal and module reloads"
	@echo "make e2e-arm64  what differs by architecture or needs two vCPUs, on the arm64"
	@echo "                kernel under qemu-system-aarch64 with two vCPUs"
	@echo "make e2e-negative  the end-to-end check must fail edited logs of make e2e"
	@echo "make stress     the end-to-end run with the whole fault matrix (every disk, ten"
	@echo "                faults a cell, lost interrupts), 100 unbind/bind cycles a slot"
	@echo "                and 100 module unload/reload cycles, then every case on arm64"
	@echo "make perf       performance kernel under QEMU -icount: fio figures per disk,"
	@echo "                queue mode and job, as lines, CSV and a chart (asserts no speed)"
	@echo "make perf-smoke the perf harness on the x86_64 test kernel: it runs, no figures"
	@echo "make perf-cost  make perf with each job's exact cost: instructions per I/O by"
	@echo "                component, counted by the QEMU plugin insncount/"
	@echo "make perf-wake  the HSQ gain's sensitivity to the board's host wake-up cost"
	@echo "                (0, 20 and 95 us) on the eMMC and MicroSD disks"
	@echo "make insncount-cal  insncount's calibration: a known user-space loop recovered"
	@echo "make bench      host benchmarks (hsq, cqhci)"
	@echo "make mutants    mutation testing of hsq and cqhci"
	@echo "make fuzz       hsq, cqhci and the MSDC interrupt decoding under proptest with"
	@echo "                hostile registers and event orders (FUZZ_SECONDS, default 120)"
	@echo "make patches    the driver as a patch series against Linux 7.3, with a cover"
	@echo "                letter, in out/patches (PATCHES_DIR overrides; docs/patches.md)"
	@echo "make patches-verify  the series applied with git am must give the checkout's"
	@echo "                files; checkpatch, codespell, rustfmt; the ChromeOS fragment"
	@echo "make patches-check   each prefix of the series built in a 7.3 tree (CLIPPY=1,"
	@echo "                CONFIG_WERROR), then vmlinux linked (PATCHES_JOBS sets -j)"
	@echo
	@echo "The steps of make test build what they boot only when run alone; make test"
	@echo "builds each kernel once, first in its lane."

run: setup
	$(SCRIPTS)/run.sh full

test:
	$(SCRIPTS)/test.sh

setup:
	$(SCRIPTS)/setup.sh

host-test:
	$(CARGO) test --workspace --locked

lint: fmt-check clippy

fmt-check:
	$(CARGO) fmt --all --check
	rustfmt --check --edition 2021 --config-path .rustfmt.toml \
		drivers/mmc/host/mtk_sd_rust/mtk_sd_rust.rs simboard/mtk_sd_rust_sim.rs kunit/*.rs

clippy:
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

# The board fragments and the simulated board's overlay against the binding
# (scripts/dt-check.sh); needs setup's dtschema venv and kernel tree.
dt-check:
	$(SCRIPTS)/dt-check.sh

kernel:
	$(SCRIPTS)/kernel.sh x86_64 builtin

kernel-arm64:
	$(SCRIPTS)/kernel.sh arm64 builtin

# Out-of-tree module builds run clippy over the kernel crate (CLIPPY=1, -Dwarnings),
# against the kernel tree of make kernel / make kernel-arm64.
module:
	$(SCRIPTS)/kernel.sh x86_64 module

module-arm64:
	$(SCRIPTS)/kernel.sh arm64 module

kunit:
	$(SCRIPTS)/kunit.sh x86_64

kunit-arm64:
	$(SCRIPTS)/kunit.sh arm64

# make run's boot with 2 MiB instead of 16 MiB per fio job (scripts/run.sh).
e2e:
	$(SCRIPTS)/run.sh short

# The Chromebook architecture, on QEMU's arm64 virt machine with two vCPUs: what
# differs by architecture (the virt machine's interrupt path, suspend to idle) or
# needs two CPUs (the interrupt handler, the issuing threads and an unbind racing
# for real): the board's cards, the fio jobs, the power and queue cases and unbind/bind
# (scripts/e2e/tests groups). The x86_64 test kernel is uniprocessor (TODO[UP-KERNEL]).
e2e-arm64:
	E2E_SMP=2 E2E_CASES=$(ARM64_CASES) $(SCRIPTS)/run.sh short arm64

ARM64_CASES := board,jobs,power,queue,lifecycle

# Not part of make test: the short run's boot with the whole fault matrix, a hundred
# unbind/bind cycles per slot and a hundred module unload/reload cycles under load
# (KASAN and lockdep on), its own log; then every case on the arm64 kernel with two
# vCPUs. docs/testing.md has its time.
stress:
	E2E_MATRIX=full RUN_TIMEOUT=12600 $(SCRIPTS)/run.sh short
	E2E_SMP=2 RUN_TIMEOUT=3600 $(SCRIPTS)/run.sh short arm64

# Reads make e2e's log: edited, it must fail the check.
e2e-negative:
	$(SCRIPTS)/e2e-negative.sh

# Not a test: measurements (scripts/perf.sh). make test runs the smoke mode on the
# test kernel, one short job per disk and engine, so that the harness cannot rot.
perf: setup
	$(SCRIPTS)/perf.sh full

perf-smoke:
	$(SCRIPTS)/perf.sh smoke

perf-cost: setup
	PERF_COST=1 $(SCRIPTS)/perf.sh full

perf-wake: setup
	$(SCRIPTS)/perf.sh wake

# insncount's calibration on the x86_64 test kernel (scripts/insncount.sh).
insncount-cal:
	$(SCRIPTS)/insncount.sh calibrate

bench:
	$(CARGO) bench --workspace --locked

mutants:
	$(SCRIPTS)/mutants.sh

# Not part of make test (whose cargo test runs the same fuzz targets briefly): release
# builds for a time budget, FUZZ_SECONDS split across the targets (scripts/fuzz.sh).
fuzz:
	$(SCRIPTS)/fuzz.sh

# The patch series against Linux 7.3 (scripts/patches.sh, docs/patches.md).
PATCHES_DIR ?= out/patches

patches: setup
	$(SCRIPTS)/patches.sh $(PATCHES_DIR)

# A step of make test (seconds): the series applies to the pristine 7.3 files and gives
# this checkout's files, passes checkpatch and rustfmt, and the ChromeOS config fragment
# merges into arm64's defconfig. Needs setup's kernel tree.
patches-verify:
	$(SCRIPTS)/patches.sh verify

# Not part of make test: each prefix of the series applied to a copy of the 7.3 tree
# and built (arm64 allnoconfig with the driver, CLIPPY=1, CONFIG_WERROR), then
# checkpatch.pl --codespell and vmlinux linked: one kernel build cold, minutes warm
# (PATCHES_JOBS sets -j).
patches-check: setup
	$(SCRIPTS)/patches.sh bisect
