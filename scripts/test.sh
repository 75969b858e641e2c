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
: >"$LOCK_WAITS"
: >"$CCACHE_STATSLOG"
S=$TOP/scripts

# The time budget. CI stops a run at 90 minutes; make ci must end within
# BUDGET seconds on a cold 2-core machine (no ~/.cache/cs-trace-id: no
# ccache, no base repository, no lint baselines, no stock perf; packages
# installed by the run). SHARE is each step's part of it, cold, in seconds;
# the shares add up to BUDGET. A step past its share is flagged when it ends
# and in the table at the end, so that a slow step shows long before CI
# stops the run. With a warm cache make ci should take at most WARM.
BUDGET=3900
WARM=1800
declare -A SHARE=(
	# cold figures of a clean clone's make ci (this machine, 2026-12-04,
	# total 63:04; the background jobs' CPU time lands in the steps they
	# run beside, mostly the board's)
	[prepare]=150		# packages (installed: 0; else about 80 s, which this share leaves room for), base repository 33 s, apply: 77 s
	[lint]=195		# checkpatch, kernel-doc, W=1 + sparse arm64 and arm32 with their base baselines: 193 s
	[kunit]=560		# kunit.py's kernel (cold: 540 s), 64 vCPUs, then the default one-CPU run: 559 s
	[perf]=120		# host perf: 119 s
	[decode]=325		# stock perf (once per version), ASan perf, decode tests, real traces: 324 s
	[board]=810		# guest kernel, static arm64 perf, board16/64/128/64raw, beside coccicheck and fuzz: 802 s
	# every patch, incremental from the objects of the steps above, in two
	# streams (kernel, perf): 1021 s (one stream: 1402 s, of which 356 s
	# the first kernel patch's rebuild of what the board's config then lacked)
	[bisect]=1030
	[kunit-debug]=490	# the KASAN/lockdep guest kernel (shared with board-debug) and the KUnit run on it: 483 s
	[board-debug]=210	# board16 on that kernel, kmemleak scans: 206 s
	[background]=10		# what is left of coccicheck (552 s cold) and the fuzz campaign (840 s): 0 s
)
STEPS=(prepare lint kunit perf decode board bisect kunit-debug board-debug background)
share_sum=0
for s in "${STEPS[@]}"; do share_sum=$((share_sum + SHARE[$s])); done
[ "$share_sum" = "$BUDGET" ] || die "the step shares add up to $share_sum s, not the budget $BUDGET s"

mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# sum_from FILE LINE: sum of the numbers of FILE from line LINE on
sum_from() { tail -n +"$2" "$1" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
nlines() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }

# compiles_from LINE: "N compiled, M from ccache" for the compiler runs
# that ccache logged from line LINE of CCACHE_STATSLOG on (this build
# dir's; other builds on the machine do not count)
compiles_from() {
	tail -n +"$1" "$CCACHE_STATSLOG" 2>/dev/null | awk '
		/^cache_miss$/ { m++ }
		/^(direct|preprocessed)_cache_hit$/ { h++ }
		END { printf "%d compiled, %d from ccache", m, h }'
}

# step NAME CMD...: one step of the test command, timed against its share.
# Its time, the share, the time it waited for the build lock (another
# build held it) and its compiles are listed at the end.
TIMES=()
planned=0
over=0
step() {
	local name=$1 start rc t share=${SHARE[$1]} w0 c0 wait flag='' lock=
	shift
	start=$(date +%s)
	w0=$(($(nlines "$LOCK_WAITS") + 1))
	c0=$(($(nlines "$CCACHE_STATSLOG") + 1))
	"$@"
	rc=$?
	t=$(($(date +%s) - start))
	wait=$(sum_from "$LOCK_WAITS" "$w0")
	planned=$((planned + share))
	if [ "$t" -gt "$share" ]; then
		flag="  OVER its share by $((t - share)) s"
		over=1
	fi
	[ "$wait" = 0 ] || lock=", $wait s waiting for the build lock"
	TIMES+=("$(printf '  %-12s %5d s of %4d s' "$name" "$t" "$share")$lock, $(compiles_from "$c0")$flag")
	say "step $name: $t s of its $share s share${flag:+ -- OVER by $((t - share)) s}${lock:+ (}${lock#, }${lock:+)}; run at $(elapsed) of $(mmss "$BUDGET"), the steps so far planned $(mmss "$planned")"
	return "$rc"
}
prepare() {
	bash "$S/deps.sh" && bash "$S/base.sh" && bash "$S/series.sh" apply
}

