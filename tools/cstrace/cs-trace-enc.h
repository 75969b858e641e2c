/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cs-trace-enc.h - ETMv4 instruction trace packets and the CoreSight frame
 * formatter, for the test tools: the generator tools/csgen (user space)
 * and the simulated board module tools/csboard (kernel). Test code of this
 * repository, not part of the series.
 *
 * Static inline only, no library or kernel calls, so that both build it.
 * Formats: design.md section 4. tools/cstrace/check-opencsd.sh checks the
 * encodings against OpenCSD.
 */
#ifndef CS_TRACE_ENC_H
#define CS_TRACE_ENC_H

#include <linux/types.h>	/* kernel: u8 ...; user space: __u8 ... */
#ifndef __KERNEL__
#include <stddef.h>
typedef __u8 u8;
typedef __u32 u32;
typedef __u64 u64;
#endif

/* ---- ETMv4 instruction trace packets ---- */

#define CS_ETM4_ASYNC_LEN		12
#define CS_ETM4_HDR_TRACE_INFO		0x01
#define CS_ETM4_HDR_TIMESTAMP		0x02
#define CS_ETM4_HDR_ADDR_CTXT_64	0x85
#define CS_ETM4_HDR_ADDR_L_64		0x9d
#define CS_ETM4_HDR_ATOM_N		0xf6
#define CS_ETM4_HDR_ATOM_E		0xf7

/* Context info byte: EL in bits 1:0, AArch64, non-secure, CONTEXTID */
#define CS_ETM4_CTXT_SF			0x10
#define CS_ETM4_CTXT_NS			0x20
#define CS_ETM4_CTXT_CID		0x80

/* Longest packet the encoder writes (a timestamp: header and 9 bytes) */
#define CS_ETM4_PKT_MAX			16

/* Each encoder writes one packet at @p and returns the end of it */

/* A-sync: eleven 0x00 then 0x80 */
static inline u8 *cs_etm4_async(u8 *p)
{
	int i;

	for (i = 0; i < CS_ETM4_ASYNC_LEN - 1; i++)
		*p++ = 0;
	*p++ = 0x80;
	return p;
}

/* Trace info with PLCTL 0: no info sections */
static inline u8 *cs_etm4_trace_info(u8 *p)
{
	*p++ = CS_ETM4_HDR_TRACE_INFO;
	*p++ = 0;
	return p;
}

/*
 * Timestamp: 7 bits a byte, bit 7 set while more follow; a 9th byte has 8.
 * Only the significant bytes are written, and a decoder replaces that many
 * low bits of the last timestamp: give timestamps that do not shrink.
 */
static inline u8 *cs_etm4_timestamp(u8 *p, u64 ts)
{
	int i;

	*p++ = CS_ETM4_HDR_TIMESTAMP;
	for (i = 0; i < 8; i++) {
		*p = ts & 0x7f;
		ts >>= 7;
		if (!ts)
			return p + 1;
		*p++ |= 0x80;
	}
	*p++ = ts & 0xff;
	return p;
}

/* 64-bit IS0 address: A[8:2], A[15:9], then A[23:16] ... A[63:56] */
static inline u8 *cs_etm4_addr64(u8 *p, u64 addr)
{
	int i;

	*p++ = (addr >> 2) & 0x7f;
	*p++ = (addr >> 9) & 0x7f;
	for (i = 2; i < 8; i++)
		*p++ = (addr >> (8 * i)) & 0xff;
	return p;
}

/*
 * Address with context, 64-bit IS0: exception level @el, AArch64,
 * non-secure, the 4-byte CONTEXTID @contextid (little-endian)
 */
static inline u8 *cs_etm4_addr_ctxt(u8 *p, u64 addr, int el, u32 contextid)
{
	int i;

	*p++ = CS_ETM4_HDR_ADDR_CTXT_64;
	p = cs_etm4_addr64(p, addr);
	*p++ = CS_ETM4_CTXT_CID | CS_ETM4_CTXT_NS | CS_ETM4_CTXT_SF | (el & 3);
	for (i = 0; i < 4; i++)
		*p++ = (contextid >> (8 * i)) & 0xff;
	return p;
}

