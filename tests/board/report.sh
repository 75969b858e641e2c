#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report.sh PERF VMLINUX DIR SESSION MODE NCPUS NSINKS [CPUS]
#
# Decodes DIR/SESSION.data (recorded in the board guest by tests/board/
# init.sh) with the host PERF and the guest's VMLINUX, prints a table of
# every CPU, then one line per check: "PASS name" or "FAIL name<TAB>detail".
# Exits non-zero if a check failed.
#
# The expected values come from the topology (NCPUS sources, NSINKS sinks)
# and from what the guest's simulated devices say they did (SESSION.stats:
# which source wrote how many branches with which trace ID into which
# sink), never from perf's output. Each source writes trace whose
# CONTEXTID is the PID of its marker thread "csboard/<cpu>", so a sample of
# csboard/<c> must be on CPU c (the thread is known by its PID from the
# statistics where perf did not record its name, as in per-thread mode).
#
# CPUS (FIRST-LAST, default all) are the CPUs of the session, when another
# one ran at the same time on the others: only these are in the table, and
# no sample may decode on the others.
#
# Every session: one PERF_RECORD_AUX_OUTPUT_HW_ID per event and CPU
# (design.md 2.4), read with its CPU and event ID (the sample_id of the
# record) from `perf report -D`, for every CPU that wrote trace.
#
# MODE:
#   all      every CPU decoded, one sample per branch its source wrote
#   shared   the same, and some trace IDs are in use on more than one sink
#            (only CPUs from 48 on, which have no legacy ID, can share)
#   lossy    the sinks' trace RAM wrapped: every AUX record is flagged
#            truncated and starts with a barrier packet; what survives is
#            not misattributed
#   untraced:FIRST-LAST  those CPUs are not traced (their sink had no trace
#            ID left), all others are decoded as in "all"
#   thread   per-thread: the CPUs that wrote trace are decoded as in "all",
#            and among them every CPU of a "hop: CPU N" line of the
#            session's log (the workload, tests/board/hop.c), on both sinks
#   snapshot snapshot mode: decoded as in "all", and each snapshot ("snapshots
#            N" in the log, plus one at exit) brought trace of every sink
#   refused  the sink refused the session (it serves another perf process):
#            nothing traced, every AUX record empty and flagged truncated,
#            and perf says that AUX data was lost
#   part     one output file of a --switch-output session, decoded alone
#            (tests/board/switchout-check.sh): the CPUs of the log's "hop:
#            CPU N" lines decoded as in "all" and no other, without the
#            count per branch (the statistics are the whole session's)
#
# Table columns: sink and sink ID the CPU's trace went to; the trace ID the
# kernel gave the CPU's source and the one perf's decoder used for it (from
# the HW_ID records); trace bytes and taken branches the source wrote;
# branch samples perf decoded on that CPU; markers: "ok" when every sample
# of csboard/<cpu> is on that CPU and there is at least one.
set -uo pipefail

usage="usage: report.sh PERF VMLINUX DIR SESSION MODE NCPUS NSINKS"
perf=${1:?$usage}
vmlinux=${2:?$usage}
dir=${3:?$usage}
name=${4:?$usage}
mode=${5:?$usage}
ncpus=${6:?$usage}
nsinks=${7:?$usage}
cpus=${8:-0-$((ncpus - 1))}
data=$dir/$name.data
untraced=
case "$mode" in
untraced:*) untraced=${mode#untraced:} ;;
all|shared|lossy|thread|snapshot|refused|part) ;;
*) echo "report.sh: unknown mode $mode" >&2; exit 2 ;;
esac
case "$cpus" in
[0-9]*-[0-9]*) ;;
*) echo "report.sh: CPUS must be FIRST-LAST, not $cpus" >&2; exit 2 ;;
esac

failed=0
pass() { echo "PASS $name: $1"; }
fail() { printf 'FAIL %s: %s\t%s\n' "$name" "$1" "$2"; failed=1; }

