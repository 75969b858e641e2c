// SPDX-License-Identifier: GPL-2.0
/*
 * csboard sinks, the module csboard-sink.ko:
 *
 * - "csboard,sim-sink", like an ETF. The trace of its sources goes through
 *   the frame formatter of cs-trace-enc.h into a ring of trace RAM; when
 *   the last CPU of a perf session stops, the sink copies the RAM into that
 *   CPU's AUX buffer, with a barrier packet at the start where the ring
 *   wrapped. In sysfs mode (enable_sink) the RAM keeps the trace of the
 *   sources enabled since the sink's first enable, read through the misc
 *   device /dev/<sink name> as ETB and ETF drivers offer it.
 * - "csboard,sim-raw-sink", a per-CPU sink like a TRBE: the trace of its
 *   one source goes unformatted (no frames, no trace ID) into the RAM, and
 *   into the AUX buffer of the CPU each time its event stops there, flagged
 *   PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW. perf mode only.
 *
 * Separate from the sources (csboard.ko), so that the sink driver's module
 * can be unloaded while perf events hold buffers of its sinks.
 */

#include <linux/coresight.h>
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "coresight-etm-perf.h"
#include "coresight-priv.h"

#include "cs-trace-enc.h"
#include "csboard.h"

static unsigned int ram_kb = 1024;
module_param(ram_kb, uint, 0444);
MODULE_PARM_DESC(ram_kb, "trace RAM of a sink, in KiB");

static unsigned int ram_use_kb;
module_param(ram_use_kb, uint, 0644);
MODULE_PARM_DESC(ram_use_kb, "trace RAM a sink uses from the next session on, 0 for all");

/**
 * struct sim_sink - a simulated ETF, or per-CPU raw sink
 * @port:	what the sources see; first, see struct sim_sink_port.
 * @csdev:	the CoreSight device.
 * @raw:	unformatted trace: a per-CPU sink.
 * @miscdev:	the read device of sysfs mode (formatted sinks).
 * @lock:	protects every other field. Raw: taken in hardirq hrtimer
 *		callbacks.
 * @mode:	CS_MODE_DISABLED, or the mode of its users.
 * @pid:	owner of the perf session using the sink, -1 for none.
 * @users:	CPUs of that session, or sysfs sources, with the sink
 *		enabled.
 * @fmt:	the frame formatter.
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
	struct sim_sink_port port;
	struct coresight_device *csdev;
	bool raw;
	struct miscdevice miscdev;
	raw_spinlock_t lock;	/* protects every other field */
	u32 mode;
	pid_t pid;
	int users;
	struct cs_fmt fmt;
	u8 *ram;
	size_t ram_size;
	size_t ram_alloc;
	size_t wr;
	size_t fill;
	bool wrapped;
	u64 bytes_out;
	u64 lost;
};

static struct sim_sink *to_sim_sink(struct coresight_device *csdev)
{
	return dev_get_drvdata(csdev->dev.parent);
}

/* @len bytes into the ring, @len a multiple of 16 for formatted trace */
static void sink_ring_put(struct sim_sink *sink, const u8 *data, size_t len)
{
	size_t n;

	while (len) {
		n = min(len, sink->ram_size - sink->wr);
		memcpy(sink->ram + sink->wr, data, n);
		sink->wr = (sink->wr + n) % sink->ram_size;
		if (sink->fill + n <= sink->ram_size) {
			sink->fill += n;
		} else {
			sink->fill = sink->ram_size;
			sink->wrapped = true;
		}
		data += n;
		len -= n;
	}
}

/* A complete frame of the formatter: into the ring */
static void sink_emit_frame(struct cs_fmt *fmt)
{
	struct sim_sink *sink = container_of(fmt, struct sim_sink, fmt);

	sink_ring_put(sink, fmt->frame, CS_FRAME_SIZE);
}

