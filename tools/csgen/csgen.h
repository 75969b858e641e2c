/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csgen - write synthetic cs_etm perf.data files for decode tests.
 *
 * csgen.c: main; options.c: the options; topology.c: the ELF, sinks and
 * trace IDs; trace.c: ETMv4 trace in frames, AUX buffer layout;
 * perfdata.c: the perf.data records and file; buf.c: the byte buffers and
 * record framing all of them write with; overwrite.c: snapshot mode (-O,
 * perf record -S). Units depend one way: csgen.c on overwrite.c, both on
 * trace.c, trace.c on perfdata.c, perfdata.c on topology.c, all of them on
 * options.c and buf.c. Packets and frames: ../cstrace/cs-trace-enc.h.
 */
#ifndef CSGEN_H
#define CSGEN_H

#include "buf.h"

#define MAX_CPUS		512
#define MAX_SINKS		64
#define MAX_HOPS		256

/* Trace IDs 0x01-0x6f can be allocated: 111 per map */
#define TRACE_ID_MIN		0x01
#define TRACE_ID_MAX		0x6f

/* options.c */
void parse_options(int argc, char **argv);
extern int nr_cpus, nr_sinks, header_version, per_thread;
extern int hwid_minor;		/* -1: no HW_ID records */
extern int atoms, ts_every, sync_every, sample_cpu, chunk;
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
extern int nr_children;		/* -Q: per-thread, child threads whose trace is in the buffer */
extern int thread_ts;		/* -Y: per-thread, the event traces timestamps */
extern int workload;		/* -w: per-CPU events of a workload, not system-wide */
extern const char *cpu1_file;	/* -K: CPU 1's buffer holds the bytes of this file */
extern const char *overwrite;	/* -O: snapshot mode (perf record -S), this layout */
extern int nr_snaps;		/* -j: snapshots of -O */
extern int no_index;		/* -x: no AUXTRACE index */
#define OW_MAX_SNAPS		16

extern const char *snap_dir;	/* -S: trace from an OpenCSD snapshot */
extern u64 slice_from, slice_bytes;	/* -A, -N: the part of its capture */
extern const char *cuts;	/* -C: where the capture is cut into buffers */
extern const char *oracle_dir;	/* -D: a snapshot directory per buffer */

/* snapshot.c */
#define SNAP_MAX_CPUS		64
#define SNAP_MAX_DUMPS		16
#define SNAP_ETMV3		1	/* ETMv3 and PTM: perf's ETMv3 metadata */
#define SNAP_ETMV4		2

struct snap_dump {
	char name[64];		/* ELF section: [dump.text] .text; [dump] .text */
	char path[4096];
	u64 addr, len;
};

struct snap_cpu {
	int present;
	char core_type[64], source_type[64];	/* Cortex-A7, ETM3.5 ... */
	int proto;		/* SNAP_ETMV3, SNAP_ETMV4 */
	int id;			/* the trace ID its source writes */
	u64 regs[7];		/* metadata registers, in perf's order */
	int nr_regs;
};

/* The bytes of one trace ID and the offset of the frame of each */
struct snap_stream {
	struct buf data;
	size_t *frame;
	size_t cap_frames;
};

extern struct snapshot {
	int nr_cpus;
	struct snap_cpu cpu[SNAP_MAX_CPUS];
	struct snap_dump dump[SNAP_MAX_DUMPS];
	int nr_dumps;
	struct buf capture;	/* the captured buffer, or the slice of it */
	size_t slice_start;	/* offset of the slice in the capture */
	struct snap_stream stream[128];
	int is64, kernel;	/* the ELF: 64-bit; kernel code */
} snap;
void snap_read(const char *dir);
void snap_slice(u64 from, u64 bytes);
size_t snap_sync_frame(size_t from);
void snap_list_syncs(void);
void snap_write_dir(const char *dir, const struct buf *trace, const int *cpus,
		    const int *ids, int n, int raw);

/* snapelf.c */
void snap_write_elf(const char *path);

/* topology.c */
extern u64 func_addr[MAX_CPUS];
extern u64 map_start, map_len, map_pgoff;
void read_elf(const char *path);
int traced(int cpu);
int raw_cpu(int cpu);
int sink_of(int cpu);
u32 sink_id(int sink);
void alloc_trace_ids(void);
int trace_id(int cpu);
int cpu_pid(int cpu);
int sink_peer(int cpu, int step);

/* trace.c */
struct fmt {
	struct cs_fmt cs;	/* first: emit() gets it */
	struct buf *out;
};

struct stream {
	int id;
	struct buf data;
	size_t used;
};

void fmt_init(struct fmt *f, struct buf *out);
void fmt_finish(struct fmt *f);
void fmt_interleave(struct fmt *f, struct stream *s, int n);
void raw_data(struct buf *out, const struct buf *d, u8 pad);
void gen_per_cpu(void);
void gen_per_thread(void);
void gen_per_thread_hops(void);
void gen_per_thread_children(void);

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
void put_auxtrace(struct buf *trace, u64 aux_off, u32 idx, int tid, int cpu, u64 ref);
void put_kernel_mmap(void);
void put_mmap2(int pid, int cpu);
void put_auxtrace_info(void);
void put_finished_round(void);
void write_file(void);

/* overwrite.c */
void gen_overwrite(void);

/* snaptrace.c */
void snap_gen(void);

#endif /* CSGEN_H */
