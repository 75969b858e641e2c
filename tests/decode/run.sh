#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Decode tests for per-sink CoreSight trace IDs.
#
#   tests/decode/run.sh PERF_BINARY [WORKDIR]
#
# Builds the trace generator (tools/csgen) and a small arm64 ELF, writes
# cs_etm perf.data files with csgen and checks what PERF_BINARY decodes from
# them: the CPU, pid and symbol of every sample of `perf script`, and the
# number of samples per CPU. Every expected value is derived from the
# generator's input parameters (CPU c runs func_cpu<c> as pid PID_BASE+c,
# or as the one thread in per-thread mode, and executes ATOMS taken
# branches), never from perf's output.
#
# Environment:
#   STOCK_PERF   perf built from the unpatched base: also show it failing or
#                misattributing the multi-sink cases (its checks are named
#                stock_*)
#   ASAN_PERF    perf built with -fsanitize=address,undefined: run the
#                malformed inputs under it too and fail on any sanitizer report
#
# Prints one line per check, "PASS <name>" or "FAIL <name>: <detail>", then
# "N passed, N failed", and exits non-zero if any check failed.
# With DECODE_LIST=1 it runs nothing and prints "CHECK <name>" for every
# check it would run, so that a caller can tell that none went missing.

set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/decode/lib.sh
. "$here/lib.sh" "$@"

if [ -z "$LIST" ]; then
make -s -C "$repo/tools/csgen" O="$work" >"$work/csgen-build.log" 2>&1 ||
	{ fail build_csgen "$(tail -3 "$work/csgen-build.log")"; echo "$npass passed, $nfail failed"; exit 1; }
csgen=$work/csgen
elf=$work/prog
"$here/mkelf.sh" "$elf" 256 >"$work/elf-build.log" 2>&1 ||
	{ fail build_elf "$(tail -3 "$work/elf-build.log")"; echo "$npass passed, $nfail failed"; exit 1; }
# The IDs OpenCSD's deformatter finds in a buffer, configured as perf does
${CC:-cc} -O2 -Wall -o "$work/frame-ids" "$repo/tools/cstrace/frame-ids.c" \
	-lopencsd_c_api -lopencsd >"$work/frame-ids-build.log" 2>&1 ||
	{ fail build_frame_ids "$(tail -3 "$work/frame-ids-build.log")"; echo "$npass passed, $nfail failed"; exit 1; }
fi

PID_BASE=1000
THREAD_PID=4242

# gen NAME CSGEN-ARGS...: write $work/NAME.data
gen() {
	local name=$1
	shift
	"$csgen" -o "$work/$name.data" -e "$elf" -p $PID_BASE "$@" >"$work/$name.gen" 2>&1
}

# sink NAME CPU / id NAME CPU: sink ID and trace ID of a CPU from csgen -L
sink() { awk -v c="$2" '$1 == "cpu" && $2 == c { print $4 }' "$work/$1.gen"; }
tid() { awk -v c="$2" '$1 == "cpu" && $2 == c { print $6 }' "$work/$1.gen"; }
# hwval/hwoff NAME CPU: value and file offset of the CPU's first HW_ID record
hwval() { awk -v c="$2" '$1 == "hwid" && $3 == c { print $7; exit }' "$work/$1.gen"; }
misoff() { awk '$1 == "misaligned" { print $3; exit }' "$work/$1.gen"; }
auxoff() { awk '$1 == "auxtrace" { print $5; exit }' "$work/$1.gen"; }
auxsz() { awk '$1 == "auxtrace" { print $7; exit }' "$work/$1.gen"; }
hwoff() { awk -v c="$2" '$1 == "hwid" && $3 == c { print $5; exit }' "$work/$1.gen"; }
# dataend NAME: the end of the data section of NAME's file (its header's
# data offset plus size, u64s at bytes 40 and 48)
dataend() {
	od -An -t u8 -j 40 -N 16 "$work/$1.data" | awk '{ printf "%#x", $1 + $2 }'
}

# attribution NAME MODE NCPUS PER_CPU_EXPECTED
#   MODE cpu:    sample of func_cpu<c> must be on CPU c with pid PID_BASE+c
#   MODE thread: sample of func_cpu<c> must be on CPU c with pid THREAD_PID
#   MODE nocpu:  per-thread without CPU: pid THREAD_PID only
# PER_CPU_EXPECTED: "all:N" (every CPU N samples) or "c0 c1 ..." counts
attribution() {
	local name=$1 mode=$2 ncpus=$3 expected=$4
	awk -v mode="$mode" -v ncpus="$ncpus" -v expect="$expected" \
	    -v pidbase=$PID_BASE -v tpid=$THREAD_PID '
	# every sample: its pid must be that of its CPU (per-CPU mode) or
	# the thread, on a CPU of the trace
	NF {
		pid = $1 + 0
		if (mode == "nocpu") {
			cpu = -1
			if (pid != tpid) { bad++; if (!first) first = $0 }
		} else {
			cpu = $2
			gsub(/[\[\]]/, "", cpu)
			cpu = cpu + 0
			want = (mode == "cpu") ? pidbase + cpu : tpid
			if (cpu >= ncpus || pid != want) { bad++; if (!first) first = $0 }
		}
	}
	# outside func_cpu<c> only the branch into the trace (from address 0)
	NF && !/func_cpu/ {
		ip = (mode == "nocpu") ? $2 : $3
		if (ip != "0") { bad++; if (!first) first = $0 }
		next
	}
	/func_cpu/ {
		sym = $NF
		sub(/.*func_cpu/, "", sym)
		c = sym + 0
		n[c]++
		total++
		if (mode != "nocpu" && cpu != c) { bad++; if (!first) first = $0 }
	}
	END {
		if (!total) { print "no sample decoded"; exit 1 }
		if (bad) { printf "%d of %d samples misattributed, first: %s\n", bad, total, first; exit 1 }
		if (expect ~ /^all:/) {
			e = substr(expect, 5) + 0
			for (c = 0; c < ncpus; c++)
				if (n[c] != e) { printf "CPU %d: %d samples, expected %d\n", c, n[c], e; exit 1 }
		} else {
			k = split(expect, ev, " ")
			for (c = 0; c < k; c++)
				if (n[c] != ev[c + 1]) { printf "CPU %d: %d samples, expected %d\n", c, n[c], ev[c + 1]; exit 1 }
		}
		for (c in n) if (c + 0 >= ncpus) { printf "samples for unknown CPU %d\n", c; exit 1 }
	}' "$work/$name.out"
}

# check_decode NAME MODE NCPUS EXPECTED CSGEN-ARGS...
# (RUNNER=pipe_run check_decode ...: decode through a pipe)
check_decode() {
	local name=$1 mode=$2 ncpus=$3 expected=$4 fields detail rc
	shift 4
	listed "$name" && return
	if ! gen "$name" "$@"; then
		fail "$name" "csgen: $(tail -1 "$work/$name.gen")"
		return
	fi
	fields=cpu,pid,ip,sym
	[ "$mode" = nocpu ] && fields=pid,ip,sym
	"${RUNNER:-script_run}" "$perf" "$name" "$fields"
	rc=$?
	if detail=$(crash $rc "$work/$name.err"); then
		fail "$name" "$detail"
		return
	fi
	if [ $rc -ne 0 ]; then
		fail "$name" "perf script exit $rc: $(grep -m1 -i 'error\|CS ETM' "$work/$name.err")"
		return
	fi
	if detail=$(attribution "$name" "$mode" "$ncpus" "$expected"); then
		pass "$name"
	else
		fail "$name" "$detail"
	fi
}

# check_error NAME MESSAGE CSGEN-ARGS...: (RUNNER as check_decode) perf must exit non-zero, without
# crashing, and print MESSAGE as one whole line. MESSAGE is expanded after
# csgen ran, so it can use $(sink NAME CPU) and $(tid NAME CPU); csgen
# always lists the topology (-L) for that.
check_error() {
	local name=$1 template=$2 rc msg detail
	shift 2
	listed "$name" && return
	if ! gen "$name" -L "$@"; then
		fail "$name" "csgen: $(tail -1 "$work/$name.gen")"
		return
	fi
	eval "msg=\"$template\""
	"${RUNNER:-script_run}" "$perf" "$name" cpu,pid,ip,sym
	rc=$?
	if detail=$(crash $rc "$work/$name.err"); then
		fail "$name" "$detail"
	elif [ $rc -eq 0 ]; then
		fail "$name" "perf script exited 0"
	elif ! grep -Fxq "$msg" "$work/$name.err"; then
		fail "$name" "exit $rc but no line '$msg': $(head -1 "$work/$name.err")"
	else
		pass "$name"
	fi
}

ATOMS=200

# ---- per-CPU attribution ----
check_decode one_sink cpu 8 all:$ATOMS -c 8 -s 1 -a $ATOMS
# IDs overlap between sinks once a sink runs out of legacy IDs: 16 CPUs of
# 48-63 on sink 1 take 0x01-0x0f and 0x10, which CPU 0 has on sink 0
check_decode two_sinks cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS
check_decode two_sinks_overlapping_ids cpu 64 all:40 -c 64 -s 2 -a 40
check_decode four_sinks_overlapping_ids cpu 128 all:20 -c 128 -s 4 -a 20
check_decode cpus256_sinks4 cpu 256 all:40 -c 256 -s 4 -a 40
check_decode static_ids_header_v1 cpu 8 all:$ATOMS -c 8 -s 1 -a $ATOMS -H none -V 1
check_decode static_ids_47cpus cpu 47 all:60 -c 47 -s 1 -a 60 -H none -V 1
check_decode hwid_v0_0_global_map cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS -H 0.0
check_decode hwid_v0_1_header_v1 cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS -V 1 -M
check_decode header_v2_without_hwid cpu 8 all:$ATOMS -c 8 -s 1 -a $ATOMS -H none
check_decode no_timestamps cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS -T 0
check_decode barrier_packets cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS -b
check_decode small_chunks cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS -k 1
check_decode hwid_v0_1_one_cpu_per_sink cpu 4 all:$ATOMS -c 4 -s 4 -a $ATOMS
# Without timestamps (--itrace=Z) each trace ID of a buffer keeps its own
# decode state too: the interleaved trace of two CPUs never gives a branch
# from one CPU's code to the other's, nor the other's pid
ITRACE=bZ check_decode timeless_two_sinks cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS
ITRACE=bZ check_decode timeless_overlapping_ids cpu 64 all:40 -c 64 -s 2 -a 40
ITRACE=bZ RUNNER=pipe_run check_decode pipe_timeless_overlapping_ids cpu 64 all:40 -c 64 -s 2 -a 40

