// SPDX-License-Identifier: GPL-2.0
/*
 * csgen trace: the ETMv4 trace of each CPU, formatted into frames (or left
 * unformatted) and laid out in AUX buffers, per CPU or per thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csgen.h"
#include "cs-trace-enc.h"

/* Packets are encoded here, then appended to a buffer */
static u8 pkt[CS_ETM4_PKT_MAX];

static void put_pkt(struct buf *b, const u8 *end)
{
	buf_put(b, pkt, end - pkt);
}

static u64 ts_base = 0x1234500000000ULL;

/* Where a decoder can start: sync, trace info, timestamp, address and context */
static void etm_sync(struct buf *b, int cpu, u64 ts)
{
	put_pkt(b, cs_etm4_async(pkt));
	put_pkt(b, cs_etm4_trace_info(pkt));
	put_pkt(b, cs_etm4_timestamp(pkt, ts));
	put_pkt(b, cs_etm4_addr_ctxt(pkt, func_addr[cpu], 0, cpu_pid(cpu)));
}

/*
 * One self-contained piece of the trace of a CPU: a sync (EL0), then E atoms
 * of the loop of func_cpu<cpu>, with a sync every sync_every atoms (-y).
 */
static void etm_part(struct buf *b, int cpu, int part, int nr_atoms)
{
	u64 ts = ts_base + (u64)part * 0x10000000ULL + (u64)cpu * 0x1000;
	int i;

	etm_sync(b, cpu, ts);
	for (i = 0; i < nr_atoms; i++) {
		if (sync_every && i && i % sync_every == 0)
			etm_sync(b, cpu, ts);
		/* E atom: the loop branch is taken */
		put_pkt(b, cs_etm4_atom(pkt, 1));
		if (ts_every && (i + 1) % ts_every == 0) {
			ts += 0x100;
			put_pkt(b, cs_etm4_timestamp(pkt, ts));
		}
	}
	if (!strcmp(end_mode, "async"))
		put_pkt(b, cs_etm4_async(pkt));
}

/* ---- formatted AUX buffers: the formatter of cs-trace-enc.h ---- */

static void fmt_emit(struct cs_fmt *cs)
{
	struct fmt *f = (struct fmt *)cs;

	buf_put(f->out, cs->frame, CS_FRAME_SIZE);
}

void fmt_init(struct fmt *f, struct buf *out)
{
	cs_fmt_init(&f->cs, fmt_emit);
	f->out = out;
}

/* End of a buffer: pad the last frame with the null ID */
void fmt_finish(struct fmt *f)
{
	int k;

	cs_fmt_flush(&f->cs);
	if (!strcmp(end_mode, "pad")) {
		/* -E pad: four more frames of the null ID only */
		for (k = 0; k < 4; k++) {
			cs_fmt_forget_id(&f->cs);
			cs_fmt_set_id(&f->cs, 0);
			cs_fmt_flush(&f->cs);
		}
	}
}

static void fmt_barrier(struct buf *out)
{
	u8 b[CS_FRAME_SIZE];

	buf_put(out, b, cs_fmt_barrier(b) - b);
}

/*
 * Unformatted trace (ETE + TRBE style): the bytes of one source as they
 * are, padded to 8 bytes with Ignore packets (@pad: ETMv4 0x70, ETMv3 and
 * PTM 0x66).
 */
void raw_data(struct buf *out, const struct buf *d, u8 pad)
{
	buf_put(out, d->p, d->len);
	while (out->len % 8)
		buf_u8(out, pad);
}

/* Interleave several streams in chunks of varying size */
void fmt_interleave(struct fmt *f, struct stream *s, int n)
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
			cs_fmt_write(&f->cs, s[i].id, s[i].data.p + s[i].used, sz);
			s[i].used += sz;
			if (s[i].used < s[i].data.len)
				left++;
		}
		round++;
	}
}

/*
 * -B barrier8: a barrier at byte 8 of the buffer, so that the frame after it
 * starts with two FSYNCs; -B midframe: the buffer starts 8 bytes into its
 * first frame. Both keep the size a multiple of 16 bytes.
 */
static void misalign(struct buf *trace)
{
	struct buf out = { 0 };
	u8 b[CS_FRAME_SIZE], zero[8] = { 0 };

	if (!strcmp(bad, "barrier8")) {
		buf_put(&out, trace->p, 8);
		buf_put(&out, b, cs_fmt_barrier(b) - b);
		buf_put(&out, trace->p + 8, trace->len - 8);
	} else {
		buf_put(&out, trace->p + 8, trace->len - 8);
		buf_put(&out, zero, sizeof(zero));
	}
	free(trace->p);
	*trace = out;
}

