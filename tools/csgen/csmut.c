// SPDX-License-Identifier: GPL-2.0
/*
 * csmut - derive malformed perf.data files from a csgen file, for fuzzing.
 *
 *   csmut IN OUT SEED [N]
 *
 * Walks the records of the data section of IN and applies N (default 4)
 * mutations chosen by SEED: a field of a record (its header size, a word
 * of its body: metadata words, HW_ID values, AUX offsets and sizes, sample
 * IDs) set to a boundary value or a random one, or bytes of the trace that
 * follows an AUXTRACE record changed. The same SEED gives the same file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RECS	65536

struct rec {
	size_t off;	/* file offset of the record */
	size_t size;	/* header.size */
	size_t aux;	/* bytes of trace after it (AUXTRACE) */
};

static uint64_t rng;

static uint64_t next(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static uint64_t pick(uint64_t n)
{
	return n ? next() % n : 0;
}

static const uint64_t boundary[] = {
	0, 1, 2, 7, 8, 0x10, 0x6f, 0x70, 0x7f, 0x80, 0xff, 0x100, 0x1000,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
	0x0100000000000000ULL, 0x1000000000000000ULL, 0x7fffffffffffffffULL,
	~0ULL,
};

static void put(uint8_t *p, int width, uint64_t v)
{
	memcpy(p, &v, width);	/* little-endian host */
}

int main(int argc, char **argv)
{
	static struct rec recs[MAX_RECS];
	uint64_t data_off, data_size, end;
	size_t len, nr = 0, off;
	uint8_t *buf;
	long sz;
	int i, n;
	FILE *f;

	if (argc < 4) {
		fprintf(stderr, "usage: csmut IN OUT SEED [N]\n");
		return 2;
	}
	rng = strtoull(argv[3], NULL, 0) * 0x9e3779b97f4a7c15ULL + 1;
	n = argc > 4 ? atoi(argv[4]) : 4;

	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 104) {
		fprintf(stderr, "csmut: cannot read %s\n", argv[1]);
		return 2;
	}
	rewind(f);
	len = sz;
	buf = malloc(len);
	if (!buf || fread(buf, 1, len, f) != len) {
		fprintf(stderr, "csmut: cannot read %s\n", argv[1]);
		return 2;
	}
	fclose(f);

	memcpy(&data_off, buf + 40, 8);
	memcpy(&data_size, buf + 48, 8);
	end = data_off + data_size;
	if (data_off > len || end > len || end < data_off) {
		fprintf(stderr, "csmut: %s: bad data section\n", argv[1]);
		return 2;
	}

	/* The records of the data section, as csgen wrote them */
	for (off = data_off; off + 8 <= end && nr < MAX_RECS; nr++) {
		uint32_t type;
		uint16_t size;
		uint64_t aux = 0;

		memcpy(&type, buf + off, 4);
		memcpy(&size, buf + off + 6, 2);
		if (size < 8 || off + size > end)
			break;
		if (type == 71 && size >= 16)	/* PERF_RECORD_AUXTRACE */
			memcpy(&aux, buf + off + 8, 8);
		if (aux > end - off - size)
			break;
		recs[nr] = (struct rec){ off, size, aux };
		off += size + aux;
	}
	if (!nr) {
		fprintf(stderr, "csmut: %s: no record\n", argv[1]);
		return 2;
	}

	for (i = 0; i < n; i++) {
		struct rec *r = &recs[pick(nr)];
		int kind = pick(10);
		uint64_t v = pick(2) ? boundary[pick(sizeof(boundary) / sizeof(boundary[0]))]
				     : next();

		if (kind == 0) {
			/* header.size: shrink, grow or arbitrary */
			uint16_t s = pick(3) == 0 ? (uint16_t)v : r->size + (int)pick(33) - 16;

			put(buf + r->off + 6, 2, s);
		} else if (kind <= 5 && r->size > 8) {
			/* an aligned word of the body */
			size_t words = (r->size - 8) / 8;
			size_t at = r->off + 8 + 8 * pick(words);
			int width = (int[]){ 1, 2, 4, 8 }[pick(4)];

			if (words)
				put(buf + at + (pick(2) ? 0 : 8 - width), width, v);
		} else if (kind <= 8 && r->aux) {
			/* trace bytes: a byte, a run of bytes, or a copy */
			size_t start = r->off + r->size;
			size_t at = start + pick(r->aux);
			size_t run = 1 + pick(pick(4) ? 2 : 64);

			if (at + run > start + r->aux)
				run = start + r->aux - at;
			if (pick(3) == 0)
				memset(buf + at, (int)v, run);
			else
				while (run--)
					buf[at++] ^= 1 << pick(8);
		} else {
			/* any byte of the record */
			buf[r->off + pick(r->size)] = (uint8_t)v;
		}
	}

	f = fopen(argv[2], "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "csmut: cannot write %s\n", argv[2]);
		return 2;
	}
	free(buf);
	return 0;
}