# perf 6.3-6.10 on a kernel without HW_ID: header v2, legacy IDs flagged
# with bit 31 in the metadata; and the same with HW_ID records
check_decode header_v2_flagged_ids_no_hwid cpu 8 all:$ATOMS -c 8 -s 1 -a $ATOMS -H none -F
check_decode header_v2_flagged_ids cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS -F
# header v2 without HW_ID records on 64 CPUs: the metadata IDs of CPUs 48-63
# are placeholders (0x10 + 2 * (cpu % 48)): CPUs 0-47 decode, one warning
# names the others, whose trace (IDs csgen gave them as the kernel would) is
# dropped
counts48="$(for c in $(seq 0 63); do [ "$c" -lt 48 ] && printf '4 ' || printf '0 '; done)"
check_decode header_v2_no_hwid_64cpus cpu 64 "$counts48" -c 64 -s 1 -a 4 -H none
# perf 6.3-6.10 on a stock 6.1 kernel (-F -H none): the metadata holds
# 0x80000000 | (0x10 + 2 * cpu) and the ETM writes bits 6:0 of that value
# into its trace. flagged_ids NCPUS ATOMS prints the samples per CPU and the
# CPUs dropped, as ranges: a CPU decodes if those bits are a valid ID
# (0x01-0x6f) that no lower CPU has (CPUs 48-55 get reserved IDs, CPU 56
# ID 0, CPUs 57-63 0x02-0x0e, from CPU 64 on those of CPU - 64)
flagged_ids() {
	awk -v n="$1" -v a="$2" 'BEGIN {
		for (c = 0; c < n; c++) {
			id = (16 + 2 * c) % 128
			ok = id >= 1 && id <= 111 && !(id in seen)
			if (ok)
				seen[id] = 1
			else
				d[nd++] = c
			counts = counts (ok ? a : 0) " "
		}
		print counts
		for (i = 0; i < nd; i = j) {
			for (j = i + 1; j < nd && d[j] == d[j - 1] + 1; j++)
				;
			r = r (r == "" ? "" : ", ") (j - 1 > i ? d[i] "-" d[j - 1] : d[i])
		}
		print r
	}'
}
mapfile -t flagged64 < <(flagged_ids 64 4)
check_decode header_v2_flagged_no_hwid_64cpus cpu 64 "${flagged64[0]}" -c 64 -s 1 -a 4 -H none -F
RUNNER=pipe_run check_decode pipe_header_v2_flagged_no_hwid_64cpus cpu 64 "${flagged64[0]}" -c 64 -s 1 -a 4 -H none -F
# Stock 6.1 perf on a stock 6.1 kernel of 64 CPUs (header v1, -M -H
# none): the metadata holds 0x10 + 2 * cpu unmasked, the ETMs write bits 6:0
# of it. The CPUs whose 7-bit ID is valid and unique decode; 48 and 49 CPUs
# too (6.1 refuses 57 and more, this series refused 49 and more). From 65
# CPUs on CPU 64 writes CPU 0's 0x10: two CPUs claim one valid ID
mapfile -t flagged49 < <(flagged_ids 49 4)
check_decode static_ids_64cpus cpu 64 "${flagged64[0]}" -c 64 -s 1 -a 4 -H none -V 1 -M
check_decode static_ids_49cpus cpu 49 "${flagged49[0]}" -c 49 -s 1 -a 4 -H none -V 1 -M
RUNNER=pipe_run check_decode pipe_static_ids_64cpus cpu 64 "${flagged64[0]}" -c 64 -s 1 -a 4 -H none -V 1 -M
check_error static_ids_65cpus 'CS ETM: CPU 0 and CPU 64 both claim trace ID 0x10' -c 65 -s 1 -a 4 -H none -V 1 -M
for spec in "header_v2_no_hwid_64cpus:48-63" "header_v2_flagged_no_hwid_64cpus:${flagged64[1]}" \
	    "pipe_header_v2_flagged_no_hwid_64cpus:${flagged64[1]}" "static_ids_64cpus:${flagged64[1]}" \
	    "static_ids_49cpus:${flagged49[1]}" "pipe_static_ids_64cpus:${flagged64[1]}"; do
	name=${spec%%:*}
	listed "${name}_warning" && continue
	case ${spec#*:} in
	*[-,]*) msg="CS ETM: CPUs ${spec#*:} have no valid trace ID of their own in the metadata: their trace is not decoded" ;;
	*) msg="CS ETM: CPU ${spec#*:} has no valid trace ID of its own in the metadata: its trace is not decoded" ;;
	esac
	if [ "$(grep -cFx "$msg" "$work/$name.err")" = 1 ]; then
		pass "${name}_warning"
	else
		fail "${name}_warning" "no single line '$msg': $(head -1 "$work/$name.err")"
	fi
done
# header v2 without HW_ID records: the IDs are assumed, and perf says so
name=header_v2_no_hwid_assumed_warning
if ! listed $name; then
	msg="CS ETM: header version 2 but no HW_ID record: assuming the trace IDs of a kernel without trace ID allocation, 0x10 + 2 * CPU, which are wrong if the recording kernel allocated them"
	if [ "$(grep -cFx "$msg" "$work/header_v2_no_hwid_64cpus.err")" = 1 ]; then
		pass $name
	else
		fail $name "no single line '$msg': $(head -1 "$work/header_v2_no_hwid_64cpus.err")"
	fi
fi
# a dummy event of another sample_type first: HW_ID sizes are per event
check_decode second_event_other_sample_type cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS -X
# a later HW_ID minor version may use bits 55:40
check_decode hwid_minor2_reserved_bits cpu 4 all:$ATOMS -c 4 -s 2 -a $ATOMS -B minor2
# trace IDs allocated as the kernel does: 111 CPUs on one sink use
# 0x01-0x6f; 200 CPUs on 2 sinks of 100
check_decode cpus111_one_sink cpu 111 all:8 -c 111 -s 1 -a 8
check_decode cpus200_sinks2 cpu 200 all:8 -c 200 -s 2 -a 8
name=csgen_refuses_112_cpus_per_sink
if listed $name; then
	:
elif gen $name -c 112 -s 1 -a 8; then
	fail $name "csgen wrote 112 CPUs on one sink"
elif ! grep -Fxq "csgen: CPU 111: all 111 trace IDs of its ID map are taken: at most 111 CPUs can share a sink" "$work/$name.gen"; then
	fail $name "no clear message: $(head -1 "$work/$name.gen")"
else
	pass $name
fi

# CPUs 6-7 (per sink) got no trace ID: one warning names them as a range
check_decode untraced_cpus cpu 8 "$ATOMS $ATOMS $ATOMS $ATOMS $ATOMS $ATOMS 0 0" -c 8 -s 1 -a $ATOMS -Z 6
check_decode untraced_cpus_two_sinks cpu 10 "$ATOMS $ATOMS $ATOMS $ATOMS $ATOMS $ATOMS $ATOMS 0 0 0" -c 10 -s 2 -a $ATOMS -Z 7
for spec in "untraced_cpus:CPUs 6-7 have no trace ID: they were not traced" \
	    "untraced_cpus_two_sinks:CPUs 7-9 have no trace ID: they were not traced"; do
	name=${spec%%:*}
	listed "${name}_warning" && continue
	if [ "$(grep -cFx "CS ETM: ${spec#*:}" "$work/$name.err")" = 1 ]; then
		pass "${name}_warning"
	else
		fail "${name}_warning" "no single line 'CS ETM: ${spec#*:}': $(head -1 "$work/$name.err")"
	fi
done
# The per-CPU events of a workload (perf record -- cmd, csgen -w) start
# only on the CPUs it runs on: those without a HW_ID record are no news
check_decode untraced_cpus_workload cpu 8 "$ATOMS $ATOMS $ATOMS $ATOMS $ATOMS $ATOMS 0 0" -c 8 -s 1 -a $ATOMS -Z 6 -w
name=untraced_cpus_workload_no_warning
if ! listed $name; then
	if grep -q 'no trace ID' "$work/untraced_cpus_workload.err"; then
		fail $name "$(grep -m1 'no trace ID' "$work/untraced_cpus_workload.err")"
	else
		pass $name
	fi
fi

# check_dropped NAME GEN CPU REC MSG: NAME.err holds "MSG B bytes of trace
# dropped" once, B being the size of CPU's REC records ("aux" or "auxtrace")
# in csgen's listing GEN.gen, and more than 0
check_dropped() {
	local name=$1 gen=$2 cpu=$3 rec=$4 msg bytes=0 size
	for size in $(awk -v c="$cpu" -v r="$rec" '$1 == r && $3 == c { print $7 }' "$work/$gen.gen"); do
		bytes=$((bytes + size))
	done
	msg="$5 $bytes bytes of trace dropped"
	if [ "$bytes" -gt 0 ] && [ "$(grep -cFx "$msg" "$work/$name.err")" = 1 ]; then
		pass "${name}_warning"
	else
		fail "${name}_warning" "no single line '$msg': $(grep -m1 'CS ETM' "$work/$name.err")"
	fi
}

# A lost HW_ID record (CPU 1, csgen -B nohwid) or one of a CPU without
# metadata (the last CPU, -B nometa: offline when perf wrote it): the trace
# whose sink is unknown is dropped, never guessed, the rest decodes, and one
# warning names the CPU and the bytes dropped (csgen -L lists the AUXTRACE
# records of per-CPU mode, the AUX records of per-thread mode). One CPU per
# sink in per-CPU mode: CPU 1's buffer holds only its own trace.
counts63=$(for c in $(seq 0 63); do printf '%s ' $((c == 63 ? 0 : 40)); done)
counts1=$(for c in $(seq 0 63); do printf '%s ' $((c == 1 ? 0 : 40)); done)
check_decode missing_hwid_per_cpu cpu 4 "$ATOMS 0 $ATOMS $ATOMS" -c 4 -s 4 -a $ATOMS -B nohwid -L
check_decode missing_hwid_per_thread thread 64 "$counts1" -c 64 -s 2 -t -a 20 -B nohwid -L
check_decode missing_hwid_per_thread_no_overlap thread 4 "$((2 * ATOMS)) 0 $((2 * ATOMS)) $((2 * ATOMS))" -c 4 -s 2 -t -g 8 -a $ATOMS -B nohwid -L
RUNNER=pipe_run check_decode pipe_missing_hwid_per_thread thread 64 "$counts1" -c 64 -s 2 -t -a 20 -B nohwid -L
check_decode hwid_without_metadata thread 64 "$counts63" -c 64 -s 2 -t -a 20 -B nometa -L
# One sink: CPU 1's buffer also holds the trace of another CPU of the sink,
# which a lost HW_ID record of CPU 1 must not cost: the buffer decodes with
# the one sink's map and only the trace of CPU 1's ID is dropped, by ID.
counts8=$(for c in $(seq 0 7); do printf '%s ' $((c == 1 ? 0 : ATOMS)); done)
check_decode missing_hwid_one_sink cpu 8 "$counts8" -c 8 -s 1 -a $ATOMS -B nohwid -L
RUNNER=pipe_run check_decode pipe_missing_hwid_one_sink cpu 8 "$counts8" -c 8 -s 1 -a $ATOMS -B nohwid -L
for name in missing_hwid_one_sink pipe_missing_hwid_one_sink; do
	listed "${name}_warning" && continue
	msg="trace ID $(tid "$name" 1) has no CPU in sink $(sink "$name" 1): "
	guess="CS ETM: the buffers of CPUs without HW_ID record are decoded with the map of sink $(sink "$name" 1), the one sink the other records name"
	if grep -q "CPU 1 has trace but no usable HW_ID" "$work/$name.err" ||
	   [ "$(grep -cFx "$guess" "$work/$name.err")" != 1 ] ||
	   ! grep -q "^CS ETM: queue 1 (CPU 1): $msg[0-9]* bytes of its trace dropped$" "$work/$name.err"; then
		fail "${name}_warning" "no line '$guess' and '$msg<N> bytes of its trace dropped' for queue 1: $(grep -m1 'CS ETM' "$work/$name.err")"
	else
		pass "${name}_warning"
	fi
done
nohw="trace but no usable HW_ID record (lost, or of a CPU without metadata): the sink of the trace is unknown"
for spec in missing_hwid_per_cpu:1:auxtrace missing_hwid_per_thread:1:aux \
	    missing_hwid_per_thread_no_overlap:1:aux pipe_missing_hwid_per_thread:1:aux \
	    hwid_without_metadata:63:aux; do
	IFS=: read -r name cpu rec <<<"$spec"
	listed "${name}_warning" && continue
	check_dropped "$name" "$name" "$cpu" "$rec" "CS ETM: CPU $cpu has $nohw,"
done
name=hwid_without_metadata_ignored
if ! listed $name; then
	msg="CS ETM: HW_ID records for CPU 63, which has no metadata: ignored, its trace is not decoded"
	if [ "$(grep -cFx "$msg" "$work/hwid_without_metadata.err")" = 1 ]; then
		pass $name
	else
		fail $name "no single line '$msg': $(grep -m1 'CS ETM' "$work/hwid_without_metadata.err")"
	fi
fi

# CPU 1's buffer holds trace of ID 0x6e, which no CPU of the sink has: the
# rest decodes, and one warning names queue, ID, sink and the bytes dropped
# (csgen -L lists how many it wrote)
check_decode stray_trace_id cpu 4 all:$ATOMS -c 4 -s 1 -a $ATOMS -B strayid -L
name=stray_trace_id_warning
if ! listed $name; then
	bytes=$(awk '$1 == "stray" { print $7 }' "$work/stray_trace_id.gen")
	msg="CS ETM: queue 1 (CPU 1): trace ID 0x6e has no CPU in sink $(sink stray_trace_id 1): $bytes bytes of its trace dropped"
	if [ "$(grep -cFx "$msg" "$work/stray_trace_id.err")" = 1 ]; then
		pass $name
	else
		fail $name "no single line '$msg': $(head -1 "$work/stray_trace_id.err")"
	fi
fi

# ---- the trace IDs perf finds in a buffer are those OpenCSD finds ----
# check_frame_ids NAME CSGEN-ARGS...: the IDs whose data OpenCSD's
# deformatter (tools/cstrace/frame-ids, configured as perf configures it)
# unpacks from the buffer of CPU 1 must be exactly those perf creates a
# decoder for (perf report -D) if a CPU of CPU 1's sink has them (csgen -L),
# and otherwise those it reports as dropped, with as many bytes.
check_frame_ids() {
	local name=$1 off sz want got rc detail ids
	shift
	listed "$name" && return
	if ! gen "$name" -L "$@"; then
		fail "$name" "csgen: $(tail -1 "$work/$name.gen")"
		return
	fi
	read -r off sz < <(awk '$1 == "auxtrace" && $3 == 1 { print $5, $7; exit }' "$work/$name.gen")
	if ! "$work/frame-ids" "$work/$name.data" $((off + 48)) $((sz)) >"$work/$name.ids"; then
		fail "$name" "frame-ids failed"
		return
	fi
	ids=" $(awk -v s="$(sink "$name" 1)" '$1 == "cpu" && $4 == s { print $6 }' "$work/$name.gen" | tr '\n' ' ')"
	want=$(while read -r id n; do
		case "$ids" in
		*" $id "*) echo "$id decoded" ;;
		*) echo "$id $n" ;;
		esac
	done <"$work/$name.ids" | sort)
	timeout -s KILL "$TIMEOUT" "$perf" report -D -i "$work/$name.data" >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	if detail=$(crash $rc "$work/$name.err"); then
		fail "$name" "$detail"
		return
	fi
	got=$({ sed -n 's/.*queue 1 (buffer CPU 1): decoder for trace ID \(0x[0-9a-f]*\):.*/\1 decoded/p' "$work/$name.out"
		sed -n 's/^CS ETM: queue 1 (CPU 1): trace ID \(0x[0-9a-f]*\) has no CPU.*: \([0-9]*\) bytes of its trace dropped$/\1 \2/p' "$work/$name.err"
	      } | sort -u)
	if [ -z "$want" ]; then
		fail "$name" "OpenCSD finds no ID: the layout tests nothing"
	elif [ "$got" = "$want" ]; then
		pass "$name"
	else
		fail "$name" "OpenCSD: '$(tr '\n' ';' <<<"$want")', perf: '$(tr '\n' ';' <<<"$got")'"
	fi
}
# frames aligned, an ID without CPU in the sink
check_frame_ids frame_ids_stray_id -c 4 -s 1 -a 20 -B strayid
# a barrier at byte 8: the frame after it starts with two FSYNCs, where the
# deformatter stops (the stray ID comes later in the buffer)
check_frame_ids frame_ids_barrier_at_byte_8 -c 4 -s 1 -a 20 -B barrier8
# the buffer starts 8 bytes into a frame: frames are read from its start
check_frame_ids frame_ids_mid_frame -c 4 -s 1 -a 20 -B midframe
check_frame_ids frame_ids_mid_frame_many_cpus -c 16 -s 1 -a 20 -B midframe
# real hardware trace (OpenCSD's snapshots) as the buffer of CPU 1, whose
# CPUs have the static IDs 0x10, 0x12, ...: of the sources' IDs (TC2
# 0x10-0x13, Snowball 0x10-0x11, bugfix 0x12) some have a CPU, the others
# are dropped, and perf must name the same IDs as OpenCSD's deformatter
snapshots=${SNAPSHOTS:-$repo/../shared/data/opencsd-snapshots}
[ -n "$LIST" ] || [ -d "$snapshots" ] ||
	echo "no snapshot directory $snapshots (set SNAPSHOTS): the frame_ids_real checks fail" >&2
