#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The perf half patch by patch (make perf-patches, not part of make ci):
# for each commit of the series that changes tools/, in a worktree of
# build/linux of its own (build/linux is never touched), build perf
# incrementally and run the decode tests (tests/decode/run.sh) with it.
#
# A check is a feature of the series, or a 6.1 bug it fixes: it fails
# before the patch that brings it and must pass from there on. So the rule
# is that a check that passed at a patch passes at every later one (no
# patch breaks what an earlier one made work), and at the last patch every
# check passes (make test checks that too). Each patch prints how many
# checks pass there and which ones it turns from failing to passing.
#
# Usage: perf-patches.sh [REV_RANGE]   default: base..series
# DECODE_TIMEOUT (default 20 s here): the limit of one perf run; the perf
# of an early patch hangs on some malformed files (6.1 bugs fixed later).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

RANGE=${1:-base..series}
PTREE=$BUILD/perf-patches-tree
POUT=$BUILD/perf-patches
PWORK=$BUILD/perf-patches-work
export DECODE_TIMEOUT=${DECODE_TIMEOUT:-20}
mkdir -p "$POUT" "$PWORK"
# its checks are not make test's
RESULTS=$PWORK/results.txt
: >"$RESULTS"

# The decode tests and the generator as they are now: every patch runs the
# same tests, whatever is edited in the workspace meanwhile.
SUITE=$PWORK/suite
SNAPSHOTS=${SNAPSHOTS:-$(cd "$TOP/.." && pwd)/shared/data/opencsd-snapshots}
export SNAPSHOTS
rm -rf "$SUITE" && mkdir -p "$SUITE/tests" &&
	cp -a "$TOP/tests/decode" "$SUITE/tests/" && cp -a "$TOP/tools" "$SUITE/" ||
	die "cannot copy the decode tests to $SUITE"

if [ ! -e "$PTREE/.git" ]; then
	git -C "$KSRC" worktree add -q --detach "$PTREE" base ||
		die "cannot add the worktree $PTREE"
fi

mapfile -t commits < <(git -C "$KSRC" rev-list --reverse "$RANGE" -- tools)
[ "${#commits[@]}" -gt 0 ] || die "no commit of $RANGE changes tools/"
say "perf-patches: ${#commits[@]} commits of $RANGE change tools/; logs in $PWORK"

# build_perf N: perf of the worktree's commit, built and checked by
# scripts/perf.sh (its checks go to this run's results only)
build_perf() {
	CSID_RESULTS=$RESULTS PERF_REUSE_FEATURES=1 \
		bash "$TOP/scripts/perf.sh" "$PTREE" "$POUT" "perf-patch-$1" \
		>"$PWORK/build-$1.log" 2>&1
}

declare -A passed_at	# check -> number of the first patch it passed at
for i in "${!commits[@]}"; do
	n=$((i + 1)) c=${commits[$i]}
	subj=$(git -C "$KSRC" log -1 --format=%s "$c")
	name="perf patch $n/${#commits[@]} ($(git -C "$KSRC" log -1 --format=%h "$c") $subj)"
	git -C "$PTREE" checkout -q -f --detach "$c" || die "cannot check out $c"
	if ! build_perf "$n"; then
		result FAIL "$name: build" "log: $PWORK/build-$n.log"
		continue
	fi
	env -u STOCK_PERF -u ASAN_PERF "$SUITE/tests/decode/run.sh" "$POUT/perf" \
		"$PWORK/decode" >"$PWORK/run-$n.log" 2>&1
	regressed=() new=() npass=0 nall=0
	while read -r status check; do
		check=${check%:}
		nall=$((nall + 1))
		if [ "$status" = PASS ]; then
			npass=$((npass + 1))
			[ -n "${passed_at[$check]:-}" ] || { passed_at[$check]=$n; new+=("$check"); }
		elif [ -n "${passed_at[$check]:-}" ]; then
			regressed+=("$check (passed from patch ${passed_at[$check]})")
		fi
	done < <(grep -E '^(PASS|FAIL) ' "$PWORK/run-$n.log" | awk '{print $1, $2}')
	if [ "${#regressed[@]}" -gt 0 ]; then
		result FAIL "$name" "$npass of $nall pass; failing again: ${regressed[*]} (log: $PWORK/run-$n.log)"
	elif [ "$n" -eq "${#commits[@]}" ] && [ "$npass" -ne "$nall" ]; then
		result FAIL "$name" "the last patch: $npass of $nall pass (log: $PWORK/run-$n.log)"
	else
		result PASS "$name: $npass of $nall pass, ${#new[@]} newly${new:+: ${new[*]}}"
	fi
done
exit "$FAILED"
