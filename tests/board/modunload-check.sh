#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# modunload-check.sh DIR: checks, on the host, the facts that the guest
# scenario tests/board/modunload.sh wrote to DIR/modunload.facts. Prints
# "PASS name", "FAIL name<TAB>detail" or "SKIP name<TAB>detail" per
# check; exits non-zero if one failed.
set -uo pipefail

dir=${1:?usage: modunload-check.sh DIR}
facts=$dir/modunload.facts
failed=0
pass() { echo "PASS modunload: $1"; }
fail() { printf 'FAIL modunload: %s\t%s\n' "$1" "$2"; failed=1; }
check() { if eval "$2"; then pass "$1"; else fail "$1" "$3"; fi; }

# fact KEY: the rest of the line of KEY, "" if absent
fact() { sed -n "s/^$1 //p" "$facts" 2>/dev/null | head -n 1; }
word() { local v; v=$(fact "$1"); v=${v%% *}; echo "${v:--}"; }

if ! grep -q '^done$' "$facts" 2>/dev/null; then
	fail "guest scenario ran to its end" \
		"$(grep -m1 '^error' "$facts" 2>/dev/null || echo "no complete $facts"); log: $dir/modunload.log"
	exit 1
fi
pass "guest scenario ran to its end"

# The case exists: B's CPU found the global sink's map full, and the
# kernel named it when B's event was set up
if [ "$(fact mode)" = small ]; then
	printf 'SKIP modunload: %s\t%s\n' "a CPU event without a trace ID holds the sink" \
		"needs more than 111 CPUs on one sink (board128); here B traces CPU 0"
	what="a session"
else
	check "a CPU event without a trace ID holds the sink (CPU 111, simsink2)" \
		'[ "$(fact dmesg_no_id)" = 1 ]' \
		"want the kernel's 'simsink2: No free trace ID for CPU 111' once, found $(fact dmesg_no_id)"
	what="that event"
fi

check "unloading the sink module while $what runs is refused" \
	'[ "$(word rmmod_during_b)" != 0 ] && [ "$(word loaded_during_b)" = 0 ] && [ "$(word b_running)" = 0 ]' \
	"rmmod exit $(fact rmmod_during_b); still loaded: $(word loaded_during_b) (0 yes); session still running: $(word b_running) (0 yes)"

before=$(fact sinks_before)
check "after the session the sink module unloads" \
	'[ "$(word rmmod_after)" = 0 ] && [ "$(word loaded_after_rmmod)" = 1 ] && [ -z "$(fact sinks_unloaded)" ]' \
	"rmmod exit $(fact rmmod_after); sinks left in cs_etm/sinks: '$(fact sinks_unloaded)'"

check "the sink module loads again, same sinks and sink IDs" \
	'[ "$(word insmod_again)" = 0 ] && [ -n "$before" ] && [ "$(fact sinks_reloaded)" = "$before" ]' \
	"insmod exit $(fact insmod_again); sinks before '$before', after '$(fact sinks_reloaded)'"

# "sink NAME SINK_ID BYTES_OUT LOST ..." of simsink0 after session C
read -r _ _ _ bytes _ <<<"$(fact session_c_stats)"
check "a reloaded sink records a perf session" \
	'[ "$(word session_c_exit)" = 0 ] && [ "${bytes:-0}" -gt 0 ]' \
	"perf record exit $(word session_c_exit), sink bytes out: ${bytes:-none}"

leak=$(fact kmemleak)
case "$leak" in
absent)
	printf 'SKIP modunload: kmemleak reports nothing\t%s\n' \
		"no /sys/kernel/debug/kmemleak in this guest kernel: the debug variant checks it"
	;;
"0 0") pass "kmemleak reports nothing" ;;
*)
	fail "kmemleak reports nothing" \
		"read exit, objects: $leak; $(grep -m1 -A4 'unreferenced object' "$dir/modunload.kmemleak" 2>/dev/null | tr '\n' ' ')"
	;;
esac
exit "$failed"
