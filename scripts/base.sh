#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make the base kernel tree: Debian's linux-source-6.1 committed once into a
# cached git repository (per package version), cloned into build/linux.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

V=$(base_version)
[ -n "$V" ] || die "linux-source-6.1 is not installed: apt-get install -y linux-source-6.1"
TARBALL=/usr/src/linux-source-6.1.tar.xz
REPO=$CACHE/base-$V.git

# A subshell with -e: any failed step stops it before csid-version is
# written, so a broken repository is never taken for a finished one.
make_base_repo() (
	set -e
	local unpack=$CACHE/unpack-$V
	rm -rf "$REPO" "$unpack"
	mkdir -p "$unpack"
	tar -xJf "$TARBALL" -C "$unpack" --strip-components=1
	git init -q --bare "$REPO"
	git --git-dir="$REPO" config gc.auto 0
	# The tarball's own .gitignore would hide files from "git add": force
	# it, the tarball holds nothing but source.
	git --git-dir="$REPO" --work-tree="$unpack" add -f -A .
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
	GIT_AUTHOR_NAME="Debian linux-source-6.1" GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org" \
	GIT_COMMITTER_NAME="Debian linux-source-6.1" GIT_COMMITTER_EMAIL="debian-kernel@lists.debian.org" \
		git --git-dir="$REPO" --work-tree="$unpack" commit -q \
		-m "Linux $(make -s -C "$unpack" kernelversion) from Debian linux-source-6.1 $V"
	git --git-dir="$REPO" branch -M base
	# no repack: its delta search over 75,000 objects took minutes on
	# two cores, and clones share the loose objects (git clone --shared)
	rm -rf "$unpack"
	echo "$V" >"$REPO/csid-version"
)

# Two runs at once (several build dirs on one machine) must not both build
# the cached repository: the second waits for the first, then uses it.
exec 8>"$CACHE/base-$V.lock"
flock 8
if [ ! -f "$REPO/csid-version" ]; then
	run_step "base: commit linux-source-6.1 $V (once per version)" \
		"$LOGDIR/base.log" make_base_repo || exit 1
fi
flock -u 8
say "base: Debian linux-source-6.1 $V, $(git --git-dir="$REPO" log -1 --format=%s base)"

if [ -d "$KSRC/.git" ] && [ "$(cat "$KSRC/.git/csid-version" 2>/dev/null)" != "$V" ]; then
	die "$KSRC is based on another linux-source version; move it away (rm -rf $KSRC) to start over"
fi
# Debian's top-level .gitignore ends with "/*", which hides every new file
# from "git status" and "git add -A". Drop that rule in the work tree only;
# skip-worktree keeps the edit out of every commit.
unhide_new_files() {
	sed -i -e '\#^/\*$#d' -e '\#^!/debian/$#d' "$KSRC/.gitignore"
	git -C "$KSRC" update-index --skip-worktree .gitignore
}

if [ ! -d "$KSRC/.git" ]; then
	clone_tree() {
		git clone -q --shared --branch base "$REPO" "$KSRC"
		git -C "$KSRC" tag base
		git -C "$KSRC" checkout -q -b series
		git -C "$KSRC" branch -q -D base
		unhide_new_files
		echo "$V" >"$KSRC/.git/csid-version"
	}
	run_step "base: check out build/linux" "$LOGDIR/clone.log" clone_tree || exit 1
fi
