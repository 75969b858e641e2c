#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Real hardware trace is the judge (design.md 2.12): the OpenCSD snapshots
# (trace captured on Arm boards) written as cs_etm perf.data by csgen -S in
# every way trace IDs reach perf, each decoded by PERF_BINARY and judged
# against OpenCSD's own decode of the same bytes (trc_pkt_lister).
#
#   tests/decode/real.sh PERF_BINARY [WORKDIR]
#
# Snapshots (SNAPSHOTS, default ../shared/data/opencsd-snapshots beside the
# repository): TC2 (ETMv3 and PTM, 32-bit kernel code, timestamps),
# Snowball (PTM, the same) and bugfix-exact-match (ETMv4, user-space cc1,
# no timestamps), of which the last 128 KiB are decoded, from the first
# frame with an A-sync at 896 KiB on: the part with most system calls (trace
# stops and restarts). REAL_FULL=1: the whole 1 MiB.
#
# Variants, each from a file and through a pipe (_pipe), TC2 and Snowball
# also without the timestamp option (_timeless):
#   static      header v1, the IDs the sources wrote, no HW_ID record
#   hwid_v0_0   HW_ID records v0.0 (one global map)
#   hwid_v0_1   HW_ID records v0.1, one sink
#   two_sinks   each source's stream re-formatted onto two sinks whose
#               maps hand out the same small IDs (0x01, 0x02, ...)
#   raw         each source's stream unformatted in its CPU's buffer
#   per_thread  one AUX part per source, re-formatted with the two-sink
#               IDs, its AUX record naming the source's CPU
#
# Checks of each variant:
#   real_SNAP_VARIANT      per CPU, in order, the instruction ranges perf's
#                          branch samples describe equal OpenCSD's
#                          (tools/cstrace/ranges.c says how they are read
#                          from both sides); no difference is allowed
#   real_SNAP_VARIANT_pid  every sample has the pid/tid of the writer's
#                          thread (4242/4242): the traces carry no context ID
#   real_SNAP_VARIANT_opencsd  (re-formatted and raw buffers) trc_pkt_lister
#                          decodes each buffer written to the same elements,
#                          per CPU, as the capture
# and the capture cut into several AUX buffers at frame boundaries (per-CPU,
# static IDs; the flush of the decoder at the end of a buffer):
#   real_SNAP_cut_at_stops   where the trace of the busiest source restarts
#                          (a Trace On): the frames up to the next A-sync
#                          are dropped, each piece is an AUX record of its
#                          own, and each piece alone is the oracle
#   real_SNAP_cut_mid_stream at 1/4, 1/2 and 3/4 of the capture, in one AUX
#                          record: the whole capture is the oracle
#
# Prints one line per check, "PASS name" or "FAIL name: detail", then
# "N passed, N failed"; DECODE_LIST=1 lists the checks ("CHECK name").

set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/decode/lib.sh
. "$here/lib.sh" "$@"

snapshots=${SNAPSHOTS:-$repo/../shared/data/opencsd-snapshots}
THREAD=4242/4242
FIELDS=cpu,pid,tid,ip,addr,insnlen

# name:directory:timed:slice
SNAPS=(
	"tc2:TC2:1:"
	"snowball:Snowball:1:"
	"bugfix:bugfix-exact-match:0:-A 0xe0000 -N 0x20000"
)
[ -n "${REAL_FULL:-}" ] && SNAPS[2]="bugfix:bugfix-exact-match:0:"

# name:csgen options
VARIANTS=(
	"static:-H none -V 1"
	"hwid_v0_0:-H 0.0"
	"hwid_v0_1:-H 0.1"
	"two_sinks:-H 0.1 -s 2"
	"raw:-H 0.1 -U"
	"per_thread:-H 0.1 -t -s 2"
)

if [ -z "$LIST" ]; then
	if [ ! -d "$snapshots" ]; then
		fail real_snapshots "no snapshot directory $snapshots (set SNAPSHOTS)"
		finish
	fi
	if ! command -v trc_pkt_lister >/dev/null; then
		fail real_opencsd "trc_pkt_lister not found: apt-get install libopencsd-bin"
		finish
	fi
	make -s -C "$repo/tools/csgen" O="$work" >"$work/csgen-build.log" 2>&1 ||
		{ fail real_build_csgen "$(tail -3 "$work/csgen-build.log")"; finish; }
	${CC:-cc} -O2 -Wall -Wextra -o "$work/ranges" "$repo/tools/cstrace/ranges.c" \
		>"$work/ranges-build.log" 2>&1 ||
		{ fail real_build_ranges "$(tail -3 "$work/ranges-build.log")"; finish; }
fi

# lister DIR LOG: OpenCSD's decode of the snapshot directory DIR
lister() {
	rm -f "$2"	# trc_pkt_lister appends to its log
	trc_pkt_lister -ss_dir "$1" -decode_only -logfilename "$2" >/dev/null 2>&1
}

