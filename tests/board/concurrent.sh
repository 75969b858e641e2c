# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2154 # out and aux are set by init.sh
#
# Board scenario "concurrent" (board.scenarios=concurrent), sourced by
# init.sh: two perf sessions at once, each on the CPUs of its option -C.
# The first runs until the second is over; each step waits for the one
# before it to take effect.
#
# pair0, pair1: on different sinks. pair0 traces the first cluster into
#   simsink0; once it traces, pair1 traces the second cluster into simsink1
#   for 2 s. pair.maps.during: the maps once both trace.
# same0, same1: on the same sink. same0 traces the first half of the first
#   cluster into simsink0; once it traces, same1 starts on the other half,
#   into simsink0 too, which refuses a second perf process: same1 records
#   nothing. same.maps.during: the maps once the events of both hold IDs.
# NAME.maps (session_end): the maps once both sessions are over.

n=$(nproc)
h=$((n / 2))
q=$((h / 2))

# sessions SINK N: the map of SINK counts at least N sessions
sessions() {
	[ "$(cat "/sys/bus/coresight/devices/$1/id_map/sessions")" -ge "$2" ]
}

session_begin pair
echo "board: two sessions at once, CPUs 0-$((h - 1)) on simsink0 and $h-$((n - 1)) on simsink1"
record pair0 stop -e cs_etm/@simsink0/ -C "0-$((h - 1))" &
pair0=$!
wait_for 30 tracing 0
record pair1 2 -e cs_etm/@simsink1/ -C "$h-$((n - 1))" &
pair1=$!
wait_for 30 tracing "$h"
save_maps "$out/pair.maps.during"
wait "$pair1"
stop_record pair0
wait "$pair0"
session_end pair0 pair1

session_begin same
echo "board: two sessions at once on simsink0, CPUs 0-$((q - 1)) and $q-$((h - 1))"
record same0 stop -e cs_etm/@simsink0/ -C "0-$((q - 1))" &
same0=$!
wait_for 30 tracing 0
record same1 2 -e cs_etm/@simsink0/ -C "$q-$((h - 1))" &
same1=$!
wait_for 30 sessions simsink0 "$h"
save_maps "$out/same.maps.during"
wait "$same1"
stop_record same0
wait "$same0"
session_end same0 same1
