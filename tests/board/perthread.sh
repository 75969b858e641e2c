# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2154 # out and aux are set by init.sh
#
# Board scenario "perthread" (board.scenarios=perthread), sourced by
# init.sh: perf record --per-thread of /root/hop (tests/board/hop.c), one
# thread without children that binds itself to CPUs of both clusters in
# turn, so that its trace goes to both sinks through one AUX buffer, and
# comes back to the first two CPUs at the end. On each CPU it sleeps once,
# so the event starts at least twice there: still one HW_ID record per CPU.
# The event asks for the CONTEXTID, which perf records only in per-CPU mode
# by default: each sample then names the marker thread of the source that
# wrote it (report.sh).
#
# Session "thread": thread.log has perf's output and the "hop: CPU N" line
# of every CPU the workload ran on.

n=$(nproc)
h=$((n / 2))
session_begin thread
echo "board: perf record --per-thread of hop on CPUs 0 $((n - 1)) 1 $((n - 2)) $h $((h - 1)) 0 $((n - 1))"
/root/perf record -e cs_etm/contextid/ --per-thread -m "${data:-64},${aux:-128}" -o "$out/thread.data" -- \
	/root/hop 20 0 $((n - 1)) 1 $((n - 2)) $h $((h - 1)) 0 $((n - 1)) >"$out/thread.log" 2>&1
echo "exit $?" >>"$out/thread.log"
session_end thread
