// SPDX-License-Identifier: GPL-2.0
/*
 * csboard: a simulated multi-sink CoreSight board, for end-to-end tests of
 * per-sink trace IDs on machines without CoreSight hardware.
 *
 * Test code of this repository, not part of the series. The devices are
 * described in the device tree like real ones and driven by the real
 * CoreSight framework: perf's cs_etm PMU builds their paths, picks their
 * sinks, allocates the trace IDs and emits the HW_ID records.
 *
 * - "csboard,sim-etm": a per-CPU trace source. While a perf event runs on
 *   its CPU it writes well-formed ETMv4 instruction trace with the trace ID
 *   that perf gave the CPU: at start, every @period_us, and at stop. The
 *   trace says that the CPU runs the kernel's schedule() in the context of
 *   the marker thread "csboard/<cpu>" bound to that CPU, so a decoder that
 *   gets the CPU right shows csboard/<cpu> on CPU <cpu>.
 * - "csboard,sim-sink": a sink like an ETF. Its sources' trace goes through
 *   a frame formatter into a ring of trace RAM; when the last CPU of a perf
 *   session stops, the sink copies the RAM into that CPU's AUX buffer, with
 *   a barrier packet at the start where the ring wrapped.
 *
 * Each device has a "sim" sysfs group with what it produced, for the test
 * to compare with what perf decodes.
 */

#include <linux/bitops.h>
#include <linux/coresight.h>
#include <linux/coresight-pmu.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/timex.h>
#include <linux/vmalloc.h>

#include <asm/unaligned.h>

#include "coresight-etm-perf.h"
#include "coresight-priv.h"
#include "coresight-trace-id.h"

static unsigned int period_us = 2000;
module_param(period_us, uint, 0644);
MODULE_PARM_DESC(period_us, "interval between two pieces of trace of a source");

static unsigned int atoms = 8;
module_param(atoms, uint, 0644);
MODULE_PARM_DESC(atoms, "taken branches in one piece of trace");

static unsigned int ram_kb = 1024;
module_param(ram_kb, uint, 0444);
MODULE_PARM_DESC(ram_kb, "trace RAM of a sink, in KiB");

static unsigned int ram_use_kb;
module_param(ram_use_kb, uint, 0644);
MODULE_PARM_DESC(ram_use_kb, "trace RAM a sink uses from the next session on, 0 for all");

/* ---- ETMv4 instruction trace packets ---- */

#define ETM4_ASYNC_LEN		12
#define ETM4_HDR_TRACE_INFO	0x01
#define ETM4_HDR_TIMESTAMP	0x02
#define ETM4_HDR_ADDR_CTXT_64	0x85
#define ETM4_HDR_ADDR_L_64	0x9d
#define ETM4_HDR_ATOM_E		0xf7

/* Context info byte: EL1, AArch64 (SF), non-secure, CONTEXTID follows */
#define ETM4_CTXT_INFO_EL1	(BIT(7) | BIT(5) | BIT(4) | 0x1)

/* ID registers read by perf record, as an ETMv4.0 with 64-bit timestamps */
#define SIM_TRCIDR0	0x28000ea1
#define SIM_TRCIDR1	0x4100f403
#define SIM_TRCIDR2	0x00000488	/* 64-bit addresses, 32-bit CONTEXTID */
#define SIM_TRCIDR8	0x0
#define SIM_TRCAUTHSTATUS 0xcc
#define SIM_TRCDEVARCH	0x47724a13	/* ETMv4, not ETE */

/* Longest piece of trace: headers, then an address and an atom a branch */
#define SIM_PIECE_MAX(n)	(64 + (n) * 10)

static u8 *etm4_async(u8 *p)
{
	memset(p, 0, ETM4_ASYNC_LEN - 1);
	p[ETM4_ASYNC_LEN - 1] = 0x80;
	return p + ETM4_ASYNC_LEN;
}

static u8 *etm4_trace_info(u8 *p)
{
	*p++ = ETM4_HDR_TRACE_INFO;
	*p++ = 0;	/* PLCTL: no info sections */
	return p;
}

