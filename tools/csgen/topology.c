// SPDX-License-Identifier: GPL-2.0
/*
 * csgen topology: the code each CPU runs (from the ELF), the sink of each
 * CPU, and trace ID allocation as the kernel does it.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csgen.h"

int traced(int cpu)
{
	return nr_traced < 0 || cpu < nr_traced;
}

/*
 * Whether the buffer of @cpu (or the part run on @cpu) is unformatted: its
 * sink is its own (TRBE), shared with no other CPU
 */
int raw_cpu(int cpu)
{
	return unformatted || (cpu == 1 && !strcmp(bad, "mixfmt"));
}

/* ---- ELF: function addresses and the text mapping ---- */
u64 func_addr[MAX_CPUS];
u64 map_start, map_len, map_pgoff;

void read_elf(const char *path)
{
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	Elf64_Phdr ph;
	long sz;
	u8 *img;
	int i, found = 0;

	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	img = malloc(sz);
	if (!img || fread(img, 1, sz, f) != (size_t)sz)
		die("cannot read %s", path);
	fclose(f);
	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != EM_AARCH64)
		die("%s is not an arm64 ELF64 file", path);

	for (i = 0; i < eh.e_phnum; i++) {
		memcpy(&ph, img + eh.e_phoff + i * eh.e_phentsize, sizeof(ph));
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			map_start = ph.p_vaddr & ~0xfffULL;
			map_pgoff = ph.p_offset & ~0xfffULL;
			map_len = ((ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL) - map_start;
			found = 1;
			break;
		}
	}
	if (!found)
		die("%s has no executable PT_LOAD", path);

	sh = (Elf64_Shdr *)(img + eh.e_shoff);
	for (i = 0; i < eh.e_shnum; i++) {
		Elf64_Sym *sym;
		const char *str;
		size_t n, k;

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		sym = (Elf64_Sym *)(img + sh[i].sh_offset);
		str = (const char *)(img + sh[sh[i].sh_link].sh_offset);
		n = sh[i].sh_size / sizeof(Elf64_Sym);
		for (k = 0; k < n; k++) {
			const char *name = str + sym[k].st_name;
			int c;

			if (sscanf(name, "func_cpu%d", &c) == 1 && c >= 0 && c < MAX_CPUS)
				func_addr[c] = sym[k].st_value;
		}
	}
	for (i = 0; i < nr_cpus; i++)
		if (!func_addr[i])
			die("%s has no symbol func_cpu%d", path, i);
	free(img);
}

/* ---- topology and trace IDs ---- */
int sink_of(int cpu)
{
	return (int)((long)cpu * nr_sinks / nr_cpus);
}

u32 sink_id(int sink)
{
	/* Like the hash of a sink name: arbitrary 32-bit values */
	return 0x9e3779b9u * (u32)(sink + 1) ^ 0x5bd1e995u;
}

static int cpu_trace_id[MAX_CPUS];

/* Map a CPU allocates from: its sink's, or one for all (static, v0.0) */
static int map_of(int cpu)
{
	return hwid_minor < 1 ? 0 : sink_of(cpu);
}

/*
 * Allocate as the kernel does, CPU by CPU in order: in the map of the CPU's
 * sink, the legacy ID 0x10 + 2 * cpu where it is valid and free, otherwise
 * the lowest free ID.
 */
void alloc_trace_ids(void)
{
	static unsigned char used[MAX_SINKS][TRACE_ID_MAX + 1];
	int c, id;

	for (c = 0; c < nr_cpus; c++) {
		unsigned char *map = used[map_of(c)];

		/*
		 * -S: one sink keeps the IDs the sources wrote; the streams
		 * re-formatted onto several sinks take the lowest free IDs of
		 * their sink, so that the sinks share small IDs.
		 */
		if (snap_dir && nr_sinks == 1) {
			cpu_trace_id[c] = snap.cpu[c].id;
			continue;
		}
		if (snap_dir) {
			for (id = TRACE_ID_MIN; map[id]; id++)
				;
			map[id] = 1;
			cpu_trace_id[c] = id;
			continue;
		}

		/*
		 * -F (header v2) or -M (v1) without HW_ID records: perf
		 * 6.3-6.10 or stock 6.1 perf on a stock 6.1 kernel, whose ETM
		 * writes the legacy ID 0x10 + 2 * cpu into its 7-bit trace ID
		 * field: the trace carries bits 6:0 of it (0x70-0x7e for CPUs
		 * 48-55, 0 for CPU 56, 0x02-0x0e for CPUs 57-63, those of
		 * CPU - 64 from CPU 64 on)
		 */
		if (hwid_minor < 0 && (header_version >= 2 ? flagged_meta : legacy_meta)) {
			cpu_trace_id[c] = (0x10 + 2 * c) & 0x7f;
			continue;
		}
		id = 0x10 + 2 * c;
		if (id > TRACE_ID_MAX || map[id])
			for (id = TRACE_ID_MIN; id <= TRACE_ID_MAX && map[id]; id++)
				;
		if (id > TRACE_ID_MAX)
			die("CPU %d: all %d trace IDs of its ID map are taken: at most %d CPUs can share a sink",
			    c, TRACE_ID_MAX - TRACE_ID_MIN + 1, TRACE_ID_MAX - TRACE_ID_MIN + 1);
		map[id] = 1;
		cpu_trace_id[c] = id;
	}
}

int trace_id(int cpu)
{
	return cpu_trace_id[cpu];
}

int cpu_pid(int cpu)
{
	/* -S: the writer's one thread runs the snapshot's code on every CPU */
	return per_thread || snap_dir ? thread_pid : pid_base + cpu;
}

/* Traced CPUs sharing the sink of @cpu, in order, and the position of @cpu */
int sink_peer(int cpu, int step)
{
	int peers[MAX_CPUS], n = 0, me = 0, i;

	for (i = 0; i < nr_cpus; i++) {
		if (sink_of(i) != sink_of(cpu) || !traced(i) || raw_cpu(i) != raw_cpu(cpu))
			continue;
		if (i == cpu)
			me = n;
		peers[n++] = i;
	}
	return peers[(me + step + n) % n];
}

