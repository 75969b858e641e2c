#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the workspace needs; fail fast and clearly when
# the archive cannot be reached.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

HOST_PKGS=(build-essential bc bison flex libssl-dev libelf-dev libdw-dev
	zlib1g-dev libzstd-dev python3 xz-utils rsync cpio kmod git ccache
	gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf qemu-system-arm
	sparse coccinelle ocaml-nox libopencsd-dev libopencsd-bin linux-source-6.1
	device-tree-compiler python3-ply python3-git time file)
ARM64_PKGS=(busybox-static:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libzstd-dev:arm64)

missing=()
for p in "${HOST_PKGS[@]}" "${ARM64_PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	say "packages: all present (linux-source-6.1 $(base_version))"
	exit 0
fi

say "packages: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	die "not root; run: sudo apt-get install -y ${missing[*]}"
fi
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
apt_opts=(-o Acquire::Retries=1 -o Acquire::http::Timeout=20
	  -o Acquire::https::Timeout=20)
if ! timeout 180 apt-get "${apt_opts[@]}" update -q >"$LOGDIR/apt-update.log" 2>&1 ||
   grep -qE '^(Err|W: Failed to fetch)' "$LOGDIR/apt-update.log"; then
	tail -n 5 "$LOGDIR/apt-update.log" >&2
	die "the Debian archive is unreachable (log: $LOGDIR/apt-update.log); install by hand: apt-get install -y ${missing[*]}"
fi
if ! DEBIAN_FRONTEND=noninteractive timeout 1200 apt-get "${apt_opts[@]}" \
	install -y -q --no-install-recommends "${missing[@]}" \
	>"$LOGDIR/apt-install.log" 2>&1; then
	tail -n 10 "$LOGDIR/apt-install.log" >&2
	die "apt-get install failed (log: $LOGDIR/apt-install.log): apt-get install -y ${missing[*]}"
fi
say "packages: installed; linux-source-6.1 $(base_version)"
