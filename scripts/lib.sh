# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Common paths and helpers for the workspace scripts. Source it, do not run it.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${CSID_BUILD:-$TOP/build}
KSRC=$BUILD/linux
LOGDIR=$BUILD/logs
CACHE=${CSID_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cs-trace-id}
RESULTS=${CSID_RESULTS:-$BUILD/results.txt}
JOBS=${JOBS:-$(nproc)}

# Build directories live inside the kernel tree so that Kbuild uses relative
# source paths and ccache hits across clones in different folders.
KUNIT_DIR=.kunit
KUNIT_DEBUG_DIR=.kunit-debug
LINT_DIR=.build-lint-arm64
ARM32_DIR=.build-arm32
PERF_DIR=$BUILD/perf-host

export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
# (perf-stock.sh builds under another base directory)
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$BUILD}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_NOHASHDIR=1
# every compile's outcome (hit or miss) in a log of this build dir, so that
# make test can count per step what was compiled, whatever else shares the
# cache
export CCACHE_STATSLOG=${CCACHE_STATSLOG:-$BUILD/ccache-stats.log}
# seconds each build waited for the build lock, one line per wait
LOCK_WAITS=$BUILD/lock-waits

mkdir -p "$BUILD" "$LOGDIR" "$CACHE"

T0=${T0:-$(date +%s)}
export T0

elapsed() {
	local s=$(($(date +%s) - T0))
	printf '%02d:%02d' $((s / 60)) $((s % 60))
}

say() { printf '[%s] %s\n' "$(elapsed)" "$*"; }
die() { printf '[%s] ERROR: %s\n' "$(elapsed)" "$*" >&2; exit 1; }

# Background jobs of this script, each in its own process group (set -m) so
# that one kill stops the whole job: kunit.py, make and its compilers, QEMU.
# Ctrl-C (SIGINT) or SIGTERM stops them all and exits 130 or 143.
BG_JOBS=()
stop_jobs() {
	local p
	for p in "${BG_JOBS[@]}"; do
		kill -TERM -- "-$p" 2>/dev/null && wait_timeout "$p" 10
		kill -KILL -- "-$p" 2>/dev/null
	done
	BG_JOBS=()
}
on_signal() {
	trap - INT TERM
	stop_jobs
	printf '[%s] %s: stopped by %s, background jobs killed\n' \
		"$(elapsed)" "$(basename "$0")" "$1" >&2
	exit "$2"
}
trap 'on_signal SIGINT 130' INT
trap 'on_signal SIGTERM 143' TERM

# start_job CMD...: start CMD in the background in a process group of its
# own, where stop_jobs finds it; its pid is in JOB. Its stdin is /dev/null:
# a background group must not touch the terminal.
start_job() {
	set -m
	"$@" </dev/null &
	JOB=$!
	set +m
	BG_JOBS+=("$JOB")
}

# run_step NAME LOG CMD... : run CMD with output in LOG, print progress every
# 30 s, and on failure the tail of LOG and its path. Returns CMD's status.
run_step() {
	local name=$1 log=$2 start pid rc
	shift 2
	start=$(date +%s)
	say "$name ..."
	start_job "$@" >"$log" 2>&1
	pid=$JOB
	while ! wait_timeout "$pid" 30; do
		say "  $name: still running, $(($(date +%s) - start)) s (log: $log)"
	done
	wait "$pid"
	rc=$?
	BG_JOBS=()
	if [ "$rc" -ne 0 ]; then
		say "$name FAILED after $(($(date +%s) - start)) s; last lines of $log:"
		tail -n 25 "$log" | sed 's/^/    /'
		say "  full log: $log"
	else
		say "$name done in $(($(date +%s) - start)) s"
	fi
	return "$rc"
}