/* -K: the bytes of @path, whole frames, in place of the trace of @trace */
static void read_trace_file(struct buf *trace, const char *path)
{
	FILE *f = fopen(path, "rb");
	u8 frame[CS_FRAME_SIZE];

	if (!f)
		die("cannot read %s", path);
	trace->len = 0;
	while (fread(frame, 1, sizeof(frame), f) == sizeof(frame))
		buf_put(trace, frame, sizeof(frame));
	fclose(f);
}

/*
 * The thread of per-CPU AUXTRACE records: none (-1) in a system-wide
 * session (perf record -a), the workload's with -w (perf record -- cmd)
 */
static int auxtrace_tid(void)
{
	return workload ? pid_base : -1;
}

void gen_per_cpu(void)
{
	static u64 hwid_time[MAX_CPUS];
	int c;

	for (c = 0; c < nr_cpus; c++) {
		put_comm(cpu_pid(c), c, "csgen");
		put_mmap(cpu_pid(c), c);
	}
	for (c = 0; c < nr_cpus; c++) {
		if (!traced(c))
			continue;
		put_itrace_start(cpu_pid(c), c);
		/* -R: the record is written later, with this time */
		if (late_hwid)
			hwid_time[c] = take_time();
		else
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
		int other, n = 0;

		/* An untraced CPU alone on its sink has no peer */
		if (!traced(c))
			continue;
		other = sink_peer(c, -1);
		memset(s, 0, sizeof(s));
		s[n].id = trace_id(c);
		etm_part(&s[n].data, c, 0, atoms / 2);
		n++;
		if (raw_cpu(c)) {
			/* A per-CPU sink without formatter: only its CPU's trace */
			etm_part(&s[0].data, c, 1, atoms - atoms / 2);
			raw_data(&trace, &s[0].data, 0x70);
			if (late_hwid) {
				set_next_time(hwid_time[c]);
				put_hw_id(cpu_pid(c), c);
			}
			put_aux(cpu_pid(c), c, 0, trace.len, 1);
			put_auxtrace(&trace, 0, c, auxtrace_tid(), c, 0x1000 + c);
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
		if (c == 1 && (!strcmp(bad, "strayid") || !strcmp(bad, "barrier8"))) {
			/* trace of an ID that no CPU of the sink holds */
			s[n].id = TRACE_ID_MAX - 1;
			etm_part(&s[n].data, c, 2, 10);
			if (list_topology)
				printf("stray cpu %d id %#x bytes %zu\n", c, s[n].id,
				       s[n].data.len);
			n++;
		}
		fmt_init(&f, &trace);
		if (barrier)
			fmt_barrier(&trace);
		fmt_interleave(&f, s, n);
		fmt_finish(&f);
		if (c == 1 && (!strcmp(bad, "barrier8") || !strcmp(bad, "midframe")))
			misalign(&trace);
		if (c == 1 && cpu1_file)
			read_trace_file(&trace, cpu1_file);
		if (late_hwid) {
			set_next_time(hwid_time[c]);
			put_hw_id(cpu_pid(c), c);
		}
		/* -B auxwrap: an AUX offset whose sum with the size wraps */
		put_aux(cpu_pid(c), c, c == 1 && !strcmp(bad, "auxwrap") ? -8ULL : 0,
			trace.len, 0);
		put_auxtrace(&trace, 0, c, auxtrace_tid(), c, 0x1000 + c);
		free(s[0].data.p);
		free(s[1].data.p);
		free(s[2].data.p);
		free(trace.p);
	}
	/* -B auxend, auxend1: the last CPU's AUXTRACE record ends the data */
	if (strncmp(bad, "auxend", 6))
		put_finished_round();
}

/*
 * Part @k of a per-thread buffer of thread @tid, run on CPU @c: its trace
 * appended to @trace (formatted with the CPU's ID, or raw for a raw sink)
 * and its AUX record, which names @aux_off as its offset (@start but for -B
 * auxwrap) and @aux_cpu as its CPU.
 */
static void put_thread_part(struct buf *trace, int tid, int c, int aux_cpu, int k,
			    u64 start, u64 aux_off)
{
	struct stream s;
	struct fmt f;
	int raw = raw_cpu(c);

	memset(&s, 0, sizeof(s));
	s.id = trace_id(c);
	etm_part(&s.data, c, k, atoms);
	if (raw) {
		raw_data(trace, &s.data, 0x70);
	} else {
		fmt_init(&f, trace);
		if (barrier)
			fmt_barrier(trace);
		fmt_interleave(&f, &s, 1);
		fmt_finish(&f);
	}
	put_aux(tid, aux_cpu, raw ? start : aux_off, trace->len - start, raw);
	free(s.data.p);
}

/* The traced thread's records, and the HW_ID record of every CPU */
static void put_thread_start(void)
{
	int c;

	put_comm(thread_pid, 0, "csgen");
	put_mmap(thread_pid, 0);
	put_itrace_start(thread_pid, 0);
	for (c = 0; c < nr_cpus; c++)
		put_hw_id(thread_pid, c);
}

void gen_per_thread(void)
{
	struct buf trace = { 0 };
	int c, k;

	put_thread_start();

	/* The thread runs on each CPU in turn: one AUX record each time */
	for (k = 0; k < segments; k++) {
		u64 start = trace.len;

		c = k % nr_cpus;
		if (!strcmp(bad, "gap8")) {
			/* 8 bytes no AUX record covers: the part starts at 8 mod 16 */
			buf_put(&trace, (u8[8]){ 0 }, 8);
			start = trace.len;
		}
		/* -B auxwrap: an AUX offset whose sum with the size wraps */
		put_thread_part(&trace, thread_pid, c, c, k, start,
				k == 1 && !strcmp(bad, "auxwrap") ? -8ULL : start);
	}
	/*
	 * -B nocputhread: another thread, decoded first (buffer index 0), ran
	 * on the first and the last CPU, and its AUX records name CPU -1
	 */
	if (!strcmp(bad, "nocputhread")) {
		struct buf t2 = { 0 };

		put_comm(thread_pid + 1, 0, "csgen");
		put_thread_part(&t2, thread_pid + 1, 0, -1, 0, 0, 0);
		put_thread_part(&t2, thread_pid + 1, nr_cpus - 1, -1, 1, t2.len, t2.len);
		put_auxtrace(&t2, 0, 0, thread_pid + 1, -1, 0x2000);
		free(t2.p);
	}
	put_auxtrace(&trace, 0, !strcmp(bad, "nocputhread") ? 1 : thread_idx, thread_pid, -1, 0x1000);
	free(trace.p);
	put_finished_round();
}

/*
 * -P: a workload that moves itself from CPU to CPU, as on a real board. The
 * thread is exec'd on the first CPU of the list and runs one part on each
 * CPU of it in turn. As the kernel writes them, the HW_ID record of a CPU
 * comes when the event first starts there, just before that CPU's first
 * part, and CPUs the thread never ran on have none. The thread exits before
 * perf writes the AUX buffer, so perf decodes it at the EXIT record. With
 * -W K a worker thread it started exits after its first K parts: in pipe
 * mode perf sets up its queues at that EXIT record, before the HW_ID
 * records of the later parts.
 */
void gen_per_thread_hops(void)
{
	struct buf trace = { 0 };
	static char started[MAX_CPUS];
	int k;

	put_comm(thread_pid, hop_cpu[0], "csgen");
	put_mmap(thread_pid, hop_cpu[0]);
	put_itrace_start(thread_pid, hop_cpu[0]);

	/* -W 0: a worker exits before the first part and HW_ID record */
	if (!worker_exit)
		put_exit(thread_pid + 1, hop_cpu[0]);
	for (k = 0; k < nr_hops; k++) {
		int c = hop_cpu[k];
		u64 start = trace.len;

		if (!started[c]) {
			started[c] = 1;
			put_hw_id(thread_pid, c);
		}
		put_thread_part(&trace, thread_pid, c, c, k, start, start);
		/* -W K: a worker thread exits after the first K parts */
		if (k + 1 == worker_exit)
			put_exit(thread_pid + 1, c);
	}
	put_exit(thread_pid, hop_cpu[nr_hops - 1]);
	put_auxtrace(&trace, 0, 0, thread_pid, -1, 0x1000);
	free(trace.p);
	put_finished_round();
}

/*
 * -Q N: a per-thread session of a thread that starts N child threads (perf
 * record --per-thread with inherit): child k runs one part on CPU k % the
 * CPUs, in its parent's buffer, writes an AUX record of its own tid and
 * exits. No AUX record of the parent describes the buffer, so it decodes
 * whole, every part with its CPU's trace ID; the children's records match
 * no buffer.
 */
void gen_per_thread_children(void)
{
	struct buf trace = { 0 };
	int c, k;

	put_thread_start();
	for (k = 0; k < nr_children; k++) {
		int tid = thread_pid + 1 + k;

		c = k % nr_cpus;
		put_thread_part(&trace, tid, c, c, k, trace.len, trace.len);
		put_exit(tid, c);
	}
	put_exit(thread_pid, 0);
	put_auxtrace(&trace, 0, 0, thread_pid, -1, 0x1000);
	free(trace.p);
	put_finished_round();
}
