// SPDX-License-Identifier: GPL-2.0
/*
 * csgen snapshot: read trace captured on real hardware from an OpenCSD
 * snapshot directory (-S DIR), as trc_pkt_lister reads it: snapshot.ini
 * lists the device files, trace.ini the buffer and which source traces
 * which core; a core's file names its memory dumps, a source's its ID
 * registers. The captured buffer is cut to a slice (-A, -N) and its frames
 * unpacked into one byte stream per trace ID.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csgen.h"

struct snapshot snap;

/* ---- .ini files: [section] and key=value lines ---- */

#define INI_MAX		64

struct ini {
	char path[4096];
	int n;
	char sec[INI_MAX][64], key[INI_MAX][64], val[INI_MAX][256];
};

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static void ini_read(struct ini *ini, const char *dir, const char *name)
{
	char line[512], sec[64] = "";
	const char *path = ini->path;
	FILE *f;

	snprintf(ini->path, sizeof(ini->path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		die("snapshot: cannot open %s: %s", path, strerror(errno));
	ini->n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *l = trim(line), *eq;

		if (!*l || *l == ';' || *l == '#')
			continue;
		if (*l == '[') {
			char *end = strchr(l, ']');

			if (!end)
				die("snapshot: %s: bad section line '%s'", path, l);
			*end = 0;
			snprintf(sec, sizeof(sec), "%s", l + 1);
			continue;
		}
		eq = strchr(l, '=');
		if (!eq)
			die("snapshot: %s: expected key=value, got '%s'", path, l);
		if (ini->n == INI_MAX)
			die("snapshot: %s: more than %d values", path, INI_MAX);
		*eq = 0;
		snprintf(ini->sec[ini->n], 64, "%s", sec);
		snprintf(ini->key[ini->n], 64, "%s", trim(l));
		snprintf(ini->val[ini->n], 256, "%s", trim(eq + 1));
		ini->n++;
	}
	fclose(f);
}

/* The value of @key in @sec, NULL if there is none */
static const char *ini_get(const struct ini *ini, const char *sec, const char *key)
{
	int i;

	for (i = 0; i < ini->n; i++)
		if (!strcmp(ini->sec[i], sec) && !strcmp(ini->key[i], key))
			return ini->val[i];
	return NULL;
}

static const char *ini_need(const struct ini *ini, const char *sec, const char *key)
{
	const char *v = ini_get(ini, sec, key);

	if (!v)
		die("snapshot: %s: no %s in [%s]", ini->path, key, sec);
	return v;
}

static u64 number(const struct ini *ini, const char *what, const char *s)
{
	char *end;
	u64 v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *trim(end))
		die("snapshot: %s: %s '%s' is not a number", ini->path, what, s);
	return v;
}

/* A register of [regs]: "NAME(0xOFFSET)=VALUE" */
static int ini_reg(const struct ini *ini, const char *name, u64 *v)
{
	size_t n = strlen(name);
	int i;

	for (i = 0; i < ini->n; i++)
		if (!strcmp(ini->sec[i], "regs") && !strncmp(ini->key[i], name, n) &&
		    ini->key[i][n] == '(') {
			*v = number(ini, name, ini->val[i]);
			return 1;
		}
	return 0;
}

/* ---- devices: cores and trace sources ---- */

/* The metadata registers of each protocol, in the order perf stores them */
struct reg {
	const char *name;
	int offset;		/* in words, as the .ini files name them */
};

static const struct reg etmv3_regs[] = {
	{ "ETMCR", 0x000 }, { "ETMTRACEIDR", 0x080 }, { "ETMCCER", 0x07a }, { "ETMIDR", 0x079 },
};

static const struct reg etmv4_regs[] = {
	{ "TRCCONFIGR", 0x004 }, { "TRCTRACEIDR", 0x010 }, { "TRCIDR0", 0x078 },
	{ "TRCIDR1", 0x079 }, { "TRCIDR2", 0x07a }, { "TRCIDR8", 0x060 },
	{ "TRCAUTHSTATUS", 0x3ee },
};

