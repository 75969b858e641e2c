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
#             session, the global sink (111 IDs; the STM, disabled, costs
#             none) leaves 17 CPUs out; then the scenarios sysfsperf (60
#             CPUs of one sink keep sysfs mode IDs, then perf record -a
#             traces every CPU), sysfs (sysfs mode of 60 CPUs on the global
#             sink), stm (a system source whose trace meets perf trace in a
#             sink through a static replicator) and modunload (the sinks'
#             module unloaded under a CPU event without a trace ID)
#   board64raw 64 CPUs, each with its own per-CPU sink of unformatted
#             trace (like a TRBE): perf record -a, and --per-thread of a
#             workload that moves across CPUs
#   RUN-debug RUN (16 vCPUs at most) on the debug variant of the guest
#             kernel (configs/arm64-board-debug.config: KASAN, lockdep,
#             UBSAN, kmemleak), with kmemleak's report checked at the end
#   debug     every run of DEBUG_RUNS as RUN-debug (make ci)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

B=$TOP/tests/board
# guest scripts of the scenarios of board.scripts=, run by the guest's
# /init, and of board.scenarios=, which it sources: into the initramfs
SCRIPTS=("$B"/{sysfs,stm,modunload,rawthread}.sh)
SCENARIOS=("$B"/{perthread,snapshot,concurrent,hotplug,sysfsperf}.sh)
# perf record --switch-output: each output file decodes alone
# (tests/board/switchout.sh, switchout-check.sh; board64)
SCENARIOS+=("$B/switchout.sh")
PERF_ARM64=$BUILD/perf-arm64/perf
GUEST_MEM=2048
# The runs of the debug variant (board.sh debug, in make ci): each boots at
# most DEBUG_MAX_SMP vCPUs (lockdep makes a 128-vCPU guest ten times
# slower), with DEBUG_TIMEOUT_X times the run's timeout: board16's guest
# reached its kmemleak scans only at 577 s of its 600 s on a machine whose
# two cores were busy with other builds
DEBUG_RUNS=(board16)
DEBUG_MAX_SMP=16
DEBUG_TIMEOUT_X=3
DEBUG_DATA_PAGES=512
DEBUG_PERIOD_X=4
# kmemleak scans every struct page: half the memory, half the scan time
DEBUG_MEM=1024
BOARD_MEM=$GUEST_MEM

# set_variant [VARIANT]: the guest kernel build, module, initramfs, run
# folders and logs of a variant: none (the board kernel) or debug (configs/
# arm64-board-debug.config merged over the board's config). The run folders
# are $GUEST/RUN in either case.
set_variant() {
	VARIANT=${1:-}
	BOARD_DIR=.build-board${VARIANT:+-$VARIANT}
	KBUILD=$KSRC/$BOARD_DIR
	MODDIR=$BUILD/csboard${VARIANT:+-$VARIANT}
	GUEST=$BUILD/board${VARIANT:+-$VARIANT}
	# the per-thread scenario's workload
	HOP=$GUEST/hop
	LOGDIR=$BUILD/logs${VARIANT:+/board-$VARIANT}
	GUEST_MEM=$BOARD_MEM
	[ "$VARIANT" != debug ] || GUEST_MEM=$DEBUG_MEM
	KCONFIGS=("$TOP/configs/arm64-board.config")
	[ -z "$VARIANT" ] || KCONFIGS+=("$TOP/configs/arm64-board-$VARIANT.config")
	KTARGETS=(Image modules)
	# One KASAN/lockdep kernel for make ci: the debug variant also has
	# the series' KUnit suites, which kunit.sh debug runs on it with
	# kunit.py exec (Image.gz); the board's boots pass kunit.enable=0
	if [ "$VARIANT" = debug ]; then
		KCONFIGS+=("$KSRC/drivers/hwtracing/coresight/.kunitconfig"
			   "$TOP/kunit/debug.kunitconfig")
		KTARGETS+=(Image.gz)
	fi
	mkdir -p "$GUEST" "$LOGDIR"
}
set_variant

# The config fragments, merged over allnoconfig; every option they set
# must be in the result (Kconfig drops what it cannot satisfy silently)
build_kernel() {
	local frag=$GUEST/kconfig line missing=0
	grep -hv '^$' "${KCONFIGS[@]}" >"$frag" &&
		kmake_arm64 O="$BOARD_DIR" KCONFIG_ALLCONFIG="$frag" allnoconfig || return
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=* | "# CONFIG_"*" is not set") ;;
		*) continue ;;
		esac
		grep -qxF "$line" "$KBUILD/.config" && continue
		echo "config: '$line' of ${KCONFIGS[*]} is not in $KBUILD/.config"
		missing=1
	done <"$frag"
	[ "$missing" = 0 ] && with_build_lock kmake_arm64 O="$BOARD_DIR" "${KTARGETS[@]}"
}

