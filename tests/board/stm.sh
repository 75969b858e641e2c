#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest scenario (board128 with its STM, run by init.sh from
# board.scripts=): a system source and perf trace in one sink. The
# simulated STM simstm0 holds a system trace ID from the default map; it
# feeds the funnel of cluster 1, whose static replicator sends the trace
# both to the cluster's sink simsink1 and to the global sink simsink2.
#
# First perf records CPUs 64-127 (no legacy IDs: they take IDs from
# simsink1's map) on simsink1 while the STM is disabled: its ID costs the
# sink nothing, so CPU 64 takes it. Enabling the STM towards simsink2
# meanwhile must be refused, with a message naming simsink1. Then the STM
# is enabled first, and perf records the same CPUs on simsink1, which the
# replicator also feeds with the STM's trace: no CPU may get its ID.
#
# Writes OUT/stm.facts, OUT/stm.data, OUT/stm.perf.log and OUT/stm.stats
# (every source's and sink's statistics), which tests/board/stm-check.sh
# checks on the host.
#
# Usage: stm.sh OUT
out=${1:?usage: stm.sh OUT}
facts=$out/stm.facts
cs=/sys/bus/coresight/devices
: >"$facts"
fact() { echo "$*" >>"$facts"; }

fact "stm_id $(cat $cs/simstm0/traceid)"

# waitfor FILE: until a workload wrote its PID to FILE, at most 120 s
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

dmesg -c >/dev/null
/root/perf record -e cs_etm/@simsink1/ -C 64-127 -m 16,128 -o /tmp/stm-first.data -- \
	sh -c 'echo $$ >/tmp/stm-first.pid; exec sleep 600' >"$out/stm-first.log" 2>&1 &
first=$!
if wl=$(waitfor /tmp/stm-first.pid); then
	fact "first_cpu64 $(grep '^64 ' $cs/simsink1/id_map/cpu_ids)"
	echo 1 >$cs/simsink2/enable_sink || fact "error enable_sink"
	if echo 1 >$cs/simstm0/enable_source 2>/dev/null; then
		fact "first_enable 0"
		echo 0 >$cs/simstm0/enable_source
	else
		fact "first_enable 1"
	fi
	echo 0 >$cs/simsink2/enable_sink || fact "error disable_sink"
	fact "first_refused $(dmesg | grep -c 'simstm0: Trace ID .* is in use by a perf session on simsink1')"
	kill "$wl"
else
	fact "error the first perf session did not start: $(tail -n 2 "$out/stm-first.log" | tr '\n' ' ')"
fi
wait "$first"
fact "first_exit $?"
# the events' data is freed from a workqueue after perf exits
sleep 1

for f in $cs/*/sim/stats; do
	echo 0 >"$f"
done
echo 1 >$cs/simsink2/enable_sink || fact "error enable_sink"
echo 1 >$cs/simstm0/enable_source || fact "error enable_source"
/root/perf record -e cs_etm/@simsink1/ -C 64-127 -m 16,128 \
	-o "$out/stm.data" -- sleep 1 >"$out/stm.perf.log" 2>&1
echo "exit $?" >>"$out/stm.perf.log"
echo 0 >$cs/simstm0/enable_source || fact "error disable_source"
echo 0 >$cs/simsink2/enable_sink || fact "error disable_sink"
cat $cs/*/sim/stats >"$out/stm.stats"
fact "stm_id_after $(cat $cs/simstm0/traceid)"
fact "done"
