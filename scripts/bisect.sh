#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bisect check: build after every patch of the series, incrementally, in a
# worktree of its own, only what the patch touches:
# - arm64 (CoreSight as modules, so that missing exports show): the modules
#   (the CoreSight objects and the modpost link against vmlinux) when the
#   patch only changes CoreSight; vmlinux and the modules when it changes
#   any other kernel file or a header that other kernel code includes;
# - 32-bit arm (the only build of the ETMv3/PTM driver): the touched
#   directories, when the patch changes CoreSight code that is not
#   arm64-only (etm4x, TRBE);
# - perf when the patch changes tools/ or a uapi header, with the host's
#   features as the host perf build detected them (PERF_REUSE_FEATURES);
# - the static arm64 perf of the board when the patch changes perf's arm
#   code (tools/perf/arch/arm*, which only an arm perf compiles: the
#   recording side of cs_etm) or a header under tools/ that it may include.
# Documentation and MAINTAINERS build nothing. The configurations are made
# once, and again after a patch that changes a Kconfig file.
#
# The builds start from the object directories that make test's steps left
# in build/linux at the tip of the series (seeding): the board's guest
# kernel for arm64 (the bisect's configuration is the board's plus
# CoreSight as modules and the KUnit suites, so that only what those
# options change is built again), the 32-bit arm W=1 objects of lint (the
# bisect builds them with W=1 too: the same commands), and the host perf.
# The worktree is checked out at the tip with build/linux's file times
# (sync_times), so the copies are as up to date there as in build/linux;
# each patch then rebuilds what it changes against the tip. Without a seed
# (make bisect alone, or build/linux edited), it builds from scratch.
#
# Usage: bisect.sh [REV]   the patches after REV (default: all, from base)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/bisect-tree
ODIR=.build-bisect-arm64
ADIR=.build-bisect-arm32
CS=drivers/hwtracing/coresight
ARM64_ONLY="^$CS/coresight-(etm4x|trbe)"

PERF_OUT=$BUILD/perf-bisect
PERF_ARM64_OUT=$BUILD/perf-bisect-arm64
# the arm64 configuration: the board's guest kernel's, CoreSight as modules
ARM64_CONFIG=$BUILD/bisect-arm64.config
cat "$TOP/configs/arm64-board.config" "$TOP/configs/arm64-coresight-modules.config" \
	>"$ARM64_CONFIG.tmp" || exit 1
cmp -s "$ARM64_CONFIG.tmp" "$ARM64_CONFIG" && rm "$ARM64_CONFIG.tmp" ||
	mv "$ARM64_CONFIG.tmp" "$ARM64_CONFIG"

if [ ! -e "$TREE/.git" ]; then
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$TREE" HEAD || exit 1
fi

# copy_perf_odir FROM TO: perf's build records absolute paths (its
# commands, its dependency lists): a copy of FROM, built in build/linux,
# gets them rewritten to the worktree's and to TO, with their times kept
copy_perf_odir() {
	[ -x "$1/perf" ] || return 1
	rm -rf "$2" && cp -a "$1" "$2" || return
	python3 - "$2" "$KSRC/" "$TREE/" "$1" "$2" <<'PY'
import os, sys
top, pairs = sys.argv[1], [(a.encode(), b.encode()) for a, b in
                            ((sys.argv[2], sys.argv[3]), (sys.argv[4], sys.argv[5]))]
for root, dirs, files in os.walk(top):
    for f in files:
        p = os.path.join(root, f)
        if os.path.islink(p):
            continue
        with open(p, "rb") as fh:
            data = fh.read()
        if b"\0" in data[:8192] or not any(a in data for a, _ in pairs):
            continue
        st = os.stat(p)
        for a, b in pairs:
            data = data.replace(a, b)
        with open(p, "wb") as fh:
            fh.write(data)
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
PY
}

# seed: the worktree at build/linux's HEAD with its file times, and copies
# of its object directories; each patch's build is then incremental
seed() {
	local tip
	tip=$(git -C "$KSRC" rev-parse HEAD) &&
		git -C "$TREE" checkout -q -f --detach "$tip" &&
		sync_times "$TREE" || return
	if seed_odir "$TREE" .build-board "$ODIR"; then
		echo "arm64: from build/linux's $(basename .build-board)"
	else
		rm -rf "${TREE:?}/$ODIR"
	fi
	if seed_odir "$TREE" "$ARM32_DIR" "$ADIR"; then
		echo "arm: from build/linux's $ARM32_DIR"
	else
		rm -rf "${TREE:?}/$ADIR"
	fi
	if copy_perf_odir "$PERF_DIR" "$PERF_OUT"; then
		echo "perf: from $PERF_DIR"
	else
		rm -rf "$PERF_OUT"
	fi
	if copy_perf_odir "$BUILD/perf-arm64" "$PERF_ARM64_OUT"; then
		echo "perf arm64: from $BUILD/perf-arm64"
	else
		rm -rf "$PERF_ARM64_OUT"
	fi
}
run_step "bisect: seed the worktree from build/linux's builds" "$LOGDIR/bisect-seed.log" seed ||
	die "cannot check out $TREE"
sed 's/^/    /' "$LOGDIR/bisect-seed.log"