/* Long address, 64-bit IS0 */
static inline u8 *cs_etm4_addr_long(u8 *p, u64 addr)
{
	*p++ = CS_ETM4_HDR_ADDR_L_64;
	return cs_etm4_addr64(p, addr);
}

/* Atom format 1: E (branch taken) or N */
static inline u8 *cs_etm4_atom(u8 *p, int taken)
{
	*p++ = taken ? CS_ETM4_HDR_ATOM_E : CS_ETM4_HDR_ATOM_N;
	return p;
}

/* ---- CoreSight frame formatter ---- */

#define CS_FRAME_SIZE	16
#define CS_FRAME_DATA	15	/* bytes 0-14; byte 15 holds the aux bits */

/**
 * struct cs_fmt - a frame formatter
 * @frame:	frame being formatted.
 * @pos:	next byte of @frame.
 * @cur_id:	trace ID of the data going into @frame, -1 for none yet.
 * @emit:	called with each complete frame in @frame; @frame is cleared
 *		after it returns.
 */
struct cs_fmt {
	u8 frame[CS_FRAME_SIZE];
	int pos;
	int cur_id;
	void (*emit)(struct cs_fmt *f);
};

static inline void cs_fmt_clear(struct cs_fmt *f)
{
	int i;

	for (i = 0; i < CS_FRAME_SIZE; i++)
		f->frame[i] = 0;
	f->pos = 0;
}

static inline void cs_fmt_init(struct cs_fmt *f, void (*emit)(struct cs_fmt *f))
{
	cs_fmt_clear(f);
	f->cur_id = -1;
	f->emit = emit;
}

/* Forget the current ID: the next data names its ID again */
static inline void cs_fmt_forget_id(struct cs_fmt *f)
{
	f->cur_id = -1;
}

static inline void cs_fmt_next(struct cs_fmt *f)
{
	if (++f->pos < CS_FRAME_DATA)
		return;
	f->emit(f);
	cs_fmt_clear(f);
}

/* A data byte: even bytes carry their bit 0 in the aux byte */
static inline void cs_fmt_byte(struct cs_fmt *f, u8 v)
{
	int pos = f->pos;

	if (pos & 1) {
		f->frame[pos] = v;
	} else {
		f->frame[pos] = v & 0xfe;
		f->frame[CS_FRAME_DATA] |= (v & 1) << (pos / 2);
	}
	cs_fmt_next(f);
}

/* Switch to trace ID @id before the next data byte */
static inline void cs_fmt_set_id(struct cs_fmt *f, int id)
{
	int prev;
	u8 data;

	if (f->cur_id == id)
		return;
	f->cur_id = id;

	if (!(f->pos & 1)) {
		/* aux bit 0: the new ID applies from the next byte on */
		f->frame[f->pos] = (u8)(id << 1) | 1;
		cs_fmt_next(f);
		return;
	}

	/*
	 * IDs only go in even bytes: move the last data byte to this odd
	 * byte, and put the ID in its place with aux bit 1, "applies after
	 * the next byte".
	 */
	prev = f->pos - 1;
	data = f->frame[prev] | ((f->frame[CS_FRAME_DATA] >> (prev / 2)) & 1);
	f->frame[prev] = (u8)(id << 1) | 1;
	f->frame[CS_FRAME_DATA] |= 1 << (prev / 2);
	f->frame[f->pos] = data;
	cs_fmt_next(f);
}

/* @len bytes of @data of the source with trace ID @id */
static inline void cs_fmt_write(struct cs_fmt *f, int id, const u8 *data,
				size_t len)
{
	size_t i;

	cs_fmt_set_id(f, id);
	for (i = 0; i < len; i++)
		cs_fmt_byte(f, data[i]);
}

/* Complete the last frame with the null ID, as a formatter flush does */
static inline void cs_fmt_flush(struct cs_fmt *f)
{
	if (!f->pos)
		return;
	cs_fmt_set_id(f, 0);
	while (f->pos)
		cs_fmt_byte(f, 0);
}

/* A barrier: four frame synchronisation words (FSYNC, 0x7fffffff) */
static inline u8 *cs_fmt_barrier(u8 *p)
{
	int i;

	for (i = 0; i < CS_FRAME_SIZE; i++)
		*p++ = (i % 4 == 3) ? 0x7f : 0xff;
	return p;
}

#endif /* CS_TRACE_ENC_H */
