#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bisect check: build after every patch of the series, incrementally, only
# what the patch touches:
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
# Two streams walk the series side by side, each in a worktree of its own:
# the kernel builds (build/bisect-tree) and the perf builds
# (build/bisect-tools-tree). Each leaves a core idle much of its time (a
# link, modpost, make reading its dependencies): side by side they fill
# each other's. The kernel builds still take the build lock (one kernel
# build at a time); the perf stream takes a lock of its own. The results
# are counted per patch, in series order, once both streams are done.
#
# The builds start from the object directories that make test's steps left
# in build/linux at the tip of the series (seeding): the board's guest
# kernel for arm64 (the bisect's configuration is the board's plus
# CoreSight as modules and the KUnit suites, so that only what those
# options change is built again), the 32-bit arm W=1 objects of lint (the
# bisect builds them with W=1 too: the same commands), the host perf and
# the arm64 perf. Each worktree is checked out at the tip with
# build/linux's file times (sync_times), so the copies are as up to date
# there as in build/linux; each patch then rebuilds what it changes against
# the tip. Without a seed (make bisect alone, or build/linux edited), a
# stream builds from scratch.
#
# Usage: bisect.sh [REV]   the patches after REV (default: all, from base)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

KTREE=$BUILD/bisect-tree
PTREE=$BUILD/bisect-tools-tree
ODIR=.build-bisect-arm64
ADIR=.build-bisect-arm32
CS=drivers/hwtracing/coresight
ARM64_ONLY="^$CS/coresight-(etm4x|trbe)"
PERF_LOCK=/tmp/csid-build-perf.lock

PERF_OUT=$BUILD/perf-bisect
PERF_ARM64_OUT=$BUILD/perf-bisect-arm64
STATUS=$LOGDIR/bisect-status
# the arm64 configuration: the board's guest kernel's, CoreSight as modules
ARM64_CONFIG=$BUILD/bisect-arm64.config
cat "$TOP/configs/arm64-board.config" "$TOP/configs/arm64-coresight-modules.config" \
	>"$ARM64_CONFIG.tmp" || exit 1
cmp -s "$ARM64_CONFIG.tmp" "$ARM64_CONFIG" && rm "$ARM64_CONFIG.tmp" ||
	mv "$ARM64_CONFIG.tmp" "$ARM64_CONFIG"

for t in "$KTREE" "$PTREE"; do
	[ -e "$t/.git" ] && continue
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$t" HEAD || exit 1
done

