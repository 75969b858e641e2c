#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sysfs-check.sh DIR: checks, on the host, what the guest scenario
# tests/board/sysfs.sh wrote to DIR: the trace IDs sysfs showed
# (sysfs.facts: mgmt/trctraceid, and sim/default_id, which reads the ID a
# CPU holds without allocating one) and the sink's trace read through its
# read device (sysfs.bin), decoded by OpenCSD (trc_pkt_lister) with a
# decoder for every trace ID 0x01-0x6f. Each source's trace carries the PID of its marker
# thread as CONTEXTID (sysfs.stats names them), so the decode says which
# source wrote under which ID. Prints "PASS name" or "FAIL name<TAB>detail"
# per check; exits non-zero if one failed.
set -uo pipefail

dir=${1:?usage: sysfs-check.sh DIR}
facts=$dir/sysfs.facts
work=$dir/sysfs-decode
failed=0
pass() { echo "PASS sysfs: $1"; }
fail() { printf 'FAIL sysfs: %s\t%s\n' "$1" "$2"; failed=1; }
# The functions of both awk programs below: hex(), pass(), fail(), check()
AWK_LIB='function hex(s,   i, v) {
	v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
function pass(n) { print "PASS sysfs: " n }
function fail(n, d) { printf "FAIL sysfs: %s\t%s\n", n, d; failed = 1 }
function check(ok, n, d) { if (ok) pass(n); else fail(n, d) }
'

if ! grep -q '^done$' "$facts" 2>/dev/null || grep -q '^error' "$facts"; then
	fail "guest scenario: every enable, disable and reset written" \
		"$(grep -m1 '^error' "$facts" 2>/dev/null || echo "no complete $facts"); log: $dir/sysfs.log"
	exit 1
fi
pass "guest scenario: every enable, disable and reset written"

# ---- the IDs sysfs showed ----
# Phases: unread (default_id before any read), before (the first read of
# mgmt/trctraceid, which allocates), after_perf, offline, online, on (the
# file after each enable), off (default_id after each disable),
# reset_enabled (CPU 120's default_id after its reset while enabled),
# after (default_id once the sink was read), reset (default_id after the
# resets), then CPU 64: before_released, on, off, released_reset.
awk "$AWK_LIB"'
$1 == "cmd" { cmd[$2] = $3; next }
$1 != "id" { next }
{
	p = $2; c = $3; v = hex($4)
	if (p == "unread") { if (v) unread_bad = unread_bad " " c; next }
	if (p == "reset") { if (v) reset_bad = reset_bad " " c; next }
	if (p == "before_released") { rel_before = v; next }
	if (p == "released_reset") { rel_after = v; next }
	if (p == "on" && c == 64) { rel_id = v; next }
	if (p == "off" && c == 64) next
	if (p == "reset_enabled") { held_enabled = v; next }
	# CPU 120 was reset while enabled: its ID went back at its disable
	if (c == 120 && (p == "off" || p == "after")) { gone120 = gone120 " " v; next }
	if (p == "after_perf") nperf++
	if (p == "offline" || p == "online") nhot++
	# the ID held from the first read until reset
	if (!(c in id)) { id[c] = v; ncpu++; if (c >= 48) nhigh++ }
	else if (id[c] != v && !(c in changed)) { changed[c] = 1; nchanged++; firstchanged = firstchanged sprintf(" CPU %d %s: 0x%x then 0x%x;", c, p, id[c], v) }
	if (v < 1 || v > 111) invalid = invalid " " c
}
END {
	for (c in id) {
		if (id[c] in owner) { dup++; firstdup = firstdup sprintf(" 0x%x: CPUs %d and %d;", id[c], owner[id[c]], c) }
		else owner[id[c]] = c
		if (!lowest || id[c] < lowest) lowest = id[c]
		printf "%d 0x%x\n", c, id[c] >"/dev/fd/3"
	}
	check(unread_bad == "", "no CPU holds a sysfs ID before its ID file is read", "CPUs" unread_bad)
	check(ncpu > 48 && nhigh > 0, "more than 48 CPUs enabled, some from 48 on", ncpu " CPUs, " nhigh " from 48 on")
	check(nperf == 12 && nhot == 4 && cmd["perf"] == "0", "IDs read after a perf session and after an offline and online of their CPU", \
	      sprintf("%d reads after the perf session (exit %s), %d around the hotplug", nperf, cmd["perf"], nhot))
	check(invalid == "" && !nchanged, "each CPU keeps the ID its file first showed until its reset: across a perf session, CPU hotplug, enable and disable", \
	      "invalid:" invalid "; changed:" firstchanged)
	check(!dup, "no ID held by two sources of the sink at once", dup " IDs:" firstdup)
	check(cmd["reset_enabled"] == "0" && held_enabled == id[120] && gone120 == " 0 0", \
	      "reset of an enabled source succeeds; the source keeps its ID until its disable gives it back", \
	      sprintf("write exit %s; ID 0x%x, after the reset 0x%x, after the disable:%s", \
		      cmd["reset_enabled"], id[120], held_enabled, gone120))
	check(reset_bad == "", "reset gives the ID back (default_id reads 0)", "CPUs still with an ID:" reset_bad)
	check(!rel_before && rel_id == lowest && !rel_after, "a released ID is free again (CPU 64 takes the lowest)", \
	      sprintf("CPU 64: 0x%x before, 0x%x enabled (lowest held before the resets: 0x%x), 0x%x after its reset", \
		      rel_before, rel_id, lowest, rel_after))
	exit failed
}' "$facts" 3>"$dir/sysfs.ids" || failed=1