# idmap DIR: "ID=CPU,..." of the sources of snapshot directory DIR as csgen
# wrote it (etm_N.ini traces CPU N)
idmap() {
	local f id map=
	for f in "$1"/etm_*.ini; do
		id=$(sed -n 's/^\(ETM\|TRC\)TRACEIDR([^)]*)=//p' "$f")
		f=${f##*/etm_}
		map=$map${map:+,}$(printf '%#x' "$id")=${f%.ini}
	done
	echo "$map"
}

# oracles DIR: "LOG MAP" of each buffer snapshot DIR/auxN, in file order
oracles() {
	local d n=0
	while [ -d "$1/aux$n" ]; do
		d=$1/aux$n
		[ -s "$d.log" ] || lister "$d" "$d.log"
		echo "$d.log $(idmap "$d")"
		n=$((n + 1))
	done
}

# judge NAME SPEC LOG MAP [LOG MAP ...]: the ranges of $work/NAME.out
# against OpenCSD's, and (SPEC pid) the pid/tid of its samples
judge() {
	local name=$1 pidcheck=$2 out
	shift 2
	out=$("$work/ranges" -p "$THREAD" "$@" <"$work/$name.out" 2>&1)
	echo "$out" >"$work/$name.ranges"
	if grep -q '^ranges: [0-9]* equal, 0 only perf, 0 only OpenCSD$' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$(grep -m1 -A2 'first difference' <<<"$out" | tr -s ' \n' ' ' | sed 's/^ //')$(grep '^ranges' <<<"$out")"
	fi
	[ "$pidcheck" = pid ] || return
	if grep -q '^pid/tid: 0 of [1-9]' <<<"$out"; then
		pass "${name}_pid"
	elif grep -q '^pid/tid: 0 of 0 ' <<<"$out"; then
		fail "${name}_pid" "no sample"
	else
		fail "${name}_pid" "$(grep '^pid/tid' <<<"$out" | tr -s ' ')"
	fi
}

# decode NAME RUNNER ELF: perf script of $work/NAME.data; 0 if it decoded
decode() {
	local name=$1 runner=$2 elf=$3 rc detail
	"$runner" "$perf" "$name" "$FIELDS" --vmlinux "$elf"
	rc=$?
	if detail=$(crash $rc "$work/$name.err"); then
		fail "$name" "$detail"
	elif [ $rc -ne 0 ]; then
		fail "$name" "perf script exit $rc: $(grep -m1 -i 'error\|CS ETM' "$work/$name.err")"
	else
		return 0
	fi
	return 1
}

# elements LOG MAP: OpenCSD's elements of each CPU as "CPU<tab>element",
# sorted by CPU; the end of trace of a source without any trace (which has
# no buffer of its own to end) is left out
elements() {
	awk -v map="$2" 'BEGIN {
		n = split(map, m, ",")
		for (i = 1; i <= n; i++) { split(m[i], kv, "="); cpu[substr(kv[1], 3)] = kv[2] }
	}
	# an element, also after an error message without newline
	match($0, /Idx:[0-9]*; ID:[0-9a-f]*; OCSD_GEN_TRC_ELEM_/) {
		$0 = substr($0, RSTART)
		id = $2; sub(/^ID:/, "", id); sub(/;$/, "", id)
		if (id in cpu) { sub(/^[^;]*; [^;]*; /, ""); print cpu[id] "\t" $0 }
	}' "$1" | sort -s -t $'\t' -k1,1n |
		awk -F '\t' '{ n[$1]++; line[NR] = $0; c[NR] = $1 }
		END { for (i = 1; i <= NR; i++) if (n[c[i]] > 1 || line[i] !~ /EO_TRACE/) print line[i] }'
}

# same_elements NAME SNAPDIR: trc_pkt_lister decodes the buffers written for
# $work/NAME.data to the same elements per CPU as the capture
same_elements() {
	local name=$1 dir=$2 log map got want
	listed "${name}_opencsd" && return
	want=$work/$name.elements.want
	got=$work/$name.elements.got
	elements "$dir/capture.log" "$(idmap "$dir/capture")" >"$want"
	oracles "$work/$name.d" | while read -r log map; do
		elements "$log" "$map"
	done | sort -s -t $'\t' -k1,1n >"$got"
	if [ ! -s "$want" ]; then
		fail "${name}_opencsd" "OpenCSD decodes nothing from the capture"
	elif cmp -s "$want" "$got"; then
		pass "${name}_opencsd"
	else
		fail "${name}_opencsd" "$(diff "$want" "$got" | grep -m2 '^[<>]' | tr '\t\n' ' ')(< capture, > buffers written)"
	fi
}

