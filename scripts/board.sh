#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The simulated multi-sink CoreSight board, end to end: build the guest
# kernel of the series tree, the csboard.ko module (tools/csboard), a static
# arm64 perf and an initramfs; boot QEMU with a device tree that describes
# the board; `perf record -e cs_etm// -a` in the guest; decode perf.data on
# the host with the series' perf and show, per CPU, the sink, trace IDs,
# bytes and samples, and whether each CPU's markers came back on that CPU.
#
# Usage: board.sh [RUN...]   runs: board16 (default), board64, board128,
#                            board64raw
#   board16   16 CPUs in 2 clusters of 8, each into its own sink; a second
#             session with 4 KiB of trace RAM so that the sinks wrap and
#             insert barrier packets; then the scenarios: per-thread,
#             snapshot, two sessions at once, CPU hotplug (tests/board/
#             perthread.sh, snapshot.sh, concurrent.sh, hotplug.sh)
#   board64   64 CPUs in 2 clusters of 32 (make setup): CPUs 48-63 take
#             the lowest free IDs of their sink, shared with the other sink;
#             and per-thread across CPUs that share an ID on two sinks
#   board128  128 CPUs in 2 clusters of 64 plus a global sink that all
#             CPUs reach: the default sinks trace all 128 CPUs in one
#             session, the global sink (111 IDs) leaves 17 CPUs out;
#             then the scenarios sysfs (sysfs mode of 60 CPUs on the
#             global sink), stm (a system source whose trace meets perf
#             trace in a sink through a static replicator) and modunload
#             (the sinks' module unloaded under a CPU event without a
#             trace ID)
#   board64raw 64 CPUs, each with its own per-CPU sink of unformatted
#             trace (like a TRBE): perf record -a, and --per-thread of a
#             workload that moves across CPUs
set -uo pipefail
. "$(dirname "$0")/lib.sh"

B=$TOP/tests/board
BOARD_DIR=.build-board
KBUILD=$KSRC/$BOARD_DIR
MODDIR=$BUILD/csboard
# guest scripts of the scenarios of board.scripts=, into the initramfs
SCRIPTS=("$B"/{sysfs,stm,modunload,rawthread}.sh)
GUEST=$BUILD/board
PERF_ARM64=$BUILD/perf-arm64/perf
GUEST_MEM=2048
# the per-thread scenario's workload, and the scenarios the guest can run
HOP=$GUEST/hop
SCENARIOS=("$B"/{perthread,snapshot,concurrent,hotplug}.sh)

build_kernel() {
	kmake_arm64 O="$BOARD_DIR" KCONFIG_ALLCONFIG="$TOP/configs/arm64-board.config" \
		allnoconfig &&
		with_build_lock kmake_arm64 O="$BOARD_DIR" Image modules
}

