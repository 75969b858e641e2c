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

set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
perf=${1:?usage: run.sh PERF_BINARY [WORKDIR]}
work=${2:-$(mktemp -d /tmp/csdecode.XXXXXX)}
mkdir -p "$work"
perf=$(cd "$(dirname "$perf")" && pwd)/$(basename "$perf")

npass=0
nfail=0
pass() { echo "PASS $1"; npass=$((npass + 1)); }
fail() { echo "FAIL $1: $2"; nfail=$((nfail + 1)); }

make -s -C "$repo/tools/csgen" O="$work" >"$work/csgen-build.log" 2>&1 ||
	{ fail build_csgen "$(tail -3 "$work/csgen-build.log")"; echo "$npass passed, $nfail failed"; exit 1; }
csgen=$work/csgen
elf=$work/prog
"$here/mkelf.sh" "$elf" 256 >"$work/elf-build.log" 2>&1 ||
	{ fail build_elf "$(tail -3 "$work/elf-build.log")"; echo "$npass passed, $nfail failed"; exit 1; }

PID_BASE=1000
THREAD_PID=4242

# gen NAME CSGEN-ARGS...: write $work/NAME.data
gen() {
	local name=$1
	shift
	"$csgen" -o "$work/$name.data" -e "$elf" -p $PID_BASE "$@" >"$work/$name.gen" 2>&1
}