/* 7 bits a byte, bit 7 set while more follow; a 9th byte carries 8 */
static u8 *etm4_timestamp(u8 *p, u64 ts)
{
	int i;

	*p++ = ETM4_HDR_TIMESTAMP;
	for (i = 0; i < 8; i++) {
		*p = ts & 0x7f;
		ts >>= 7;
		if (!ts)
			return p + 1;
		*p++ |= 0x80;
	}
	*p++ = ts;
	return p;
}

/* 64-bit IS0 address: A[8:2], A[15:9], then A[23:16] ... A[63:56] */
static u8 *etm4_addr64(u8 *p, u64 addr)
{
	int i;

	*p++ = (addr >> 2) & 0x7f;
	*p++ = (addr >> 9) & 0x7f;
	for (i = 2; i < 8; i++)
		*p++ = addr >> (8 * i);
	return p;
}

static u8 *etm4_addr_ctxt(u8 *p, u64 addr, u32 contextid)
{
	*p++ = ETM4_HDR_ADDR_CTXT_64;
	p = etm4_addr64(p, addr);
	*p++ = ETM4_CTXT_INFO_EL1;
	put_unaligned_le32(contextid, p);
	return p + 4;
}

static u8 *etm4_addr_long(u8 *p, u64 addr)
{
	*p++ = ETM4_HDR_ADDR_L_64;
	return etm4_addr64(p, addr);
}

/* ---- sink: frame formatter and trace RAM ---- */

#define FRAME_SIZE	16
#define FRAME_DATA	15	/* bytes 0-14; byte 15 holds the aux bits */

/**
 * struct sim_sink - a simulated ETF
 * @csdev:	the CoreSight device.
 * @lock:	protects every other field. Raw: taken in hardirq hrtimer
 *		callbacks.
 * @pid:	owner of the perf session using the sink, -1 for none.
 * @users:	CPUs of that session with the sink enabled.
 * @frame:	frame being formatted.
 * @pos:	next byte of @frame.
 * @cur_id:	trace ID of the data going into @frame, -1 for none yet.
 * @ram:	trace RAM, a ring of whole frames.
 * @ram_size:	bytes of @ram in use in this session.
 * @ram_alloc:	bytes allocated for @ram.
 * @wr:		offset in @ram of the next frame.
 * @fill:	bytes of trace held in @ram.
 * @wrapped:	@ram overwrote frames in this session: trace was lost.
 * @bytes_out:	bytes copied to perf AUX buffers, for the "sim" group.
 * @lost:	collections that lost trace (trace RAM wrapped or more than
 *		the AUX buffer could take), for the "sim" group.
 */
struct sim_sink {
	struct coresight_device *csdev;
	raw_spinlock_t lock;	/* protects every other field */
	pid_t pid;
	int users;
	u8 frame[FRAME_SIZE];
	int pos;
	int cur_id;
	u8 *ram;
	size_t ram_size;
	size_t ram_alloc;
	size_t wr;
	size_t fill;
	bool wrapped;
	u64 bytes_out;
	u64 lost;
};

/* The sink each CPU's source writes to, set when a path is enabled */
static DEFINE_PER_CPU(struct sim_sink *, active_sink);

static void sink_push_frame(struct sim_sink *sink)
{
	memcpy(sink->ram + sink->wr, sink->frame, FRAME_SIZE);
	sink->wr = (sink->wr + FRAME_SIZE) % sink->ram_size;
	if (sink->fill < sink->ram_size)
		sink->fill += FRAME_SIZE;
	else
		sink->wrapped = true;
	memset(sink->frame, 0, FRAME_SIZE);
	sink->pos = 0;
}

/* Even bytes carry their bit 0 in the aux byte; odd bytes are whole */
static void sink_put_byte(struct sim_sink *sink, u8 v)
{
	int pos = sink->pos;

	if (pos & 1) {
		sink->frame[pos] = v;
	} else {
		sink->frame[pos] = v & ~1;
		sink->frame[FRAME_DATA] |= (v & 1) << (pos / 2);
	}
	if (++sink->pos == FRAME_DATA)
		sink_push_frame(sink);
}

