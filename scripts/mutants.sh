#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Mutation check of the test suite: apply each deliberate break of
# tests/mutants/mutants.txt to the series, one at a time, in a worktree of
# build/linux of its own, and run the fast test that should catch it (the
# KUnit suites or the decode tests). A mutant that the test does not catch
# is behaviour no test checks.
#
# Usage: mutants.sh [NAME...]   default: every mutant of the list
#
# Prints one line per mutant and "N of M mutants caught", naming the
# survivors; exits non-zero if a mutant survived or did not apply, or if
# the tests fail on the unmutated series (then nothing would be learnt).
# Not part of make ci: each mutant is an incremental kernel or perf build
# plus a test run.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

LIST=${MUTANTS_LIST:-$TOP/tests/mutants/mutants.txt}
MTREE=$BUILD/mutants-tree
MWORK=$BUILD/mutants
MKUNIT_DIR=.kunit-mutants
MPERF_DIR=$BUILD/perf-mutants
# perf.sh counts its checks in a results file: not in make test's
export CSID_RESULTS=$MWORK/results.txt
mkdir -p "$MWORK"

tip=$(git -C "$KSRC" rev-parse --verify -q 'series^{commit}') ||
	die "no branch 'series' in $KSRC: run make apply first"

# The worktree, detached at the series tip; build/linux is never touched.
if [ ! -e "$MTREE/.git" ]; then
	say "mutants: worktree $MTREE at series $(git -C "$KSRC" log -1 --format=%h "$tip")"
	git -C "$KSRC" worktree add -q --detach "$MTREE" "$tip" ||
		die "cannot add the worktree $MTREE"
fi

# Tracked files back to the series tip; untracked build dirs are kept, so
# that every build after the first is incremental.
reset_tree() {
	git -C "$MTREE" checkout -q -f --detach "$tip" &&
		git -C "$MTREE" reset -q --hard "$tip"
}

# apply_mutant FILE SUBST: FILE in the mutants' worktree
apply_mutant() { apply_subst "$MTREE/$1" "$2"; }

# wait_job NAME LOG: wait for the job start_job started, with progress
# every 60 s; returns its exit status.
wait_job() {
	local pid=$JOB start rc
	start=$(date +%s)
	while ! wait_timeout "$pid" 60; do
		say "    $1: still running, $(($(date +%s) - start)) s (log: $2)"
	done
	wait "$pid"
	rc=$?
	# shellcheck disable=SC2034 # stop_jobs in lib.sh reads it
	BG_JOBS=()
	return "$rc"
}

# The KUnit suites of drivers/hwtracing/coresight under kunit.py's default
# run, as kernel CI types it (one vCPU): every mutant of a KUnit-tested
# behaviour must be caught there. The mutant tree has its own build dir.
run_kunit() {
	cd "$MTREE" && with_build_lock python3 tools/testing/kunit/kunit.py run \
		--arch=arm64 --cross_compile=aarch64-linux-gnu- \
		--build_dir="$MKUNIT_DIR" --kunitconfig=drivers/hwtracing/coresight \
		--jobs="$JOBS" --make_options "CC=ccache aarch64-linux-gnu-gcc" \
		--timeout=900 --json="$1"
}

# test_kunit NAME: 1 (caught) if kunit.py fails (a case fails, or the
# kernel does not get through the suites), no case passes, or the console
# has a kernel report; 2 (no verdict) if the kernel does not build or there
# is no console to scan. VERDICT says why.
test_kunit() {
	local log=$MWORK/$1.log json=$MWORK/$1.json console=$MTREE/$MKUNIT_DIR/test.log
	local first
	rm -f "$json" "$console"
	start_job run_kunit "$json" >"$log" 2>&1
	if ! wait_job "$1: kunit" "$log"; then
		if ! grep -q 'Starting KUnit Kernel' "$log"; then
			VERDICT="the kernel does not build"
			return 2
		elif [ ! -s "$json" ]; then
			VERDICT="the kernel did not get through the suites"
		else
			VERDICT="KUnit failed: $(grep -m1 -E '\[FAILED\]' "$log" | sed 's/^.*\] //')"
		fi
		return 1
	fi
	if [ ! -s "$json" ] || ! grep -q '"status": "PASS"' "$json"; then
		VERDICT="no passing KUnit result"
		return 1
	fi
	if [ ! -s "$console" ]; then
		VERDICT="no guest console in $console to scan"
		return 2
	fi
	first=$(IFS='|' && grep -m1 -hE "${KERNEL_REPORTS[*]}" "$console" | tr -d '\r')
	if [ -n "$first" ]; then
		VERDICT="kernel report: $first"
		return 1
	fi
	VERDICT="all KUnit cases passed, console clean"
	return 0
}

