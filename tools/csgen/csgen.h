/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csgen - write synthetic cs_etm perf.data files for decode tests.
 *
 * csgen.c: options and main; topology.c: the ELF, sinks and trace IDs;
 * trace.c: ETMv4 trace in frames, AUX buffer layout; perfdata.c: the
 * perf.data records and file. Packets and frames: ../cstrace/cs-trace-enc.h.
 */
#ifndef CSGEN_H
#define CSGEN_H

#include <stddef.h>

#include "cs-trace-enc.h"	/* u8, u32, u64 */

#define MAX_CPUS		512
#define MAX_SINKS		64
#define MAX_HOPS		256

/* Trace IDs 0x01-0x6f can be allocated: 111 per map */
#define TRACE_ID_MIN		0x01
#define TRACE_ID_MAX		0x6f

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

/* options (csgen.c) */
extern int nr_cpus, nr_sinks, header_version, per_thread;
extern int hwid_minor;		/* -1: no HW_ID records */
extern int atoms, ts_every, sample_cpu, chunk;
extern int pid_base, thread_pid, segments;
extern const char *end_mode, *bad, *elf_path, *out_path;
extern int barrier, legacy_meta, list_topology;
extern int flagged_meta, extra_event, unformatted;
extern int nr_traced;		/* -Z: CPUs from this one on got no trace ID */
extern int hop_cpu[MAX_HOPS], nr_hops;	/* -P: the CPUs of the per-thread parts */
extern int compress;		/* -z: ring buffer records compressed (perf record -z) */
extern int late_hwid;		/* -R: HW_ID records late in raw order */
extern int thread_idx;		/* -I: buffer index of the per-thread buffer */
extern int worker_exit;		/* -W: a worker exits after this many parts */
extern int thread_ts;		/* -Y: per-thread, the event traces timestamps */

/* topology.c */
extern u64 func_addr[MAX_CPUS];
extern u64 map_start, map_len, map_pgoff;
void read_elf(const char *path);
int traced(int cpu);
int sink_of(int cpu);
u32 sink_id(int sink);
void alloc_trace_ids(void);
int trace_id(int cpu);
int cpu_pid(int cpu);
int sink_peer(int cpu, int step);

/* trace.c */
void gen_per_cpu(void);
void gen_per_thread(void);
void gen_per_thread_hops(void);

/* perfdata.c */
extern u64 data_offset;		/* file offset of the data section */
void put_comm(int pid, int cpu, const char *comm);
void put_mmap(int pid, int cpu);
void put_itrace_start(int pid, int cpu);
void put_hw_id(int pid, int cpu);
void put_exit(int pid, int cpu);
u64 take_time(void);
void set_next_time(u64 t);
void put_aux(int pid, int cpu, u64 off, u64 size, int raw);
void put_auxtrace(struct buf *trace, u32 idx, int tid, int cpu, u64 ref);
void put_auxtrace_info(void);
void put_finished_round(void);
void write_file(void);

#endif /* CSGEN_H */