/* A source writes @len bytes of trace with ID @id; see sim_sink_port */
static void sim_sink_write(struct sim_sink_port *port, int id, const u8 *data,
			   size_t len)
{
	struct sim_sink *sink = container_of(port, struct sim_sink, port);
	unsigned long flags;

	raw_spin_lock_irqsave(&sink->lock, flags);
	if (sink->users) {
		if (sink->raw)
			sink_ring_put(sink, data, len);
		else
			cs_fmt_write(&sink->fmt, id, data, len);
	}
	raw_spin_unlock_irqrestore(&sink->lock, flags);
}

static void sink_reset(struct sim_sink *sink)
{
	size_t want = (size_t)READ_ONCE(ram_use_kb) * SZ_1K;

	if (!want || want > sink->ram_alloc)
		want = sink->ram_alloc;
	/* whole frames, also for raw trace: no harm */
	sink->ram_size = max_t(size_t, want & ~(size_t)(CS_FRAME_SIZE - 1),
			       CS_FRAME_SIZE);
	cs_fmt_init(&sink->fmt, sink_emit_frame);
	sink->wr = 0;
	sink->fill = 0;
	sink->wrapped = false;
}

/**
 * struct sim_buffer - the perf AUX buffer of an event
 * @pid:	owner of the perf session.
 * @snapshot:	snapshot mode (perf record -S): the AUX buffer is a ring
 *		that the sink overwrites, and the sink moves its head.
 * @nr_pages:	pages of the AUX buffer.
 * @pages:	the pages.
 */
struct sim_buffer {
	pid_t pid;
	bool snapshot;
	int nr_pages;
	void **pages;
};

static void *sim_sink_alloc_buffer(struct coresight_device *csdev,
				   struct perf_event *event, void **pages,
				   int nr_pages, bool overwrite)
{
	struct sim_buffer *buf;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return NULL;
	buf->pid = task_pid_nr(event->owner);
	buf->snapshot = overwrite;
	buf->nr_pages = nr_pages;
	buf->pages = pages;
	return buf;
}

static void sim_sink_free_buffer(void *config)
{
	kfree(config);
}

/* perf: enabled on the CPU of the event, by one perf process at a time */
static int sim_sink_enable_perf(struct sim_sink *sink, void *data)
{
	struct sim_buffer *buf = etm_perf_sink_config(data);
	unsigned long flags;
	int ret = 0;

	if (!buf)
		return -EINVAL;

	raw_spin_lock_irqsave(&sink->lock, flags);
	if (sink->users && (sink->mode != CS_MODE_PERF || sink->pid != buf->pid)) {
		ret = -EBUSY;
	} else {
		if (!sink->users) {
			sink_reset(sink);
			sink->pid = buf->pid;
			sink->mode = CS_MODE_PERF;
		}
		sink->users++;
		this_cpu_write(sim_active_sink, &sink->port);
	}
	raw_spin_unlock_irqrestore(&sink->lock, flags);
	return ret;
}

/*
 * sysfs: enabled by coresight_enable() for each source, under the core's
 * coresight_mutex. The RAM starts afresh at the first enable and keeps its
 * trace after the last disable, for the read device.
 */
static int sim_sink_enable_sysfs(struct sim_sink *sink)
{
	unsigned long flags;
	int ret = 0;

	if (sink->raw)
		return -EINVAL;

	raw_spin_lock_irqsave(&sink->lock, flags);
	if (sink->users && sink->mode != CS_MODE_SYSFS) {
		ret = -EBUSY;
	} else {
		if (!sink->users) {
			sink_reset(sink);
			sink->mode = CS_MODE_SYSFS;
		}
		sink->users++;
	}
	raw_spin_unlock_irqrestore(&sink->lock, flags);
	if (!ret)
		sim_sysfs_sink = &sink->port;
	return ret;
}

static int sim_sink_enable(struct coresight_device *csdev, u32 mode,
			   void *data)
{
	struct sim_sink *sink = to_sim_sink(csdev);

	switch (mode) {
	case CS_MODE_PERF:
		return sim_sink_enable_perf(sink, data);
	case CS_MODE_SYSFS:
		return sim_sink_enable_sysfs(sink);
	default:
		return -EINVAL;
	}
}

