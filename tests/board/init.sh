#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the simulated CoreSight board guest (busybox). Loads csboard.ko,
# runs one `perf record -e cs_etm/.../ -a` session per entry of
# board.sessions= on the kernel command line, and writes everything the
# host checks into a tar archive on /dev/vda.
#
# Kernel command line:
#   board.sessions=NAME:SINK:RAM_KB,...  SINK "-" lets perf pick the
#                  default sink of each CPU, else all CPUs use that sink;
#                  RAM_KB, unless 0, limits the sinks' trace RAM
#   board.modargs=k=v,...  module parameters: ram_* of csboard-sink.ko,
#                  the others of csboard.ko
#   board.scripts=NAME,... after the sessions, run /root/NAME.sh OUT (a
#                  scenario of its own, tests/board/NAME.sh), output in
#                  OUT/NAME.log
#   board.seconds=N        workload length (default 1)
#   board.aux=PAGES        AUX buffer of each CPU (default 128)
#   board.data=PAGES       perf's data buffer of each CPU (default 64: with
#                  less, a loaded host makes the guest lose records)
#   board.scenarios=NAME,...  after the sessions, source /root/NAME.sh for
#                  each (tests/board/NAME.sh: per-thread, snapshot,
#                  concurrent sessions, CPU hotplug, sysfs mode then
#                  perf); they record their own sessions with the helpers
#                  below
#
# Files: NAME.data (perf.data), NAME.log (perf record's output and exit
# status), NAME.stats (what every simulated source and sink produced),
# NAME.dmesg (kernel messages of the session), info (CPUs, sinks);
# scenarios add NAME.maps* (the sinks' trace ID maps, see save_maps); on
# the debug kernel kmemleak, kmemleak.status and lockdep_stats.

export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
out=/tmp/out
mkdir -p $out

arg() {
	tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1
}
sessions=$(arg board.sessions)
modargs=$(arg board.modargs | tr ',' ' ')
seconds=$(arg board.seconds)
aux=$(arg board.aux)
data=$(arg board.data)

finish() {
	echo "board: $*"
	(cd $out && tar -cf /dev/vda .) && sync
	echo "board: results written"
	poweroff -f
}

echo "board: $(nproc) CPUs online"
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
dmesg -c >/dev/null
etmargs='' sinkargs=''
for a in $modargs; do
	case "$a" in
	ram_*) sinkargs="$sinkargs $a" ;;
	*) etmargs="$etmargs $a" ;;
	esac
done
# shellcheck disable=SC2086
if ! insmod /root/csboard.ko $etmargs || ! insmod /root/csboard-sink.ko $sinkargs; then
	dmesg >$out/info
	finish "insmod csboard.ko csboard-sink.ko failed"
fi
echo "$sinkargs" >/tmp/sinkargs
pmu=/sys/bus/event_source/devices/cs_etm
{
	echo "cpus $(nproc)"
	for s in "$pmu"/sinks/*; do
		echo "sink $(basename "$s") $(cat "$s")"
	done
	dmesg
} >$out/info

reset_stats() {
	for f in /sys/bus/coresight/devices/*/sim/stats; do
		echo 0 >"$f"
	done
}

