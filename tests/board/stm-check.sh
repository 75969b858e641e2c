#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stm-check.sh PERF VMLINUX DIR: checks, on the host, what the guest
# scenario tests/board/stm.sh wrote to DIR: while the simulated STM holds
# its system ID (default map), the perf CPUs on a sink that its trace
# reaches through a static replicator never get that ID from the sink's
# map, and no trace ID is used by two sources in that sink's trace. The
# STM's trace carries the PID of its marker thread "csboard/stm" as
# CONTEXTID: decoded under a CPU's ID, it shows up as samples of that
# thread on that CPU.
#
# With STM_XFAIL set (the reason), the last two checks are expected to
# fail: a failure prints "XFAIL name<TAB>reason: detail", a pass prints
# "FAIL name<TAB>passes now: remove the XFAIL mark". Otherwise "PASS" or
# "FAIL name<TAB>detail". Exits non-zero if a check failed.
set -uo pipefail

usage="usage: stm-check.sh PERF VMLINUX DIR"
perf=${1:?$usage}
vmlinux=${2:?$usage}
dir=${3:?$usage}
xfail=${STM_XFAIL:-}
failed=0
pass() { echo "PASS stm: $1"; }
fail() { printf 'FAIL stm: %s\t%s\n' "$1" "$2"; failed=1; }
# xcheck OK NAME DETAIL: a check that STM_XFAIL may expect to fail
xcheck() {
	if [ -z "$xfail" ]; then
		if [ "$1" = 1 ]; then pass "$2"; else fail "$2" "$3"; fi
	elif [ "$1" = 1 ]; then
		fail "$2" "passes now: remove the XFAIL mark (STM_XFAIL in scripts/board.sh)"
	else
		printf 'XFAIL stm: %s\t%s: %s\n' "$2" "$xfail" "$3"
	fi
}

facts=$dir/stm.facts
if ! grep -q '^done$' "$facts" 2>/dev/null || grep -q '^error' "$facts"; then
	fail "guest scenario: STM and sink enabled in sysfs mode" \
		"$(grep -m1 '^error' "$facts" 2>/dev/null || echo "no complete $facts"); log: $dir/stm.log"
	exit 1
fi
if ! grep -q '^exit 0$' "$dir/stm.perf.log"; then
	fail "perf record on simsink1 while the STM traces" "$(tail -n 3 "$dir/stm.perf.log" | tr '\n' ' ')"
	exit 1
fi
pass "perf record on simsink1 while the STM traces"

"$perf" script -i "$dir/stm.data" --vmlinux="$vmlinux" --itrace=b -F tid,cpu,ip \
	>"$dir/stm.script" 2>"$dir/stm.script.err"
rc=$?
if [ $rc -ne 0 ]; then
	fail "perf script decodes the trace" "exit $rc: $(head -n 2 "$dir/stm.script.err" | tr '\n' ' ')"
	exit 1
fi

# "stm ID BYTES PID", "etm CPU SINK ID BYTES ATOMS PID"
read -r _ sid sbytes spid < <(grep '^stm ' "$dir/stm.stats")
stm_id=$(sed -n 's/^stm_id //p' "$facts")
if [ -z "${sid:-}" ] || [ "$((sid))" -eq 0 ] || [ "$((sid))" != "$((stm_id))" ] || [ "${sbytes:-0}" -eq 0 ]; then
	fail "the STM holds a system ID and writes trace" "ID ${sid:-none} (sysfs ${stm_id:-none}), ${sbytes:-0} bytes"
	exit 1
fi
pass "the STM holds a system ID ($sid) and writes trace"

# the STM's trace reached simsink1: either perf drops its ID there (no CPU
# of the sink has it) or decodes it as a CPU's trace (its marker)
dropped=$(grep -c "trace ID $(printf '%#x' "$sid") has no CPU in sink" "$dir/stm.script.err")
as_cpu=$(awk -v pid="$spid" '$1 == pid' "$dir/stm.script" | wc -l)
if [ "$dropped" -gt 0 ] || [ "$as_cpu" -gt 0 ]; then
	pass "the STM's trace meets the perf trace in simsink1"
else
	fail "the STM's trace meets the perf trace in simsink1" "perf neither drops ID $sid nor shows csboard/stm ($spid)"
fi

clash=$(awk -v sid="$((sid))" '$1 == "etm" && $2 >= 64 && $4 == sid { printf " CPU %d", $2 }' "$dir/stm.stats")
xcheck "$([ -z "$clash" ] && echo 1)" \
	"perf CPUs from 48 on never get the STM's system ID in simsink1's map" \
	"ID $sid given to$clash"
xcheck "$([ "$as_cpu" -eq 0 ] && echo 1)" \
	"no trace ID used by two sources in simsink1's trace" \
	"$as_cpu samples of csboard/stm decoded as CPU trace, first: $(awk -v pid="$spid" '$1 == pid' "$dir/stm.script" | head -n 1 | tr -s ' ')"
exit "$failed"
