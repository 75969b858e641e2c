/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csboard: what the parts of the module share. csboard-main.c registers
 * the drivers of csboard-etm.c (sources) and csboard-sink.c (sinks).
 */
#ifndef CSBOARD_H
#define CSBOARD_H

#include <linux/coresight.h>
#include <linux/percpu.h>
#include <linux/platform_device.h>
#include <linux/types.h>

struct sim_sink;

/* The sink each CPU's source writes to, set when a path is enabled */
DECLARE_PER_CPU(struct sim_sink *, active_sink);

void sim_sink_write(struct sim_sink *sink, int id, const u8 *data, size_t len);
struct coresight_device *sim_sink_csdev(struct sim_sink *sink);

struct coresight_device *sim_register(struct platform_device *pdev,
				      struct coresight_desc *desc,
				      void *drvdata);

extern struct platform_driver sim_etm_driver;

/* csboard-maps.c: the "id_map" group of a sink */
extern const struct attribute_group sim_sink_map_group;
extern struct platform_driver sim_sink_driver;

#endif /* CSBOARD_H */
