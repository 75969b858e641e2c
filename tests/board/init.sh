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
#   board.modargs=k=v,...  csboard.ko parameters
#   board.seconds=N        workload length (default 1)
#   board.aux=PAGES        AUX buffer of each CPU (default 128)
#   board.data=PAGES       perf's data buffer of each CPU (default 16)
#
# Files: NAME.data (perf.data), NAME.log (perf record's output and exit
# status), NAME.stats (what every simulated source and sink produced),
# NAME.dmesg (kernel messages of the session), info (CPUs, sinks); on the
# debug kernel kmemleak, kmemleak.status and lockdep_stats.

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
# shellcheck disable=SC2086
if ! insmod /root/csboard.ko $modargs; then
	dmesg >$out/info
	finish "insmod csboard.ko failed"
fi
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
	if ! echo "${ram:-0}" >/sys/module/csboard/parameters/ram_use_kb; then
		echo "bad session $spec" >$out/$name.log
		continue
	fi
	reset_stats
	dmesg -c >/dev/null
	echo "board: perf record -e $event -a (session $name, sink RAM limit ${ram:-0} KiB)"
	/root/perf record -e "$event" -a -m "${data:-16},${aux:-128}" -o $out/$name.data -- \
		sleep "${seconds:-1}" >$out/$name.log 2>&1
	echo "exit $?" >>$out/$name.log
	tail -n 3 $out/$name.log
	cat /sys/bus/coresight/devices/*/sim/stats >$out/$name.stats
	# the event's data is freed from a workqueue after perf exits
	sleep 1
	dmesg >$out/$name.dmesg
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
