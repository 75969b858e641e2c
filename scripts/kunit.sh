#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the arm64 KUnit kernel (CoreSight drivers and the series' suites)
# with kunit.py, run it under qemu-system-aarch64 and count every test case.
#
# Usage: kunit.sh [debug|default]
#   debug adds KASAN and PROVE_LOCKING; default runs the kernel of the
#   normal mode with kunit.py's own QEMU arguments (one vCPU, so
#   nr_cpu_ids = 1), the command kernel CI runs, where no case may skip:
#   tools/testing/kunit/kunit.py run --arch=arm64
#   --cross_compile=aarch64-linux-gnu- --kunitconfig=drivers/hwtracing/coresight
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-normal}
CS=drivers/hwtracing/coresight
# The series' own kunitconfig, as kernel CI runs it; the vCPUs are ours.
configs=(--kunitconfig="$CS")
build_dir=$KUNIT_DIR
if [ "$mode" = debug ]; then
	configs+=(--kunitconfig="$TOP/kunit/debug.kunitconfig")
	build_dir=$KUNIT_DEBUG_DIR
fi
json=$LOGDIR/kunit-$mode.json
log=$LOGDIR/kunit-$mode.log
# kunit.py keeps the guest's console in test.log of the build directory.
console=$KSRC/$build_dir/test.log

# 64 vCPUs so that CPUs without a legacy trace ID (48 and up) exist; more
# than 8 need GICv3, and single-threaded TCG boots them fast on 2 cores.
# Under KASAN and lockdep a 64-vCPU guest stalls bringing up its CPUs, so
# the debug run uses 8 (its cases for CPUs from 48 on are skipped).
smp=64
[ "$mode" = debug ] && smp=8
qemu_args=(--qemu_args="-machine virt,gic-version=3 -smp $smp -accel tcg,thread=single")
[ "$mode" = default ] && qemu_args=()
run_kunit() {
	rm -f "$json" "$console"
	cd "$KSRC" && with_build_lock python3 tools/testing/kunit/kunit.py run \
		--arch=arm64 --cross_compile=aarch64-linux-gnu- \
		--build_dir="$build_dir" "${configs[@]}" --jobs="$JOBS" \
		--make_options "CC=ccache aarch64-linux-gnu-gcc" \
		"${qemu_args[@]}" \
		--timeout=900 --json="$json"
}

need_tools "kunit $mode: tools" qemu-system-aarch64:qemu-system-arm \
	aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu ccache:ccache || exit 1
say "kunit ($mode): ${configs[*]}"
run_step "kunit ($mode): build arm64 kernel and run under QEMU" "$log" run_kunit
rc=$?
if [ ! -s "$json" ]; then
	result FAIL "kunit $mode" "no results, log: $log"
	exit 1
fi

# One line per test case, "STATUS suite.case": every case that the suites
# in $CS declare (their kunit_case arrays), with its status in the results
# or MISSING, then every other case that ran. "NOSUITE suite file" for a
# declared suite absent from the results. A parameterised case counts once.
if ! python3 - "$KSRC/$CS" "$json" <<'PY' >"$LOGDIR/kunit-$mode.cases"; then
import json, os, re, sys

declared = {}
for root, _, files in os.walk(sys.argv[1]):
    for f in sorted(files):
        if not f.endswith(".c"):
            continue
        path = os.path.join(root, f)
        src = re.sub(r"/\*.*?\*/|//[^\n]*", "", open(path).read(), flags=re.S)
        arrays = {m[1]: re.findall(r"KUNIT_CASE\w*\s*\(\s*(\w+)", m[2]) for m in
                  re.finditer(r"struct\s+kunit_case\s+(\w+)\s*\[\s*\]\s*=\s*\{(.*?)\};", src, re.S)}
        for m in re.finditer(r"struct\s+kunit_suite\s+\w+\s*=\s*\{(.*?)\};", src, re.S):
            name = re.search(r'\.name\s*=\s*"([^"]+)"', m[1])
            cases = re.search(r"\.test_cases\s*=\s*(\w+)", m[1])
            if not name or not cases or cases[1] not in arrays:
                sys.exit(f"{path}: cannot read a kunit_suite's name and cases")
            declared[name[1]] = (path, arrays[cases[1]])

def status(group):
    """Status of a parameterised case: the worst of its parameters."""
    st = {c["status"] for c in group.get("test_cases", [])}
    for s in ("FAIL", "ERROR"):
        if s in st:
            return s
    return "SKIP" if st == {"SKIP"} else "PASS" if st else "ERROR"

ran = {}
for suite in json.load(open(sys.argv[2])).get("sub_groups", []):
    ran[suite["name"]] = {c["name"]: c["status"] for c in suite.get("test_cases", [])}
    ran[suite["name"]].update({g["name"]: status(g) for g in suite.get("sub_groups", [])})
if not declared:
    print("NOSUITE -", sys.argv[1])
for suite, (path, cases) in declared.items():
    if suite not in ran:
        print("NOSUITE", suite, path)
    for case in cases:
        print(ran.get(suite, {}).pop(case, "MISSING"), f"{suite}.{case}")
for suite, cases in ran.items():
    for case, st in cases.items():
        print(st, f"{suite}.{case}")
PY
	result FAIL "kunit $mode: declared cases" "cannot read the suites of $CS"
fi
n=0
while read -r status name file; do
	n=$((n + 1))
	case "$status" in
	PASS) result PASS "kunit $mode $name" ;;
	SKIP)
		if [ "$mode" = default ]; then
			result FAIL "kunit $mode $name" "skipped on one CPU, log: $log"
		else
			result SKIP "kunit $mode $name"
		fi
		;;
	MISSING) result FAIL "kunit $mode $name" "declared, but not in the results" ;;
	NOSUITE) result FAIL "kunit $mode suite $name" "declared in $file, but did not run" ;;
	*) result FAIL "kunit $mode $name" "$status, log: $log" ;;
	esac
done <"$LOGDIR/kunit-$mode.cases"
if [ "$n" -eq 0 ]; then
	result FAIL "kunit $mode" "no test case ran, log: $log"
elif [ "$rc" -ne 0 ] && [ "$FAILED" = 0 ]; then
	result FAIL "kunit $mode" "kunit.py exited $rc, log: $log"
fi
scan_console "kunit $mode: no kernel warning, BUG, lockdep, KASAN or UBSAN report" "$console"
exit "$FAILED"
