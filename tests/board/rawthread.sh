#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest scenario (board64raw, run by init.sh from board.scripts=): perf
# record --per-thread on per-CPU raw sinks. The workload is one shell
# that moves itself across CPUs below and from 48 on (taskset -p on its
# own PID, runs in a child that is not traced: --no-inherit) and spins a
# while on each; it starts on the first of them. Its one event follows it from CPU to CPU, and each CPU's
# sink writes its unformatted trace into the one AUX buffer.
#
# Writes OUT/rawthread.data, OUT/rawthread.log (perf's output and exit
# status), OUT/rawthread.stats (what each source and sink wrote) and
# OUT/rawthread.cpus (the CPUs the workload ran on), which
# tests/board/raw-check.sh checks on the host.
#
# Usage: rawthread.sh OUT
out=${1:?usage: rawthread.sh OUT}
cpus="3 50 63 20 48"
for f in /sys/bus/coresight/devices/*/sim/stats; do
	echo 0 >"$f"
done
echo "$cpus" >"$out/rawthread.cpus"
# perf and its workload start on the first CPU of the list. The event asks
# for the CONTEXTID, which perf records only in per-CPU mode by default:
# the samples then carry the marker thread of the CPU whose source wrote
# them (as in perthread.sh).
taskset -c "${cpus%% *}" /root/perf record --per-thread --no-inherit -e cs_etm/contextid/ -m 16,256 \
	-o "$out/rawthread.data" -- sh -c '
for c in '"$cpus"'; do
	taskset -p -c $c $$ >/dev/null
	i=0
	while [ $i -lt 2000 ]; do i=$((i + 1)); done
done' >"$out/rawthread.perf.log" 2>&1
echo "exit $?" >>"$out/rawthread.perf.log"
cat /sys/bus/coresight/devices/*/sim/stats >"$out/rawthread.stats"
