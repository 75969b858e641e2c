#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# maps.sh CHECK NAME ARGS...: checks of the sinks' trace ID maps that the
# board's scenarios save in the guest (save_maps in tests/board/init.sh:
# "map SINK SESSIONS USED" and "id SINK CPU 0xID" lines, from csboard's
# id_map group of each sink). Prints "PASS NAME: check" or
# "FAIL NAME: check<TAB>detail", like report.sh; exits non-zero on a FAIL.
#
#   empty NAME FILE...
#       every map of every FILE has no session, no ID in use, no CPU ID
#   during NAME FILE STATS SINK:EVENTS:FIRST-LAST,...
#       while sessions run: the map of each SINK listed counts EVENTS
#       sessions (the allocator counts one per perf event using the map:
#       in per-CPU mode one per CPU of the perf sessions on that sink) and
#       exactly CPUs FIRST-LAST hold an ID in it, each a different one,
#       those IDs are the map's IDs in use, and a CPU whose source traced
#       into SINK (STATS, report.sh's input) holds the ID it traced with;
#       the maps of the sinks not listed are empty
#   same NAME FILE...
#       every CPU holds the same ID in the same map in every FILE
#   online NAME FILE NCPUS CPU...
#       FILE (hotplug.sh's STEP LIST lines): all NCPUS CPUs online
#       "before", all but the CPUs given "offline", all again "online"
set -uo pipefail

usage="usage: maps.sh empty|during|same|online NAME ARGS..."
what=${1:?$usage}
name=${2:?$usage}
shift 2

pass() { echo "PASS $name: $1"; }
fail() { printf 'FAIL %s: %s\t%s\n' "$name" "$1" "$2"; exit 1; }

# expand LIST: "0-3,5" -> "0 1 2 3 5"
expand() {
	local part out=()
	for part in ${1//,/ }; do
		case "$part" in
		-) ;;
		*-*) mapfile -t -O "${#out[@]}" out < <(seq "${part%-*}" "${part#*-}") ;;
		*) out+=("$part") ;;
		esac
	done
	echo "${out[*]}"
}

case "$what" in
empty)
	check="every trace ID map empty after the sessions"
	[ $# -gt 0 ] || fail "$check" "no file"
	for f in "$@"; do
		[ -s "$f" ] || fail "$check" "no maps in $f (csboard's id_map group)"
		bad=$(awk '($1 == "map" && ($3 != 0 || $4 != "-")) || $1 == "id"' "$f" | head -n 3 | tr '\n' ';')
		[ -z "$bad" ] || fail "$check" "$(basename "$f"): $bad"
	done
	pass "$check"
	;;
during)
	file=${1:?$usage} stats=${2:?$usage} spec=${3:?$usage}
	check="trace ID maps hold the IDs of the running sessions"
	[ -s "$file" ] || fail "$check" "no maps in $file (csboard's id_map group)"
	declare -A want_sessions want_cpus
	for s in ${spec//,/ }; do
		IFS=: read -r sink n range <<<"$s"
		want_sessions[$sink]=$n
		want_cpus[$sink]=$(expand "$range")
	done
	while read -r tag sink sessions used; do
		[ "$tag" = map ] || continue
		got=$(awk -v s="$sink" '$1 == "id" && $2 == s { print $3 }' "$file" | sort -n | tr '\n' ' ')
		ids=$(awk -v s="$sink" '$1 == "id" && $2 == s { print $4 }' "$file" | sort)
		[ "$sessions" = "${want_sessions[$sink]:-0}" ] ||
			fail "$check" "$sink: $sessions sessions, expected ${want_sessions[$sink]:-0}"
		want=$(tr ' ' '\n' <<<"${want_cpus[$sink]:-}" | grep . | sort -n | tr '\n' ' ')
		[ "$got" = "$want" ] || fail "$check" "$sink: IDs for CPUs ${got:-none}, expected ${want:-none}"
		[ -z "$(uniq -d <<<"$ids")" ] || fail "$check" "$sink: an ID held by two CPUs: $(uniq -d <<<"$ids" | head -n 1)"
		inuse=$(for i in $(expand "$used"); do printf '0x%02x\n' "$i"; done | sort)
		[ "$inuse" = "$ids" ] ||
			fail "$check" "$sink: IDs in use '$used' are not those of its CPUs: $(tr '\n' ' ' <<<"$ids")"
		# the ID each source of this sink traced with (report.sh's input)
		bad=$(awk -v s="$sink" 'FNR == NR { if ($1 == "id" && $2 == s) id[$3] = $4; next }
			$1 == "etm" && $3 == s && $4 != 0 && sprintf("0x%02x", $4) != id[$2] { print "CPU " $2 }' \
			"$file" "$stats" | head -n 1)
		[ -z "$bad" ] || fail "$check" "$sink: $bad traced with another ID than its map holds"
	done <"$file"
	for sink in "${!want_sessions[@]}"; do
		grep -q "^map $sink " "$file" || fail "$check" "no map of $sink"
	done
	pass "$check"
	;;
same)
	check="trace IDs unchanged"
	[ $# -ge 2 ] || fail "$check" "fewer than two files"
	first=$1
	[ -s "$first" ] || fail "$check" "no maps in $first"
	grep -q '^id ' "$first" || fail "$check" "no CPU holds an ID in $(basename "$first")"
	for f in "${@:2}"; do
		d=$(diff <(grep '^id ' "$first") <(grep '^id ' "$f") | grep '^[<>]' | head -n 2 | tr '\n' ' ')
		[ -z "$d" ] || fail "$check" "$(basename "$first") -> $(basename "$f"): $d"
	done
	pass "$check"
	;;
online)
	file=${1:?$usage} ncpus=${2:?$usage}
	shift 2
	check="CPUs $* went offline and came back"
	all=$(seq 0 $((ncpus - 1)) | tr '\n' ' ')
	rest=$(seq 0 $((ncpus - 1)) | grep -vxF -f <(printf '%s\n' "$@") | tr '\n' ' ')
	for step in before offline online; do
		list=$(awk -v s="$step" '$1 == s { print $2 }' "$file")
		got="$(expand "$list") "
		want=$all
		[ "$step" = offline ] && want=$rest
		[ "$got" = "$want" ] || fail "$check" "online $step: ${list:-nothing}"
	done
	pass "$check"
	;;
*)
	echo "$usage" >&2
	exit 2
	;;
esac