static int sim_sink_disable(struct coresight_device *csdev)
{
	struct sim_sink *sink = to_sim_sink(csdev);
	unsigned long flags;
	int ret = 0;

	raw_spin_lock_irqsave(&sink->lock, flags);
	if (WARN_ON_ONCE(!sink->users)) {
		ret = -EINVAL;
	} else if (--sink->users) {
		ret = -EBUSY;	/* still in use by other sources */
	} else {
		/* the end of the trace, for the read device */
		if (sink->mode == CS_MODE_SYSFS)
			cs_fmt_flush(&sink->fmt);
		sink->pid = -1;
		sink->mode = CS_MODE_DISABLED;
	}
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
	struct sim_sink *sink = to_sim_sink(csdev);
	unsigned long frame = sink->raw ? 1 : CS_FRAME_SIZE;
	struct sim_buffer *buf = config;
	unsigned long flags, room;
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

	if (sink->raw) {
		perf_aux_output_flag(handle, PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW);
	} else {
		cs_fmt_flush(&sink->fmt);
		/* The decoder starts each buffer afresh: name the ID again */
		cs_fmt_forget_id(&sink->fmt);
	}
	len = sink->fill;
	lost = sink->wrapped;
	/* In snapshot mode the whole ring, which perf gives a size of 0 */
	room = buf->snapshot ? (unsigned long)buf->nr_pages * PAGE_SIZE :
			       handle->size;
	/* Keep the newest trace that fits */
	if (len > (room & ~(frame - 1))) {
		len = room & ~(frame - 1);
		lost = true;
	}
	if (!len)
		goto out;

	sink_copy_out(sink, buf, handle->head,
		      (sink->wr + sink->ram_size - len) % sink->ram_size, len);
	if (lost) {
		/* The decoder must resynchronise: frames are missing */
		if (!sink->raw)
			sink_copy_barrier(buf, handle->head);
		/*
		 * As an ETF: a snapshot is expected to be cut, and the flag
		 * would keep perf from enabling the event again.
		 */
		if (!buf->snapshot)
			perf_aux_output_flag(handle, PERF_AUX_FLAG_TRUNCATED);
		sink->lost++;
	}
	/* In snapshot mode the driver moves the head (see the ETF) */
	if (buf->snapshot)
		handle->head += len;
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

/* ---- sysfs: statistics ---- */

/* "sink NAME SINK_ID BYTES_OUT LOST" */
static ssize_t sink_stats_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct coresight_device *csdev = to_coresight_device(dev);
	struct sim_sink *sink = dev_get_drvdata(dev->parent);
	unsigned long flags;
	ssize_t n;

	/* the sink ID as the PMU's sinks/ directory shows it */

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
	&sim_sink_map_group,
	NULL,
};

/* ---- the read device of sysfs mode ---- */

/**
 * struct sim_sink_dump - what a reader of the read device gets
 * @len:	bytes in @data.
 * @data:	the trace in the RAM at open, oldest first.
 */
struct sim_sink_dump {
	size_t len;
	u8 data[];
};

/* A copy of the trace in the RAM, taken when the device is opened */
static int sim_sink_open(struct inode *inode, struct file *file)
{
	struct sim_sink *sink = container_of(file->private_data,
					     struct sim_sink, miscdev);
	struct sim_sink_dump *dump;
	unsigned long flags;
	size_t len, from, n;

	dump = vmalloc(struct_size(dump, data, sink->ram_alloc));
	if (!dump)
		return -ENOMEM;

	raw_spin_lock_irqsave(&sink->lock, flags);
	/* as an ETF read while tracing: the frames so far */
	if (sink->mode == CS_MODE_SYSFS)
		cs_fmt_flush(&sink->fmt);
	len = sink->fill;
	from = (sink->wr + sink->ram_size - len) % sink->ram_size;
	n = min(len, sink->ram_size - from);
	memcpy(dump->data, sink->ram + from, n);
	memcpy(dump->data + n, sink->ram, len - n);
	dump->len = len;
	raw_spin_unlock_irqrestore(&sink->lock, flags);

	file->private_data = dump;
	return 0;
}

