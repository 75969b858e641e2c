/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csboard: what the parts of the board share. csboard.ko holds the sources
 * (csboard-main.c, csboard-etm.c, csboard-stm.c); csboard-sink.ko holds
 * the sinks (csboard-sink-dev.c), so that the sinks' module can be unloaded
 * on its own. The sinks' module uses the symbols of csboard.ko, never the
 * other way round: a source only reaches a sink through its port.
 */
#ifndef CSBOARD_H
#define CSBOARD_H

#include <linux/coresight.h>
#include <linux/percpu.h>
#include <linux/platform_device.h>
#include <linux/types.h>

/**
 * struct sim_sink_port - what a source sees of a simulated sink
 * @csdev:	the sink's CoreSight device.
 * @write:	takes @len bytes of trace of the source with trace ID @id;
 *		dropped while the sink is not enabled. Callable in any
 *		context.
 *
 * The driver data of every simulated sink device starts with its port.
 */
struct sim_sink_port {
	struct coresight_device *csdev;
	void (*write)(struct sim_sink_port *port, int id, const u8 *data,
		      size_t len);
};

/* perf: the sink each CPU's source writes to, set when a path is enabled */
DECLARE_PER_CPU(struct sim_sink_port *, sim_active_sink);

/*
 * sysfs: the sink that coresight_enable() just enabled for the source it
 * enables next. Both run under the core's coresight_mutex.
 */
extern struct sim_sink_port *sim_sysfs_sink;

struct coresight_device *sim_register(struct platform_device *pdev,
				      struct coresight_desc *desc,
				      void *drvdata);

extern struct platform_driver sim_etm_driver;
extern struct platform_driver sim_stm_driver;

/* csboard-maps.c: the "id_map" group of a sink */
extern const struct attribute_group sim_sink_map_group;

#endif /* CSBOARD_H */
