#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Lint the series: checkpatch --strict on every patch, W=1 and sparse builds
# of drivers/hwtracing/coresight for arm64 and 32-bit arm, coccicheck, and
# kernel-doc over the files the series touches. Warnings already in the 6.1
# base are a baseline (computed once per base version), not failures.
#
# Usage: lint.sh [checkpatch|arm64|arm32|cocci|kdoc]...   (default: all)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

CS=drivers/hwtracing/coresight
BASELINE=$CACHE/lint-baseline-$(base_version)
BASE_TREE=$BUILD/base-tree

# Drop line and column numbers so that moved code keeps its warnings equal.
normalize() {
	grep -E '(warning|error|WARNING|ERROR):' |
		sed -E -e 's#^(\.\./)+##' -e 's#^([^: ]+):[0-9]+(:[0-9]+(-[0-9]+)?)?:#\1:#' |
		grep -v -e '^make' -e 'Error [0-9]' | sort
}

# build_warnings TREE MAKEFN ODIR CONFIG: W=1 + sparse over $CS, all files.
build_warnings() {
	local tree=$1 makefn=$2 odir=$3 config=$4
	local KSRC=$tree

	$makefn O="$odir" KCONFIG_ALLCONFIG="$config" allnoconfig >/dev/null &&
		rm -rf "${tree:?}/$odir/$CS" &&
		with_build_lock "$makefn" O="$odir" W=1 C=2 "$CS/"
}

# coccicheck's reports ("file:line:col: WARNING ..."); fails with the whole
# output when coccicheck does.
cocci_warnings() {
	local out
	if ! out=$(make -C "$1" coccicheck MODE=report M="$CS" J="$JOBS" 2>&1); then
		printf '%s\n' "$out"
		return 1
	fi
	grep -E "^$CS/.*:[0-9]+:" <<<"$out"
	return 0	# no report is the good case
}

# kernel-doc over FILE... of TREE (a file the tree lacks is skipped: the
# base has no copy of the files the series adds)
kdoc_warnings() {
	local tree=$1 f
	shift
	for f in "$@"; do
		[ -f "$tree/$f" ] || continue
		(cd "$tree" && scripts/kernel-doc -none "$f" 2>&1) || return 1
	done
}

make_base_tree() {
	if [ ! -d "$BASE_TREE/.git" ] && [ ! -f "$BASE_TREE/.git" ]; then
		git -C "$KSRC" worktree prune
		git -C "$KSRC" worktree add -q --detach "$BASE_TREE" base
	fi
}

# The base's W=1 + sparse build starts from the object directory that the
# series' own lint build left (configured the same way, from the same
# fragment): only the files that the series changes, and the CoreSight
# objects (removed to see all their warnings), are built again, not the
# scripts and generated headers of a cold tree.
seed_base_odir() {
	make_base_tree && sync_times "$BASE_TREE" &&
		{ seed_odir "$BASE_TREE" "$1" "$1" || true; }
}

# baseline NAME OUT CMD...: the base's warnings of one step into OUT,
# computed once per base version. SEED: the object directory of the
# step's build, reused (seed_base_odir).
baseline() {
	local name=$1 out=$2
	shift 2
	mkdir -p "$BASELINE"
	if [ ! -f "$BASELINE/$name.txt" ]; then
		make_base_tree
		[ -z "${SEED:-}" ] || seed_base_odir "$SEED"
		run_step "lint: $name of the 6.1 base (baseline, once per version)" \
			"$BASELINE/$name.log" "$@" "$BASE_TREE" || return 1
		normalize <"$BASELINE/$name.log" >"$BASELINE/$name.tmp"
		mv "$BASELINE/$name.tmp" "$BASELINE/$name.txt"
	fi
	cp "$BASELINE/$name.txt" "$out"
}

# compare NAME LOG BASELINE_FILE: count NAME as passed if LOG has no
# warning that the baseline lacks.
compare() {
	local name=$1 log=$2 base=$3 new
	new=$(comm -13 "$base" <(normalize <"$log"))
	if [ -n "$new" ]; then
		printf '%s\n' "$new" | sed 's/^/    new: /' | head -n 30
		result FAIL "$name" "new warnings, log: $log"
		return 1
	fi
	result PASS "$name"
}

# lint_step NAME CMD...: run CMD on the series tree, then on the base tree
# (baseline; after the series, whose objects it may reuse). LAZY=1: a
# step whose run on the series reports nothing needs no baseline.
lint_step() {
	local name=$1 log=$LOGDIR/lint-$1.log
	shift
	if ! run_step "lint: $name" "$log" "$@" "$KSRC"; then
		result FAIL "lint $name" "build failed, log: $log"
		return 1
	fi
	if [ "${LAZY:-0}" = 1 ] && [ ! -f "$BASELINE/$name.txt" ] && [ -z "$(normalize <"$log")" ]; then
		say "lint: $name reports nothing on the series: no baseline of the base needed"
		: >"$LOGDIR/lint-$name.base"
	elif ! baseline "$name" "$LOGDIR/lint-$name.base" "$@"; then
		result FAIL "lint $name" "the base does not build, log: $BASELINE/$name.log"
		return 1
	fi
	compare "lint $name" "$log" "$LOGDIR/lint-$name.base"
}

