#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzz the cs_etm decoder with malformed files derived from csgen layouts.
#
#   tests/decode/fuzz.sh PERF_BINARY WORKDIR [FILES [FIRST_SEED]]
#
# PERF_BINARY should be the ASan+UBSan perf. For each seed, csmut mutates
# one of the layouts below, synthetic csgen files and the real hardware
# trace of the OpenCSD snapshots (SNAPSHOTS), in metadata words, HW_ID
# values and sizes, record sizes, AUX offsets or trace bytes, and perf
# script decodes the result; every other round over the layouts perf
# report -D dumps it instead, whose error paths print the metadata and
# packets. Any death by SIGSEGV, SIGABRT, SIGBUS, SIGFPE or SIGILL, any hang
# (no decode of these small files takes 30 s) and any sanitizer report is a
# finding; perf's own error exits are not. Findings are kept in
# WORKDIR/findings/ with the perf output. The same seeds give the same
# files. Prints "PASS fuzz_N_files" or "FAIL fuzz_N_files: ..." and the
# files per second, and exits non-zero on any finding.

set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
perf=${1:?usage: fuzz.sh PERF_BINARY WORKDIR [FILES [FIRST_SEED]]}
work=${2:?usage: fuzz.sh PERF_BINARY WORKDIR [FILES [FIRST_SEED]]}
[ -x "$perf" ] || { echo "FAIL fuzz: $perf is not an executable perf"; exit 1; }
files=${3:-2000}
seed0=${4:-1}
jobs=${FUZZ_JOBS:-2}
# findings of an earlier campaign in WORKDIR are not this one's
rm -rf "$work/findings" "$work/run"
mkdir -p "$work/layouts" "$work/findings" "$work/run"

make -s -C "$repo/tools/csgen" O="$work" >"$work/build.log" 2>&1 ||
	{ echo "FAIL fuzz_build: $(tail -1 "$work/build.log")"; exit 1; }
[ -x "$work/prog" ] || "$here/mkelf.sh" "$work/prog" 256 >>"$work/build.log" 2>&1 ||
	{ echo "FAIL fuzz_build: mkelf"; exit 1; }

# Small files of every layout csgen writes, so that each decode is quick
layouts=(
	"-c 4 -s 1 -a 20"
	"-c 4 -s 2 -a 20 -b"
	"-c 4 -s 2 -a 20 -H 0.0"
	"-c 4 -s 1 -a 20 -H none -V 1"
	"-c 4 -s 1 -a 20 -H none -F"
	"-c 4 -s 2 -a 20 -t -g 8"
	"-c 4 -s 2 -a 20 -t -g 8 -n -H none -V 1"
	"-c 4 -s 4 -a 20 -U"
	"-c 4 -s 1 -a 20 -t -g 8 -U"
	"-c 4 -s 2 -a 20 -X"
	"-c 64 -s 2 -a 4"
	"-c 3 -s 1 -a 17 -k 5 -E pad"
	"-c 4 -s 2 -a 20 -R"
	"-c 4 -s 1 -a 20 -B midframe"
	"-c 4 -s 2 -a 20 -t -g 8 -b -B gap8"
	"-c 64 -s 1 -a 4 -H none"
	"-c 4 -s 4 -a 20 -j 4 -O cut"
	"-c 4 -s 2 -a 20 -t -j 4 -O cut"
	"-c 4 -s 4 -a 20 -j 4 -O overlap"
	"-c 4 -s 2 -a 20 -t -j 4 -O overlap"
	"-c 4 -s 2 -a 20 -y 5"
	"-c 4 -s 1 -a 20 -y 5 -B barrier8"
)
# Real hardware trace (tests/decode/real.sh): the packets, address
# compression and formatter padding of silicon. csgen -S writes the ELF of
# the snapshot's memory (-e), which perf reads the code from (--vmlinux:
# the 32-bit kernel code of TC2 and Snowball).
snapshots=${SNAPSHOTS:-$repo/../shared/data/opencsd-snapshots}
if [ -d "$snapshots" ]; then
	layouts+=(
		"-S $snapshots/Snowball -H none -V 1"
		"-S $snapshots/Snowball -H 0.1 -s 2 -T 0"
		"-S $snapshots/TC2 -H 0.1"
		"-S $snapshots/TC2 -H 0.1 -U"
		"-S $snapshots/TC2 -H 0.1 -t -s 2"
		"-S $snapshots/bugfix-exact-match -A 0xe0000 -N 0x4000 -H 0.0"
		"-S $snapshots/bugfix-exact-match -A 0xe0000 -N 0x4000 -H 0.1 -t -s 2"
		"-S $snapshots/bugfix-exact-match -A 0xe0000 -N 0x4000 -H none -V 1 -C 0x1000,0x2000:0x2000"
	)