# test_decode NAME: 1 (caught) if a decode check fails, 2 (no verdict) if
# perf does not build. Only the patched perf: no stock or ASan perf.
test_decode() {
	local log=$MWORK/$1.log first
	start_job bash "$TOP/scripts/perf.sh" "$MTREE" "$MPERF_DIR" perf-mutants >"$log" 2>&1
	if ! wait_job "$1: perf build" "$log"; then
		VERDICT="perf does not build"
		return 2
	fi
	rm -rf "$MWORK/decode"
	# the copy of the suite finds the real trace where the workspace does
	start_job env -u STOCK_PERF -u ASAN_PERF SNAPSHOTS="$SNAPSHOTS" \
		"$SUITE/tests/decode/run.sh" "$MPERF_DIR/perf" "$MWORK/decode" >>"$log" 2>&1
	if ! wait_job "$1: decode tests" "$log"; then
		first=$(grep -m1 '^FAIL ' "$log" | cut -c1-160)
		VERDICT="$(grep -c '^FAIL ' "$log") decode checks failed, first: ${first:-none (run.sh failed)}"
		return 1
	fi
	VERDICT="$(tail -1 "$log")"
	return 0
}

# Read the list: NAME TEST FILE SUBST
names=() tests=() files=() substs=()
while read -r name test file subst; do
	case $name in '' | '#'*) continue ;; esac
	[ -n "$subst" ] || die "$LIST: '$name' has no substitution"
	case $test in
	kunit | decode) ;;
	board) continue ;;	# scripts/board-mutant.sh runs these
	*) die "$LIST: '$name': unknown test '$test'" ;;
	esac
	names+=("$name") tests+=("$test") files+=("$file") substs+=("$subst")
done <"$LIST"
[ ${#names[@]} -gt 0 ] || die "$LIST: no mutants"

# Selection on the command line
sel=()
for i in "${!names[@]}"; do
	if [ $# -eq 0 ] || printf '%s\n' "$@" | grep -qFx "${names[$i]}"; then
		sel+=("$i")
	fi
done
for n in "$@"; do
	printf '%s\n' "${names[@]}" | grep -qFx "$n" || die "no mutant '$n' in $LIST"
done

need_tools "mutants: tools" perl:perl qemu-system-aarch64:qemu-system-arm \
	aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu ccache:ccache || exit 1

say "mutants: ${#sel[@]} of ${#names[@]} from $LIST, series $(git -C "$KSRC" log -1 --format='%h %s' "$tip")"
say "  tree $MTREE, logs $MWORK/NAME.log"

# The decode tests and the generator they build, as they are now: every
# mutant runs the same tests, whatever is edited in the workspace meanwhile.
SUITE=$MWORK/suite
SNAPSHOTS=${SNAPSHOTS:-$(cd "$TOP/.." && pwd)/shared/data/opencsd-snapshots}
rm -rf "$SUITE" && mkdir -p "$SUITE/tests" &&
	cp -a "$TOP/tests/decode" "$SUITE/tests/" && cp -a "$TOP/tools" "$SUITE/" ||
	die "cannot copy the decode tests to $SUITE"

# The tests must pass on the unmutated series, or every mutant is "caught".
reset_tree || die "cannot reset $MTREE to $tip"
for kind in kunit decode; do
	for i in "${sel[@]}"; do
		[ "${tests[$i]}" = "$kind" ] || continue
		say "baseline: $kind on the unmutated series ..."
		if ! "test_$kind" "baseline-$kind"; then
			say "baseline: $kind FAILS without a mutant: $VERDICT (log: $MWORK/baseline-$kind.log)"
			exit 1
		fi
		say "baseline: $kind passes ($VERDICT)"
		break
	done
done

caught=0 total=0 survivors=() unapplied=() unbuilt=()
for i in "${sel[@]}"; do
	name=${names[$i]} test=${tests[$i]} file=${files[$i]}
	total=$((total + 1))
	start=$(date +%s)
	reset_tree || die "cannot reset $MTREE to $tip"
	if ! err=$(apply_mutant "$file" "${substs[$i]}" 2>&1); then
		say "mutant $name: DID NOT APPLY to $file: $err"
		unapplied+=("$name")
		continue
	fi
	git -C "$MTREE" diff --stat --exit-code >/dev/null &&
		{ say "mutant $name: DID NOT APPLY: $file unchanged"; unapplied+=("$name"); continue; }
	git -C "$MTREE" diff >"$MWORK/$name.diff"
	say "mutant $name ($test) ..."
	"test_$test" "$name"
	case $? in
	0)	say "mutant $name: SURVIVED ($test: $VERDICT) in $(($(date +%s) - start)) s"
		survivors+=("$name") ;;
	1)	say "mutant $name: caught ($test: $VERDICT) in $(($(date +%s) - start)) s"
		caught=$((caught + 1)) ;;
	*)	# a mutant that only breaks the build tells nothing of the tests
		say "mutant $name: NO VERDICT ($test: $VERDICT) in $(($(date +%s) - start)) s"
		unbuilt+=("$name") ;;
	esac
done
reset_tree

say "$caught of $total mutants caught"
[ ${#survivors[@]} -eq 0 ] || say "survived (behaviour no test checks): ${survivors[*]}"
[ ${#unapplied[@]} -eq 0 ] || say "did not apply (the series moved the code): ${unapplied[*]}"
[ ${#unbuilt[@]} -eq 0 ] || say "no verdict (the mutant does not build, or no console): ${unbuilt[*]}"
[ ${#survivors[@]} -eq 0 ] && [ ${#unapplied[@]} -eq 0 ] && [ ${#unbuilt[@]} -eq 0 ]
