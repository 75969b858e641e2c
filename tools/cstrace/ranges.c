// SPDX-License-Identifier: GPL-2.0
/*
 * ranges - judge perf's decode of real trace by OpenCSD's: per CPU, in
 * order, the instruction ranges perf's branch samples describe against
 * the INSTR_RANGE elements trc_pkt_lister decodes from the same bytes.
 *
 *   perf script --itrace=b -F cpu,pid,tid,ip,addr,insnlen ... |
 *	ranges [-p PID/TID] [-a] LOG ID=CPU[,ID=CPU...] [LOG MAP ...]
 *
 * Each LOG is the output of trc_pkt_lister -decode (or -decode_only) of
 * one buffer, MAP says which CPU each trace ID of that buffer is; the
 * LOGs of several buffers follow each other in the order perf decodes
 * them (per CPU). -p: every sample must have this pid/tid.
 *
 * What a branch sample says: perf samples a branch when an instruction
 * range follows a range whose last instruction was a taken branch (or was
 * cut short by an exception); the sample's ip is the last instruction of
 * that range, its addr the first of the next. Trace that stops (trace on,
 * loss of sync, end of trace) gives a sample to address 0, trace that
 * starts one from address 0. So the range between two samples is
 * [addr of the first, ip of the second], ending with an instruction of
 * insnlen bytes. OpenCSD's ranges are cut at every atom, taken or not:
 * they are joined here where perf joins them, so that both describe the
 * same thing: a run of instructions from a branch target (or trace start)
 * to a taken branch, an exception or the end of trace.
 *
 * The ISA of a range shows in perf's output only through the size of its
 * last instruction (insnlen: 2 or 4 for T32, 4 for A32 and A64), which is
 * compared with OpenCSD's last_sz.
 *
 * Allowed differences (-a): see ALLOWED below. Without -a none is.
 *
 * Prints per CPU the ranges of each side, how many agree, and the first
 * difference; "ranges: N equal, N only perf, N only OpenCSD" over all
 * CPUs. Exits 1 if they differ, 2 on bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS	64

struct range {
	unsigned long long start, end;	/* first and last instruction */
	int last_sz;			/* bytes of the last instruction */
};

struct seq {
	struct range *r;
	size_t n, cap;
};

static struct seq ocsd[MAX_CPUS], perf[MAX_CPUS];

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "ranges: %s%s\n", msg, arg ? arg : "");
	exit(2);
}

static void push(struct seq *s, unsigned long long start, unsigned long long end, int sz)
{
	if (s->n == s->cap) {
		s->cap = s->cap * 2 + 1024;
		s->r = realloc(s->r, s->cap * sizeof(*s->r));
		if (!s->r)
			die("out of memory", NULL);
	}
	s->r[s->n++] = (struct range){ start, end, sz };
}

/* ---- OpenCSD: trc_pkt_lister's generic elements ---- */

/* The range being joined, per trace ID */
struct open {
	int open;
	struct range r;
};

static void close_range(struct open *o, int cpu)
{
	if (o->open)
		push(&ocsd[cpu], o->r.start, o->r.end, o->r.last_sz);
	o->open = 0;
}

static void read_log(const char *path, const char *map)
{
	struct open open[128];
	int cpu_of[128], id, cpu, n;
	const char *m = map;
	char line[1024];
	FILE *f;

	memset(open, 0, sizeof(open));
	for (id = 0; id < 128; id++)
		cpu_of[id] = -1;
	while (sscanf(m, "%i=%d%n", &id, &cpu, &n) == 2) {
		if (id < 0 || id > 127 || cpu < 0 || cpu >= MAX_CPUS)
			die("bad ID=CPU in ", map);
		cpu_of[id] = cpu;
		m += n;
		if (*m == ',')
			m++;
	}
	if (*m)
		die("expected ID=CPU[,ID=CPU...], got ", map);
	f = fopen(path, "r");
	if (!f)
		die("cannot open ", path);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end;
		char elem[32], isa[16], exec, type[8];
		const char *p;
		unsigned int tid;
		int sz;
		struct open *o;

		/* an element, also after an error message without newline */
		for (p = strstr(line, "Idx:"); p; p = strstr(p + 1, "Idx:"))
			if (sscanf(p, "Idx:%*u; ID:%x; OCSD_GEN_TRC_ELEM_%31[A-Z_]", &tid, elem) == 2)
				break;
		if (!p || tid > 127 || cpu_of[tid] < 0)
			continue;
		o = &open[tid];
		cpu = cpu_of[tid];
		if (!strcmp(elem, "INSTR_RANGE")) {
			p = strstr(p, "exec range=");

			if (!p || sscanf(p, "exec range=%llx:[%llx] num_i(%*d) last_sz(%d) (ISA=%15[^)]) %c %7s",
					 &start, &end, &sz, isa, &exec, type) != 6)
				die("cannot parse: ", line);
			if (!o->open) {
				o->open = 1;
				o->r.start = start;
			}
			o->r.end = end - sz;
			o->r.last_sz = sz;
			/* a taken branch ends the range */
			if (exec == 'E' && (!strcmp(type, "BR") || !strcmp(type, "iBR")))
				close_range(o, cpu);
		} else if (!strcmp(elem, "EXCEPTION") || !strcmp(elem, "EXCEPTION_RET") ||
			   !strcmp(elem, "TRACE_ON") || !strcmp(elem, "NO_SYNC") ||
			   !strcmp(elem, "EO_TRACE")) {
			/* perf ends the range there too: a sample, or one to 0 */
			close_range(o, cpu);
		}
	}
	fclose(f);
	/* a range still open at the end of the log: OpenCSD gave no end */
}

