#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest scenario (board128 with its STM, run by init.sh from
# board.scripts=): a system source and perf trace in one sink. The
# simulated STM simstm0 holds a system trace ID from the default map; it
# feeds the funnel of cluster 1, whose static replicator sends the trace
# both to the cluster's sink simsink1 and to the global sink simsink2.
# The STM is enabled in sysfs mode towards simsink2, and meanwhile perf
# records CPUs 64-127 (no legacy IDs: they take IDs from simsink1's map)
# on simsink1, which the replicator also feeds with the STM's trace.
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
