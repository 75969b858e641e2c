#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the arm64 KUnit kernel (CoreSight drivers and the series' suites)
# with kunit.py, run it under qemu-system-aarch64 and count every test case.
#
# Usage: kunit.sh [normal|debug]
#   normal (default): kunit.py run of the series' kunitconfig with 64 vCPUs,
#           then, on the same kernel, kunit.py's default run as kernel CI
#           types it (one vCPU): its cases count as "kunit default ..."
#   debug   the suites under KASAN and PROVE_LOCKING (kunit/debug.kunitconfig)
#           on the debug guest kernel of the board (board.sh --kernel-only
#           debug), which the board's debug runs boot too: one KASAN and
#           lockdep kernel for both (make ci)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-normal}
CS=drivers/hwtracing/coresight
KUNIT=(python3 tools/testing/kunit/kunit.py)
# kernel CI's command (tools/testing/kunit/kunit.py run, arm64 defaults)
DEFAULT_ARGS=(--arch=arm64 --cross_compile=aarch64-linux-gnu- --kunitconfig="$CS")
# Runs whose skipped cases fail: under kunit.py's default run (one vCPU,
# the command kernel CI types) every case runs.
NO_SKIP_RUNS=(default)

# 64 vCPUs so that CPUs without a legacy trace ID (48 and up) exist; more
# than 8 need GICv3, and single-threaded TCG boots them fast on 2 cores.
# Under KASAN and lockdep a 64-vCPU guest stalls bringing up its CPUs, so
# the debug run uses 8: its cases run whole there too, as the maps of the
# tests have a CPU range of their own, whatever the guest's CPUs.
SMP_QEMU="-machine virt,gic-version=3 -accel tcg,thread=single -smp"

# kunit.py keeps the guest's console in test.log of the build directory;
# each run's copy is scanned, since the next run overwrites it.
console_of() { echo "$LOGDIR/kunit-$1.console"; }

# run_kunit RUN BUILD_DIR SUBCOMMAND ARGS...: kunit.py SUBCOMMAND with
# BUILD_DIR, results in $LOGDIR/kunit-RUN.json
run_kunit() {
	local run=$1 dir=$2 json=$LOGDIR/kunit-$1.json rc
	shift 2
	rm -f "$json" "$KSRC/$dir/test.log" "$(console_of "$run")"
	(cd "$KSRC" && "${KUNIT[@]}" "$1" --build_dir="$dir" "${@:2}" --timeout=900 --json="$json")
	rc=$?
	cp "$KSRC/$dir/test.log" "$(console_of "$run")" 2>/dev/null
	return "$rc"
}

# kunit.py run with 64 vCPUs: builds .kunit as kernel CI's command would
# (same kunitconfig, arch and cross compiler; ccache does not change the
# result, and the QEMU arguments only the run)
run_normal() {
	with_build_lock run_kunit normal "$KUNIT_DIR" run "${DEFAULT_ARGS[@]}" \
		--jobs="$JOBS" --make_options "CC=ccache aarch64-linux-gnu-gcc" \
		--qemu_args="$SMP_QEMU 64"
}
# kernel CI's own run on the kernel just built: exec is run without the
# build, and with kunit.py's QEMU defaults (one vCPU, nr_cpu_ids = 1)
run_default() {
	run_kunit default "$KUNIT_DIR" exec "${DEFAULT_ARGS[@]}"
}
# the suites on the board's debug guest kernel (allnoconfig, the board's
# and its debug fragments, the series' kunitconfig and kunit/
# debug.kunitconfig: every line checked in the .config by board.sh)
run_debug() {
	CSID_RESULTS=/dev/null bash "$TOP/scripts/board.sh" --kernel-only debug || return
	run_kunit debug "$DEBUG_KERNEL_DIR" exec "${DEFAULT_ARGS[@]}" \
		--qemu_args="$SMP_QEMU 8"
}
DEBUG_KERNEL_DIR=.build-board-debug

need_tools "kunit $mode: tools" qemu-system-aarch64:qemu-system-arm \
	aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu ccache:ccache || exit 1
# count RUN RC: one check per test case of RUN's results, and one for its
# console; RC is kunit.py's exit status
count() {
local mode=$1 rc=$2 json=$LOGDIR/kunit-$1.json log=$LOGDIR/kunit-$1.log n status name file skip=SKIP
local fails0
fails0=$(grep -c '^FAIL ' "$RESULTS")
[[ " ${NO_SKIP_RUNS[*]} " != *" $mode "* ]] || skip=FAIL
if [ ! -s "$json" ]; then
	result FAIL "kunit $mode" "no results, log: $log"
	return 1
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
	SKIP) result "$skip" "kunit $mode $name" "skipped" ;;
	MISSING) result FAIL "kunit $mode $name" "declared, but not in the results" ;;
	NOSUITE) result FAIL "kunit $mode suite $name" "declared in $file, but did not run" ;;
	*) result FAIL "kunit $mode $name" "$status, log: $log" ;;
	esac
done <"$LOGDIR/kunit-$mode.cases"
if [ "$n" -eq 0 ]; then
	result FAIL "kunit $mode" "no test case ran, log: $log"
elif [ "$rc" -ne 0 ] && [ "$(grep -c '^FAIL ' "$RESULTS")" = "$fails0" ]; then
	result FAIL "kunit $mode" "kunit.py exited $rc, log: $log"
fi
scan_console "kunit $mode: no kernel warning, BUG, lockdep, KASAN or UBSAN report" "$(console_of "$mode")"
}

case "$mode" in
normal)
	run_step "kunit: build the arm64 kernel with kunit.py, run it with 64 vCPUs" \
		"$LOGDIR/kunit-normal.log" run_normal
	count normal $?
	if [ -f "$KSRC/$KUNIT_DIR/arch/arm64/boot/Image.gz" ]; then
		run_step "kunit: kernel CI's default run (one vCPU) of that kernel" \
			"$LOGDIR/kunit-default.log" run_default
		count default $?
	else
		result FAIL "kunit default" "no kernel to run (the build failed)"
	fi
	;;
debug)
	run_step "kunit (debug): KASAN/lockdep guest kernel of the board, run with 8 vCPUs" \
		"$LOGDIR/kunit-debug.log" run_debug
	count debug $?
	;;
*) die "usage: kunit.sh [normal|debug]" ;;
esac
exit "$FAILED"
