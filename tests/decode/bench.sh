#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Decode benchmark (not a timed test):
#
#   tests/decode/bench.sh PATCHED_PERF STOCK_PERF [WORKDIR] [RUNS]
#
# Prints decode wall time and peak RSS (/usr/bin/time -v) of the patched perf
# against the stock 6.1 perf on a ~4 MB single-sink static-ID trace of 47
# CPUs, side by side with their ratios, and the patched perf's own figures on
# a 256-CPU / 4-sink trace of about the same size, with the time per decoded
# sample and per MB of both traces; then patched against stock on real
# hardware trace: the 1 MiB capture of the OpenCSD snapshot bugfix-exact-match
# (SNAPSHOTS, see real.sh), static IDs (header v1). Each figure is the median
# of RUNS runs (default 5). Then the item users feel on every file: a
# per-CPU static-ID file of at least 100 MiB of trace, plain and -z, timed by
# farm-bench with the stock perf as its baseline (pairs in turn, median of
# BIG_RUNS pairs, default 3, 0 for none; a run takes one to two minutes).

set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
patched=${1:?usage: bench.sh PATCHED_PERF STOCK_PERF [WORKDIR] [RUNS]}
stock=${2:?usage: bench.sh PATCHED_PERF STOCK_PERF [WORKDIR] [RUNS]}
work=${3:-$(mktemp -d /tmp/csbench.XXXXXX)}
runs=${4:-5}
mkdir -p "$work"

make -s -C "$repo/tools/csgen" O="$work" || exit 1
[ -x "$work/prog" ] || "$here/mkelf.sh" "$work/prog" 256 || exit 1

# ~4 MB each: 47 CPUs x 50000 branches, 256 CPUs x 9200 branches
"$work/csgen" -o "$work/static47.data" -e "$work/prog" -c 47 -s 1 -H none -V 1 -a 50000 || exit 1
"$work/csgen" -o "$work/multi256.data" -e "$work/prog" -c 256 -s 4 -a 9200 || exit 1
# the 1 MiB real capture, with the ELF of its memory dumps
snapshots=${SNAPSHOTS:-$repo/../shared/data/opencsd-snapshots}
"$work/csgen" -S "$snapshots/bugfix-exact-match" -o "$work/real.data" -e "$work/real.elf" \
	-H none -V 1 >/dev/null || exit 1

# run1 PERF FILE: one decode, appends "wall cpu rss" to $work/bench.$(basename PERF-ID)
run1() {
	local p=$1 f=$2 tag=$3
	/usr/bin/time -f "%e %U %S %M" -o "$work/bench.time" \
		"$p" script -i "$f" --itrace=b -F cpu,pid,ip,sym >"$work/bench.$tag.out" 2>/dev/null ||
		{ echo "perf failed on $f" >&2; return 1; }
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/bench.time" >>"$work/bench.$tag"
}

# median COLUMN TAG
median() {
	awk -v c="$1" '{ print $c }' "$work/bench.$2" | sort -g |
		awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

rm -f "$work"/bench.stock "$work"/bench.patched "$work"/bench.multi "$work"/bench.real_*
# Interleave the runs so that load from elsewhere hits all alike
for ((i = 0; i < runs; i++)); do
	run1 "$stock" "$work/static47.data" stock || exit 1
	run1 "$patched" "$work/static47.data" patched || exit 1
	run1 "$patched" "$work/multi256.data" multi || exit 1
	run1 "$stock" "$work/real.data" real_stock || exit 1
	run1 "$patched" "$work/real.data" real_patched || exit 1
done
for tag in stock patched multi real_stock real_patched; do
	eval "${tag}_wall=\$(median 1 $tag) ${tag}_cpu=\$(median 2 $tag) ${tag}_rss=\$(median 3 $tag)"
	eval "${tag}_n=\$(grep -c func_cpu \"\$work/bench.\$tag.out\")"
done
# the real trace's samples are in cc1, not in func_cpu<c>
real_stock_n=$(wc -l <"$work/bench.real_stock.out")
real_patched_n=$(wc -l <"$work/bench.real_patched.out")

size() { stat -c %s "$1" | awk '{ printf "%.1f MB", $1 / 1048576 }'; }

echo "static trace: 47 CPUs, 1 sink, header v1, $(size "$work/static47.data"); median of $runs runs"
printf '  %-8s %9s %9s %13s %10s\n' perf "wall (s)" "cpu (s)" "max RSS (kB)" samples
for tag in stock patched; do
	eval "printf '  %-8s %9s %9s %13s %10s\\n' $tag \$${tag}_wall \$${tag}_cpu \$${tag}_rss \$${tag}_n"
done
awk -v a="$patched_wall" -v b="$stock_wall" -v ac="$patched_cpu" -v bc="$stock_cpu" \
    -v c="$patched_rss" -v d="$stock_rss" 'BEGIN {
	printf "  ratio patched/stock: wall time %.3fx, cpu time %.3fx (target <= 1.05x), peak RSS %.3fx (target <= 1.5x)\n",
		a / b, ac / bc, c / d }'
