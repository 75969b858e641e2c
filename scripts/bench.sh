#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Decode benchmark (figures, not a pass/fail test): the series' perf against
# the stock 6.1 perf, both built here in the same run.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

CSID_RESULTS=/dev/null bash "$TOP/scripts/perf.sh" >/dev/null || die "perf build failed"
CSID_RESULTS=/dev/null bash "$TOP/scripts/perf-stock.sh" >/dev/null || die "stock perf build failed"
"$TOP/tests/decode/bench.sh" "$PERF_DIR/perf" "$CACHE/perf-stock-$(base_version)/perf" \
	"$BUILD/bench" "${RUNS:-5}" || exit 1
# The real-trace checks of make test on the whole 1 MiB capture instead of
# a slice of it (a judgement of perf, here for its figures only)
REAL_FULL=1 "$TOP/tests/decode/real.sh" "$PERF_DIR/perf" "$BUILD/bench-real" >"$LOGDIR/bench-real.log" 2>&1
echo "real trace, whole captures (tests/decode/real.sh, REAL_FULL=1): $(tail -1 "$LOGDIR/bench-real.log"); log: $LOGDIR/bench-real.log"
