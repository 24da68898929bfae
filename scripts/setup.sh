#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Prepares a machine for the kernel builds: Debian packages, bindgen, dt-schema,
# the Linux 7.3 source tree hooked up to this checkout, and the arm64 guest's
# userland. Idempotent: a second run only checks, and a run killed midway leaves
# nothing that a later run trusts.
#
# usage: scripts/setup.sh [--host-only]

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PACKAGES=(
	rustc-web rust-web-src rust-web-clippy rustfmt-web
	clang-19 lld-19 llvm-19 libclang-19-dev
	flex bison bc libelf-dev libssl-dev cpio python3 make
	qemu-system-x86 qemu-system-arm
	busybox-static fio gnuplot-nox
	device-tree-compiler cpp python3-venv python3-libfdt
	codespell perl
)

as_root() {
	if [[ $(id -u) -eq 0 ]]; then "$@"
	elif command -v sudo >/dev/null; then sudo "$@"
	else die "need root to run: $*"
	fi
}

install_packages() {
	local missing=() pkg
	for pkg in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$pkg")
	done
	[[ ${#missing[@]} -eq 0 ]] && return
	log "installing Debian packages: ${missing[*]}"
	as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "could not install: ${missing[*]}"
}

# cargo-installed tools live under the cache, pinned, away from the user's ~/.cargo.
install_cargo_tool() {
	local crate=$1 version=$2 binary=$3
	if [[ -x $TOOLS/bin/$binary ]] && "$TOOLS/bin/$binary" --version 2>/dev/null | grep -qF "$version"; then
		return
	fi
	log "installing $crate $version from crates.io"
	cargo install --quiet --locked --root "$TOOLS" "$crate@$version" ||
		die "cargo install $crate@$version failed"
}

# dt-schema in a venv under the cache, for scripts/dt-check.sh. The venv is built on
# Debian's python3 so that it sees python3-libfdt; dtschema itself goes in without
# dependencies, as its metadata names PyPI's pylibfdt, and everything else it needs
# is pinned in common.sh. The stamp is written last and names what was installed, so
# a venv from a killed run, or from another pin, is built anew.
install_dtschema() {
	local venv=$DTSCHEMA_VENV want
	want="dtschema==$DTSCHEMA_VERSION ${DTSCHEMA_REQUIREMENTS[*]}"
	if [[ -f $venv/.installed && $(cat "$venv/.installed") == "$want" ]]; then return; fi
	log "installing dtschema $DTSCHEMA_VERSION from PyPI into $venv"
	rm -rf "$venv"
	/usr/bin/python3 -m venv --system-site-packages "$venv" || die "could not create a venv at $venv"
	local pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
	"${pip[@]}" "${DTSCHEMA_REQUIREMENTS[@]}" || die "pip install of dtschema's requirements failed"
	"${pip[@]}" --no-deps "dtschema==$DTSCHEMA_VERSION" || die "pip install dtschema==$DTSCHEMA_VERSION failed"
	"$venv/bin/python" -c 'import libfdt, dtschema' ||
		die "dtschema in $venv cannot import libfdt (is python3-libfdt installed?)"
	echo "$want" >"$venv/.installed"
}

# The Debian mirror this machine already uses, read from its own apt sources (deb822
# .sources files and one-line .list files). DEBIAN_MIRROR overrides it.
debian_mirror() {
	if [[ -n ${DEBIAN_MIRROR:-} ]]; then echo "$DEBIAN_MIRROR"; return; fi
	local codenames='^(bullseye|bookworm|trixie|forky|sid|stable|testing|unstable|oldstable)$'
	local f uris=""
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] || continue
		uris+=$(awk -v re="$codenames" '
			BEGIN { RS = ""; FS = "\n" }
			{
				uri = ""; ok = 0
				for (i = 1; i <= NF; i++) {
					if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); uri = a[2] }
					if ($i ~ /^Suites:/) {
						n = split($i, s, /[ \t]+/)
						for (j = 2; j <= n; j++) if (s[j] ~ re) ok = 1
					}
				}
				if (ok && uri != "") print uri
			}' "$f")$'\n'
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -f $f ]] || continue
		uris+=$(awk -v re="$codenames" '$1 == "deb" {
			i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
			if ($(i + 1) ~ re) print $i }' "$f")$'\n'
	done
	uris=${uris#"${uris%%[![:space:]]*}"}
	echo "${uris%%$'\n'*}"
}

