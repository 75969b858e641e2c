#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bisect check: build after every patch of the series, incrementally, in a
# worktree of its own. A patch that changes the kernel gets an arm64 build
# of vmlinux and modules (CoreSight as modules) and a 32-bit arm build of
# drivers/hwtracing/coresight; a patch that changes tools/ or a uapi header
# gets a perf build.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/bisect-tree
ODIR=.build-bisect-arm64
ADIR=.build-bisect-arm32

if [ ! -e "$TREE/.git" ]; then
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$TREE" base || exit 1
fi

build_kernel() {
	local KSRC=$TREE
	kmake_arm64 O=$ODIR KCONFIG_ALLCONFIG="$TOP/configs/arm64-coresight-modules.config" allnoconfig &&
		with_build_lock kmake_arm64 O=$ODIR vmlinux modules &&
		kmake_arm32 O=$ADIR KCONFIG_ALLCONFIG="$TOP/configs/arm32-coresight.config" allnoconfig &&
		with_build_lock kmake_arm32 O=$ADIR drivers/hwtracing/coresight/
}

i=0
commits=$(git -C "$KSRC" rev-list --reverse base..HEAD)
total=$(echo "$commits" | wc -w)
for c in $commits; do
	i=$((i + 1))
	subject=$(git -C "$KSRC" log -1 --format=%s "$c")
	git -C "$TREE" checkout -q --detach "$c" || exit 1
	files=$(git -C "$TREE" diff-tree --no-commit-id --name-only -r "$c")
	name="bisect $i/$total: $subject"
	ok=1
	# here-strings, not pipes: grep -q closing early must not fail pipefail
	if grep -qv '^tools/' <<<"$files"; then
		run_step "$name: kernel" "$LOGDIR/bisect-$i-kernel.log" build_kernel || ok=0
	fi
	if [ "$ok" = 1 ] && grep -qE '^(tools/|include/uapi/|arch/[^/]+/include/uapi/)' <<<"$files"; then
		CSID_RESULTS=/dev/null bash "$TOP/scripts/perf.sh" "$TREE" "$BUILD/perf-bisect" "perf-bisect-$i" \
			>"$LOGDIR/bisect-$i-perf.out" 2>&1 || ok=0
		[ "$ok" = 1 ] || tail -n 5 "$LOGDIR/bisect-$i-perf.out"
	fi
	if [ "$ok" = 1 ]; then
		result PASS "$name"
	else
		result FAIL "$name" "logs: $LOGDIR/bisect-$i-*"
	fi
done
exit "$FAILED"