static void read_source(struct snap_cpu *sc, const struct ini *ini)
{
	const char *type = ini_need(ini, "device", "type");
	const struct reg *regs;
	int i, n;

	snprintf(sc->source_type, sizeof(sc->source_type), "%s", type);
	if (!strncmp(type, "ETM3", 4) || !strncmp(type, "PTM", 3)) {
		sc->proto = SNAP_ETMV3;
		regs = etmv3_regs;
		n = 4;
	} else if (!strcmp(type, "ETM4")) {
		sc->proto = SNAP_ETMV4;
		regs = etmv4_regs;
		n = 7;
	} else {
		die("snapshot: %s: trace source type %s is not ETM3.x, PTM1.x or ETM4",
		    ini->path, type);
	}
	for (i = 0; i < n; i++)
		if (!ini_reg(ini, regs[i].name, &sc->regs[i]))
			die("snapshot: %s: no register %s in [regs]", ini->path, regs[i].name);
	sc->nr_regs = n;
	/* ETMTRACEIDR and TRCTRACEIDR: the 7-bit ID the source writes */
	sc->id = sc->regs[1] & 0x7f;
	if (sc->id < TRACE_ID_MIN || sc->id > TRACE_ID_MAX)
		die("snapshot: %s: trace ID %#x is reserved", ini->path, sc->id);
}

/* The dumps of a core: sections [dump] and [dump<NAME>] */
static void read_dumps(const struct ini *ini, const char *dir)
{
	int i;

	for (i = 0; i < ini->n; i++) {
		const char *sec = ini->sec[i], *file, *len;
		struct snap_dump *d;
		FILE *f;

		if (strncmp(sec, "dump", 4) || strcmp(ini->key[i], "file"))
			continue;
		if (snap.nr_dumps == SNAP_MAX_DUMPS)
			die("snapshot: %s: more than %d memory dumps", ini->path, SNAP_MAX_DUMPS);
		d = &snap.dump[snap.nr_dumps++];
		file = ini->val[i];
		/* [dump.text] holds .text; a plain [dump] is the kernel's .text */
		snprintf(d->name, sizeof(d->name), "%s", sec[4] ? sec + 4 : ".text");
		snprintf(d->path, sizeof(d->path), "%s/%s", dir, file);
		d->addr = number(ini, "address", ini_need(ini, sec, "address"));
		f = fopen(d->path, "rb");
		if (!f || fseek(f, 0, SEEK_END))
			die("snapshot: cannot read memory dump %s", d->path);
		d->len = ftell(f);
		fclose(f);
		len = ini_get(ini, sec, "length");
		if (len && number(ini, "length", len) > d->len)
			die("snapshot: %s: [%s] length %s is beyond the end of %s (%llu bytes)",
			    ini->path, sec, len, d->path, (unsigned long long)d->len);
		if (len)
			d->len = number(ini, "length", len);
	}
}

/* The name of the source that traces core @core (trace.ini) */
static const char *core_source(const struct ini *trace, const char *core)
{
	return ini_get(trace, "core_trace_sources", core);
}

static void read_buffer(const struct ini *trace, const char *dir)
{
	const char *list = ini_need(trace, "trace_buffers", "buffers");
	const char *file, *format;
	char path[4096];
	FILE *f;
	long len;

	if (strchr(list, ','))
		die("snapshot: %s: more than one trace buffer (%s): one sink only",
		    trace->path, list);
	file = ini_need(trace, list, "file");
	format = ini_need(trace, list, "format");
	if (strcmp(format, "coresight"))
		die("snapshot: %s: buffer format %s: only formatted (coresight) trace",
		    trace->path, format);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0)
		die("snapshot: cannot read %s", path);
	if (len % CS_FRAME_SIZE)
		die("snapshot: %s: %ld bytes, not whole 16-byte frames", path, len);
	rewind(f);
	snap.capture.p = malloc(len ? len : 1);
	if (!snap.capture.p || fread(snap.capture.p, 1, len, f) != (size_t)len)
		die("snapshot: cannot read %s", path);
	snap.capture.len = snap.capture.cap = len;
	fclose(f);
}

/* Dumps of every core must be the same: they become one ELF */
static void check_dumps(int first)
{
	int i;

	if (first == 0)
		return;
	for (i = 0; i < snap.nr_dumps - first; i++)
		if (i >= first || snap.dump[i].addr != snap.dump[first + i].addr ||
		    snap.dump[i].len != snap.dump[first + i].len ||
		    strcmp(snap.dump[i].path, snap.dump[first + i].path))
			die("snapshot: the cores have different memory dumps: one ELF serves them all");
	snap.nr_dumps = first;
}

