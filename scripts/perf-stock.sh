#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the stock perf of the unpatched 6.1 base once per base version,
# for the decode tests and the benchmark to compare against.
#
# Layout: $CACHE/perf-stock-VERSION/{linux,perf-host}, perf -> perf-host/perf:
# the source and the objects sit as build/linux and build/perf-host do, and
# CCACHE_BASEDIR is their parent, so the compiler commands read the same
# relative paths as those of the series' host perf. Every object whose
# sources the series does not change comes from ccache (cold: most of perf).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

V=$(base_version)
top=$CACHE/perf-stock-$V
out=$top/perf-host
src=$top/linux
# A stock perf built before libzstd-dev was installed can't read perf
# record -z files: build it again.
if [ -x "$top/perf" ]; then
	if grep -q 'NEEDED.*libzstd' <(readelf -d "$top/perf") || [ ! -e /usr/include/zstd.h ]; then
		exit 0
	fi
	rm -rf "$top"
fi
# the layout of an older workspace: start over
[ -d "$src" ] || rm -rf "$top"
if [ ! -d "$src/tools/perf" ]; then
	rm -rf "$src" && mkdir -p "$src"
	git --git-dir="$CACHE/base-$V.git" archive base tools scripts include arch/arm64 \
		Makefile | tar -x -C "$src" || die "cannot export the base's tools/perf"
fi
CCACHE_BASEDIR=$top bash "$TOP/scripts/perf.sh" "$src" "$out" perf-stock &&
	ln -sfn perf-host/perf "$top/perf"
