#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check the ETMv4 packet encoder and the frame formatter of cs-trace-enc.h
# (used by tools/csgen and tools/csboard) against OpenCSD, the reference
# decoder:
#
#   tools/cstrace/check-opencsd.sh [WORKDIR]
#
# enc-check encodes a fixed list of packets of four sources (trace IDs
# 0x01, 0x10, 0x2b, 0x6f), interleaves them through the formatter into
# trace.bin and prints the list it was asked to encode. A snapshot
# directory around trace.bin is decoded with trc_pkt_lister
# (libopencsd-bin); for every trace ID, the packets OpenCSD finds must be
# exactly those of the list, in order, with nothing else (no other ID, no
# bad or unsynchronised packet).
#
# Prints "PASS name" or "FAIL name: detail" per check, then
# "N passed, N failed"; exits non-zero if a check failed.

set -u

here=$(cd "$(dirname "$0")" && pwd)
work=${1:-$(mktemp -d /tmp/csopencsd.XXXXXX)}
ss=$work/snapshot
mkdir -p "$ss"

npass=0
nfail=0
pass() { echo "PASS $1"; npass=$((npass + 1)); }
fail() { echo "FAIL $1: $2"; nfail=$((nfail + 1)); }
finish() { echo "$npass passed, $nfail failed"; [ "$nfail" = 0 ]; exit; }

IDS="0x01 0x10 0x2b 0x6f"

if ! command -v "${CC:-cc}" >/dev/null; then
	fail build_enc_check "no C compiler: apt-get install gcc"
	finish
fi
if ! command -v trc_pkt_lister >/dev/null; then
	fail opencsd_decode "trc_pkt_lister not found: apt-get install libopencsd-bin"
	finish
fi

if ! "${CC:-cc}" -O2 -Wall -Wextra -Wno-missing-field-initializers -Werror \
	-I"$here" -o "$work/enc-check" "$here/enc-check.c" >"$work/build.log" 2>&1; then
	fail build_enc_check "$(tail -3 "$work/build.log")"
	finish
fi
pass build_enc_check