/* An ID change: an even byte with bit 0 set, the new ID in bits 7:1 */
static void sink_set_id(struct sim_sink *sink, int id)
{
	int prev;
	u8 data;

	if (sink->cur_id == id)
		return;
	sink->cur_id = id;

	if (!(sink->pos & 1)) {
		/* aux bit 0: the new ID applies from the next byte on */
		sink->frame[sink->pos] = (id << 1) | 1;
		if (++sink->pos == FRAME_DATA)
			sink_push_frame(sink);
		return;
	}

	/*
	 * IDs only go in even bytes: move the last data byte to this odd
	 * byte, and put the ID in its place with aux bit 1, "applies after
	 * the next byte".
	 */
	prev = sink->pos - 1;
	data = sink->frame[prev] | ((sink->frame[FRAME_DATA] >> (prev / 2)) & 1);
	sink->frame[prev] = (id << 1) | 1;
	sink->frame[FRAME_DATA] |= 1 << (prev / 2);
	sink->frame[sink->pos] = data;
	if (++sink->pos == FRAME_DATA)
		sink_push_frame(sink);
}

static void sink_write(struct sim_sink *sink, int id, const u8 *data,
		       size_t len)
{
	unsigned long flags;
	size_t i;

	raw_spin_lock_irqsave(&sink->lock, flags);
	sink_set_id(sink, id);
	for (i = 0; i < len; i++)
		sink_put_byte(sink, data[i]);
	raw_spin_unlock_irqrestore(&sink->lock, flags);
}

/* Complete the last frame with the null ID, as a formatter flush does */
static void sink_flush(struct sim_sink *sink)
{
	if (!sink->pos)
		return;
	sink_set_id(sink, 0);
	while (sink->pos)
		sink_put_byte(sink, 0);
}

static void sink_reset(struct sim_sink *sink)
{
	size_t want = (size_t)READ_ONCE(ram_use_kb) * SZ_1K;

	if (!want || want > sink->ram_alloc)
		want = sink->ram_alloc;
	sink->ram_size = max_t(size_t, want & ~(size_t)(FRAME_SIZE - 1), FRAME_SIZE);
	memset(sink->frame, 0, FRAME_SIZE);
	sink->pos = 0;
	sink->cur_id = -1;
	sink->wr = 0;
	sink->fill = 0;
	sink->wrapped = false;
}

/**
 * struct sim_buffer - the perf AUX buffer of an event
 * @pid:	owner of the perf session.
 * @nr_pages:	pages of the AUX buffer.
 * @pages:	the pages.
 */
struct sim_buffer {
	pid_t pid;
	int nr_pages;
	void **pages;
};

static void *sim_sink_alloc_buffer(struct coresight_device *csdev,
				   struct perf_event *event, void **pages,
				   int nr_pages, bool overwrite)
{
	struct sim_buffer *buf;

	/* Snapshot mode is not simulated */
	if (overwrite)
		return NULL;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return NULL;
	buf->pid = task_pid_nr(event->owner);
	buf->nr_pages = nr_pages;
	buf->pages = pages;
	return buf;
}

static void sim_sink_free_buffer(void *config)
{
	kfree(config);
}

static int sim_sink_enable(struct coresight_device *csdev, u32 mode,
			   void *data)
{
	struct sim_sink *sink = dev_get_drvdata(csdev->dev.parent);
	struct sim_buffer *buf;
	unsigned long flags;
	int ret = 0;

	/* Only perf sessions are simulated */
	if (mode != CS_MODE_PERF)
		return -EINVAL;
	buf = etm_perf_sink_config(data);
	if (!buf)
		return -EINVAL;

	raw_spin_lock_irqsave(&sink->lock, flags);
	if (sink->users && sink->pid != buf->pid) {
		ret = -EBUSY;
	} else {
		if (!sink->users) {
			sink_reset(sink);
			sink->pid = buf->pid;
		}
		sink->users++;
		this_cpu_write(active_sink, sink);
	}
	raw_spin_unlock_irqrestore(&sink->lock, flags);
	return ret;
}

