#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build perf for the host with CoreSight decoding (Debian's libopencsd) and
# check that the OpenCSD decoder and zstd (perf record -z) are compiled in.
#
# Usage: perf.sh [TREE [OUTDIR [NAME [MAKE_ARGS...]]]]   default: the series tree
# PERF_REUSE_FEATURES=1: take the host's features from OUTDIR's last build
# instead of detecting them again (lib.sh's perf_features).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

tree=${1:-$KSRC}
out=${2:-$PERF_DIR}
name=${3:-perf}
extra=("${@:4}")
log=$LOGDIR/$name-build.log

PERF_FLAGS=(CORESIGHT=1 NO_LIBPYTHON=1 NO_LIBPERL=1 NO_JEVENTS=1
	    NO_LIBTRACEEVENT=1 NO_JVMTI=1 NO_LIBBPF=1 NO_BPF_SKEL=1)

build_perf() {
	local features
	mkdir -p "$out"
	features=$(perf_features "$tree" "$out") || return
	with_build_lock make -C "$tree/tools/perf" O="$out" "${PERF_FLAGS[@]}" \
		CC="$TOP/scripts/perf-ccache gcc" ${features:+"$features"} "${extra[@]}" -j"$JOBS" perf
}

# 6.1's "perf version --build-options" does not list OpenCSD: look at the
# binary itself for the decoder library and its entry points.
has_opencsd() {
	grep -q 'NEEDED.*libopencsd_c_api' <(readelf -d "$out/perf") &&
		grep -qw ocsd_create_dcd_tree <(nm -D --undefined-only "$out/perf")
}

if ! run_step "$name: build host perf with CORESIGHT=1" "$log" build_perf; then
	grep -i -m3 -e 'opencsd' -e 'No such file' "$log" | sed 's/^/    /'
	result FAIL "$name build" "log: $log"
	exit 1
fi
result PASS "$name build"
if has_opencsd; then
	result PASS "$name has the OpenCSD decoder"
else
	result FAIL "$name has the OpenCSD decoder" \
		"not linked with libopencsd: apt-get install -y libopencsd-dev, then rebuild (log: $log)"
	exit 1
fi
# perf record -z files (PERF_RECORD_COMPRESSED) need zstd
if grep -q 'NEEDED.*libzstd' <(readelf -d "$out/perf"); then
	result PASS "$name reads perf record -z files (zstd)"
else
	result FAIL "$name reads perf record -z files (zstd)" \
		"not linked with libzstd: apt-get install -y libzstd-dev, then rebuild (log: $log)"
fi
exit "$FAILED"
