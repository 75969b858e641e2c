// SPDX-License-Identifier: GPL-2.0
/*
 * csboard system source: "csboard,sim-stm", like an STM. It holds a system
 * trace ID from the default map from probe (or its first enable, if the
 * map was full at probe) to remove, and enables through the allocator's
 * system source helpers, as the STM driver does: refused while a perf
 * session gave its ID to a CPU on a sink its trace reaches. In sysfs mode
 * (enable_source) it writes trace with it every
 * @period_us. Its trace is ETMv4 packets whose CONTEXTID is the PID of its
 * marker thread "csboard/stm", so that a decoder that takes it for a CPU's
 * trace shows that thread on that CPU.
 *
 * Its output port feeds static funnels and replicators, which do not
 * choose: a static replicator sends the trace to all its outputs. So the
 * source writes into every simulated sink its graph reaches that is
 * enabled, in any mode - also a sink that a perf session uses while the
 * source is enabled in sysfs mode towards another sink.
 */

#include <linux/coresight.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/timex.h>

#include "coresight-priv.h"
#include "coresight-trace-id.h"

#include "cs-trace-enc.h"
#include "csboard.h"

/* The sinks a source can reach on the board */
#define SIM_STM_MAX_SINKS	8
#define SIM_STM_PIECE		64

/**
 * struct sim_stm - a simulated STM
 * @csdev:	the CoreSight device.
 * @trace_id:	system trace ID from the default map, until remove; 0 for
 *		none yet.
 * @marker:	thread whose PID the trace carries.
 * @timer:	hrtimer that writes trace while enabled.
 * @sinks:	simulated sinks the output port reaches, while enabled.
 * @nr_sinks:	number of @sinks.
 * @piece:	room for one piece of trace.
 * @stats_lock:	protects @bytes.
 * @bytes:	trace bytes written into any sink, for the "sim" group.
 *
 * The fields above @stats_lock are set under the core's coresight_mutex,
 * before the hrtimer starts and after it is cancelled.
 */
struct sim_stm {
	struct coresight_device *csdev;
	int trace_id;
	struct task_struct *marker;
	struct hrtimer timer;
	struct sim_sink_port *sinks[SIM_STM_MAX_SINKS];
	int nr_sinks;
	u8 piece[SIM_STM_PIECE];
	raw_spinlock_t stats_lock;	/* protects bytes */
	u64 bytes;
};

static unsigned int stm_period_us = 20000;
module_param(stm_period_us, uint, 0644);
MODULE_PARM_DESC(stm_period_us, "interval between two pieces of trace of a system source");

static void stm_emit(struct sim_stm *stm)
{
	u8 *p = stm->piece;
	unsigned long flags;
	size_t len;
	int i;

	p = cs_etm4_async(p);
	p = cs_etm4_trace_info(p);
	p = cs_etm4_addr_ctxt(p, (u64)(unsigned long)schedule, 1,
			      task_pid_nr(stm->marker));
	p = cs_etm4_atom(p, 1);
	len = p - stm->piece;

	for (i = 0; i < stm->nr_sinks; i++)
		stm->sinks[i]->write(stm->sinks[i], stm->trace_id, stm->piece,
				     len);
	raw_spin_lock_irqsave(&stm->stats_lock, flags);
	stm->bytes += len;
	raw_spin_unlock_irqrestore(&stm->stats_lock, flags);
}

static ktime_t stm_period(void)
{
	return ns_to_ktime((u64)max(READ_ONCE(stm_period_us), 100U) * NSEC_PER_USEC);
}

static enum hrtimer_restart stm_timer_fn(struct hrtimer *timer)
{
	struct sim_stm *stm = container_of(timer, struct sim_stm, timer);

	stm_emit(stm);
	hrtimer_forward_now(timer, stm_period());
	return HRTIMER_RESTART;
}

static bool sim_is_sink(struct coresight_device *csdev)
{
	struct device *parent = csdev->dev.parent;

	return csdev->type == CORESIGHT_DEV_TYPE_SINK && parent &&
	       (of_device_is_compatible(parent->of_node, "csboard,sim-sink") ||
		of_device_is_compatible(parent->of_node, "csboard,sim-raw-sink"));
}

/* The simulated sinks reachable from @csdev through links, depth first */
static void stm_find_sinks(struct sim_stm *stm, struct coresight_device *csdev,
			   int depth)
{
	struct coresight_device *child;
	int i, j;

	if (depth > 8)
		return;
	for (i = 0; i < csdev->pdata->nr_outport; i++) {
		child = csdev->pdata->conns[i].child_dev;
		if (!child)
			continue;
		if (child->type == CORESIGHT_DEV_TYPE_LINK) {
			stm_find_sinks(stm, child, depth + 1);
			continue;
		}
		if (!sim_is_sink(child))
			continue;
		for (j = 0; j < stm->nr_sinks; j++)
			if (stm->sinks[j]->csdev == child)
				break;
		if (j == stm->nr_sinks && stm->nr_sinks < SIM_STM_MAX_SINKS)
			stm->sinks[stm->nr_sinks++] = dev_get_drvdata(child->dev.parent);
	}
}

/* sysfs mode only, called by coresight_enable() under coresight_mutex */
static int sim_stm_enable(struct coresight_device *csdev,
			  struct perf_event *event, u32 mode)
{
	struct sim_stm *stm = dev_get_drvdata(csdev->dev.parent);

	int ret;

	if (mode != CS_MODE_SYSFS)
		return -EINVAL;
	stm->nr_sinks = 0;
	stm_find_sinks(stm, csdev, 0);
	if (!stm->nr_sinks)
		return -EINVAL;
	ret = coresight_trace_id_system_enable(coresight_trace_id_default_map(),
					       csdev, &stm->trace_id);
	if (ret) {
		stm->nr_sinks = 0;
		return ret;
	}
	stm_emit(stm);
	hrtimer_start(&stm->timer, stm_period(), HRTIMER_MODE_REL_HARD);
	return 0;
}

