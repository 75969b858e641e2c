# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2154 # out and data are set by init.sh
#
# Board scenario "switchout" (board.scenarios=switchout), sourced by
# init.sh: perf record --switch-output=signal of one traced task, a shell
# that moves itself across CPUs of both sinks (taskset -p on its own PID;
# its children are not traced: --no-inherit) in SWITCH_PHASES phases,
# each over the CPUs of switch_cpus in turn. After each phase but the last
# it goes back to the first CPU (so that the event stops on the last one
# and its sink writes the trace of the round), sends SIGUSR2 to perf, its
# parent, and waits until perf has switched to a new output file; at exit perf writes the last one. So each file
# after the first holds the trace of one phase, on CPUs whose events
# started, and sent their one PERF_RECORD_AUX_OUTPUT_HW_ID record, during
# the first phase: they decode alone only if perf record wrote the HW_ID
# records it had seen again at the start of each file
# (tests/board/switchout-check.sh, on the host).
#
# Sessions: "switch", and "switchz" (the same with perf record -z) when
# the guest's perf has zstd. NAME.data.<timestamp>: the output files;
# NAME.log: perf's output, a "phase P: CPU C" line for every CPU of every
# phase, and the exit status; NAME.skip: why the session did not run.

n=$(nproc)
h=$((n / 2))
# both sinks, and on a board of 64 CPUs CPUs from 48 on, whose trace IDs
# are not the placeholders of the metadata
switch_cpus="0 $((n - 1)) $((h + 1)) 1 $((n - 2))"
SWITCH_PHASES=4

# switch_session NAME OPTION...: one session; perf and its workload start
# on the first CPU of switch_cpus
switch_session() {
	local name=$1
	shift
	session_begin "$name"
	echo "board: perf record --switch-output $*, $SWITCH_PHASES phases over CPUs $switch_cpus"
	taskset -c "${switch_cpus%% *}" /root/perf record -e cs_etm/contextid/ --no-inherit \
		--switch-output=signal -m "${data:-64},${aux:-128}" -o "$out/$name.data" "$@" -- sh -c '
p=1
while :; do
	for c in '"$switch_cpus"'; do
		taskset -p -c $c $$ >/dev/null
		echo "phase $p: CPU $c"
		i=0
		while [ $i -lt 2000 ]; do i=$((i + 1)); done
	done
	# back to the first CPU: the event stops on the last one, whose
	# sink then writes its trace, read before the switch below
	taskset -p -c '"${switch_cpus%% *}"' $$ >/dev/null
	[ $p -lt '"$SWITCH_PHASES"' ] || break
	kill -USR2 $PPID
	t=0
	while [ "$(ls '"$out/$name"'.data.* 2>/dev/null | wc -l)" -lt $p ]; do
		t=$((t + 1))
		if [ $t -gt 60 ]; then
			echo "phase $p: perf wrote no new file"
			exit 1
		fi
		sleep 1
	done
	p=$((p + 1))
done' >"$out/$name.log" 2>&1
	echo "exit $?" >>"$out/$name.log"
	session_end "$name"
}

switch_session switch
if /root/perf version --build-options | grep -q 'zstd: \[ on'; then
	switch_session switchz -z
else
	echo "the guest's perf is built without zstd (perf record -z)" >"$out/switchz.skip"
fi
