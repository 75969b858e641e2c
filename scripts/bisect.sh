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
# - perf when the patch changes tools/ or a uapi header.
# Documentation and MAINTAINERS build nothing. The configurations are made
# once, and again after a patch that changes a Kconfig file.
#
# Usage: bisect.sh [REV]   the patches after REV (default: all, from base)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/bisect-tree
ODIR=.build-bisect-arm64
ADIR=.build-bisect-arm32
CS=drivers/hwtracing/coresight
ARM64_ONLY="^$CS/coresight-(etm4x|trbe)"

if [ ! -e "$TREE/.git" ]; then
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$TREE" base || exit 1
fi

# configure MAKEFN ODIR FRAGMENT: allnoconfig plus FRAGMENT, when ODIR has
# no configuration, FRAGMENT changed, or the patch changed a Kconfig file
configure() {
	local KSRC=$TREE
	if [ "$TREE/$2/.config" -nt "$3" ] && ! grep -q 'Kconfig' <<<"$files"; then
		return 0
	fi
	"$1" O="$2" KCONFIG_ALLCONFIG="$3" allnoconfig
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
	configure kmake_arm64 "$ODIR" "$TOP/configs/arm64-coresight-modules.config" &&
		with_build_lock kmake_arm64 O="$ODIR" "${targets[@]}"
}

build_arm32() {
	local KSRC=$TREE targets
	mapfile -t targets < <(dirs "$ADIR")
	[ ${#targets[@]} -gt 0 ] || targets=("$CS/")
	echo "arm: ${targets[*]}"
	configure kmake_arm32 "$ADIR" "$TOP/configs/arm32-coresight.config" &&
		with_build_lock kmake_arm32 O="$ADIR" "${targets[@]}"
}

build_perf() {
	CSID_RESULTS=/dev/null bash "$TOP/scripts/perf.sh" "$TREE" "$BUILD/perf-bisect" "perf-bisect-$i"
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
	say "$name: built ${built[*]:-nothing} in $(($(date +%s) - start)) s"
	if [ "$ok" = 1 ]; then
		result PASS "$name"
	else
		result FAIL "$name" "logs: $LOGDIR/bisect-$i-*"
	fi
done
exit "$FAILED"