else
	echo "fuzz: no snapshot directory $snapshots (set SNAPSHOTS): no real trace among the layouts"
fi
for i in "${!layouts[@]}"; do
	elf=$work/prog
	case ${layouts[$i]} in -S*) elf=$work/layouts/$i.elf ;; esac
	# shellcheck disable=SC2086
	"$work/csgen" -o "$work/layouts/$i.data" -e "$elf" ${layouts[$i]} \
		>"$work/layouts/$i.gen" 2>&1 ||
		{ echo "FAIL fuzz_layouts: csgen ${layouts[$i]}: $(tail -1 "$work/layouts/$i.gen")"; exit 1; }
done

# one SEED: mutate layout SEED % N with SEED, decode, keep any finding
one() {
	local seed=$1 n=${#layouts[@]} f rc why="" cmd
	f=$work/run/$seed
	"$work/csmut" "$work/layouts/$((seed % n)).data" "$f.data" "$seed" $((1 + seed % 6)) ||
		{ echo "csmut failed on seed $seed" >"$work/findings/$seed.txt"; return; }
	# allocator_may_return_null: an allocation too large to be made fails
	# as it does without ASan (perf then stops with an error), instead of
	# an ASan report: generic perf sizes some allocations from the file
	# (namespaces__new(), seed 982)
	if [ $((seed / n % 2)) = 1 ]; then
		cmd=(report -D -i "$f.data")
	else
		cmd=(script -i "$f.data" --itrace=b -F cpu,pid,ip,sym)
	fi
	# a snapshot's ELF: the code of its kernel map
	[ -e "$work/layouts/$((seed % n)).elf" ] && cmd+=(--vmlinux "$work/layouts/$((seed % n)).elf")
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:allocator_may_return_null=1 \
	UBSAN_OPTIONS=print_stacktrace=1 \
		timeout -s KILL 30 "$perf" "${cmd[@]}" >/dev/null 2>"$f.err"
	rc=$?
	case $rc in
	132|134|135|136|139) why="killed by signal $((rc - 128))" ;;
	124|137) why="hung: killed after 30 s" ;;
	126|127) why="perf did not run (exit $rc)" ;;
	esac
	# (the warning of an allocation that failed, see above, is no report)
	if [ -z "$why" ] && grep -av "WARNING: AddressSanitizer failed to allocate" "$f.err" |
			grep -aq "AddressSanitizer\|runtime error:"; then
		why=$(grep -av "WARNING: AddressSanitizer failed to allocate" "$f.err" |
			grep -a -m1 "AddressSanitizer\|runtime error:")
	fi
	if [ -n "$why" ]; then
		echo "seed $seed layout ${layouts[$((seed % n))]} (perf ${cmd[*]}): $why" >"$work/findings/$seed.txt"
		cp "$f.data" "$f.err" "$work/findings/"
	fi
	rm -f "$f.data" "$f.err"
}
export -f one
export work perf
start=$(date +%s.%N)
seq "$seed0" $((seed0 + files - 1)) |
	xargs -P "$jobs" -I{} bash -c "$(declare -p layouts); one {}" ||
	{ echo "FAIL fuzz_${files}_files: the campaign itself failed (xargs exit $?)"; exit 1; }
end=$(date +%s.%N)

nfind=$(find "$work/findings" -name '*.txt' | wc -l)
rate=$(awk -v n="$files" -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", n / (b - a) }')
echo "fuzz: $files files (seeds $seed0-$((seed0 + files - 1))), ${#layouts[@]} layouts, $rate files/s, $nfind findings"
if [ "$nfind" -ne 0 ]; then
	echo "FAIL fuzz_${files}_files: $nfind findings, first: $(cat "$(find "$work/findings" -name '*.txt' | sort -n | head -1)")"
	exit 1
fi
echo "PASS fuzz_${files}_files"
