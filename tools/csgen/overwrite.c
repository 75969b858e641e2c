// SPDX-License-Identifier: GPL-2.0
/*
 * csgen -O: snapshot mode (perf record -S), per CPU or per thread.
 *
 * The kernel writes the AUX records of a snapshot session flagged
 * PERF_AUX_FLAG_OVERWRITE, with the head (the END of the data, a running
 * offset) as aux_offset and the bytes written since the previous record as
 * aux_size. perf record writes each snapshot as one AUXTRACE buffer of an
 * AUX area (a CPU's, or the thread's), whose offset is that of its first
 * byte. Each AUX area here is one stream of frames at running offsets (its
 * "ring"); a record is a whole number of frames of trace of one CPU, ending
 * with the CPU's ID still current (padded with timestamps that change
 * nothing, not with the null ID), so that a decoder that joined the next
 * bytes to it would decode them as that CPU's trace. Each part of a record
 * starts with the ID and an A-sync. Layouts (-O):
 *
 *   plain    each buffer holds what was written since the previous snapshot
 *            (perf 6.1): records lie whole in one buffer, no overlap.
 *   cut      from the second snapshot on more was written than the -S size
 *            S holds: the buffer (the last S bytes) begins inside the first
 *            record of the interval, between byte 0 and byte 1 of a 9-byte
 *            timestamp packet 02 f7 f7 f7 f7 f7 f7 f7 70. A decoder that
 *            starts afresh drops those bytes (their frame names no ID) and
 *            resyncs at the A-sync of the record's next part; one that joins
 *            them to the stream of the previous snapshot of the same CPU (or,
 *            per thread, of its last record, on the same CPU) decodes 7 E
 *            atoms that were never executed.
 *   overlap  perf before 6.1: each buffer holds the whole AUX area of A
 *            bytes before the head (from offset 0 until it is full), so
 *            buffers overlap: every record lies whole in the buffer of its
 *            snapshot and whole or in part in the next one or two.
 *
 * Per CPU, interval k of each CPU writes one record of two parts (plain:
 * two records of one part in odd intervals; cut: in odd intervals the cut
 * record of three parts and one of two, as when the event stopped and
 * started again between two snapshots, e.g. a per-CPU event of a workload
 * at a sched-out; in even ones from the second on, one cut record of three
 * parts, larger than the snapshot size). Per thread, interval k writes
 * three records of one part (cut: the cut record of two) on CPUs
 * (2k + j) % CPUS, j = 0, 1, 2: at a snapshot the thread goes on on the CPU
 * it ran on. -a is the number of E atoms of a part; -j the number of
 * snapshots.
 *
 * Expected: each record decoded once, from the earliest buffer that holds
 * its end, from the first part that begins (its ID byte) in that buffer.
 * -L lists, besides the aux and auxtrace lines, 'snap cpu C index K offset
 * OFF size SIZE cut CUT' per buffer (CUT: the running offset where the buffer
 * starts inside a packet, 0 if it does not), 'record cpu C head H size SIZE
 * parts P decoded D' per record (D: branches) and 'expect cpu C branches N
 * asyncs M' per CPU (M: the parts decoded, each from its A-sync).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csgen.h"
#include "cs-trace-enc.h"

#define OW_MAX_PARTS	4
#define OW_MAX_RECS	(3 * OW_MAX_SNAPS)

enum { OW_PLAIN, OW_CUT, OW_OVERLAP };

struct ow_rec {
	int cpu, snap;
	u64 start, end;			/* running offsets in the ring */
	int nparts;
	u64 part_off[OW_MAX_PARTS];	/* offset of the ID byte of each part */
	int part_atoms[OW_MAX_PARTS];
};

struct ow_stream {
	struct buf ring;		/* all trace written to the AUX area */
	struct ow_rec rec[OW_MAX_RECS];
	int nr_recs;
	u64 start[OW_MAX_SNAPS], head[OW_MAX_SNAPS], cut[OW_MAX_SNAPS];
	u64 epoch, count;		/* timestamps */
};

static int kind;
static u8 pkt[CS_ETM4_PKT_MAX];

/*
 * Timestamps that never shrink in a stream: 8 bytes, or 9 from the first
 * cut on; each cut's timestamp (bits 55:0 all but replaced) is followed by
 * the next epoch in bits 63:56.
 */
static u64 ow_trap_ts(void)
{
	u64 t = 0x70;
	int g;

	for (g = 0; g < 7; g++)
		t = t << 7 | 0x77;
	return t;
}