/* ---- perf: branch samples, per CPU ---- */

static long bad_pid, nr_samples;
static char first_bad_pid[512];

static void read_perf(const char *want_pid)
{
	struct { int seen; unsigned long long addr; } last[MAX_CPUS];
	char line[512];

	memset(last, 0, sizeof(last));
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long ip, addr;
		int pid, tid, cpu, ilen;
		char pt[64];

		if (sscanf(line, "%d/%d [%d] %llx => %llx ilen: %d", &pid, &tid, &cpu, &ip, &addr,
			   &ilen) != 6 || cpu < 0 || cpu >= MAX_CPUS) {
			fprintf(stderr, "ranges: not a sample: %s", line);
			exit(2);
		}
		nr_samples++;
		snprintf(pt, sizeof(pt), "%d/%d", pid, tid);
		if (want_pid && strcmp(pt, want_pid) && !bad_pid++)
			snprintf(first_bad_pid, sizeof(first_bad_pid), "%s", line);
		/* the range since the last sample's target, up to this ip */
		if (last[cpu].seen && last[cpu].addr && ip)
			push(&perf[cpu], last[cpu].addr, ip, ilen);
		else if (last[cpu].seen && last[cpu].addr)
			push(&perf[cpu], last[cpu].addr, 0, 0);	/* no end */
		last[cpu].seen = 1;
		last[cpu].addr = addr;
	}
}

/* ---- comparison ---- */

static int same(const struct range *a, const struct range *b)
{
	return a->start == b->start && a->end == b->end && a->last_sz == b->last_sz;
}

static void print_range(const char *who, const struct range *r, size_t i)
{
	printf("    %s #%zu: %#llx-%#llx last_sz %d\n", who, i, r->start, r->end, r->last_sz);
}

/*
 * Resynchronisation after a difference needs landmarks: a single range
 * recurs all the time (loops), a run of GRAM ranges hardly ever. key[i]
 * is a hash of ranges i .. i + GRAM - 1 (fewer at the end).
 */
#define GRAM		8

static unsigned long long *gram_keys(const struct seq *s)
{
	unsigned long long *key = malloc((s->n + 1) * sizeof(*key));
	size_t i, k;

	if (!key)
		die("out of memory", NULL);
	for (i = 0; i < s->n; i++) {
		unsigned long long h = 0xcbf29ce484222325ULL;

		for (k = i; k < i + GRAM && k < s->n; k++)
			h = (h ^ s->r[k].start) * 0x100000001b3ULL ^
			    (s->r[k].end * 0x9e3779b97f4a7c15ULL + (unsigned int)s->r[k].last_sz);
		key[i] = h;
	}
	return key;
}

/*
 * The alignment of both sequences, as patience diff finds it: runs of
 * GRAM ranges that occur exactly once on each side are anchors; the
 * longest chain of anchors in the same order on both sides holds; between
 * anchors the ranges equal at the start and end of the gap count as equal,
 * the rest as only on one side.
 */
struct gram {
	unsigned long long key;
	size_t pos;
	int side;		/* 0 OpenCSD, 1 perf */
};

static int by_key(const void *a, const void *b)
{
	const struct gram *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->side - y->side;
}

struct anchor {
	size_t i, j;
};

static int by_i(const void *a, const void *b)
{
	const struct anchor *x = a, *y = b;

	return x->i < y->i ? -1 : x->i > y->i;
}