# copy_perf_odir FROM TO: perf's build records absolute paths (its
# commands, its dependency lists): a copy of FROM, built in build/linux,
# gets them rewritten to the tools worktree's and to TO, with their times
# kept
copy_perf_odir() {
	[ -x "$1/perf" ] || return 1
	rm -rf "$2" && cp -a "$1" "$2" || return
	python3 - "$2" "$KSRC/" "$PTREE/" "$1" "$2" <<'PY'
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

# seed: the worktrees at build/linux's HEAD with its file times, and
# copies of its object directories; each patch's build is then incremental
checkout_tip() {
	git -C "$1" checkout -q -f --detach "$(git -C "$KSRC" rev-parse HEAD)" &&
		sync_times "$1"
}
seed() {
	checkout_tip "$KTREE" && checkout_tip "$PTREE" || return
	if seed_odir "$KTREE" .build-board "$ODIR"; then
		echo "arm64: from build/linux's .build-board"
	else
		rm -rf "${KTREE:?}/$ODIR"
	fi
	if seed_odir "$KTREE" "$ARM32_DIR" "$ADIR"; then
		echo "arm: from build/linux's $ARM32_DIR"
	else
		rm -rf "${KTREE:?}/$ADIR"
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
run_step "bisect: seed the worktrees from build/linux's builds" "$LOGDIR/bisect-seed.log" seed ||
	die "cannot check out $KTREE and $PTREE"
sed 's/^/    /' "$LOGDIR/bisect-seed.log"

# configure MAKEFN ODIR FRAGMENT: allnoconfig plus FRAGMENT, at the first
# build of ODIR in this run, and after a patch that changed a Kconfig file
# (a seeded directory holds the configuration it was copied with: each
# directory is configured once per run)
declare -A configured=()
configure() {
	local KSRC=$KTREE
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
			git -C "$KTREE" grep -l "#include <${f#include/}>" -- '*.c' '*.h' ':!tools'
			;;
		*) echo "$f" ;;
		esac
	done <<<"$kfiles" | sed 's#/[^/]*$#/#' | sort -u | while read -r d; do
		[ ! -d "$KTREE/$1/$d" ] || echo "$d"
	done
}

# The first patch of a run builds vmlinux too: the tree's vmlinux may be of
# another commit (the last run's), and modpost checks the modules against it.
vmlinux_ok=0
build_arm64() {
	local KSRC=$KTREE targets=(vmlinux modules)
	# a here-string, not a pipe: grep -q closing early must not fail pipefail
	if [ "$vmlinux_ok" = 1 ] && ! grep -qv "^$CS/" <<<"$(dirs "$ODIR")"; then
		targets=(modules)
	fi
	echo "arm64: ${targets[*]}"
	configure kmake_arm64 "$ODIR" "$ARM64_CONFIG" &&
		with_build_lock kmake_arm64 O="$ODIR" "${targets[@]}"
}

build_arm32() {
	local KSRC=$KTREE targets
	mapfile -t targets < <(dirs "$ADIR")
	[ ${#targets[@]} -gt 0 ] || targets=("$CS/")
	echo "arm: ${targets[*]}"
	# W=1 as lint builds them (lint's objects seed this directory)
	configure kmake_arm32 "$ADIR" "$TOP/configs/arm32-coresight.config" &&
		with_build_lock kmake_arm32 O="$ADIR" W=1 "${targets[@]}"
}

# the perf stream's lock: beside the kernel stream's builds, not after them
build_perf() {
	CSID_BUILD_LOCK=$PERF_LOCK CSID_RESULTS=/dev/null PERF_REUSE_FEATURES=1 \
		bash "$TOP/scripts/perf.sh" "$PTREE" "$PERF_OUT" "perf-bisect-$i"
}

build_perf_arm64() {
	CSID_BUILD_LOCK=$PERF_LOCK CSID_RESULTS=/dev/null PERF_REUSE_FEATURES=1 \
		bash "$TOP/scripts/perf-arm64.sh" "$PTREE" "$PERF_ARM64_OUT" "perf-arm64-bisect-$i"
}

# kernel_builds / tools_builds: what this stream builds after the patch
# whose changed files are $files (here-strings, not pipes: grep -q closing
# early must not fail pipefail)
kernel_builds() {
	[ -n "$kfiles" ] || return 0
	echo arm64
	grep -qv -E "$ARM64_ONLY" <<<"$(grep -E "^($CS/|include/linux/coresight)" <<<"$kfiles")" &&
		echo arm
	return 0
}
tools_builds() {
	grep -qE '^(tools/|include/uapi/|arch/[^/]+/include/uapi/)' <<<"$files" && echo perf
	grep -qE '^tools/(perf/arch/arm|.*\.h$)' <<<"$files" && echo perf-arm64
	return 0
}

# walk kernel|tools: build this stream's part of each patch, in order, in
# its worktree; one line per patch in $STATUS.STREAM: "I ok|fail SECONDS
# WHAT...". A failed build stops the stream's builds that depend on it at
# that patch (the arm build after a failed arm64 one), not the later
# patches'.
walk() {
	local stream=$1 tree c i start subject name b ok want built files kfiles
	trap 'on_signal SIGTERM 143' TERM
	tree=$KTREE
	[ "$stream" = kernel ] || tree=$PTREE
	: >"$STATUS.$stream"
	i=$first
	for c in $commits; do
		i=$((i + 1))
		files=$(git -C "$KSRC" diff-tree --no-commit-id --name-only -r "$c")
		kfiles=$(grep -v -E '^(tools/|Documentation/|MAINTAINERS$)' <<<"$files")
		mapfile -t want < <("${stream}_builds")
		if [ ${#want[@]} -eq 0 ]; then
			echo "$i ok 0" >>"$STATUS.$stream"
			continue
		fi
		start=$(date +%s)
		subject=$(git -C "$KSRC" log -1 --format=%s "$c")
		name="bisect $i/$total: $subject"
		git -C "$tree" checkout -q --detach "$c" || exit 1
		ok=ok built=()
		for b in "${want[@]}"; do
			built+=("$b")
			case "$b" in
			arm64)
				if run_step "$name: arm64" "$LOGDIR/bisect-$i-arm64.log" build_arm64; then
					vmlinux_ok=1
				else
					vmlinux_ok=0 ok=fail
					break
				fi
				;;
			arm) run_step "$name: arm" "$LOGDIR/bisect-$i-arm32.log" build_arm32 || ok=fail ;;
			perf)
				run_step "$name: perf" "$LOGDIR/bisect-$i-perf.log" build_perf || {
					ok=fail
					break
				}
				;;
			perf-arm64)
				run_step "$name: perf arm64" "$LOGDIR/bisect-$i-perf-arm64.log" \
					build_perf_arm64 || ok=fail
				;;
			esac
		done
		echo "$i $ok $(($(date +%s) - start)) ${built[*]}" >>"$STATUS.$stream"
	done
}

from=${1:-base}
commits=$(git -C "$KSRC" rev-list --reverse "$from..HEAD") || die "no revision $from in $KSRC"
total=$(git -C "$KSRC" rev-list --count base..HEAD)
first=$(git -C "$KSRC" rev-list --count "base..$from")

start_job walk kernel
kernel_job=$JOB
start_job walk tools
tools_job=$JOB
wait "$kernel_job"
wait "$tools_job"
BG_JOBS=()

# one result per patch, in series order: both streams' builds of it passed
i=$first
for c in $commits; do
	i=$((i + 1))
	name="bisect $i/$total: $(git -C "$KSRC" log -1 --format=%s "$c")"
	k=$(grep "^$i " "$STATUS.kernel") t=$(grep "^$i " "$STATUS.tools")
	read -r _ kok ksec kbuilt <<<"$k"
	read -r _ tok tsec tbuilt <<<"$t"
	what="${kbuilt:+$kbuilt in $ksec s}${kbuilt:+${tbuilt:+, }}${tbuilt:+$tbuilt in $tsec s}"
	say "$name: built ${what:-nothing}"
	if [ "$kok" = ok ] && [ "$tok" = ok ]; then
		result PASS "$name"
	else
		result FAIL "$name" "logs: $LOGDIR/bisect-$i-*"
	fi
done
exit "$FAILED"
