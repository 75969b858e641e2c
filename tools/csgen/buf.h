/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growable byte buffers and perf.data record framing: the primitives every
 * unit of csgen writes with. They depend on nothing else of csgen.
 */
#ifndef CSGEN_BUF_H
#define CSGEN_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "cs-trace-enc.h"	/* u8, u32, u64 */

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* growable byte buffer */
struct buf {
	u8 *p;
	size_t len, cap;
};

void buf_put(struct buf *b, const void *d, size_t n);
void buf_u8(struct buf *b, u8 v);
void buf_u32(struct buf *b, u32 v);
void buf_u64(struct buf *b, u64 v);

/* a perf_event_header record being appended to a buffer */
struct rec {
	struct buf *b;
	size_t start;
};

void rec_begin(struct rec *r, struct buf *b, u32 type, uint16_t misc);
/* sets the header's size to what was appended since rec_begin() */
void rec_end(struct rec *r);

#endif /* CSGEN_BUF_H */
