#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Decode tests: build the stock perf of the 6.1 base (once per version) and
# an ASan+UBSan perf of the series, then run tests/decode/run.sh against the
# series' perf and count each of its checks.
#
# Usage: decode-tests.sh [all|tests|fuzz]
#   all (default, make decode): the tests, then the bounded fuzz campaign
#   tests: the perf builds and the tests only
#   fuzz: the fuzz campaign only, on the ASan+UBSan perf that "tests" built
#         (make test runs it in the background, see scripts/test.sh)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

what=${1:-all}
case "$what" in
all | tests | fuzz) ;;
*) die "usage: decode-tests.sh [all|tests|fuzz]" ;;
esac

V=$(base_version)
STOCK_OUT=$CACHE/perf-stock-$V
ASAN_OUT=$BUILD/perf-asan
SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer"

# A bounded, seeded fuzz campaign on the ASan+UBSan perf (make fuzz runs a
# longer one): the same files every run, no crash, hang or sanitizer report
run_fuzz() {
	"$TOP/tests/decode/fuzz.sh" "$ASAN_OUT/perf" "$BUILD/fuzz" "${DECODE_FUZZ_FILES:-2000}" 1
}
fuzz_campaign() {
	local flog=$LOGDIR/decode-fuzz.log
	if [ ! -x "$ASAN_OUT/perf" ]; then
		result FAIL "decode fuzz" "no ASan+UBSan perf in $ASAN_OUT (decode-tests.sh tests builds it)"
	elif run_step "decode fuzz campaign (ASan+UBSan perf)" "$flog" run_fuzz; then
		result PASS "decode fuzz: $(grep -m1 '^fuzz:' "$flog" | cut -d' ' -f2-)"
	else
		result FAIL "decode fuzz" "$(grep -m1 '^FAIL' "$flog" | cut -c1-200) (log: $flog)"
	fi
}
if [ "$what" = fuzz ]; then
	fuzz_campaign
	exit "$FAILED"
fi

bash "$TOP/scripts/perf-stock.sh"
[ -x "$STOCK_OUT/perf" ] || { result FAIL "stock perf build"; exit 1; }

# WERROR=0: GCC's sanitizer instrumentation trips -Werror in 6.1 code.
PERF_EXTRA=(WERROR=0 "EXTRA_CFLAGS=$SANITIZE" "LDFLAGS=$SANITIZE")
if ! bash "$TOP/scripts/perf.sh" "$KSRC" "$ASAN_OUT" perf-asan "${PERF_EXTRA[@]}"; then
	exit 1
fi

# count_checks PREFIX LOG: one result per "PASS name" / "FAIL name: why"
# line of LOG
count_checks() {
	local prefix=$1 log=$2 status name
	while read -r status name; do
		case "$status" in
		PASS) result PASS "$prefix ${name}" ;;
		FAIL) result FAIL "$prefix ${name%:}" "$(grep -m1 "^FAIL $name" "$log" | cut -d' ' -f3- | cut -c1-200)" ;;
		esac
	done < <(grep -E '^(PASS|FAIL) ' "$log" | awk '{print $1, $2}')
}

# checked_run WHAT LOG SCRIPT ARGS...: run a check script of tests/decode
# as a step, count each of its checks, and fail unless the checks that ran
# are exactly those it lists (DECODE_LIST=1), each once, and its exit
# status agrees with what it printed
checked_run() {
	local what=$1 log=$2 rc listed ran nfail
	shift 2
	run_step "$what" "$log" "$@"
	rc=$?
	count_checks decode "$log"
	listed=$(DECODE_LIST=1 "$@" | awk '$1 == "CHECK" { print $2 }' | sort)
	ran=$(grep -E '^(PASS|FAIL) ' "$log" | awk '{ sub(/:$/, "", $2); print $2 }' | sort)
	nfail=$(grep -c '^FAIL ' "$log")
	if [ -z "$listed" ]; then
		result FAIL "decode: checks listed ($what)" "${1##*/} lists no check"
	elif [ "$listed" != "$ran" ]; then
		result FAIL "decode: every listed check ran once ($what)" \
			"$(diff <(echo "$listed") <(echo "$ran") | grep '^[<>]' | head -3 | tr '\n' ' ')(< listed only, > ran only; log: $log)"
	else
		result PASS "decode: all $(wc -l <<<"$listed") listed checks ran once ($what)"
	fi
	if [ "$rc" -ne 0 ] && [ "$nfail" -eq 0 ]; then
		result FAIL "decode: ${1##*/} exit status" "exit $rc without a failed check (log: $log)"
	elif [ "$rc" -eq 0 ] && [ "$nfail" -ne 0 ]; then
		result FAIL "decode: ${1##*/} exit status" "exit 0 with $nfail failed checks"
	fi
}

export STOCK_PERF=$STOCK_OUT/perf ASAN_PERF=$ASAN_OUT/perf
rm -rf "$BUILD/decode-tests" "$BUILD/decode-real"
checked_run "decode tests (patched, stock and ASan+UBSan perf)" "$LOGDIR/decode-tests.log" \
	"$TOP/tests/decode/run.sh" "$PERF_DIR/perf" "$BUILD/decode-tests"
# Real hardware trace: the OpenCSD snapshots in every way IDs reach perf,
# judged by OpenCSD's decode of the same bytes
checked_run "decode tests on real hardware trace" "$LOGDIR/decode-real.log" \
	"$TOP/tests/decode/real.sh" "$PERF_DIR/perf" "$BUILD/decode-real"

# The packet encoder and frame formatter of csgen and csboard, against
# OpenCSD's packet lister
olog=$LOGDIR/decode-opencsd.log
run_step "encoder check against OpenCSD" "$olog" \
	"$TOP/tools/cstrace/check-opencsd.sh" "$BUILD/opencsd-check"
orc=$?
count_checks encoder "$olog"
if [ "$orc" -ne 0 ] && ! grep -q '^FAIL ' "$olog"; then
	result FAIL "encoder check: exit status" "exit $orc without a failed check (log: $olog)"
fi

[ "$what" = tests ] || fuzz_campaign
exit "$FAILED"
