# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2154 # out and aux are set by init.sh
#
# Board scenario "concurrent" (board.scenarios=concurrent), sourced by
# init.sh: two perf sessions at once, each on the CPUs of its own option -C.
#
# pair0, pair1: on different sinks. pair0 traces the first cluster into
#   simsink0 for 5 s; pair1 starts a second later and traces the second
#   cluster into simsink1 for 3 s. pair.maps.during: the maps while both
#   run.
# same0, same1: on the same sink. same0 traces the first half of the first
#   cluster into simsink0 for 4 s; same1 starts a second later on the other
#   half, into simsink0 too, which refuses a second perf process: same1
#   records nothing. same.maps.during: the maps while both run.
# NAME.maps (session_end): the maps once both sessions are over.

n=$(nproc)
h=$((n / 2))
q=$((h / 2))

session_begin pair
echo "board: two sessions at once, CPUs 0-$((h - 1)) on simsink0 and $h-$((n - 1)) on simsink1"
record pair0 5 -e cs_etm/@simsink0/ -C "0-$((h - 1))" &
pair0=$!
sleep 1
record pair1 3 -e cs_etm/@simsink1/ -C "$h-$((n - 1))" &
pair1=$!
sleep 2
save_maps "$out/pair.maps.during"
wait "$pair1" "$pair0"
session_end pair0 pair1

session_begin same
echo "board: two sessions at once on simsink0, CPUs 0-$((q - 1)) and $q-$((h - 1))"
record same0 4 -e cs_etm/@simsink0/ -C "0-$((q - 1))" &
same0=$!
sleep 1
record same1 2 -e cs_etm/@simsink0/ -C "$q-$((h - 1))" &
same1=$!
sleep 1
save_maps "$out/same.maps.during"
wait "$same1" "$same0"
session_end same0 same1