for spec in $(echo "$sessions" | tr ',' ' '); do
	IFS=: read -r name sink ram <<-EOF
	$spec
	EOF
	event=cs_etm//
	[ "${sink:--}" = - ] || event=cs_etm/@$sink/
	if ! echo "${ram:-0}" >/sys/module/csboard_sink/parameters/ram_use_kb; then
		echo "bad session $spec" >$out/$name.log
		continue
	fi
	reset_stats
	dmesg -c >/dev/null
	echo "board: perf record -e $event -a (session $name, sink RAM limit ${ram:-0} KiB)"
	/root/perf record -e "$event" -a -m "${data:-64},${aux:-128}" -o $out/$name.data -- \
		sleep "${seconds:-1}" >$out/$name.log 2>&1
	echo "exit $?" >>$out/$name.log
	tail -n 3 $out/$name.log
	cat /sys/bus/coresight/devices/*/sim/stats >$out/$name.stats
	# the event's data is freed from a workqueue after perf exits
	sleep 1
	dmesg >$out/$name.dmesg
done

# ---- helpers of the scenario scripts ----

# session_begin NAME: fresh statistics and kernel log, all of the trace RAM
session_begin() {
	echo "board: session $1"
	echo 0 >/sys/module/csboard_sink/parameters/ram_use_kb
	reset_stats
	dmesg -c >/dev/null
}

# record NAME SECONDS OPTION...: perf record OPTION... -- sleep SECONDS into
# NAME.data; its output and "exit N" in NAME.log. With SECONDS "stop" the
# workload runs until stop_record NAME.
record() {
	local name=$1 secs=$2
	shift 2
	if [ "$secs" = stop ]; then
		set -- "$@" -- sh -c "while [ ! -e /tmp/stop-$name ]; do sleep 1; done"
	else
		set -- "$@" -- sleep "$secs"
	fi
	/root/perf record -m "${data:-64},${aux:-128}" -o "$out/$name.data" "$@" \
		>"$out/$name.log" 2>&1
	echo "exit $?" >>"$out/$name.log"
}

stop_record() {
	: >"/tmp/stop-$1"
}

# wait_for TRIES CMD...: run CMD once a second until it succeeds, at most
# TRIES times: no step of a scenario depends on how fast the guest runs
wait_for() {
	local n=$1
	shift
	while ! "$@"; do
		n=$((n - 1))
		if [ "$n" -le 0 ]; then
			echo "board: gave up waiting for $*"
			return 1
		fi
		sleep 1
	done
}

# tracing CPU...: the source of every CPU has written trace since
# session_begin (field 5 of its statistics: bytes)
tracing() {
	local c bytes
	for c in "$@"; do
		bytes=$(cut -d' ' -f5 "/sys/bus/coresight/devices/simetm$c/sim/stats")
		[ "${bytes:-0}" -gt 0 ] || return 1
	done
}

# session_end NAME...: statistics, and once the events are freed (from a
# workqueue) the kernel log and the trace ID maps, for every NAME
session_end() {
	local name
	for name in "$@"; do
		tail -n 3 "$out/$name.log"
		cat /sys/bus/coresight/devices/*/sim/stats >"$out/$name.stats"
	done
	sleep 1
	for name in "$@"; do
		dmesg >"$out/$name.dmesg"
		save_maps "$out/$name.maps"
	done
}

# save_maps FILE: the trace ID map of every sink (csboard's id_map group),
# "map SINK SESSIONS USED" (USED "-" for none) and "id SINK CPU 0xID" lines
save_maps() {
	local d s used
	for d in /sys/bus/coresight/devices/*/id_map; do
		s=$(basename "$(dirname "$d")")
		used=$(cat "$d/used")
		echo "map $s $(cat "$d/sessions") ${used:--}"
		sed "s/^/id $s /" "$d/cpu_ids"
	done >"$1"
}

for s in $(arg board.scenarios | tr ',' ' '); do
	if [ -f "/root/$s.sh" ]; then
		. "/root/$s.sh"
	else
		echo "board: no scenario $s" | tee "$out/$s.missing"
	fi
done

for s in $(arg board.scripts | tr ',' ' '); do
	echo "board: scenario $s"
	t=$(date +%s)
	sh /root/$s.sh $out >$out/$s.log 2>&1
	echo "exit $? after $(($(date +%s) - t)) s" >>$out/$s.log
	tail -n 3 $out/$s.log
done
# The debug kernel: kmemleak reports an object only once a scan found it
# unreferenced, unchanged since the scan before and older than 5 s, so
# scan twice; a kmemleak that turned itself off refuses the scans
# (kmemleak.status: "ok" or the error). Lockdep's debug_locks is 0 once it
# turned itself off.
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
kml=/sys/kernel/debug/kmemleak
if [ -e $kml ]; then
	echo "board: kmemleak scans at $(cut -d' ' -f1 /proc/uptime) s"
	for step in scan1 scan2 read; do
		case $step in
		scan*) err=$( (echo scan >$kml) 2>&1) || err=${err:-write failed} ;;
		read) err=$(cat $kml 2>&1 >$out/kmemleak) || err=${err:-read failed} ;;
		esac
		echo "$step: ${err:-ok}"
		[ $step != scan1 ] || sleep 5
	done >$out/kmemleak.status
	echo "board: kmemleak done at $(cut -d' ' -f1 /proc/uptime) s"
fi
[ ! -e /proc/lockdep_stats ] || cat /proc/lockdep_stats >$out/lockdep_stats
finish "sessions done"