rm -f "$ss"/*
if ! "$work/enc-check" "$ss" >"$work/expected.txt" 2>"$work/enc-check.err"; then
	fail encode "$(tail -1 "$work/enc-check.err")"
	finish
fi

# The snapshot: a core and an ETMv4 per source (the ID registers csgen
# and csboard give perf: ETMv4.0, 64-bit addresses, 32-bit CONTEXTID), all
# into one formatted buffer
{
	printf '[snapshot]\nversion=1.0\ndescription=cs-trace-enc.h check\n\n'
	printf '[device_list]\n'
	n=0
	for id in $IDS; do
		printf 'device%d=cpu_%d.ini\ndevice%d=etm_%d.ini\n' \
			$((2 * n)) $n $((2 * n + 1)) $n
		n=$((n + 1))
	done
	printf '\n[trace]\nmetadata=trace.ini\n'
} >"$ss/snapshot.ini"
{
	printf '[trace_buffers]\nbuffers=buffer0\n\n'
	printf '[buffer0]\nname=ETB_0\nfile=trace.bin\nformat=coresight\n\n'
	printf '[source_buffers]\n'
	n=0
	for id in $IDS; do printf 'ETM_%d=ETB_0\n' $n; n=$((n + 1)); done
	printf '\n[core_trace_sources]\n'
	n=0
	for id in $IDS; do printf 'cpu_%d=ETM_%d\n' $n $n; n=$((n + 1)); done
} >"$ss/trace.ini"
n=0
for id in $IDS; do
	printf '[device]\nname=cpu_%d\nclass=core\ntype=Cortex-A57\n\n[regs]\nPC(size:64)=0\n' \
		$n >"$ss/cpu_$n.ini"
	cat >"$ss/etm_$n.ini" <<-EOF
	[device]
	name=ETM_$n
	class=trace_source
	type=ETM4

	[regs]
	TRCCONFIGR(0x004)=0x00000001
	TRCTRACEIDR(0x010)=$id
	TRCAUTHSTATUS(0xFB8)=0x000000cc
	TRCIDR0(0x1E0)=0x28000ea1
	TRCIDR1(0x1E4)=0x4100f403
	TRCIDR2(0x1E8)=0x00000488
	TRCIDR8(0x180)=0x00000000
	TRCIDR9(0x184)=0x00000000
	TRCIDR10(0x188)=0x00000000
	TRCIDR11(0x18C)=0x00000000
	TRCIDR12(0x190)=0x00000000
	TRCIDR13(0x194)=0x00000000
	EOF
	n=$((n + 1))
done

# (in $work: it also writes trc_pkt_lister.ppl in the current directory)
(cd "$work" && timeout -s KILL 60 trc_pkt_lister -ss_dir "$ss" -logstdout) >"$work/opencsd.txt" 2>&1
rc=$?
if [ $rc != 0 ] || ! grep -q 'Trace buffer done' "$work/opencsd.txt"; then
	fail opencsd_decode "trc_pkt_lister exit $rc: $(grep -m1 -i 'err' "$work/opencsd.txt" || tail -1 "$work/opencsd.txt")"
	finish
fi
pass opencsd_decode

# OpenCSD's packet lines in the form of enc-check's list; any packet the
# encoder does not write becomes "OTHER <type>" and cannot match
awk '
function num(s) { s = tolower(s); sub(/^0x0*/, "", s); return "0x" (s == "" ? "0" : s) }
/^Idx:[0-9]+; ID:[0-9a-fA-F]+;/ {
	split($2, a, ":"); id = a[2]; sub(/;.*/, "", id)
	line = $0; sub(/^[^\t]*\t/, "", line)
	type = line; sub(/ .*/, "", type)
	if (type == "I_ASYNC")
		out = "ASYNC"
	else if (type == "I_TRACE_INFO")
		out = "TRACE_INFO"
	else if (type == "I_TIMESTAMP" && match(line, /Updated val = 0x[0-9a-fA-F]+/))
		out = "TIMESTAMP " num(substr(line, RSTART + 14, RLENGTH - 14))
	else if (type == "I_ADDR_L_64IS0" && match(line, /Addr=0x[0-9a-fA-F]+/))
		out = "ADDR_LONG " num(substr(line, RSTART + 5, RLENGTH - 5))
	else if (type == "I_ADDR_CTXT_L_64IS0" && match(line, /Addr=0x[0-9a-fA-F]+/)) {
		out = "ADDR_CTXT " num(substr(line, RSTART + 5, RLENGTH - 5))
		if (match(line, /Ctxt: [^;]*;/)) {
			c = substr(line, RSTART + 6, RLENGTH - 7); gsub(/[, ]+/, " ", c)
			out = out " " c
		}
		if (match(line, /CID=0x[0-9a-fA-F]+/))
			out = out " CID " num(substr(line, RSTART + 4, RLENGTH - 4))
	} else if (type == "I_ATOM_F1" && match(line, /; [EN]+$/))
		out = "ATOM " substr(line, RSTART + 2)
	else
		out = "OTHER " type
	print "ID " num(id) " " out
}' "$work/opencsd.txt" >"$work/decoded.txt"

# per trace ID, in order
for id in $IDS; do
	key="ID $(printf '0x%x' "$id") "
	grep -F "$key" "$work/expected.txt" >"$work/expected.$id"
	grep -F "$key" "$work/decoded.txt" >"$work/decoded.$id"
	if [ ! -s "$work/expected.$id" ]; then
		fail "opencsd_id_$id" "enc-check listed no packet for this ID"
	elif cmp -s "$work/expected.$id" "$work/decoded.$id"; then
		pass "opencsd_id_$id"
	else
		fail "opencsd_id_$id" "$(diff "$work/expected.$id" "$work/decoded.$id" |
			grep -m2 '^[<>]' | tr '\n' ' ')(expected < OpenCSD >, $(wc -l <"$work/expected.$id") packets listed)"
	fi
done

# nothing else: no packet of another ID
other=$(grep -v -F -f <(for id in $IDS; do printf 'ID 0x%x \n' "$id"; done) "$work/decoded.txt")
if [ -n "$other" ]; then
	fail opencsd_no_other_ids "$(echo "$other" | head -1)"
else
	pass opencsd_no_other_ids
fi
finish
