#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Validates the device trees in dts/ against the kernel's MSDC binding
# (Documentation/devicetree/bindings/mmc/mtk-sd.yaml) with dt-schema, the way
# the kernel's dtbs_check does with DT_SCHEMA_FILES=mtk-sd.yaml: the binding and
# the schemas it references processed once (cached), then dt-validate limited
# to that binding.
#
#   dts/*.dts   boards: the kernel's SoC .dtsi and our fragment (dts/*.dtsi),
#               through cpp with the kernel's include paths, then dtc
#   dts/*.dtso  overlays: dtc alone, as simboard/Kbuild builds the simulated
#               board's, then applied with fdtoverlay onto a bare root
#
# Every enabled MSDC node (named mmc@ or with a "mediatek,*-mmc" compatible)
# must be one the binding selects, so that a mistyped compatible cannot slip
# past the check. A self-test then feeds trees with deliberate errors and
# requires each to be rejected for its error. Prints one line per file and
# exits non-zero on any binding error or a self-test that was not rejected.
#
# usage: scripts/dt-check.sh

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

DTS=$REPO/dts
BINDING=mmc/mtk-sd.yaml
PY=$DTSCHEMA_VENV/bin/python

check_tools() {
	local tool
	for tool in cpp dtc fdtoverlay; do
		command -v "$tool" >/dev/null || die "$tool not found: run scripts/setup.sh"
	done
	if ! grep -qsF "dtschema==$DTSCHEMA_VERSION " "$DTSCHEMA_VENV/.installed"; then
		die "dtschema $DTSCHEMA_VERSION not installed in $DTSCHEMA_VENV: run scripts/setup.sh"
	fi
}

# The kernel's binding files that $BINDING references, itself included, following
# $ref through the bindings tree (references to dt-schema's own core schemas
# resolve inside dtschema). An unresolved reference would fail validation loudly.
binding_closure() {
	"$PY" - "$1" "$BINDING" <<-'EOF'
		import os, sys
		from ruamel.yaml import YAML

		bindings, first = sys.argv[1:]
		seen, todo = set(), [os.path.join(bindings, first)]
		while todo:
		    path = os.path.normpath(todo.pop())
		    if path in seen or not os.path.isfile(path):
		        continue
		    seen.add(path)
		    stack = [YAML(typ='safe').load(open(path))]
		    while stack:
		        node = stack.pop()
		        if isinstance(node, dict):
		            ref = node.get('$ref')
		            if isinstance(ref, str) and not ref.startswith('#'):
		                ref = ref.split('#')[0]
		                if ref.startswith('/schemas/'):
		                    todo.append(os.path.join(bindings, ref[len('/schemas/'):]))
		                elif not ref.startswith('http'):
		                    todo.append(os.path.join(os.path.dirname(path), ref))
		            stack.extend(node.values())
		        elif isinstance(node, list):
		            stack.extend(node)
		print('\n'.join(sorted(seen)))
	EOF
}

# $BINDING and the schemas it references as one processed schema, as the
# kernel's Documentation/devicetree/bindings/Makefile makes processed-schema.json
# (from every binding; these are the ones the check applies), after checking the
# binding against dt-schema's meta-schemas (dt_binding_check). Built once per
# kernel tree and dtschema version; published by rename, so a killed run leaves
# nothing that a later one uses.
processed_schema() {
	local bindings=$1 out=$2
	[[ -s $out ]] && return
	log "dt-check: processing $BINDING of $(basename "$KSRC") with dtschema $DTSCHEMA_VERSION"
	"$DTSCHEMA_VENV/bin/dt-doc-validate" -u "$bindings" "$bindings/$BINDING" ||
		die "$BINDING does not pass dt-doc-validate"
	local files
	files=$(binding_closure "$bindings") || die "could not follow $BINDING's references"
	mkdir -p "$(dirname "$out")"
	# shellcheck disable=SC2086 # one path a line, none with spaces
	"$DTSCHEMA_VENV/bin/dt-mk-schema" -j $files >"$out.tmp" || die "dt-mk-schema failed"
	mv "$out.tmp" "$out"
}