static u64 ow_ts(struct ow_stream *s)
{
	return s->epoch << 56 | 0x10ULL << 49 | s->count++ << 16;
}

static void ow_write(struct fmt *f, int id, const u8 *p, size_t n)
{
	cs_fmt_write(&f->cs, id, p, n);
}

static void ow_pkt(struct fmt *f, int id, const u8 *end)
{
	ow_write(f, id, pkt, end - pkt);
}

static void ow_byte(struct fmt *f, int id, u8 v)
{
	ow_write(f, id, &v, 1);
}

static struct ow_rec *ow_rec_begin(struct ow_stream *s, struct fmt *f, int cpu, int snap)
{
	struct ow_rec *r;

	if (s->nr_recs == OW_MAX_RECS)
		die("-O: more than %d records in an AUX area", OW_MAX_RECS);
	r = &s->rec[s->nr_recs++];
	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->snap = snap;
	r->start = s->ring.len;
	fmt_init(f, &s->ring);
	return r;
}

/*
 * @n >= 2 bytes of timestamps that change nothing (bits 13:0 of every
 * timestamp are zero): 02 00 and 02 80 00. OpenCSD's ETMv4.0 packet
 * processor takes no Ignore packet (0x70): it would lose sync there.
 */
static void ow_pad(struct fmt *f, int id, int n)
{
	static const u8 ts1[] = { CS_ETM4_HDR_TIMESTAMP, 0 };
	static const u8 ts2[] = { CS_ETM4_HDR_TIMESTAMP, 0x80, 0 };

	if (n < 2)
		die("-O: a pad of %d bytes", n);
	if (n % 2) {
		ow_write(f, id, ts2, sizeof(ts2));
		n -= 3;
	}
	for (; n; n -= 2)
		ow_write(f, id, ts1, sizeof(ts1));
}

/* Pad to byte @to of a frame's data (CS_FRAME_DATA: to the end), a frame on if need be */
static void ow_pad_to(struct fmt *f, int id, int to)
{
	int n = (to - f->cs.pos + CS_FRAME_DATA) % CS_FRAME_DATA;

	if (n == 1)
		n += CS_FRAME_DATA;
	if (n)
		ow_pad(f, id, n);
}

/* The end of a record: padding to the end of the frame, ID unchanged */
static void ow_rec_end(struct fmt *f, struct ow_rec *r)
{
	ow_pad_to(f, trace_id(r->cpu), CS_FRAME_DATA);
	r->end = f->out->len;
}

/* One part: the ID, A-sync, trace info, timestamp, address and context, atoms */
static void ow_part(struct ow_stream *s, struct fmt *f, struct ow_rec *r)
{
	int id = trace_id(r->cpu), i;

	if (r->nparts == OW_MAX_PARTS)
		die("-O: more than %d parts in a record", OW_MAX_PARTS);
	/* an ID goes into an even byte (moving an odd byte's data after it) */
	r->part_off[r->nparts] = f->out->len + (f->cs.pos & ~1);
	r->part_atoms[r->nparts++] = atoms;
	cs_fmt_forget_id(&f->cs);
	ow_pkt(f, id, cs_etm4_async(pkt));
	ow_pkt(f, id, cs_etm4_trace_info(pkt));
	ow_pkt(f, id, cs_etm4_timestamp(pkt, ow_ts(s)));
	ow_pkt(f, id, cs_etm4_addr_ctxt(pkt, func_addr[r->cpu], 0,
					per_thread ? thread_pid : cpu_pid(r->cpu)));
	for (i = 0; i < atoms; i++) {
		ow_pkt(f, id, cs_etm4_atom(pkt, 1));
		if (ts_every && (i + 1) % ts_every == 0)
			ow_pkt(f, id, cs_etm4_timestamp(pkt, ow_ts(s)));
	}
}

/*
 * The end of the last record of a cut interval, @r: padding up to @pad bytes
 * from the cut @from, the snapshot size (0: measuring, none)
 */
static void ow_pad_snapshot(struct ow_stream *s, struct fmt *f, struct ow_rec *r, u64 from,
			    u64 pad)
{
	if (pad && s->ring.len - from > pad)
		die("-O: the trace after the cut takes %zu bytes, more than the snapshot size %llu",
		    (size_t)(s->ring.len - from), (unsigned long long)pad);
	while (pad && s->ring.len - from < pad)
		ow_pad(f, trace_id(r->cpu), CS_FRAME_DATA);
	r->end = s->ring.len;
}