static ssize_t sim_sink_read(struct file *file, char __user *data,
			     size_t len, loff_t *ppos)
{
	struct sim_sink_dump *dump = file->private_data;

	return simple_read_from_buffer(data, len, ppos, dump->data, dump->len);
}

static int sim_sink_release(struct inode *inode, struct file *file)
{
	vfree(file->private_data);
	return 0;
}

static const struct file_operations sim_sink_fops = {
	.owner		= THIS_MODULE,
	.open		= sim_sink_open,
	.read		= sim_sink_read,
	.release	= sim_sink_release,
	.llseek		= no_llseek,
};

/* ---- platform drivers ---- */

DEFINE_CORESIGHT_DEVLIST(sink_devs, "simsink");
DEFINE_CORESIGHT_DEVLIST(raw_sink_devs, "simraw");

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
	sink->raw = of_device_is_compatible(dev->of_node, "csboard,sim-raw-sink");
	sink->port.write = sim_sink_write;
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

	desc.name = coresight_alloc_device_name(sink->raw ? &raw_sink_devs :
						&sink_devs, dev);
	if (!desc.name)
		return -ENOMEM;
	desc.type = CORESIGHT_DEV_TYPE_SINK;
	desc.subtype.sink_subtype = sink->raw ?
		CORESIGHT_DEV_SUBTYPE_SINK_PERCPU_SYSMEM :
		CORESIGHT_DEV_SUBTYPE_SINK_BUFFER;
	desc.ops = &sim_sink_cs_ops;
	desc.groups = sim_sink_groups;
	sink->csdev = sim_register(pdev, &desc, sink);
	if (IS_ERR(sink->csdev))
		return PTR_ERR(sink->csdev);
	sink->port.csdev = sink->csdev;
	if (sink->raw)
		return 0;

	sink->miscdev.name = desc.name;
	sink->miscdev.minor = MISC_DYNAMIC_MINOR;
	sink->miscdev.fops = &sim_sink_fops;
	sink->miscdev.parent = dev;
	ret = misc_register(&sink->miscdev);
	if (ret)
		coresight_unregister(sink->csdev);
	return ret;
}

static int sim_sink_remove(struct platform_device *pdev)
{
	struct sim_sink *sink = platform_get_drvdata(pdev);

	if (!sink->raw)
		misc_deregister(&sink->miscdev);
	coresight_unregister(sink->csdev);
	return 0;
}

static const struct of_device_id sim_sink_match[] = {
	{ .compatible = "csboard,sim-sink" },
	{ .compatible = "csboard,sim-raw-sink" },
	{}
};
MODULE_DEVICE_TABLE(of, sim_sink_match);

static struct platform_driver sim_sink_driver = {
	.probe	= sim_sink_probe,
	.remove	= sim_sink_remove,
	.driver	= {
		.name = "csboard-sim-sink",
		.of_match_table = sim_sink_match,
		.suppress_bind_attrs = true,
	},
};

static int __init sim_sink_init(void)
{
	return platform_driver_register(&sim_sink_driver);
}
module_init(sim_sink_init);

/*
 * coresight_alloc_device_name() of 6.1 keeps the firmware nodes of the
 * names it gave in an array of the module's device list, which nothing
 * frees: free it when the module goes, or kmemleak reports it after an
 * unload (as it would for the in-tree sink drivers; not the series').
 */
static void __exit sim_sink_exit(void)
{
	platform_driver_unregister(&sim_sink_driver);
	kfree(sink_devs.fwnode_list);
	kfree(raw_sink_devs.fwnode_list);
}
module_exit(sim_sink_exit);

MODULE_DESCRIPTION("Simulated multi-sink CoreSight board for end-to-end tests: sinks");
MODULE_LICENSE("GPL");