static int sim_sink_disable(struct coresight_device *csdev)
{
	struct sim_sink *sink = dev_get_drvdata(csdev->dev.parent);
	unsigned long flags;
	int ret = 0;

	raw_spin_lock_irqsave(&sink->lock, flags);
	if (--sink->users)
		ret = -EBUSY;	/* still in use by other CPUs */
	else
		sink->pid = -1;
	raw_spin_unlock_irqrestore(&sink->lock, flags);
	return ret;
}

/* Overwrite the first frame copied at @head: frames are 16-byte aligned */
static void sink_copy_barrier(struct sim_buffer *buf, unsigned long head)
{
	size_t off = head % ((size_t)buf->nr_pages * PAGE_SIZE);

	coresight_insert_barrier_packet(buf->pages[off / PAGE_SIZE] +
					off % PAGE_SIZE);
}

/* Copy @len bytes of trace RAM from @from to the AUX buffer at @head */
static void sink_copy_out(struct sim_sink *sink, struct sim_buffer *buf,
			  unsigned long head, size_t from, size_t len)
{
	size_t aux_size = (size_t)buf->nr_pages * PAGE_SIZE;
	size_t off = head % aux_size, n;

	while (len) {
		n = min3(len, PAGE_SIZE - off % PAGE_SIZE, sink->ram_size - from);
		memcpy(buf->pages[off / PAGE_SIZE] + off % PAGE_SIZE,
		       sink->ram + from, n);
		off = (off + n) % aux_size;
		from = (from + n) % sink->ram_size;
		len -= n;
	}
}

static unsigned long sim_sink_update_buffer(struct coresight_device *csdev,
					    struct perf_output_handle *handle,
					    void *config)
{
	struct sim_sink *sink = dev_get_drvdata(csdev->dev.parent);
	struct sim_buffer *buf = config;
	unsigned long flags;
	size_t len = 0;
	bool lost;

	if (!buf)
		return 0;

	raw_spin_lock_irqsave(&sink->lock, flags);
	/*
	 * As an ETF: the last CPU of the session to stop collects the trace.
	 * perf stops the CPUs of a session one after the other; were two to
	 * stop at once, both could see the other still using the sink and
	 * leave the trace in it, which the test would report as missing.
	 */
	if (sink->users != 1)
		goto out;

	sink_flush(sink);
	/* The decoder starts each buffer afresh: name the ID again */
	sink->cur_id = -1;
	len = sink->fill;
	lost = sink->wrapped;
	/* Keep the newest trace that fits */
	if (len > (handle->size & ~(FRAME_SIZE - 1UL))) {
		len = handle->size & ~(FRAME_SIZE - 1UL);
		lost = true;
	}
	if (!len)
		goto out;

	sink_copy_out(sink, buf, handle->head,
		      (sink->wr + sink->ram_size - len) % sink->ram_size, len);
	if (lost) {
		/* The decoder must resynchronise: frames are missing */
		sink_copy_barrier(buf, handle->head);
		perf_aux_output_flag(handle, PERF_AUX_FLAG_TRUNCATED);
		sink->lost++;
	}
	sink->bytes_out += len;
	sink->fill = 0;
	sink->wrapped = false;
out:
	raw_spin_unlock_irqrestore(&sink->lock, flags);
	return len;
}

static const struct coresight_ops_sink sim_sink_ops = {
	.enable		= sim_sink_enable,
	.disable	= sim_sink_disable,
	.alloc_buffer	= sim_sink_alloc_buffer,
	.free_buffer	= sim_sink_free_buffer,
	.update_buffer	= sim_sink_update_buffer,
};

static const struct coresight_ops sim_sink_cs_ops = {
	.sink_ops = &sim_sink_ops,
};

/* ---- source: a per-CPU ETM ---- */

