// SPDX-License-Identifier: GPL-2.0
/*
 * csboard: the trace ID map of each sink, as the allocator holds it, in the
 * sink's "id_map" sysfs group, so that the board's tests can check that the
 * maps are empty again after the sessions that used them:
 *
 *   id_map/sessions  perf sessions using the map
 *   id_map/used      the IDs handed out, as a list of ranges ("16-17,20")
 *   id_map/held      the IDs that enabled sources of the default map whose
 *                    trace reaches the sink hold: no CPU of the sink gets
 *                    them
 *   id_map/cpu_ids   one line "CPU 0xID" for each CPU that holds an ID
 *
 * The allocator's lock is private to it, so these reads take no lock: the
 * tests read a map between the sessions, when nothing changes it.
 *
 * Test code of this repository, not part of the series.
 */

#include <linux/bitmap.h>
#include <linux/coresight.h>
#include <linux/device.h>
#include <linux/sysfs.h>

#include "coresight-trace-id.h"

#include "csboard.h"

static struct coresight_trace_id_map *dev_map(struct device *dev)
{
	return to_coresight_device(dev)->perf_sink_id_map;
}

static ssize_t sessions_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct coresight_trace_id_map *map = dev_map(dev);

	if (!map)
		return -ENODEV;
	return sysfs_emit(buf, "%u\n", READ_ONCE(map->sessions));
}
static DEVICE_ATTR_RO(sessions);

static ssize_t used_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct coresight_trace_id_map *map = dev_map(dev);

	if (!map)
		return -ENODEV;
	return sysfs_emit(buf, "%*pbl\n", CORESIGHT_TRACE_IDS_MAX, map->used);
}
static DEVICE_ATTR_RO(used);

static ssize_t held_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct coresight_trace_id_map *map = dev_map(dev);

	if (!map)
		return -ENODEV;
	return sysfs_emit(buf, "%*pbl\n", CORESIGHT_TRACE_IDS_MAX,
			  map->held_by_enabled);
}
static DEVICE_ATTR_RO(held);

static ssize_t cpu_ids_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct coresight_trace_id_map *map = dev_map(dev);
	ssize_t n = 0;
	int cpu, id;

	if (!map)
		return -ENODEV;
	for (cpu = 0; cpu < map->nr_cpus; cpu++) {
		id = coresight_trace_id_read_cpu_id(map, cpu);
		if (id)
			n += sysfs_emit_at(buf, n, "%d 0x%02x\n", cpu, id);
	}
	return n;
}
static DEVICE_ATTR_RO(cpu_ids);

static struct attribute *sim_map_attrs[] = {
	&dev_attr_sessions.attr,
	&dev_attr_used.attr,
	&dev_attr_held.attr,
	&dev_attr_cpu_ids.attr,
	NULL,
};

const struct attribute_group sim_sink_map_group = {
	.name = "id_map",
	.attrs = sim_map_attrs,
};
