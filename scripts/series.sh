#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The patch queue: "apply" puts patches/ onto the base in build/linux,
# "export" turns the tree's commits since the base back into patches/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PATCHES=$TOP/patches
STATE=$KSRC/.git/csid-applied

# The series in order: patches/series if present, else the numbered files.
series_files() {
	if [ -f "$PATCHES/series" ]; then
		grep -v -e '^#' -e '^$' "$PATCHES/series" | sed "s|^|$PATCHES/|"
	else
		find "$PATCHES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
			! -name '0000-cover-letter.patch' | sort
	fi
}

patches_stamp() {
	series_files | xargs -r cat | sha1sum | cut -d' ' -f1
}

record_state() {
	printf '%s %s\n' "$(git -C "$KSRC" rev-parse HEAD)" "$(patches_stamp)" >"$STATE"
}

tree_is_clean() {
	[ -z "$(git -C "$KSRC" status --porcelain --untracked-files=no)" ]
}

apply() {
	local head stamp p
	head=$(git -C "$KSRC" rev-parse HEAD)
	stamp=$(patches_stamp)
	if [ -f "$STATE" ] && [ "$(cat "$STATE")" = "$head $stamp" ] && tree_is_clean; then
		say "series: build/linux already has patches/ applied ($(series_files | wc -l) patches)"
		return 0
	fi
	# Never throw away kernel work that is not in patches/ yet.
	if [ "${FORCE:-0}" != 1 ]; then
		if ! tree_is_clean; then
			die "build/linux has uncommitted edits; commit them and run 'make export', or rerun with FORCE=1 to discard them"
		fi
		if [ "$head" != "$(git -C "$KSRC" rev-parse base)" ] &&
		   { [ ! -f "$STATE" ] || [ "$(cut -d' ' -f1 "$STATE")" != "$head" ]; }; then
			die "build/linux has commits that are not exported; run 'make export' first, or rerun with FORCE=1 to discard them"
		fi
	fi
	git -C "$KSRC" am --abort >/dev/null 2>&1 || true
	git -C "$KSRC" checkout -q -f -B series base
	for p in $(series_files); do
		if ! git -C "$KSRC" am -q --whitespace=nowarn "$p" >"$LOGDIR/git-am.log" 2>&1; then
			git -C "$KSRC" am --abort >/dev/null 2>&1 || true
			sed 's/^/    /' "$LOGDIR/git-am.log" | tail -n 15
			die "series: $(basename "$p") does not apply on the base; the run stops here"
		fi
	done
	record_state
	say "series: applied $(series_files | wc -l) patches from patches/"
}

# Cover letter text: kept from the current 0000 patch, up to its shortlog.
cover_description() {
	local cover=$PATCHES/0000-cover-letter.patch
	if [ ! -f "$cover" ]; then
		printf 'coresight: per-sink trace ID maps\n\n*** describe the series ***\n'
		return
	fi
	python3 - "$cover" <<'PY'
import email, re, sys
msg = email.message_from_file(open(sys.argv[1]))
subject = " ".join(msg["Subject"].split())
subject = subject.split("] ", 1)[1] if subject.startswith("[") else subject
body = msg.get_payload()
# format-patch appends "Name (N):" shortlog lines and a diffstat.
lines = body.splitlines()
end = len(lines)
for i, l in enumerate(lines):
    if re.match(r"^\S.* \(\d+\):$", l):
        end = i
        break
print(subject)
print()
print("\n".join(lines[:end]).strip())
PY
}

export_series() {
	local n
	tree_is_clean || die "build/linux has uncommitted edits: commit them first"
	n=$(git -C "$KSRC" rev-list --count base..HEAD)
	[ "$n" -gt 0 ] || die "no commits on top of the base in build/linux"
	git -C "$KSRC" config branch.series.description "$(cover_description)"
	find "$PATCHES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
	rm -f "$PATCHES/series"
	git -C "$KSRC" format-patch -q --cover-letter --cover-from-description=subject \
		--zero-commit --no-signature -o "$PATCHES" base..HEAD
	record_state
	say "series: exported $n patches and the cover letter to patches/"
}

case "${1:-}" in
apply) apply ;;
list) series_files ;;
export) export_series ;;
*) die "usage: $0 apply|export|list" ;;
esac
