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
# Prints "PASS name" or "FAIL name<TAB>detail" lines; exits non-zero if a
# check failed.
set -uo pipefail

usage="usage: stm-check.sh PERF VMLINUX DIR"
perf=${1:?$usage}
vmlinux=${2:?$usage}
dir=${3:?$usage}
failed=0
pass() { echo "PASS stm: $1"; }
fail() { printf 'FAIL stm: %s\t%s\n' "$1" "$2"; failed=1; }
# xcheck OK NAME DETAIL: PASS NAME if OK is 1, else FAIL NAME with DETAIL
xcheck() {
	if [ "$1" = 1 ]; then pass "$2"; else fail "$2" "$3"; fi
}

facts=$dir/stm.facts
if ! grep -q '^done$' "$facts" 2>/dev/null || grep -q '^error' "$facts"; then
	fail "guest scenario: STM and sink enabled in sysfs mode" \
		"$(grep -m1 '^error' "$facts" 2>/dev/null || echo "no complete $facts"); log: $dir/stm.log"
	exit 1
fi
# fact KEY: the rest of the line of KEY
fact() { sed -n "s/^$1 //p" "$facts" | head -n 1; }

# The STM disabled, perf first: CPU 64 may take the STM's ID on simsink1;
# enabling the STM is then refused, naming the sink
stm_id=$(fact stm_id)
read -r _ first_id < <(fact first_cpu64)
xcheck "$([ "$((first_id))" = "$((stm_id))" ] && [ "$(fact first_enable)" = 1 ] &&
	[ "$(fact first_refused)" -ge 1 ] && echo 1)" \
	"the STM's ID held by a CPU of a perf session on a sink its trace reaches: enabling the STM is refused, naming the sink" \
	"CPU 64's ID on simsink1 ${first_id:-none} (STM $stm_id), enable exit $(fact first_enable) (1: refused), kernel messages naming simsink1: $(fact first_refused)"

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

# the STM's trace reached simsink1: frames of the perf session's AUX
# buffers that switch to the STM's ID (even byte, bit 0 set, ID in 7:1),
# read straight from perf.data
"$perf" report -D -i "$dir/stm.data" 2>/dev/null |
	awk '/PERF_RECORD_AUXTRACE size:/ { h = $4; gsub(/[\[\]:]/, "", h); print $3, h, $7 }' >"$dir/stm.aux"
in_sink=0
while read -r off hdr size; do
	n=$(od -A n -t u1 -v -j $((off + hdr)) -N $((size)) "$dir/stm.data" |
		awk -v sid=$((sid)) '{ for (i = 1; i <= NF; i++) { b = n++ % 16; if (b < 15 && b % 2 == 0 && $i % 2 == 1 && int($i / 2) == sid) hits++ } } END { print hits + 0 }')
	in_sink=$((in_sink + n))
done <"$dir/stm.aux"
as_cpu=$(awk -v pid="$spid" '$1 == pid' "$dir/stm.script" | wc -l)
if [ "$in_sink" -gt 0 ]; then
	pass "the STM's trace meets the perf trace in simsink1 ($in_sink switches to its ID)"
else
	fail "the STM's trace meets the perf trace in simsink1" "no frame of the AUX buffers switches to ID $sid"
fi

clash=$(awk -v sid="$((sid))" '$1 == "etm" && $2 >= 64 && $4 == sid { printf " CPU %d", $2 }' "$dir/stm.stats")
xcheck "$([ -z "$clash" ] && echo 1)" \
	"perf CPUs from 48 on never get the STM's system ID in simsink1's map" \
	"ID $sid given to$clash"
xcheck "$([ "$as_cpu" -eq 0 ] && echo 1)" \
	"no trace ID used by two sources in simsink1's trace" \
	"$as_cpu samples of csboard/stm decoded as CPU trace, first: $(awk -v pid="$spid" '$1 == pid' "$dir/stm.script" | head -n 1 | tr -s ' ')"
exit "$failed"