# script PERF NAME FIELDS: perf script of $work/NAME.data -> NAME.out/.err, rc
script_run() {
	local p=$1 name=$2 fields=$3
	"$p" script -i "$work/$name.data" --itrace=b -F "$fields" \
		>"$work/$name.out" 2>"$work/$name.err"
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
	/func_cpu/ {
		sym = $NF
		sub(/.*func_cpu/, "", sym)
		c = sym + 0
		n[c]++
		total++
		pid = $1 + 0
		if (mode == "nocpu") {
			if (pid != tpid) { bad++; if (!first) first = $0 }
			next
		}
		cpu = $2
		gsub(/[\[\]]/, "", cpu)
		cpu = cpu + 0
		want = (mode == "cpu") ? pidbase + c : tpid
		if (cpu != c || pid != want) { bad++; if (!first) first = $0 }
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
check_decode() {
	local name=$1 mode=$2 ncpus=$3 expected=$4 fields detail rc
	shift 4
	if ! gen "$name" "$@"; then
		fail "$name" "csgen: $(tail -1 "$work/$name.gen")"
		return
	fi
	fields=cpu,pid,ip,sym
	[ "$mode" = nocpu ] && fields=pid,ip,sym
	script_run "$perf" "$name" "$fields"
	rc=$?
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

# check_error NAME REGEX CSGEN-ARGS...: perf must exit non-zero with a message
check_error() {
	local name=$1 regex=$2 rc
	shift 2
	if ! gen "$name" "$@"; then
		fail "$name" "csgen: $(tail -1 "$work/$name.gen")"
		return
	fi
	script_run "$perf" "$name" cpu,pid,ip,sym
	rc=$?
	if [ $rc -eq 0 ]; then
		fail "$name" "perf script exited 0"
	elif ! grep -Eq "$regex" "$work/$name.err"; then
		fail "$name" "exit $rc but no message matching /$regex/: $(head -1 "$work/$name.err")"
	elif grep -q "Segmentation\|Aborted\|AddressSanitizer" "$work/$name.err"; then
		fail "$name" "crashed"
	else
		pass "$name"
	fi
}

ATOMS=200

# ---- per-CPU attribution ----
check_decode one_sink cpu 8 all:$ATOMS -c 8 -s 1 -a $ATOMS
check_decode two_sinks_overlapping_ids cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS
check_decode four_sinks_overlapping_ids cpu 16 all:$ATOMS -c 16 -s 4 -a $ATOMS
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

# ---- buffer endings: all decode completely ----
for end in frame pad async; do
	check_decode "buffer_end_$end" cpu 8 all:$ATOMS -c 8 -s 2 -a $ATOMS -E "$end"
	check_decode "buffer_end_${end}_odd" cpu 3 all:77 -c 3 -s 1 -a 77 -k 5 -E "$end"
done

# ---- per-thread ----
# 8 segments over 4 CPUs: each CPU runs 2 segments of ATOMS branches
check_decode per_thread_overlapping_ids thread 4 all:$((2 * ATOMS)) -c 4 -s 2 -t -g 8 -a $ATOMS
check_decode per_thread_one_sink thread 4 all:$((2 * ATOMS)) -c 4 -s 1 -t -g 8 -a $ATOMS
check_decode per_thread_static_no_cpu nocpu 4 all:$((2 * ATOMS)) -c 4 -s 1 -t -g 8 -a $ATOMS -n -H none -V 1
check_error per_thread_hwid_no_cpu 'HW_ID record .* does not tell its CPU' -c 4 -s 2 -t -g 8 -a 50 -n

# ---- perf report -D names queue, CPU and sink of each decoder ----
name=dump_decoders
if gen $name -c 4 -s 2 -a 20 -L; then
	"$perf" report -D -i "$work/$name.data" >"$work/$name.out" 2>"$work/$name.err"
	missing=""
	# queue q holds the trace of CPU q's sink: one decoder per CPU of that sink
	while read -r _ cpu _ sink _ id _ _; do
		for q in $(awk -v s="$sink" '$4 == s { print $2 }' "$work/$name.gen"); do
			line="queue $q (buffer CPU $q): decoder for trace ID $id: CPU $cpu, sink $sink"
			grep -qF "$line" "$work/$name.out" || missing="$line"
		done
	done <"$work/$name.gen"
	if [ -n "$missing" ]; then
		fail $name "no line '$missing'"
	else
		pass $name
	fi
else
	fail $name "csgen failed"
fi

# ---- malformed input: clear error, non-zero exit ----
check_error bad_major_version 'CPU 1: HW_ID record .* has major version 1' -c 4 -s 1 -B major
check_error bad_id_out_of_range 'CPU 1: invalid trace ID 0x70 in sink' -c 4 -s 1 -B idrange
check_error bad_id_zero 'CPU 1: invalid trace ID 0 in sink' -c 4 -s 1 -B idzero
check_error bad_duplicate_id 'CPU 0 and CPU 1 both claim trace ID 0x10 in sink 0x' -c 4 -s 1 -B dup
check_error bad_duplicate_id_v0_0 'CPU 0 and CPU 1 both claim trace ID 0x10$' -c 4 -s 2 -H 0.0 -B dup
check_error bad_id_change 'CPU 1 changed from trace ID 0x12 in sink (0x[0-9a-f]+) to trace ID 0x13 in sink \1 within the session' -c 4 -s 1 -B chid
check_error bad_sink_change 'CPU 1 changed from trace ID 0x12 in sink 0x[0-9a-f]+ to trace ID 0x12 in sink 0x[0-9a-f]+ within the session' -c 4 -s 1 -B chsink
check_error bad_truncated_record 'truncated HW_ID record .*trace ID 0x12.*size 16, expected' -c 4 -s 1 -B trunc
check_error bad_oversized_record 'oversized HW_ID record .*trace ID 0x12.*size 56, expected 48' -c 4 -s 1 -B over
check_error bad_missing_hwid_multi_sink 'queue 1: no HW_ID record for CPU 1, the sink of its trace is unknown' -c 4 -s 2 -B nohwid
check_error bad_mixed_minor_versions 'CPU 1: HW_ID record .* has minor version 0, earlier ones have 1' -c 4 -s 2 -B mixminor
check_error bad_static_duplicate 'CPU 0 and CPU 1 both claim trace ID 0x10' -c 4 -s 1 -H none -V 1 -B staticdup
check_error bad_static_49cpus 'CPU 48: invalid trace ID 0x70 in metadata' -c 49 -s 1 -H none -V 1 -M -a 4

# ---- sanitizers: malformed and multi-sink inputs under ASan+UBSan ----
if [ -n "${ASAN_PERF:-}" ]; then
	for name in bad_major_version bad_id_out_of_range bad_id_zero bad_duplicate_id \
		    bad_duplicate_id_v0_0 bad_id_change bad_sink_change bad_truncated_record \
		    bad_oversized_record bad_static_duplicate bad_static_49cpus \
		    per_thread_hwid_no_cpu four_sinks_overlapping_ids per_thread_overlapping_ids \
		    cpus256_sinks4 static_ids_header_v1 hwid_v0_0_global_map buffer_end_pad \
		    per_thread_static_no_cpu bad_missing_hwid_multi_sink bad_mixed_minor_versions; do
		ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
			"$ASAN_PERF" script -i "$work/$name.data" --itrace=b -F pid,ip,sym \
			>"$work/$name.asan.out" 2>"$work/$name.asan.err"
		rc=$?
		if grep -q "AddressSanitizer\|runtime error:\|LeakSanitizer" "$work/$name.asan.err"; then
			fail "asan_$name" "$(grep -m1 "AddressSanitizer\|runtime error:" "$work/$name.asan.err")"
		elif [ "${name#bad_}" != "$name" ] && [ $rc -eq 0 ]; then
			fail "asan_$name" "exited 0"
		else
			pass "asan_$name"
		fi
	done
fi

# ---- the stock 6.1 perf on the same multi-sink data ----
if [ -n "${STOCK_PERF:-}" ]; then
	# stock perf can't read header v2; v1 files with the legacy metadata IDs
	# (as stock perf record writes them) and per-sink IDs in the trace
	for spec in "stock_two_sinks:8:2" "stock_four_sinks:16:4" "stock_cpus256_sinks4:256:4"; do
		IFS=: read -r name ncpus nsinks <<<"$spec"
		gen "$name" -c "$ncpus" -s "$nsinks" -a 40 -V 1 -M
		script_run "$perf" "$name" cpu,pid,ip,sym
		if ! detail=$(attribution "$name" cpu "$ncpus" all:40); then
			fail "${name}_patched" "$detail"
			continue
		fi
		if script_run "$STOCK_PERF" "$name" cpu,pid,ip,sym &&
		   attribution "$name" cpu "$ncpus" all:40 >/dev/null; then
			fail "$name" "stock perf decoded the multi-sink trace correctly"
		else
			pass "$name"
		fi
	done
fi

echo "$npass passed, $nfail failed"
[ $nfail -eq 0 ]
