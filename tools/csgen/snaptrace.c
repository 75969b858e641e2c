// SPDX-License-Identifier: GPL-2.0
/*
 * csgen snapshot trace: the trace of a snapshot (-S) laid out in AUX
 * buffers, in each way trace IDs can reach perf:
 *
 * - one sink (-s 1): the captured bytes as they are, in the buffer of
 *   CPU 0, cut into several buffers where -C says;
 * - several sinks (-s S): each source's stream re-formatted, with the
 *   IDs of its sink's map, into the buffer of the sink's first CPU;
 * - raw (-U): each source's stream unformatted in its CPU's buffer;
 * - per-thread (-t): one AUX part per source, formatted alone (or raw),
 *   its AUX record naming that source's CPU.
 *
 * The trace carries no context ID: the one thread of the writer (pid/tid
 * -p, default 4242) runs the code on every CPU, and the AUXTRACE records
 * name it, as perf record does for a workload it starts. With -D, each
 * buffer or part written is also a snapshot directory of its own, for
 * trc_pkt_lister.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csgen.h"

static int nr_buffers;

static struct buf *cpu_stream(int c)
{
	return &snap.stream[snap.cpu[c].id].data;
}

/* -D: buffer number N of the file as snapshot directory DIR/auxN */
static void oracle(const struct buf *trace, const int *cpus, int n, int raw)
{
	char dir[4096];
	int ids[SNAP_MAX_CPUS], i;

	nr_buffers++;
	if (!oracle_dir)
		return;
	for (i = 0; i < n; i++)
		ids[i] = trace_id(cpus[i]);
	snprintf(dir, sizeof(dir), "%s/aux%d", oracle_dir, nr_buffers - 1);
	snap_write_dir(dir, trace, cpus, ids, n, raw);
}

/* The CPUs of sink @sink (all of them: @sink < 0) */
static int sink_cpus(int sink, int *cpus)
{
	int c, n = 0;

	for (c = 0; c < nr_cpus; c++)
		if (sink < 0 || sink_of(c) == sink)
			cpus[n++] = c;
	return n;
}

/* Frame offset @v of -C, in the capture */
static size_t cut_offset(const char *p, char **end)
{
	unsigned long long v = strtoull(p, end, 0);

	if (*end == p || v > snap.capture.len)
		die("-C %s: expected offsets up to %zu", cuts, snap.capture.len);
	return v / CS_FRAME_SIZE * CS_FRAME_SIZE;
}

#define MAX_PIECES	64

/* A piece of the capture, and whether the trace stops at its end */
struct piece {
	size_t start, end;
	int stop;
};

/*
 * -C A,B:C,...: a buffer ends at each offset (down to a frame). A plain
 * offset cuts the trace mid-stream: the sink ran on, perf record read its
 * AUX area in two goes. B:C says the trace stopped at B and restarted at
 * the first frame with an A-sync from C on: the frames between are
 * dropped, and an AUX record ends at B.
 */
static int parse_cuts(struct piece *pc)
{
	const char *p = cuts ? cuts : "";
	size_t start = 0;
	int n = 0;

	while (*p) {
		size_t end, next;
		char *e;

		end = next = cut_offset(p, &e);
		if (*e == ':')
			next = snap_sync_frame(cut_offset(e + 1, &e));
		if ((*e && *e != ',') || end <= start || next < end || n == MAX_PIECES - 1)
			die("-C %s: expected up to %d increasing OFFSET or OFFSET:OFFSET, separated by commas",
			    cuts, MAX_PIECES - 1);
		pc[n++] = (struct piece){ start, end, next != end };
		start = next;
		p = *e ? e + 1 : e;
		/* no A-sync after a stop: the trace never restarted */
		if (start == snap.capture.len) {
			if (*p)
				die("-C %s: no A-sync after offset %zu, where later cuts are", cuts, end);
			return n;
		}
	}
	if (start >= snap.capture.len)
		die("-C %s: the last piece is empty", cuts);
	pc[n++] = (struct piece){ start, snap.capture.len, 1 };
	return n;
}

/*
 * One sink: the capture in CPU 0's buffers, one AUXTRACE record per piece
 * and one AUX record per run of pieces up to a stop.
 */
static void put_capture(void)
{
	struct piece pc[MAX_PIECES];
	int cpus[SNAP_MAX_CPUS], n = sink_cpus(-1, cpus);
	int nr = parse_cuts(pc), first = 0, k;
	u64 aux_off = 0;

	for (k = 0; k < nr; k++) {
		struct buf piece = { 0 };
		u64 run = 0;
		int i;

		if (k == first) {
			/* the AUX record of the run of pieces that starts here */
			for (i = k; i < nr; i++) {
				run += pc[i].end - pc[i].start;
				if (pc[i].stop)
					break;
			}
			put_aux(thread_pid, 0, aux_off, run, 0);
		}
		if (pc[k].stop)
			first = k + 1;
		buf_put(&piece, snap.capture.p + pc[k].start, pc[k].end - pc[k].start);
		put_auxtrace(&piece, aux_off, 0, thread_pid, 0, 0x1000 + nr_buffers);
		oracle(&piece, cpus, n, 0);
		aux_off += piece.len;
		free(piece.p);
	}
}