check_frame_ids frame_ids_real_tc2 -c 4 -s 1 -a 20 -H none -V 1 -K "$snapshots/TC2/cstrace.bin"
check_frame_ids frame_ids_real_snowball -c 4 -s 1 -a 20 -H none -V 1 -K "$snapshots/Snowball/cstrace.bin"
check_frame_ids frame_ids_real_bugfix -c 8 -s 1 -a 20 -H none -V 1 -K "$snapshots/bugfix-exact-match/cstrace.bin"
# an ID in byte 14, the last of a frame's data bytes, with bit 7 of the
# flags byte set: nothing follows it in the frame for the ID to wait for.
# Frame 1: stray ID 0x6e and 13 bytes of its data, then CPU 1's ID 0x12;
# frame 2: 15 bytes of 0x12's data.
printf '\xdd%b\x25\x80%b' "$(printf '\\x00%.0s' $(seq 13))" \
	"$(printf '\\x00%.0s' $(seq 16))" >"$work/id_at_byte_14.bin"
check_frame_ids frame_ids_id_at_byte_14 -c 4 -s 1 -a 20 -H none -V 1 -K "$work/id_at_byte_14.bin"
# and perf says where the damage is, decodes on after it and exits 0 (the
# samples around damage: check_damage below)
name=barrier_at_byte_8
if ! listed $name; then
	msg="CS ETM: queue 1 (CPU 1): damaged trace at AUX offset 0x10: decoding resumes at the next sync"
	gen $name -c 4 -s 1 -a 20 -B barrier8
	script_run "$perf" $name cpu,pid,ip,sym
	rc=$?
	if detail=$(crash $rc "$work/$name.err"); then
		fail $name "$detail"
	elif [ $rc -ne 0 ]; then
		fail $name "perf script exit $rc: $(head -1 "$work/$name.err")"
	elif [ "$(grep -cFx "$msg" "$work/$name.err")" = 1 ]; then
		pass $name
	else
		fail $name "no single line '$msg': $(head -1 "$work/$name.err")"
	fi
fi
# per-thread parts that start at 8 mod 16 in the AUX area, each with a
# barrier: frames and barriers are aligned to the part, they decode
check_decode per_thread_parts_at_8_mod_16 thread 4 all:$((2 * ATOMS)) -c 4 -s 2 -t -g 8 -a $ATOMS -b -B gap8

# ---- unformatted trace (ETE + TRBE style) ----
check_decode unformatted_per_cpu cpu 4 all:$ATOMS -c 4 -s 4 -a $ATOMS -U
check_decode unformatted_per_thread thread 4 all:$((2 * ATOMS)) -c 4 -s 4 -t -g 8 -a $ATOMS -U
check_decode unformatted_per_thread_shared_sink thread 4 all:$((2 * ATOMS)) -c 4 -s 1 -t -g 8 -a $ATOMS -U
# AUX records without CPU (perf record before the series): the first CPU's
# configuration, said once; refused where the CPUs' ETMs differ
check_decode unformatted_per_thread_no_cpu nocpu 4 all:$((2 * ATOMS)) -c 4 -s 1 -t -g 8 -a $ATOMS -U -n -H none -V 1
name=unformatted_per_thread_no_cpu_warning
if ! listed $name; then
	msg="CS ETM: unformatted per-thread trace without CPU: decoded with the configuration of CPU 0, its samples show that CPU"
	if [ "$(grep -cFx "$msg" "$work/unformatted_per_thread_no_cpu.err")" = 1 ]; then
		pass $name
	else
		fail $name "no single line '$msg': $(head -1 "$work/unformatted_per_thread_no_cpu.err")"
	fi
fi
check_error unformatted_per_thread_no_cpu_configs_differ 'CS ETM: unformatted per-thread trace without CPU, and the ETMs of CPU 0 and CPU 1 are configured differently: cannot tell which configuration decodes it' -c 4 -s 1 -t -g 8 -a 20 -U -n -H none -V 1 -B cfgdiff
# Unformatted trace needs no trace ID: a lost HW_ID record (CPU 1) costs it
# nothing. A buffer or part of a CPU without metadata (the last one) is
# skipped with one warning, said during the report, with -D too.
check_decode unformatted_lost_hwid_per_cpu cpu 4 all:$ATOMS -c 4 -s 4 -a $ATOMS -U -B nohwid
check_decode unformatted_lost_hwid_per_thread thread 4 all:$((2 * ATOMS)) -c 4 -s 4 -t -g 8 -a $ATOMS -U -B nohwid
check_decode unformatted_no_meta_per_cpu cpu 4 "$ATOMS $ATOMS $ATOMS 0" -c 4 -s 4 -a $ATOMS -U -B nometa -L
check_decode unformatted_no_meta_per_thread thread 64 "$counts63" -c 64 -s 2 -t -a 20 -U -B nometa -L
RUNNER=pipe_run check_decode pipe_unformatted_no_meta_per_thread thread 64 "$counts63" -c 64 -s 2 -t -a 20 -U -B nometa -L
for spec in unformatted_no_meta_per_cpu:3:auxtrace unformatted_no_meta_per_thread:63:aux \
	    pipe_unformatted_no_meta_per_thread:63:aux dump_unformatted_no_meta_per_thread:63:aux; do
	IFS=: read -r name cpu rec <<<"$spec"
	listed "${name}_warning" && continue
	gen=${name#dump_}
	if [ "$name" != "$gen" ]; then
		timeout -s KILL "$TIMEOUT" "$perf" report -D -i "$work/$gen.data" >"$work/$name.out" 2>"$work/$name.err"
		rc=$?
		if detail=$(crash $rc "$work/$name.err"); then
			fail "${name}_warning" "$detail"
			continue
		fi
	fi
	check_dropped "$name" "$gen" "$cpu" "$rec" "CS ETM: CPU $cpu has unformatted trace but no metadata:"
done

# ---- buffer endings: all decode completely ----
for end in frame pad async; do
	check_decode "buffer_end_$end" cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS -E "$end"
	check_decode "buffer_end_${end}_odd" cpu 3 all:77 -c 3 -s 1 -a 77 -k 5 -E "$end"
done

# ---- per-thread ----
# 8 segments over 4 CPUs: each CPU runs 2 segments of ATOMS branches
check_decode per_thread_two_sinks thread 4 all:$((2 * ATOMS)) -c 4 -s 2 -t -g 8 -a $ATOMS
check_decode per_thread_one_sink thread 4 all:$((2 * ATOMS)) -c 4 -s 1 -t -g 8 -a $ATOMS
# The thread runs on CPUs of sinks whose maps differ and share IDs: CPU 63
# has 0x10 on sink 1 like CPU 0 on sink 0, and 0x12 (CPU 1) has no CPU on
# sink 1
check_decode per_thread_overlapping_ids thread 64 all:40 -c 64 -s 2 -t -a 20
# The same without an AUXTRACE index (csgen -x: perf record stopped before
# writing it): the buffers, queued as they come, are split at their AUX
# records when the decode starts, as a pipe's, so that each part has the
# CPU that tells its sink; unformatted, its metadata
check_decode per_thread_overlapping_ids_no_index thread 64 all:40 -c 64 -s 2 -t -a 20 -x
check_decode unformatted_per_thread_no_index thread 4 all:$((2 * ATOMS)) -c 4 -s 4 -t -g 8 -a $ATOMS -U -x
check_decode per_thread_uneven_sinks thread 100 all:20 -c 100 -s 3 -t -a 10
# A workload that moves itself between the sinks of a 64-CPU board, as
# csboard's hop does: exec'd on CPU 14 (sink 0) or 35 (sink 1), then CPUs 0
# and 63 (both trace ID 0x10), 1, 62, 32, 31. Each CPU's HW_ID record comes
# just before its first part, and the EXIT record starts the decode. The ID
# of the exec CPU (0x2c, 0x56) has no CPU in the other sink, so its decoder
# must not outlive its part; each sample on the CPU of its part.
for hops in 14,0,63,1,62,32,31,0,63 35,0,63,1,62,32,31,0,63; do
	counts=$(awk -v l="$hops" -v a=20 'BEGIN {
		k = split(l, h, ","); for (i = 1; i <= k; i++) n[h[i]] += a
		for (c = 0; c < 64; c++) printf "%d ", n[c] + 0 }')
	check_decode "per_thread_hops_exec_cpu${hops%%,*}" thread 64 "$counts" \
		-c 64 -s 2 -t -a 20 -P "$hops"
done
# one queue per thread: a buffer index beyond MAX_NR_CPUS (2048) is valid
check_decode per_thread_buffer_index_65535 thread 4 all:$((2 * ATOMS)) -c 4 -s 1 -t -g 8 -a $ATOMS -I 65535
check_decode per_thread_static_no_cpu nocpu 4 all:$((2 * ATOMS)) -c 4 -s 1 -t -g 8 -a $ATOMS -n -H none -V 1
# with timestamps (-Y) too: the timestamp heap takes any queue number
check_decode per_thread_ts_buffer_index_65535 thread 4 all:$((2 * ATOMS)) -c 4 -s 1 -t -g 8 -a $ATOMS -Y -I 65535
check_decode per_thread_ts_overlapping_ids thread 64 all:40 -c 64 -s 2 -t -a 20 -Y
# A decode error in one per-thread queue (thread 4243, buffer index 0, its
# AUX records name no CPU while the sinks share trace IDs) ends the decode
# of that thread only: thread 4242's trace decodes, and perf exits non-zero
# with the error
name=per_thread_error_other_threads
if ! listed $name; then
	if ! gen $name -c 64 -s 2 -t -a 20 -B nocputhread; then
		fail $name "csgen: $(tail -1 "$work/$name.gen")"
	else
		script_run "$perf" $name cpu,pid,ip,sym
		rc=$?
		if detail=$(crash $rc "$work/$name.err"); then
			fail $name "$detail"
		elif [ $rc -eq 0 ]; then
			fail $name "perf script exited 0"
		elif ! grep -Fxq "CS ETM: the decode of the trace of thread 4243 stopped on an error" "$work/$name.err"; then
			fail $name "no line naming thread 4243: $(head -1 "$work/$name.err")"
		elif detail=$(attribution $name thread 64 all:40); then
			pass $name
		else
			fail $name "thread 4242: $detail"
		fi
	fi
fi
check_error per_thread_hwid_no_cpu 'CS ETM: HW_ID record $(hwval per_thread_hwid_no_cpu 0) at file offset $(hwoff per_thread_hwid_no_cpu 0) does not tell its CPU' -c 4 -s 2 -t -g 8 -a 50 -n

# ---- damaged trace costs only itself ----
# auxrec NAME K: "FILEPOS AUXOFF QUEUE TID" of the K-th PERF_RECORD_AUXTRACE
# (0-based) of NAME's file, from its fields: the record's file offset from
# csgen's listing, its AUX offset, buffer index and tid read from the file
auxrec() {
	local pos
	pos=$(awk -v k="$2" '$1 == "auxtrace" && n++ == k { print $5 }' "$work/$1.gen")
	[ -n "$pos" ] || return 1
	echo "$((pos)) $(od -An -t u8 -j $((pos + 16)) -N 8 "$work/$1.data")" \
		"$(od -An -t u4 -j $((pos + 32)) -N 8 "$work/$1.data")"
}

# damage FILE POS KIND: damage the frame at file position POS
#   fsync        one FSYNC word where the frame starts: OpenCSD's
#                deformatter rejects it
#   halfbarrier  two FSYNC words, a barrier cut short: rejected too
#   garbage      the frame's odd data bytes set to 0x2f: bad packets, which
#                OpenCSD's packet decoders take without rejecting the trace
damage() {
	local f=$1 pos=$2 i
	case $3 in
	fsync) printf '\xff\xff\xff\x7f' | dd of="$f" bs=1 seek="$pos" conv=notrunc status=none ;;
	halfbarrier) printf '\xff\xff\xff\x7f\xff\xff\xff\x7f' | dd of="$f" bs=1 seek="$pos" conv=notrunc status=none ;;
	garbage) for i in 1 3 5 7 9 11 13; do
			printf '\x2f' | dd of="$f" bs=1 seek=$((pos + i)) conv=notrunc status=none
		done ;;
	esac
}

