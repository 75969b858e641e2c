# shellcheck shell=bash disable=SC2034
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the decode test scripts (run.sh, real.sh), sourced with their
# arguments PERF_BINARY [WORKDIR] and $here set: $perf (absolute), $work
# and $repo. One line per check, "PASS name" or "FAIL name: detail";
# DECODE_LIST=1 lists the checks instead of running them.

repo=$(cd "$here/../.." && pwd)
perf=${1:?usage: ${0##*/} PERF_BINARY [WORKDIR]}
work=${2:-$(mktemp -d /tmp/csdecode.XXXXXX)}
mkdir -p "$work"
perf=$(cd "$(dirname "$perf")" && pwd)/$(basename "$perf")

npass=0
nfail=0
pass() { echo "PASS $1"; npass=$((npass + 1)); }
fail() { echo "FAIL $1: $2"; nfail=$((nfail + 1)); }
LIST=${DECODE_LIST:-}
# listed NAME: in list mode print the check's name and return 0
listed() { [ -n "$LIST" ] && echo "CHECK $1"; }

# finish: the counts, and an exit status that says whether a check failed
finish() {
	[ -n "$LIST" ] && exit 0
	echo "$npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
	exit
}

# A hang is a failure: no decode of these small files takes a minute
TIMEOUT=${DECODE_TIMEOUT:-60}

# script PERF NAME FIELDS [ARGS...]: perf script of $work/NAME.data ->
# NAME.out/.err, rc; ARGS go to perf script
script_run() {
	local p=$1 name=$2 fields=$3
	shift 3
	timeout -s KILL "$TIMEOUT" "$p" script -i "$work/$name.data" --itrace="${ITRACE:-b}" -F "$fields" "$@" \
		>"$work/$name.out" 2>"$work/$name.err"
}

# pipe_run PERF NAME FIELDS [ARGS...]: the same through a pipe: perf inject of
# $work/NAME.data to stdout into perf script -i -. The exit status is that of
# perf script, or of perf inject if only that one failed.
pipe_run() {
	local p=$1 name=$2 fields=$3 st
	shift 3
	timeout -s KILL "$TIMEOUT" "$p" inject -i "$work/$name.data" -o - 2>"$work/$name.inject.err" |
		timeout -s KILL "$TIMEOUT" "$p" script -i - --itrace="${ITRACE:-b}" -F "$fields" "$@" \
			>"$work/$name.out" 2>"$work/$name.err"
	st=("${PIPESTATUS[@]}")
	cat "$work/$name.inject.err" >>"$work/$name.err"
	[ "${st[1]}" -eq 0 ] && return "${st[0]}"
	return "${st[1]}"
}

# crash RC ERRFILE: print why a run counts as a crash, return 1 if it doesn't.
# Death by SIGILL, SIGABRT, SIGBUS, SIGFPE or SIGSEGV (the shell reports
# 128 + signal), a hang (killed by timeout: 137), or a sanitizer report.
# perf's own error exits (such as 234 = -22) are not crashes.
crash() {
	local rc=$1 err=$2
	case $rc in
	132|134|135|136|139) echo "killed by signal $((rc - 128))"; return 0 ;;
	124|137) echo "hung or killed: exit $rc after at most ${TIMEOUT}s"; return 0 ;;
	esac
	if grep -q "AddressSanitizer\|runtime error:\|LeakSanitizer\|Segmentation fault\|Aborted" "$err"; then
		echo "sanitizer or crash report: $(grep -m1 "AddressSanitizer\|runtime error:\|LeakSanitizer\|Segmentation\|Aborted" "$err")"
		return 0
	fi
	return 1
}
