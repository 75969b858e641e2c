#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Decode tests: build the stock perf of the 6.1 base (once per version) and
# an ASan+UBSan perf of the series, then run tests/decode/run.sh against the
# series' perf and count each of its checks.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

V=$(base_version)
STOCK_OUT=$CACHE/perf-stock-$V
ASAN_OUT=$BUILD/perf-asan
SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer"

bash "$TOP/scripts/perf-stock.sh"
[ -x "$STOCK_OUT/perf" ] || { result FAIL "stock perf build"; exit 1; }

# WERROR=0: GCC's sanitizer instrumentation trips -Werror in 6.1 code.
PERF_EXTRA=(WERROR=0 "EXTRA_CFLAGS=$SANITIZE" "LDFLAGS=$SANITIZE")
if ! bash "$TOP/scripts/perf.sh" "$KSRC" "$ASAN_OUT" perf-asan "${PERF_EXTRA[@]}"; then
	exit 1
fi

log=$LOGDIR/decode-tests.log
work=$BUILD/decode-tests
rm -rf "$work"
run_decode() {
	STOCK_PERF=$STOCK_OUT/perf ASAN_PERF=$ASAN_OUT/perf \
		"$TOP/tests/decode/run.sh" "$PERF_DIR/perf" "$work"
}
run_step "decode tests (patched, stock and ASan+UBSan perf)" "$log" run_decode
n=0
while read -r status name; do
	n=$((n + 1))
	case "$status" in
	PASS) result PASS "decode ${name}" ;;
	FAIL) result FAIL "decode ${name%:}" "$(grep -m1 "^FAIL $name" "$log" | cut -d' ' -f3- | cut -c1-200)" ;;
	esac
done < <(grep -E '^(PASS|FAIL) ' "$log" | awk '{print $1, $2}')
[ "$n" -gt 0 ] || result FAIL "decode tests" "no check ran, log: $log"
exit "$FAILED"