# lines_of NAME CPUS [-v]: the samples of perf script's output on the CPUs
# of the list CPUS (with -v: on the other CPUs), in their order
lines_of() {
	awk -v cpus=" $2 " -v inv="${3:-}" 'NF >= 3 && $2 ~ /^\[/ {
		c = $2; gsub(/[\[\]]/, "", c)
		if ((index(cpus, " " c + 0 " ") > 0) != (inv != "")) print
	}' "$work/$1.out"
}

# damaged_cpus_ok NAME BAD CPUS EXPECT: the samples of the damaged CPUs
# against the undamaged file's: fewer in all, and per CPU the first ones
# (EXPECT prefix: the trace has no sync after the damage) or ending with the
# same last sample (EXPECT resync: csgen -y, the decoders sync again)
damaged_cpus_ok() {
	local name=$1 bad=$2 expect=$4 c n
	[ "$(lines_of "$bad" "$3" | wc -l)" -lt "$(lines_of "$name" "$3" | wc -l)" ] ||
		{ echo "CPUs $3: $(lines_of "$bad" "$3" | wc -l) samples, not fewer than $(lines_of "$name" "$3" | wc -l)"; return 1; }
	for c in $3; do
		n=$(lines_of "$bad" "$c" | wc -l)
		if [ "$expect" = prefix ] && [ "$n" -eq 0 ]; then
			echo "CPU $c: no sample, not even of the trace before the damage"
			return 1
		fi
		if [ "$expect" = prefix ] && [ "$(lines_of "$bad" "$c")" != "$(lines_of "$name" "$c" | head -n "$n")" ]; then
			echo "CPU $c: its $n samples are not the first ones of the undamaged file's"
			return 1
		fi
		if [ "$expect" = resync ] && [ "$(lines_of "$bad" "$c" | tail -1)" != "$(lines_of "$name" "$c" | tail -1)" ]; then
			echo "CPU $c: its trace after the damage did not decode (last sample '$(lines_of "$bad" "$c" | tail -1)')"
			return 1
		fi
	done
}

# check_damage NAME KIND CPU EXPECT CSGEN-ARGS...: (RUNNER, ITRACE as
# check_decode; 4 CPUs of ATOMS branches) write NAME.data, which must decode
# to csgen's counts, and NAME_damaged.data with damage KIND 0x50 bytes into
# (DAMAGE_AT=last: in the last frame of) the trace of CPU CPU (per-CPU: its buffer, which holds the
# trace of the CPUs of its sink; per-thread: the thread's part on that
# CPU). Both decode with exit 0; the samples of the CPUs whose trace is not
# in the damaged buffer or part are those of the undamaged file. Where
# OpenCSD rejects the damage, one line names the queue, CPU or thread and
# the AUX offset, and the damaged CPUs' samples are as EXPECT says
# (damaged_cpus_ok); bad packets (garbage) are not rejected: no line.
check_damage() {
	local name=$1 kind=$2 cpu=$3 expect=$4 bad=${1}_damaged rc detail
	local pos aux queue tid part partoff at msg cpus size mode
	shift 4
	listed "$name" && return
	if ! gen "$name" -L "$@" || ! cp "$work/$name.gen" "$work/$bad.gen"; then
		fail "$name" "csgen: $(tail -1 "$work/$name.gen")"
		return
	fi
	cp "$work/$name.data" "$work/$bad.data"
	if grep -q '^auxtrace cpu -1' "$work/$name.gen"; then
		read -r pos aux queue tid < <(auxrec "$name" 0)
		read -r part size < <(awk -v c="$cpu" '$1 == "aux" && $3 == c { print $5, $7; exit }' "$work/$name.gen")
		partoff=$((part - aux))
		msg="thread $tid" cpus=$cpu mode=thread
	else
		read -r pos aux queue tid < <(auxrec "$name" "$cpu")
		part=$aux partoff=0 msg="CPU $cpu" mode=cpu
		size=$(awk -v c="$cpu" '$1 == "auxtrace" && $3 == c { print $7; exit }' "$work/$name.gen")
		cpus=$(awk -v s="$(sink "$name" "$cpu")" '$1 == "cpu" && $4 == s { printf "%s ", $2 }' "$work/$name.gen")
	fi
	if [ -z "$pos" ] || [ -z "$part" ] || [ -z "$size" ]; then
		fail "$name" "no AUXTRACE record or part of CPU $cpu in csgen's listing"
		return
	fi
	# where: 0x50 into the trace, or its last frame (DAMAGE_AT=last)
	local into=0x50
	[ "${DAMAGE_AT:-}" = last ] && into=$((size - 16))
	at=$((part + into))
	msg="CS ETM: queue $queue ($msg): damaged trace at AUX offset $(printf %#x $at): decoding resumes at the next sync"
	damage "$work/$bad.data" $((pos + 48 + partoff + into)) "$kind"
	"${RUNNER:-script_run}" "$perf" "$name" cpu,pid,ip,sym
	rc=$?
	if [ $rc -ne 0 ] || ! detail=$(attribution "$name" "$mode" 4 all:$ATOMS); then
		fail "$name" "the undamaged file: exit $rc, ${detail:-}"
		return
	fi
	"${RUNNER:-script_run}" "$perf" "$bad" cpu,pid,ip,sym
	rc=$?
	if detail=$(crash $rc "$work/$bad.err"); then
		fail "$name" "$detail"
	elif [ $rc -ne 0 ]; then
		fail "$name" "perf script exit $rc: $(head -1 "$work/$bad.err")"
	elif [ -z "$(lines_of "$name" "$cpus" -v)" ] || [ -z "$(lines_of "$name" "$cpus")" ]; then
		fail "$name" "the undamaged file decodes no sample of CPUs $cpus or of the others: the layout tests nothing"
	elif [ "$(lines_of "$name" "$cpus" -v)" != "$(lines_of "$bad" "$cpus" -v)" ]; then
		fail "$name" "the other CPUs' samples differ from the undamaged file's: $(diff <(lines_of "$name" "$cpus" -v) <(lines_of "$bad" "$cpus" -v) | sed -n 2p)"
	elif [ -n "$(awk 'NF && $2 !~ /^\[/' "$work/$bad.out")" ]; then
		fail "$name" "not a sample, on stdout: $(awk 'NF && $2 !~ /^\[/' "$work/$bad.out" | head -1)"
	elif [ "$kind" = garbage ]; then
		if grep -q 'damaged trace' "$work/$bad.err"; then
			fail "$name" "OpenCSD rejected nothing, yet: $(grep -m1 'damaged trace' "$work/$bad.err")"
		else
			pass "$name"
		fi
	elif [ "$(grep -cFx "$msg" "$work/$bad.err")" != 1 ] || [ "$(grep -c 'damaged trace' "$work/$bad.err")" != 1 ]; then
		fail "$name" "no single line '$msg': $(grep -m1 'CS ETM' "$work/$bad.err")"
	elif detail=$(damaged_cpus_ok "$name" "$bad" "$cpus" "$expect"); then
		pass "$name"
	else
		fail "$name" "$detail"
	fi
}
# per-CPU, one CPU a sink: timed, timeless (--itrace=Z), a pipe
check_damage damage_fsync_per_cpu fsync 1 prefix -c 4 -s 4 -a $ATOMS
check_damage damage_half_barrier_per_cpu halfbarrier 1 prefix -c 4 -s 4 -a $ATOMS
check_damage damage_bad_packets_per_cpu garbage 1 - -c 4 -s 4 -a $ATOMS
ITRACE=bZ check_damage damage_fsync_per_cpu_timeless fsync 2 prefix -c 4 -s 4 -a $ATOMS
RUNNER=pipe_run check_damage damage_fsync_per_cpu_pipe fsync 1 prefix -c 4 -s 4 -a $ATOMS
# two CPUs a sink, a sync every 40 atoms: both CPUs of the damaged buffer
# decode again from their next sync after the frame of the damage
check_damage damage_fsync_shared_sink_resync fsync 0 resync -c 4 -s 2 -a $ATOMS -y 40
ITRACE=bZ check_damage damage_fsync_shared_sink_resync_timeless fsync 2 resync -c 4 -s 2 -a $ATOMS -y 40
# per-thread, a part on each CPU: timeless, timed (-Y), a pipe
check_damage damage_fsync_per_thread fsync 1 prefix -c 4 -s 2 -t -g 4 -a $ATOMS
check_damage damage_half_barrier_per_thread halfbarrier 2 prefix -c 4 -s 2 -t -g 4 -a $ATOMS
check_damage damage_fsync_per_thread_timed fsync 1 prefix -c 4 -s 2 -t -g 4 -a $ATOMS -Y
RUNNER=pipe_run check_damage damage_fsync_per_thread_pipe fsync 3 prefix -c 4 -s 2 -t -g 4 -a $ATOMS
# in the last frame of the trace: the end-of-trace flush that follows
DAMAGE_AT=last check_damage damage_fsync_last_frame_per_cpu fsync 1 prefix -c 4 -s 4 -a $ATOMS
DAMAGE_AT=last check_damage damage_fsync_last_frame_per_thread fsync 2 prefix -c 4 -s 2 -t -g 4 -a $ATOMS
# perf report of the damaged per-CPU file: exit 0, the other CPUs' symbols
name=damage_fsync_per_cpu_report
if ! listed $name; then
	timeout -s KILL "$TIMEOUT" "$perf" report -i "$work/damage_fsync_per_cpu_damaged.data" --itrace=b \
		--stdio --sort sym >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	if detail=$(crash $rc "$work/$name.err"); then
		fail $name "$detail"
	elif [ $rc -ne 0 ]; then
		fail $name "perf report exit $rc: $(head -1 "$work/$name.err")"
	elif ! grep -q func_cpu0 "$work/$name.out" || ! grep -q func_cpu2 "$work/$name.out" ||
	     ! grep -q func_cpu3 "$work/$name.out"; then
		fail $name "func_cpu0, func_cpu2 or func_cpu3 missing from the report"
	else
		pass $name
	fi
fi

