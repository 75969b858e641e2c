#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the arm64 KUnit kernel (CoreSight drivers and the series' suites)
# with kunit.py, run it under qemu-system-aarch64 and count every test case.
#
# Usage: kunit.sh [debug]   debug adds KASAN and PROVE_LOCKING
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-normal}
configs=(--kunitconfig="$TOP/kunit/coresight.kunitconfig")
build_dir=$KUNIT_DIR
if [ "$mode" = debug ]; then
	configs+=(--kunitconfig="$TOP/kunit/debug.kunitconfig")
	build_dir=$KUNIT_DEBUG_DIR
fi
json=$LOGDIR/kunit-$mode.json
log=$LOGDIR/kunit-$mode.log

# 64 vCPUs so that CPUs without a legacy trace ID (48 and up) exist; more
# than 8 need GICv3, and single-threaded TCG boots them fast on 2 cores.
# Under KASAN and lockdep a 64-vCPU guest stalls bringing up its CPUs, so
# the debug run uses 8 (its cases for CPUs from 48 on are skipped).
smp=64
[ "$mode" = debug ] && smp=8
run_kunit() {
	rm -f "$json"
	cd "$KSRC" && with_build_lock python3 tools/testing/kunit/kunit.py run \
		--arch=arm64 --cross_compile=aarch64-linux-gnu- \
		--build_dir="$build_dir" "${configs[@]}" --jobs="$JOBS" \
		--make_options "CC=ccache aarch64-linux-gnu-gcc" \
		--qemu_args="-machine virt,gic-version=3 -smp $smp -accel tcg,thread=single" \
		--timeout=900 --json="$json"
}

run_step "kunit ($mode): build arm64 kernel and run under QEMU" "$log" run_kunit
rc=$?
if [ ! -s "$json" ]; then
	result FAIL "kunit $mode" "no results, log: $log"
	exit 1
fi

# One result line per test case: STATUS suite.case
python3 - "$json" <<'PY' >"$LOGDIR/kunit-$mode.cases"
import json, sys

data = json.load(open(sys.argv[1]))
def cases(node, suite):
    for c in node.get("test_cases", []):
        yield c["status"], f"{suite}.{c['name']}" if suite else c["name"]
    for g in node.get("sub_groups", []):
        yield from cases(g, g.get("name", suite))
for status, name in cases(data, ""):
    print(status, name)
PY
n=0
while read -r status name; do
	n=$((n + 1))
	case "$status" in
	PASS) result PASS "kunit $mode $name" ;;
	SKIP) result SKIP "kunit $mode $name" ;;
	*) result FAIL "kunit $mode $name" "$status, log: $log" ;;
	esac
done <"$LOGDIR/kunit-$mode.cases"
if [ "$n" -eq 0 ]; then
	result FAIL "kunit $mode" "no test case ran, log: $log"
elif [ "$rc" -ne 0 ] && [ "$FAILED" = 0 ]; then
	result FAIL "kunit $mode" "kunit.py exited $rc, log: $log"
fi
# kunit.py keeps the guest's console in test.log of the build directory.
console=$KSRC/$build_dir/test.log
reports='BUG: KASAN|WARNING: possible|INFO: possible|BUG: sleeping function|BUG: spinlock|WARNING: suspicious RCU'
if [ "$mode" = debug ]; then
	if [ ! -s "$console" ]; then
		result FAIL "kunit $mode: no KASAN or lockdep report" "no guest console in $console"
	elif grep -qE "$reports" "$console" "$log"; then
		grep -m5 -E "$reports" "$console" "$log" | sed 's/^/    /'
		result FAIL "kunit $mode: no KASAN or lockdep report" "see $console"
	else
		result PASS "kunit $mode: no KASAN or lockdep report"
	fi
fi
exit "$FAILED"
