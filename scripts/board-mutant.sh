#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Board mutants: the mutants of tests/mutants/mutants.txt of type "board"
# break the order of the steps of the perf glue (etm_setup_aux(),
# etm_event_start(), free_event_data()), which only the real framework
# runs: KUnit does not. Each is applied to build/linux's work tree, the
# simulated 16-CPU board runs (scripts/board.sh board16, which builds the
# guest kernel from build/linux), and the file is restored, also when the
# run is interrupted. A mutant is caught when a board check fails.
#
# Usage: board-mutant.sh [NAME...]   default: every board mutant
#
# Prints one line per mutant and "N of M board mutants caught"; exits
# non-zero if one survived or did not apply. Not part of make ci or make
# mutants: each mutant is a guest kernel build and a board16 run.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

LIST=${MUTANTS_LIST:-$TOP/tests/mutants/mutants.txt}
[ -z "$(git -C "$KSRC" status --porcelain --untracked-files=no)" ] ||
	die "build/linux has uncommitted edits: commit or export them first"

names=() files=() substs=()
while read -r name test file subst; do
	case $name in '' | '#'*) continue ;; esac
	[ "$test" = board ] || continue
	if [ $# -eq 0 ] || printf '%s\n' "$@" | grep -qFx "$name"; then
		names+=("$name") files+=("$file") substs+=("$subst")
	fi
done <"$LIST"
[ ${#names[@]} -gt 0 ] || die "no board mutant selected in $LIST"

restore() { git -C "$KSRC" checkout -q -- "${files[@]}"; }
trap 'restore; exit 130' INT TERM

caught=0 bad=()
for i in "${!names[@]}"; do
	name=${names[$i]} file=$KSRC/${files[$i]}
	if ! apply_subst "$file" "${substs[$i]}"; then
		say "board mutant $name: DID NOT APPLY"
		bad+=("$name")
		continue
	fi
	say "board mutant $name: board16 ..."
	CSID_RESULTS=$BUILD/board-mutant-$name.results bash "$TOP/scripts/board.sh" board16 \
		>"$LOGDIR/board-mutant-$name.log" 2>&1
	restore
	first=$(grep -m1 '^FAIL ' "$BUILD/board-mutant-$name.results" 2>/dev/null)
	if [ -n "$first" ]; then
		say "board mutant $name: caught ($first)"
		caught=$((caught + 1))
	else
		say "board mutant $name: SURVIVED (log: $LOGDIR/board-mutant-$name.log)"
		bad+=("$name")
	fi
done
say "$caught of ${#names[@]} board mutants caught"
[ ${#bad[@]} -eq 0 ] || { say "survived or did not apply: ${bad[*]}"; exit 1; }
