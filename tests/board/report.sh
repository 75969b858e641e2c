#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report.sh PERF VMLINUX DIR SESSION [MODE]
#
# Decodes DIR/SESSION.data (recorded in the board guest by tests/board/
# init.sh) with the host PERF and the guest's VMLINUX, prints a table of
# every CPU (sink, trace IDs, bytes, samples, markers), then one line per
# check, "PASS name" or "FAIL name: detail".
#
# The expected values come from the guest's simulated devices
# (DIR/SESSION.stats, what each source wrote with which trace ID into which
# sink) and from the topology, never from perf's output: each source
# writes trace whose CONTEXTID is the PID of its marker thread
# "csboard/<cpu>", so a sample of csboard/<c> must be on CPU c.
#
# MODE: "all" (default): every CPU is decoded, one sample per branch its
# source wrote; "shared": the same, and some trace IDs must be in use on
# more than one sink (CPUs from 48 on, on two sinks); "lossy": the sinks'
# trace RAM wrapped, so only some trace survives, but none may be
# misattributed; "untraced:FIRST-LAST": those CPUs must not be traced
# (their sink had no trace ID left for them), all others are decoded.
#
# Table columns: sink and sink ID the CPU's trace went to; the trace ID
# the kernel gave the CPU's source and the one perf's decoder used for it
# (from the HW_ID records); trace bytes and taken branches the source
# wrote; branch samples perf decoded on that CPU; markers: "ok" when every
# sample of csboard/<cpu> is on that CPU and there is at least one.
set -uo pipefail

perf=${1:?usage: report.sh PERF VMLINUX DIR SESSION [MODE]}
vmlinux=${2:?}
dir=${3:?}
name=${4:?}
mode=${5:-all}
untraced=
case "$mode" in
untraced:*) untraced=${mode#untraced:} ;;
all|shared|lossy) ;;
*) echo "report.sh: unknown mode $mode" >&2; exit 2 ;;
esac
data=$dir/$name.data

