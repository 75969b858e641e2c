#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest scenario (board128, run by init.sh from board.scripts=): sysfs
# mode. The simulated ETMs of 60 CPUs, more than 48, and the global sink
# simsink2 are enabled through sysfs (enable_sink, enable_source) in
# varying orders with disables between, all into the one trace of the
# sink. Each CPU's mgmt/trctraceid (the ID file of ETMv4, which allocates
# the CPU's sysfs mode ID if it holds none) is read before its first
# enable, after a perf session on some of the CPUs, after an offline and
# online of two of them and after each enable; sim/default_id (the ID the
# CPU holds in the default map, read without allocating) after each
# disable, after the sink's trace was read and after "reset". One source is
# reset while enabled. The sink's trace is read through its read device
# /dev/simsink2 before any other reset.
#
# Writes OUT/sysfs.facts ("id PHASE CPU ID", "cmd ..." lines),
# OUT/sysfs.bin (the sink's trace) and OUT/sysfs.stats (each source's
# statistics, with the PID of its marker thread), which
# tests/board/sysfs-check.sh checks on the host.
#
# Usage: sysfs.sh OUT
out=${1:?usage: sysfs.sh OUT}
facts=$out/sysfs.facts
cs=/sys/bus/coresight/devices
: >"$facts"
fact() { echo "$*" >>"$facts"; }
# (shell builtins only where it repeats: a fork is slow on 128 vCPUs)

# readid PHASE CPU: note the ID CPU's mgmt/trctraceid shows
readid() {
	read -r v <$cs/simetm$2/mgmt/trctraceid
	fact "id $1 $2 $v"
}

# peekid PHASE CPU: note the ID CPU holds in the default map, 0 for none
peekid() {
	read -r v <$cs/simetm$2/sim/default_id
	fact "id $1 $2 $v"
}

# ids PHASE CPU...: read the IDs; peeks PHASE CPU...: peek at them
ids() {
	p=$1
	shift
	for c in "$@"; do
		readid "$p" "$c"
	done
}
peeks() {
	p=$1
	shift
	for c in "$@"; do
		peekid "$p" "$c"
	done
}

# on CPU...: enable each source, then read its ID
on() {
	for c in "$@"; do
		echo 1 >$cs/simetm$c/enable_source || fact "error enable $c"
		readid on "$c"
	done
}

# off CPU...: disable each source, then see the ID it keeps
off() {
	for c in "$@"; do
		echo 0 >$cs/simetm$c/enable_source || fact "error disable $c"
		peekid off "$c"
	done
}

g1="100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115"
g2="19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0"
g3="48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63"
g4="127 126 125 124 123 122 121 120"
all="$g1 $g2 $g3 $g4"

peeks unread $all
ids before $all
# a perf session on some of them gives them IDs of their sinks' maps; the
# sysfs mode IDs stay
/root/perf record -e cs_etm// -C 0-3,48-51,100-103 -m 16,64 \
	-o /tmp/sysfs-perf.data -- sleep 0.5 >/tmp/sysfs-perf.log 2>&1
fact "cmd perf $?"
ids after_perf 0 1 2 3 48 49 50 51 100 101 102 103
# a CPU powered down and up again keeps its sysfs mode ID
for c in 5 50; do
	echo 0 >/sys/devices/system/cpu/cpu$c/online || fact "error offline $c"
	readid offline "$c"
	echo 1 >/sys/devices/system/cpu/cpu$c/online || fact "error online $c"
	readid online "$c"
done

echo 1 >$cs/simsink2/enable_sink || fact "error enable_sink"
on $g1
on $g2
# they keep their IDs: the sink still holds their trace
off 100 101 102 103 104 105 106 107
on $g3
off 0 1 2 3 4 5 6 7 8 9
on $g4
# enabled again: the same IDs
on 103 102 101 100
# reset of an enabled source succeeds; the source keeps its ID until it
# is disabled, then gives it back
if echo 1 >$cs/simetm120/reset; then
	fact "cmd reset_enabled 0"
else
	fact "cmd reset_enabled 1"
fi
peekid reset_enabled 120
off 127 126 125 124 123 122 121 120
off 100 101 102 103
off 10 11 12 13 14 15 16 17 18 19
off 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
off 108 109 110 111 112 113 114 115
echo 0 >$cs/simsink2/enable_sink || fact "error disable_sink"
cat /dev/simsink2 >"$out/sysfs.bin"
fact "cmd read $? $(wc -c <"$out/sysfs.bin")"
peeks after $all
cat $cs/simetm*/sim/stats >"$out/sysfs.stats"
# reset gives the IDs back: the lowest ID is free again for CPU 64,
# which was never enabled (no legacy ID, so it takes the lowest free)
for c in $all; do
	echo 1 >$cs/simetm$c/reset || fact "error reset $c"
done
peeks reset $all
peekid before_released 64
echo 1 >$cs/simsink2/enable_sink || fact "error enable_sink"
on 64
off 64
echo 0 >$cs/simsink2/enable_sink || fact "error disable_sink"
echo 1 >$cs/simetm64/reset || fact "error reset 64"
peekid released_reset 64
fact "done"