# dtc with the kernel's default warning set (scripts/Makefile.dtbs). Only warnings
# about our own files are shown: those about the kernel's SoC files are not ours
# to fix.
dtc_kernel() {
	local src=$1 out=$2 log=$2.log
	shift 2
	dtc -I dts -O dtb -b 0 -i "$KSRC/scripts/dtc/include-prefixes" \
		-Wno-unique_unit_address -Wno-unit_address_vs_reg -Wno-avoid_unnecessary_addr_size \
		-Wno-alias_paths -Wno-simple_bus_reg "$@" -o "$out" "$src" 2>"$log" ||
		{ cat "$log" >&2; return 1; }
	grep "^$DTS/" "$log" | sed "s|^$REPO/||; s|^|    dtc: |" >&2 || true
}

# Boards go through cpp as the kernel's dtbs build runs it, for its includes.
compile() {
	local src=$1 out=$2
	cpp -nostdinc -I "$KSRC/scripts/dtc/include-prefixes" -undef -D__DTS__ \
		-x assembler-with-cpp -o "$out.pp" "$src" || return 1
	dtc_kernel "$out.pp" "$out"
}

# Overlays land on a bare root with 64-bit addresses, like the virtual
# machines the simulated board runs on.
compile_base() {
	cat >"$WORK/base.dts" <<-'EOF'
		/dts-v1/;
		/ {
			model = "dt-check overlay base";
			compatible = "linux,dummy-virt";
			#address-cells = <2>;
			#size-cells = <2>;
		};
	EOF
	dtc -q -@ -I dts -O dtb -o "$WORK/base.dtb" "$WORK/base.dts"
}

# Overlays as simboard/Kbuild builds the simulated board's: dtc alone, no cpp.
compile_overlay() {
	local src=$1 out=$2
	dtc_kernel "$src" "$out.dtbo" -@ &&
		fdtoverlay -i "$WORK/base.dtb" -o "$out" "$out.dtbo"
}