# ---- pipe mode: perf inject -o - | perf script -i - ----
# HW_ID records are taken from the event stream; expected values are the
# same as in file mode (csgen's parameters)
# two CPUs: no more than this machine has. With more, the pipe also checks
# that the metadata CPUs are not bounded by the NRCPUS header, which perf
# inject writes for the machine it runs on.
RUNNER=pipe_run check_decode pipe_two_cpus_two_sinks cpu 2 all:$ATOMS -c 2 -s 2 -a $ATOMS
RUNNER=pipe_run check_decode pipe_two_cpus_per_thread thread 2 all:$((2 * ATOMS)) -c 2 -s 2 -t -g 4 -a $ATOMS
RUNNER=pipe_run check_decode pipe_one_sink cpu 8 all:$ATOMS -c 8 -s 1 -a $ATOMS
RUNNER=pipe_run check_decode pipe_two_sinks cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS
RUNNER=pipe_run check_decode pipe_two_sinks_overlapping_ids cpu 64 all:40 -c 64 -s 2 -a 40
RUNNER=pipe_run check_decode pipe_cpus256_sinks4 cpu 256 all:40 -c 256 -s 4 -a 40
RUNNER=pipe_run check_decode pipe_static_ids_header_v1 cpu 8 all:$ATOMS -c 8 -s 1 -a $ATOMS -H none -V 1
RUNNER=pipe_run check_decode pipe_header_v2_without_hwid cpu 8 all:$ATOMS -c 8 -s 1 -a $ATOMS -H none
RUNNER=pipe_run check_decode pipe_header_v2_flagged_ids_no_hwid cpu 8 all:$ATOMS -c 8 -s 1 -a $ATOMS -H none -F
RUNNER=pipe_run check_decode pipe_header_v2_no_hwid_64cpus cpu 64 "$counts48" -c 64 -s 1 -a 4 -H none
RUNNER=pipe_run check_decode pipe_hwid_v0_0_global_map cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS -H 0.0
RUNNER=pipe_run check_decode pipe_no_timestamps cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS -T 0
# -R: the HW_ID record of the last CPU of a sink comes in the stream after
# the buffer of the sink's first CPU, which holds half of its trace, but
# its timestamp is before that buffer's AUX record
RUNNER=pipe_run check_decode pipe_hwid_after_buffer cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS -R
RUNNER=pipe_run check_decode pipe_hwid_after_buffer_overlapping_ids cpu 64 all:40 -c 64 -s 2 -a 40 -R
check_decode hwid_after_buffer cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS -R
RUNNER=pipe_run check_decode pipe_per_thread_two_sinks thread 4 all:$((2 * ATOMS)) -c 4 -s 2 -t -g 8 -a $ATOMS
RUNNER=pipe_run check_decode pipe_per_thread_one_sink thread 4 all:$((2 * ATOMS)) -c 4 -s 1 -t -g 8 -a $ATOMS
RUNNER=pipe_run check_decode pipe_unformatted_per_cpu cpu 4 all:$ATOMS -c 4 -s 4 -a $ATOMS -U
RUNNER=pipe_run check_decode pipe_mixed_formatted_unformatted cpu 4 all:$ATOMS -c 4 -s 2 -a $ATOMS -B mixfmt
RUNNER=pipe_run check_error pipe_mixed_formatted_unformatted_per_thread "CS ETM: queue 0: formatted and unformatted trace in one buffer (CPU 1's is unformatted): it can't be decoded" -c 4 -s 2 -t -g 8 -B mixfmt
# per-thread on sinks that share IDs, and unformatted per-thread trace: the
# buffer is split into its AUX parts at decode time, from the AUX records
# that came with the stream, and each part decodes with its CPU's sink map
# or configuration, as in file mode
RUNNER=pipe_run check_decode pipe_per_thread_overlapping_ids thread 64 all:40 -c 64 -s 2 -t -a 20
RUNNER=pipe_run check_decode pipe_per_thread_uneven_sinks thread 100 all:20 -c 100 -s 3 -t -a 10
for hops in 14,0,63,1,62,32,31,0,63 35,0,63,1,62,32,31,0,63; do
	counts=$(awk -v l="$hops" -v a=20 'BEGIN {
		k = split(l, h, ","); for (i = 1; i <= k; i++) n[h[i]] += a
		for (c = 0; c < 64; c++) printf "%d ", n[c] + 0 }')
	RUNNER=pipe_run check_decode "pipe_per_thread_hops_exec_cpu${hops%%,*}" thread 64 "$counts" \
		-c 64 -s 2 -t -a 20 -P "$hops"
done
# -W 2: a worker thread exits after the parts on CPUs 0 and 1 (sink 0), so
# the thread's queue is set up before the HW_ID record of CPU 63 shows that
# sink 1 has trace ID 0x10 too, and then decoded at the thread's EXIT: each
# part with the map of its sink. The same in file mode, where the records
# are read ahead.
hops=0,1,63,62,0
counts=$(awk -v l="$hops" -v a=20 'BEGIN {
	k = split(l, h, ","); for (i = 1; i <= k; i++) n[h[i]] += a
	for (c = 0; c < 64; c++) printf "%d ", n[c] + 0 }')
RUNNER=pipe_run check_decode pipe_per_thread_overlap_after_setup thread 64 "$counts" \
	-c 64 -s 2 -t -a 20 -P "$hops" -W 2
check_decode per_thread_overlap_after_setup thread 64 "$counts" -c 64 -s 2 -t -a 20 -P "$hops" -W 2
# -W 0: the worker exits before the first part and any HW_ID record, so
# the maps are built from the metadata at its EXIT; the HW_ID records that
# come after it are used for the thread's trace, decoded at its EXIT
RUNNER=pipe_run check_decode pipe_hwid_after_first_exit thread 64 "$counts" \
	-c 64 -s 2 -t -a 20 -P "$hops" -W 0
# A per-thread inherit session (-Q): 1,000 child threads each write an AUX
# record of their own tid over the parent's buffer and exit; no record
# matches the buffer, which decodes whole (the time: bench.sh)
RUNNER=pipe_run check_decode pipe_inherit_1000_children thread 4 all:1000 -c 4 -s 1 -t -a 4 -Q 1000
# The same file read as a file: no AUX record describes its buffer, which
# decodes whole
check_decode inherit_1000_children thread 4 all:1000 -c 4 -s 1 -t -a 4 -Q 1000
# The AUX record of CPU 1's first part is at offset 2^64 - 8, whose sum with
# its size wraps: it describes no part of the buffer, which is split into
# the other parts; CPU 1 decodes its second part only
RUNNER=pipe_run check_decode pipe_per_thread_aux_offset_wraps thread 4 "$((2 * ATOMS)) $ATOMS $((2 * ATOMS)) $((2 * ATOMS))" \
	-c 4 -s 2 -t -g 8 -a $ATOMS -B auxwrap
RUNNER=pipe_run check_decode pipe_unformatted_per_thread thread 4 all:$((2 * ATOMS)) -c 4 -s 4 -t -g 8 -a $ATOMS -U
RUNNER=pipe_run check_decode pipe_unformatted_per_thread_shared_sink thread 4 all:$((2 * ATOMS)) -c 4 -s 1 -t -g 8 -a $ATOMS -U
# per-thread with timestamps (-Y, cs_etm/timestamp/ --per-thread): the
# decode starts at the end of the stream, the buffers are split there too
RUNNER=pipe_run check_decode pipe_per_thread_ts_overlapping_ids thread 64 all:40 -c 64 -s 2 -t -a 20 -Y
RUNNER=pipe_run check_decode pipe_unformatted_per_thread_ts thread 4 all:$((2 * ATOMS)) -c 4 -s 4 -t -g 8 -a $ATOMS -U -Y
RUNNER=pipe_run check_decode pipe_per_thread_ts_hops_exec_cpu14 thread 64 "$(awk -v l=14,0,63,1,62,32,31,0,63 -v a=20 'BEGIN {
	k = split(l, h, ","); for (i = 1; i <= k; i++) n[h[i]] += a
	for (c = 0; c < 64; c++) printf "%d ", n[c] + 0 }')" -c 64 -s 2 -t -a 20 -P 14,0,63,1,62,32,31,0,63 -Y

# ---- perf report -D names queue, CPU and sink of each decoder ----
# check_dump_decoders NAME pipe|file CSGEN-ARGS...: the buffer of CPU q holds
# the trace of q and of the previous CPU on its sink: exactly their two
# decoders are created for queue q, each named with its CPU and sink (csgen
# -L). Through a pipe too, where the HW_ID records come with the events:
# the decoders must not be named from the placeholder IDs of the metadata.
check_dump_decoders() {
	local name=$1 mode=$2 missing="" line l2 q c s2 sink prev want got id
	shift 2
	listed "$name" && return
	if ! gen "$name" -L "$@"; then
		fail "$name" "csgen failed"
		return
	fi
	if [ "$mode" = pipe ]; then
		"$perf" inject -i "$work/$name.data" -o - 2>/dev/null |
			"$perf" report -D -i - >"$work/$name.out" 2>"$work/$name.err"
	else
		"$perf" report -D -i "$work/$name.data" >"$work/$name.out" 2>"$work/$name.err"
	fi
	mapfile -t cpus < <(grep '^cpu ' "$work/$name.gen")
	for line in "${cpus[@]}"; do
		read -r _ q _ sink _ _ _ _ <<<"$line"
		prev=""
		for l2 in "${cpus[@]}"; do
			read -r _ c _ s2 _ _ _ _ <<<"$l2"
			[ "$s2" = "$sink" ] && [ "$c" -lt "$q" ] && prev=$c
		done
		if [ -z "$prev" ]; then
			for l2 in "${cpus[@]}"; do
				read -r _ c _ s2 _ _ _ _ <<<"$l2"
				[ "$s2" = "$sink" ] && prev=$c
			done
		fi
		want=""
		for c in $q $prev; do
			id=$(tid "$name" "$c")
			want+="queue $q (buffer CPU $q): decoder for trace ID $id: CPU $c, sink $sink"$'\n'
		done
		got=$(grep -F "queue $q (buffer CPU $q): decoder for" "$work/$name.out" | sed 's/^[[:space:]]*//' | sort -u)
		[ "$got" = "$(printf '%s' "$want" | sort -u)" ] ||
			missing="queue $q: got '$(tr '\n' ';' <<<"$got")', want '$(printf '%s' "$want" | sort -u | tr '\n' ';')'"
	done
	if [ -n "$missing" ]; then
		fail "$name" "$missing"
	else
		pass "$name"
	fi
}
check_dump_decoders dump_decoders file -c 8 -s 2 -a 20
check_dump_decoders dump_decoders_overlapping_ids file -c 64 -s 2 -a 4
check_dump_decoders dump_pipe_decoders_overlapping_ids pipe -c 64 -s 2 -a 4

# ---- malformed input: clear error, non-zero exit ----
N=bad_major_version
check_error $N 'CS ETM: CPU 1: HW_ID record $(hwval $N 1) (trace ID 0x12) has major version 1, this perf reads version 0 only' -c 4 -s 1 -B major
N=bad_id_out_of_range
check_error $N 'CS ETM: CPU 1: invalid trace ID 0x70 in sink $(sink $N 1) (HW_ID record $(hwval $N 1))' -c 4 -s 1 -B idrange
N=bad_id_zero
check_error $N 'CS ETM: CPU 1: invalid trace ID 0 in sink $(sink $N 1) (HW_ID record $(hwval $N 1))' -c 4 -s 1 -B idzero
N=bad_duplicate_id
check_error $N 'CS ETM: CPU 0 and CPU 1 both claim trace ID 0x10 in sink $(sink $N 0)' -c 4 -s 1 -B dup
check_error bad_duplicate_id_v0_0 'CS ETM: CPU 0 and CPU 1 both claim trace ID 0x10' -c 4 -s 2 -H 0.0 -B dup
N=bad_id_change
check_error $N 'CS ETM: CPU 1 changed from trace ID 0x12 in sink $(sink $N 1) to trace ID 0x13 in sink $(sink $N 1) within the session' -c 4 -s 1 -B chid
N=bad_sink_change
check_error $N 'CS ETM: CPU 1 changed from trace ID 0x12 in sink $(sink $N 1) to trace ID 0x12 in sink $(printf %#x $(($(sink $N 1) + 1))) within the session' -c 4 -s 1 -B chsink
N=bad_truncated_record
check_error $N 'CS ETM: truncated HW_ID record $(hwval $N 1) (trace ID 0x12) at file offset $(hwoff $N 1): size 16, expected 48' -c 4 -s 1 -B trunc
N=bad_oversized_record
check_error $N 'CS ETM: oversized HW_ID record $(hwval $N 1) (trace ID 0x12) at file offset $(hwoff $N 1): size 56, expected 48' -c 4 -s 1 -B over
N=bad_mixed_minor_versions
check_error $N 'CS ETM: CPU 1: HW_ID record $(hwval $N 1) (trace ID 0x12) has minor version 0, earlier ones have 1' -c 4 -s 2 -B mixminor
check_error bad_static_duplicate 'CS ETM: CPU 0 and CPU 1 both claim trace ID 0x10' -c 4 -s 1 -H none -V 1 -B staticdup

