#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# raw-check.sh PERF VMLINUX DIR: checks, on the host, the per-thread
# session on per-CPU raw sinks that tests/board/rawthread.sh recorded in
# DIR. Decodes DIR/rawthread.data with the host PERF and the guest's
# VMLINUX; the unformatted trace of each AUX part must decode as the CPU
# the part was collected on: every sample's thread (the CONTEXTID, the PID
# of the marker thread "csboard/<cpu>" of the source that wrote it) is the
# marker of the sample's CPU, and each CPU has one sample per branch its
# source wrote (DIR/rawthread.stats). The workload ran on the CPUs listed
# in DIR/rawthread.cpus, some from 48 on, whose trace IDs repeat across
# the sinks (each sink has its own map). One HW_ID record per CPU the
# event ran on (design.md 2.4).
#
# Prints "PASS name" or "FAIL name<TAB>detail" per check; exits non-zero
# if one failed.
set -uo pipefail

usage="usage: raw-check.sh PERF VMLINUX DIR"
perf=${1:?$usage}
vmlinux=${2:?$usage}
dir=${3:?$usage}
name=rawthread
data=$dir/$name.data
failed=0
pass() { echo "PASS $name: $1"; }
fail() { printf 'FAIL %s: %s\t%s\n' "$name" "$1" "$2"; failed=1; }

if ! grep -q '^exit 0$' "$dir/$name.perf.log" 2>/dev/null; then
	fail "perf record --per-thread in the guest" "$(tail -n 3 "$dir/$name.perf.log" 2>/dev/null | tr '\n' ' ')"
	exit 1
fi
pass "perf record --per-thread in the guest"

"$perf" script -i "$data" --vmlinux="$vmlinux" --itrace=b -F tid,cpu,ip \
	>"$dir/$name.script" 2>"$dir/$name.script.err"
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$dir/$name.script" ]; then
	fail "perf script decodes the trace" \
		"exit $rc: $(head -n 2 "$dir/$name.script.err" | tr '\n' ' ')"
	exit 1
fi
pass "perf script decodes the trace"
"$perf" report -D -i "$data" 2>/dev/null |
	grep -E 'PERF_RECORD_AUX_OUTPUT_HW_ID' >"$dir/$name.dump"

awk -v name="$name" '
function pass(n) { printf "PASS %s: %s\n", name, n }
function fail(n, d) { printf "FAIL %s: %s\t%s\n", name, n, d; failed = 1 }
function check(ok, n, d) { if (ok) pass(n); else fail(n, d) }
FILENAME ~ /cpus$/ { for (i = 1; i <= NF; i++) { ran[$i] = 1; if ($i >= 48) high++ } next }
FILENAME ~ /stats$/ && $1 == "etm" { marker[$2] = $7; atoms[$2] = $6; kid[$2] = $4; next }
FILENAME ~ /dump$/ && /PERF_RECORD_AUX_OUTPUT_HW_ID/ {
	# "<cpu> <time> 0x... [0x..]: PERF_RECORD_AUX_OUTPUT_HW_ID: ..." with
	# the sample_id CPU first
	c = $1 + 0
	hwid[c]++
	next
}
FILENAME ~ /script$/ {
	for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
	if (i > NF || i < 2) next
	c = substr($i, 2, length($i) - 2) + 0
	tid = $(i - 1) + 0
	# ip 0: the sample perf makes where a trace starts, not a branch
	if ($(i + 1) ~ /^0+$/) next
	nsamples++
	got[c]++
	if (tid != marker[c]) { wrong++; if (!firstwrong) firstwrong = $0 " (marker of CPU " c ": " marker[c] ")" }
	next
}
END {
	for (c in atoms) {
		if (c in ran) {
			if (!atoms[c] || got[c] != atoms[c]) { miscount++; firstmis = firstmis sprintf(" CPU %d: %d samples of %d branches;", c, got[c], atoms[c]) }
			if (hwid[c] != 1) { badhw++; firsthw = firsthw sprintf(" CPU %d: %d;", c, hwid[c]) }
			ids[kid[c]]++
		} else if (atoms[c] || got[c]) {
			stray++; firststray = firststray " " c
		}
	}
	for (i in ids) if (ids[i] > 1) shared++
	printf "%d samples; CPUs of the workload:", nsamples
	for (c in ran) printf " %d (ID 0x%02x, %d of %d branches)", c, kid[c], got[c], atoms[c]
	printf "\n"
	check(nsamples && !wrong, "every sample on the CPU whose source wrote it", wrong " misattributed; first: " firstwrong)
	check(!miscount, "every CPU of the workload decoded, one sample per branch written", firstmis)
	check(!stray, "no trace from CPUs the workload did not run on", "CPUs" firststray)
	check(high && shared, "CPUs from 48 on, trace IDs repeated across the per-CPU sinks", \
	      high " CPUs from 48 on, " shared " IDs on more than one CPU")
	check(!badhw, "one HW_ID record per CPU of the event", "records per CPU:" firsthw)
	exit failed
}' "$dir/$name.cpus" "$dir/$name.stats" "$dir/$name.dump" "$dir/$name.script" || failed=1
exit "$failed"
