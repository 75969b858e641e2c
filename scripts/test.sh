#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test command: prepare the tree from patches/, lint the series, run the
# KUnit suites under QEMU, build perf, run the decode tests and the
# simulated board end to end (16 and 128 CPUs). Ends with
# "N passed, N failed" and exits non-zero if anything failed.
#
# Usage: test.sh [--ci]   --ci adds the bisect build of every patch and the
#                          KASAN + PROVE_LOCKING KUnit run
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ci=0
[ "${1:-}" = --ci ] && ci=1
: >"$RESULTS"
S=$TOP/scripts

bash "$S/deps.sh" || exit 1
bash "$S/base.sh" || exit 1
bash "$S/series.sh" apply || exit 1

npatches=$(bash "$S/series.sh" list | wc -l)
say "testing $npatches patches on Debian linux-source-6.1 $(base_version)"

bash "$S/lint.sh" checkpatch kdoc arm64 arm32 cocci
bash "$S/kunit.sh"
bash "$S/perf.sh"
if [ -x "$TOP/tests/decode/run.sh" ]; then
	bash "$S/decode-tests.sh"
fi
bash "$S/board.sh" board16 board128
if [ "$ci" = 1 ]; then
	if [ "$npatches" -gt 1 ]; then
		bash "$S/bisect.sh"
	fi
	bash "$S/kunit.sh" debug
fi

passed=$(grep -c '^PASS ' "$RESULTS")
failed=$(grep -c '^FAIL ' "$RESULTS")
skipped=$(grep -c '^SKIP ' "$RESULTS")
if [ "$failed" -gt 0 ]; then
	say "failed checks:"
	grep '^FAIL ' "$RESULTS" | sed 's/^FAIL /    /'
	say "logs: $LOGDIR"
fi
say "total time $(elapsed)"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
