// SPDX-License-Identifier: GPL-2.0
/*
 * csgen buffers: growable byte buffers, records, and the one way out on
 * error.
 */
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "csgen: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void buf_put(struct buf *b, const void *d, size_t n)
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

void buf_u8(struct buf *b, u8 v) { buf_put(b, &v, 1); }
void buf_u32(struct buf *b, u32 v) { buf_put(b, &v, 4); }
void buf_u64(struct buf *b, u64 v) { buf_put(b, &v, 8); }

void rec_begin(struct rec *r, struct buf *b, u32 type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };

	r->b = b;
	r->start = b->len;
	buf_put(b, &h, sizeof(h));
}

void rec_end(struct rec *r)
{
	struct perf_event_header *h = (void *)(r->b->p + r->start);

	h->size = r->b->len - r->start;
}
