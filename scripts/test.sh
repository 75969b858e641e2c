#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test command: prepare the tree from patches/, lint the series, run the
# KUnit suites under QEMU, build perf, run the decode tests and the
# simulated board end to end (16, 64 and 128 CPUs). Ends with
# "N passed, N failed" and exits non-zero if anything failed.
#
# Usage: test.sh [--ci]   --ci adds the bisect build of every patch, the
#                          KASAN + PROVE_LOCKING KUnit run and the board
#                          runs on the debug guest kernel (board.sh debug)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ci=0
[ "${1:-}" = --ci ] && ci=1
: >"$RESULTS"
S=$TOP/scripts

# step NAME CMD...: one step of the test command; its time is listed at
# the end.
TIMES=()
step() {
	local name=$1 start rc
	shift
	start=$(date +%s)
	"$@"
	rc=$?
	TIMES+=("$(printf '  %-12s %5d s' "$name" $(($(date +%s) - start)))")
	return "$rc"
}
prepare() {
	bash "$S/deps.sh" && bash "$S/base.sh" && bash "$S/series.sh" apply
}

step prepare prepare || exit 1
npatches=$(bash "$S/series.sh" list | wc -l)
say "testing $npatches patches on Debian linux-source-6.1 $(base_version)"

step lint bash "$S/lint.sh" checkpatch kdoc arm64 arm32 cocci
step kunit bash "$S/kunit.sh"
step kunit-default bash "$S/kunit.sh" default
step perf bash "$S/perf.sh"
if [ -x "$TOP/tests/decode/run.sh" ]; then
	step decode bash "$S/decode-tests.sh"
fi
step board bash "$S/board.sh" board16 board64 board128 board64raw
if [ "$ci" = 1 ]; then
	if [ "$npatches" -gt 1 ]; then
		step bisect bash "$S/bisect.sh"
	fi
	step kunit-debug bash "$S/kunit.sh" debug
	step board-debug bash "$S/board.sh" debug
fi

passed=$(grep -c '^PASS ' "$RESULTS")
failed=$(grep -c '^FAIL ' "$RESULTS")
skipped=$(grep -c '^SKIP ' "$RESULTS")
xfailed=$(grep -c '^XFAIL ' "$RESULTS")
if [ "$failed" -gt 0 ]; then
	say "failed checks:"
	grep '^FAIL ' "$RESULTS" | sed 's/^FAIL /    /'
	say "logs: $LOGDIR"
fi
say "time per step:"
printf '%s\n' "${TIMES[@]}"
say "total time $(elapsed)"
if [ "$xfailed" -gt 0 ]; then
	say "expected failures:"
	grep '^XFAIL ' "$RESULTS" | sed 's/^XFAIL /    /'
fi
summary="$passed passed, $failed failed"
[ "$skipped" -eq 0 ] || summary="$summary, $skipped skipped"
[ "$xfailed" -eq 0 ] || summary="$summary, $xfailed expected to fail"
echo "$summary"
[ "$failed" -eq 0 ]