fetch_kernel_source() {
	local ready=$CACHE/$KERNEL_PACKAGE.ready
	if [[ -s $ready && -d $CACHE/$(cat "$ready") ]]; then return; fi

	local mirror
	mirror=$(debian_mirror)
	[[ -n $mirror ]] || die "no Debian mirror found in /etc/apt/sources.list{,.d}; set DEBIAN_MIRROR"
	log "fetching $KERNEL_PACKAGE from $KERNEL_SUITE"

	rm -rf "$CACHE"/fetch.*
	local work
	work=$(mktemp -d "$CACHE/fetch.XXXXXX")
	mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/unpack"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $KERNEL_SUITE main" \
		>"$work/sources.list"
	# A private apt configuration: the system's sources, lists and cache stay untouched.
	local apt_opts=(
		-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache"
		-o APT::Sandbox::User=root -qq
	)
	apt-get "${apt_opts[@]}" update ||
		die "apt could not read $KERNEL_SUITE from $mirror (is the keyring debian-archive-keyring current?)"
	(cd "$work" && apt-get "${apt_opts[@]}" download "$KERNEL_PACKAGE") ||
		die "$KERNEL_PACKAGE is not available from $mirror $KERNEL_SUITE"

	local deb version tarball
	deb=$(echo "$work"/"$KERNEL_PACKAGE"_*.deb)
	version=$(dpkg-deb -f "$deb" Version)
	version=${version%%-*}
	tarball=./usr/src/$KERNEL_PACKAGE.tar.xz
	log "unpacking Linux $version"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "$tarball" | tar -xJ -C "$work/unpack" ||
		die "could not unpack $tarball from $deb"
	hook_driver_into_tree "$work/unpack/$KERNEL_PACKAGE"

	# Publish atomically: a killed run leaves only a fetch.* folder that the next run removes.
	rm -rf "$CACHE/linux-$version"
	mv "$work/unpack/$KERNEL_PACKAGE" "$CACHE/linux-$version"
	echo "linux-$version" >"$ready.tmp"
	mv "$ready.tmp" "$ready"
	rm -rf "$work"
}

# The arm64 guest's userland: Debian's arm64 busybox-static and fio with everything
# they depend on, from this machine's own mirror and release, downloaded through a
# private apt configuration that knows only arm64 and an empty package database (so
# the host's architecture, lists and dpkg state stay untouched), then unpacked into
# one folder that scripts/initramfs.sh picks the guest's files from.
fetch_arm64_userland() {
	local mirror suite want
	mirror=$(debian_mirror)
	[[ -n $mirror ]] || die "no Debian mirror found in /etc/apt/sources.list{,.d}; set DEBIAN_MIRROR"
	suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[[ -n $suite ]] || die "no VERSION_CODENAME in /etc/os-release: which Debian release is this?"
	want="$mirror $suite ${USERLAND_PACKAGES[*]}"
	if [[ -f $USERLAND_ARM64/.ready && $(cat "$USERLAND_ARM64/.ready") == "$want" ]]; then return; fi
	log "fetching the arm64 guest's userland (${USERLAND_PACKAGES[*]}) from $suite"

	rm -rf "$CACHE"/userland.*
	local work
	work=$(mktemp -d "$CACHE/userland.XXXXXX")
	mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/state" "$work/root"
	: >"$work/state/status"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg arch=arm64] $mirror $suite main" \
		>"$work/sources.list"
	local apt_opts=(
		-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
		-o Dir::State="$work/state" -o Dir::State::Lists="$work/lists"
		-o Dir::State::status="$work/state/status" -o Dir::Cache="$work/cache"
		-o APT::Architecture=arm64 -o APT::Architectures=arm64
		-o APT::Sandbox::User=root -qq
	)
	apt-get "${apt_opts[@]}" update || die "apt could not read $suite (arm64) from $mirror"
	apt-get "${apt_opts[@]}" install -y --download-only --no-install-recommends \
		"${USERLAND_PACKAGES[@]}" >/dev/null ||
		die "could not download arm64 ${USERLAND_PACKAGES[*]} from $mirror $suite"
	local deb n=0
	for deb in "$work"/cache/archives/*.deb; do
		dpkg-deb -x "$deb" "$work/root" || die "could not unpack $deb"
		n=$((n + 1))
	done
	[[ -x $work/root/usr/bin/fio && -x $work/root/bin/busybox ]] ||
		die "the arm64 packages did not provide /usr/bin/fio and /bin/busybox"
	log "arm64 userland: $n packages unpacked"

	# Published by a rename, its stamp last: a killed run leaves only a userland.* folder.
	rm -rf "$USERLAND_ARM64"
	mv "$work/root" "$USERLAND_ARM64"
	echo "$want" >"$USERLAND_ARM64/.ready"
	rm -rf "$work"
}

# The kernel tree learns about the driver once: a Makefile line and a Kconfig source
# line under drivers/mmc/host/, pointing at a mtk_rust link that link_checkout() aims.
hook_driver_into_tree() {
	local tree=$1
	local mk=$tree/drivers/mmc/host/Makefile kc=$tree/drivers/mmc/host/Kconfig
	grep -q 'mtk_rust/' "$mk" || echo 'obj-$(CONFIG_MMC_MTK_RUST)	+= mtk_rust/' >>"$mk"
	grep -q 'mtk_rust/Kconfig' "$kc" || echo 'source "drivers/mmc/host/mtk_rust/Kconfig"' >>"$kc"
}

link_checkout() {
	local tree
	tree=$(kernel_src)
	hook_driver_into_tree "$tree"
	local link=$tree/drivers/mmc/host/mtk_rust
	if [[ $(readlink "$link" 2>/dev/null) != "$REPO" ]]; then
		ln -sfn "$REPO" "$link.tmp"
		mv -T "$link.tmp" "$link"
		# Objects built from another checkout may look newer than this one's sources
		# (make compares times): drop them so the driver is rebuilt from this one.
		rm -rf "$CACHE"/obj/*/drivers/mmc/host/mtk_rust
	fi
}

main() {
	mkdir -p "$CACHE"
	install_packages
	[[ ${1:-} == --host-only ]] && return
	install_cargo_tool bindgen-cli "$BINDGEN_VERSION" bindgen
	with_lock setup install_dtschema
	with_lock setup fetch_kernel_source
	with_lock setup fetch_arm64_userland
	with_lock setup link_checkout
}

main "$@"
