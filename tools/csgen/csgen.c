// SPDX-License-Identifier: GPL-2.0
/*
 * csgen - write synthetic cs_etm perf.data files for decode tests.
 *
 * N CPUs spread over S sinks, ETMv4 instruction trace of each CPU in 16-byte
 * formatted frames, PERF_RECORD_AUX_OUTPUT_HW_ID records (none, v0.0, v0.1),
 * cs_etm metadata header version 1 (static IDs) or 2, per-CPU or per-thread
 * layout, MMAP records of an arm64 ELF so that perf resolves symbols.
 *
 * The trace of CPU c always runs function func_cpu<c> of the ELF with
 * context ID (pid) pid_base + c (per-CPU mode) or the one thread pid
 * (per-thread mode), so a test can check attribution from perf script.
 *
 * This file: main. The others: see csgen.h.
 */
#include <linux/perf_event.h>
#include <stdio.h>

#include "csgen.h"

int main(int argc, char **argv)
{
	parse_options(argc, argv);
	alloc_trace_ids();
	if (list_topology) {
		int c;

		for (c = 0; c < nr_cpus; c++)
			printf("cpu %d sink %#x id %#x pid %d\n", c, sink_id(sink_of(c)),
			       trace_id(c), cpu_pid(c));
	}

	read_elf(elf_path);
	data_offset = 104 + (PERF_ATTR_SIZE_VER7 + 16 + 8) * (extra_event ? 2 : 1);

	put_auxtrace_info();
	if (nr_hops)
		gen_per_thread_hops();
	else if (per_thread)
		gen_per_thread();
	else
		gen_per_cpu();
	write_file();
	return 0;
}