# wait_timeout PID SECONDS: true once PID has exited, false on timeout.
wait_timeout() {
	local i
	for ((i = 0; i < $2; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 1
	done
	! kill -0 "$1" 2>/dev/null
}

# result PASS|FAIL|SKIP|XFAIL NAME [DETAIL]: count one check of the test
# command. XFAIL: a check that fails as expected (DETAIL says why), not a
# failure of the run.
FAILED=0
result() {
	if [ "$1" = XFAIL ]; then
		printf '%s %s%s\n' "$1" "$2" "${3:+: $3}" >>"$RESULTS"
	else
		printf '%s %s\n' "$1" "$2" >>"$RESULTS"
	fi
	[ "$1" != FAIL ] || FAILED=1
	if [ "$1" = PASS ]; then
		printf '  ok   %s\n' "$2"
	elif [ "$1" = SKIP ]; then
		printf '  skip %s%s\n' "$2" "${3:+: $3}"
	elif [ "$1" = XFAIL ]; then
		printf '  xfail %s%s\n' "$2" "${3:+: $3}"
	else
		printf '  FAIL %s%s\n' "$2" "${3:+: $3}"
	fi
}

# check NAME LOG CMD...: run_step, then count the result.
check() {
	local name=$1
	if run_step "$@"; then
		result PASS "$name"
	else
		result FAIL "$name" "log: $2"
	fi
}

# What a kernel prints when something went wrong, wherever it happens:
# WARN*() ("WARNING: CPU: ..."), BUG*(), oopses and their stack dumps,
# lockdep ("WARNING: possible recursive locking detected", "... circular
# locking ...", "inconsistent lock state", "suspicious RCU usage", "INFO:
# trying to register non-static key", ...), KASAN ("BUG: KASAN: ..."),
# UBSAN ("UBSAN: ..."), panics, RCU stalls, hung tasks and kmemleak.
KERNEL_REPORTS=(
	'WARNING:' 'BUG:' 'Oops' '[Cc]all [Tt]race' 'Unable to handle kernel'
	'Kernel panic' 'kernel BUG at' 'possible (recursive|circular) locking'
	'inconsistent lock state' 'suspicious RCU usage' 'lock held when returning'
	'bad unlock balance' 'INFO: ' 'BUG: KASAN' 'UBSAN:' 'detected stall'
	'blocked for more than' 'suspected memory leak'
)

# scan_console NAME CONSOLE...: one check, failed by the first kernel report
# on any CONSOLE (a missing or empty console fails too).
scan_console() {
	local name=$1 f first
	shift
	for f in "$@"; do
		if [ ! -s "$f" ]; then
			result FAIL "$name" "no console log $f"
			return 1
		fi
	done
	first=$(IFS='|' && grep -m1 -hE "${KERNEL_REPORTS[*]}" "$@" | tr -d '\r')
	if [ -n "$first" ]; then
		result FAIL "$name" "$first"
		return 1
	fi
	result PASS "$name"
}

# need_tools NAME TOOL:PACKAGE...: check NAME fails, naming the apt-get
# line, when a TOOL is not on PATH (TOOL may be a path, e.g. the kernel
# tree's scripts/kernel-doc).
need_tools() {
	local name=$1 t absent=() pkgs=()
	shift
	for t in "$@"; do
		command -v "${t%%:*}" >/dev/null 2>&1 && continue
		absent+=("${t%%:*}")
		pkgs+=("${t#*:}")
	done
	[ ${#absent[@]} -eq 0 ] && return 0
	result FAIL "$name" "${absent[*]} not found; apt-get install -y ${pkgs[*]}"
	return 1
}

base_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null
}

# Files of the kernel tree that the series changes (relative to the tree).
touched_files() {
	git -C "$KSRC" diff --name-only --diff-filter=AM base..HEAD -- "$@"
}

ARM64_MAKE=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
	    "CC=ccache aarch64-linux-gnu-gcc")
ARM32_MAKE=(ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf-
	    "CC=ccache arm-linux-gnueabihf-gcc")

# perf_features TREE OUTDIR: "FEATURES_DUMP=FILE", the features that
# OUTDIR's last build detected (its FEATURE-DUMP, and for those that
# Makefile.config checks one by one, whether their test program built),
# when PERF_REUSE_FEATURES=1 and OUTDIR holds a build; else nothing. perf
# detects them at every build and tries again each test that failed
# (libraries this host lacks): 6-7 s of a no-op build's 9. The bisect and
# make perf-patches build one directory dozens of times in a run on one
# host; the series changes neither the feature tests (tools/build) nor
# perf's use of them (tools/perf/Makefile.config).
perf_features() {
	local tree=$1 out=$2 name
	[ "${PERF_REUSE_FEATURES:-0}" = 1 ] && [ -s "$out/FEATURE-DUMP" ] &&
		[ -x "$out/perf" ] || return 0
	{
		cat "$out/FEATURE-DUMP"
		grep -o 'feature_check,[a-z0-9_-]*' "$tree/tools/perf/Makefile.config" |
			cut -d, -f2 | sort -u | while read -r name; do
				if [ -e "$out/feature/test-$name.bin" ]; then
					echo "feature-$name=1"
				else
					echo "feature-$name=0"
				fi
			done
	} >"$out.features" && echo "FEATURES_DUMP=$out.features"
}

# One kernel build at a time on this machine, whoever starts it. A wait
# for the lock is logged in LOCK_WAITS: make test shows it per step, as
# time the step did not spend on its own work. CSID_BUILD_LOCK names
# another lock (the bisect's perf builds, beside its kernel builds).
with_build_lock() {
	local t0
	t0=$(date +%s)
	(
		flock 9 || exit
		w=$(($(date +%s) - t0))
		[ "$w" -lt 2 ] || echo "$w" >>"$LOCK_WAITS"
		"$@"
	) 9>"${CSID_BUILD_LOCK:-/tmp/csid-build.lock}"
}

kmake_arm64() { make -C "$KSRC" "${ARM64_MAKE[@]}" -j"$JOBS" "$@"; }
kmake_arm32() { make -C "$KSRC" "${ARM32_MAKE[@]}" -j"$JOBS" "$@"; }

# Object directories of build/linux reused by the builds of its worktrees
# (the bisect's, the base's for the lint baselines): make decides what to
# rebuild by modification times, so a worktree's tracked files take the
# times of build/linux's, except those whose content differs (between the
# two commits, or edited in build/linux), which take the time of now. An
# object directory copied from build/linux (cp -a keeps its times) is then
# exactly as up to date in the worktree as in build/linux: what the
# worktree's commit changes is rebuilt, nothing else.
#
# sync_times TREE: TREE is a worktree of build/linux (any commit)
sync_times() {
	local tree=$1 differ
	differ=$({ git -C "$KSRC" diff --name-only HEAD "$(git -C "$tree" rev-parse HEAD)" &&
		   git -C "$KSRC" diff --name-only HEAD; } | sort -u) || return
	git -C "$tree" ls-files -z | python3 -c '
import os, sys, time
src, dst, differ = sys.argv[1], sys.argv[2], set(sys.argv[3].split("\n"))
now = time.time_ns()
for path in sys.stdin.buffer.read().decode().split("\0"):
    if not path:
        continue
    d = os.path.join(dst, path)
    if not os.path.lexists(d):
        continue
    s = os.path.join(src, path)
    if path in differ or not os.path.lexists(s):
        t = now
    else:
        t = os.lstat(s).st_mtime_ns
    os.utime(d, ns=(t, t), follow_symlinks=False)
' "$KSRC" "$tree" "$differ"
}

# seed_odir TREE FROM TO: TREE/TO becomes a copy of build/linux's object
# directory FROM (kept in its state: cp -a), for a build in TREE after
# sync_times TREE. False (and nothing copied) when FROM holds no build.
seed_odir() {
	local tree=$1 from=$KSRC/$2 to=$1/$3
	[ -f "$from/.config" ] || return 1
	rm -rf "$to" && cp -a "$from" "$to"
}

# apply_subst PATH SUBST: apply the perl substitution SUBST (s/.../.../, no g
# flag) to the file PATH, which it must match exactly once (the mutants of
# tests/mutants/mutants.txt)
apply_subst() {
	perl -e '
		my ($file, $sub) = @ARGV;
		open(my $in, "<", $file) or die "$file: $!\n";
		my $text = do { local $/; <$in> };
		close($in);
		my $n = eval "\$text =~ ${sub}g";
		die "bad substitution: $@" if $@;
		$n ||= 0;
		die "matches $n times, not once\n" if $n != 1;
		open(my $out, ">", $file) or die "$file: $!\n";
		print $out $text;
		close($out) or die "$file: $!\n";
	' "$1" "$2"
}
