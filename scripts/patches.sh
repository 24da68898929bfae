#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The driver as a patch series against Linux 7.3 (docs/patches.md): generated from the
# checkout by scripts/patches.py, one commit per patch in a throwaway git repository
# seeded with the pristine 7.3 files the series changes, then git format-patch.
#
#   scripts/patches.sh [DIR]   make patches: the series, cover letter first, in DIR
#                              (default out/patches)
#   scripts/patches.sh verify  make patches-verify (a step of make test, seconds): the
#                              series applied with git am to the pristine files must
#                              give the checkout's files byte for byte (the changes the
#                              mapping makes excepted, and checked); checkpatch.pl must
#                              find no error in any patch (its codespell check runs
#                              too); rustfmt must pass on the applied driver; the
#                              ChromeOS config fragment must merge into arm64's
#                              defconfig
#   scripts/patches.sh bisect  make patches-check (not in make test): each prefix of the
#                              series applied to a copy of the 7.3 tree and built with
#                              CLIPPY=1 (arm64 allnoconfig with Rust, the MMC core and
#                              the driver, CONFIG_WERROR), then checkpatch.pl --codespell
#
# The patches' author and Signed-off-by: PATCHES_FROM="Name <address>", else git's
# user.name and user.email, else "mtk-sd-rust developers <mtk-sd-rust@example.invalid>".

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PRISTINE_FILES=(drivers/mmc/host/Kconfig drivers/mmc/host/Makefile MAINTAINERS)
CHROMEOS_FRAGMENT=$REPO/configs/chromeos-mtk-rust.config

# Scratch folders, removed when the script ends.
SCRATCH=()
trap 'rm -rf "${SCRATCH[@]}"' EXIT

identity() {
	if [[ -n ${PATCHES_FROM:-} ]]; then echo "$PATCHES_FROM"; return; fi
	local name email
	name=$(git -C "$REPO" config user.name || true)
	email=$(git -C "$REPO" config user.email || true)
	if [[ -n $name && -n $email ]]; then echo "$name <$email>"
	else echo "mtk-sd-rust developers <mtk-sd-rust@example.invalid>"
	fi
}

# The MAINTAINERS entry's maintainer is the patches' author (scripts/patches.py).
PATCHES_IDENTITY=$(identity)
export PATCHES_IDENTITY

# The 7.3 tree's file $2 as Debian ships it, into $1: setup.sh's hook lines (the only
# change it makes to the tree's files) left out.
pristine_file() {
	local dest=$1 path=$2 ksrc
	ksrc=$(kernel_src)
	mkdir -p "$(dirname "$dest/$path")"
	grep -vxF -e 'obj-$(CONFIG_MMC_MTK_RUST)	+= mtk_rust/' \
		-e 'source "drivers/mmc/host/mtk_rust/Kconfig"' "$ksrc/$path" >"$dest/$path" || true
}

# A git repository in $1 holding the pristine files the series changes, committed.
seed_repo() {
	local dir=$1 path version
	version=$(basename "$(kernel_src)")
	git init -q "$dir"
	for path in "${PRISTINE_FILES[@]}"; do pristine_file "$dir" "$path"; done
	git -C "$dir" add -A
	# A fixed date, so that the same checkout gives the same patches, hashes included.
	GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
		git -C "$dir" -c user.name=Linux -c user.email=linux@example.invalid \
		commit -q -m "${version/linux-/Linux }: the files the series changes"
}