# configure MAKEFN ODIR FRAGMENT: allnoconfig plus FRAGMENT, at the first
# build of ODIR in this run, and after a patch that changed a Kconfig file
# (a seeded directory holds the configuration it was copied with: each
# directory is configured once per run)
declare -A configured=()
configure() {
	local KSRC=$TREE
	if [ -n "${configured[$2]:-}" ] && ! grep -q 'Kconfig' <<<"$files"; then
		return 0
	fi
	"$1" O="$2" KCONFIG_ALLCONFIG="$3" allnoconfig && configured[$2]=1
}

# dirs ODIR: the kernel directories to build after this patch, of those that
# the configuration of ODIR builds: the touched ones, and for a header under
# include/ those of its includers
dirs() {
	local f d
	while read -r f; do
		case "$f" in
		include/*.h)
			git -C "$TREE" grep -l "#include <${f#include/}>" -- '*.c' '*.h' ':!tools'
			;;
		*) echo "$f" ;;
		esac
	done <<<"$kfiles" | sed 's#/[^/]*$#/#' | sort -u | while read -r d; do
		[ ! -d "$TREE/$1/$d" ] || echo "$d"
	done
}

# The first patch of a run builds vmlinux too: the tree's vmlinux may be of
# another commit (the last run's), and modpost checks the modules against it.
vmlinux_ok=0
build_arm64() {
	local KSRC=$TREE targets=(vmlinux modules)
	# a here-string, not a pipe: grep -q closing early must not fail pipefail
	if [ "$vmlinux_ok" = 1 ] && ! grep -qv "^$CS/" <<<"$(dirs "$ODIR")"; then
		targets=(modules)
	fi
	echo "arm64: ${targets[*]}"
	configure kmake_arm64 "$ODIR" "$ARM64_CONFIG" &&
		with_build_lock kmake_arm64 O="$ODIR" "${targets[@]}"
}

build_arm32() {
	local KSRC=$TREE targets
	mapfile -t targets < <(dirs "$ADIR")
	[ ${#targets[@]} -gt 0 ] || targets=("$CS/")
	echo "arm: ${targets[*]}"
	# W=1 as lint builds them (lint's objects seed this directory)
	configure kmake_arm32 "$ADIR" "$TOP/configs/arm32-coresight.config" &&
		with_build_lock kmake_arm32 O="$ADIR" W=1 "${targets[@]}"
}

build_perf() {
	CSID_RESULTS=/dev/null PERF_REUSE_FEATURES=1 \
		bash "$TOP/scripts/perf.sh" "$TREE" "$PERF_OUT" "perf-bisect-$i"
}

build_perf_arm64() {
	CSID_RESULTS=/dev/null PERF_REUSE_FEATURES=1 \
		bash "$TOP/scripts/perf-arm64.sh" "$TREE" "$PERF_ARM64_OUT" "perf-arm64-bisect-$i"
}

from=${1:-base}
commits=$(git -C "$KSRC" rev-list --reverse "$from..HEAD") || die "no revision $from in $KSRC"
total=$(git -C "$KSRC" rev-list --count base..HEAD)
i=$(git -C "$KSRC" rev-list --count "base..$from")
for c in $commits; do
	i=$((i + 1))
	start=$(date +%s)
	subject=$(git -C "$KSRC" log -1 --format=%s "$c")
	git -C "$TREE" checkout -q --detach "$c" || exit 1
	files=$(git -C "$TREE" diff-tree --no-commit-id --name-only -r "$c")
	kfiles=$(grep -v -E '^(tools/|Documentation/|MAINTAINERS$)' <<<"$files")
	name="bisect $i/$total: $subject"
	built=() ok=1
	# here-strings, not pipes: grep -q closing early must not fail pipefail
	if [ -n "$kfiles" ]; then
		built+=(arm64)
		if run_step "$name: arm64" "$LOGDIR/bisect-$i-arm64.log" build_arm64; then
			vmlinux_ok=1
		else
			vmlinux_ok=0 ok=0
		fi
		if [ "$ok" = 1 ] && grep -qv -E "$ARM64_ONLY" \
			<<<"$(grep -E "^($CS/|include/linux/coresight)" <<<"$kfiles")"; then
			built+=(arm)
			run_step "$name: arm" "$LOGDIR/bisect-$i-arm32.log" build_arm32 || ok=0
		fi
	fi
	if [ "$ok" = 1 ] && grep -qE '^(tools/|include/uapi/|arch/[^/]+/include/uapi/)' <<<"$files"; then
		built+=(perf)
		run_step "$name: perf" "$LOGDIR/bisect-$i-perf.log" build_perf || ok=0
	fi
	if [ "$ok" = 1 ] && grep -qE '^tools/(perf/arch/arm|.*\.h$)' <<<"$files"; then
		built+=(perf-arm64)
		run_step "$name: perf arm64" "$LOGDIR/bisect-$i-perf-arm64.log" build_perf_arm64 || ok=0
	fi
	say "$name: built ${built[*]:-nothing} in $(($(date +%s) - start)) s"
	if [ "$ok" = 1 ]; then
		result PASS "$name"
	else
		result FAIL "$name" "logs: $LOGDIR/bisect-$i-*"
	fi
done
exit "$FAILED"