arm64_step() { build_warnings "$1" kmake_arm64 "$LINT_DIR" "$TOP/configs/arm64-coresight.config"; }
arm32_step() { build_warnings "$1" kmake_arm32 "$ARM32_DIR" "$TOP/configs/arm32-coresight.config"; }

# checkpatch_one PATCH: checkpatch --strict, run once; its CamelCase
# checks pass only for names that a system library header declares (zstd's
# ZSTD_decompressStream, say), which a patch cannot rename. Prints every
# other message (and each such name) and fails on any.
checkpatch_one() {
	local out rc
	# Debian's python3 (with python3-ply) for the SPDX check
	out=$(cd "$KSRC" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict -q --show-types "$1" 2>&1)
	rc=$?
	[ "$rc" -ne 0 ] || return 0
	python3 -c '
import re, subprocess, sys
blocks = [b.strip() for b in re.split(r"\n\s*\n", sys.argv[1]) if b.strip()]
bad = []
for b in blocks:
    if b.startswith(("total:", "NOTE:")):
        continue
    m = re.match(r"(?:CHECK|WARNING|ERROR):CAMELCASE: Avoid CamelCase: <(\w+)>", b)
    if m and subprocess.run(["grep", "-rqw", "--", m[1], "/usr/include"]).returncode == 0:
        continue
    bad.append(b + ("\n(not a name of a system header)" if m else ""))
if bad or not blocks:
    print("\n\n".join(bad) if blocks else sys.argv[1])
sys.exit(1 if bad or not blocks else 0)
' "$out"
}

# checkpatch_all: checkpatch_one on every patch, one perl run a core (each
# is single-threaded), the results in the order of the series
checkpatch_all() {
	local p dir=$LOGDIR/checkpatch patches
	mapfile -t patches < <(bash "$TOP/scripts/series.sh" list)
	if [ ${#patches[@]} -eq 0 ]; then
		say "checkpatch: no patches"
		return
	fi
	rm -rf "$dir" && mkdir -p "$dir" || return
	export -f checkpatch_one
	export KSRC
	printf '%s\n' "${patches[@]}" | xargs -d '\n' -P "$JOBS" -I{} bash -c \
		'log=$2/$(basename "$1"); checkpatch_one "$1" >"$log.log" 2>&1; echo $? >"$log.rc"' \
		_ {} "$dir"
	for p in "${patches[@]}"; do
		if [ "$(cat "$dir/$(basename "$p").rc" 2>/dev/null)" = 0 ]; then
			result PASS "checkpatch $(basename "$p")"
		else
			sed 's/^/    /' "$dir/$(basename "$p").log" 2>/dev/null | head -n 30
			result FAIL "checkpatch $(basename "$p")"
		fi
	done
}

kdoc_step() {
	local files
	mapfile -t files < <(touched_files '*.c' '*.h')
	if [ ${#files[@]} -eq 0 ]; then
		result PASS "lint kernel-doc (no touched files)"
		return
	fi
	make_base_tree
	if ! kdoc_warnings "$BASE_TREE" "${files[@]}" >"$LOGDIR/lint-kdoc-base.log" ||
	   ! kdoc_warnings "$KSRC" "${files[@]}" >"$LOGDIR/lint-kdoc.log"; then
		result FAIL "lint kernel-doc" "kernel-doc failed, logs: $LOGDIR/lint-kdoc*.log"
		return 1
	fi
	normalize <"$LOGDIR/lint-kdoc-base.log" >"$LOGDIR/lint-kdoc.base"
	compare "lint kernel-doc (${#files[@]} files)" "$LOGDIR/lint-kdoc.log" "$LOGDIR/lint-kdoc.base"
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(checkpatch arm64 arm32 cocci kdoc)
for s in "${steps[@]}"; do
	case "$s" in
	checkpatch) need_tools "checkpatch" perl:perl && checkpatch_all ;;
	arm64) need_tools "lint arm64-W1-sparse" sparse:sparse \
		aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu &&
		SEED=$LINT_DIR lint_step arm64-W1-sparse arm64_step ;;
	arm32) need_tools "lint arm32-W1-sparse" sparse:sparse \
		arm-linux-gnueabihf-gcc:gcc-arm-linux-gnueabihf &&
		SEED=$ARM32_DIR lint_step arm32-W1-sparse arm32_step ;;
	cocci) need_tools "lint coccicheck" spatch:coccinelle ocamlopt:ocaml-nox && LAZY=1 lint_step coccicheck cocci_warnings ;;
	kdoc) need_tools "lint kernel-doc" perl:perl "$KSRC/scripts/kernel-doc:linux-source-6.1" &&
		kdoc_step ;;
	*) die "unknown lint step $s" ;;
	esac
done
exit "$FAILED"