# ---- the sink's trace ----
read -r _ rc bytes < <(grep '^cmd read ' "$facts" | cut -d' ' -f2-)
if [ "${rc:-1}" != 0 ] || [ ! -s "$dir/sysfs.bin" ] || [ "$(stat -c %s "$dir/sysfs.bin")" != "${bytes:-}" ]; then
	fail "sink trace read through /dev/simsink2" "cat exit ${rc:-?}, ${bytes:-?} bytes in the guest, $(stat -c %s "$dir/sysfs.bin" 2>/dev/null) here"
	exit 1
fi
pass "sink trace read through /dev/simsink2 ($bytes bytes)"

rm -rf "$work"
mkdir -p "$work/ss"
cp "$dir/sysfs.bin" "$work/ss/trace.bin"
ids=$(seq 1 111)
{
	printf '[snapshot]\nversion=1.0\ndescription=board sysfs dump\n\n[device_list]\n'
	for i in $ids; do printf 'device%d=cpu_%d.ini\ndevice%d=etm_%d.ini\n' $((2 * i)) "$i" $((2 * i + 1)) "$i"; done
	printf '\n[trace]\nmetadata=trace.ini\n'
} >"$work/ss/snapshot.ini"
{
	printf '[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=ETB_0\nfile=trace.bin\nformat=coresight\n\n[source_buffers]\n'
	for i in $ids; do printf 'ETM_%d=ETB_0\n' "$i"; done
	printf '\n[core_trace_sources]\n'
	for i in $ids; do printf 'cpu_%d=ETM_%d\n' "$i" "$i"; done
} >"$work/ss/trace.ini"
for i in $ids; do
	printf '[device]\nname=cpu_%d\nclass=core\ntype=Cortex-A57\n\n[regs]\nPC(size:64)=0\n' "$i" >"$work/ss/cpu_$i.ini"
	# the ID registers of the simulated ETM (tools/csboard/csboard-etm.c)
	printf '[device]\nname=ETM_%d\nclass=trace_source\ntype=ETM4\n\n[regs]\n%s\nTRCTRACEIDR(0x010)=0x%x\n%s\n' "$i" \
		'TRCCONFIGR(0x004)=0x00000801' "$i" \
		'TRCAUTHSTATUS(0xFB8)=0x000000cc
TRCIDR0(0x1E0)=0x28000ea1
TRCIDR1(0x1E4)=0x4100f403
TRCIDR2(0x1E8)=0x00000488
TRCIDR8(0x180)=0x00000000
TRCIDR9(0x184)=0x00000000
TRCIDR10(0x188)=0x00000000
TRCIDR11(0x18C)=0x00000000
TRCIDR12(0x190)=0x00000000
TRCIDR13(0x194)=0x00000000' >"$work/ss/etm_$i.ini"
done
(cd "$work" && timeout -s KILL 120 trc_pkt_lister -ss_dir "$work/ss" -logstdout) >"$work/opencsd.txt" 2>&1
rc=$?
if [ $rc != 0 ] || ! grep -q 'Trace buffer done' "$work/opencsd.txt"; then
	fail "OpenCSD decodes the sink trace" "trc_pkt_lister exit $rc: $(tail -n 1 "$work/opencsd.txt")"
	exit 1
fi
pass "OpenCSD decodes the sink trace"

# ID, CONTEXTID of every address-with-context packet; the CPU of each
# CONTEXTID from the marker PIDs ("etm CPU SINK ID BYTES ATOMS PID")
awk -v ids="$dir/sysfs.ids" "$AWK_LIB"'
FILENAME ~ /stats$/ && $1 == "etm" { cpu_of[$7] = $2; next }
FILENAME ~ /ids$/ { shown[$1] = hex($2); next }
/^Idx:[0-9]+; ID:[0-9a-fA-F]+;/ {
	split($2, a, ":"); sub(/;.*/, "", a[2]); id = hex(a[2])
	if ($0 ~ /I_BAD|I_INCOMP|RESERVED/) bad++
	if (!match($0, /CID=0x[0-9a-fA-F]+/)) next
	cid = hex(substr($0, RSTART + 4, RLENGTH - 4))
	npkt++
	if (!(cid in cpu_of)) { stray++; next }
	c = cpu_of[cid]
	seen[c] = 1
	if (!(c in shown) || shown[c] != id) { wrongid++; if (!firstwrong) firstwrong = sprintf("CPU %d traced with 0x%x, sysfs showed 0x%x", c, id, shown[c]) }
	if (!(id in src)) src[id] = c
	else if (src[id] != c && !((id, c) in both)) { both[id, c] = 1; shared++; firstshared = firstshared sprintf(" 0x%x: CPUs %d and %d;", id, src[id], c) }
}
END {
	for (c in shown) { nshown++; if (!(c in seen)) { missing++; firstmissing = firstmissing " " c } }
	check(npkt && !stray && !bad, "every packet of the trace decodes to a known source", \
	      sprintf("%d context packets, %d of unknown CONTEXTID, %d bad packets", npkt, stray, bad))
	check(npkt && !wrongid, "every trace ID in the trace is the one sysfs showed for its CPU", firstwrong)
	check(npkt && !shared, "no trace ID used by two sources in the trace", shared " IDs:" firstshared)
	check(nshown && !missing, "the trace of every enabled CPU is in the sink", missing " CPUs without trace:" firstmissing)
	exit failed
}' "$dir/sysfs.stats" "$dir/sysfs.ids" "$work/opencsd.txt" || failed=1
exit "$failed"
