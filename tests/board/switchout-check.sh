#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# switchout-check.sh PERF VMLINUX DIR NCPUS NSINKS: checks, on the host,
# the perf record --switch-output sessions that tests/board/switchout.sh
# recorded in DIR ("switch", and "switchz" with -z unless DIR/switchz.skip
# says why it did not run).
#
# The kernel sends a CPU's PERF_RECORD_AUX_OUTPUT_HW_ID record once per
# event (design.md 2.4), the first time the event starts there: in the
# first phase of the workload, so in the first output file. Each output
# file K holds phase K; every one, the second and third above all, is
# decoded alone by tests/board/report.sh in mode "part" as session
# NAME-K (NAME-K.data links to the file, NAME-K.log has the CPUs of
# phase K as "hop: CPU N" lines, NAME-K.stats is the session's):
# every sample on the CPU whose marker it carries, every CPU of the phase
# decoded, the decoders using the trace IDs and sinks the kernel gave,
# and one HW_ID record per event and CPU of the phase in that file, with
# the kernel's values. A file without the HW_ID records falls back to the
# metadata's placeholder IDs, which CPUs from 48 on do not have.
# Then all files together: one sample per branch each CPU's source wrote
# (DIR/NAME.stats), so no trace is lost or decoded twice at a switch.
#
# Prints "PASS name", "FAIL name<TAB>detail" or "SKIP name<TAB>reason"
# per check, and report.sh's tables; exits non-zero if one failed.
set -uo pipefail

usage="usage: switchout-check.sh PERF VMLINUX DIR NCPUS NSINKS"
perf=${1:?$usage}
vmlinux=${2:?$usage}
dir=${3:?$usage}
ncpus=${4:?$usage}
nsinks=${5:?$usage}
# phases of the workload (SWITCH_PHASES in tests/board/switchout.sh): one
# output file each
phases=4
here=$(dirname "$0")
failed=0

# check_session NAME: the files of session NAME
check_session() {
	local name=$1 files=() k f log=$dir/$1.log ok=1
	pass() { echo "PASS $name: $1"; }
	fail() { printf 'FAIL %s: %s\t%s\n' "$name" "$1" "$2"; failed=1; ok=0; }

	if [ -f "$dir/$name.skip" ]; then
		printf 'SKIP %s: perf record --switch-output in the guest\t%s\n' \
			"$name" "$(cat "$dir/$name.skip")"
		return
	fi
	if ! grep -q '^exit 0$' "$log" 2>/dev/null; then
		fail "perf record --switch-output in the guest" \
			"$(tail -n 3 "$log" 2>/dev/null | tr '\n' ' ')"
		return
	fi
	pass "perf record --switch-output in the guest"
	# perf names each file after the time of its switch: in order
	for f in "$dir/$name".data.*; do
		[ -f "$f" ] && files+=("$f")
	done
	if [ "${#files[@]}" -ne "$phases" ]; then
		fail "one output file per phase" "${#files[@]} files for $phases phases"
		return
	fi
	pass "one output file per phase"
	if [ "$name" = switchz ]; then
		k=0
		for f in "${files[@]}"; do
			"$perf" report --header-only -i "$f" 2>/dev/null |
				grep -q '^# compressed : Zstd' && k=$((k + 1))
		done
		if [ "$k" -eq "$phases" ]; then
			pass "every output file compressed (perf record -z)"
		else
			fail "every output file compressed (perf record -z)" \
				"$k of $phases files have the compressed header feature"
		fi
	fi

	for k in $(seq 1 "$phases"); do
		ln -sf "$(basename "${files[k - 1]}")" "$dir/$name-$k.data"
		cp "$dir/$name.stats" "$dir/$name-$k.stats"
		{
			sed -n "s/^phase $k: CPU \([0-9]*\)$/hop: CPU \1/p" "$log"
			echo "exit 0"
		} >"$dir/$name-$k.log"
		bash "$here/report.sh" "$perf" "$vmlinux" "$dir" "$name-$k" part \
			"$ncpus" "$nsinks" || ok=0
	done
	[ "$ok" = 1 ] || failed=1

	# all files together: one sample per branch written, per CPU
	awk -v name="$name" '
FILENAME ~ /stats$/ && $1 == "etm" { atoms[$2] = $6; marker_cpu[$7] = $2; next }
{
	for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
	if (i > NF) next
	c = substr($i, 2, length($i) - 2) + 0
	if ($1 ~ /^csboard\//) m = substr($1, 9) + 0
	else if ($2 in marker_cpu) m = marker_cpu[$2]
	else next
	if (m == c && $(i + 1) !~ /^0+$/) got[c]++
}
END {
	for (c in atoms) {
		if (!atoms[c] && !got[c]) continue
		n++
		if (got[c] != atoms[c]) { bad++; first = first sprintf(" CPU %d: %d samples of %d branches;", c, got[c], atoms[c]) }
	}
	if (n && !bad)
		printf "PASS %s: all files: one sample per branch written on each of %d CPUs\n", name, n
	else
		printf "FAIL %s: all files: one sample per branch written\t%d of %d CPUs differ:%s\n", name, bad, n, first
	exit bad || !n
}' "$dir/$name.stats" "$dir/$name"-[0-9]*.script || failed=1
}

check_session switch
check_session switchz
exit "$failed"
