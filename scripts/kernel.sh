#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds the kernel for one architecture with the driver built in and the KUnit
# suites enabled, then the same driver sources as an out-of-tree module with clippy.
# One object tree per architecture serves both, cached outside the checkout.
#
# usage: scripts/kernel.sh x86_64|arm64 [builtin|module|ko|all|perf]
#   module: the module build and the production build check; ko: the module only
#   (scripts/run.sh, whose guest loads it)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ARCH=${1:?usage: kernel.sh x86_64|arm64 [builtin|module|ko|all|perf]}
WHAT=${2:-all}
case $ARCH in x86_64 | arm64) ;; *) die "unknown architecture $ARCH" ;; esac

KSRC=$(kernel_src)
# The test kernel (KUnit, KASAN, lockdep) and, for `perf`, the performance kernel:
# the same driver and simulated board without debug options, in its own tree.
FLAVOUR=kunit
[[ $WHAT != perf ]] || FLAVOUR=perf
OBJ=$(obj_dir "$FLAVOUR-$ARCH")
# The tree builds whichever checkout its mtk_rust link points at (setup aims it).
[[ $(readlink "$KSRC/drivers/mmc/host/mtk_rust") == "$REPO" ]] ||
	die "the kernel tree builds another checkout ($(readlink "$KSRC/drivers/mmc/host/mtk_rust")): run make setup"

# Built in (=y), configured by kunit.py from the project's kunitconfig fragments;
# kunit.py also checks that every requested option survived olddefconfig.
build_builtin() {
	log "kernel $ARCH: building with the driver built in ($OBJ)"
	mkdir -p "$OBJ"
	local opts=() v
	for v in "${KMAKE_VARS[@]}"; do opts+=("--make_options=$v"); done
	(cd "$KSRC" && python3 tools/testing/kunit/kunit.py build --arch "$ARCH" \
		--build_dir "$OBJ" --jobs "$JOBS" \
		--kunitconfig "$REPO/kunit/.kunitconfig" \
		--kunitconfig "$REPO/kunit/$CONFIG_FRAGMENT" \
		"${opts[@]}") >"$OBJ.build.log" 2>&1 || {
		grep -E -B2 -A12 'error(\[E[0-9]+\])?:|warning:|Error [0-9]|ERROR:|is not in the final' \
			"$OBJ.build.log" | head -n 150 >&2
		die "kernel $ARCH build failed; full log: $OBJ.build.log"
	}
}

# Loadable module (=m) built out of tree against the same object tree, with clippy
# as the compiler driver. Objects go to their own folder (MO=), never the checkout.
build_module() {
	local out=$CACHE/module-$(basename "$OBJ")
	log "kernel $ARCH: building mtk_sd_rust.ko out of tree with CLIPPY=1 ($out)"
	[[ -f $OBJ/Module.symvers ]] || die "build the $ARCH kernel first (scripts/kernel.sh $ARCH builtin)"
	mkdir -p "$out"
	make -s -C "$OBJ" ARCH="$ARCH" "${KMAKE_VARS[@]}" -j"$JOBS" CLIPPY=1 \
		M="$REPO" MO="$out" CONFIG_MMC_MTK_RUST=m modules >"$out.log" 2>&1 || {
		cat "$out.log" >&2
		die "out-of-tree module build failed for $ARCH"
	}
	# Clippy findings are warnings that -Dwarnings turned into errors above; an
	# unreadable module would mean the build silently produced nothing.
	local ko=$out/drivers/mmc/host/mtk_sd_rust/mtk_sd_rust.ko
	[[ -s $ko ]] || die "no module produced at $ko"
	modinfo_alias=$("$LLVM_READELF" -p .modinfo "$ko" 2>/dev/null | grep -c 'alias=of:' || true)
	[[ $modinfo_alias -ge 14 ]] ||
		die "$ko carries $modinfo_alias OF aliases, expected one per compatible (14)"
	log "kernel $ARCH: $(basename "$ko") built, $modinfo_alias OF aliases"
}

# The driver as a production kernel builds it: the same rustc command kbuild just ran,
# with the KUnit, simulated-board and C-engine options removed from the configuration cfgs. It must compile clean
# (no dead code once the suites are gone) and carry no simulation code.
check_production_build() {
	local out=$CACHE/module-$(basename "$OBJ") prod=$CACHE/production-$(basename "$OBJ")
	local cmdfile=$out/drivers/mmc/host/mtk_sd_rust/.mtk_sd_rust.o.cmd cfgs=$OBJ/include/generated/rustc_cfg
	[[ -f $cmdfile ]] || die "no $cmdfile: build the module first"
	mkdir -p "$prod"
	grep -v -e 'CONFIG_MMC_MTK_RUST_KUNIT_TEST' -e 'CONFIG_MMC_MTK_RUST_SIM' \
		-e 'CONFIG_MMC_MTK_RUST_C_ENGINES' "$cfgs" >"$prod/rustc_cfg"
	local cmd
	cmd=$(sed -n 's/^savedcmd_drivers\/mmc\/host\/mtk_sd_rust\/mtk_sd_rust.o := //p' "$cmdfile")
	cmd=${cmd%%;*}
	cmd=${cmd//@$cfgs/@$prod/rustc_cfg}
	cmd=$(sed -E "s#--out-dir [^ ]+#--out-dir $prod#; s#--emit=dep-info=[^ ]+#--emit=dep-info=$prod/mtk_sd_rust.d#; s#--emit=obj=[^ ]+#--emit=obj=$prod/mtk_sd_rust.o#" <<<"$cmd")
	[[ $cmd == *"$prod/rustc_cfg"* && $cmd == *"--emit=obj=$prod/"* ]] ||
		die "could not derive the production rustc command from $cmdfile"
	log "kernel $ARCH: driver without KUnit suites (production configuration)"
	(cd "$out" && RUSTC_BOOTSTRAP=1 MTK_SD_RUST_MMC_BINDINGS="$out/drivers/mmc/host/mtk_sd_rust/mmc_bindings_generated.rs" \
		bash -c "$cmd") || die "the driver does not build without its KUnit suites ($ARCH)"
	if llvm-nm-19 "$prod/mtk_sd_rust.o" | grep -qE '(models|simboard|scenarios)[0-9]'; then
		die "simulation or scenario code is linked into the production driver ($ARCH)"
	fi
}

LLVM_READELF=llvm-readelf-19

CONFIG_FRAGMENT=$ARCH.kunitconfig
[[ $FLAVOUR != perf ]] || CONFIG_FRAGMENT=perf-$ARCH.kunitconfig
[[ -f $REPO/kunit/$CONFIG_FRAGMENT ]] || die "no kunit/$CONFIG_FRAGMENT for a $FLAVOUR kernel on $ARCH"

case $WHAT in
perf) with_lock "perf-$ARCH" build_builtin ;;
builtin) with_lock "kunit-$ARCH" build_builtin ;;
module) with_lock "kunit-$ARCH" build_module && with_lock "kunit-$ARCH" check_production_build ;;
ko) with_lock "kunit-$ARCH" build_module ;;
all)
	with_lock "kunit-$ARCH" build_builtin
	with_lock "kunit-$ARCH" build_module
	with_lock "kunit-$ARCH" check_production_build
	;;
*) die "unknown target $WHAT" ;;
esac