static void sim_stm_disable(struct coresight_device *csdev,
			    struct perf_event *event)
{
	struct sim_stm *stm = dev_get_drvdata(csdev->dev.parent);

	if (!stm->nr_sinks)
		return;
	hrtimer_cancel(&stm->timer);
	stm_emit(stm);
	stm->nr_sinks = 0;
	coresight_trace_id_system_disable(coresight_trace_id_default_map(),
					  stm->trace_id);
}

static const struct coresight_ops_source sim_stm_source_ops = {
	.enable		= sim_stm_enable,
	.disable	= sim_stm_disable,
};

static const struct coresight_ops sim_stm_cs_ops = {
	.source_ops = &sim_stm_source_ops,
};

/* ---- sysfs ---- */

static ssize_t traceid_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct sim_stm *stm = dev_get_drvdata(dev->parent);

	return sysfs_emit(buf, "%#x\n", stm->trace_id);
}
static DEVICE_ATTR_RO(traceid);

/* "stm TRACE_ID BYTES MARKER_PID" */
static ssize_t stats_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct sim_stm *stm = dev_get_drvdata(dev->parent);
	unsigned long flags;
	ssize_t n;

	raw_spin_lock_irqsave(&stm->stats_lock, flags);
	n = sysfs_emit(buf, "stm %#x %llu %d\n", stm->trace_id, stm->bytes,
		       task_pid_nr(stm->marker));
	raw_spin_unlock_irqrestore(&stm->stats_lock, flags);
	return n;
}

static ssize_t stats_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t size)
{
	struct sim_stm *stm = dev_get_drvdata(dev->parent);
	unsigned long flags;

	raw_spin_lock_irqsave(&stm->stats_lock, flags);
	stm->bytes = 0;
	raw_spin_unlock_irqrestore(&stm->stats_lock, flags);
	return size;
}
static DEVICE_ATTR_RW(stats);

static struct attribute *sim_stm_attrs[] = {
	&dev_attr_traceid.attr,
	NULL,
};

static struct attribute *sim_stm_sim_attrs[] = {
	&dev_attr_stats.attr,
	NULL,
};

static const struct attribute_group sim_stm_group = {
	.attrs = sim_stm_attrs,
};

static const struct attribute_group sim_stm_sim_group = {
	.name = "sim",
	.attrs = sim_stm_sim_attrs,
};

static const struct attribute_group *sim_stm_groups[] = {
	&sim_stm_group,
	&sim_stm_sim_group,
	NULL,
};

/* ---- platform driver ---- */

static int sim_stm_marker_fn(void *data)
{
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static void sim_stm_stop_marker(void *data)
{
	kthread_stop(data);
}

static void sim_stm_put_id(void *data)
{
	struct sim_stm *stm = data;

	if (stm->trace_id)
		coresight_trace_id_put_system_id(coresight_trace_id_default_map(),
						 stm->trace_id);
}

DEFINE_CORESIGHT_DEVLIST(stm_devs, "simstm");

static int sim_stm_probe(struct platform_device *pdev)
{
	struct coresight_desc desc = { 0 };
	struct device *dev = &pdev->dev;
	struct sim_stm *stm;
	int ret;

	stm = devm_kzalloc(dev, sizeof(*stm), GFP_KERNEL);
	if (!stm)
		return -ENOMEM;
	raw_spin_lock_init(&stm->stats_lock);
	hrtimer_init(&stm->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	stm->timer.function = stm_timer_fn;

	stm->marker = kthread_run(sim_stm_marker_fn, stm, "csboard/stm");
	if (IS_ERR(stm->marker))
		return PTR_ERR(stm->marker);
	ret = devm_add_action_or_reset(dev, sim_stm_stop_marker, stm->marker);
	if (ret)
		return ret;

	/*
	 * A system source: its ID from the default map, as the STM driver;
	 * if sysfs mode holds them all, it takes one when enabled
	 */
	ret = coresight_trace_id_get_system_id(coresight_trace_id_default_map());
	if (ret < 0)
		dev_info(dev, "no free trace ID now, one is taken at enable\n");
	stm->trace_id = max(ret, 0);
	ret = devm_add_action_or_reset(dev, sim_stm_put_id, stm);
	if (ret)
		return ret;

	desc.name = coresight_alloc_device_name(&stm_devs, dev);
	if (!desc.name)
		return -ENOMEM;
	desc.type = CORESIGHT_DEV_TYPE_SOURCE;
	desc.subtype.source_subtype = CORESIGHT_DEV_SUBTYPE_SOURCE_SOFTWARE;
	desc.ops = &sim_stm_cs_ops;
	desc.groups = sim_stm_groups;
	stm->csdev = sim_register(pdev, &desc, stm);
	return PTR_ERR_OR_ZERO(stm->csdev);
}

static int sim_stm_remove(struct platform_device *pdev)
{
	struct sim_stm *stm = platform_get_drvdata(pdev);

	coresight_unregister(stm->csdev);
	return 0;
}

static const struct of_device_id sim_stm_match[] = {
	{ .compatible = "csboard,sim-stm" },
	{}
};
MODULE_DEVICE_TABLE(of, sim_stm_match);

struct platform_driver sim_stm_driver = {
	.probe	= sim_stm_probe,
	.remove	= sim_stm_remove,
	.driver	= {
		.name = "csboard-sim-stm",
		.of_match_table = sim_stm_match,
		.suppress_bind_attrs = true,
	},
};