# The format belongs to a CPU's sink: perf record -a picks each CPU's sink on
# its own, so one session may hold a raw (TRBE) buffer on CPU 1 and formatted
# ones on the others, which decode each in its own format. The parts of one
# per-thread buffer can't mix them.
check_decode mixed_formatted_unformatted cpu 4 all:$ATOMS -c 4 -s 2 -a $ATOMS -B mixfmt
check_error mixed_formatted_unformatted_per_thread "CS ETM: queue 0: formatted and unformatted trace in one buffer (CPU 1's is unformatted): it can't be decoded" -c 4 -s 2 -t -g 8 -B mixfmt
N=bad_hwid_reserved_bits
check_error $N 'CS ETM: CPU 1: HW_ID record $(hwval $N 1) (trace ID 0x12) has bits 55:40 set, minor version 1 leaves them zero' -c 4 -s 2 -B hwidres
check_error bad_num_cpu_zero 'CS ETM: AUXTRACE_INFO: invalid number of CPUs 0' -c 4 -s 1 -B numcpu0
check_error bad_num_cpu_too_big 'CS ETM: AUXTRACE_INFO: metadata of CPU 4 of 5 is beyond the end of the record' -c 4 -s 1 -B numcpubig
check_error bad_nr_params 'CS ETM: AUXTRACE_INFO: metadata of CPU 1 of 4: 4096 parameters do not fit in the record' -c 4 -s 1 -B nrparams
# 2^20 CPUs: refused before their metadata pointers are allocated (the
# record of 4 CPUs of 10 words holds at most (43 - 3) / 3)
check_error bad_num_cpu_huge 'CS ETM: AUXTRACE_INFO: 1048576 CPUs do not fit in a record of $((16 + 8 * (3 + 4 * 10))) bytes' -c 4 -s 1 -B numcpuhuge
check_error bad_magic 'CS ETM Trace: Unrecognised magic number 0x6060606060606060. File could be from a newer version of perf.' -c 4 -s 1 -B magic
check_error bad_cpu_number 'CS ETM: AUXTRACE_INFO: metadata of CPU 1 of 4: invalid CPU number 2048' -c 4 -s 1 -B cpurange
check_error bad_auxtrace_size 'CS ETM: AUXTRACE record at file offset $(auxoff bad_auxtrace_size) claims $(auxsz bad_auxtrace_size) bytes of trace, beyond the end of the data' -c 4 -s 1 -B auxbig
# CPU numbers from the file: the last CPU perf handles (2047) is accepted
# (no metadata: its trace is not decoded, the rest is), the next refused
check_decode metadata_cpu_2047 cpu 4 "$ATOMS 0 $ATOMS $ATOMS" -c 4 -s 4 -a $ATOMS -B cpurange2047
check_decode auxtrace_cpu_2047 cpu 4 "$ATOMS 0 $ATOMS $ATOMS" -c 4 -s 4 -a $ATOMS -B cpu2047
check_error auxtrace_cpu_2048 'CS ETM: AUXTRACE record of invalid CPU 2048' -c 4 -s 4 -a 20 -B cpu2048
check_decode hwid_cpu_2047 cpu 4 "$ATOMS 0 $ATOMS $ATOMS" -c 4 -s 4 -a $ATOMS -B hwcpu2047
check_error hwid_cpu_2048 'CS ETM: HW_ID record $(hwval hwid_cpu_2048 2048) at file offset $(hwoff hwid_cpu_2048 2048) does not tell its CPU' -c 4 -s 4 -a 20 -B hwcpu2048
# found by fuzzing: a buffer index of 16 bits or more made perf crash or
# hang in the timestamp heap
check_error bad_buffer_index 'CS ETM: AUXTRACE record of CPU 1: invalid buffer index 65536' -c 4 -s 2 -B bigidx
# found by fuzzing: with timestamps, an index from 1 << 15 on made the size
# of the timestamp heap wrap to 0 while it doubled, and perf hang
check_decode buffer_index_32768_timed cpu 4 all:20 -c 4 -s 2 -a 20 -B bigidx15
# found by fuzzing: a record size that is not a multiple of 8 made the
# read-ahead access misaligned records (UBSan)
check_error bad_record_alignment 'The record at file offset $(misoff bad_record_alignment) is not 8-byte aligned: the size of the record before it is corrupt' -c 4 -s 1 -B oddsize
# an AUXTRACE index entry far beyond the file: perf_session__peek_event()
# returned a pointer there into the mapped file
check_error bad_index_offset 'CS ETM: the AUXTRACE index points to file offset 0x10000000000, where no record lies within the data, which ends at $(dataend bad_index_offset)' -c 4 -s 1 -B idxoff
# an AUX record that ends before its sample ID: evsel__parse_sample() read
# the ID from the bytes before the record
check_error bad_aux_record_size 'CS ETM: AUX record of size 32 is too short for its sample ID' -c 4 -s 1 -B shortaux
# found by fuzzing: an AUX record whose offset plus size wraps matched the
# buffer and gave it a data pointer out of the file (UBSan). It matches no
# buffer: perf says so and decodes every buffer, CPU 1's whole, as no record
# describes it (6.1 dropped it): perf report -D dumps the four buffers
name=aux_offset_wraps
if listed $name; then
	:
elif gen $name -c 4 -s 1 -a 20 -B auxwrap; then
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
		script_run "${ASAN_PERF:-$perf}" $name pid,ip,sym
	rc=$?
	msg="CS ETM: Couldn't find auxtrace buffer for aux_offset: 0xfffffffffffffff8 tid: 1001 cpu: 1"
	if detail=$(crash $rc "$work/$name.err"); then
		fail $name "$detail"
	elif ! grep -Fxq "$msg" "$work/$name.err"; then
		fail $name "exit $rc, no line '$msg': $(head -1 "$work/$name.err")"
	elif "$perf" report -D -i "$work/$name.data" >"$work/$name.dump" 2>&1;
	     [ "$(grep -c ' Trace data: size 0x' "$work/$name.dump")" != 4 ]; then
		fail $name "perf report -D dumps $(grep -c ' Trace data: size 0x' "$work/$name.dump") buffers, expected 4, CPU 1's, which no record describes, among them"
	else
		pass $name
	fi
else
	fail $name "csgen failed"
fi
# perf report -D prints the metadata of a malformed AUXTRACE_INFO record,
# also on the error path: only as far as it was checked, never past the
# record, read from the file (mmap) or from a pipe (a heap buffer, where
# ASan sees any read past it); and once, also when a check after the
# metadata's fails (bad_duplicate_id_v0_0: the HW_ID records, read ahead
# of the decode from a file; a pipe meets them after the metadata record)
for name in bad_num_cpu_zero bad_num_cpu_too_big bad_num_cpu_huge bad_nr_params \
	    bad_magic bad_cpu_number bad_duplicate_id_v0_0; do
	# the error line of the check_error of NAME
	msg=$(sed -n "s/^check_error $name '\\(.*\\)' -c .*/\\1/p" "$here/run.sh")
	eval "msg=\"$msg\""
	for mode in file pipe; do
		check=dump_${mode}_$name
		listed $check && continue
		if [ $mode = file ]; then
			ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
				timeout -s KILL "$TIMEOUT" "${ASAN_PERF:-$perf}" report -D \
				-i "$work/$name.data" >"$work/$check.out" 2>"$work/$check.err"
			rc=$?
		else
			ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
				timeout -s KILL "$TIMEOUT" "${ASAN_PERF:-$perf}" inject -i "$work/$name.data" \
				-o - 2>"$work/$check.inject.err" |
				ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
				timeout -s KILL "$TIMEOUT" "${ASAN_PERF:-$perf}" report -D -i - \
				>"$work/$check.out" 2>"$work/$check.err"
			rc=$?
			cat "$work/$check.inject.err" >>"$work/$check.err"
		fi
		if detail=$(crash $rc "$work/$check.err"); then
			fail $check "$detail"
		elif [ -z "$msg" ] || ! grep -Fxq "$msg" "$work/$check.err"; then
			fail $check "exit $rc, no line '$msg': $(head -1 "$work/$check.err")"
		elif [ "$(grep -c 'Header version' "$work/$check.out")" != 1 ]; then
			fail $check "the metadata dumped $(grep -c 'Header version' "$work/$check.out") times, not once"
		else
			pass $check
		fi
	done
done
# perf record killed or disk full: the file ends inside a trace buffer
name=cut_in_trace_buffer
if listed $name; then
	:
elif gen $name -c 4 -s 2 -a $ATOMS; then
	size=$(stat -c %s "$work/$name.data")
	truncate -s $((size / 2)) "$work/$name.data"
	script_run "$perf" $name cpu,pid,ip,sym
	rc=$?
	if detail=$(crash $rc "$work/$name.err"); then
		fail $name "$detail"
	elif [ $rc -eq 0 ]; then
		fail $name "perf script exited 0 on a cut file"
	else
		pass $name
	fi
else
	fail $name "csgen failed"
fi

# ---- snapshot mode: perf record -S (csgen -O) ----
# AUX records flagged OVERWRITE name the head (the end of their data) and the
# bytes written since the previous record; each snapshot is one AUXTRACE
# buffer of the last bytes before the head. Trace of two snapshots is never
# joined into one stream (a decoder starts afresh at every snapshot buffer
# and waits for an A-sync), and each byte is decoded once. csgen -L lists the
# branches each CPU must have ('expect cpu C branches N'): every record
# decoded once, from the earliest buffer that holds its end, from its first
# part whose ID and A-sync are in that buffer; and in perf report -D
# (dump_snapshot_*) as many A-sync packets as parts decoded. Layouts:
#   plain    each buffer holds what was written since the last snapshot
#   cut      more was written than the snapshot size: the buffer begins
#            inside a record, between the header and the payload of a
#            timestamp whose next 7 bytes (0xf7) are E atom headers, so that
#            joined to the previous snapshot's stream of the CPU they are 7
#            branches never taken; the record's next part, after an A-sync,
#            decodes. Per CPU: a buffer of two records (per-CPU events of a
#            workload, cut one first) and one of a single record larger than
#            the snapshot; per thread: the cut record then two more.
#   overlap  perf before 6.1 wrote the whole AUX area at every snapshot: the
#            buffers overlap, each record is held whole by one or two, and in
#            part (cut at the buffer's start) by another
# check_snapshot NAME MODE NCPUS CSGEN-ARGS... (RUNNER as check_decode)
check_snapshot() {
	local name=$1 mode=$2 ncpus=$3 expected detail rc off size cpu cut line layout="" fields
	local -A prev=()
	shift 3
	listed "$name" && return
	if ! gen "$name" -L "$@"; then
		fail "$name" "csgen: $(tail -1 "$work/$name.gen")"
		return
	fi
	expected=$(awk '$1 == "expect" { printf "%s ", $5 }' "$work/$name.gen")
	# the layout must hold what it is named for: a buffer that begins inside
	# a packet, buffers that overlap; every CPU with branches to decode
	while read -r line; do
		read -r _ _ cpu _ _ _ off _ size _ cut <<<"$line"
		[ "$cut" != 0 ] && layout+=" cut"
		[ -n "${prev[$cpu]:-}" ] && [ $((off)) -lt $((prev[$cpu])) ] && layout+=" overlap"
		prev[$cpu]=$((off + size))
	done < <(grep '^snap ' "$work/$name.gen")
	case "$name:$layout" in
	*_cut_*:*cut* | *_overlap_*:*overlap*) ;;
	*_cut_*:* | *_overlap_*:*)
		fail "$name" "csgen's listing shows no buffer that is ${name#*snapshot_}: it tests nothing"
		return ;;
	esac
	if [ -z "$expected" ] || [[ " $expected" == *" 0 "* ]]; then
		fail "$name" "csgen's listing expects no branches of some CPU: '$expected'"
		return
	fi
	fields=cpu,pid,ip,sym
	[ "$mode" = nocpu ] && fields=pid,ip,sym
	"${RUNNER:-script_run}" "$perf" "$name" $fields
	rc=$?
	if detail=$(crash $rc "$work/$name.err"); then
		fail "$name" "$detail"
	elif [ $rc -ne 0 ]; then
		fail "$name" "perf script exit $rc: $(grep -m1 -i 'error\|CS ETM' "$work/$name.err")"
	elif detail=$(attribution "$name" "$mode" "$ncpus" "$expected"); then
		pass "$name"
	else
		fail "$name" "$detail (csgen -L: $expected)"
	fi
}
# check_snapshot_dump NAME: perf report -D of the file of check NAME decodes
# each part once: as many A-sync packets in the packet dump as csgen lists
# parts decoded ('expect cpu C branches N asyncs M'); none of a buffer's
# start that the decoder joined to the previous snapshot or decoded twice
check_snapshot_dump() {
	local name=$1 check=dump_$1 rc detail want got
	listed "$check" && return
	want=$(awk '$1 == "expect" { n += $7 } END { print n + 0 }' "$work/$name.gen")
	timeout -s KILL "$TIMEOUT" "$perf" report -D -i "$work/$name.data" \
		>"$work/$check.out" 2>"$work/$check.err"
	rc=$?
	got=$(grep -c 'I_ASYNC' "$work/$check.out")
	if detail=$(crash $rc "$work/$check.err"); then
		fail "$check" "$detail"
	elif [ $rc -ne 0 ]; then
		fail "$check" "perf report -D exit $rc: $(grep -m1 -i 'error\|CS ETM' "$work/$check.err")"
	elif [ "$want" -eq 0 ] || [ "$got" != "$want" ]; then
		fail "$check" "$got A-sync packets dumped, csgen -L lists $want parts decoded"
	else
		pass "$check"
	fi
}
# The overlapping buffers come from perf before 6.1: header v1, static IDs, no
# HW_ID record, and per thread no CPU in the samples
for layout in plain cut overlap; do
	sfx=${layout/plain/}
	old=() tmode=thread
	[ $layout = overlap ] && old=(-H none -V 1) tmode=nocpu
	for runner in script_run pipe_run; do
		pfx=
		[ $runner = pipe_run ] && pfx=pipe_
		RUNNER=$runner check_snapshot "${pfx}snapshot${sfx:+_$sfx}_per_cpu" cpu 4 \
			-c 4 -s 4 -a 20 -j 4 -O $layout "${old[@]}"
		RUNNER=$runner check_snapshot "${pfx}snapshot${sfx:+_$sfx}_per_thread" $tmode 4 \
			-c 4 -s 2 -t -a 20 -j 4 -O $layout "${old[@]}" ${old:+-n}
	done
	check_snapshot_dump "snapshot${sfx:+_$sfx}_per_cpu"
	check_snapshot_dump "snapshot${sfx:+_$sfx}_per_thread"