void snap_read(const char *path)
{
	struct ini top, trace, dev;
	const char *meta;
	char *dir = realpath(path, NULL);
	int i;

	/* absolute: the snapshot directories written link to its dumps */
	if (!dir)
		die("snapshot: %s: %s", path, strerror(errno));

	ini_read(&top, dir, "snapshot.ini");
	meta = ini_need(&top, "trace", "metadata");
	ini_read(&trace, dir, meta);
	for (i = 0; i < top.n; i++) {
		const char *name, *class, *src;
		int cpu, j, before = snap.nr_dumps;
		struct snap_cpu *sc;

		if (strcmp(top.sec[i], "device_list"))
			continue;
		ini_read(&dev, dir, top.val[i]);
		name = ini_need(&dev, "device", "name");
		class = ini_need(&dev, "device", "class");
		if (strcmp(class, "core"))
			continue;
		if (sscanf(name, "cpu_%d", &cpu) != 1 || cpu < 0 || cpu >= SNAP_MAX_CPUS)
			die("snapshot: %s: core %s is not named cpu_N, N < %d", dev.path, name,
			    SNAP_MAX_CPUS);
		sc = &snap.cpu[cpu];
		if (sc->present)
			die("snapshot: %s: core %s listed twice", dev.path, name);
		sc->present = 1;
		snprintf(sc->core_type, sizeof(sc->core_type), "%s",
			 ini_need(&dev, "device", "type"));
		if (cpu >= snap.nr_cpus)
			snap.nr_cpus = cpu + 1;
		read_dumps(&dev, dir);
		check_dumps(before);
		src = core_source(&trace, name);
		if (!src)
			die("snapshot: %s: no trace source for core %s", trace.path, name);
		/* the source's device file: the one whose name is @src */
		for (j = 0; j < top.n; j++) {
			struct ini s;

			if (strcmp(top.sec[j], "device_list"))
				continue;
			ini_read(&s, dir, top.val[j]);
			if (!strcmp(ini_need(&s, "device", "name"), src)) {
				read_source(sc, &s);
				break;
			}
		}
		if (!sc->nr_regs)
			die("snapshot: %s: source %s of core %s is not in the device list",
			    trace.path, src, name);
	}
	for (i = 0; i < snap.nr_cpus; i++)
		if (!snap.cpu[i].present)
			die("snapshot: %s: no core cpu_%d: cores must be numbered from 0 on",
			    dir, i);
	if (!snap.nr_cpus)
		die("snapshot: %s: no core", dir);
	if (!snap.nr_dumps)
		die("snapshot: %s: no memory dump", dir);
	for (i = 1; i < snap.nr_cpus; i++) {
		int j;

		if (snap.cpu[i].proto != snap.cpu[0].proto)
			die("snapshot: %s: cores traced by ETMv3/PTM and ETMv4 at once", dir);
		for (j = 0; j < i; j++)
			if (snap.cpu[j].id == snap.cpu[i].id)
				die("snapshot: %s: cpu_%d and cpu_%d both have trace ID %#x",
				    dir, j, i, snap.cpu[i].id);
	}
	read_buffer(&trace, dir);
	free(dir);
}

/* ---- the captured buffer: slice and per-ID streams ---- */

/* Where stream byte @i of ID @id came from: its frame's offset */
static void stream_put(int id, u8 v, size_t frame)
{
	struct snap_stream *s = &snap.stream[id];

	if (s->data.len == s->cap_frames) {
		s->cap_frames = s->cap_frames * 2 + 4096;
		s->frame = realloc(s->frame, s->cap_frames * sizeof(*s->frame));
		if (!s->frame)
			die("out of memory");
	}
	s->frame[s->data.len] = frame;
	buf_u8(&s->data, v);
}

/*
 * Unpack formatted frames as OpenCSD's deformatter does (memory aligned,
 * reset on a barrier of four FSYNCs): an even byte with bit 0 set changes
 * the ID (its aux bit: 0 from the next byte on, 1 after it), otherwise it
 * is data whose bit 0 is its aux bit; odd bytes are data. Data before the
 * first ID, of the null ID 0 and of reserved IDs reaches no decoder.
 */
