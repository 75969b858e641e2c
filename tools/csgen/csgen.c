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
 */
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;

/* perf tool private record types */
#define REC_AUXTRACE_INFO	70
#define REC_AUXTRACE		71
#define REC_FINISHED_ROUND	68
#define AUXTRACE_CS_ETM		3

/* perf.data features */
#define FEAT_NRCPUS		7
#define FEAT_AUXTRACE		18

/* cs_etm metadata */
#define ETMV4_MAGIC		0x4040404040404040ULL
#define ETMV4_NR_PARAMS		7
#define PMU_TYPE		42
#define ETM_OPT_CTXTID		14
#define ETM_OPT_TS		28

#define MAX_CPUS		512
#define EVENT_ID		7
#define MAX_SINKS		64

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "csgen: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* ---- growable byte buffer ---- */
struct buf {
	u8 *p;
	size_t len, cap;
};

static void buf_put(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("out of memory");
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void buf_u8(struct buf *b, u8 v) { buf_put(b, &v, 1); }
static void buf_u32(struct buf *b, u32 v) { buf_put(b, &v, 4); }
static void buf_u64(struct buf *b, u64 v) { buf_put(b, &v, 8); }

/* ---- options ---- */
static int nr_cpus = 4, nr_sinks = 1, header_version = 2, per_thread;
static int hwid_minor = 1;		/* -1: no HW_ID records */
static int atoms = 200, ts_every = 16, sample_cpu = 1, chunk = 24;
static int pid_base = 1000, thread_pid = 4242, segments;
static const char *end_mode = "frame", *bad = "", *elf_path, *out_path;
static int barrier, legacy_meta, list_topology;
static int flagged_meta, extra_event, unformatted;
static int nr_traced = -1;	/* -Z: CPUs from this one on got no trace ID */

static int traced(int cpu)
{
	return nr_traced < 0 || cpu < nr_traced;
}

/* ---- ELF: function addresses and the text mapping ---- */
static u64 func_addr[MAX_CPUS];
static u64 map_start, map_len, map_pgoff;

static void read_elf(const char *path)
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
static int sink_of(int cpu)
{
	return (int)((long)cpu * nr_sinks / nr_cpus);
}

static u32 sink_id(int sink)
{
	/* Like the hash of a sink name: arbitrary 32-bit values */
	return 0x9e3779b9u * (u32)(sink + 1) ^ 0x5bd1e995u;
}

/* Trace IDs 0x01-0x6f can be allocated: 111 per map */
#define TRACE_ID_MIN		0x01
#define TRACE_ID_MAX		0x6f

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
static void alloc_trace_ids(void)
{
	static unsigned char used[MAX_SINKS][TRACE_ID_MAX + 1];
	int c, id;

	for (c = 0; c < nr_cpus; c++) {
		unsigned char *map = used[map_of(c)];

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

static int trace_id(int cpu)
{
	return cpu_trace_id[cpu];
}

static int cpu_pid(int cpu)
{
	return per_thread ? thread_pid : pid_base + cpu;
}

/* ---- ETMv4 packet encoder ---- */
static void etm_async(struct buf *b)
{
	int i;

	for (i = 0; i < 11; i++)
		buf_u8(b, 0x00);
	buf_u8(b, 0x80);
}

static void etm_trace_info(struct buf *b)
{
	buf_u8(b, 0x01);
	buf_u8(b, 0x00);	/* PLCTL: no info sections */
}

static void etm_timestamp(struct buf *b, u64 ts)
{
	int i;

	buf_u8(b, 0x02);
	for (i = 0; i < 8; i++) {
		u8 v = ts & 0x7f;

		ts >>= 7;
		if (!ts) {
			buf_u8(b, v);
			return;
		}
		buf_u8(b, v | 0x80);
	}
	buf_u8(b, ts & 0xff);	/* 9th byte carries 8 bits */
}

static void etm_addr64(struct buf *b, u64 a)
{
	int i;

	buf_u8(b, (a >> 2) & 0x7f);
	buf_u8(b, (a >> 9) & 0x7f);
	for (i = 2; i < 8; i++)
		buf_u8(b, (a >> (8 * i)) & 0xff);
}

/* Address with context, 64-bit IS0: EL0, AArch64, non-secure, CONTEXTID */
static void etm_addr_ctx(struct buf *b, u64 addr, u32 ctxid)
{
	buf_u8(b, 0x85);
	etm_addr64(b, addr);
	buf_u8(b, 0x80 | 0x20 | 0x10);
	buf_u32(b, ctxid);
}

static u64 ts_base = 0x1234500000000ULL;

/*
 * One self-contained piece of the trace of a CPU: sync, timestamp, address
 * and context, then E atoms of the loop of func_cpu<cpu>.
 */
static void etm_part(struct buf *b, int cpu, int part, int nr_atoms)
{
	u64 ts = ts_base + (u64)part * 0x10000000ULL + (u64)cpu * 0x1000;
	int i;

	etm_async(b);
	etm_trace_info(b);
	etm_timestamp(b, ts);
	etm_addr_ctx(b, func_addr[cpu], cpu_pid(cpu));
	for (i = 0; i < nr_atoms; i++) {
		buf_u8(b, 0xf7);	/* E atom: the loop branch is taken */
		if (ts_every && (i + 1) % ts_every == 0) {
			ts += 0x100;
			etm_timestamp(b, ts);
		}
	}
	if (!strcmp(end_mode, "async"))
		etm_async(b);
}

/* ---- CoreSight frame formatter ---- */
struct fmt {
	struct buf *out;
	u8 frame[16];
	int pos;
	int cur_id;
};

static void fmt_init(struct fmt *f, struct buf *out)
{
	memset(f, 0, sizeof(*f));
	f->out = out;
	f->cur_id = -1;
}

static void fmt_flush_frame(struct fmt *f)
{
	buf_put(f->out, f->frame, 16);
	memset(f->frame, 0, 16);
	f->pos = 0;
}

static void fmt_raw_byte(struct fmt *f, u8 v)
{
	if (f->pos & 1) {
		f->frame[f->pos] = v;
	} else {
		f->frame[f->pos] = v & 0xfe;
		f->frame[15] |= (v & 1) << (f->pos / 2);
	}
	if (++f->pos == 15)
		fmt_flush_frame(f);
}

/* Switch to ID @id before the next data byte */
static void fmt_set_id(struct fmt *f, int id)
{
	if (f->cur_id == id)
		return;
	if (f->pos & 1) {
		/*
		 * IDs go in even bytes only: move the previous data byte to
		 * this odd slot and put the ID before it, flagged to apply
		 * after it.
		 */
		int p = f->pos - 1;
		u8 prev = f->frame[p] | ((f->frame[15] >> (p / 2)) & 1);

		f->frame[p] = (u8)(id << 1) | 1;
		f->frame[15] |= 1 << (p / 2);
		f->frame[f->pos] = prev;
		if (++f->pos == 15)
			fmt_flush_frame(f);
	} else {
		f->frame[f->pos] = (u8)(id << 1) | 1;
		/* aux bit 0: the new ID applies from the next byte on */
		if (++f->pos == 15)
			fmt_flush_frame(f);
	}
	f->cur_id = id;
}

static void fmt_data(struct fmt *f, int id, const u8 *d, size_t n)
{
	size_t i;

	fmt_set_id(f, id);
	for (i = 0; i < n; i++)
		fmt_raw_byte(f, d[i]);
}

/* End of a buffer: pad the last frame with the null ID */
static void fmt_finish(struct fmt *f)
{
	int k;

	if (f->pos) {
		fmt_set_id(f, 0);
		while (f->pos)
			fmt_raw_byte(f, 0);
	}
	if (!strcmp(end_mode, "pad")) {
		f->cur_id = -1;
		for (k = 0; k < 4; k++) {
			fmt_set_id(f, 0);
			while (f->pos)
				fmt_raw_byte(f, 0);
			f->cur_id = -1;
		}
	}
}

static void fmt_barrier(struct buf *out)
{
	int i;

	for (i = 0; i < 4; i++)
		buf_u32(out, 0x7fffffff);
}

/*
 * Unformatted trace (ETE + TRBE style): the bytes of one source as they
 * are, padded to 8 bytes with ETMv4 Ignore packets (0x70).
 */
static void raw_data(struct buf *out, const struct buf *d)
{
	buf_put(out, d->p, d->len);
	while (out->len % 8)
		buf_u8(out, 0x70);
}

/* Whether the buffer of @cpu (or the part run on @cpu) is unformatted */
static int raw_cpu(int cpu)
{
	return unformatted || (cpu == 1 && !strcmp(bad, "mixfmt"));
}

/* Interleave several streams in chunks of varying size */
struct stream {
	int id;
	struct buf data;
	size_t used;
};

static void fmt_interleave(struct fmt *f, struct stream *s, int n)
{
	int left = n, i, round = 0;

	while (left) {
		left = 0;
		for (i = 0; i < n; i++) {
			size_t sz = chunk + (round * 7 + i * 5) % 13;

			if (s[i].used >= s[i].data.len)
				continue;
			if (sz > s[i].data.len - s[i].used)
				sz = s[i].data.len - s[i].used;
			fmt_data(f, s[i].id, s[i].data.p + s[i].used, sz);
			s[i].used += sz;
			if (s[i].used < s[i].data.len)
				left++;
		}
		round++;
	}
}

/* ---- perf.data writer ---- */
static struct buf data;		/* the data section */
static u64 data_offset;		/* file offset of the data section */
static u64 index_off[4096], nr_index;
static u64 now = 1000000000ULL;

/* sample_id_all trailer: TID, TIME[, CPU], IDENTIFIER */
static void put_sample_id(struct buf *b, int pid, int tid, int cpu)
{
	buf_u32(b, pid);
	buf_u32(b, tid);
	buf_u64(b, now++);
	if (sample_cpu) {
		buf_u32(b, cpu);
		buf_u32(b, 0);
	}
	buf_u64(b, EVENT_ID);
}


struct rec {
	size_t start;
};

static void rec_begin(struct rec *r, u32 type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };

	r->start = data.len;
	buf_put(&data, &h, sizeof(h));
}

static void rec_end(struct rec *r)
{
	struct perf_event_header *h = (void *)(data.p + r->start);

	h->size = data.len - r->start;
}

static void put_comm(int pid, int cpu, const char *comm)
{
	struct rec r;
	char name[16] = { 0 };

	snprintf(name, sizeof(name), "%s", comm);
	rec_begin(&r, PERF_RECORD_COMM, 0);
	buf_u32(&data, pid);
	buf_u32(&data, pid);
	buf_put(&data, name, 16);
	put_sample_id(&data, pid, pid, cpu);
	if (cpu == 0 && !strcmp(bad, "oddsize")) {
		/* a size that is not a multiple of 8: the next record is misaligned */
		buf_u32(&data, 0);
		if (list_topology)
			printf("misaligned offset %#llx\n",
			       (unsigned long long)(data_offset + data.len));
	}
	rec_end(&r);
}

static void put_mmap(int pid, int cpu)
{
	struct rec r;
	size_t n = strlen(elf_path) + 1;
	size_t padded = (n + 7) & ~(size_t)7;
	char *name = calloc(1, padded);

	memcpy(name, elf_path, n);
	rec_begin(&r, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	buf_u32(&data, pid);
	buf_u32(&data, pid);
	buf_u64(&data, map_start);
	buf_u64(&data, map_len);
	buf_u64(&data, map_pgoff);
	buf_put(&data, name, padded);
	put_sample_id(&data, pid, pid, cpu);
	rec_end(&r);
	free(name);
}

static void put_itrace_start(int pid, int cpu)
{
	struct rec r;

	rec_begin(&r, PERF_RECORD_ITRACE_START, 0);
	buf_u32(&data, pid);
	buf_u32(&data, pid);
	put_sample_id(&data, pid, pid, cpu);
	rec_end(&r);
}

static u64 hw_id_value(int id, u32 sink, int minor, int major)
{
	u64 v = (u64)(id & 0xff);

	if (minor >= 1)
		v |= (u64)sink << 8;
	v |= (u64)(minor & 0xf) << 56;
	v |= (u64)(major & 0xf) << 60;
	return v;
}

static void put_hw_id_raw(int pid, int cpu, u64 value, int size_adjust)
{
	struct rec r;

	if (list_topology)
		printf("hwid cpu %d offset %#llx value %#llx\n", cpu,
		       (unsigned long long)(data_offset + data.len), (unsigned long long)value);
	rec_begin(&r, PERF_RECORD_AUX_OUTPUT_HW_ID, 0);
	buf_u64(&data, value);
	if (size_adjust >= 0) {
		put_sample_id(&data, pid, pid, cpu);
		while (size_adjust > 0) {
			buf_u64(&data, 0);
			size_adjust -= 8;
		}
	}
	rec_end(&r);
}

static void put_hw_id(int pid, int cpu)
{
	int id = trace_id(cpu);
	u32 sink = sink_id(sink_of(cpu));
	int major = 0, adjust = 0;

	if (hwid_minor < 0)
		return;
	if (cpu == 1 && !strcmp(bad, "nohwid"))
		return;
	if (cpu == 1) {
		if (!strcmp(bad, "major"))
			major = 1;
		else if (!strcmp(bad, "idrange"))
			id = 0x70;
		else if (!strcmp(bad, "idzero"))
			id = 0;
		else if (!strcmp(bad, "dup"))
			id = trace_id(0);
		else if (!strcmp(bad, "trunc"))
			adjust = -1;
		else if (!strcmp(bad, "over"))
			adjust = 8;
	}
	if (cpu == 1 && !strcmp(bad, "hwidres")) {
		/* bit 40: zero in minor versions 0 and 1 */
		put_hw_id_raw(pid, cpu, hw_id_value(id, sink, hwid_minor, 0) | 1ULL << 40, 0);
		return;
	}
	if (!strcmp(bad, "minor2")) {
		/* a later minor version may use bits 55:40: still readable */
		put_hw_id_raw(pid, cpu, hw_id_value(id, sink, 1, 0) | 2ULL << 56 | 1ULL << 40, 0);
		return;
	}
	if (cpu == 1 && !strcmp(bad, "mixminor")) {
		put_hw_id_raw(pid, cpu, hw_id_value(id, sink, !hwid_minor, 0), 0);
		return;
	}
	put_hw_id_raw(pid, cpu, hw_id_value(id, sink, hwid_minor, major), adjust);
	if (cpu == 1 && !strcmp(bad, "chid"))
		put_hw_id_raw(pid, cpu, hw_id_value(id + 1, sink, hwid_minor, 0), 0);
	if (cpu == 1 && !strcmp(bad, "chsink"))
		put_hw_id_raw(pid, cpu, hw_id_value(id, sink + 1, hwid_minor, 0), 0);
}

static void put_aux(int pid, int cpu, u64 off, u64 size, int raw)
{
	struct rec r;

	rec_begin(&r, PERF_RECORD_AUX, 0);
	buf_u64(&data, off);
	buf_u64(&data, size);
	/* PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW: unformatted trace */
	buf_u64(&data, raw ? 0x0100 : 0);
	put_sample_id(&data, pid, pid, cpu);
	rec_end(&r);
}

static void put_auxtrace(struct buf *trace, u32 idx, int tid, int cpu, u64 ref)
{
	struct rec r;

	if (trace->len % 8)
		die("AUX data not 8-byte aligned");
	if (nr_index >= sizeof(index_off) / sizeof(index_off[0]))
		die("too many AUXTRACE records");
	index_off[nr_index++] = data_offset + data.len;
	if (cpu == 1 && !strcmp(bad, "bigidx"))
		idx = 0x10000;	/* beyond any CPU or thread */
	rec_begin(&r, REC_AUXTRACE, 0);
	buf_u64(&data, trace->len);
	buf_u64(&data, 0);	/* offset in the AUX area */
	buf_u64(&data, ref);
	buf_u32(&data, idx);
	buf_u32(&data, tid);
	buf_u32(&data, cpu);
	buf_u32(&data, 0);
	rec_end(&r);		/* header.size excludes the trace data */
	if (!strcmp(bad, "auxbig"))
		/* claims more trace than the file holds */
		memcpy(data.p + data.len - 40, &(u64){ trace->len + (1ULL << 40) }, 8);
	if (list_topology)
		printf("auxtrace cpu %d offset %#llx size %#llx\n", cpu,
		       (unsigned long long)index_off[nr_index - 1],
		       (unsigned long long)*(u64 *)(data.p + data.len - 40));
	buf_put(&data, trace->p, trace->len);
}

static u64 trcconfigr(void)
{
	/* RES1 bit 0, CID tracing, timestamps unless per-thread */
	return 0x1 | (1 << 6) | (per_thread ? 0 : 1 << 11);
}

static void put_auxtrace_info(void)
{
	struct rec r;
	int c;

	rec_begin(&r, REC_AUXTRACE_INFO, 0);
	buf_u32(&data, AUXTRACE_CS_ETM);
	buf_u32(&data, 0);
	buf_u64(&data, header_version);
	if (!strcmp(bad, "numcpu0"))
		buf_u64(&data, (u64)PMU_TYPE << 32);
	else if (!strcmp(bad, "numcpubig"))
		buf_u64(&data, ((u64)PMU_TYPE << 32) | (nr_cpus + 1));
	else
		buf_u64(&data, ((u64)PMU_TYPE << 32) | nr_cpus);
	buf_u64(&data, 0);	/* not snapshot */
	for (c = 0; c < nr_cpus; c++) {
		u64 id;

		if (header_version >= 2 && flagged_meta)
			/* perf 6.3-6.10: legacy ID flagged unused */
			id = 0x80000000ULL | (0x10 + 2 * c);
		else if (header_version >= 2)
			id = 0x10 + 2 * (c % 48);
		else if (legacy_meta)
			id = 0x10 + 2 * c;	/* what stock perf record writes */
		else
			id = trace_id(c);
		if (!strcmp(bad, "staticdup") && c == 1)
			id = trace_id(0);
		buf_u64(&data, c == 1 && !strcmp(bad, "magic") ? 0x6060606060606060ULL : ETMV4_MAGIC);
		buf_u64(&data, c == 1 && !strcmp(bad, "cpurange") ? 0x10000 : c);
		buf_u64(&data, c == 1 && !strcmp(bad, "nrparams") ? 0x1000 : ETMV4_NR_PARAMS);
		buf_u64(&data, trcconfigr());
		buf_u64(&data, id);
		buf_u64(&data, 0x28000ea1);	/* TRCIDR0 */
		buf_u64(&data, 0x4100f403);	/* TRCIDR1: ETMv4.0 */
		buf_u64(&data, 0x00000488);	/* TRCIDR2: 64-bit VA, 32-bit CID */
		buf_u64(&data, 0);		/* TRCIDR8: no speculation */
		buf_u64(&data, 0xcc);		/* TRCAUTHSTATUS */
	}
	rec_end(&r);
}

static void put_finished_round(void)
{
	struct rec r;

	rec_begin(&r, REC_FINISHED_ROUND, 0);
	rec_end(&r);
}

/* Traced CPUs sharing the sink of @cpu, in order, and the position of @cpu */
static int sink_peer(int cpu, int step)
{
	int peers[MAX_CPUS], n = 0, me = 0, i;

	for (i = 0; i < nr_cpus; i++) {
		if (sink_of(i) != sink_of(cpu) || !traced(i))
			continue;
		if (i == cpu)
			me = n;
		peers[n++] = i;
	}
	return peers[(me + step + n) % n];
}

static void gen_per_cpu(void)
{
	int c;

	for (c = 0; c < nr_cpus; c++) {
		put_comm(cpu_pid(c), c, "csgen");
		put_mmap(cpu_pid(c), c);
	}
	for (c = 0; c < nr_cpus; c++) {
		if (!traced(c))
			continue;
		put_itrace_start(cpu_pid(c), c);
		put_hw_id(cpu_pid(c), c);
	}

	/*
	 * The buffer of a CPU holds the first half of its own trace and the
	 * second half of the trace of the previous CPU on the same sink, as
	 * when CPUs share a sink.
	 */
	for (c = 0; c < nr_cpus; c++) {
		struct stream s[3];
		struct buf trace = { 0 };
		struct fmt f;
		int other = sink_peer(c, -1);
		int n = 0;

		if (!traced(c))
			continue;
		memset(s, 0, sizeof(s));
		s[n].id = trace_id(c);
		etm_part(&s[n].data, c, 0, atoms / 2);
		n++;
		if (raw_cpu(c)) {
			/* A per-CPU sink without formatter: only its CPU's trace */
			etm_part(&s[0].data, c, 1, atoms - atoms / 2);
			raw_data(&trace, &s[0].data);
			put_aux(cpu_pid(c), c, 0, trace.len, 1);
			put_auxtrace(&trace, c, cpu_pid(c), c, 0x1000 + c);
			free(s[0].data.p);
			free(trace.p);
			continue;
		}
		if (other == c) {
			/* Alone on its sink: both halves in one stream */
			etm_part(&s[0].data, c, 1, atoms - atoms / 2);
		} else {
			s[n].id = trace_id(other);
			etm_part(&s[n].data, other, 1, atoms - atoms / 2);
			n++;
		}
		if (c == 1 && !strcmp(bad, "strayid")) {
			/* trace of an ID that no CPU of the sink holds */
			s[n].id = TRACE_ID_MAX - 1;
			etm_part(&s[n].data, c, 2, 10);
			n++;
		}
		fmt_init(&f, &trace);
		if (barrier)
			fmt_barrier(&trace);
		fmt_interleave(&f, s, n);
		fmt_finish(&f);
		put_aux(cpu_pid(c), c, 0, trace.len, 0);
		put_auxtrace(&trace, c, cpu_pid(c), c, 0x1000 + c);
		free(s[0].data.p);
		free(s[1].data.p);
		free(s[2].data.p);
		free(trace.p);
	}
	put_finished_round();
}

static void gen_per_thread(void)
{
	struct buf trace = { 0 };
	int c, k;

	put_comm(thread_pid, 0, "csgen");
	put_mmap(thread_pid, 0);
	put_itrace_start(thread_pid, 0);
	for (c = 0; c < nr_cpus; c++)
		put_hw_id(thread_pid, c);

	/* The thread runs on each CPU in turn: one AUX record each time */
	for (k = 0; k < segments; k++) {
		struct fmt f;
		struct stream s;
		u64 start = trace.len;

		c = k % nr_cpus;
		memset(&s, 0, sizeof(s));
		s.id = trace_id(c);
		etm_part(&s.data, c, k, atoms);
		if (raw_cpu(c)) {
			raw_data(&trace, &s.data);
			put_aux(thread_pid, c, start, trace.len - start, 1);
			free(s.data.p);
			continue;
		}
		fmt_init(&f, &trace);
		if (barrier)
			fmt_barrier(&trace);
		fmt_interleave(&f, &s, 1);
		fmt_finish(&f);
		put_aux(thread_pid, c, start, trace.len - start, 0);
		free(s.data.p);
	}
	put_auxtrace(&trace, 0, thread_pid, -1, 0x1000);
	free(trace.p);
	put_finished_round();
}

static void write_file(void)
{
	struct perf_event_attr attr, dummy;
	struct buf file = { 0 };
	u64 nr_attrs = extra_event ? 2 : 1;
	u64 attr_off = 104, attr_sz = PERF_ATTR_SIZE_VER7 + 16;
	u64 feat_off, nrcpus_off, aux_off, aux_sz;
	u64 features[4] = { 0 };
	FILE *f;
	u64 i;

	memset(&attr, 0, sizeof(attr));
	attr.type = PMU_TYPE;
	attr.size = PERF_ATTR_SIZE_VER7;
	attr.config = (1ULL << ETM_OPT_CTXTID) | (per_thread ? 0 : 1ULL << ETM_OPT_TS);
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			   (sample_cpu ? PERF_SAMPLE_CPU : 0) | PERF_SAMPLE_IDENTIFIER;
	attr.sample_id_all = 1;
	attr.disabled = 1;

	/*
	 * -X: a dummy event of another sample_type listed first, as a
	 * session with a tracking event can have.
	 */
	memset(&dummy, 0, sizeof(dummy));
	dummy.type = PERF_TYPE_SOFTWARE;
	dummy.size = PERF_ATTR_SIZE_VER7;
	dummy.config = PERF_COUNT_SW_DUMMY;
	dummy.sample_period = 1;
	dummy.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_IDENTIFIER;
	dummy.sample_id_all = 1;

	/* file header */
	buf_u64(&file, 0x32454c4946524550ULL);	/* "PERFILE2" */
	buf_u64(&file, 104);
	buf_u64(&file, attr_sz);
	buf_u64(&file, attr_off);
	buf_u64(&file, attr_sz * nr_attrs);
	buf_u64(&file, data_offset);
	buf_u64(&file, data.len);
	buf_u64(&file, 0);
	buf_u64(&file, 0);
	features[0] = (1ULL << FEAT_NRCPUS) | (1ULL << FEAT_AUXTRACE);
	buf_put(&file, features, sizeof(features));
	/* attrs, then their event IDs */
	if (extra_event) {
		buf_put(&file, &dummy, PERF_ATTR_SIZE_VER7);
		buf_u64(&file, attr_off + 2 * attr_sz);
		buf_u64(&file, 8);
	}
	buf_put(&file, &attr, PERF_ATTR_SIZE_VER7);
	buf_u64(&file, attr_off + nr_attrs * attr_sz + (extra_event ? 8 : 0));
	buf_u64(&file, 8);
	if (extra_event)
		buf_u64(&file, EVENT_ID + 1);
	buf_u64(&file, EVENT_ID);
	while (file.len < data_offset)
		buf_u8(&file, 0);
	buf_put(&file, data.p, data.len);

	/* feature sections: table, then NRCPUS, then AUXTRACE index */
	feat_off = file.len;
	nrcpus_off = feat_off + 2 * 16;
	aux_off = nrcpus_off + 8;
	aux_sz = 8 + nr_index * 16;
	buf_u64(&file, nrcpus_off);
	buf_u64(&file, 8);
	buf_u64(&file, aux_off);
	buf_u64(&file, aux_sz);
	buf_u32(&file, nr_cpus);
	buf_u32(&file, nr_cpus);
	buf_u64(&file, nr_index);
	for (i = 0; i < nr_index; i++) {
		buf_u64(&file, index_off[i]);
		buf_u64(&file, 48);	/* size of the AUXTRACE record header */
	}

	f = fopen(out_path, "wb");
	if (!f || fwrite(file.p, 1, file.len, f) != file.len || fclose(f))
		die("cannot write %s", out_path);
	free(file.p);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: csgen -o FILE -e ELF [options]\n"
		"  -c N        CPUs (default 4)\n"
		"  -s S        sinks (default 1); CPU c is on sink c*S/N\n"
		"  -H none|0.0|0.1   HW_ID records (default 0.1)\n"
		"  -V 1|2      cs_etm metadata header version (default 2)\n"
		"  -t          per-thread layout (default per-CPU)\n"
		"  -g K        per-thread: number of segments (default 2*N)\n"
		"  -a A        E atoms per CPU (per-CPU) or per segment (default 200)\n"
		"  -T K        timestamp every K atoms (default 16, 0: none)\n"
		"  -n          records carry no CPU (no PERF_SAMPLE_CPU)\n"
		"  -E frame|pad|async   how buffers end (default frame)\n"
		"  -b          start each buffer with a barrier of 4 FSYNCs\n"
		"  -k CHUNK    interleave chunk size in bytes (default 24)\n"
		"  -B KIND     malformed input: major idrange idzero dup chid chsink\n"
		"              trunc over staticdup nohwid mixminor hwidres mixfmt\n"
		"              magic cpurange nrparams (apply to CPU 1), minor2\n"
		"              numcpu0 numcpubig auxbig bigidx strayid oddsize\n"
		"  -p PID      first pid (default 1000, CPU c runs pid PID+c)\n"
		"  -M          header v1: stock static IDs 0x10+2*cpu in the metadata\n"
		"              instead of the real ones (as stock perf record writes)\n"
		"  -F          header v2: legacy IDs flagged with bit 31 (perf 6.3-6.10)\n"
		"  -X          a dummy event of another sample_type before cs_etm's\n"
		"  -U          unformatted trace (per-CPU sinks without formatter)\n"
		"  -Z N        per-CPU: CPUs from N on got no trace ID: no HW_ID, no trace\n"
		"  -L          print 'cpu C sink SINKID id TRACEID pid PID' per CPU and\n"
		"              'hwid cpu C offset OFFSET value VALUE' per HW_ID record,\n"
		"              'auxtrace cpu C offset OFFSET size SIZE' per AUXTRACE record\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "o:e:c:s:H:V:tg:a:T:nE:bk:B:p:MLFXUZ:")) != -1) {
		switch (opt) {
		case 'o': out_path = optarg; break;
		case 'e': elf_path = optarg; break;
		case 'c': nr_cpus = atoi(optarg); break;
		case 's': nr_sinks = atoi(optarg); break;
		case 'H':
			if (!strcmp(optarg, "none"))
				hwid_minor = -1;
			else if (!strcmp(optarg, "0.0"))
				hwid_minor = 0;
			else if (!strcmp(optarg, "0.1"))
				hwid_minor = 1;
			else
				usage();
			break;
		case 'V': header_version = atoi(optarg); break;
		case 't': per_thread = 1; break;
		case 'g': segments = atoi(optarg); break;
		case 'a': atoms = atoi(optarg); break;
		case 'T': ts_every = atoi(optarg); break;
		case 'n': sample_cpu = 0; break;
		case 'E': end_mode = optarg; break;
		case 'b': barrier = 1; break;
		case 'k': chunk = atoi(optarg); break;
		case 'B': bad = optarg; break;
		case 'p': pid_base = atoi(optarg); break;
		case 'M': legacy_meta = 1; break;
		case 'L': list_topology = 1; break;
		case 'F': flagged_meta = 1; break;
		case 'X': extra_event = 1; break;
		case 'U': unformatted = 1; break;
		case 'Z': nr_traced = atoi(optarg); break;
		default: usage();
		}
	}
	if (!out_path || !elf_path || nr_cpus < 1 || nr_cpus > MAX_CPUS ||
	    nr_sinks < 1 || nr_sinks > MAX_SINKS || nr_sinks > nr_cpus || chunk < 1)
		usage();
	if (header_version < 1 || header_version > 2)
		die("header version must be 1 or 2");
	if (hwid_minor < 0 && header_version >= 2)
		fprintf(stderr, "csgen: warning: header v2 without HW_ID records\n");
	if (!segments)
		segments = 2 * nr_cpus;

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
	if (per_thread)
		gen_per_thread();
	else
		gen_per_cpu();
	write_file();
	return 0;
}
