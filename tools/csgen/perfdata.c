// SPDX-License-Identifier: GPL-2.0
/*
 * csgen perf.data writer: the records of the data section, the file header,
 * attributes and feature sections.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "csgen.h"

/* perf tool private record types */
#define REC_AUXTRACE_INFO	70
#define REC_AUXTRACE		71
#define REC_FINISHED_ROUND	68
#define REC_COMPRESSED		81
#define AUXTRACE_CS_ETM		3

/* perf.data features */
#define FEAT_ARCH		6
#define FEAT_NRCPUS		7
#define FEAT_AUXTRACE		18
#define FEAT_COMPRESSED		27

/* cs_etm metadata */
#define ETMV3_MAGIC		0x3030303030303030ULL
#define ETMV4_MAGIC		0x4040404040404040ULL
#define ETMV4_NR_PARAMS		7
#define PMU_TYPE		42
#define ETM_OPT_CYCACC		12
#define ETM_OPT_CTXTID		14
#define ETM_OPT_TS		28

#define EVENT_ID		7

static struct buf data;		/* the data section */
u64 data_offset;		/* file offset of the data section */
/* -B idxoff: an AUXTRACE index offset 1 TiB into a file of a few KiB */
#define IDXOFF_BAD	0x10000000000ULL
static u64 index_off[4096], nr_index;
static u64 now = 1000000000ULL;
static u64 next_time;

/* A timestamp for a record written later (-R) */
u64 take_time(void)
{
	return now++;
}

/* The next record gets time @t instead of the next one in file order */
void set_next_time(u64 t)
{
	next_time = t;
}

/* sample_id_all trailer: TID, TIME[, CPU], IDENTIFIER */
static void put_sample_id(struct buf *b, int pid, int tid, int cpu)
{
	buf_u32(b, pid);
	buf_u32(b, tid);
	buf_u64(b, next_time ? next_time : now++);
	next_time = 0;
	if (sample_cpu) {
		buf_u32(b, cpu);
		buf_u32(b, 0);
	}
	buf_u64(b, EVENT_ID);
}