static void deformat(const u8 *p, size_t len)
{
	u8 barrier[CS_FRAME_SIZE];
	int cur = -1;
	size_t off;

	cs_fmt_barrier(barrier);
	for (off = 0; off + CS_FRAME_SIZE <= len; off += CS_FRAME_SIZE) {
		const u8 *f = p + off;
		u8 aux = f[CS_FRAME_DATA];
		int i;

		if (!memcmp(f, barrier, CS_FRAME_SIZE)) {
			cur = -1;
			continue;
		}
		for (i = 0; i < CS_FRAME_DATA; i += 2) {
			int next = cur;

			if (f[i] & 1) {
				next = f[i] >> 1;
				/* aux 1: the next byte is still the old ID's */
				if (!((aux >> (i / 2)) & 1) || i == CS_FRAME_DATA - 1)
					cur = next;
			} else if (cur >= TRACE_ID_MIN && cur <= TRACE_ID_MAX) {
				stream_put(cur, f[i] | ((aux >> (i / 2)) & 1), off);
			}
			if (i + 1 < CS_FRAME_DATA && cur >= TRACE_ID_MIN && cur <= TRACE_ID_MAX)
				stream_put(cur, f[i + 1], off);
			cur = next;
		}
	}
}

/* Whether @s holds an A-sync at @i: ETMv4 eleven 0x00 then 0x80, ETMv3/PTM five */
static int async_at(const struct buf *s, size_t i)
{
	size_t zeros = snap.cpu[0].proto == SNAP_ETMV4 ? 11 : 5, k;

	if (i + zeros >= s->len || s->p[i + zeros] != 0x80)
		return 0;
	for (k = 0; k < zeros; k++)
		if (s->p[i + k])
			return 0;
	return 1;
}

/*
 * The offset of the frame that holds the first A-sync at or after frame
 * offset @from in the stream of any traced source: a slice that starts
 * there decodes from its first frame on.
 */
size_t snap_sync_frame(size_t from)
{
	size_t best = snap.capture.len;
	int c;

	for (c = 0; c < snap.nr_cpus; c++) {
		struct snap_stream *s = &snap.stream[snap.cpu[c].id];
		size_t i;

		for (i = 0; i < s->data.len; i++)
			if (s->frame[i] >= from && s->frame[i] < best && async_at(&s->data, i)) {
				best = s->frame[i];
				break;
			}
	}
	return best;
}