check() { # check NAME OK DETAIL
	if [ "$2" = 1 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi
}

if ! grep -q '^exit 0$' "$dir/$name.log" 2>/dev/null; then
	check "$name: perf record in the guest" 0 "$(tail -n 3 "$dir/$name.log" 2>/dev/null | tr '\n' ' ')"
	exit 1
fi
check "$name: perf record in the guest" 1
if [ ! -s "$data" ]; then
	check "$name: perf.data came back" 0 "no $data"
	exit 1
fi

# Samples: comm, tid, [cpu], ip, symbol
"$perf" script -i "$data" --vmlinux="$vmlinux" --itrace=b \
	-F comm,tid,cpu,ip,sym >"$dir/$name.script" 2>"$dir/$name.script.err"
script_rc=$?
# What the decoder made of the HW_ID records: queue, trace ID, CPU, sink
"$perf" report -D -i "$data" 2>/dev/null |
	grep -E 'decoder for trace ID|PERF_RECORD_AUX_OUTPUT_HW_ID' >"$dir/$name.decoders"
check "$name: perf script decodes the trace" "$([ $script_rc -eq 0 ] && echo 1)" \
	"exit $script_rc: $(head -n 2 "$dir/$name.script.err" | tr '\n' ' ')"

awk -v untraced="$untraced" -v lossy="$([ "$mode" = lossy ] && echo 1)" \
    -v want_shared="$([ "$mode" = shared ] && echo 1)" -v name="$name" '
function hex(s,   i, v) {
	v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
function fail(n, d) { printf "FAIL %s: %s: %s\n", name, n, d; failed = 1 }
function pass(n) { printf "PASS %s: %s\n", name, n }
FILENAME ~ /stats$/ && $1 == "sink" { sinkid[$2] = $3; sinkbytes[$2] = $4; wraps[$2] = $5; next }
FILENAME ~ /stats$/ && $1 == "etm" {
	cpu = $2; ncpu++
	sink[cpu] = $3; kid[cpu] = $4; bytes[cpu] = $5; atoms[cpu] = $6
	next
}
FILENAME ~ /decoders$/ && /decoder for trace ID/ {
	# queue Q (buffer CPU B): decoder for trace ID 0xNN: CPU C, sink 0xSS
	id = $10; sub(/:$/, "", id); c = $12; sub(/,$/, "", c); s = $14
	key = c
	if (key in did && did[key] != id) conflict[key] = 1
	did[key] = id; dsink[key] = s
	next
}
FILENAME ~ /script$/ {
	for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
	if (i > NF) next
	c = substr($i, 2, length($i) - 2) + 0
	comm = $1
	if (comm !~ /^csboard\//) { other[c]++; next }
	m = substr(comm, 9) + 0
	if (m != c) { wrong[m]++; if (!firstwrong) firstwrong = $0; next }
	# ip 0: the sample perf makes where a trace starts, not a branch
	if ($(i + 1) !~ /^0+$/) good[c]++
	next
}
END {
	split(untraced, u, "-")
	printf "%-4s %-9s %-10s %-9s %-10s %8s %8s %8s  %s\n", "CPU", "sink", "sink ID", \
	       "kernel ID", "decoder ID", "bytes", "branches", "samples", "markers"
	for (c = 0; c < ncpu; c++) {
		expect_out = untraced != "" && c >= u[1] && c <= u[2]
		if (expect_out) {
			mark = (bytes[c] || good[c] || wrong[c]) ? "TRACED" : "not traced (expected)"
			if (bytes[c] || good[c]) bad_untraced++
		} else if (wrong[c]) {
			mark = sprintf("WRONG: %d samples on other CPUs", wrong[c])
		} else if (!good[c]) {
			mark = lossy ? "lost (trace RAM wrapped)" : "MISSING"
			missing++
		} else {
			mark = "ok"
		}
		sid = (sink[c] in sinkid) ? sinkid[sink[c]] : "-"
		printf "%-4d %-9s %-10s %-9s %-10s %8d %8d %8d  %s\n", c, sink[c], sid, \
		       kid[c] ? sprintf("0x%02x", kid[c]) : "-", (c in did) ? did[c] : "-", \
		       bytes[c], atoms[c], good[c], mark
		if (!expect_out) {
			traced++
			# with lost trace, a CPU may have no decoder at all
			if (lossy && !(c in did)) { } else {
				if (!(c in did) || hex(did[c]) != kid[c] || conflict[c]) idbad++
				if (!(c in did) || dsink[c] != sid) sinkbad++
			}
			if (good[c] > atoms[c]) toomany++
			if (good[c] != atoms[c]) notall++
			total_atoms += atoms[c]; total_good += good[c]
			users[sink[c]]++
			ids[sink[c] " " kid[c]]++
			seen[kid[c]] = seen[kid[c]] (seen[kid[c]] ? "," : "") sink[c]
		}
	}
	for (s in wraps) if (wraps[s]) wrapped = wrapped " " s
	nwrong = 0; for (c in wrong) nwrong += wrong[c]
	nother = 0; for (c in other) nother += other[c]
	shared = 0; for (id in seen) if (seen[id] ~ /,/) shared++
	printf "%d CPUs traced, %d samples of %d branches written", traced, total_good, total_atoms
	if (wrapped != "") printf "; trace RAM wrapped in:%s", wrapped
	printf "; %d trace IDs are used on more than one sink\n", shared

	if (!ncpu) fail("sources", "no statistics from the guest")
	if (nwrong || nother) fail("every sample on the CPU that produced it", \
		sprintf("%d misattributed, %d without a marker; first: %s", nwrong, nother, firstwrong))
	else pass("every sample on the CPU that produced it")
	if (lossy) {
		if (!total_good) fail("some trace decoded", "no sample")
		else pass("some trace decoded")
		nwrapped = 0; nsinks = 0
		for (s in wraps) { if (sinkbytes[s]) nsinks++; if (wraps[s]) nwrapped++ }
		if (!nwrapped || nwrapped < nsinks) fail("every sink with trace wrapped", nwrapped " of " nsinks)
		else pass("every sink with trace wrapped")
	} else if (missing) fail("every CPU decoded", sprintf("%d CPUs without samples", missing))
	else pass("every CPU decoded")
	if (idbad || sinkbad) fail("decoder uses the trace ID and sink the kernel allocated", \
		sprintf("%d CPUs with another trace ID, %d with another sink", idbad, sinkbad))
	else pass("decoder uses the trace ID and sink the kernel allocated")
	if (lossy) {
		if (toomany) fail("no CPU has more samples than branches written", toomany " CPUs")
		else pass("no CPU has more samples than branches written")
	} else if (notall) fail("one sample per branch written", notall " CPUs with another count")
	else pass("one sample per branch written")
	dup = 0; for (k in ids) if (ids[k] > 1) dup++
	if (dup) fail("trace IDs unique within each sink", dup " duplicates")
	else pass("trace IDs unique within each sink")
	if (want_shared) {
		if (!shared) fail("trace IDs shared between sinks", "every ID is used on one sink only")
		else pass("trace IDs shared between sinks")
	}
	if (untraced != "") {
		if (bad_untraced) fail("CPUs beyond the sink capacity not traced", bad_untraced " traced")
		else pass("CPUs beyond the sink capacity not traced")
	}
	exit failed
}' "$dir/$name.stats" "$dir/$name.decoders" "$dir/$name.script"