echo "multi-sink trace: 256 CPUs, 4 sinks, HW_ID v0.1, $(size "$work/multi256.data")"
printf '  %-8s %9s %9s %13s %10s\n' patched "$multi_wall" "$multi_cpu" "$multi_rss" "$multi_n"
awk -v a="$multi_cpu" -v an="$multi_n" -v b="$patched_cpu" -v bn="$patched_n" 'BEGIN {
	printf "  cpu time per decoded sample: multi-sink %.3f us, static %.3f us (ratio %.3fx)\n",
		a / an * 1e6, b / bn * 1e6, (a / an) / (b / bn) }'
awk -v a="$multi_cpu" -v am="$(stat -c %s "$work/multi256.data")" \
    -v b="$patched_cpu" -v bm="$(stat -c %s "$work/static47.data")" 'BEGIN {
	am /= 1048576; bm /= 1048576
	printf "  cpu time per MB of perf.data: multi-sink %.3f s, static %.3f s (ratio %.3fx, target <= 1x)\n",
		a / am, b / bm, (a / am) / (b / bm) }'
echo "real trace: bugfix-exact-match (ETMv4, 1 MiB capture), header v1, $(size "$work/real.data"); median of $runs runs"
printf '  %-8s %9s %9s %13s %10s\n' perf "wall (s)" "cpu (s)" "max RSS (kB)" samples
for tag in stock patched; do
	eval "printf '  %-8s %9s %9s %13s %10s\\n' $tag \$real_${tag}_wall \$real_${tag}_cpu \$real_${tag}_rss \$real_${tag}_n"
done
awk -v a="$real_patched_wall" -v b="$real_stock_wall" -v c="$real_patched_rss" -v d="$real_stock_rss" 'BEGIN {
	printf "  ratio patched/stock: wall time %.3fx (target <= 1.05x), peak RSS %.3fx (target <= 1.5x)\n",
		a / b, c / d }'
# Pipe mode, a per-thread inherit session of 1,000 child threads that each
# write an AUX record and exit (csgen -Q): work per EXIT must not grow with
# the records kept. Wall time of perf inject | perf script (median of RUNS)
# header v1, static IDs: the stock perf reads it too
"$work/csgen" -o "$work/inherit1000.data" -e "$work/prog" -c 4 -s 1 -t -a 4 -Q 1000 -H none -V 1 || exit 1
pipe1() {
	local p=$1 tag=$2 t0 t1
	t0=$(date +%s.%N)
	"$p" inject -i "$work/inherit1000.data" -o - 2>/dev/null |
		"$p" script -i - --itrace=b -F cpu,pid,ip,sym >/dev/null 2>&1
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' >>"$work/bench.$tag"
}
rm -f "$work"/bench.pipe_stock "$work"/bench.pipe_patched
for ((i = 0; i < runs; i++)); do
	pipe1 "$stock" pipe_stock
	pipe1 "$patched" pipe_patched
done
echo "pipe, per-thread inherit session of 1,000 child threads, $(size "$work/inherit1000.data"); median of $runs runs"
awk -v a="$(median 1 pipe_patched)" -v b="$(median 1 pipe_stock)" 'BEGIN {
	printf "  wall time (inject | script): patched %.3f s, stock %.3f s, ratio %.3fx\n", a, b, a / b }'