# result STATUS NAME [DETAIL] (lib.sh), but the checks of a variant's run
# are named after it ("board16-debug: ..."), whichever function counts them
RUN_NAME=
eval "lib_$(declare -f result)"
result() {
	local name=$2 base=${RUN_NAME%-debug}
	if [ "$RUN_NAME" != "$base" ]; then
		case "$name" in
		"$base: "*) name=$RUN_NAME${name#"$base"} ;;
		*) name="$RUN_NAME: $name" ;;
		esac
	fi
	lib_result "$1" "$name" "${@:3}"
}

# check_scan_console: scan_console (lib.sh) must catch each kind of kernel
# report, named by its first line, in a console like the guests' (CRLF,
# timestamps, the banners of the debug options), and pass a clean one.
check_scan_console() {
	local name="board: scan_console catches WARNING, BUG, Oops, lockdep, KASAN, UBSAN, kmemleak"
	local tmp clean line out bad=''
	local reports=(
		'WARNING: CPU: 3 PID: 1 at drivers/hwtracing/coresight/coresight-core.c:123 coresight_enable+0x40/0x100'
		'BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580'
		'Internal error: Oops: 96000004 [#1] PREEMPT SMP'
		'Unable to handle kernel NULL pointer dereference at virtual address 0000000000000008'
		'kernel BUG at drivers/hwtracing/coresight/coresight-trace-id.c:42!'
		'WARNING: possible recursive locking detected'
		'WARNING: possible circular locking dependency detected'
		'WARNING: inconsistent lock state'
		'WARNING: suspicious RCU usage'
		'BUG: KASAN: slab-out-of-bounds in sim_sink_update+0x1c/0x40 [csboard]'
		'UBSAN: shift-out-of-bounds in drivers/hwtracing/coresight/coresight-trace-id.c:77:9'
		'kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)'
		'Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000000'
	)
	tmp=$(mktemp -d) || return
	clean=$tmp/clean.log
	printf '[    0.000000] %s\r\n' 'Booting Linux on physical CPU 0x0000000000 [0x411fd070]' \
		'kasan: KernelAddressSanitizer initialized (generic)' \
		'Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar' \
		'kmemleak: Kernel memory leak detector initialized (mem pool available: 14658)' \
		'board: sessions done' >"$clean"
	out=$(RESULTS=/dev/null scan_console clean "$clean")
	[ "$out" = "  ok   clean" ] || bad="a clean console: $out"
	for line in "${reports[@]}"; do
		[ -z "$bad" ] || break
		{ cat "$clean"; printf '[   12.345678] %s\r\n[   12.345679] next line\r\n' "$line"; } >"$tmp/c.log"
		out=$(RESULTS=/dev/null scan_console report "$tmp/c.log")
		[ "$out" = "  FAIL report: [   12.345678] $line" ] || bad="'$line': ${out:-no output}"
	done
	rm -rf "$tmp"
	if [ -n "$bad" ]; then
		result FAIL "$name" "$bad"
	else
		result PASS "$name"
	fi
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
	local b=board${VARIANT:+ ($VARIANT)}
	run_step "$b: build the guest kernel" "$LOGDIR/board-kernel.log" build_kernel &&
		run_step "$b: build csboard.ko" "$LOGDIR/board-module.log" build_module &&
		CSID_RESULTS=/dev/null bash "$TOP/scripts/perf-arm64.sh" &&
		host_perf_current &&
		run_step "$b: build the workload hop" "$LOGDIR/board-hop.log" build_hop &&
		run_step "$b: build the initramfs" "$LOGDIR/board-initramfs.log" \
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
	if [ "$VARIANT" = debug ]; then
		if [ "$smp" -gt "$DEBUG_MAX_SMP" ]; then
			result FAIL "$run: boot" "$smp vCPUs, the debug kernel boots $DEBUG_MAX_SMP at most"
			return 1
		fi
		timeout=$((timeout * DEBUG_TIMEOUT_X))
		# the kernel's KUnit suites are kunit.sh debug's run, not this
		append+=" kunit.enable=0"
		# perf reads its data buffers late on this slow kernel: 16
		# pages lost HW_ID records, 128 pages one in a snapshot session
		append+=" board.data=$DEBUG_DATA_PAGES printk.time=1"
		# its sessions last longer, so its sources write less often:
		# at board16's 8 ms a sink gathered more than its CPUs' AUX
		# buffers hold (4 MiB) and cut the trace
		if [[ $append =~ period_us=([0-9]+) ]]; then
			append=${append/period_us=${BASH_REMATCH[1]}/period_us=$((BASH_REMATCH[1] * DEBUG_PERIOD_X))}
		fi
	fi
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
		# what made it hang or crash, if the kernel said so
		scan_console "$run: guest kernel: no warning, BUG, oops, lockdep, KASAN or UBSAN report" \
			"$dir/console.log"
		return 1
	fi
	result PASS "$run: guest boots and returns its results"
	scan_console "$run: guest kernel: no warning, BUG, oops, lockdep, KASAN or UBSAN report" \
		"$dir/console.log"
	[ "$VARIANT" != debug ] || check_debug_reports "$run"
}