done

# ---- bounds checks at their edges ----
# Each bound the series' perf puts on a value from the file, tested at its
# edge in both directions: the largest value it accepts decodes (where
# nothing can decode with it, such as a CPU count larger than the metadata
# holds, it passes the bound and gets the message of the next check), and
# the smallest it refuses gets its message (for a lower bound: the smallest
# accepted, the largest refused). The table in tests/decode/README.md names
# the tests of each bound, here or above, and its two mutants. Values come
# from csgen's parameters and listing: its AUXTRACE_INFO record is 16 bytes
# and 3 header words, then per CPU an ETMv4 block of 3 words and 7
# parameters; a HW_ID record with its sample ID is 8 + 8 + 32 = 48 bytes,
# an AUX record 8 + 24 + 32 = 64 (32 without the sample ID).
EA=20
# lastaux NAME off|size: offset or claimed size of the last AUXTRACE record
# of csgen's listing
lastaux() { awk -v f="$2" '$1 == "auxtrace" { o = $5; s = $7 } END { print f == "off" ? o : s }' "$work/$1.gen"; }
# dataoff NAME: the offset of the data section (file header bytes 40-47),
# where csgen writes the AUXTRACE_INFO record
dataoff() { od -An -t u8 -j 40 -N 8 "$work/$1.data" | awk '{ printf "%#x", $1 }'; }
# edge_layout NAME DETAIL EXPR: a check that the file of NAME has the layout
# its edge needs, so that its test tests the edge: the arithmetic EXPR
# (expanded after csgen ran, as check_error's message) is not 0
edge_layout() {
	local name=$1 expr
	listed "${name}_layout" && return
	eval "expr=\"$3\""
	if [ -s "$work/$name.gen" ] && (($expr)); then
		pass "${name}_layout"
	else
		fail "${name}_layout" "$2"
	fi
}

# AUXTRACE_INFO: a record of the header's 3 words passes (the CPU count is
# checked next), one byte less is refused
check_error info_header_3_words 'CS ETM: AUXTRACE_INFO: 4 CPUs do not fit in a record of $((16 + 8 * 3)) bytes' -c 4 -s 1 -a $EA -B hdronly
check_error info_header_1_byte_short 'CS ETM: AUXTRACE_INFO: record of $((16 + 8 * 3 - 1)) bytes is too short for its header' -c 4 -s 1 -a $EA -B hdrshort
# header version: 2 decodes, 3 is refused, with the session's message on
# the AUXTRACE_INFO record (at the data's start, 16 + 8 * (3 + 4 * 10) bytes)
check_decode header_version_2 cpu 4 all:$EA -c 4 -s 1 -a $EA -V 2
check_error header_version_3 '$(dataoff header_version_3) [$(printf %#x $((16 + 8 * (3 + 4 * 10))))]: failed to process type: 70 [Invalid argument]' -c 4 -s 1 -a $EA -B hdrv3
# ... and perf report -D dumps version 2's metadata, and names version 3
for v in 2 3; do
	name=dump_header_version_$v
	listed $name && continue
	timeout -s KILL "$TIMEOUT" "$perf" report -D -i "$work/header_version_$v.data" \
		>"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	unknown=$(printf '\tUnknown Header Version = 3, Version supported <= 2')
	if detail=$(crash $rc "$work/$name.err"); then
		fail $name "$detail"
	elif [ $v = 2 ] && { [ "$(grep -c 'Header version' "$work/$name.out")" != 1 ] ||
			     grep -q 'Unknown Header Version' "$work/$name.out"; }; then
		fail $name "exit $rc, not one 'Header version' line: $(grep -m1 'Header' "$work/$name.out")"
	elif [ $v = 3 ] && ! grep -Fxq "$unknown" "$work/$name.out"; then
		fail $name "exit $rc, no line '$unknown': $(grep -m1 'Header' "$work/$name.out")"
	else
		pass $name
	fi
done
# CPU count: 1 decodes, 0 is refused (bad_num_cpu_zero); as many CPUs as
# 3-word blocks fit in the metadata of 4 CPUs (4 * 10 words) pass (the first
# block past the record is refused next), one more is refused
check_decode num_cpu_1 cpu 1 all:$EA -c 1 -s 1 -a $EA
check_error num_cpu_blocks_fit 'CS ETM: AUXTRACE_INFO: metadata of CPU 4 of $((4 * 10 / 3)) is beyond the end of the record' -c 4 -s 1 -a $EA -B numcpufit
check_error num_cpu_blocks_fit_plus_1 'CS ETM: AUXTRACE_INFO: $((4 * 10 / 3 + 1)) CPUs do not fit in a record of $((16 + 8 * (3 + 4 * 10))) bytes' -c 4 -s 1 -a $EA -B numcpufit1
# A metadata block's 3 words end the record (no parameters; its CPU got no
# trace ID): decodes; a block of 2 words is refused
check_decode meta_block_3_words_end_record cpu 4 "$EA $EA $EA 0" -c 4 -s 1 -a $EA -Z 3 -B meta3
check_error meta_block_2_words 'CS ETM: AUXTRACE_INFO: metadata of CPU 3 of 4 is beyond the end of the record' -c 4 -s 1 -a $EA -B metashort
# The last block's 7 parameters end the record (as in every file): decodes;
# claiming 8 is refused
check_decode meta_params_end_record cpu 4 all:$EA -c 4 -s 1 -a $EA
check_error meta_params_1_past_record 'CS ETM: AUXTRACE_INFO: metadata of CPU 3 of 4: $((7 + 1)) parameters do not fit in the record' -c 4 -s 1 -a $EA -B nrparams1
# A HW_ID record of 48 bytes decodes (every test); 47 and 49 are refused
N=hwid_size_47
check_error $N 'CS ETM: truncated HW_ID record $(hwval $N 1) (trace ID $(tid $N 1)) at file offset $(hwoff $N 1): size $((48 - 1)), expected 48' -c 4 -s 1 -a $EA -B trunc1
N=hwid_size_49
check_error $N 'CS ETM: oversized HW_ID record $(hwval $N 1) (trace ID $(tid $N 1)) at file offset $(hwoff $N 1): size $((48 + 1)), expected 48' -c 4 -s 1 -a $EA -B over1
# HW_ID minor version 0 leaves bits 55:8 zero: bit 7 (of the trace ID) passes
# and makes the ID invalid, bit 8 is refused
N=hwid_v0_0_bit_7
check_error $N 'CS ETM: CPU 1: invalid trace ID $(printf %#x $(($(tid $N 1) | 0x80))) (HW_ID record $(hwval $N 1))' -c 4 -s 2 -a $EA -H 0.0 -B hwidbit7
N=hwid_v0_0_bit_8
check_error $N 'CS ETM: CPU 1: HW_ID record $(hwval $N 1) (trace ID $(tid $N 1)) has bits 55:8 set, minor version 0 leaves them zero' -c 4 -s 2 -a $EA -H 0.0 -B hwidres0
# Bits 55:40 are checked up to minor version 1: a record of minor version 2
# (the first after perf's; -B minor2 writes 3) with bit 40 set decodes (a
# record of minor 1 with it is refused: bad_hwid_reserved_bits)
check_decode hwid_minor_2_bit_40 cpu 4 all:$EA -c 4 -s 2 -a $EA -B minor2only -L
edge_layout hwid_minor_2_bit_40 "csgen's HW_ID record of CPU 0 is not of minor version 2 with bit 40" \
	'($(hwval hwid_minor_2_bit_40 0) >> 56 & 0xf) == 2 && ($(hwval hwid_minor_2_bit_40 0) >> 40 & 1)'
# Minor version 1 leaves bits 55:40 zero: the sink ID's bit 31 (bit 39 of
# the record) decodes: csgen's sink 0 has it, as its listing shows (bit 40
# is refused: bad_hwid_reserved_bits)
check_decode hwid_sink_id_bit_31 cpu 4 all:$EA -c 4 -s 2 -a $EA -L
edge_layout hwid_sink_id_bit_31 "csgen's sink 0 has no bit 31" '$(sink hwid_sink_id_bit_31 0) & 0x80000000'
# Trace IDs 0x01-0x6f: 111 CPUs of one sink use 0x01 and 0x6f, and decode;
# 0x00 and 0x70 are refused (bad_id_zero, bad_id_out_of_range)
check_decode trace_ids_0x01_to_0x6f cpu 111 all:4 -c 111 -s 1 -a 4 -L
edge_layout trace_ids_0x01_to_0x6f "no CPU of ID 0x01 and of ID 0x6f in csgen's listing" \
	'$(awk '"'"'$1 == "cpu" && ($6 == "0x1" || $6 == "0x6f")'"'"' "$work/trace_ids_0x01_to_0x6f.gen" | wc -l) == 2'
# An AUX record of 64 bytes decodes (every test); 63 is refused
check_error aux_size_63 'CS ETM: AUX record of size $((64 - 1)) is too short for its sample ID' -c 4 -s 1 -a $EA -B auxsize63
# A pipe's AUX records: one of 32 bytes, without its sample ID, decodes;
# one of 31 is refused
RUNNER=pipe_run check_decode pipe_aux_size_32 cpu 4 all:$EA -c 4 -s 4 -a $EA -B shortaux
RUNNER=pipe_run check_error pipe_aux_size_31 'CS ETM: AUX record of size $((32 - 1)) is too short' -c 4 -s 4 -a $EA -B auxsize31
# The last AUXTRACE record's trace ends the data: decodes; one byte more is
# refused, by the AUX record's look-up of it (the index), or without index
# by the walk of the records
check_decode auxtrace_ends_data cpu 4 all:$EA -c 4 -s 2 -a $EA -B auxend -L
edge_layout auxtrace_ends_data "the last AUXTRACE record's trace does not end the data" \
	'$(lastaux auxtrace_ends_data off) + 48 + $(lastaux auxtrace_ends_data size) == $(dataend auxtrace_ends_data)'
