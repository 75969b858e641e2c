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

/* -S: trace captured on hardware, from an OpenCSD snapshot */
static void snapshot_main(void)
{
	snap_read(snap_dir);
	nr_cpus = snap.nr_cpus;
	if (nr_sinks > nr_cpus)
		die("%d sinks for %d CPUs", nr_sinks, nr_cpus);
	snap_slice(slice_from, slice_bytes);
	alloc_trace_ids();
	if (list_topology) {
		int c;

		printf("slice offset %#zx size %#zx\n", snap.slice_start, snap.capture.len);
		for (c = 0; c < nr_cpus; c++)
			printf("cpu %d sink %#x id %#x pid %d snapshot_id %#x bytes %zu\n", c,
			       sink_id(sink_of(c)), trace_id(c), cpu_pid(c), snap.cpu[c].id,
			       snap.stream[snap.cpu[c].id].data.len);
		snap_list_syncs();
	}
	snap_write_elf(elf_path);
	data_offset = 104 + (PERF_ATTR_SIZE_VER7 + 16 + 8) * (extra_event ? 2 : 1);
	put_auxtrace_info();
	snap_gen();
	write_file();
}

int main(int argc, char **argv)
{
	parse_options(argc, argv);
	if (snap_dir) {
		snapshot_main();
		return 0;
	}
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
	if (overwrite)
		gen_overwrite();
	else if (nr_children)
		gen_per_thread_children();
	else if (nr_hops)
		gen_per_thread_hops();
	else if (per_thread)
		gen_per_thread();
	else
		gen_per_cpu();
	write_file();
	return 0;
}
