#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Decode benchmark (figures, not a pass/fail test): the series' perf against
# the stock 6.1 perf, both built here in the same run.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

CSID_RESULTS=/dev/null bash "$TOP/scripts/perf.sh" >/dev/null || die "perf build failed"
CSID_RESULTS=/dev/null bash "$TOP/scripts/perf-stock.sh" >/dev/null || die "stock perf build failed"
exec "$TOP/tests/decode/bench.sh" "$PERF_DIR/perf" "$CACHE/perf-stock-$(base_version)/perf" \
	"$BUILD/bench" "${RUNS:-5}"