# checkpatch, W=1 and sparse: the module is test code, but warnings still
# fail it
build_module() {
	local log=$LOGDIR/board-module-warnings.log
	local enc=$MODDIR/../cstrace f
	# the module's sources, and next to them (Kbuild: -I$(src)/../cstrace)
	# the packet encoder and frame formatter it shares with tools/csgen
	mkdir -p "$MODDIR" "$enc"
	rm -f "$MODDIR"/*.[cho]
	cp "$TOP"/tools/csboard/*.[ch] "$TOP/tools/csboard/Kbuild" "$MODDIR/" &&
		cp "$TOP/tools/cstrace/cs-trace-enc.h" "$enc/" || return
	for f in "$MODDIR"/*.[ch] "$enc/cs-trace-enc.h"; do
		"$KSRC/scripts/checkpatch.pl" --strict -q --no-tree -f "$f" || return
	done
	kmake_arm64 O="$BOARD_DIR" M="$MODDIR" W=1 C=1 modules 2>&1 | tee "$log" &&
		! grep -E 'warning:|error:' "$log"
}

# The per-thread workload: a static arm64 program, warnings fail it
build_hop() {
	mkdir -p "$GUEST" &&
		"$KSRC/scripts/checkpatch.pl" --strict -q --no-tree -f "$B/hop.c" &&
		aarch64-linux-gnu-gcc -static -O2 -Wall -Wextra -Werror -o "$HOP" "$B/hop.c"
}

# The host perf decodes the board's sessions: it must be the perf of the
# tree under test, not one left from an earlier series (make test builds
# it in its perf step; board.sh alone rebuilds it when it is older than
# the tree's perf sources)
host_perf_current() {
	local newer
	newer=$(find "$KSRC/tools/perf" "$KSRC/tools/include" -newer "$PERF_DIR/perf" \
		-name '*.[ch]' -print -quit 2>/dev/null)
	[ -x "$PERF_DIR/perf" ] && [ -z "$newer" ] && return 0
	CSID_RESULTS=/dev/null bash "$TOP/scripts/perf.sh"
}

build_guest() {
	run_step "board: build the guest kernel" "$LOGDIR/board-kernel.log" build_kernel &&
		run_step "board: build csboard.ko" "$LOGDIR/board-module.log" build_module &&
		CSID_RESULTS=/dev/null bash "$TOP/scripts/perf-arm64.sh" &&
		host_perf_current &&
		run_step "board: build the workload hop" "$LOGDIR/board-hop.log" build_hop &&
		run_step "board: build the initramfs" "$LOGDIR/board-initramfs.log" \
			bash "$B/mkinitramfs.sh" "$GUEST/initramfs.cpio.gz" "$B/init.sh" \
			"$PERF_ARM64" "$MODDIR/csboard.ko" "$MODDIR/csboard-sink.ko" "$HOP" \
			"${SCENARIOS[@]}" "${SCRIPTS[@]}"
}

# make_dtb SMP RUN NCLUSTERS [global]: QEMU's own device tree plus the board
make_dtb() {
	local smp=$1 dir=$GUEST/$2
	bash "$B/qemu-run.sh" --smp "$smp" --mem "$GUEST_MEM" \
		--dumpdtb "$dir/virt.dtb" >/dev/null &&
		{ dtc -q -I dtb -O dts "$dir/virt.dtb" && bash "$B/board-dts.sh" "$smp" "${@:3}"; } \
			>"$dir/board.dts" &&
		dtc -q -I dts -O dtb -o "$dir/board.dtb" "$dir/board.dts"
}

# boot RUN SMP TIMEOUT APPEND NCLUSTERS [global]
boot() {
	local run=$1 smp=$2 timeout=$3 append=$4 dir=$GUEST/$1 start rc
	shift 4
	rm -rf "$dir"
	mkdir -p "$dir/out"
	if ! make_dtb "$smp" "$run" "$@" >"$LOGDIR/$run-dtb.log" 2>&1; then
		result FAIL "$run: device tree" "log: $LOGDIR/$run-dtb.log"
		return 1
	fi
	truncate -s 256M "$dir/disk.img"
	start=$(date +%s)
	say "$run: boot $smp vCPUs and record (up to $timeout s; console: $dir/console.log)"
	# a job of its own: Ctrl-C or SIGTERM here stops QEMU too (stop_jobs)
	start_job bash "$B/qemu-run.sh" --kernel "$KBUILD/arch/arm64/boot/Image" \
		--initrd "$GUEST/initramfs.cpio.gz" --dtb "$dir/board.dtb" \
		--smp "$smp" --mem "$GUEST_MEM" --timeout "$timeout" --disk "$dir/disk.img" \
		--console "$dir/console.log" --append "$append"
	wait "$JOB"
	rc=$?
	BG_JOBS=()
	say "$run: guest ran $(($(date +%s) - start)) s"
	if [ "$rc" -ne 0 ] || ! tar -xf "$dir/disk.img" -C "$dir/out" 2>/dev/null ||
	   [ ! -f "$dir/out/info" ]; then
		result FAIL "$run: guest boots and returns its results" \
			"qemu exit $rc, console: $dir/console.log"
		return 1
	fi
	result PASS "$run: guest boots and returns its results"
	scan_console "$run: guest kernel: no warning, BUG, oops or lockdep report" "$dir/console.log"
}

# report RUN SESSION MODE NCPUS NSINKS [CPUS]: decode one session with
# tests/board/report.sh, print its table (also kept in
# $LOGDIR/RUN-SESSION.table) and count its checks
report() {
	local run=$1 name=$2 dir=$GUEST/$1/out table=$LOGDIR/$1-$2.table
	local out=$GUEST/$1/$2.report line check rc
	say "$run: session $name, decoded on the host"
	bash "$B/report.sh" "$PERF_DIR/perf" "$KBUILD/vmlinux" "$dir" "$name" "${@:3}" >"$out"
	rc=$?
	: >"$table"
	while IFS= read -r line; do
		case "$line" in
		"PASS "*) result PASS "$run: ${line#PASS }" ;;
		"FAIL "*)
			check=${line#FAIL }
			result FAIL "$run: ${check%%$'\t'*}" "${check#*$'\t'}"
			;;
		*) printf '    %s\n' "$line" | tee -a "$table" ;;
		esac
	done <"$out"
	# report.sh prints a FAIL line for each failure; make sure of it
	if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		result FAIL "$run: $name: report.sh" "exit $rc without a failed check: $out"
	fi
}

# checks RUN CMD...: count the "PASS name" and "FAIL name<TAB>detail" lines
# of CMD (tests/board/maps.sh)
checks() {
	local run=$1 line check
	shift
	while IFS= read -r line; do
		case "$line" in
		"PASS "*) result PASS "$run: ${line#PASS }" ;;
		"FAIL "*)
			check=${line#FAIL }
			result FAIL "$run: ${check%%$'\t'*}" "${check#*$'\t'}"
			;;
		*) printf '    %s\n' "$line" ;;
		esac
	done < <("$@")
}

# The scenarios of tests/board/*.sh on a board of NCPUS in 2 clusters, each
# into its own sink: board.scenarios=perthread,snapshot,concurrent,hotplug
# (run_board16). The CPUs and sinks they use are those of the scripts.
report_scenarios() {
	local run=$1 n=$2 dir=$GUEST/$1/out h q
	h=$((n / 2)) q=$((n / 4))
	report "$run" thread thread "$n" 2
	report "$run" snap snapshot "$n" 2
	# two sessions at once on different sinks, then on the same sink
	report "$run" pair0 all "$n" 2 "0-$((h - 1))"
	report "$run" pair1 all "$n" 2 "$h-$((n - 1))"
	checks "$run" bash "$B/maps.sh" during pair "$dir/pair.maps.during" "$dir/pair0.stats" \
		"simsink0:$h:0-$((h - 1)),simsink1:$h:$h-$((n - 1))"
	report "$run" same0 all "$n" 2 "0-$((q - 1))"
	report "$run" same1 refused "$n" 2 "$q-$((h - 1))"
	checks "$run" bash "$B/maps.sh" during same "$dir/same.maps.during" "$dir/same0.stats" \
		"simsink0:$h:0-$((h - 1))"
	# CPU hotplug during a -a session
	report "$run" hot all "$n" 2
	checks "$run" bash "$B/maps.sh" online hot "$dir/hot.cpus" "$n" $((h / 2)) $((h + h / 2))
	checks "$run" bash "$B/maps.sh" during hot "$dir/hot.maps.before" "$dir/hot.stats" \
		"simsink0:$h:0-$((h - 1)),simsink1:$h:$h-$((n - 1))"
	checks "$run" bash "$B/maps.sh" same hot "$dir/hot.maps.before" \
		"$dir/hot.maps.offline" "$dir/hot.maps.online"
	checks "$run" bash "$B/maps.sh" empty scenarios "$dir/thread.maps" "$dir/snap.maps" \
		"$dir/pair0.maps" "$dir/same0.maps" "$dir/hot.maps"
}

# scenario_check RUN CHECK [ARG...]: run the host check script
# tests/board/CHECK on the results of RUN; count its PASS, FAIL and SKIP
# lines and show its other lines
scenario_check() {
	local run=$1 script=$2 out=$GUEST/$1/${2%.sh}.out line check rc
	shift 2
	bash "$B/$script" "$@" >"$out"
	rc=$?
	while IFS= read -r line; do
		case "$line" in
		"PASS "*) result PASS "$run: ${line#PASS }" ;;
		"FAIL "* | "SKIP "* | "XFAIL "*)
			check=${line#* }
			result "${line%% *}" "$run: ${check%%$'\t'*}" "${check#*$'\t'}"
			;;
		*) printf '    %s\n' "$line" ;;
		esac
	done <"$out"
	if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		result FAIL "$run: $script" "exit $rc without a failed check: $out"
	fi
}

# The kernel names the sink and the CPUs it left out, once for the session
check_full_sink_log() {
	local run=$1 name=$2 sink=$3 first=$4 last=$5 dir=$GUEST/$1/out n
	local want="$sink: No free trace ID for CPU(s) $first-$last, not traced"
	n=$(grep -c "No free trace ID" "$dir/$name.dmesg")
	if grep -qF "$want" "$dir/$name.dmesg" && [ "$n" -eq 1 ]; then
		result PASS "$run: kernel log names $sink for CPUs $first-$last once"
	else
		result FAIL "$run: kernel log names $sink for CPUs $first-$last once" \
			"want one line '$want', found $n 'No free trace ID' lines in $dir/$name.dmesg"
	fi
}

# Every CPU below 48 keeps its legacy ID 0x10 + 2 * cpu, so the two sinks
# use different IDs here: shared IDs are board128's part.
run_board16() {
	boot board16 16 300 \
		"board.sessions=default:-:0,wrap:-:4 board.modargs=period_us=4000,ram_kb=4096 board.aux=1024 board.scenarios=perthread,snapshot,concurrent,hotplug" \
		2 || return
	report board16 default all 16 2
	report board16 wrap lossy 16 2
	report_scenarios board16 16
}

# What the series is for, shown by make setup: CPUs 48-63 have no legacy
# ID, so they take the lowest free IDs of their sink's map, and an ID can be
# in use on both sinks at once.
run_board64() {
	boot board64 64 600 \
		"board.sessions=default:-:0 board.modargs=period_us=50000,ram_kb=2048 board.aux=512 board.scenarios=perthread" \
		2 || return
	report board64 default shared 64 2
	# per-thread through CPU 0 and CPU 63, which hold the same ID on the
	# two sinks
	report board64 thread thread 64 2
	checks board64 bash "$B/maps.sh" empty thread "$GUEST/board64/out/thread.maps"
}

run_board128() {
	# IDs 0x01-0x6f (design brief): one map holds 111 sources, less the
	# system ID the STM holds in the default map, which no sink map hands
	# out. CPUs 0-109 fit on the global sink, 110-127 do not.
	local usable=$((0x70 - 0x01 - 1))
	boot board128 128 900 \
		"board.sessions=default:-:0,global:simsink2:0 board.modargs=period_us=100000,ram_kb=2048 board.aux=512 board.scripts=sysfs,stm,modunload" \
		2 global stm || return
	report board128 default shared 128 3
	report board128 global "untraced:$usable-127" 128 3
	check_full_sink_log board128 global simsink2 "$usable" 127
	scenario_check board128 sysfs-check.sh "$GUEST/board128/out"
	scenario_check board128 stm-check.sh "$PERF_DIR/perf" \
		"$KBUILD/vmlinux" "$GUEST/board128/out"
	scenario_check board128 modunload-check.sh "$GUEST/board128/out"
}

# Per-CPU raw sinks: each CPU from 48 on takes the lowest ID of its own
# sink's map, so they all share one ID; the trace carries none, and
# decodes by the CPU of its buffer (per-CPU) or AUX part (per-thread).
run_board64raw() {
	boot board64raw 64 600 \
		"board.sessions=default:-:0 board.modargs=period_us=50000,ram_kb=256 board.aux=256 board.scripts=rawthread" \
		64 raw || return
	report board64raw default shared 64 64
	scenario_check board64raw raw-check.sh "$PERF_DIR/perf" "$KBUILD/vmlinux" "$GUEST/board64raw/out"
}

runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(board16)
need_tools "board: tools" qemu-system-aarch64:qemu-system-arm dtc:device-tree-compiler \
	aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu cpio:cpio gzip:gzip \
	trc_pkt_lister:libopencsd-bin || exit 1
build_guest || { result FAIL "board: build the guest" "logs: $LOGDIR/board-*.log"; exit 1; }
for r in "${runs[@]}"; do
	case "$r" in
	board16) run_board16 ;;
	board64) run_board64 ;;
	board128) run_board128 ;;
	board64raw) run_board64raw ;;
	*) die "unknown run $r (board16, board64, board128, board64raw)" ;;
	esac
done
exit "$FAILED"