/**
 * struct sim_etm - a simulated ETMv4 of one CPU
 * @csdev:	the CoreSight device.
 * @cpu:	its CPU.
 * @marker:	thread bound to @cpu whose PID the trace carries.
 * @timer:	hrtimer pinned to @cpu, writes trace while enabled.
 * @sink:	sink of the enabled path, NULL while disabled.
 * @trace_id:	trace ID of the enabled event, 0 while disabled.
 * @timestamps:	the event asked for timestamps.
 * @piece:	room for one piece of trace.
 * @stats_lock:	protects the statistics below.
 * @bytes:	trace bytes written, for the "sim" group.
 * @atoms:	taken branches written, for the "sim" group.
 * @last_id:	trace ID of the last session, for the "sim" group.
 * @last_sink:	sink of the last session, for the "sim" group.
 *
 * @piece and the fields above it are only used on @cpu, by the perf
 * callbacks and the hrtimer, which do not run at the same time.
 */
struct sim_etm {
	struct coresight_device *csdev;
	int cpu;
	struct task_struct *marker;
	struct hrtimer timer;
	struct sim_sink *sink;
	int trace_id;
	bool timestamps;
	u8 *piece;
	raw_spinlock_t stats_lock;	/* protects the statistics */
	u64 bytes;
	u64 atoms;
	int last_id;
	struct coresight_device *last_sink;
};

/*
 * The code the trace runs: a function of the kernel image, so that perf
 * decodes it from the guest's vmlinux.
 */
static u64 sim_code_addr(void)
{
	return (u64)(unsigned long)schedule;
}

/*
 * One self-contained piece of trace: sync, trace info, timestamp, then the
 * code address with the marker thread's PID as CONTEXTID, and @n taken
 * branches, each from a fresh address so that any code decodes.
 */
static size_t etm_piece(struct sim_etm *etm, unsigned int n)
{
	u64 addr = sim_code_addr();
	u8 *p = etm->piece;
	unsigned int i;

	p = etm4_async(p);
	p = etm4_trace_info(p);
	if (etm->timestamps)
		p = etm4_timestamp(p, get_cycles());
	p = etm4_addr_ctxt(p, addr, task_pid_nr(etm->marker));
	for (i = 0; i < n; i++) {
		if (i)
			p = etm4_addr_long(p, addr);
		*p++ = ETM4_HDR_ATOM_E;
	}
	return p - etm->piece;
}

static void etm_emit(struct sim_etm *etm)
{
	unsigned int n = clamp(READ_ONCE(atoms), 1U, 64U);
	size_t len = etm_piece(etm, n);
	unsigned long flags;

	sink_write(etm->sink, etm->trace_id, etm->piece, len);
	raw_spin_lock_irqsave(&etm->stats_lock, flags);
	etm->bytes += len;
	etm->atoms += n;
	raw_spin_unlock_irqrestore(&etm->stats_lock, flags);
}

static ktime_t etm_period(void)
{
	return ns_to_ktime((u64)max(READ_ONCE(period_us), 100U) * NSEC_PER_USEC);
}

static enum hrtimer_restart etm_timer_fn(struct hrtimer *timer)
{
	struct sim_etm *etm = container_of(timer, struct sim_etm, timer);

	etm_emit(etm);
	hrtimer_forward_now(timer, etm_period());
	return HRTIMER_RESTART;
}

static int sim_etm_cpu_id(struct coresight_device *csdev)
{
	struct sim_etm *etm = dev_get_drvdata(csdev->dev.parent);

	return etm->cpu;
}

static int sim_etm_trace_id(struct coresight_device *csdev)
{
	struct sim_etm *etm = dev_get_drvdata(csdev->dev.parent);

	return READ_ONCE(etm->trace_id);
}

/* Called by etm_event_start() on etm->cpu, after the path is enabled */
static int sim_etm_enable(struct coresight_device *csdev,
			  struct perf_event *event, u32 mode)
{
	struct sim_etm *etm = dev_get_drvdata(csdev->dev.parent);
	int trace_id = etm_perf_cpu_trace_id();
	unsigned long flags;

	if (mode != CS_MODE_PERF || WARN_ON_ONCE(etm->cpu != smp_processor_id()))
		return -EINVAL;
	if (WARN_ON_ONCE(!coresight_trace_id_is_valid(trace_id)))
		return -EINVAL;
	etm->sink = this_cpu_read(active_sink);
	if (WARN_ON_ONCE(!etm->sink))
		return -EINVAL;