/* The streams of CPUs @cpus re-formatted into @out, with their new IDs */
static void reformat(struct buf *out, const int *cpus, int n)
{
	struct stream s[SNAP_MAX_CPUS];
	struct fmt f;
	int i, k = 0;

	memset(s, 0, sizeof(s));
	for (i = 0; i < n; i++) {
		if (!cpu_stream(cpus[i])->len)
			continue;
		s[k].id = trace_id(cpus[i]);
		/* borrowed: fmt_interleave() only reads it */
		s[k].data = *cpu_stream(cpus[i]);
		k++;
	}
	fmt_init(&f, out);
	fmt_interleave(&f, s, k);
	fmt_finish(&f);
}

/* Several sinks: each sink's streams in the buffer of its first CPU */
static void put_sinks(void)
{
	int sink;

	for (sink = 0; sink < nr_sinks; sink++) {
		int cpus[SNAP_MAX_CPUS], n = sink_cpus(sink, cpus);
		struct buf trace = { 0 };

		reformat(&trace, cpus, n);
		if (!trace.len)
			continue;
		put_aux(thread_pid, cpus[0], 0, trace.len, 0);
		put_auxtrace(&trace, 0, cpus[0], thread_pid, cpus[0], 0x1000 + cpus[0]);
		oracle(&trace, cpus, n, 0);
		free(trace.p);
	}
}

/*
 * The stream of CPU @c unformatted, padded to 8 bytes with Ignore packets
 * in front, where the decoder is not in sync yet: at the end they would
 * become part of the packet the capture cut short.
 */
static void raw_stream(struct buf *out, int c)
{
	u8 pad = snap.cpu[c].proto == SNAP_ETMV4 ? 0x70 : 0x66;

	while ((out->len + cpu_stream(c)->len) % 8)
		buf_u8(out, pad);
	buf_put(out, cpu_stream(c)->p, cpu_stream(c)->len);
}

static void put_raw(void)
{
	int c;

	for (c = 0; c < nr_cpus; c++) {
		struct buf trace = { 0 };

		if (!cpu_stream(c)->len)
			continue;
		raw_stream(&trace, c);
		put_aux(thread_pid, c, 0, trace.len, 1);
		put_auxtrace(&trace, 0, c, thread_pid, c, 0x1000 + c);
		oracle(&trace, &c, 1, 1);
		free(trace.p);
	}
}

/* Per-thread: one part per source in the thread's one buffer */
static void put_parts(void)
{
	struct buf trace = { 0 };
	int c;

	for (c = 0; c < nr_cpus; c++) {
		size_t start = trace.len;
		struct buf part = { 0 };

		if (!cpu_stream(c)->len)
			continue;
		if (unformatted)
			raw_stream(&part, c);
		else
			reformat(&part, &c, 1);
		buf_put(&trace, part.p, part.len);
		put_aux(thread_pid, c, start, part.len, unformatted);
		oracle(&part, &c, 1, unformatted);
		free(part.p);
	}
	put_auxtrace(&trace, 0, 0, thread_pid, -1, 0x1000);
	free(trace.p);
}

/*
 * The writer's thread: user code is the program of the dumps, named as
 * their files are (cc1.text_dump.bin: cc1); kernel code runs in any task
 */
static const char *comm(void)
{
	static char name[16];
	const char *base = strrchr(snap.dump[0].path, '/') + 1;

	if (snap.kernel)
		return "snapshot";
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "._"), base);
	return name;
}

void snap_gen(void)
{
	int c;

	if (cuts && (per_thread || unformatted || nr_sinks > 1))
		die("-C cuts the captured buffer: one sink, formatted, per-CPU only");
	if (oracle_dir) {
		int cpus[SNAP_MAX_CPUS], ids[SNAP_MAX_CPUS], n = sink_cpus(-1, cpus);
		char dir[4096];

		if (mkdir(oracle_dir, 0755) && errno != EEXIST)
			die("cannot create %s: %s", oracle_dir, strerror(errno));
		/* the capture (or its slice) as the sources wrote it */
		for (c = 0; c < n; c++)
			ids[c] = snap.cpu[c].id;
		snprintf(dir, sizeof(dir), "%s/capture", oracle_dir);
		snap_write_dir(dir, &snap.capture, cpus, ids, n, 0);
	}
	put_comm(thread_pid, 0, comm());
	if (snap.kernel)
		put_kernel_mmap();
	else
		put_mmap2(thread_pid, 0);
	for (c = 0; c < nr_cpus; c++) {
		if (!per_thread || c == 0)
			put_itrace_start(thread_pid, c);
		put_hw_id(thread_pid, c);
	}
	if (per_thread)
		put_parts();
	else if (unformatted)
		put_raw();
	else if (nr_sinks > 1)
		put_sinks();
	else
		put_capture();
	put_finished_round();
}
