// SPDX-License-Identifier: GPL-2.0
/*
 * csboard sources: "csboard,sim-etm", one per CPU. While a perf event runs
 * on its CPU it writes ETMv4 instruction trace (the encoder of
 * cs-trace-enc.h) with the trace ID that perf gave the CPU: at start, every
 * @period_us, and at stop. In sysfs mode (enable_source) it does the same
 * with the ID that the allocator's sysfs helpers give the CPU in the
 * default map, the helpers etm4x and etm3x call: taken at the first enable
 * or the first read of mgmt/trctraceid, which shows it, kept after
 * disable, given back by writing "reset" (at the disable if the source is
 * enabled). sim/default_id shows the ID the CPU holds in the default map
 * without allocating one. The trace says that the CPU runs the kernel's
 * schedule() in the context of the marker thread "csboard/<cpu>" bound to
 * that CPU, so a decoder that gets the CPU right shows csboard/<cpu> on CPU
 * <cpu>.
 */

#include <linux/bitops.h>
#include <linux/coresight.h>
#include <linux/coresight-pmu.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/smp.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/timex.h>

#include "coresight-etm-perf.h"
#include "coresight-priv.h"
#include "coresight-trace-id.h"

#include "cs-trace-enc.h"
#include "csboard.h"

static unsigned int period_us = 2000;
module_param(period_us, uint, 0644);
MODULE_PARM_DESC(period_us, "interval between two pieces of trace of a source");

static unsigned int atoms = 8;
module_param(atoms, uint, 0644);
MODULE_PARM_DESC(atoms, "taken branches in one piece of trace");

/* ID registers read by perf record, as an ETMv4.0 with 64-bit timestamps */
#define SIM_TRCIDR0	0x28000ea1
#define SIM_TRCIDR1	0x4100f403
#define SIM_TRCIDR2	0x00000488	/* 64-bit addresses, 32-bit CONTEXTID */
#define SIM_TRCIDR8	0x0
#define SIM_TRCAUTHSTATUS 0xcc
#define SIM_TRCDEVARCH	0x47724a13	/* ETMv4, not ETE */

/* Longest piece of trace: headers, then an address and an atom a branch */
#define SIM_PIECE_MAX(n)	(64 + (n) * 10)

/**
 * struct sim_etm - a simulated ETMv4 of one CPU
 * @csdev:	the CoreSight device.
 * @cpu:	its CPU.
 * @marker:	thread bound to @cpu whose PID the trace carries.
 * @timer:	hrtimer pinned to @cpu, writes trace while enabled.
 * @sink:	sink of the enabled path, NULL while disabled.
 * @trace_id:	trace ID of the enabled event, 0 while disabled.
 * @mode:	CS_MODE_PERF or CS_MODE_SYSFS while enabled.
 * @timestamps:	the event asked for timestamps.
 * @piece:	room for one piece of trace.
 * @stats_lock:	protects the statistics below.
 * @bytes:	trace bytes written, for the "sim" group.
 * @atoms:	taken branches written, for the "sim" group.
 * @last_id:	trace ID of the last session, for the "sim" group.
 * @last_sink:	sink of the last session, for the "sim" group.
 *
 * In perf mode @piece and the fields above it are only used on @cpu, by
 * the perf callbacks and the hrtimer, which do not run at the same time.
 * In sysfs mode they are set before the hrtimer starts on @cpu, and used
 * again after it is cancelled, under the core's coresight_mutex.
 */
struct sim_etm {
	struct coresight_device *csdev;
	int cpu;
	struct task_struct *marker;
	struct hrtimer timer;
	struct sim_sink_port *sink;
	int trace_id;
	u32 mode;
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

	p = cs_etm4_async(p);
	p = cs_etm4_trace_info(p);
	if (etm->timestamps)
		p = cs_etm4_timestamp(p, get_cycles());
	/* EL1: the kernel's code */
	p = cs_etm4_addr_ctxt(p, addr, 1, task_pid_nr(etm->marker));
	for (i = 0; i < n; i++) {
		if (i)
			p = cs_etm4_addr_long(p, addr);
		p = cs_etm4_atom(p, 1);
	}
	return p - etm->piece;
}