# one_snapshot NAME DIR TIMED SLICE
one_snapshot() {
	local snap=$1 dir=$snapshots/$2 timed=$3 slice=$4 spec v opts name mode sfx
	local sw=$work/$snap elf=$work/$snap/$snap.elf map cap
	mkdir -p "$sw"
	if [ -z "$LIST" ]; then
		# the capture (or slice) and OpenCSD's decode of it
		# shellcheck disable=SC2086
		if ! "$work/csgen" -S "$dir" -o "$sw/capture.data" -e "$elf" $slice -D "$sw" -L \
				>"$sw/capture.gen" 2>&1; then
			fail "real_${snap}" "csgen: $(tail -1 "$sw/capture.gen")"
			return
		fi
		lister "$sw/capture" "$sw/capture.log"
		cap=$sw/capture.log
		map=$(idmap "$sw/capture")
	fi
	for spec in "${VARIANTS[@]}"; do
		v=${spec%%:*}
		opts=${spec#*:}
		for sfx in "" _timeless; do
			[ -n "$sfx" ] && { [ "$timed" = 0 ] || [ "$v" = per_thread ]; } && continue
			name=real_${snap}_$v$sfx
			for mode in file pipe; do
				local n=$name runner=script_run
				[ $mode = pipe ] && n=${name}_pipe runner=pipe_run
				if [ -n "$LIST" ]; then
					listed "$n"
					listed "${n}_pid"
					continue
				fi
				if [ $mode = file ]; then
					rm -rf "$work/$name.d"
					# shellcheck disable=SC2086
					if ! "$work/csgen" -S "$dir" -o "$work/$name.data" -e "$elf" $slice \
							$opts ${sfx:+-T 0} -D "$work/$name.d" -L >"$work/$name.gen" 2>&1; then
						fail "$n" "csgen: $(tail -1 "$work/$name.gen")"
						fail "${n}_pid" "csgen failed"
						continue
					fi
				else
					cp "$work/$name.data" "$work/$n.data"
				fi
				if decode "$n" "$runner" "$elf"; then
					judge "$n" pid "$cap" "$map"
				else
					fail "${n}_pid" "perf script failed"
				fi
			done
		done
		case $v in
		two_sinks|raw|per_thread) same_elements "real_${snap}_$v" "$sw" ;;
		esac
	done
	cuts "$snap" "$dir" "$slice" "$elf"
}

# ---- the capture in several AUX buffers: the decoder's flush ----

# stop_cuts LOG ID SIZE GEN: -C list that cuts at the first Trace On element
# of trace ID ID from a quarter, half and three quarters of the SIZE bytes
# on, each piece resuming at the next frame with an A-sync (OFFSET:OFFSET,
# the "sync" lines of csgen's listing GEN), where the next cut may not be
# shellcheck disable=SC2016
awk_stop_cuts='
	FILENAME == gen && $1 == "sync" { sync[ns++] = $2 + 0; next }
	FILENAME != gen && $2 == "ID:" id ";" && /OCSD_GEN_TRC_ELEM_TRACE_ON/ {
		sub(/^Idx:/, "", $1); sub(/;$/, "", $1); on[n++] = $1 + 0
	}
	END {
		from = 0
		for (k = 1; k <= 3; k++) {
			for (i = 0; i < n && (on[i] < size * k / 4 || on[i] < from); i++)
				;
			for (j = 0; i < n && j < ns && sync[j] <= on[i]; j++)
				;
			if (i == n || j == ns) exit k == 1
			cut = int(on[i] / 16) * 16
			printf "%s%d:%d", (k > 1 ? "," : ""), cut, cut
			from = sync[j] + 16
		}
	}'
stop_cuts() {
	awk -v id="$2" -v size="$3" -v gen="$4" "$awk_stop_cuts" "$4" "$1"
}

# cuts SNAP DIR SLICE ELF: real_SNAP_cut_at_stops, real_SNAP_cut_mid_stream
cuts() {
	local snap=$1 dir=$2 slice=$3 elf=$4 sw=$work/$1 name list size busiest id
	for name in real_${snap}_cut_at_stops real_${snap}_cut_mid_stream; do
		listed "$name" && continue
		size=$(($(awk '$1 == "slice" { print $5 }' "$sw/capture.gen")))
		if [ "$name" = "real_${snap}_cut_at_stops" ]; then
			# the source with most trace: its Trace On elements
			busiest=$(awk '$1 == "cpu" { print $12, $10 }' "$sw/capture.gen" | sort -n | tail -1)
			id=$(printf '%x' "${busiest#* }")
			if ! list=$(stop_cuts "$sw/capture.log" "$id" "$size" "$sw/capture.gen"); then
				fail "$name" "no Trace On element of ID 0x$id with an A-sync after it from 1/4 of the capture on"
				continue
			fi
		else
			list=$((size / 4)),$((size / 2)),$((size * 3 / 4))
		fi
		rm -rf "$work/$name.d"
		# shellcheck disable=SC2086
		if ! "$work/csgen" -S "$dir" -o "$work/$name.data" -e "$elf" $slice -H none -V 1 \
				-C "$list" -D "$work/$name.d" -L >"$work/$name.gen" 2>&1; then
			fail "$name" "csgen -C $list: $(grep -m1 '^csgen' "$work/$name.gen")"
			continue
		fi
		decode "$name" script_run "$elf" || continue
		if [ "$name" = "real_${snap}_cut_at_stops" ]; then
			# shellcheck disable=SC2046
			judge "$name" nopid $(oracles "$work/$name.d")
		else
			judge "$name" nopid "$sw/capture.log" "$(idmap "$sw/capture")"
		fi
	done
}

for s in "${SNAPS[@]}"; do
	IFS=: read -r snap dir timed slice <<<"$s"
	one_snapshot "$snap" "$dir" "$timed" "$slice"
done
finish