# The series into $1: scripts/patches.py lays out the tree and names each patch's
# subject, files and body; each patch is one commit, then git format-patch (without
# Message-IDs, which carry the clock: git send-email threads the mails).
generate() {
	local out=$1 work final who date
	work=$(mktemp -d)
	SCRATCH+=("$work")
	seed_repo "$work/git"
	final=$work/final
	python3 "$REPO/scripts/patches.py" tree "$REPO" "$final" "$work/git" ||
		die "scripts/patches.py could not lay out the series"
	who=$PATCHES_IDENTITY
	# The checkout's last commit dates the patches, so the same tree gives the same series.
	date=$(git -C "$REPO" log -1 --format=%cI 2>/dev/null || date -Iseconds)
	local -a gitc=(git -C "$work/git" -c "user.name=${who% <*}" -c "user.email=${who##*<}")
	gitc[-1]=${gitc[-1]%>}
	local subject="" body=() files=() cover_subject="" cover_body=() kind rest
	while IFS= read -r line; do
		kind=${line%% *}; rest=${line#* }
		[[ $line == "$kind" ]] && rest=""
		case $kind in
		subject) subject=$rest; body=(); files=() ;;
		file) files+=("$rest") ;;
		body) body+=("$rest") ;;
		end)
			if [[ ${#files[@]} -eq 0 ]]; then
				cover_subject=$subject; cover_body=("${body[@]}"); continue
			fi
			local f
			for f in "${files[@]}"; do
				mkdir -p "$(dirname "$work/git/$f")"
				cp "$final/$f" "$work/git/$f"
				git -C "$work/git" add "$f"
			done
			printf '%s\n\n%s\n\nSigned-off-by: %s\n' "$subject" \
				"$(printf '%s\n' "${body[@]}")" "$who" |
				GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date "${gitc[@]}" commit -q -F - ||
				die "could not commit: $subject"
			;;
		esac
	done < <(python3 "$REPO/scripts/patches.py" series "$REPO" || echo "error")
	[[ -n $cover_subject ]] || die "scripts/patches.py gave no series"
	[[ -z $(git -C "$work/git" status --porcelain) ]] || die "files left out of every patch"

	rm -rf "$out"
	mkdir -p "$out"
	"${gitc[@]}" format-patch -q --cover-letter -o "$out" HEAD~"$(
		git -C "$work/git" rev-list --count HEAD~1)" >/dev/null
	# The cover letter: subject and text in place of format-patch's placeholders.
	local cover=$out/0000-cover-letter.patch
	# Its date too, which format-patch takes from the clock: the patches' own.
	python3 - "$cover" "$cover_subject" "$(printf '%s\n' "${cover_body[@]}")" \
		"$(git -C "$work/git" log -1 --format=%aD)" <<-'EOF'
		import re, sys
		path, subject, body, date = sys.argv[1], sys.argv[2], sys.argv[3].rstrip("\n"), sys.argv[4]
		text = open(path).read()
		text = text.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", body)
		text = re.sub(r"^Date: .*$", lambda _: f"Date: {date}", text, count=1, flags=re.M)
		open(path, "w").write(text)
	EOF
	log "patches: $(ls "$out" | wc -l) files (cover letter and $(($(ls "$out" | wc -l) - 1)) patches) in $out"
}

# The codespell dictionary where checkpatch.pl looks for it: codespell's share folder,
# else its Python package's (Debian's python3, which has the package).
codespell_dictionary() {
	local dict=/usr/share/codespell/dictionary.txt
	[[ -f $dict ]] || dict=$(/usr/bin/python3 -c 'import codespell_lib, os
print(os.path.join(os.path.dirname(codespell_lib.__file__), "data", "dictionary.txt"))' 2>/dev/null || true)
	[[ -f $dict ]] || die "no codespell dictionary (Debian's codespell; make setup installs it)"
	echo "$dict"
}

# The patches of the series in $1, in order, without the cover letter.
patches() {
	find "$1" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name 0000-cover-letter.patch | sort
}

# The checks of make patches-verify, over the series in $1, applied in $2.
check_applied() {
	local series=$1 applied=$2 work=$3 rc=0
	# 1. git am's result is the tree scripts/patches.py lays out ...
	python3 "$REPO/scripts/patches.py" tree "$REPO" "$work/expected" "$work/pristine"
	if ! diff -r -x .git "$work/expected" "$applied" >"$work/diff"; then
		cat "$work/diff" >&2
		echo "patches: the applied series differs from the checkout's files" >&2
		rc=1
	fi
	# ... and that tree is the checkout's files: byte for byte, except the few that the
	# mapping changes, which may differ only by dropped lines and the crates' #[path].
	local repo_path kpath added verbatim=0 changed=0
	while read -r repo_path kpath; do
		[[ -n $repo_path ]] || continue
		if [[ ! -f $applied/$kpath ]]; then
			echo "patches: $repo_path: not in the series as $kpath" >&2; rc=1; continue
		fi
		if cmp -s "$REPO/$repo_path" "$applied/$kpath"; then
			verbatim=$((verbatim + 1)); continue
		fi
		changed=$((changed + 1))
		added=$(diff "$REPO/$repo_path" "$applied/$kpath" | grep '^>' |
			grep -vxE '> #\[path = "[a-z_]+/lib\.rs"\]' || true)
		if [[ -n $added ]]; then
			echo "$added" >&2
			echo "patches: $repo_path: $kpath has lines the mapping does not make" >&2
			rc=1
		fi
	done < <(python3 "$REPO/scripts/patches.py" files "$REPO")
	log "patches: $verbatim files as in the checkout, $changed with test-only modules dropped or #[path] aimed"
	local kc
	kc=$(python3 "$REPO/scripts/patches.py" kconfig "$REPO")
	grep -qzF -- "$kc" "$applied/drivers/mmc/host/Kconfig" ||
		{ echo "patches: drivers/mmc/host/Kconfig lacks the checkout's MMC_MTK_RUST entry" >&2; rc=1; }

	# 2. checkpatch.pl on every patch: errors fail, warnings are listed. Its --codespell
	# takes minutes here (over a minute on the MSDC patch alone), so the same check, with
	# the same dictionary and matching rule, is scripts/patches.py's; make patches-check
	# runs checkpatch.pl --codespell itself.
	local ksrc dict patch errors=0 warnings=0 spelling out
	ksrc=$(kernel_src)
	dict=$(codespell_dictionary)
	for patch in $(patches "$series"); do
		# From a folder outside any git repository: checkpatch.pl then takes the tree
		# for one without history (no git log look-ups, no spdxcheck.py, which needs
		# the tree's own git repository).
		out=$(cd "$work" && perl "$ksrc/scripts/checkpatch.pl" --root="$ksrc" \
			--no-summary-file --showfile --terse "$patch" 2>&1 || true)
		errors=$((errors + $(grep -c ': ERROR:' <<<"$out" || true)))
		warnings=$((warnings + $(grep -c ': WARNING:' <<<"$out" || true)))
		grep -E ': (ERROR|WARNING|CHECK):' <<<"$out" | sed "s|^|$(basename "$patch"): |" || true
	done
	out=$(python3 "$REPO/scripts/patches.py" codespell "$dict" $(patches "$series"))
	spelling=$(grep -c WARNING <<<"$out" || true)
	[[ -z $out ]] || echo "$out"
	log "patches: checkpatch: $errors errors, $warnings warnings, codespell: $spelling warnings"
	[[ $errors -eq 0 ]] || rc=1

	# 3. rustfmt over the applied driver (the crate root reaches every module).
	if ! /usr/bin/rustfmt --check --edition 2021 --config-path "$ksrc/.rustfmt.toml" \
		"$applied/drivers/mmc/host/mtk_sd_rust/mtk_sd_rust.rs"; then
		echo "patches: rustfmt would change the applied driver" >&2
		rc=1
	fi
	return "$rc"
}

# The ChromeOS fragment merged into arm64's defconfig in a scratch object folder: every
# option it sets must survive olddefconfig. No build.
check_fragment() {
	local work=$1 ksrc line missing=0
	ksrc=$(kernel_src)
	mkdir -p "$work/obj"
	make -s -C "$ksrc" O="$work/obj" ARCH=arm64 "${KMAKE_VARS[@]}" defconfig >/dev/null ||
		die "make defconfig failed"
	(cd "$work/obj" && "$ksrc/scripts/kconfig/merge_config.sh" -m -O . .config \
		"$CHROMEOS_FRAGMENT" >"$work/merge.log") || die "merge_config.sh failed"
	make -s -C "$ksrc" O="$work/obj" ARCH=arm64 "${KMAKE_VARS[@]}" olddefconfig >/dev/null ||
		die "make olddefconfig failed"
	while IFS= read -r line; do
		[[ $line =~ ^(CONFIG_[A-Z0-9_]+=.*|#\ CONFIG_[A-Z0-9_]+\ is\ not\ set)$ ]] || continue
		if ! grep -qxF -- "$line" "$work/obj/.config"; then
			echo "patches: $(basename "$CHROMEOS_FRAGMENT"): '$line' did not survive olddefconfig" >&2
			missing=$((missing + 1))
		fi
	done <"$CHROMEOS_FRAGMENT"
	log "patches: $(basename "$CHROMEOS_FRAGMENT"): $(grep -cE '^(CONFIG_|# CONFIG_)' "$CHROMEOS_FRAGMENT") options, $missing lost in arm64's defconfig"
	[[ $missing -eq 0 ]]
}

verify() {
	local work rc=0
	work=$(mktemp -d)
	SCRATCH+=("$work")
	generate "$work/series"
	seed_repo "$work/applied"
	mkdir -p "$work/pristine"
	local path
	for path in "${PRISTINE_FILES[@]}"; do pristine_file "$work/pristine" "$path"; done
	git -C "$work/applied" -c user.name=check -c user.email=check@example.invalid \
		am -q $(patches "$work/series") ||
		die "git am could not apply the series to ${PRISTINE_FILES[*]} of $(basename "$(kernel_src)")"
	log "patches: git am applied $(git -C "$work/applied" rev-list --count HEAD~1) patches"
	check_applied "$work/series" "$work/applied" "$work" || rc=1
	check_fragment "$work" || rc=1
	[[ $rc -eq 0 ]] || die "the patch series failed its checks"
	log "patches: verified"
}

# Each prefix of the series applied to a private copy of the 7.3 tree (under the cache)
# and built: arm64's allnoconfig with Rust, the MMC core and the driver built in once
# the Kconfig patch is there, CLIPPY=1 and CONFIG_WERROR. A prefix builds what the
# series can change, drivers/mmc/ after the kernel's prepare step (which builds the
# Rust crates under rust/); the tree before the first patch is built first, so that a
# failure of 7.3 itself is told apart from a patch's. Then rustfmtcheck and
# checkpatch.pl --codespell over the series, and last vmlinux with the whole series,
# which links the driver against the rest of the kernel.
# The copy and its object tree stay in the cache: a later run resets the copy to 7.3
# with git and rebuilds only what the series changes. PATCHES_JOBS sets make's -j
# (default: the number of CPUs).
bisect() {
	local work ksrc tree obj n total patch jobs base start
	ksrc=$(kernel_src)
	work=$CACHE/patches-check
	tree=$work/linux
	obj=$work/obj
	jobs=${PATCHES_JOBS:-$JOBS}
	base="$(basename "$ksrc") $(cat "$CACHE/$KERNEL_PACKAGE.ready")"
	local -a kmake=(make -s -C "$tree" O="$obj" ARCH=arm64 "${KMAKE_VARS[@]}")
	# The folders the series adds; the copy is reset by removing them.
	local -a added=(drivers/mmc/host/mtk_sd_rust rust/kernel/mmc)
	for path in "${added[@]}"; do
		[[ ! -e $ksrc/$path || -L $ksrc/$path ]] ||
			die "$(basename "$ksrc") already has $path, which the series adds"
	done
	if [[ $(cat "$work/base" 2>/dev/null) != "$base" ]]; then
		rm -rf "$work"
		mkdir -p "$work" "$obj"
		log "patches-check: copying $(basename "$ksrc") without setup.sh's hooks"
		cp -a "$ksrc" "$tree"
		rm -f "$tree/drivers/mmc/host/mtk_rust"
		for path in "${PRISTINE_FILES[@]}"; do pristine_file "$tree" "$path"; done
		# Only the files the series changes are tracked: git am needs no more, and
		# hashing the whole tree would take minutes and a gigabyte. (-f: Debian's
		# .gitignore ignores the tree's own files.)
		git -C "$tree" init -q
		git -C "$tree" add -f -- "${PRISTINE_FILES[@]}"
		git -C "$tree" -c user.name=Linux -c user.email=linux@example.invalid \
			commit -q -m base
		git -C "$tree" tag base
		echo "$base" >"$work/base"
	else
		log "patches-check: resetting the copy of $(basename "$ksrc") to 7.3"
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		git -C "$tree" reset -q --hard base
		for path in "${added[@]}"; do rm -rf "${tree:?}/$path"; done
	fi
	rm -rf "$work/series" "$work"/build-*.log
	generate "$work/series"
	# A small kernel: allnoconfig with Rust, the MMC core and what the driver depends on,
	# warnings as errors as the ChromeOS fragment has them.
	"${kmake[@]}" allnoconfig
	cat >"$obj/fragment.config" <<-EOF
		CONFIG_RUST=y
		CONFIG_COMPILE_TEST=y
		CONFIG_BLOCK=y
		CONFIG_MMC=y
		CONFIG_MMC_BLOCK=y
		CONFIG_COMMON_CLK=y
		CONFIG_PM=y
		CONFIG_WERROR=y
		CONFIG_MMC_MTK_RUST=y
	EOF
	merge_fragment() {
		(cd "$obj" && "$tree/scripts/kconfig/merge_config.sh" -m -O . .config \
			fragment.config >/dev/null)
		"${kmake[@]}" olddefconfig
	}
	merge_fragment
	grep -q '^CONFIG_RUST=y' "$obj/.config" || die "CONFIG_RUST did not survive olddefconfig"
	grep -q '^CONFIG_WERROR=y' "$obj/.config" || die "CONFIG_WERROR did not survive olddefconfig"
	total=$(patches "$work/series" | wc -l)
	# build_prefix N WHAT [TARGET]: the build of prefix N (0: no patch; "link": vmlinux).
	build_prefix() {
		local n=$1 what=$2 target=${3:-drivers/mmc/} log=$work/build-$1.log
		log "patches-check: $n/$total $what: building $target"
		start=$SECONDS
		"${kmake[@]}" CLIPPY=1 -j"$jobs" "$target" >"$log" 2>&1 ||
			{ tail -60 "$log"; die "$what does not build (prefix $n of $total)"; }
		# Under -s a clean build prints nothing: what a prefix prints beyond the base
		# build's output is a warning of the series.
		if [[ $n == 0 ]]; then
			[[ ! -s $log ]] || { cat "$log"; log "patches-check: 7.3 itself printed the above"; }
		elif grep -vxFf "$work/build-0.log" "$log"; then
			die "$what: the build printed the above (prefix $n of $total)"
		fi
		log "patches-check: $n/$total built in $((SECONDS - start)) s"
	}
	build_prefix 0 "$(basename "$ksrc") without the series"
	n=0
	for patch in $(patches "$work/series"); do
		n=$((n + 1))
		git -C "$tree" -c user.name=check -c user.email=check@example.invalid am -q "$patch" ||
			die "patch $n does not apply: $patch"
		# The fragment again once a patch changes a Kconfig file: its MMC_MTK_RUST=y
		# counts once the Kconfig patch is in.
		if git -C "$tree" diff --name-only HEAD~1 HEAD | grep -q 'Kconfig$'; then
			merge_fragment
		fi
		build_prefix "$n" "$(basename "$patch")"
		if grep -q '^CONFIG_MMC_MTK_RUST=y' "$obj/.config"; then
			[[ -f $obj/drivers/mmc/host/mtk_sd_rust/mtk_sd_rust.o ]] ||
				die "patch $n: MMC_MTK_RUST=y but mtk_sd_rust.o was not built"
		fi
	done
	grep -q '^CONFIG_MMC_MTK_RUST=y' "$obj/.config" ||
		die "MMC_MTK_RUST was never enabled: the series did not reach the driver"
	"${kmake[@]}" rustfmtcheck || die "rustfmtcheck failed on the applied series"
	local dict errors=0 out
	dict=$(codespell_dictionary)
	for patch in $(patches "$work/series"); do
		out=$(cd "$work" && perl "$tree/scripts/checkpatch.pl" --root="$tree" --codespell \
			--codespellfile="$dict" --no-summary-file --showfile --terse "$patch" 2>&1 || true)
		grep -E ': (ERROR|WARNING|CHECK):' <<<"$out" | sed "s|^|$(basename "$patch"): |" || true
		errors=$((errors + $(grep -c ': ERROR:' <<<"$out" || true)))
	done
	[[ $errors -eq 0 ]] || die "checkpatch.pl --codespell: $errors errors"
	log "patches-check: rustfmtcheck and checkpatch.pl --codespell clean"
	build_prefix link "the whole series" vmlinux
	log "patches-check: every prefix of $total patches built with CLIPPY=1 and CONFIG_WERROR, vmlinux linked"
}

case ${1:-} in
verify) verify ;;
bisect) bisect ;;
*) generate "$(realpath -m "${1:-$REPO/out/patches}")" ;;
esac