static void etm_emit(struct sim_etm *etm)
{
	unsigned int n = clamp(READ_ONCE(atoms), 1U, 64U);
	size_t len = etm_piece(etm, n);
	unsigned long flags;

	etm->sink->write(etm->sink, etm->trace_id, etm->piece, len);
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

/* Start tracing on etm->cpu: the first piece, then one every period */
static void etm_start(struct sim_etm *etm, struct sim_sink_port *sink,
		      int trace_id, u32 mode)
{
	unsigned long flags;

	etm->sink = sink;
	etm->mode = mode;
	WRITE_ONCE(etm->trace_id, trace_id);
	raw_spin_lock_irqsave(&etm->stats_lock, flags);
	etm->last_id = trace_id;
	etm->last_sink = sink->csdev;
	raw_spin_unlock_irqrestore(&etm->stats_lock, flags);

	etm_emit(etm);
	hrtimer_start(&etm->timer, etm_period(), HRTIMER_MODE_REL_PINNED_HARD);
}

static void etm_stop(struct sim_etm *etm)
{
	hrtimer_cancel(&etm->timer);
	etm_emit(etm);
	WRITE_ONCE(etm->trace_id, 0);
	etm->sink = NULL;
	etm->mode = CS_MODE_DISABLED;
}

/* Called by etm_event_start() on etm->cpu, after the path is enabled */
static int sim_etm_enable_perf(struct sim_etm *etm, struct perf_event *event)
{
	int trace_id = etm_perf_cpu_trace_id();
	struct sim_sink_port *sink = this_cpu_read(sim_active_sink);

	if (WARN_ON_ONCE(etm->cpu != smp_processor_id()))
		return -EINVAL;
	if (WARN_ON_ONCE(!coresight_trace_id_is_valid(trace_id)))
		return -EINVAL;
	if (WARN_ON_ONCE(!sink))
		return -EINVAL;

	etm->timestamps = event->attr.config & BIT(ETM_OPT_TS);
	etm_start(etm, sink, trace_id, CS_MODE_PERF);
	return 0;
}

struct etm_sysfs_arg {
	struct sim_etm *etm;
	struct sim_sink_port *sink;
	int trace_id;
};

static void etm_start_sysfs_on_cpu(void *data)
{
	struct etm_sysfs_arg *arg = data;

	etm_start(arg->etm, arg->sink, arg->trace_id, CS_MODE_SYSFS);
}

/*
 * Called by coresight_enable() under coresight_mutex, right after the
 * sink of the path was enabled: sim_sysfs_sink is that sink. The CPU's ID
 * comes from the allocator's sysfs helpers, as etm4x and etm3x take it:
 * refused, with a message, if a perf session gave it to another CPU on a
 * sink this source's trace reaches; given back if the enable then fails
 * and took it.
 */
static int sim_etm_enable_sysfs(struct sim_etm *etm)
{
	struct coresight_trace_id_map *map = coresight_trace_id_default_map();
	struct etm_sysfs_arg arg = { .etm = etm, .sink = sim_sysfs_sink };
	int ret;

	if (!arg.sink)
		return -EINVAL;
	arg.trace_id = coresight_trace_id_sysfs_enable(map, etm->csdev, etm->cpu);
	if (arg.trace_id < 0)
		return arg.trace_id;
	etm->timestamps = true;
	/* The hrtimer is pinned to the CPU that starts it */
	ret = smp_call_function_single(etm->cpu, etm_start_sysfs_on_cpu,
				       &arg, 1);
	if (ret)
		coresight_trace_id_sysfs_enable_failed(map, etm->cpu);
	return ret;
}

static int sim_etm_enable(struct coresight_device *csdev,
			  struct perf_event *event, u32 mode)
{
	struct sim_etm *etm = dev_get_drvdata(csdev->dev.parent);

	switch (mode) {
	case CS_MODE_PERF:
		return sim_etm_enable_perf(etm, event);
	case CS_MODE_SYSFS:
		return sim_etm_enable_sysfs(etm);
	default:
		return -EINVAL;
	}
}

static void sim_etm_disable(struct coresight_device *csdev,
			    struct perf_event *event)
{
	struct sim_etm *etm = dev_get_drvdata(csdev->dev.parent);
	u32 mode = etm->mode;

	if (!etm->sink)
		return;
	etm_stop(etm);
	/* The sink may still hold trace with the ID: kept until reset */
	if (mode == CS_MODE_SYSFS)
		coresight_trace_id_sysfs_disable(coresight_trace_id_default_map(),
						 etm->cpu);
}

static const struct coresight_ops_source sim_etm_source_ops = {
	.cpu_id		= sim_etm_cpu_id,
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

/*
 * mgmt/trctraceid as etm4x shows it: the CPU's ID in sysfs mode, allocated
 * if the CPU holds none
 */
static ssize_t trctraceid_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct sim_etm *etm = dev_get_drvdata(dev->parent);
	int id;

	id = coresight_trace_id_get_cpu_id(coresight_trace_id_default_map(),
					   etm->cpu);
	if (id < 0)
		return id;
	return sysfs_emit(buf, "0x%x\n", id);
}
static DEVICE_ATTR_RO(trctraceid);

static struct attribute *sim_etm_mgmt_attrs[] = {
	&sim_reg_trcauthstatus.attr.attr,
	&sim_reg_trcdevarch.attr.attr,
	&dev_attr_trctraceid.attr,
	NULL,
};

/*
 * Writing anything resets the source, as etm4x's "reset": the sysfs mode
 * ID goes back, at the disable if the source is enabled
 */
static ssize_t reset_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t size)
{
	struct sim_etm *etm = dev_get_drvdata(dev->parent);

	coresight_trace_id_sysfs_reset(coresight_trace_id_default_map(),
				       etm->cpu);
	return size;
}
static DEVICE_ATTR_WO(reset);

static struct attribute *sim_etm_attrs[] = {
	&dev_attr_reset.attr,
	NULL,
};

/* The ID the CPU holds in the default map, 0 for none: no allocation */
static ssize_t default_id_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct sim_etm *etm = dev_get_drvdata(dev->parent);

	return sysfs_emit(buf, "0x%x\n",
			  coresight_trace_id_read_cpu_id(coresight_trace_id_default_map(),
							 etm->cpu));
}
static DEVICE_ATTR_RO(default_id);

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
	&dev_attr_default_id.attr,
	NULL,
};

static const struct attribute_group sim_etm_group = {
	.attrs = sim_etm_attrs,
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
	&sim_etm_group,
	&sim_etm_trcidr_group,
	&sim_etm_mgmt_group,
	&sim_etm_sim_group,
	NULL,
};

/* ---- platform driver ---- */

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
	/* Given back when the source is disabled: it may be emitting the ID */
	coresight_trace_id_sysfs_reset(coresight_trace_id_default_map(),
				       etm->cpu);
	return 0;
}

static const struct of_device_id sim_etm_match[] = {
	{ .compatible = "csboard,sim-etm" },
	{}
};
MODULE_DEVICE_TABLE(of, sim_etm_match);

struct platform_driver sim_etm_driver = {
	.probe	= sim_etm_probe,
	.remove	= sim_etm_remove,
	.driver	= {
		.name = "csboard-sim-etm",
		.of_match_table = sim_etm_match,
		.suppress_bind_attrs = true,
	},
};

