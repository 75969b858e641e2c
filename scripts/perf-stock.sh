#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the stock perf of the unpatched 6.1 base once per base version,
# for the decode tests and the benchmark to compare against.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

V=$(base_version)
out=$CACHE/perf-stock-$V
src=$CACHE/perf-stock-src-$V
# A stock perf built before libzstd-dev was installed can't read perf
# record -z files: build it again.
if [ -x "$out/perf" ]; then
	if grep -q 'NEEDED.*libzstd' <(readelf -d "$out/perf") || [ ! -e /usr/include/zstd.h ]; then
		exit 0
	fi
	rm -rf "$out"
fi
if [ ! -d "$src/tools/perf" ]; then
	rm -rf "$src" && mkdir -p "$src"
	git --git-dir="$CACHE/base-$V.git" archive base tools scripts include arch/arm64 \
		Makefile | tar -x -C "$src" || die "cannot export the base's tools/perf"
fi
bash "$TOP/scripts/perf.sh" "$src" "$out" perf-stock
