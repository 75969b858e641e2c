# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2154 # out and aux are set by init.sh
#
# Board scenario "snapshot" (board.scenarios=snapshot), sourced by init.sh:
# perf record -a in snapshot mode (-S, the sinks overwrite the AUX buffers)
# with a snapshot at each of three SIGUSR2, sent once the CPUs trace, and
# one at exit (--snapshot=e), so that all the trace written is in perf.data.
#
# Session "snap": snap.log ends with "snapshots N", the SIGUSR2 sent.

n=$(nproc)
session_begin snap
echo "board: perf record -e cs_etm// -a --snapshot=e, SIGUSR2 three times"
/root/perf record -e cs_etm// -a --snapshot=e -m "${data:-64},${aux:-128}" -o "$out/snap.data" -- \
	sh -c "while [ ! -e /tmp/stop-snap ]; do sleep 1; done" >"$out/snap.log" 2>&1 &
snap_pid=$!
snaps=0
if wait_for 30 tracing 0 $((n - 1)); then
	for _ in 1 2 3; do
		kill -USR2 "$snap_pid" && snaps=$((snaps + 1))
		sleep 1
	done
fi
stop_record snap
wait "$snap_pid"
echo "exit $?" >>"$out/snap.log"
echo "snapshots $snaps" >>"$out/snap.log"
session_end snap
