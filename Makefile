# SPDX-License-Identifier: GPL-2.0
# Workspace of the per-sink CoreSight trace ID series for Linux 6.1.
# Every target is a script in scripts/; see README.md.

S := scripts

.PHONY: all setup test ci apply export lint kunit kunit-debug perf decode board board64 board128 board64raw board-debug bisect fuzz bench mutants board-mutants perf-patches perf-612 rewritten clean

all: setup

setup:			## the whole job: install, base tree, series, kernel, perf
	@bash $(S)/setup.sh

test:			## every test; ends with "N passed, N failed"
	@bash $(S)/test.sh

ci:			## test, plus the bisect build, the KASAN/lockdep KUnit run and make board-debug
	@bash $(S)/test.sh --ci

apply:			## install what is missing, then apply patches/ onto the base in build/linux
	@bash $(S)/deps.sh && bash $(S)/base.sh && bash $(S)/series.sh apply

export:			## turn build/linux's commits since the base into patches/
	@bash $(S)/series.sh export

lint:
	@bash $(S)/lint.sh

kunit:
	@bash $(S)/kunit.sh

kunit-debug:
	@bash $(S)/kunit.sh debug

perf:
	@bash $(S)/perf.sh

decode:
	@bash $(S)/decode-tests.sh

board:			## simulated 16-CPU, 2-sink board: perf record in QEMU, decode, table
	@bash $(S)/board.sh board16

board64:		## 64 CPUs on 2 sinks: CPUs from 48 on, IDs shared by the sinks (make setup's table)
	@bash $(S)/board.sh board64

board128:		## 128 CPUs on 2 sinks, and on one sink with too few IDs; sysfs, STM, module unload
	@bash $(S)/board.sh board128

board64raw:		## 64 CPUs, each with its own per-CPU raw sink (TRBE-like): per-CPU and per-thread
	@bash $(S)/board.sh board64raw

board-debug:		## the board's <=16-CPU runs on a KASAN/lockdep/UBSAN/kmemleak guest kernel
	@bash $(S)/board.sh debug

bisect:
	@bash $(S)/bisect.sh

fuzz:			## longer fuzzing of the decoder (ASan+UBSan perf); FUZZ_FILES, FUZZ_SEED
	@bash $(S)/fuzz.sh

bench:			## decode benchmark: patched against stock 6.1 perf
	@bash $(S)/bench.sh

mutants:		## mutation check of the tests: break the series on purpose, N of M caught
	@bash $(S)/mutants.sh

board-mutants:		## the mutants of the perf glue's order, each caught by a board16 run
	@bash $(S)/board-mutant.sh

perf-patches:		## each perf patch: build perf, decode tests; what passed once passes at every later patch
	@bash $(S)/perf-patches.sh

perf-612:		## upstream 6.12's perf from Debian's linux-source-6.12, a black box to compare with
	@bash $(S)/perf-612.sh

rewritten:		## lines of the series written by one patch and rewritten by a later one
	@python3 $(S)/rewritten.py build/linux base series

clean:			## remove build/ (the cached base stays in ~/.cache/cs-trace-id)
	rm -rf build