if ! grep -q '^exit 0$' "$dir/$name.log" 2>/dev/null; then
	fail "perf record in the guest" "$(tail -n 3 "$dir/$name.log" 2>/dev/null | tr '\n' ' ')"
	exit 1
fi
pass "perf record in the guest"
if [ ! -s "$data" ] || [ ! -s "$dir/$name.stats" ]; then
	fail "perf.data and statistics came back" "no $data or $dir/$name.stats"
	exit 1
fi

# Samples: comm, tid, [cpu], ip, symbol
"$perf" script -i "$data" --vmlinux="$vmlinux" --itrace=b \
	-F comm,tid,cpu,ip,sym >"$dir/$name.script" 2>"$dir/$name.script.err"
rc=$?
if [ $rc -ne 0 ]; then
	fail "perf script decodes the trace" "exit $rc: $(head -n 2 "$dir/$name.script.err" | tr '\n' ' ')"
	exit 1
fi
pass "perf script decodes the trace"

# The records, and what the decoder made of the HW_ID records: for each
# queue, which trace ID it decodes as which CPU of which sink. And in
# $name.hwid, "CPU EVENT_ID VALUE" for every HW_ID record: CPU from the
# dump's line, the event ID from the last 8 bytes of the record (its
# sample_id ends with PERF_SAMPLE_IDENTIFIER), read from the hex dump that
# perf prints before the line.
"$perf" report -D -i "$data" 2>/dev/null | awk -v hwid="$dir/$name.hwid" '
function hex(s,   i, v) {
	v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
/^0x[0-9a-f]+@.*\]: event: / { n = 0; next }
/^\. +[0-9a-f]+: / {
	for (i = 3; i <= NF && i <= 18; i++)
		if ($i ~ /^[0-9a-f][0-9a-f]$/) b[n++] = $i
	next
}
/decoder for (trace ID|unformatted trace)|PERF_RECORD_AUX/ { print }
/PERF_RECORD_AUX_OUTPUT_HW_ID/ {
	# "CPU [TIME] OFFSET [SIZE]: PERF_RECORD_AUX_OUTPUT_HW_ID hw_id: VALUE"
	for (i = 2; i < NF && $i !~ /^\[0x[0-9a-f]+\]:$/; i++)
		;
	size = $i; gsub(/[\[\]:]/, "", size); size = hex(size)
	id = ""
	for (i = size - 1; i >= size - 8 && i >= 0; i--) id = id b[i]
	print $1, (length(id) == 16 && n == size) ? "0x" id : "unknown", $NF > hwid
}' >"$dir/$name.dump"
touch "$dir/$name.hwid"

# lossy: the sinks lost trace, so each AUX buffer they filled must be
# flagged truncated and start with the barrier that resynchronises the
# decoder (four 0x7fffffff words), read straight from perf.data
if [ "$mode" = lossy ]; then
	barrier="ffffff7fffffff7fffffff7fffffff7f"
	nbuf=0 nbad=0
	while read -r off hdr size; do
		[ $((size)) -gt 0 ] || continue
		nbuf=$((nbuf + 1))
		got=$(od -A n -t x1 -v -j $((off + hdr)) -N 16 "$data" | tr -d ' \n')
		[ "$got" = "$barrier" ] || nbad=$((nbad + 1))
	done < <(awk '/PERF_RECORD_AUXTRACE size:/ { h = $4; gsub(/[\[\]:]/, "", h); print $3, h, $7 }' "$dir/$name.dump")
	ntrunc=$(grep -c 'PERF_RECORD_AUX offset:.*\[T\]' "$dir/$name.dump")
	if [ "$nbuf" -eq 0 ] || [ "$nbad" -ne 0 ]; then
		fail "lost trace starts with a barrier" "$nbad of $nbuf AUX buffers do not"
	else
		pass "lost trace starts with a barrier"
	fi
	if [ "$ntrunc" -lt "$nbuf" ]; then
		fail "lost trace flagged truncated" "$ntrunc of $nbuf AUX records"
	else
		pass "lost trace flagged truncated"
	fi
