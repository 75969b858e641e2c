#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The whole job on a fresh machine: install what is missing, make the base
# tree, apply patches/, build the arm64 kernel (with its KUnit suites, run
# under QEMU) and the host perf, boot the simulated 64-CPU, 2-sink CoreSight
# board in QEMU with `perf record -e cs_etm// -a`, decode it on the host and
# show the result: CPUs from 48 on traced, trace IDs shared by the sinks.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

S=$TOP/scripts
: >"$RESULTS"

bash "$S/deps.sh" || exit 1
bash "$S/base.sh" || exit 1
bash "$S/series.sh" apply || exit 1
bash "$S/kunit.sh"
bash "$S/perf.sh"
bash "$S/board.sh" board64

image=$KSRC/$KUNIT_DIR/arch/arm64/boot/Image.gz
echo
echo "== Result ($(elapsed)) =="
echo "base:    Debian linux-source-6.1 $(base_version), $(bash "$S/series.sh" list | wc -l) patches from patches/"
git -C "$KSRC" log --format='         %h %s' base..HEAD
if [ -f "$image" ]; then
	echo "kernel:  $image ($(du -h "$image" | cut -f1), arm64, CoreSight + KUnit)"
fi
board=$KSRC/.build-board/arch/arm64/boot/Image
if [ -f "$board" ]; then
	echo "board:   $board (guest kernel), $BUILD/csboard/csboard.ko,"
	echo "         $BUILD/perf-arm64/perf (static arm64)"
fi
if [ -x "$PERF_DIR/perf" ]; then
	echo "perf:    $PERF_DIR/perf ($("$PERF_DIR/perf" version), OpenCSD $(dpkg-query -W -f='${Version}' libopencsd-dev))"
fi
echo
echo "KUnit (arm64, QEMU):"
if [ -f "$LOGDIR/kunit-normal.log" ]; then
	grep -E '^\[[0-9:]+\] (=+|\[(PASSED|FAILED|SKIPPED)\]|Testing complete)' \
		"$LOGDIR/kunit-normal.log" | sed -E 's/^\[[0-9:]+\] /  /'
fi
table=$LOGDIR/board64-default.table
if [ -s "$table" ]; then
	echo
	echo "Simulated board, 64 CPUs on 2 sinks: perf record -e cs_etm// -a in QEMU, decoded here"
	echo "(trace ID: allocated by the kernel / used by the decoder; CPUs 48-63 have no legacy"
	echo " ID and take the lowest free ID of their sink; shared: the other sink uses the same"
	echo " ID at the same time; markers: every sample of the CPU's marker thread csboard/<cpu>"
	echo " decoded on that CPU):"
	cat "$table"
fi
failed=$(grep -c '^FAIL ' "$RESULTS")
echo
if [ "$failed" -gt 0 ]; then
	echo "Failed:"
	grep '^FAIL ' "$RESULTS" | sed 's/^FAIL /  /'
	echo "logs: $LOGDIR"
	exit 1
fi
echo "All built. Run the tests with: make test"
