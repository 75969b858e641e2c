#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make fuzz: a longer fuzzing campaign than the bounded one of the decode
# tests, on the ASan+UBSan perf of the series. FUZZ_FILES files (default
# 20000) from seed FUZZ_SEED (default: one from the clock, printed, so a
# finding can be reproduced with the same seed).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ASAN_OUT=$BUILD/perf-asan
SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer"
files=${FUZZ_FILES:-20000}
seed=${FUZZ_SEED:-$(( $(date +%s) % 1000000 * 100 ))}

bash "$TOP/scripts/perf.sh" "$KSRC" "$ASAN_OUT" perf-asan WERROR=0 \
	"EXTRA_CFLAGS=$SANITIZE" "LDFLAGS=$SANITIZE" || exit 1
echo "fuzz: seeds $seed-$((seed + files - 1)) (FUZZ_SEED=$seed to repeat)"
"$TOP/tests/decode/fuzz.sh" "$ASAN_OUT/perf" "$BUILD/fuzz-long" "$files" "$seed"