/*
 * The record a cut buffer begins inside: a part, then padding up to
 * the last data byte of a frame, which gets the header of the timestamp
 * ow_trap_ts(); its 8 other bytes start the next frame, where the buffer
 * starts. Then @after more parts; padded to the snapshot size @pad if it is
 * the last record of its interval. Returns the offset of the cut.
 */
static u64 ow_cut_record(struct ow_stream *s, int cpu, int snap, int after, u64 pad)
{
	int id = trace_id(cpu), i;
	struct fmt f;
	struct ow_rec *r = ow_rec_begin(s, &f, cpu, snap);
	u8 *end;
	u64 cut;

	ow_part(s, &f, r);
	ow_pad_to(&f, id, CS_FRAME_DATA - 1);
	end = cs_etm4_timestamp(pkt, ow_trap_ts());
	if (end - pkt != 9 || pkt[1] != 0xf7 || pkt[7] != 0xf7 || pkt[8] != 0x70)
		die("-O: the timestamp of the cut is not 02 f7 ... f7 70");
	ow_byte(&f, id, pkt[0]);
	cut = f.out->len;
	if (f.cs.pos)
		die("-O: the cut is not at a frame boundary");
	ow_write(&f, id, pkt + 1, end - pkt - 1);
	s->epoch++;
	for (i = 0; i < after; i++)
		ow_part(s, &f, r);
	ow_rec_end(&f, r);
	ow_pad_snapshot(s, &f, r, cut, pad);
	return cut;
}

/* A record of @parts parts on @cpu; the last of a cut interval padded to @pad */
static void ow_record(struct ow_stream *s, int cpu, int snap, int parts, u64 pad_from, u64 pad)
{
	struct fmt f;
	struct ow_rec *r = ow_rec_begin(s, &f, cpu, snap);
	int i;

	for (i = 0; i < parts; i++)
		ow_part(s, &f, r);
	ow_rec_end(&f, r);
	ow_pad_snapshot(s, &f, r, pad_from, pad);
}

/*
 * Write the AUX area of @cpu (per thread: -1) with snapshot size @snap_size
 * (cut) or AUX area size @area (overlap); 0 to measure. Returns the most the
 * trace after a cut takes (cut), or the most one interval writes.
 */
static u64 ow_gen_stream(struct ow_stream *s, int cpu, u64 snap_size, u64 area)
{
	u64 most = 0, prev = 0, cut;
	int k, j;

	for (k = 0; k < nr_snaps; k++) {
		cut = 0;
		if (cpu >= 0) {
			if (kind == OW_CUT && k % 2) {
				cut = ow_cut_record(s, cpu, k, 2, 0);
				ow_record(s, cpu, k, 2, cut, snap_size);
			} else if (kind == OW_CUT && k) {
				/* one record, more than the snapshot size */
				cut = ow_cut_record(s, cpu, k, 2, snap_size);
			} else if (kind == OW_PLAIN && k % 2) {
				ow_record(s, cpu, k, 1, 0, 0);
				ow_record(s, cpu, k, 1, 0, 0);
			} else {
				ow_record(s, cpu, k, 2, 0, 0);
			}
		} else {
			for (j = 0; j < 3; j++) {
				int c = (k * 2 + j) % nr_cpus;

				if (kind == OW_CUT && k && !j) {
					cut = ow_cut_record(s, c, k, 1, 0);
				} else {
					ow_record(s, c, k, 1, cut, cut && j == 2 ? snap_size : 0);
				}
			}
		}
		s->head[k] = s->ring.len;
		s->cut[k] = cut;
		if (cut) {
			s->start[k] = cut;
			if (s->head[k] - cut > most)
				most = s->head[k] - cut;
		} else if (kind == OW_OVERLAP) {
			s->start[k] = s->head[k] > area ? s->head[k] - area : 0;
			if (s->head[k] - prev > most)
				most = s->head[k] - prev;
		} else {
			s->start[k] = prev;
		}
		prev = s->head[k];
	}
	return most;
}

/*
 * Branches of @r decoded from the earliest buffer that holds its end; its
 * parts decoded (each from its A-sync) added to @syncs
 */
static int ow_decoded(const struct ow_stream *s, const struct ow_rec *r, int *syncs)
{
	int k, i, n = 0;
	u64 from;

	for (k = 0; k < nr_snaps; k++)
		if (s->start[k] < r->end && r->end <= s->head[k])
			break;
	if (k == nr_snaps)
		return 0;
	from = s->start[k] > r->start ? s->start[k] : r->start;
	for (i = 0; i < r->nparts; i++)
		if ((r->part_off[i] & ~15ULL) >= from) {
			n += r->part_atoms[i];
			(*syncs)++;
		}
	return n;
}

