#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot one arm64 guest under qemu-system-aarch64 (virt, GICv3, cortex-a57,
# single-threaded TCG: many vCPUs boot fast on few host cores) with its
# serial console in LOGFILE, never reading stdin. Prints the wall time.
# Exit: 0 when the guest powered off, 124 on timeout (QEMU killed), 125 when
# the console shows a kernel panic (panic=-1 + -no-reboot make QEMU exit 0),
# else QEMU's status; on failure the last 20 console lines are printed.
# --disk attaches a raw image as virtio-blk on virtio-mmio (/dev/vda).
# --dumpdtb OUT only writes QEMU's device tree for that machine (packed with
# dtc) and exits; a --dtb must match --smp (QEMU only fills in /chosen).
#
# Usage: qemu-run.sh --kernel IMAGE --initrd CPIO --smp N --timeout SECONDS
#                    --console LOGFILE [--dtb DTB] [--mem MB] [--disk IMG]
#                    [--append "kernel args"]
#        qemu-run.sh --dumpdtb OUT [--smp N] [--mem MB] [other options]
set -uo pipefail

die() { printf 'qemu-run: %s\n' "$*" >&2; exit 2; }
usage() { awk '/^# Usage:/ { p = 1 } p && !/^#/ { exit } p { sub(/^# ?/, ""); print }' "$0" >&2; exit 2; }

kernel='' initrd='' smp=1 timeout='' console='' dtb='' mem=1024 disk='' append='' dumpdtb=''
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case "$1" in
	--kernel) kernel=$2 ;;
	--initrd) initrd=$2 ;;
	--smp) smp=$2 ;;
	--timeout) timeout=$2 ;;
	--console) console=$2 ;;
	--dtb) dtb=$2 ;;
	--mem) mem=$2 ;;
	--disk) disk=$2 ;;
	--append) append=$2 ;;
	--dumpdtb) dumpdtb=$2 ;;
	*) usage ;;
	esac
	shift 2
done

for n in "$smp" "$mem" ${timeout:+"$timeout"}; do
	case "$n" in '' | *[!0-9]*) die "not a number: $n" ;; esac
done

# QEMU's option parser (-machine, -drive, -serial) reads ",," as one comma.
qesc() { printf '%s' "${1//,/,,}"; }

machine=virt,gic-version=3
args=(-cpu cortex-a57 -accel 'tcg,thread=single' -smp "$smp" -m "$mem"
      -nodefaults -display none -no-reboot)
[ -z "$kernel" ] || args+=(-kernel "$kernel"
			    -append "console=ttyAMA0 panic=-1${append:+ $append}")
[ -z "$initrd" ] || args+=(-initrd "$initrd")
[ -z "$dtb" ] || args+=(-dtb "$dtb")
[ -z "$disk" ] || args+=(-drive "if=none,id=disk0,format=raw,file=$(qesc "$disk")"
			  -device 'virtio-blk-device,drive=disk0')

# QEMU dumps its 1 MiB FDT buffer whole, and doubles a -dtb file's size
# when loading it: over the kernel's 2 MiB limit, the guest hangs before
# any console output. dtc packs the dump to its real size.
if [ -n "$dumpdtb" ]; then
	raw=$dumpdtb.raw.$$
	err=$(qemu-system-aarch64 -machine "$machine,dumpdtb=$(qesc "$raw")" \
		"${args[@]}" -serial null </dev/null 2>&1 >/dev/null) ||
		{ rm -f "$raw"; die "dumpdtb failed: $err"; }
	dtc -q -I dtb -O dtb -o "$dumpdtb" "$raw" || { rm -f "$raw"; die "dtc cannot pack $raw"; }
	rm -f "$raw"
	printf 'qemu-run: device tree for -smp %s -m %s in %s\n' "$smp" "$mem" "$dumpdtb"
	exit 0
fi

if [ -z "$kernel" ] || [ -z "$initrd" ] || [ -z "$timeout" ] || [ -z "$console" ]; then
	usage
fi
for f in "$kernel" "$initrd" ${dtb:+"$dtb"} ${disk:+"$disk"}; do
	[ -f "$f" ] || die "no file $f"
done
mkdir -p "$(dirname "$console")" || die "cannot create the folder of $console"
: >"$console"

last_lines() {
	[ -s "$console" ] || { echo "    (the console is empty)"; return; }
	tail -n 20 "$console" | tr -d '\r' | sed 's/^/    /'
}

start=$(date +%s)
# timeout(1) sends TERM (exit 124), then KILL 10 s later (exit 137).
timeout -k 10 "$timeout" qemu-system-aarch64 -machine "$machine" "${args[@]}" \
	-serial "file:$(qesc "$console")" </dev/null &
pid=$!
trap 'kill "$pid" 2>/dev/null' EXIT
trap 'exit 130' INT TERM
wait "$pid"
rc=$?
trap - EXIT
secs=$(($(date +%s) - start))
printf 'qemu-run: guest ran %d s (-smp %s), QEMU exit %d, console: %s\n' \
	"$secs" "$smp" "$rc" "$console"

if [ "$rc" -eq 124 ] || { [ "$rc" -eq 137 ] && [ "$secs" -ge "$timeout" ]; }; then
	printf 'guest timed out after %s s; last console lines:\n' "$timeout"
	last_lines
	exit 124
elif [ "$rc" -ne 0 ]; then
	printf 'QEMU failed (exit %d); last console lines:\n' "$rc"
	last_lines
	exit "$rc"
elif grep -q 'Kernel panic - not syncing' "$console"; then
	printf 'kernel panic in the guest; last console lines:\n'
	last_lines
	exit 125
fi
exit 0