# check_debug_reports RUN: what the debug kernel reports beyond its
# console. kmemleak lists leaks only after a scan, which the guest's /init
# asks for twice after the sessions (kmemleak.status: one line per scan and
# for the read, "ok" or the error); a kmemleak that turned itself off
# refuses the scans. Lockdep that turned itself off shows debug_locks 0.
check_debug_reports() {
	local run=$1 dir=$GUEST/$1/out name bad locks
	name="$run: kmemleak: two scans after the sessions, no leak reported"
	bad=$(grep -v ': ok$' "$dir/kmemleak.status" 2>/dev/null | head -n 1)
	if [ ! -f "$dir/kmemleak.status" ]; then
		result FAIL "$name" "no /sys/kernel/debug/kmemleak in the guest"
	elif [ -n "$bad" ] || [ "$(grep -c ': ok$' "$dir/kmemleak.status")" -ne 3 ]; then
		result FAIL "$name" "${bad:+kmemleak is off: }${bad:-steps missing} ($dir/kmemleak.status)"
	elif grep -qi disabled "$dir/kmemleak"; then
		result FAIL "$name" "kmemleak is off: $(grep -m1 -i disabled "$dir/kmemleak")"
	elif [ -s "$dir/kmemleak" ]; then
		result FAIL "$name" "$(head -n 1 "$dir/kmemleak") ($dir/kmemleak)"
	else
		result PASS "$name"
	fi
	name="$run: lockdep still on after the sessions"
	locks=$(grep -s -m1 debug_locks "$dir/lockdep_stats" | tr -s ' ')
	if [ "$locks" = " debug_locks: 1" ]; then
		result PASS "$name"
	else
		result FAIL "$name" "${locks:-no /proc/lockdep_stats in the guest}"
	fi
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

# The kernel names the CPUs it left out when their events are set up, with
# the cause (rate-limited: perf record -a sets up one event per CPU): every
# CPU it names is one of those that can't have an ID
check_full_sink_log() {
	local run=$1 name=$2 sink=$3 first=$4 last=$5 dir=$GUEST/$1/out cpus bad=
	local cause="$sink: No free trace ID for CPU [0-9]+, not traced: more than 111 sources on this sink"
	local what="$run: kernel log names $sink and the cause for CPUs left out, all of them among CPUs $first-$last"
	cpus=$(grep -oE "$cause" "$dir/$name.dmesg" | sed -E 's/.*for CPU ([0-9]+),.*/\1/')
	for cpu in $cpus; do
		[ "$cpu" -ge "$first" ] && [ "$cpu" -le "$last" ] || bad="$bad $cpu"
	done
	if [ -n "$cpus" ] && [ -z "$bad" ]; then
		result PASS "$what"
	else
		result FAIL "$what" "want lines '$cause' for CPUs $first-$last only; found CPUs [$(echo $cpus)], out of range [$bad] in $dir/$name.dmesg"
	fi
}

# sysfsperf: the CPUs the scenario traced in sysfs mode kept their IDs
# (not reset) while perf record -a traced every CPU
check_sysfsperf_kept() {
	local run=$1 kept=$GUEST/$1/out/sysperf.kept n=0 cpu id
	while read -r cpu id; do
		[ "$((id))" -gt 0 ] && n=$((n + 1))
	done <"$kept"
	if [ "$n" -eq 60 ]; then
		result PASS "$run: sysperf: 60 CPUs of simsink1 keep sysfs mode IDs during perf record -a"
	else
		result FAIL "$run: sysperf: 60 CPUs of simsink1 keep sysfs mode IDs during perf record -a" \
			"$n CPUs with an ID in $kept"
	fi
}

# Every CPU below 48 keeps its legacy ID 0x10 + 2 * cpu, so the two sinks
# use different IDs here: shared IDs are board128's part.
# 8 MiB of trace RAM per sink and a piece of trace every 8 ms: the sinks
# must not wrap in the long sessions of the scenarios (hotplug runs twice
# as long on the debug kernel)
run_board16() {
	boot board16 16 300 \
		"board.sessions=default:-:0,wrap:-:4 board.modargs=period_us=8000,ram_kb=8192 board.aux=1024 board.scenarios=perthread,snapshot,concurrent,hotplug board.scripts=modunload" \
		2 || return
	report board16 default all 16 2
	report board16 wrap lossy 16 2
	report_scenarios board16 16
	# the sinks' module unloaded and reloaded: on the debug kernel, the
	# kmemleak scans that follow see what it left behind
	scenario_check board16 modunload-check.sh "$GUEST/board16/out"
}

# What the series is for, shown by make setup: CPUs 48-63 have no legacy
# ID, so they take the lowest free IDs of their sink's map, and an ID can be
# in use on both sinks at once.
run_board64() {
	boot board64 64 600 \
		"board.sessions=default:-:0 board.modargs=period_us=50000,ram_kb=2048 board.aux=512 board.scenarios=perthread,switchout" \
		2 || return
	report board64 default shared 64 2
	# per-thread through CPU 0 and CPU 63, which hold the same ID on the
	# two sinks
	report board64 thread thread 64 2
	checks board64 bash "$B/maps.sh" empty thread "$GUEST/board64/out/thread.maps"
	# --switch-output: the files after the first decode alone, CPUs from
	# 48 on too, whose trace IDs are not the metadata's placeholders
	scenario_check board64 switchout-check.sh "$PERF_DIR/perf" "$KBUILD/vmlinux" \
		"$GUEST/board64/out" 64 2
	checks board64 bash "$B/maps.sh" empty switchout "$GUEST/board64/out/switch.maps"
}

run_board128() {
	# IDs 0x01-0x6f (design brief): one map holds 111 sources. The STM's
	# system ID costs the sinks nothing while the STM is disabled. CPUs
	# 0-110 fit on the global sink, 111-127 do not.
	local usable=$((0x70 - 0x01))
	boot board128 128 900 \
		"board.sessions=default:-:0,global:simsink2:0 board.modargs=period_us=100000,ram_kb=2048 board.aux=512 board.scenarios=sysfsperf board.scripts=sysfs,stm,modunload" \
		2 global stm || return
	report board128 default shared 128 3
	report board128 global "untraced:$usable-127" 128 3
	check_full_sink_log board128 global simsink2 "$usable" 127
	# 60 CPUs of simsink1 keep sysfs mode IDs: still every CPU traced
	check_sysfsperf_kept board128
	report board128 sysperf shared 128 3
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

# --kernel-only VARIANT: only build the guest kernel of VARIANT (debug, for
# kunit.sh debug)
if [ "${1:-}" = --kernel-only ]; then
	set_variant "${2:-}"
	run_step "board${VARIANT:+ ($VARIANT)}: build the guest kernel" \
		"$LOGDIR/board-kernel.log" build_kernel
	exit
fi

runs=()
for r in "${@:-board16}"; do
	if [ "$r" = debug ]; then
		runs+=("${DEBUG_RUNS[@]/%/-debug}")
	else
		runs+=("$r")
	fi
done
# RUN and RUN-debug call run_RUN (lib.sh's run_step is no run)
for r in "${runs[@]}"; do
	if [ "${r%-debug}" = step ] || ! declare -F "run_${r%-debug}" >/dev/null; then
		die "unknown run $r (runs: $(declare -F | sed -n '/ run_step$/d; s/.* run_//p' |
			tr '\n' ' ')and RUN-debug, debug)"
	fi
done
need_tools "board: tools" qemu-system-aarch64:qemu-system-arm dtc:device-tree-compiler \
	aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu cpio:cpio gzip:gzip \
	trc_pkt_lister:libopencsd-bin || exit 1
# scan_console's own check, with the runs of the board kernel (make ci's
# board.sh debug comes after make test's runs)
for r in "${runs[@]}"; do
	[ "$r" != "${r%-debug}" ] || { check_scan_console; break; }
done
# One guest kernel build per variant, before its first run
declare -A built=()
for r in "${runs[@]}"; do
	v=
	[ "$r" = "${r%-debug}" ] || v=debug
	set_variant "$v"
	if [ -z "${built[x$v]:-}" ]; then
		build_guest || { result FAIL "board${v:+ ($v)}: build the guest" "logs: $LOGDIR/board-*.log"; exit 1; }
		built[x$v]=1
	fi
	[ -z "$v" ] || say "$r: ${r%-debug} on the $v kernel"
	RUN_NAME=$r
	"run_${r%-debug}"
	RUN_NAME=
done
exit "$FAILED"
