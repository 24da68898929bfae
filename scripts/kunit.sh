#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boots the KUnit kernel of one architecture in QEMU under TCG and checks the
# results: every test passed, the kernel did not crash, and every suite that the
# project defines (kunit/*.rs) reported. Builds the kernel first if needed.
#
# The suites run alone: the simulated board, which the same kernel carries for the
# end-to-end run, is kept from starting (initcall_blacklist), so that no card
# initialisation, SDIO self-test or other probe-time line can land inside the KTAP
# output that kunit.py parses.
#
# usage: scripts/kunit.sh x86_64|arm64
#
# environment:
#   KUNIT_BOOTS=N   boot N times in a row, each parsed and checked on its own (1):
#                   the flake check of the KTAP output
#   E2E_NO_BUILD=1  boot the cached kernel as it is (make test builds it first)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ARCH=${1:?usage: kunit.sh x86_64|arm64}
KSRC=$(kernel_src)
OBJ=$(obj_dir "kunit-$ARCH")
LOG=$OBJ.kunit.log
TIMEOUT=${KUNIT_TIMEOUT:-900}
BOOTS=${KUNIT_BOOTS:-1}
[[ $BOOTS =~ ^[1-9][0-9]*$ ]] || die "KUNIT_BOOTS=$BOOTS is not a count of boots"
# The board's initcall (the module! macro's __<name>_init of simboard/mtk_sd_rust_sim.rs).
BOARD_INITCALL=__mtk_sd_rust_sim_init

[[ ${E2E_NO_BUILD:-0} == 1 ]] || "$REPO/scripts/kernel.sh" "$ARCH" builtin

# kunit.py would ask QEMU for KVM first, and /dev/kvm can exist yet hang the boot
# here, so QEMU is started by hand with TCG only and kunit.py only parses. The
# guest reboots when the tests are done, which -no-reboot turns into an exit.
boot() {
	local cmdline="kunit.enable=1 kunit_shutdown=reboot panic=-1 oops=panic"
	cmdline+=" initcall_blacklist=$BOARD_INITCALL"
	local qemu
	case $ARCH in
	x86_64)
		qemu=(qemu-system-x86_64 -accel tcg -cpu max -kernel "$OBJ/arch/x86/boot/bzImage"
		      -append "console=ttyS0 $cmdline")
		;;
	arm64)
		qemu=(qemu-system-aarch64 -accel tcg -machine virt -cpu max
		      -kernel "$OBJ/arch/arm64/boot/Image.gz" -append "console=ttyAMA0 $cmdline")
		;;
	esac
	timeout "$TIMEOUT" "${qemu[@]}" -smp 1 -m 1024 -nodefaults -display none -no-reboot \
		-serial stdio </dev/null >"$LOG" 2>&1 || log "QEMU exited with status $? (checked below)"
}

# Checks the boot whose console is in $LOG; returns non-zero if anything failed.
check() {
	local failed=0 parsed summary suite passed fails
	# The serial console ends lines with CR LF.
	parsed=$(cd "$KSRC" && python3 tools/testing/kunit/kunit.py parse --raw_output=kunit "$LOG" 2>&1 |
		tr -d '\r') || failed=1
	summary=$(cd "$KSRC" && python3 tools/testing/kunit/kunit.py parse "$LOG" 2>&1 | tail -n 3) || failed=1
	echo "$summary"

	# The suites ran alone: no card came up while they printed.
	if grep -qE 'mmc[0-9]+: new ' "$LOG"; then
		grep -E 'mmc[0-9]+: new ' "$LOG" | head -n 3 >&2
		log "KUnit $ARCH: the simulated board started during the suites ($BOARD_INITCALL not blacklisted?)"
		failed=1
	fi

	if grep -qE 'Kernel panic|BUG:|Oops|WARNING:|general protection|Call Trace' "$LOG"; then
		grep -E -A20 'Kernel panic|BUG:|Oops|WARNING:|general protection' "$LOG" | head -n 40 >&2
		log "KUnit $ARCH: the kernel reported a crash or warning"
		failed=1
	fi

	# A suite that never ran is a failure, not a pass.
	for suite in $(sed -n 's/.*kunit_tests(\([a-z0-9_]*\)).*/\1/p' "$REPO"/kunit/*.rs); do
		if ! grep -qE "^ *ok [0-9]+ $suite\$" <<<"$parsed"; then
			log "KUnit $ARCH: suite $suite did not pass (missing or failed)"
			failed=1
		fi
	done

	passed=$(grep -cE '^ +ok [0-9]+ ' <<<"$parsed" || true)
	fails=$(grep -cE '^ +not ok [0-9]+ ' <<<"$parsed" || true)
	echo "kunit $ARCH: $passed passed, $fails failed"
	[[ $failed -eq 0 && $fails -eq 0 && $passed -gt 0 ]]
}

for ((n = 1; n <= BOOTS; n++)); do
	log "KUnit $ARCH: booting under QEMU TCG$( ((BOOTS == 1)) || echo " ($n of $BOOTS)") (log: $LOG)"
	with_lock "kunit-$ARCH" boot
	check || die "KUnit $ARCH failed$( ((BOOTS == 1)) || echo " on boot $n of $BOOTS"); log: $LOG"
done