	etm->timestamps = event->attr.config & BIT(ETM_OPT_TS);
	WRITE_ONCE(etm->trace_id, trace_id);
	raw_spin_lock_irqsave(&etm->stats_lock, flags);
	etm->last_id = trace_id;
	etm->last_sink = etm->sink->csdev;
	raw_spin_unlock_irqrestore(&etm->stats_lock, flags);

	etm_emit(etm);
	hrtimer_start(&etm->timer, etm_period(), HRTIMER_MODE_REL_PINNED_HARD);
	return 0;
}

static void sim_etm_disable(struct coresight_device *csdev,
			    struct perf_event *event)
{
	struct sim_etm *etm = dev_get_drvdata(csdev->dev.parent);

	if (!etm->sink)
		return;
	hrtimer_cancel(&etm->timer);
	etm_emit(etm);
	WRITE_ONCE(etm->trace_id, 0);
	etm->sink = NULL;
}

static const struct coresight_ops_source sim_etm_source_ops = {
	.cpu_id		= sim_etm_cpu_id,
	.trace_id	= sim_etm_trace_id,
	.enable		= sim_etm_enable,
	.disable	= sim_etm_disable,
};

static const struct coresight_ops sim_etm_cs_ops = {
	.source_ops = &sim_etm_source_ops,
};

/* ---- sysfs: the ETMv4 files perf record reads, and statistics ---- */

/* A read-only ID register: its value is in the attribute's var */
static ssize_t sim_reg_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct dev_ext_attribute *ea = container_of(attr, struct dev_ext_attribute, attr);

	return sysfs_emit(buf, "0x%lx\n", (unsigned long)ea->var);
}

#define SIM_REG(_name, _val)						\
	static struct dev_ext_attribute sim_reg_##_name = {		\
		__ATTR(_name, 0444, sim_reg_show, NULL), (void *)(_val)	\
	}

SIM_REG(trcidr0, SIM_TRCIDR0);
SIM_REG(trcidr1, SIM_TRCIDR1);
SIM_REG(trcidr2, SIM_TRCIDR2);
SIM_REG(trcidr8, SIM_TRCIDR8);
SIM_REG(trcauthstatus, SIM_TRCAUTHSTATUS);
SIM_REG(trcdevarch, SIM_TRCDEVARCH);

static struct attribute *sim_etm_trcidr_attrs[] = {
	&sim_reg_trcidr0.attr.attr,
	&sim_reg_trcidr1.attr.attr,
	&sim_reg_trcidr2.attr.attr,
	&sim_reg_trcidr8.attr.attr,
	NULL,
};

static struct attribute *sim_etm_mgmt_attrs[] = {
	&sim_reg_trcauthstatus.attr.attr,
	&sim_reg_trcdevarch.attr.attr,
	NULL,
};

/* "etm CPU SINK TRACE_ID BYTES ATOMS MARKER_PID" of the last session */
static ssize_t stats_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct sim_etm *etm = dev_get_drvdata(dev->parent);
	unsigned long flags;
	ssize_t n;

	raw_spin_lock_irqsave(&etm->stats_lock, flags);
	n = sysfs_emit(buf, "etm %d %s %d %llu %llu %d\n", etm->cpu,
		       etm->last_sink ? dev_name(&etm->last_sink->dev) : "-",
		       etm->last_id, etm->bytes, etm->atoms,
		       task_pid_nr(etm->marker));
	raw_spin_unlock_irqrestore(&etm->stats_lock, flags);
	return n;
}

/* Writing anything starts the counts again */
static ssize_t stats_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t size)
{
	struct sim_etm *etm = dev_get_drvdata(dev->parent);
	unsigned long flags;

	raw_spin_lock_irqsave(&etm->stats_lock, flags);
	etm->bytes = 0;
	etm->atoms = 0;
	etm->last_id = 0;
	etm->last_sink = NULL;
	raw_spin_unlock_irqrestore(&etm->stats_lock, flags);
	return size;
}
static DEVICE_ATTR_RW(stats);

static struct attribute *sim_etm_sim_attrs[] = {
	&dev_attr_stats.attr,
	NULL,
};

