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
 * - csboard-etm.c: "csboard,sim-etm", a per-CPU trace source, in perf
 *   and sysfs mode.
 * - csboard-stm.c: "csboard,sim-stm", a system source like an STM, in
 *   sysfs mode.
 * - csboard-sink-dev.c: "csboard,sim-sink", a sink like an ETF, and
 *   "csboard,sim-raw-sink", a per-CPU sink of unformatted trace like a
 *   TRBE: the module csboard-sink.ko, which uses this one.
 * - this file: registration of the devices and the module csboard.ko.
 * - ../cstrace/cs-trace-enc.h: ETMv4 packets and the frame formatter,
 *   shared with the generator tools/csgen.
 *
 * Each device has a "sim" sysfs group with what it produced, for the test
 * to compare with what perf decodes.
 */

#include <linux/coresight.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#include "coresight-priv.h"

#include "csboard.h"

DEFINE_PER_CPU(struct sim_sink_port *, sim_active_sink);
EXPORT_PER_CPU_SYMBOL_GPL(sim_active_sink);

struct sim_sink_port *sim_sysfs_sink;
EXPORT_SYMBOL_GPL(sim_sysfs_sink);

/* Register a device described by @desc, with the ports of its DT node */
struct coresight_device *sim_register(struct platform_device *pdev,
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
EXPORT_SYMBOL_GPL(sim_register);

static struct platform_driver * const sim_drivers[] = {
	&sim_etm_driver,
	&sim_stm_driver,
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

MODULE_DESCRIPTION("Simulated multi-sink CoreSight board for end-to-end tests: sources");
MODULE_LICENSE("GPL");