for N in auxtrace_1_byte_past_data auxtrace_1_byte_past_data_no_index; do
	case $N in
	*_no_index) msg='The AUXTRACE' idx=-x ;;
	*) msg='CS ETM: AUXTRACE' idx= ;;
	esac
	check_error $N "$msg"' record at file offset $(lastaux $N off) claims $(lastaux $N size) bytes of trace, beyond the end of the data' -c 4 -s 2 -a $EA -B auxend1 $idx
	edge_layout $N "the last AUXTRACE record's trace does not end 1 byte past the data" \
		'$(lastaux $N off) + 48 + $(lastaux $N size) == $(dataend $N) + 1'
	[ -n "$idx" ] && check_decode auxtrace_ends_data_no_index cpu 4 all:$EA -c 4 -s 2 -a $EA -B auxend -x
done
# The walk: an AUXTRACE record of 48 bytes decodes (auxtrace_ends_data_no_index);
# 47 is refused, with the message of a record whose trace is past the end
N=auxtrace_header_47
check_error $N 'The AUXTRACE record at file offset $(lastaux $N off) claims $(lastaux $N size) bytes of trace, beyond the end of the data' -c 4 -s 2 -a $EA -B auxhdr47 -x

# ---- sanitizers: malformed and multi-sink inputs under ASan+UBSan ----
if [ -n "${ASAN_PERF:-}" ]; then
	for name in bad_major_version bad_id_out_of_range bad_id_zero bad_duplicate_id \
		    bad_duplicate_id_v0_0 bad_id_change bad_sink_change bad_truncated_record \
		    bad_oversized_record bad_static_duplicate static_ids_64cpus static_ids_65cpus \
		    per_thread_hwid_no_cpu four_sinks_overlapping_ids per_thread_overlapping_ids \
		    cpus256_sinks4 static_ids_header_v1 hwid_v0_0_global_map buffer_end_pad \
		    per_thread_static_no_cpu missing_hwid_per_cpu missing_hwid_per_thread \
		    hwid_without_metadata bad_mixed_minor_versions \
		    header_v2_flagged_ids_no_hwid second_event_other_sample_type \
		    per_thread_uneven_sinks per_thread_hops_exec_cpu14 per_thread_hops_exec_cpu35 \
		    unformatted_per_cpu unformatted_per_thread \
		    mixed_formatted_unformatted mixed_formatted_unformatted_per_thread \
		    bad_hwid_reserved_bits bad_num_cpu_zero bad_num_cpu_too_big bad_num_cpu_huge \
		    bad_nr_params \
		    bad_magic bad_cpu_number bad_auxtrace_size cut_in_trace_buffer \
		    bad_buffer_index buffer_index_32768_timed bad_record_alignment header_v2_no_hwid_64cpus \
		    bad_index_offset bad_aux_record_size \
		    header_v2_flagged_no_hwid_64cpus per_thread_buffer_index_65535 \
		    unformatted_per_thread_no_cpu unformatted_per_thread_no_cpu_configs_differ \
		    barrier_at_byte_8 hwid_after_buffer unformatted_no_meta_per_thread \
		    unformatted_lost_hwid_per_cpu per_thread_error_other_threads auxtrace_cpu_2047 \
		    auxtrace_cpu_2048 hwid_cpu_2047 hwid_cpu_2048 metadata_cpu_2047 \
		    per_thread_ts_buffer_index_65535 per_thread_ts_overlapping_ids \
		    snapshot_cut_per_cpu snapshot_cut_per_thread snapshot_overlap_per_cpu \
		    snapshot_overlap_per_thread; do
		listed "asan_$name" && continue
		ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
			timeout -s KILL "$TIMEOUT" "$ASAN_PERF" script -i "$work/$name.data" \
			--itrace=b -F pid,ip,sym >"$work/$name.asan.out" 2>"$work/$name.asan.err"
		rc=$?
		# the malformed inputs must fail, the others decode
		case $name in
		bad_*|mixed_*_per_thread|cut_*|per_thread_hwid_no_cpu|*_configs_differ|*_65cpus|*_2048|*_error_*) want_fail=1 ;;
		*) want_fail=0 ;;
		esac
		if detail=$(crash $rc "$work/$name.asan.err"); then
			fail "asan_$name" "$detail"
		elif [ $want_fail = 1 ] && [ $rc -eq 0 ]; then
			fail "asan_$name" "exited 0"
		elif [ $want_fail = 0 ] && [ $rc -ne 0 ]; then
			fail "asan_$name" "exit $rc: $(head -1 "$work/$name.asan.err")"
		else
			pass "asan_$name"
		fi
	done
fi

# damaged trace and the bounds at their edges under ASan+UBSan: whatever
# the exit status (some decode, some are refused), no crash and no report
if [ -n "${ASAN_PERF:-}" ]; then
	for name in damage_fsync_per_cpu_damaged damage_half_barrier_per_cpu_damaged \
		    damage_bad_packets_per_cpu_damaged damage_fsync_shared_sink_resync_damaged \
		    damage_fsync_per_thread_damaged damage_half_barrier_per_thread_damaged \
		    damage_fsync_per_thread_timed_damaged damage_fsync_last_frame_per_cpu_damaged \
		    info_header_3_words info_header_1_byte_short header_version_3 num_cpu_1 \
		    num_cpu_blocks_fit num_cpu_blocks_fit_plus_1 meta_block_3_words_end_record \
		    meta_block_2_words meta_params_end_record meta_params_1_past_record \
		    hwid_size_47 hwid_size_49 hwid_v0_0_bit_7 hwid_v0_0_bit_8 hwid_minor_2_bit_40 \
		    hwid_sink_id_bit_31 trace_ids_0x01_to_0x6f aux_size_63 auxtrace_ends_data \
		    auxtrace_1_byte_past_data auxtrace_1_byte_past_data_no_index \
		    auxtrace_ends_data_no_index auxtrace_header_47; do
		listed "asan_$name" && continue
		if [ ! -e "$work/$name.data" ]; then
			fail "asan_$name" "no file $name.data"
			continue
		fi
		ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
			timeout -s KILL "$TIMEOUT" "$ASAN_PERF" script -i "$work/$name.data" \
			--itrace=b -F pid,ip,sym >"$work/$name.asan.out" 2>"$work/$name.asan.err"
		if detail=$(crash $? "$work/$name.asan.err"); then
			fail "asan_$name" "$detail"
		else
			pass "asan_$name"
		fi
	done
fi

# the pipe mode decode, with perf inject and perf script under ASan+UBSan
if [ -n "${ASAN_PERF:-}" ]; then
	for name in pipe_two_sinks_overlapping_ids pipe_hwid_after_buffer_overlapping_ids \
		    pipe_per_thread_two_sinks pipe_unformatted_per_cpu pipe_no_timestamps \
		    pipe_header_v2_no_hwid_64cpus pipe_mixed_formatted_unformatted \
		    pipe_mixed_formatted_unformatted_per_thread \
		    pipe_per_thread_overlapping_ids pipe_per_thread_hops_exec_cpu14 \
		    pipe_unformatted_per_thread_shared_sink pipe_per_thread_aux_offset_wraps \
		    pipe_per_thread_overlap_after_setup pipe_header_v2_flagged_no_hwid_64cpus \
		    pipe_per_thread_ts_overlapping_ids pipe_unformatted_per_thread_ts \
		    pipe_unformatted_no_meta_per_thread pipe_static_ids_64cpus \
		    pipe_snapshot_cut_per_cpu pipe_snapshot_cut_per_thread \
		    pipe_snapshot_overlap_per_cpu pipe_snapshot_overlap_per_thread; do
		listed "asan_$name" && continue
		cp "$work/$name.data" "$work/asan_$name.data"
		ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
			pipe_run "$ASAN_PERF" "asan_$name" pid,ip,sym
		rc=$?
		case $name in
		pipe_mixed_*_per_thread) want_fail=1 ;;
		*) want_fail=0 ;;
		esac
		if detail=$(crash $rc "$work/asan_$name.err"); then
			fail "asan_$name" "$detail"
		elif [ $want_fail = 1 ] && [ $rc -eq 0 ]; then
			fail "asan_$name" "exited 0"
		elif [ $want_fail = 0 ] && [ $rc -ne 0 ]; then
			fail "asan_$name" "exit $rc: $(head -1 "$work/asan_$name.err")"
		else
			pass "asan_$name"
		fi
	done
fi

# ---- perf record -z: records in PERF_RECORD_COMPRESSED records ----
# csgen -z writes the ring buffer records (HW_ID, AUX, ITRACE_START, ...)
# into compressed records as 6.1's perf record -z does: sizes not padded, so
# the records after them are at any offset, and a record can start in one
# compressed record and end in the next. They decode as the plain files do:
# the HW_ID and AUX records are read ahead from inside the compressed ones.
check_decode z_two_sinks_overlapping_ids cpu 64 all:40 -c 64 -s 2 -a 40 -z
check_decode z_per_thread_overlapping_ids thread 64 all:40 -c 64 -s 2 -t -a 20 -z
check_decode z_header_v2_no_hwid_64cpus cpu 64 "$counts48" -c 64 -s 1 -a 4 -H none -z
check_decode z_static_ids_header_v1 cpu 8 all:$ATOMS -c 8 -s 1 -a $ATOMS -H none -V 1 -z
RUNNER=pipe_run check_decode pipe_z_two_sinks_overlapping_ids cpu 64 all:40 -c 64 -s 2 -a 40 -z
# stock 6.1 perf decodes the header v1 file too, to the same samples as the
# plain file of the same parameters (static_ids_header_v1 above): it can't
# see the AUX records inside the compressed ones and decodes whole buffers,
# which makes no difference to this layout
name=stock_z_static_ids_header_v1
if [ -n "${STOCK_PERF:-}" ] && ! listed $name; then
	cp "$work/z_static_ids_header_v1.data" "$work/$name.data"
	cp "$work/static_ids_header_v1.data" "$work/${name}_plain.data"
	script_run "$STOCK_PERF" ${name}_plain cpu,pid,ip,sym
	script_run "$STOCK_PERF" $name cpu,pid,ip,sym
	rc=$?
	if detail=$(crash $rc "$work/$name.err"); then
		fail $name "stock perf: $detail"
	elif [ $rc -ne 0 ]; then
		fail $name "stock perf: exit $rc: $(head -1 "$work/$name.err")"
	elif ! grep -q func_cpu "$work/$name.out"; then
		fail $name "stock perf: no sample decoded"
	elif ! cmp -s "$work/$name.out" "$work/${name}_plain.out"; then
		fail $name "stock perf: $(diff "$work/$name.out" "$work/${name}_plain.out" | wc -l) lines differ from the plain file's samples"
	else
		pass $name
	fi
fi

# ---- the stock 6.1 perf on the same multi-sink data ----
# stock perf can't read header v2; v1 files with the legacy metadata IDs (as
# stock perf record writes them) and per-sink IDs in the trace. The patched
# perf decodes them; stock perf fails, with exactly this exit status and
# first line of stderr (its AUXTRACE_INFO record is 40 + 80 * CPUs bytes):
# with 64 CPUs it fails silently, with more it can't create the decoders
# for the metadata IDs >= 0x70.
stock_check() {
	local name=$1 ncpus=$2 nsinks=$3 want_rc=$4 want_msg=$5 rc detail first
	listed "$name" && return
	if ! gen "$name" -c "$ncpus" -s "$nsinks" -a 40 -V 1 -M; then
		fail "$name" "csgen: $(tail -1 "$work/$name.gen")"
		return
	fi
	script_run "$perf" "$name" cpu,pid,ip,sym
	if ! detail=$(attribution "$name" cpu "$ncpus" all:40); then
		fail "$name" "patched perf: $detail"
		return
	fi
	script_run "$STOCK_PERF" "$name" cpu,pid,ip,sym
	rc=$?
	first=$(head -1 "$work/$name.err")
	if detail=$(crash $rc "$work/$name.err"); then
		fail "$name" "stock perf: $detail"
	elif [ $rc -ne "$want_rc" ] || [ "$first" != "$want_msg" ]; then
		fail "$name" "stock perf: exit $rc '$first', expected exit $want_rc '$want_msg'"
	else
		pass "$name"
	fi
}
if [ -n "${STOCK_PERF:-}" ]; then
	stock_check stock_two_sinks 64 2 234 ""
	stock_check stock_four_sinks 128 4 244 "0x100 [$(printf %#x $((40 + 80 * 128)))]: failed to process type: 70 [Cannot allocate memory]"
	stock_check stock_cpus256_sinks4 256 4 244 "0x100 [$(printf %#x $((40 + 80 * 256)))]: failed to process type: 70 [Cannot allocate memory]"
fi

finish
