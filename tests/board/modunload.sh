#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest scenario (board128, run by init.sh from board.scripts=): unloading
# the sinks' module csboard-sink.ko while a perf event holds a buffer of
# one of its sinks without any path to it (issue 11 item 2): a CPU event
# whose CPU got no trace ID because the sink's map was full.
#
#   A: perf record on the global sink simsink2, CPUs 0-110: 111 IDs, the
#      map is full.
#   B: perf record on simsink2, CPU 111: no free ID, so the event keeps
#      its buffer but releases its path; A then ends, and only B holds
#      the sink (its map keeps A's IDs until B ends).
#   rmmod csboard-sink while B runs: must be refused. After B: rmmod and
#   insmod again, and a short session on a reloaded sink; then kmemleak,
#   if the kernel has it.
#
# On a board without a sink that more than 111 CPUs reach (the debug
# variant's small boards), there is no A and B traces CPU 0 on its
# default sink ("mode small"): the unload is refused because of its path;
# the reload and kmemleak are the same.
#
# Writes the facts to OUT/modunload.facts, "KEY VALUE..." lines that
# tests/board/modunload-check.sh checks on the host.
#
# Usage: modunload.sh OUT
out=${1:?usage: modunload.sh OUT}
facts=$out/modunload.facts
perf=/root/perf
sinks=/sys/bus/event_source/devices/cs_etm/sinks
: >"$facts"
fact() { echo "$*" >>"$facts"; }

# waitfor FILE: until the workload of a perf record wrote its PID to FILE
# (it runs only once the events are set up), at most 120 s; prints the PID
waitfor() {
	i=0
	while [ $i -lt 240 ]; do
		if [ -s "$1" ]; then
			cat "$1"
			return 0
		fi
		sleep 0.5
		i=$((i + 1))
	done
	return 1
}

sink_ids() {
	for s in "$sinks"/*; do
		[ -e "$s" ] && echo "$(basename "$s")=$(cat "$s")"
	done | tr '\n' ' '
}

fact "sinks_before $(sink_ids)"
dmesg -c >/dev/null
if [ "$(nproc)" -lt 112 ] || [ ! -e "$sinks/simsink2" ]; then
	fact "mode small"
	$perf record -e cs_etm// -C 0 -m 16,4 -o /tmp/mu-b.data -- \
		sh -c 'echo $$ >/tmp/mu-b.pid; exec sleep 600' >/tmp/mu-b.log 2>&1 &
	b=$!
	sb=$(waitfor /tmp/mu-b.pid) || { fact "error session B did not start: $(tail -n 2 /tmp/mu-b.log | tr '\n' ' ')"; exit 1; }
else
	fact "mode full"
	# the workload: a shell that writes its PID and becomes a sleep
	$perf record -e cs_etm/@simsink2/ -C 0-110 -m 16,4 -o /tmp/mu-a.data -- \
		sh -c 'echo $$ >/tmp/mu-a.pid; exec sleep 600' >/tmp/mu-a.log 2>&1 &
	a=$!
	sa=$(waitfor /tmp/mu-a.pid) || { fact "error session A did not start: $(tail -n 2 /tmp/mu-a.log | tr '\n' ' ')"; exit 1; }
	$perf record -e cs_etm/@simsink2/ -C 111 -m 16,4 -o /tmp/mu-b.data -- \
		sh -c 'echo $$ >/tmp/mu-b.pid; exec sleep 600' >/tmp/mu-b.log 2>&1 &
	b=$!
	sb=$(waitfor /tmp/mu-b.pid) || { fact "error session B did not start: $(tail -n 2 /tmp/mu-b.log | tr '\n' ' ')"; exit 1; }
	kill "$sa"
	wait "$a"
	fact "session_a_exit $?"
	# the events' data is freed from a workqueue after perf exits
	sleep 1
fi

err=$(rmmod csboard_sink 2>&1)
fact "rmmod_during_b $? $err"
grep -q '^csboard_sink ' /proc/modules
fact "loaded_during_b $?"
kill -0 "$b" 2>/dev/null
fact "b_running $?"

kill "$sb"
wait "$b"
fact "session_b_exit $?"
sleep 1
# B's CPU is named at its event's setup
fact "dmesg_no_id $(dmesg | grep -c 'simsink2: No free trace ID for CPU 111, not traced')"

err=$(rmmod csboard_sink 2>&1)
fact "rmmod_after $? $err"
grep -q '^csboard_sink ' /proc/modules
fact "loaded_after_rmmod $?"
fact "sinks_unloaded $(sink_ids)"
# shellcheck disable=SC2046
err=$(insmod /root/csboard-sink.ko $(cat /tmp/sinkargs) 2>&1)
fact "insmod_again $? $err"
fact "sinks_reloaded $(sink_ids)"

# a reloaded sink records
echo 0 >/sys/bus/coresight/devices/simsink0/sim/stats
$perf record -e cs_etm/@simsink0/ -C 0-3 -m 16,4 -o /tmp/mu-c.data -- \
	sleep 0.5 >/tmp/mu-c.log 2>&1
fact "session_c_exit $?"
fact "session_c_stats $(cat /sys/bus/coresight/devices/simsink0/sim/stats)"

# kmemleak (the debug variant of the guest kernel): scan twice, then read
if [ ! -e /sys/kernel/debug/kmemleak ]; then
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
fi
if [ -e /sys/kernel/debug/kmemleak ]; then
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$out/modunload.kmemleak"
	fact "kmemleak $? $(grep -c 'unreferenced object' "$out/modunload.kmemleak")"
else
	fact "kmemleak absent"
fi
fact "done"