void put_comm(int pid, int cpu, const char *comm)
{
	struct rec r;
	char name[16] = { 0 };

	snprintf(name, sizeof(name), "%s", comm);
	rec_begin(&r, &data, PERF_RECORD_COMM, 0);
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

/* A file name, NUL-terminated and padded to 8 bytes, as perf writes it */
static void put_filename(const char *name)
{
	size_t n = strlen(name) + 1;

	buf_put(&data, name, n);
	for (; n % 8; n++)
		buf_u8(&data, 0);
}

/* The fields MMAP and MMAP2 records start with */
static void put_map(int pid, int tid, u64 pgoff)
{
	buf_u32(&data, pid);
	buf_u32(&data, tid);
	buf_u64(&data, map_start);
	buf_u64(&data, map_len);
	buf_u64(&data, pgoff);
}

void put_mmap(int pid, int cpu)
{
	struct rec r;

	rec_begin(&r, &data, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	put_map(pid, pid, map_pgoff);
	put_filename(elf_path);
	put_sample_id(&data, pid, pid, cpu);
	rec_end(&r);
}

/* -S, kernel code: the kernel map, as perf record synthesizes it */
void put_kernel_mmap(void)
{
	struct rec r;

	rec_begin(&r, &data, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	put_map(-1, 0, map_start);	/* pgoff: the address of _text */
	put_filename("[kernel.kallsyms]_text");
	put_sample_id(&data, -1, 0, 0);
	rec_end(&r);
}

/* -S, user code: the ELF mapped into the writer's thread */
void put_mmap2(int pid, int cpu)
{
	struct rec r;

	rec_begin(&r, &data, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	put_map(pid, pid, map_pgoff);
	buf_u32(&data, 0);	/* maj, min, ino, ino_generation */
	buf_u32(&data, 0);
	buf_u64(&data, 0);
	buf_u64(&data, 0);
	buf_u32(&data, 5);	/* PROT_READ | PROT_EXEC */
	buf_u32(&data, 2);	/* MAP_PRIVATE */
	put_filename(elf_path);
	put_sample_id(&data, pid, pid, cpu);
	rec_end(&r);
}

void put_itrace_start(int pid, int cpu)
{
	struct rec r;

	rec_begin(&r, &data, PERF_RECORD_ITRACE_START, 0);
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
	rec_begin(&r, &data, PERF_RECORD_AUX_OUTPUT_HW_ID, 0);
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

void put_hw_id(int pid, int cpu)
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
	if (cpu == 1 && !strncmp(bad, "hwcpu204", 8)) {
		/* hwcpu2047: the last CPU perf handles, without metadata */
		put_hw_id_raw(pid, atoi(bad + 5), hw_id_value(id, sink, hwid_minor, 0), 0);
		return;
	}
	if (cpu == 1 && (!strcmp(bad, "hwidres0") || !strcmp(bad, "hwidbit7"))) {
		/* minor version 0: bit 8, the lowest it leaves zero, or bit 7 of the ID */
		put_hw_id_raw(pid, cpu, hw_id_value(id, sink, hwid_minor, 0) |
					1ULL << (bad[4] == 'r' ? 8 : 7), 0);
		return;
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
	if (!strcmp(bad, "minor2only")) {
		/* minor version 2 exactly, the first after perf's, with bit 40 */
		put_hw_id_raw(pid, cpu, hw_id_value(id, sink, 2, 0) | 1ULL << 40, 0);
		return;
	}
	if (cpu == 1 && !strcmp(bad, "mixminor")) {
		put_hw_id_raw(pid, cpu, hw_id_value(id, sink, !hwid_minor, 0), 0);
		return;
	}
	put_hw_id_raw(pid, cpu, hw_id_value(id, sink, hwid_minor, major), adjust);
	if (cpu == 1 && (!strcmp(bad, "trunc1") || !strcmp(bad, "over1")))
		/* a size one byte off the record's: its header.size only */
		*(uint16_t *)(data.p + data.len - 48 + 6) = bad[0] == 't' ? 47 : 49;
	if (cpu == 1 && !strcmp(bad, "chid"))
		put_hw_id_raw(pid, cpu, hw_id_value(id + 1, sink, hwid_minor, 0), 0);
	if (cpu == 1 && !strcmp(bad, "chsink"))
		put_hw_id_raw(pid, cpu, hw_id_value(id, sink + 1, hwid_minor, 0), 0);
}

/* PERF_RECORD_EXIT of a thread whose parent is pid - 1 */
void put_exit(int pid, int cpu)
{
	struct rec r;

	rec_begin(&r, &data, PERF_RECORD_EXIT, 0);
	buf_u32(&data, pid);
	buf_u32(&data, pid - 1);
	buf_u32(&data, pid);
	buf_u32(&data, pid - 1);
	buf_u64(&data, now);
	put_sample_id(&data, pid, pid, cpu);
	rec_end(&r);
}

void put_aux(int pid, int cpu, u64 off, u64 size, int raw)
{
	struct rec r;

	if (cpu == 1 && !strncmp(bad, "cpu204", 6))
		cpu = atoi(bad + 3);
	if (list_topology)
		printf("aux cpu %d offset %#llx size %#llx\n", cpu,
		       (unsigned long long)off, (unsigned long long)size);
	if (cpu == 0 && !strcmp(bad, "auxsize31")) {
		/*
		 * -B auxsize31: before CPU 0's AUX record, an empty one (size 0,
		 * as of a truncated AUX area) of 31 bytes, 1 byte short of the
		 * record without sample ID; perf reads the event ID at its end
		 * from the size, 0: the first event. The records after it are
		 * at odd offsets: only for a pipe (perf inject -o -)
		 */
		rec_begin(&r, &data, PERF_RECORD_AUX, 0);
		buf_u64(&data, off);
		buf_u64(&data, 0);
		buf_put(&data, "\0\0\0\0\0\0\0", 7);
		*(uint16_t *)(data.p + r.start + 6) = 31;
	}
	rec_begin(&r, &data, PERF_RECORD_AUX, 0);
	buf_u64(&data, off);
	buf_u64(&data, size);
	/*
	 * PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW: unformatted trace;
	 * PERF_AUX_FLAG_OVERWRITE: snapshot mode, @off is the head
	 */
	buf_u64(&data, (raw ? 0x0100 : 0) | (overwrite ? PERF_AUX_FLAG_OVERWRITE : 0));
	/* -B shortaux: CPU 1's AUX record ends before its sample ID */
	if (cpu != 1 || strcmp(bad, "shortaux"))
		put_sample_id(&data, pid, pid, cpu);
	rec_end(&r);
	/*
	 * -B auxsize63: CPU 0's AUX record one byte short of its sample ID
	 * (perf reads a record's event ID from its end: CPU 0's word is 0,
	 * the ID of synthesized records, which perf gives the first event)
	 */
	if (cpu == 0 && !strcmp(bad, "auxsize63"))
		*(uint16_t *)(data.p + r.start + 6) = 63;
}

void put_auxtrace(struct buf *trace, u64 aux_off, u32 idx, int tid, int cpu, u64 ref)
{
	struct rec r;

	if (trace->len % 8)
		die("AUX data not 8-byte aligned");
	if (nr_index >= sizeof(index_off) / sizeof(index_off[0]))
		die("too many AUXTRACE records");
	index_off[nr_index++] = data_offset + data.len;
	if (cpu == 1 && !strcmp(bad, "bigidx"))
		idx = 0x10000;	/* beyond any CPU or thread */
	if (cpu == 1 && !strcmp(bad, "bigidx15"))
		idx = 0x8000;	/* beyond the timestamp heap */
	if (cpu == 1 && !strncmp(bad, "cpu204", 6))
		cpu = atoi(bad + 3);	/* cpu2047: the last CPU perf handles */
	rec_begin(&r, &data, REC_AUXTRACE, 0);
	buf_u64(&data, trace->len);
	buf_u64(&data, aux_off);	/* offset in the AUX area */
	buf_u64(&data, ref);
	buf_u32(&data, idx);
	buf_u32(&data, tid);
	buf_u32(&data, cpu);
	buf_u32(&data, 0);
	rec_end(&r);		/* header.size excludes the trace data */
	if (!strcmp(bad, "auxbig"))
		/* claims more trace than the file holds */
		memcpy(data.p + data.len - 40, &(u64){ trace->len + (1ULL << 40) }, 8);
	if (!strcmp(bad, "auxend1") && cpu == nr_cpus - 1)
		/* the last record of the data: its trace one byte past the end */
		memcpy(data.p + data.len - 40, &(u64){ trace->len + 1 }, 8);
	if (!strcmp(bad, "auxhdr47") && cpu == nr_cpus - 1)
		/* a header one byte short of an AUXTRACE record's */
		*(uint16_t *)(data.p + data.len - 48 + 6) = 47;
	if (list_topology)
		printf("auxtrace cpu %d offset %#llx size %#llx\n", cpu,
		       (unsigned long long)index_off[nr_index - 1],
		       (unsigned long long)*(u64 *)(data.p + data.len - 40));
	buf_put(&data, trace->p, trace->len);
}

static u64 trcconfigr(void)
{
	/* RES1 bit 0, CID tracing, timestamps unless per-thread */
	return 0x1 | (1 << 6) | (per_thread && !thread_ts ? 0 : 1 << 11);
}

/* The metadata ID entry: the real ID (header v1) or the legacy placeholder */
static u64 meta_trace_id(int c)
{
	return header_version >= 2 ? (u64)(0x10 + 2 * (c % 48)) : (u64)trace_id(c);
}

/* -S: the metadata of a CPU from its source's registers */
static void put_snap_meta(int c)
{
	const struct snap_cpu *sc = &snap.cpu[c];
	int i;

	buf_u64(&data, sc->proto == SNAP_ETMV3 ? ETMV3_MAGIC : ETMV4_MAGIC);
	buf_u64(&data, c);
	buf_u64(&data, sc->nr_regs);
	for (i = 0; i < sc->nr_regs; i++)
		buf_u64(&data, i == 1 ? meta_trace_id(c) : sc->regs[i]);
}

void put_auxtrace_info(void)
{
	struct rec r;
	/* -B nometa: the last CPU was offline when perf wrote the metadata */
	int meta_cpus = nr_cpus - !strcmp(bad, "nometa");
	int c;

	rec_begin(&r, &data, REC_AUXTRACE_INFO, 0);
	buf_u32(&data, AUXTRACE_CS_ETM);
	buf_u32(&data, 0);
	/* -B hdrv3: a header version above the reader's, in version 2's layout */
	buf_u64(&data, !strcmp(bad, "hdrv3") ? 3 : header_version);
	if (!strcmp(bad, "numcpu0"))
		buf_u64(&data, (u64)PMU_TYPE << 32);
	else if (!strcmp(bad, "numcpubig"))
		buf_u64(&data, ((u64)PMU_TYPE << 32) | (nr_cpus + 1));
	else if (!strcmp(bad, "numcpuhuge"))
		buf_u64(&data, ((u64)PMU_TYPE << 32) | 0x100000);
	else if (!strncmp(bad, "numcpufit", 9))
		/* as many CPUs as blocks of 3 words fit in the metadata (+1) */
		buf_u64(&data, ((u64)PMU_TYPE << 32) |
			       (meta_cpus * (3 + ETMV4_NR_PARAMS) / 3 + !strcmp(bad, "numcpufit1")));
	else
		buf_u64(&data, ((u64)PMU_TYPE << 32) | meta_cpus);
	buf_u64(&data, !!overwrite);	/* snapshot mode */
	if (!strcmp(bad, "hdronly") || !strcmp(bad, "hdrshort")) {
		/* the header's 3 words and no metadata; hdrshort: 1 byte less */
		rec_end(&r);
		if (!strcmp(bad, "hdrshort"))
			*(uint16_t *)(data.p + r.start + 6) -= 1;
		return;
	}
	for (c = 0; c < meta_cpus && snap_dir; c++)
		put_snap_meta(c);
	for (c = 0; c < meta_cpus && !snap_dir; c++) {
		int last = c == meta_cpus - 1;
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
		buf_u64(&data, c != 1 || strncmp(bad, "cpurange", 8) ? c :
			       !strcmp(bad, "cpurange2047") ? 2047 : 2048);
		/* -B metashort: the last CPU's block ends after its CPU */
		if (last && !strcmp(bad, "metashort"))
			break;
		/* -B meta3: the last CPU's block has no parameters */
		if (last && !strcmp(bad, "meta3")) {
			buf_u64(&data, 0);
			break;
		}
		buf_u64(&data, c == 1 && !strcmp(bad, "nrparams") ? 0x1000 :
			       last && !strcmp(bad, "nrparams1") ? ETMV4_NR_PARAMS + 1 :
			       ETMV4_NR_PARAMS);
		buf_u64(&data, trcconfigr());
		buf_u64(&data, id);
		buf_u64(&data, 0x28000ea1);	/* TRCIDR0 */
		buf_u64(&data, 0x4100f403);	/* TRCIDR1: ETMv4.0 */
		buf_u64(&data, 0x00000488);	/* TRCIDR2: 64-bit VA, 32-bit CID */
		/* TRCIDR8: no speculation; -B cfgdiff: CPU 1 differs */
		buf_u64(&data, c == 1 && !strcmp(bad, "cfgdiff") ? 1 : 0);
		buf_u64(&data, 0xcc);		/* TRCAUTHSTATUS */
	}
	rec_end(&r);
}

void put_finished_round(void)
{
	struct rec r;

	rec_begin(&r, &data, REC_FINISHED_ROUND, 0);
	rec_end(&r);
}

/*
 * -z: perf record -z. The records perf record reads from the ring buffers go
 * into PERF_RECORD_COMPRESSED records: one zstd stream for the session, each
 * write compressed into records of at most 64 KiB of compressed data, whose
 * sizes are not padded, so every record after one is at any file offset.
 * AUXTRACE records (and their trace), AUXTRACE_INFO and FINISHED_ROUND are
 * written outside the ring buffers, as they are.
 */
#define COMP_MAX_RECORD		(65536 - 8 - 1)	/* builtin-record.c zstd_compress() */
#define COMP_MMAP_LEN		((128 + 1) * 4096)	/* perf record's default */

static ZSTD_CStream *cstream;
static u64 comp_in, comp_out, comp_max_write;

/* One write of perf record: zstd_compress_stream_to_records() of 6.1 */
static void compress_write(struct buf *out, const u8 *src, size_t len)
{
	ZSTD_inBuffer in = { src, len, 0 };
	u8 rec[8 + COMP_MAX_RECORD];

	if (len > comp_max_write)
		comp_max_write = len;
	comp_in += len;
	while (in.pos < in.size) {
		ZSTD_outBuffer o = { rec + 8, COMP_MAX_RECORD, 0 };
		struct perf_event_header h = { .type = REC_COMPRESSED };
		size_t ret = ZSTD_compressStream(cstream, &o, &in);

		ZSTD_flushStream(cstream, &o);
		if (ZSTD_isError(ret))
			die("zstd: %s", ZSTD_getErrorName(ret));
		h.size = 8 + o.pos;
		memcpy(rec, &h, sizeof(h));
		buf_put(out, rec, h.size);
		comp_out += h.size;
	}
}

/*
 * The ring buffer records between two records written outside it: perf
 * record writes them in two parts when they wrap around the end of the
 * ring buffer. Cut them there at a byte that is no record boundary, so that
 * a record starts in one compressed record and ends in the next.
 */
static void compress_ring(struct buf *out, const u8 *src, size_t len)
{
	size_t cut = (len / 2) | 1;

	if (len < 16) {
		compress_write(out, src, len);
		return;
	}
	compress_write(out, src, cut);
	compress_write(out, src + cut, len - cut);
}

static int outside_ring(u32 type)
{
	return type == REC_AUXTRACE_INFO || type == REC_AUXTRACE || type == REC_FINISHED_ROUND;
}

/* Rewrite the data section as perf record -z writes it */
static void compress_data(void)
{
	struct buf out = { 0 };
	size_t pos = 0, ring = 0, n = 0;

	cstream = ZSTD_createCStream();
	if (!cstream || ZSTD_isError(ZSTD_initCStream(cstream, 1)))
		die("zstd: cannot create a compression stream");
	while (pos < data.len) {
		struct perf_event_header h;
		size_t size;

		memcpy(&h, data.p + pos, sizeof(h));
		size = h.size;
		if (!outside_ring(h.type)) {
			pos += size;
			continue;
		}
		if (pos > ring)
			compress_ring(&out, data.p + ring, pos - ring);
		if (h.type == REC_AUXTRACE) {
			size += *(u64 *)(data.p + pos + 8);
			if (size > data.len - pos)
				die("-z: AUXTRACE record of %zu bytes beyond the data", size);
			index_off[n++] = data_offset + out.len;
		}
		buf_put(&out, data.p + pos, size);
		pos += size;
		ring = pos;
	}
	if (pos > ring)
		compress_ring(&out, data.p + ring, pos - ring);
	if (n != nr_index)
		die("-z: %zu AUXTRACE records, %llu indexed", n, (unsigned long long)nr_index);
	ZSTD_freeCStream(cstream);
	free(data.p);
	data = out;
}

/* The attr config of the cs_etm event: the options perf record was given */
static u64 event_config(void)
{
	const struct snap_cpu *sc = &snap.cpu[0];
	int ts, cycacc;

	if (!snap_dir)
		return (1ULL << ETM_OPT_CTXTID) |
		       (per_thread && !thread_ts ? 0 : 1ULL << ETM_OPT_TS);
	/*
	 * -S: as the registers say (ETMCR bits 12 and 28, TRCCONFIGR bits 4
	 * and 11), but without timestamps in per-thread mode or with -T 0:
	 * the timeless variant decodes the same bytes, ignoring the
	 * timestamps in them.
	 */
	if (sc->proto == SNAP_ETMV3) {
		ts = sc->regs[0] >> 28 & 1;
		cycacc = sc->regs[0] >> 12 & 1;
	} else {
		ts = sc->regs[0] >> 11 & 1;
		cycacc = sc->regs[0] >> 4 & 1;
	}
	if (per_thread || !ts_every)
		ts = 0;
	return (u64)ts << ETM_OPT_TS | (u64)cycacc << ETM_OPT_CYCACC;
}

/* The feature sections, in the order of their bits */
struct feature {
	int bit;
	struct buf data;
};

static int put_features(struct feature *feat)
{
	int n = 0;
	u64 i;

	/* -S: the architecture, which tells perf where kernel space starts */
	if (snap_dir) {
		char arch[64] = { 0 };

		snprintf(arch, sizeof(arch), "%s", snap.is64 ? "aarch64" : "armv7l");
		feat[n].bit = FEAT_ARCH;
		buf_u32(&feat[n].data, sizeof(arch));
		buf_put(&feat[n].data, arch, sizeof(arch));
		n++;
	}
	feat[n].bit = FEAT_NRCPUS;
	buf_u32(&feat[n].data, nr_cpus);
	buf_u32(&feat[n].data, nr_cpus);
	n++;
	/* -x: no AUXTRACE index: perf queues the buffers as they come */
	if (!no_index) {
		feat[n].bit = FEAT_AUXTRACE;
		buf_u64(&feat[n].data, nr_index);
		for (i = 0; i < nr_index; i++) {
			/* -B idxoff: the second entry points far beyond the file */
			buf_u64(&feat[n].data, i == 1 && !strcmp(bad, "idxoff") ?
				IDXOFF_BAD : index_off[i]);
			buf_u64(&feat[n].data, 48);	/* size of the AUXTRACE record header */
		}
		n++;
	}
	if (compress) {
		/* what header.c's process_compressed() reads */
		u64 mmap_len = COMP_MMAP_LEN;

		while (mmap_len < comp_max_write)
			mmap_len *= 2;
		feat[n].bit = FEAT_COMPRESSED;
		buf_u32(&feat[n].data, 1);			/* comp_ver */
		buf_u32(&feat[n].data, 1);			/* comp_type: PERF_COMP_ZSTD */
		buf_u32(&feat[n].data, 1);			/* comp_level */
		buf_u32(&feat[n].data, comp_out ? comp_in / comp_out : 1);	/* comp_ratio */
		buf_u32(&feat[n].data, mmap_len);		/* comp_mmap_len */
		n++;
	}
	return n;
}

void write_file(void)
{
	struct perf_event_attr attr, dummy;
	struct buf file = { 0 };
	u64 nr_attrs = extra_event ? 2 : 1;
	u64 attr_off = 104, attr_sz = PERF_ATTR_SIZE_VER7 + 16;
	u64 features[4] = { 0 }, off;
	struct feature feat[4];
	int nr_feat, k;
	FILE *f;

	if (compress)
		compress_data();
	memset(feat, 0, sizeof(feat));
	nr_feat = put_features(feat);

	memset(&attr, 0, sizeof(attr));
	attr.type = PMU_TYPE;
	attr.size = PERF_ATTR_SIZE_VER7;
	attr.config = event_config();
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
	for (k = 0; k < nr_feat; k++)
		features[0] |= 1ULL << feat[k].bit;
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

	/* feature sections: the table of offsets and sizes, then each */
	off = file.len + nr_feat * 16;
	for (k = 0; k < nr_feat; k++) {
		buf_u64(&file, off);
		buf_u64(&file, feat[k].data.len);
		off += feat[k].data.len;
	}
	for (k = 0; k < nr_feat; k++) {
		buf_put(&file, feat[k].data.p, feat[k].data.len);
		free(feat[k].data.p);
	}

	f = fopen(out_path, "wb");
	if (!f || fwrite(file.p, 1, file.len, f) != file.len || fclose(f))
		die("cannot write %s", out_path);
	free(file.p);
}