static const struct attribute_group sim_etm_trcidr_group = {
	.name = "trcidr",
	.attrs = sim_etm_trcidr_attrs,
};

static const struct attribute_group sim_etm_mgmt_group = {
	.name = "mgmt",
	.attrs = sim_etm_mgmt_attrs,
};

static const struct attribute_group sim_etm_sim_group = {
	.name = "sim",
	.attrs = sim_etm_sim_attrs,
};

static const struct attribute_group *sim_etm_groups[] = {
	&sim_etm_trcidr_group,
	&sim_etm_mgmt_group,
	&sim_etm_sim_group,
	NULL,
};

/* "sink NAME SINK_ID BYTES_OUT LOST" */
static ssize_t sink_stats_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct coresight_device *csdev = to_coresight_device(dev);
	struct sim_sink *sink = dev_get_drvdata(dev->parent);
	unsigned long flags;
	ssize_t n;

	raw_spin_lock_irqsave(&sink->lock, flags);
	n = sysfs_emit(buf, "sink %s 0x%lx %llu %llu\n", dev_name(dev),
		       csdev->ea ? (unsigned long)csdev->ea->var : 0,
		       sink->bytes_out, sink->lost);
	raw_spin_unlock_irqrestore(&sink->lock, flags);
	return n;
}

static ssize_t sink_stats_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t size)
{
	struct sim_sink *sink = dev_get_drvdata(dev->parent);
	unsigned long flags;

	raw_spin_lock_irqsave(&sink->lock, flags);
	sink->bytes_out = 0;
	sink->lost = 0;
	raw_spin_unlock_irqrestore(&sink->lock, flags);
	return size;
}

static struct device_attribute dev_attr_sink_stats =
	__ATTR(stats, 0644, sink_stats_show, sink_stats_store);

static struct attribute *sim_sink_sim_attrs[] = {
	&dev_attr_sink_stats.attr,
	NULL,
};

static const struct attribute_group sim_sink_sim_group = {
	.name = "sim",
	.attrs = sim_sink_sim_attrs,
};

static const struct attribute_group *sim_sink_groups[] = {
	&sim_sink_sim_group,
	NULL,
};

/* ---- platform drivers ---- */

