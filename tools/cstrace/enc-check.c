// SPDX-License-Identifier: GPL-2.0
/*
 * enc-check DIR: encode a fixed sequence of ETMv4 packets of several
 * sources with cs-trace-enc.h, interleave them through its frame formatter
 * into DIR/trace.bin, and print the packets, as they were asked of the
 * encoder, one a line:
 *
 *   ID 0x10 ASYNC | TRACE_INFO | TIMESTAMP 0x... | ATOM E | ATOM N
 *   ID 0x10 ADDR_CTXT 0x... AArch64 EL1 NS CID 0x... | ADDR_LONG 0x...
 *
 * check-opencsd.sh decodes DIR with OpenCSD and compares. The list comes
 * from the table below, not from the bytes written.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cs-trace-enc.h"

/* END: the end of a source's list */
enum kind { END, ASYNC, TRACE_INFO, TIMESTAMP, ADDR_CTXT, ADDR_LONG, ATOM_E, ATOM_N };

struct pkt {
	enum kind kind;
	u64 val;	/* timestamp or address */
	int el;
	u32 cid;
};

#define NR_SRC 4
#define SRC_MAX 32

/* Trace IDs: the lowest, a legacy one, an odd one, the highest */
static const int src_id[NR_SRC] = { 0x01, 0x10, 0x2b, 0x6f };

static const struct pkt src_pkts[NR_SRC][SRC_MAX] = {
	{
		{ ASYNC }, { TRACE_INFO }, { TIMESTAMP, 0x1234500001000ULL },
		{ ADDR_CTXT, 0x400000ULL, 0, 1000 },
		{ ATOM_E }, { ATOM_E }, { ATOM_N },
		{ TIMESTAMP, 0x1234500001100ULL },
		{ ATOM_E }, { ADDR_LONG, 0x400abcULL }, { ATOM_E },
		{ ASYNC }, { TRACE_INFO },
		{ ADDR_CTXT, 0x400100ULL, 0, 1000 }, { ATOM_E }, { END },
	}, {
		{ ASYNC }, { TRACE_INFO }, { TIMESTAMP, 0xfedcba9876543210ULL },
		{ ADDR_CTXT, 0xffff800008123450ULL, 1, 0x7fffffff },
		{ ATOM_E }, { ADDR_LONG, 0xffff800008123450ULL }, { ATOM_E },
		{ ADDR_LONG, 0xffff80000812345cULL }, { ATOM_N }, { END },
	}, {
		{ ASYNC }, { TRACE_INFO }, { TIMESTAMP, 0x5 },
		{ ADDR_CTXT, 0x0000aaaad0c0fff8ULL, 0, 0x80000001 },
		{ ATOM_N }, { ATOM_E }, { TIMESTAMP, 0x7f }, { ATOM_E },
		{ TIMESTAMP, 0x80 }, { ATOM_E }, { END },
	}, {
		{ ASYNC }, { TRACE_INFO }, { TIMESTAMP, 0x100000000000000ULL },
		{ ADDR_CTXT, 0xffffffffffff0000ULL, 1, 0 },
		{ ATOM_E }, { ATOM_E }, { ATOM_E }, { ATOM_E }, { END },
	},
};

static u8 *encode(u8 *p, const struct pkt *k)
{
	switch (k->kind) {
	case END:
		break;
	case ASYNC:
		return cs_etm4_async(p);
	case TRACE_INFO:
		return cs_etm4_trace_info(p);
	case TIMESTAMP:
		return cs_etm4_timestamp(p, k->val);
	case ADDR_CTXT:
		return cs_etm4_addr_ctxt(p, k->val, k->el, k->cid);
	case ADDR_LONG:
		return cs_etm4_addr_long(p, k->val);
	case ATOM_E:
		return cs_etm4_atom(p, 1);
	case ATOM_N:
		return cs_etm4_atom(p, 0);
	}
	return p;
}

static void expect(int id, const struct pkt *k)
{
	printf("ID 0x%x ", id);
	switch (k->kind) {
	case END:
		break;
	case ASYNC:
		printf("ASYNC\n");
		break;
	case TRACE_INFO:
		printf("TRACE_INFO\n");
		break;
	case TIMESTAMP:
		printf("TIMESTAMP 0x%llx\n", (unsigned long long)k->val);
		break;
	case ADDR_CTXT:
		/* the encoder always writes AArch64, non-secure */
		printf("ADDR_CTXT 0x%llx AArch64 EL%d NS CID 0x%x\n",
		       (unsigned long long)k->val, k->el, k->cid);
		break;
	case ADDR_LONG:
		printf("ADDR_LONG 0x%llx\n", (unsigned long long)k->val);
		break;
	case ATOM_E:
		printf("ATOM E\n");
		break;
	case ATOM_N:
		printf("ATOM N\n");
		break;
	}
}

static FILE *out;

static void emit(struct cs_fmt *f)
{
	if (fwrite(f->frame, 1, CS_FRAME_SIZE, out) != CS_FRAME_SIZE) {
		perror("enc-check: write");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static u8 bytes[NR_SRC][SRC_MAX * CS_ETM4_PKT_MAX];
	size_t len[NR_SRC] = { 0 }, used[NR_SRC] = { 0 };
	struct cs_fmt f;
	char path[4096];
	int s, i, left, round = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: enc-check DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/trace.bin", argv[1]);
	out = fopen(path, "wb");
	if (!out) {
		perror(path);
		return 1;
	}

	/* the packets of each source, and the list expected of a decoder */
	for (s = 0; s < NR_SRC; s++) {
		for (i = 0; src_pkts[s][i].kind != END; i++) {
			len[s] = encode(bytes[s] + len[s], &src_pkts[s][i]) - bytes[s];
			expect(src_id[s], &src_pkts[s][i]);
		}
	}

	/*
	 * Interleaved in chunks of 1 to 13 bytes, so that ID changes fall on
	 * even and odd bytes of the frames and on frame boundaries.
	 */
	cs_fmt_init(&f, emit);
	do {
		left = 0;
		for (s = 0; s < NR_SRC; s++) {
			size_t n = 1 + (round * 5 + s * 3) % 13;

			if (used[s] >= len[s])
				continue;
			if (n > len[s] - used[s])
				n = len[s] - used[s];
			cs_fmt_write(&f, src_id[s], bytes[s] + used[s], n);
			used[s] += n;
			left |= used[s] < len[s];
		}
		round++;
	} while (left);
	cs_fmt_flush(&f);
	if (fclose(out)) {
		perror(path);
		return 1;
	}
	return 0;
}