static int by_offset(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* -L: "sync OFFSET" (decimal) for each frame where an A-sync of a source starts */
void snap_list_syncs(void)
{
	size_t *off = NULL, n = 0, cap = 0, i;
	int c;

	for (c = 0; c < snap.nr_cpus; c++) {
		struct snap_stream *s = &snap.stream[snap.cpu[c].id];

		for (i = 0; i < s->data.len; i++) {
			if (!async_at(&s->data, i))
				continue;
			if (n == cap) {
				cap = cap * 2 + 256;
				off = realloc(off, cap * sizeof(*off));
				if (!off)
					die("out of memory");
			}
			off[n++] = s->frame[i];
		}
	}
	qsort(off, n, sizeof(*off), by_offset);
	for (i = 0; i < n; i++)
		if (!i || off[i] != off[i - 1])
			printf("sync %zu\n", off[i]);
	free(off);
}

static void free_streams(void)
{
	int id;

	for (id = 0; id < 128; id++) {
		free(snap.stream[id].data.p);
		free(snap.stream[id].frame);
		memset(&snap.stream[id], 0, sizeof(snap.stream[id]));
	}
}

/*
 * -A FROM -N BYTES: the slice of the capture that starts at the first
 * frame with an A-sync from byte FROM on and holds BYTES (whole frames, as
 * many as there are). Then the streams of the slice.
 */
void snap_slice(u64 from, u64 bytes)
{
	size_t start, end;

	deformat(snap.capture.p, snap.capture.len);
	start = from ? snap_sync_frame(from / CS_FRAME_SIZE * CS_FRAME_SIZE) : 0;
	if (start >= snap.capture.len)
		die("snapshot: no A-sync in the capture from byte %llu on",
		    (unsigned long long)from);
	end = bytes ? start + bytes / CS_FRAME_SIZE * CS_FRAME_SIZE : snap.capture.len;
	if (end > snap.capture.len)
		end = snap.capture.len;
	snap.slice_start = start;
	memmove(snap.capture.p, snap.capture.p + start, end - start);
	snap.capture.len = end - start;
	free_streams();
	deformat(snap.capture.p, snap.capture.len);
}

/* ---- snapshot directories of the buffers written, for trc_pkt_lister ---- */

static FILE *create(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		die("cannot write %s: %s", path, strerror(errno));
	return f;
}

static void write_core(const char *dir, int c)
{
	FILE *f;
	char name[32];
	int i;

	snprintf(name, sizeof(name), "cpu_%d.ini", c);
	f = create(dir, name);
	fprintf(f, "[device]\nname=cpu_%d\nclass=core\ntype=%s\n", c, snap.cpu[c].core_type);
	for (i = 0; i < snap.nr_dumps; i++) {
		const struct snap_dump *d = &snap.dump[i];
		const char *base = strrchr(d->path, '/') + 1;
		char link[4096];

		/* the dumps, by their own names beside the trace */
		snprintf(link, sizeof(link), "%s/%s", dir, base);
		if (access(link, F_OK) && symlink(d->path, link))
			die("cannot link %s: %s", link, strerror(errno));
		fprintf(f, "\n[dump%d]\nfile=%s\naddress=%#llx\nlength=%#llx\n", i, base,
			(unsigned long long)d->addr, (unsigned long long)d->len);
	}
	fclose(f);
}

static void write_source(const char *dir, int c, int id)
{
	const struct snap_cpu *sc = &snap.cpu[c];
	const struct reg *regs = sc->proto == SNAP_ETMV3 ? etmv3_regs : etmv4_regs;
	char name[32];
	FILE *f;
	int i;

	snprintf(name, sizeof(name), "etm_%d.ini", c);
	f = create(dir, name);
	fprintf(f, "[device]\nname=etm_%d\nclass=trace_source\ntype=%s\n\n[regs]\n", c,
		sc->source_type);
	for (i = 0; i < sc->nr_regs; i++)
		fprintf(f, "%s(%#05x)=%#010llx\n", regs[i].name, regs[i].offset,
			(unsigned long long)(i == 1 ? (u64)id : sc->regs[i]));
	fclose(f);
}

/*
 * A snapshot directory @dir that holds @trace as its one buffer: formatted,
 * with the sources of CPUs @cpus[] under IDs @ids[], or (@raw) the
 * unformatted trace of the one CPU @cpus[0].
 */
void snap_write_dir(const char *dir, const struct buf *trace, const int *cpus,
		    const int *ids, int n, int raw)
{
	FILE *f;
	int i;

	if (mkdir(dir, 0755) && errno != EEXIST)
		die("cannot create %s: %s", dir, strerror(errno));
	f = create(dir, "cstrace.bin");
	if (fwrite(trace->p, 1, trace->len, f) != trace->len || fclose(f))
		die("cannot write %s/cstrace.bin", dir);
	f = create(dir, "snapshot.ini");
	fprintf(f, "[snapshot]\nversion=1.0\n\n[device_list]\n");
	for (i = 0; i < n; i++)
		fprintf(f, "device%d=cpu_%d.ini\ndevice%d=etm_%d.ini\n", 2 * i, cpus[i],
			2 * i + 1, cpus[i]);
	fprintf(f, "\n[trace]\nmetadata=trace.ini\n");
	fclose(f);
	f = create(dir, "trace.ini");
	fprintf(f, "[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=sink\nfile=cstrace.bin\n"
		"format=%s\n\n[source_buffers]\n", raw ? "source_data" : "coresight");
	for (i = 0; i < n; i++)
		fprintf(f, "etm_%d=sink\n", cpus[i]);
	fprintf(f, "\n[core_trace_sources]\n");
	for (i = 0; i < n; i++)
		fprintf(f, "cpu_%d=etm_%d\n", cpus[i], cpus[i]);
	fclose(f);
	for (i = 0; i < n; i++) {
		write_core(dir, cpus[i]);
		write_source(dir, cpus[i], ids[i]);
	}
}