static u64 round_frames(u64 n)
{
	return (n + CS_FRAME_SIZE - 1) & ~(u64)(CS_FRAME_SIZE - 1);
}

void gen_overwrite(void)
{
	int nr_streams = per_thread ? 1 : nr_cpus, i, c, k, pass;
	struct ow_stream *st = calloc(nr_streams, sizeof(*st));
	static int expect[MAX_CPUS], syncs[MAX_CPUS];
	u64 snap_size = 0, area = 0, most;

	if (!st)
		die("out of memory");
	if (!strcmp(overwrite, "plain"))
		kind = OW_PLAIN;
	else if (!strcmp(overwrite, "cut"))
		kind = OW_CUT;
	else if (!strcmp(overwrite, "overlap"))
		kind = OW_OVERLAP;
	else
		die("-O %s: expected plain, cut or overlap", overwrite);

	/* Measure, then write with one snapshot size (cut) or AUX area size */
	for (pass = 0; pass < 2; pass++) {
		most = 0;
		for (i = 0; i < nr_streams; i++) {
			u64 m;

			free(st[i].ring.p);
			memset(&st[i], 0, sizeof(st[i]));
			m = ow_gen_stream(&st[i], per_thread ? -1 : i, snap_size, area);
			if (m > most)
				most = m;
		}
		if (kind == OW_CUT)
			snap_size = round_frames(most);
		else if (kind == OW_OVERLAP)
			area = round_frames(most * 9 / 4);
	}
	if (list_topology)
		printf("overwrite %s snapshots %d size %#llx area %#llx\n", overwrite, nr_snaps,
		       (unsigned long long)snap_size, (unsigned long long)area);

	if (per_thread) {
		put_comm(thread_pid, 0, "csgen");
		put_mmap(thread_pid, 0);
		put_itrace_start(thread_pid, 0);
		for (c = 0; c < nr_cpus; c++)
			put_hw_id(thread_pid, c);
	} else {
		for (c = 0; c < nr_cpus; c++) {
			put_comm(cpu_pid(c), c, "csgen");
			put_mmap(cpu_pid(c), c);
		}
		for (c = 0; c < nr_cpus; c++) {
			put_itrace_start(cpu_pid(c), c);
			put_hw_id(cpu_pid(c), c);
		}
	}

	/* Each snapshot: the AUX records of its interval, then its buffers */
	for (k = 0; k < nr_snaps; k++) {
		for (i = 0; i < nr_streams; i++) {
			const struct ow_stream *s = &st[i];
			int j;

			for (j = 0; j < s->nr_recs; j++) {
				const struct ow_rec *r = &s->rec[j];
				int n;

				if (r->snap != k)
					continue;
				n = ow_decoded(s, r, &syncs[r->cpu]);
				expect[r->cpu] += n;
				if (list_topology)
					printf("record cpu %d head %#llx size %#llx parts %d decoded %d\n",
					       r->cpu, (unsigned long long)r->end,
					       (unsigned long long)(r->end - r->start), r->nparts, n);
				put_aux(per_thread ? thread_pid : cpu_pid(r->cpu), r->cpu, r->end,
					r->end - r->start, 0);
			}
		}
		for (i = 0; i < nr_streams; i++) {
			const struct ow_stream *s = &st[i];
			struct buf b = { s->ring.p + s->start[k], s->head[k] - s->start[k], 0 };

			if (list_topology)
				printf("snap cpu %d index %d offset %#llx size %#llx cut %#llx\n",
				       per_thread ? -1 : i, k, (unsigned long long)s->start[k],
				       (unsigned long long)b.len, (unsigned long long)s->cut[k]);
			/* perf record's reference of a cs_etm buffer is random: one each */
			u64 ref = (u64)(k + 1) << 32 | (0x1000 + i);

			if (per_thread)
				put_auxtrace(&b, s->start[k], thread_idx, thread_pid, -1, ref);
			else
				put_auxtrace(&b, s->start[k], i, workload ? pid_base : -1, i, ref);
		}
		put_finished_round();
	}
	if (list_topology)
		for (c = 0; c < nr_cpus; c++)
			printf("expect cpu %d branches %d asyncs %d\n", c, expect[c], syncs[c]);
	for (i = 0; i < nr_streams; i++)
		free(st[i].ring.p);
	free(st);
}