# Pipe memory: a stream of 10,000 AUX records over one buffer (a per-thread
# session of 10,000 parts of 1 atom, 1.1 MB of trace) against one AUX
# record over a buffer of 1.6 MB (1,000,000 atoms): peak RSS of perf
# inject | perf script (the larger of the two), median of RUNS
"$work/csgen" -o "$work/aux10000.data" -e "$work/prog" -c 4 -s 1 -t -g 10000 -a 1 || exit 1
"$work/csgen" -o "$work/aux1.data" -e "$work/prog" -c 4 -s 1 -t -g 1 -a 1000000 || exit 1
pipe_rss() {
	/usr/bin/time -o "$work/bench.time" -f %M sh -c "'$patched' inject -i '$work/$1.data' -o - 2>/dev/null |
		'$patched' script -i - --itrace=b -F cpu,pid,ip,sym >/dev/null 2>&1"
	cat "$work/bench.time" >>"$work/bench.rss_$1"
}
rm -f "$work"/bench.rss_aux1 "$work"/bench.rss_aux10000
for ((i = 0; i < runs; i++)); do
	pipe_rss aux1
	pipe_rss aux10000
done
echo "pipe, 10,000 AUX records over one buffer ($(size "$work/aux10000.data")) against one record over one buffer ($(size "$work/aux1.data")); median of $runs runs"
awk -v a="$(median 1 rss_aux10000)" -v b="$(median 1 rss_aux1)" 'BEGIN {
	printf "  peak RSS: 10,000 records %d kB, one record %d kB, ratio %.3fx (target <= 2x)\n", a, b, a / b }'

# Large files: 47 CPUs x 1.4M atoms is 104 MiB of trace; the same session
# written as perf record -z writes it. farm-bench runs patched and stock in
# turn and prints the ratios pair by pair; the median is quoted.
big_runs=${BIG_RUNS:-3}
[ "$big_runs" -gt 0 ] || exit 0
"$work/csgen" -o "$work/big.data" -e "$work/prog" -c 47 -s 1 -H none -V 1 -a 1400000 || exit 1
"$work/csgen" -o "$work/bigz.data" -e "$work/prog" -c 47 -s 1 -H none -V 1 -a 1400000 -z || exit 1
# trace_mib FILE: MiB in the file's PERF_RECORD_AUXTRACE records (kept out of
# PERF_RECORD_COMPRESSED by -z, so one walk of the data section counts both)
trace_mib() {
	python3 - "$1" <<'PY'
import struct, sys
f = open(sys.argv[1], 'rb'); hdr = f.read(104)
off, size = struct.unpack_from('<QQ', hdr, 40)
pos, end, total = off, off + size, 0
while pos < end:
    f.seek(pos); typ, misc, sz = struct.unpack('<IHH', f.read(8))
    if sz == 0: break
    if typ == 71:  # PERF_RECORD_AUXTRACE: its trace follows the record
        aux = struct.unpack('<Q', f.read(8))[0]
        total += aux
        pos += aux
    pos += sz
print('%.1f' % (total / 1048576))
PY
}
for f in big bigz; do
	data=$work/$f.data
	cmd="script -i $data --itrace=b -F cpu,pid,ip,sym"
	farm-bench -n "$big_runs" --warmup 0 --timeout 3600 \
		--vs "sh -c 'exec $stock $cmd >/dev/null 2>&1'" \
		-- sh -c "exec $patched $cmd >/dev/null 2>&1" >"$work/farm.$f" 2>&1 ||
		{ cat "$work/farm.$f" >&2; exit 1; }
	echo "large per-CPU file ($f.data$([ $f = bigz ] && echo ', -z')): 47 CPUs, 1 sink, header v1," \
		"$(trace_mib "$data") MiB of trace in $(size "$data"); farm-bench, median of $big_runs pairs"
	printf '  %-24s %11s %11s %11s\n' "" min median max
	awk '/^A (wall s|peak MiB)/ || /^B (wall s|peak MiB)/ { sub(/^A /, "  patched "); sub(/^B /, "  stock   "); print }' "$work/farm.$f"
	awk '/^A\/B wall/ { w = $4 } /^A peak MiB/ { a = $5 } /^B peak MiB/ { b = $5 } END {
		printf "  ratio patched/stock: wall time %.3fx (target <= 1.05x), peak RSS %.3fx (target <= 1.5x)\n", w, a / b }' "$work/farm.$f"
done
