#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Cross-build a static arm64 perf from the series tree for the QEMU guest
# (it only records, so no OpenCSD, no scripting, no DWARF) and check that
# the binary is a statically linked aarch64 executable.
#
# Usage: perf-arm64.sh [TREE [OUTDIR [NAME]]]
#        default: the series tree, output $BUILD/perf-arm64/perf
# PERF_REUSE_FEATURES=1 as for perf.sh (the bisect's builds).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

tree=${1:-$KSRC}
out=${2:-$BUILD/perf-arm64}
name=${3:-perf-arm64}
bin=$out/perf
log=$LOGDIR/$name-build.log

# Only the "perf" target: the default one also builds shared objects
# (libperf-jvmti.so, ...) that cannot link with -static. Every optional
# library that Debian has no static arm64 build of installed is switched off
# explicitly, so that the result does not depend on what feature detection
# happens to find; libelf, zlib and zstd (libelf-dev:arm64, zlib1g-dev:arm64,
# libzstd-dev:arm64) stay: zstd for perf record -z (tests/board/
# switchout.sh).
PERF_FLAGS=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
	    "CC=$TOP/scripts/perf-ccache aarch64-linux-gnu-gcc" LDFLAGS=-static
	    NO_LIBPYTHON=1 NO_LIBPERL=1 NO_JEVENTS=1 NO_LIBTRACEEVENT=1
	    NO_JVMTI=1 NO_LIBBPF=1 NO_DWARF=1 NO_LIBDW_DWARF_UNWIND=1
	    NO_LIBUNWIND=1 NO_SLANG=1 NO_GTK2=1 NO_LIBNUMA=1 NO_LIBAUDIT=1
	    NO_LIBCRYPTO=1 NO_LIBBABELTRACE=1 NO_LZMA=1 NO_LIBCAP=1
	    NO_SDT=1 NO_DEMANGLE=1 NO_LIBDEBUGINFOD=1)

build() {
	local features
	mkdir -p "$out"
	features=$(perf_features "$tree" "$out") || return
	with_build_lock make -C "$tree/tools/perf" O="$out" "${PERF_FLAGS[@]}" \
		${features:+"$features"} -j"$JOBS" perf
}

# Up to date: the binary is newer than every file of tools/ and than this
# script (which holds the flags).
up_to_date() {
	[ -x "$bin" ] && [ -z "$(find "$tree/tools" "$0" -newer "$bin" -print -quit)" ]
}

if up_to_date; then
	say "$name: $bin is up to date"
elif ! run_step "$name: static cross build" "$log" build; then
	result FAIL "$name build" "log: $log"
	exit 1
fi

desc=$(file -b "$bin" 2>&1)
case "$desc" in
*aarch64*statically\ linked* | *aarch64*static-pie\ linked*)
	say "$name: $desc"
	result PASS "$name build"
	;;
*)
	result FAIL "$name build" "$bin is not a static aarch64 binary: $desc"
	;;
esac
# perf record -z: zstd linked in (grep reads all of nm's output: with -q
# it would stop early and pipefail would see nm killed by SIGPIPE)
if aarch64-linux-gnu-nm "$bin" 2>/dev/null | grep -w ZSTD_compressStream >/dev/null; then
	result PASS "$name records -z (zstd)"
else
	result FAIL "$name records -z (zstd)" \
		"no zstd in $bin: apt-get install -y libzstd-dev:arm64, then rebuild (log: $log)"
fi
exit "$FAILED"