static int sim_marker_fn(void *data)
{
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/* Register a device described by @desc, with the ports of its DT node */
static struct coresight_device *sim_register(struct platform_device *pdev,
					     struct coresight_desc *desc,
					     void *drvdata)
{
	struct device *dev = &pdev->dev;

	desc->pdata = coresight_get_platform_data(dev);
	if (IS_ERR(desc->pdata))
		return ERR_CAST(desc->pdata);
	dev->platform_data = desc->pdata;
	desc->dev = dev;
	platform_set_drvdata(pdev, drvdata);
	return coresight_register(desc);
}

static void sim_etm_stop_marker(void *data)
{
	kthread_stop(data);
}

static int sim_etm_probe(struct platform_device *pdev)
{
	struct coresight_desc desc = { 0 };
	struct device *dev = &pdev->dev;
	struct sim_etm *etm;
	int ret;

	etm = devm_kzalloc(dev, sizeof(*etm), GFP_KERNEL);
	if (!etm)
		return -ENOMEM;
	etm->piece = devm_kzalloc(dev, SIM_PIECE_MAX(64), GFP_KERNEL);
	if (!etm->piece)
		return -ENOMEM;
	raw_spin_lock_init(&etm->stats_lock);
	hrtimer_init(&etm->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	etm->timer.function = etm_timer_fn;

	etm->cpu = coresight_get_cpu(dev);
	if (etm->cpu < 0)
		return dev_err_probe(dev, etm->cpu, "no CPU for this source\n");

	etm->marker = kthread_create_on_cpu(sim_marker_fn, etm, etm->cpu,
					    "csboard/%u");
	if (IS_ERR(etm->marker))
		return PTR_ERR(etm->marker);
	wake_up_process(etm->marker);
	ret = devm_add_action_or_reset(dev, sim_etm_stop_marker, etm->marker);
	if (ret)
		return ret;

	desc.name = devm_kasprintf(dev, GFP_KERNEL, "simetm%d", etm->cpu);
	if (!desc.name)
		return -ENOMEM;
	desc.type = CORESIGHT_DEV_TYPE_SOURCE;
	desc.subtype.source_subtype = CORESIGHT_DEV_SUBTYPE_SOURCE_PROC;
	desc.ops = &sim_etm_cs_ops;
	desc.groups = sim_etm_groups;
	etm->csdev = sim_register(pdev, &desc, etm);
	if (IS_ERR(etm->csdev))
		return PTR_ERR(etm->csdev);

	ret = etm_perf_symlink(etm->csdev, true);
	if (ret) {
		coresight_unregister(etm->csdev);
		return ret;
	}
	return 0;
}

static int sim_etm_remove(struct platform_device *pdev)
{
	struct sim_etm *etm = platform_get_drvdata(pdev);

	etm_perf_symlink(etm->csdev, false);
	coresight_unregister(etm->csdev);
	return 0;
}

DEFINE_CORESIGHT_DEVLIST(sink_devs, "simsink");

static void sim_sink_free_ram(void *ram)
{
	vfree(ram);
}

static int sim_sink_probe(struct platform_device *pdev)
{
	struct coresight_desc desc = { 0 };
	struct device *dev = &pdev->dev;
	struct sim_sink *sink;
	int ret;

	sink = devm_kzalloc(dev, sizeof(*sink), GFP_KERNEL);
	if (!sink)
		return -ENOMEM;
	raw_spin_lock_init(&sink->lock);
	sink->pid = -1;
	sink->ram_alloc = max(ram_kb, 1U) * SZ_1K;
	sink->ram = vzalloc(sink->ram_alloc);
	if (!sink->ram)
		return -ENOMEM;
	ret = devm_add_action_or_reset(dev, sim_sink_free_ram, sink->ram);
	if (ret)
		return ret;
	sink_reset(sink);

	desc.name = coresight_alloc_device_name(&sink_devs, dev);
	if (!desc.name)
		return -ENOMEM;
	desc.type = CORESIGHT_DEV_TYPE_SINK;
	desc.subtype.sink_subtype = CORESIGHT_DEV_SUBTYPE_SINK_BUFFER;
	desc.ops = &sim_sink_cs_ops;
	desc.groups = sim_sink_groups;
	sink->csdev = sim_register(pdev, &desc, sink);
	return PTR_ERR_OR_ZERO(sink->csdev);
}

static int sim_sink_remove(struct platform_device *pdev)
{
	struct sim_sink *sink = platform_get_drvdata(pdev);

	coresight_unregister(sink->csdev);
	return 0;
}

static const struct of_device_id sim_etm_match[] = {
	{ .compatible = "csboard,sim-etm" },
	{}
};
MODULE_DEVICE_TABLE(of, sim_etm_match);

static const struct of_device_id sim_sink_match[] = {
	{ .compatible = "csboard,sim-sink" },
	{}
};
MODULE_DEVICE_TABLE(of, sim_sink_match);

static struct platform_driver sim_etm_driver = {
	.probe	= sim_etm_probe,
	.remove	= sim_etm_remove,
	.driver	= {
		.name = "csboard-sim-etm",
		.of_match_table = sim_etm_match,
		.suppress_bind_attrs = true,
	},
};

static struct platform_driver sim_sink_driver = {
	.probe	= sim_sink_probe,
	.remove	= sim_sink_remove,
	.driver	= {
		.name = "csboard-sim-sink",
		.of_match_table = sim_sink_match,
		.suppress_bind_attrs = true,
	},
};

static struct platform_driver * const sim_drivers[] = {
	&sim_sink_driver,
	&sim_etm_driver,
};

static int __init csboard_init(void)
{
	return platform_register_drivers(sim_drivers, ARRAY_SIZE(sim_drivers));
}
module_init(csboard_init);

static void __exit csboard_exit(void)
{
	platform_unregister_drivers(sim_drivers, ARRAY_SIZE(sim_drivers));
}
module_exit(csboard_exit);

MODULE_DESCRIPTION("Simulated multi-sink CoreSight board for end-to-end tests");
MODULE_LICENSE("GPL");
