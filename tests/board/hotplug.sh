# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2154 # out and aux are set by init.sh
#
# Board scenario "hotplug" (board.scenarios=hotplug), sourced by init.sh:
# perf record -a; once every CPU traces, one CPU of each cluster goes
# offline and comes back online, then the session ends.
#
# Session "hot": hot.cpus has the online CPUs at each step ("before",
# "offline", "online"), hot.maps.STEP the sinks' maps at that step.

n=$(nproc)
h=$((n / 2))
hot_cpus="$((h / 2)) $((h + h / 2))"
cpu_dir=/sys/devices/system/cpu

# hot_step STEP: the online CPUs and the maps at this step
hot_step() {
	echo "$1 $(cat $cpu_dir/online)" >>"$out/hot.cpus"
	save_maps "$out/hot.maps.$1"
}

session_begin hot
echo "board: perf record -e cs_etm// -a, CPUs $hot_cpus offline and online again"
: >"$out/hot.cpus"
record hot stop -e cs_etm// -a &
hot_pid=$!
# shellcheck disable=SC2046 # one argument per CPU
wait_for 30 tracing $(seq 0 $((n - 1)))
hot_step before
for c in $hot_cpus; do
	echo 0 >"$cpu_dir/cpu$c/online"
done
sleep 1
hot_step offline
for c in $hot_cpus; do
	echo 1 >"$cpu_dir/cpu$c/online"
done
sleep 1
hot_step online
stop_record hot
wait "$hot_pid"
session_end hot
