# SPDX-License-Identifier: GPL-2.0
#
# Board scenario (board128, sourced by init.sh from board.scenarios=):
# capacity. The ETMs of CPUs 64-123, 60 CPUs of simsink1, trace once in
# sysfs mode into simsink1 and are disabled without a reset, so each keeps
# its sysfs mode ID in the default map. Then `perf record -a` on the
# default sinks: an ID kept by a disabled source costs the sinks' maps
# nothing, so every CPU of both sinks must be traced and decode as itself
# (tests/board/report.sh, mode shared). The IDs kept are saved to
# OUT/sysperf.kept ("CPU ID") before the session; the CPUs are reset
# afterwards.
sp_dev=/sys/bus/coresight/devices
sp_first=64
sp_last=123

session_begin sysperf
echo 1 >$sp_dev/simsink1/enable_sink
sp_c=$sp_first
while [ $sp_c -le $sp_last ]; do
	echo 1 >$sp_dev/simetm$sp_c/enable_source
	sp_c=$((sp_c + 1))
done
wait_for 60 tracing $sp_first $sp_last
sp_c=$sp_first
while [ $sp_c -le $sp_last ]; do
	echo 0 >$sp_dev/simetm$sp_c/enable_source
	read -r sp_id <$sp_dev/simetm$sp_c/sim/default_id
	echo "$sp_c $sp_id"
	sp_c=$((sp_c + 1))
done >"$out/sysperf.kept"
echo 0 >$sp_dev/simsink1/enable_sink
# the sysfs mode trace is not part of the perf session's
reset_stats
record sysperf 1 -e cs_etm// -a
session_end sysperf
sp_c=$sp_first
while [ $sp_c -le $sp_last ]; do
	echo 1 >$sp_dev/simetm$sp_c/reset
	sp_c=$((sp_c + 1))
done