fi

# the AUXTRACE records with trace, and perf's word on lost AUX data
naux=$(awk '/PERF_RECORD_AUXTRACE size:/ && $7 !~ /^0x0+$/' "$dir/$name.dump" | wc -l)
auxlost=$(grep -c 'AUX data lost' "$dir/$name.script.err")

awk -v untraced="$untraced" -v mode="$mode" -v name="$name" \
    -v ncpus="$ncpus" -v nsinks="$nsinks" -v cpus="$cpus" -v naux="$naux" \
    -v auxlost="$auxlost" '
function hex(s,   i, v) {
	v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
function fail(n, d) { printf "FAIL %s: %s\t%s\n", name, n, d; failed = 1 }
function pass(n) { printf "PASS %s: %s\n", name, n }
function check(ok, n, d) { if (ok) pass(n); else fail(n, d) }
FILENAME ~ /info$/ && $1 == "sink" { sysid[$2] = $3; next }
FILENAME ~ /stats$/ && $1 == "sink" { nsink++; sinkid[$2] = $3; sinkbytes[$2] = $4; lost[$2] = $5; next }
FILENAME ~ /stats$/ && $1 == "etm" {
	cpu = $2; ncpu++
	sink[cpu] = $3; kid[cpu] = $4; bytes[cpu] = $5; atoms[cpu] = $6
	marker_cpu[$7] = cpu
	next
}
FILENAME ~ /log$/ && /^hop: CPU [0-9]+$/ { hop[$3 + 0] = 1; next }
FILENAME ~ /log$/ && /^snapshots [0-9]+$/ { snaps = $2 + 0; next }
FILENAME ~ /hwid$/ {
	# CPU EVENT_ID VALUE: VALUE bits 7:0 trace ID, 39:8 sink ID
	key = $1 " " $2
	if ($2 == "unknown") noid++
	if (++nhw[key] == 2) { duphw++; if (!firstdup) firstdup = "CPU " $1 ", event " $2 }
	hwcpu[$1] = 1
	v = tolower($3); sub(/^0x/, "", v)
	while (length(v) < 16) v = "0" v
	if (hex(substr(v, 15, 2)) != kid[$1] || hex(substr(v, 7, 8)) != hex(sysid[sink[$1]])) {
		badhw++
		if (!firstbadhw) firstbadhw = "CPU " $1 ": " $3
	}
	next
}
FILENAME ~ /dump$/ && /PERF_RECORD_AUX offset:/ {
	# ... PERF_RECORD_AUX offset: O size: S flags: F [T]
	auxrec++
	if (hex($9) == 0 && / \[[A-Z]*T[A-Z]*\]$/) auxemptytrunc++
	next
}
FILENAME ~ /dump$/ && /decoder for trace ID/ {
	# queue Q (buffer CPU B): decoder for trace ID 0xNN: CPU C, sink 0xSS
	b = $5; sub(/\):$/, "", b); id = $10; sub(/:$/, "", id)
	c = $12; sub(/,$/, "", c); s = $14
	ndec++
	did[c] = id
	# the ID and sink the kernel gave CPU c, and (per-CPU mode) the sink
	# of the buffer; a per-thread queue decodes the parts of all sinks
	if (hex(id) != kid[c] || hex(s) != hex(sysid[sink[c]]) ||
	    (mode != "thread" && hex(s) != hex(sysid[sink[b]]))) {
		baddec++
		if (!firstbad) firstbad = $0
	}
	next
}
FILENAME ~ /dump$/ && /decoder for unformatted trace/ {
	# queue Q (buffer CPU B): decoder for unformatted trace: CPU C, sink ...
	# The trace of a raw sink carries no ID: its decoder is that of the
	# CPU of the buffer in per-CPU mode
	b = $5; sub(/\):$/, "", b); c = $11; sub(/,$/, "", c)
	ndec++
	did[c] = "raw"
	if (mode != "thread" && c != b) {
		baddec++
		if (!firstbad) firstbad = $0
	}
	next
}
FILENAME ~ /script$/ {
	for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
	if (i > NF) next
	c = substr($i, 2, length($i) - 2) + 0
	# the marker thread, by name or (name not recorded) by its PID
	if ($1 ~ /^csboard\//) m = substr($1, 9) + 0
	else if ($2 in marker_cpu) m = marker_cpu[$2]
	else { other++; next }
	if (m != c) { wrong++; if (!firstwrong) firstwrong = $0; next }
	if (c < lo || c > hi) { outside++; next }
	# ip 0: the sample perf makes where a trace starts, not a branch
	if ($(i + 1) !~ /^0+$/) good[c]++
	next
}
BEGIN { split(cpus, r, "-"); lo = r[1] + 0; hi = r[2] + 0 }
END {
	split(untraced, u, "-")
	# the CPUs that must be traced
	for (c = lo; c <= hi; c++) {
		if (untraced != "" && c >= u[1] && c <= u[2]) continue
		if (mode == "refused" || (mode == "thread" && !atoms[c])) continue
		if (mode == "part" && !(c in hop)) continue
		want[c] = 1
	}
	# trace IDs that CPUs of more than one sink use
	for (c = lo; c <= hi; c++) {
		if (!(c in want))
			continue
		if (!(kid[c] in id_sink)) id_sink[kid[c]] = sink[c]
		else if (id_sink[kid[c]] != sink[c]) shared_id[kid[c]] = 1
	}
	for (k = 1; k < 128; k++) if (k in shared_id) { shared++; shared_list = shared_list sprintf(" 0x%02x", k) }
	printf "%-4s %-9s %-10s %-9s %-10s %-6s %8s %8s %8s  %s\n", "CPU", "sink", "sink ID", \
	       "kernel ID", "decoder ID", "shared", "bytes", "branches", "samples", "markers"
	for (c = lo; c <= hi; c++) {
		out = !(c in want)
		if (out) {
			mark = mode == "thread" || mode == "part" ? "not run on" : "not traced (expected)"
			if (mode == "part" ? good[c] : bytes[c] || good[c]) { mark = "TRACED"; traced_out++ }
		} else if (!good[c]) {
			mark = mode == "lossy" ? "lost (trace RAM wrapped)" : "MISSING"
			missing++
		} else {
			mark = "ok"
		}
		sid = (sink[c] in sysid) ? sysid[sink[c]] : "-"
		printf "%-4d %-9s %-10s %-9s %-10s %-6s %8d %8d %8d  %s\n", c, sink[c], sid, \
		       kid[c] ? sprintf("0x%02x", kid[c]) : "-", (c in did) ? did[c] : "-", \
		       (!out && kid[c] in shared_id) ? "yes" : "-", bytes[c], atoms[c], good[c], mark
		if (out)
			continue
		traced++
		used_sink[sink[c]] = 1
		if (!(c in did) && mode != "lossy") nodec++
		if (!(c in hwcpu)) nohw++
		if (good[c] > atoms[c]) toomany++
		if (good[c] != atoms[c]) miscount++
		total_atoms += atoms[c]; total_good += good[c]
		if (++per_sink_id[sink[c] " " kid[c]] == 2) dup++
	}
	for (s in sinkid) if (hex(sinkid[s]) != hex(sysid[s])) badsink++
	for (s in lost) if (lost[s]) nlost++
	for (s in sinkbytes) if (sinkbytes[s]) nfull++
	for (s in used_sink) nused++
	printf "%d CPUs traced, %d samples of %d branches written", traced, total_good, total_atoms
	printf "; %d trace IDs in use on more than one sink%s", shared, shared ? ":" shared_list : ""
	if (nlost) printf "; %d sinks lost trace", nlost
	printf "\n"

	check(ncpu == ncpus && nsink == nsinks, "all simulated devices registered", \
	      sprintf("%d sources and %d sinks, expected %d and %d", ncpu, nsink, ncpus, nsinks))
	check(!wrong && !other, "every sample on the CPU that produced it", \
	      sprintf("%d misattributed, %d without a marker; first: %s", wrong, other, firstwrong))
	if (lo > 0 || hi < ncpus - 1)
		check(!outside, "no sample on the CPUs of the other session", outside " samples")
	if (mode != "refused")
		check(ndec && !baddec && !nodec, "decoders use the trace IDs and sinks of the kernel", \
		      sprintf("%d of %d decoders wrong, %d CPUs without one; first: %s", baddec, ndec, nodec, firstbad))
	check(!dup, "trace IDs unique within each sink", dup " duplicates")
	check(nsink && !badsink, "sink IDs are those of cs_etm/sinks/ in the guest", \
	      badsink " sinks whose ID differs from the one in the guest sysfs")
	check(!duphw && !nohw && !noid, "one HW_ID record per event and CPU", \
	      sprintf("%d (CPU, event) with more than one, first: %s; %d traced CPUs with none; %d without an event ID in the dump", \
		      duphw, firstdup, nohw, noid))
	check(!badhw, "HW_ID records hold the kernel trace ID and the sink ID", \
	      sprintf("%d records differ, first: %s", badhw, firstbadhw))
	if (mode == "lossy") {
		check(total_good, "some trace decoded", "no sample")
		check(nlost && nlost == nfull, "every sink with trace lost some", nlost " of " nfull)
		check(!toomany, "no CPU has more samples than branches written", toomany " CPUs")
	} else if (mode == "refused") {
		check(!traced_out, "nothing traced on the refused sink", traced_out " CPUs traced")
		check(auxrec && auxemptytrunc == auxrec, "every AUX record empty and flagged truncated", \
		      sprintf("%d of %d AUX records", auxemptytrunc, auxrec))
		check(auxlost, "perf reports the lost AUX data", "no \"AUX data lost\" from perf script")
	} else if (mode == "part") {
		check(!missing, "every CPU decoded", missing " CPUs without samples")
		check(!traced_out, "no sample on a CPU the task did not run on", traced_out " CPUs")
		check(!nlost, "no trace lost", nlost " sinks lost trace")
	} else {
		check(!missing, "every CPU decoded", missing " CPUs without samples")
		check(!miscount, "one sample per branch written", miscount " CPUs with another count")
		check(!nlost, "no trace lost", nlost " sinks lost trace")
	}
	if (mode == "shared")
		check(shared, "trace IDs shared between sinks", "every ID is used on one sink only")
	if (untraced != "")
		check(!traced_out, "CPUs beyond the sink capacity not traced", traced_out " traced")
	if (mode == "thread") {
		for (c in hop) {
			nhop++
			if (!(c in want) || !good[c]) hopmissing = hopmissing " " c
		}
		check(nhop && hopmissing == "", "every CPU the workload ran on decoded", \
		      nhop ? "not decoded: CPU" hopmissing : "no \"hop: CPU\" line in the log")
		check(nused == nsinks, "the workload traced into every sink", nused " of " nsinks " sinks")
		check(!traced_out, "no sample on a CPU without trace", traced_out " CPUs")
	}
	if (mode == "snapshot")
		check(snaps && naux >= (snaps + 1) * nused, "every snapshot holds trace of every sink", \
		      sprintf("%d AUX buffers with trace for %d snapshots (and one at exit) of %d sinks", \
			      naux, snaps, nused))
	exit failed
}' "$dir/info" "$dir/$name.stats" "$dir/$name.log" "$dir/$name.hwid" "$dir/$name.dump" \
	"$dir/$name.script" || failed=1
exit "$failed"