# Checks that use one core or two and need nothing built after their step
# run in the background at nice 19 beside the steps that follow, and take
# the CPU time those leave idle (the bisect's links and modpost, the KUnit
# and board guests on single-threaded TCG): lint's coccicheck (2 spatch
# jobs, 2-3 minutes) and the bounded fuzz campaign of the decode tests (one
# ASan+UBSan perf a core, about 400 CPU seconds). The step "background" at
# the end waits for what is left of them, at normal priority again, and
# prints their output.
BG_NAMES=() BG_PIDS=()
start_bg() {
	local name=$1
	shift
	say "$name: started at nice 19 beside the next steps (log: $LOGDIR/bg-$name.out)"
	start_job nice -n 19 "$@" >"$LOGDIR/bg-$name.out" 2>&1
	BG_NAMES+=("$name")
	BG_PIDS+=("$JOB")
}
wait_bg() {
	local i rc=0
	for i in "${!BG_PIDS[@]}"; do
		renice -n 0 -g "${BG_PIDS[$i]}" >/dev/null 2>&1
	done
	for i in "${!BG_PIDS[@]}"; do
		wait "${BG_PIDS[$i]}" || rc=1
		say "${BG_NAMES[$i]} (in the background):"
		grep -v 'still running' "$LOGDIR/bg-${BG_NAMES[$i]}.out"
	done
	return "$rc"
}

step prepare prepare || exit 1
npatches=$(bash "$S/series.sh" list | wc -l)
say "testing $npatches patches on Debian linux-source-6.1 $(base_version)"

step lint bash "$S/lint.sh" checkpatch kdoc arm64 arm32
start_bg coccicheck bash "$S/lint.sh" cocci
step kunit bash "$S/kunit.sh"
step perf bash "$S/perf.sh"
if [ -x "$TOP/tests/decode/run.sh" ]; then
	step decode bash "$S/decode-tests.sh" tests
	start_bg fuzz bash "$S/decode-tests.sh" fuzz
fi
step board bash "$S/board.sh" board16 board64 board128 board64raw
if [ "$ci" = 1 ]; then
	if [ "$npatches" -gt 1 ]; then
		step bisect bash "$S/bisect.sh"
	fi
	step kunit-debug bash "$S/kunit.sh" debug
	step board-debug bash "$S/board.sh" debug
fi
[ ${#BG_PIDS[@]} -eq 0 ] || step background wait_bg

passed=$(grep -c '^PASS ' "$RESULTS")
failed=$(grep -c '^FAIL ' "$RESULTS")
skipped=$(grep -c '^SKIP ' "$RESULTS")
xfailed=$(grep -c '^XFAIL ' "$RESULTS")
if [ "$failed" -gt 0 ]; then
	say "failed checks:"
	grep '^FAIL ' "$RESULTS" | sed 's/^FAIL /    /'
	say "logs: $LOGDIR"
fi
total=$(($(date +%s) - T0))
say "time per step against its share of the $(mmss "$BUDGET") budget of make ci on a cold machine (shares: scripts/test.sh):"
printf '%s\n' "${TIMES[@]}"
if [ "$ci" = 1 ]; then
	verdict="of the $(mmss "$BUDGET") budget (warm cache: $(mmss "$WARM"))"
	[ "$total" -le "$BUDGET" ] || verdict="$verdict -- OVER BUDGET by $(mmss $((total - BUDGET)))"
else
	verdict="of make test's $(mmss "$planned") (its steps' shares of the budget)"
	[ "$total" -le "$planned" ] || verdict="$verdict -- OVER by $(mmss $((total - planned)))"
fi
[ "$over" = 0 ] || verdict="$verdict; steps past their share are flagged OVER"
say "total time $(mmss "$total") $verdict"
if [ "$xfailed" -gt 0 ]; then
	say "expected failures:"
	grep '^XFAIL ' "$RESULTS" | sed 's/^XFAIL /    /'
fi
summary="$passed passed, $failed failed"
[ "$skipped" -eq 0 ] || summary="$summary, $skipped skipped"
[ "$xfailed" -eq 0 ] || summary="$summary, $xfailed expected to fail"
echo "$summary"
[ "$failed" -eq 0 ]