# Every fragment must reach the validator through a board file.
check_fragments_included() {
	local frag name
	for frag in "$DTS"/*.dtsi; do
		[[ -e $frag ]] || continue
		name=$(basename "$frag")
		grep -lqF "#include \"$name\"" "$DTS"/*.dts ||
			die "dts/$name is included by no dts/*.dts, so nothing validates it"
	done
}

# The self-test's trees: a board or the overlay with one deliberate error, and
# the words the rejection must contain (so that a tree failing for another
# reason does not count). Lines of: name, source to build, expected words.
write_selftests() {
	local board=$DTS/mt8192-asurada-msdc.dts
	cat >"$WORK/neg-bus-width.dts" <<-EOF
		#include "$board"
		&mmc1 { bus-width = <3>; };
	EOF
	cat >"$WORK/neg-unknown-prop.dts" <<-EOF
		#include "$board"
		&mmc0 { mediatek,no-such-property = <1>; };
	EOF
	cat >"$WORK/neg-required.dts" <<-EOF
		#include "$DTS/mt8195-cherry-msdc.dts"
		&mmc0 { /delete-property/ vqmmc-supply; };
	EOF
	# A compatible the binding does not know: validation would silently pass
	# over the node, so the selection guard must reject it.
	sed -E 's/"mediatek,([a-z0-9]+)-mmc"/"mediatek,\1-mcc"/g' "$DTS/msdc-sim.dtso" \
		>"$WORK/neg-compatible.dtso"
	printf '%s\t%s\t%s\n' \
		"selftest: bus-width = <3>" "$WORK/neg-bus-width.dts" "bus-width: 3 is not one of" \
		"selftest: unknown mediatek, property" "$WORK/neg-unknown-prop.dts" "'mediatek,no-such-property'" \
		"selftest: missing vqmmc-supply" "$WORK/neg-required.dts" "'vqmmc-supply' is a required property" \
		"selftest: unknown compatible" "$WORK/neg-compatible.dtso" "not selected by $BINDING"
}

# Reads the manifest (dtb, name, expected words or empty) and dt-validate's JSON
# diagnostics, adds the selection guard's, and reports per file.
report() {
	"$PY" - "$SCHEMA" "$BINDING" "$WORK/manifest" "$WORK/diagnostics.json" <<-'EOF'
		import json, os, re, sys
		import dtschema

		schema, binding, manifest, diagnostics = sys.argv[1:]
		validator = dtschema.DTValidator([schema])
		msdc_compat = re.compile(r'^mediatek,[^,]+-mmc$')

		def selected(compatibles):
		    # dt-validate picks the schema of the first compatible it knows.
		    for c in compatibles:
		        if c in validator.compat_map:
		            return binding in validator.compat_map[c]
		    return False

		def guard(dtb):
		    """Selection errors, and counts of checked and disabled MSDC nodes."""
		    with open(dtb, 'rb') as f:
		        tree = validator.decode_dtb(f.read())
		    errors, checked, disabled = [], 0, 0

		    def walk(node, path):
		        nonlocal checked, disabled
		        compat = node.get('compatible', [])
		        name = path.rsplit('/', 1)[-1]
		        if name.startswith('mmc@') or any(msdc_compat.match(c) for c in compat):
		            if 'disabled' in node.get('status', []):
		                disabled += 1
		            elif selected(compat):
		                checked += 1
		            else:
		                errors.append(f'{path}: compatible {compat} is not selected by {binding}')
		        for k, v in node.items():
		            if isinstance(v, dict) and not k.startswith('__'):
		                walk(v, f'{path.rstrip("/")}/{k}')

		    for root in tree:
		        walk(root, '/')
		    if checked == 0 and not errors:
		        errors.append(f'no enabled node that {binding} selects')
		    return errors, checked, disabled

		diags = json.load(open(diagnostics))
		failed = False
		for line in open(manifest):
		    dtb, name, expect = line.rstrip('\n').split('\t')
		    # Only one binding is checked, so its "from schema" lines say nothing.
		    errors = sorted(
		        re.sub(r'\n\s*from schema \$id: \S+', '',
		               d.get('formatted', d['message']).replace(dtb, name).replace(d['file'], name))
		        for d in diags if os.path.abspath(d['file']) == dtb and d['level'] == 'error')
		    guard_errors, checked, disabled = guard(dtb)
		    errors += [f'{name}: {e}' for e in guard_errors]
		    if expect:
		        hit = [e for e in errors if expect in e]
		        if hit:
		            why = hit[0].splitlines()[0].removeprefix(f'{name}: ')
		            print(f'dt-check: {name} ok (rejected: {why[:110]})')
		        else:
		            failed = True
		            print(f'dt-check: {name} FAILED: not rejected for "{expect}"')
		            for e in errors:
		                print('    ' + e.replace('\n', '\n    '))
		    elif errors:
		        failed = True
		        print(f'dt-check: {name} FAILED')
		        for e in errors:
		            print('    ' + e.replace('\n', '\n    '))
		    else:
		        extra = f', {disabled} disabled' if disabled else ''
		        print(f'dt-check: {name} ok ({checked} MSDC nodes{extra})')
		sys.exit(1 if failed else 0)
	EOF
}

main() {
	check_tools
	KSRC=$(kernel_src)
	SCHEMA=$CACHE/dtschema/processed-schema-$(basename "$KSRC")-$DTSCHEMA_VERSION.json
	with_lock dt-schema processed_schema "$KSRC/Documentation/devicetree/bindings" "$SCHEMA"
	check_fragments_included

	WORK=$(mktemp -d "${TMPDIR:-/tmp}/dt-check.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	compile_base

	local src name out n=0 expect
	: >"$WORK/manifest"
	while IFS=$'\t' read -r name src expect; do
		n=$((n + 1))
		out=$WORK/$n.dtb
		case $src in
		*.dts) compile "$src" "$out" ;;
		*.dtso) compile_overlay "$src" "$out" ;;
		esac || die "$name does not compile"
		printf '%s\t%s\t%s\n' "$out" "$name" "$expect" >>"$WORK/manifest"
	done < <(
		for src in "$DTS"/*.dts "$DTS"/*.dtso; do
			[[ -e $src ]] && printf '%s\t%s\t\n' "dts/$(basename "$src")" "$src"
		done
		write_selftests
	)

	# One dt-validate run for all trees: the processed schema loads once.
	cut -f1 "$WORK/manifest" | xargs "$DTSCHEMA_VENV/bin/dt-validate" -s "$SCHEMA" \
		-l "$BINDING" --json-output "$WORK/diagnostics.json" 2>/dev/null
	report
}

main "$@"
