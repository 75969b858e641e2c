#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build upstream 6.12's perf from Debian's linux-source-6.12 package, once,
# as an anchor the decode tests compare with (make perf-612). A black box:
# its sources are unpacked and built by this script and never read.
#
# Layout: $CACHE/perf-612/{linux,perf-host}, perf -> perf-host/perf.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

top=$CACHE/perf-612
src=$top/linux
tarball=/usr/src/linux-source-6.12.tar.xz
[ -x "$top/perf" ] && exit 0
if [ ! -e "$tarball" ]; then
	apt-get install -y linux-source-6.12 >"$LOGDIR/perf-612-apt.log" 2>&1 ||
		die "cannot install linux-source-6.12 (log: $LOGDIR/perf-612-apt.log)"
fi
if [ ! -d "$src/tools/perf" ]; then
	rm -rf "$src" && mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1 --wildcards \
		'linux-source-6.12/Makefile' 'linux-source-6.12/tools/*' \
		'linux-source-6.12/scripts/*' 'linux-source-6.12/include/*' \
		'linux-source-6.12/arch/arm64/*' 'linux-source-6.12/arch/x86/*' ||
		die "cannot unpack tools/perf of $tarball"
fi
CCACHE_BASEDIR=$top bash "$TOP/scripts/perf.sh" "$src" "$top/perf-host" perf-612 &&
	ln -sfn perf-host/perf "$top/perf"