/* The anchors, in order on both sides (longest increasing run of j) */
static size_t anchors(const struct seq *o, const struct seq *p, struct anchor **out)
{
	unsigned long long *ko = gram_keys(o), *kp = gram_keys(p);
	size_t n = o->n + p->n, k, m, na = 0, len = 0, *tail, *prev, *best;
	struct gram *g = malloc((n + 1) * sizeof(*g));
	struct anchor *a = malloc((n + 1) * sizeof(*a));

	if (!g || !a)
		die("out of memory", NULL);
	for (k = 0; k < o->n; k++)
		g[k] = (struct gram){ ko[k], k, 0 };
	for (k = 0; k < p->n; k++)
		g[o->n + k] = (struct gram){ kp[k], k, 1 };
	qsort(g, n, sizeof(*g), by_key);
	for (k = 0; k < n; k = m) {
		for (m = k + 1; m < n && g[m].key == g[k].key; m++)
			;
		if (m - k == 2 && g[k].side == 0 && g[k + 1].side == 1 &&
		    same(&o->r[g[k].pos], &p->r[g[k + 1].pos]))
			a[na++] = (struct anchor){ g[k].pos, g[k + 1].pos };
	}
	qsort(a, na, sizeof(*a), by_i);
	/* longest increasing subsequence of j, patience sorting */
	tail = malloc((na + 1) * sizeof(size_t));
	prev = malloc((na + 1) * sizeof(size_t));
	best = malloc((na + 1) * sizeof(size_t));
	if (!tail || !prev || !best)
		die("out of memory", NULL);
	for (k = 0; k < na; k++) {
		size_t lo = 0, hi = len;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (a[tail[mid]].j < a[k].j)
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[k] = lo ? tail[lo - 1] : (size_t)-1;
		tail[lo] = k;
		if (lo == len)
			len++;
	}
	for (k = len, m = len ? tail[len - 1] : 0; k > 0; k--, m = prev[m])
		best[k - 1] = m;
	for (k = 0; k < len; k++)
		a[k] = a[best[k]];
	*out = a;
	free(tail);
	free(prev);
	free(best);
	free(g);
	free(ko);
	free(kp);
	return len;
}

static void compare(int cpu, long *eq, long *only_p, long *only_o)
{
	const struct seq *o = &ocsd[cpu], *p = &perf[cpu];
	struct anchor *a;
	size_t na = anchors(o, p, &a), k, i = 0, j = 0;
	long e = 0, op = 0, oo = 0;
	int shown = 0;

	for (k = 0; k <= na; k++) {
		/* the gap up to the next anchor (or the ends) */
		size_t ei = k < na ? a[k].i : o->n, ej = k < na ? a[k].j : p->n;

		if (ei < i || ej < j)
			continue;	/* inside a run already walked */
		while (i < ei && j < ej && same(&o->r[i], &p->r[j]))
			i++, j++, e++;
		if ((i < ei || j < ej) && !shown++) {
			printf("  cpu %d: first difference after %ld equal ranges\n", cpu, e);
			if (i < o->n)
				print_range("OpenCSD", &o->r[i], i);
			if (j < p->n)
				print_range("perf", &p->r[j], j);
		}
		while (ei > i && ej > j && same(&o->r[ei - 1], &p->r[ej - 1]))
			ei--, ej--, e++;
		oo += ei - i;
		op += ej - j;
		i = k < na ? a[k].i : o->n;
		j = k < na ? a[k].j : p->n;
		/* the anchor and the equal ranges after it */
		while (i < o->n && j < p->n && same(&o->r[i], &p->r[j]))
			i++, j++, e++;
	}
	printf("  cpu %d: OpenCSD %zu ranges, perf %zu: %ld equal, %ld only perf, %ld only OpenCSD\n",
	       cpu, o->n, p->n, e, op, oo);
	*eq += e, *only_p += op, *only_o += oo;
	free(a);
}

int main(int argc, char **argv)
{
	const char *want_pid = NULL;
	long eq = 0, only_p = 0, only_o = 0;
	int i = 1, cpu;

	if (i + 1 < argc && !strcmp(argv[i], "-p")) {
		want_pid = argv[i + 1];
		i += 2;
	}
	if (argc - i < 2 || (argc - i) % 2)
		die("usage: ranges [-p PID/TID] LOG ID=CPU[,ID=CPU...] [LOG MAP ...] < perf-script",
		    NULL);
	for (; i < argc; i += 2)
		read_log(argv[i], argv[i + 1]);
	read_perf(want_pid);
	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (ocsd[cpu].n || perf[cpu].n)
			compare(cpu, &eq, &only_p, &only_o);
	if (want_pid)
		printf("pid/tid: %ld of %ld samples not %s%s%s\n", bad_pid, nr_samples, want_pid,
		       bad_pid ? ", first: " : "", first_bad_pid);
	printf("ranges: %ld equal, %ld only perf, %ld only OpenCSD\n", eq, only_p, only_o);
	return only_p || only_o || bad_pid;
}
