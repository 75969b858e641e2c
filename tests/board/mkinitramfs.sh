#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a gzipped newc cpio initramfs for the arm64 QEMU guest: /init is
# INIT, /bin holds the host's static arm64 busybox (busybox-static:arm64)
# and its applet links, and every FILE is copied into /root/. All entries
# are owned by root (cpio -R 0:0, no fakeroot). /dev/console is not needed:
# the kernel unpacks its built-in default initramfs (which has it) first.
#
# Usage: mkinitramfs.sh OUT.cpio.gz INIT [FILE...]
set -uo pipefail

die() { printf 'mkinitramfs: %s\n' "$*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: $0 OUT.cpio.gz INIT [FILE...]"
out=$1 init=$2
shift 2
busybox=${BUSYBOX:-/bin/busybox}

APPLETS=(sh mount umount mkdir cat echo sleep tar dd poweroff reboot insmod
	 rmmod lsmod ls grep sed awk head tail wc cut tr sort uniq nproc dmesg
	 sync taskset date seq printf test '[' true false rm cp mv ln chmod find
	 xargs env stat uname basename dirname od hexdump md5sum)

[ -f "$init" ] || die "no init script $init"
desc=$(file -bL "$busybox" 2>&1)
case "$desc" in
*aarch64*) ;;
*) die "$busybox is not an arm64 busybox ($desc); apt-get install busybox-static:arm64 (scripts/deps.sh)" ;;
esac
for f in "$@"; do
	[ -f "$f" ] || die "no file $f"
done

root=$(mktemp -d) || die "mktemp failed"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,proc,sys,dev,tmp,root} || die "cannot fill $root"
install -m 755 "$init" "$root/init" || die "cannot copy $init"
install -m 755 "$busybox" "$root/bin/busybox" || die "cannot copy $busybox"
for a in "${APPLETS[@]}"; do
	ln -s busybox "$root/bin/$a"
done
for f in "$@"; do
	# cp -p keeps the mode (executable bits); ownership comes from -R 0:0.
	cp -p -- "$f" "$root/root/" || die "cannot copy $f"
done

mkdir -p "$(dirname "$out")" || die "cannot create the folder of $out"
tmp=$out.tmp.$$
(cd "$root" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | gzip -9n >"$tmp" ||
	{ rm -f "$tmp"; die "cpio failed"; }
mv -f "$tmp" "$out" || die "cannot write $out"
printf 'mkinitramfs: %s (%s bytes, %d files in /root)\n' "$out" "$(stat -c %s "$out")" "$#"
