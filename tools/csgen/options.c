// SPDX-License-Identifier: GPL-2.0
/*
 * csgen options: their values (defaults here), usage and parsing. Every
 * other unit reads them; this one depends only on the buffer primitives.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csgen.h"

int nr_cpus = 4, nr_sinks = 1, header_version = 2, per_thread;
int hwid_minor = 1;		/* -1: no HW_ID records */
int atoms = 200, ts_every = 16, sync_every, sample_cpu = 1, chunk = 24;
int pid_base = 1000, thread_pid = 4242, segments;
const char *end_mode = "frame", *bad = "", *elf_path, *out_path;
int barrier, legacy_meta, list_topology;
int flagged_meta, extra_event, unformatted;
int nr_traced = -1;	/* -Z: CPUs from this one on got no trace ID */
int hop_cpu[MAX_HOPS], nr_hops;	/* -P: the CPUs of the per-thread parts */

/* -P LIST: comma-separated CPUs, each in range */
static void parse_hops(const char *list)
{
	const char *p = list;
	char *end;

	while (*p) {
		long c = strtol(p, &end, 10);

		if (end == p || (*end && (*end != ',' || !end[1])) || nr_hops == MAX_HOPS)
			die("-P %s: expected up to %d CPUs separated by commas", list, MAX_HOPS);
		hop_cpu[nr_hops++] = (int)c;
		p = *end ? end + 1 : end;
	}
}
const char *snap_dir;		/* -S: trace from an OpenCSD snapshot */
u64 slice_from, slice_bytes;	/* -A, -N: the part of its capture */
const char *cuts;		/* -C: where the capture is cut into buffers */
const char *oracle_dir;		/* -D: a snapshot directory per buffer */
int late_hwid;		/* -R: HW_ID records late in raw order */
int compress;		/* -z: ring buffer records compressed (perf record -z) */
int thread_idx;		/* -I: buffer index of the per-thread buffer */
int worker_exit = -1;	/* -W: a worker exits after this many parts */
int nr_children;	/* -Q: per-thread, child threads whose trace is in the buffer */
int thread_ts;		/* -Y: per-thread, the event traces timestamps */
int workload;		/* -w: per-CPU events of a workload, not system-wide */
const char *cpu1_file;	/* -K: CPU 1's buffer holds the bytes of this file */
const char *overwrite;	/* -O: snapshot mode (perf record -S), this layout */
int nr_snaps = 3;	/* -j: snapshots of -O */
int no_index;		/* -x: no AUXTRACE index */

static void usage(void)
{
	fprintf(stderr,
		"usage: csgen -o FILE -e ELF [options]\n"
		"  -c N        CPUs (default 4)\n"
		"  -s S        sinks (default 1); CPU c is on sink c*S/N\n"
		"  -H none|0.0|0.1   HW_ID records (default 0.1)\n"
		"  -V 1|2      cs_etm metadata header version (default 2)\n"
		"  -t          per-thread layout (default per-CPU)\n"
		"  -g K        per-thread: number of segments (default 2*N)\n"
		"  -P C,C,...  per-thread: the thread runs on these CPUs in turn, one\n"
		"              part each, the first being the CPU it was exec'd on; a\n"
		"              CPU's HW_ID record comes before its first part, as the\n"
		"              kernel writes it, and the thread exits before the trace\n"
		"  -W K        with -P: a worker thread exits after the first K parts\n"
		"              (0: before the first part and any HW_ID record)\n"
		"  -Q N        per-thread inherit session: the thread starts N child\n"
		"              threads, which run one part each (-a atoms) on CPU\n"
		"              k %% N in turn, in the thread's buffer, each with an AUX\n"
		"              record of its own tid, and exit; the thread runs none\n"
		"  -a A        E atoms per CPU (per-CPU) or per segment (default 200)\n"
		"  -T K        timestamp every K atoms (default 16, 0: none)\n"
		"  -y K        sync again (A-sync, trace info, timestamp, address)\n"
		"              every K atoms, as ETMs do every so many bytes (default 0:\n"
		"              only where the trace of a part starts)\n"
		"  -n          records carry no CPU (no PERF_SAMPLE_CPU)\n"
		"  -Y          per-thread: the event has the timestamp option (timed decoding)\n"
		"  -w          per-CPU: the events of a workload (perf record -- cmd): the\n"
		"              AUXTRACE records carry the first pid (default: -1, as -a)\n"
		"  -K FILE     per-CPU: CPU 1's buffer holds the bytes of FILE (formatted\n"
		"              trace of real hardware, whole frames) instead of csgen's\n"
		"  -E frame|pad|async   how buffers end (default frame)\n"
		"  -b          start each buffer with a barrier of 4 FSYNCs\n"
		"  -k CHUNK    interleave chunk size in bytes (default 24)\n"
		"  -B KIND     malformed input: major idrange idzero dup chid chsink\n"
		"              trunc over staticdup nohwid mixminor hwidres\n"
		"              magic cpurange nrparams (apply to CPU 1), minor2\n"
		"              numcpu0 numcpubig numcpuhuge (2^20) auxbig bigidx\n"
		"              strayid oddsize\n"
		"              mixfmt (not malformed: CPU 1 writes unformatted trace,\n"
		"              the others formatted, as TRBE and ETR CPUs of a session)\n"
		"              nometa (no metadata for the last CPU; its HW_ID\n"
		"              record and trace stay)\n"
		"              barrier8 (CPU 1's buffer: a barrier at byte 8, and\n"
		"              strayid), midframe (CPU 1's buffer starts 8 bytes\n"
		"              into its frames), gap8 (per-thread: 8 bytes that no\n"
		"              AUX record covers before each part), cfgdiff (CPU 1's\n"
		"              TRCIDR8 differs, as on big.LITTLE), bigidx15 (CPU 1's\n"
		"              buffer index 0x8000), auxwrap (CPU 1's AUX record at\n"
		"              offset 2^64 - 8; per-thread: that of the second part),\n"
		"              shortaux (CPU 1's AUX record without its sample ID),\n"
		"              idxoff (the second AUXTRACE index entry 1 TiB on),\n"
		"              nocputhread (per-thread: another thread, buffer index\n"
		"              0, whose AUX records name CPU -1), cpu2047 cpu2048\n"
		"              (CPU 1's AUXTRACE and AUX records name that CPU),\n"
		"              hwcpu2047 hwcpu2048 (CPU 1's HW_ID record names that\n"
		"              CPU), cpurange2047 (CPU 1's metadata names CPU 2047;\n"
		"              cpurange: 2048)\n"
		"              bounds at their edges: nrparams1 (the last CPU's\n"
		"              metadata claims one parameter more than its block\n"
		"              holds), meta3 (the last CPU's block has no\n"
		"              parameters: 3 words; use with -Z N-1), metashort (the\n"
		"              last CPU's block ends after its CPU: 2 words),\n"
		"              numcpufit numcpufit1 (the header claims as many CPUs\n"
		"              as blocks of 3 words fit in the metadata, or one more),\n"
		"              hdronly hdrshort (no metadata: the record ends after\n"
		"              the header's 3 words, or 1 byte before), hdrv3 (header\n"
		"              version 3, version 2's layout), trunc1 over1 (CPU 1's\n"
		"              HW_ID record's size 1 byte short or long), auxsize63\n"
		"              (CPU 0's AUX record's size 1 byte short of its sample\n"
		"              ID), auxend auxend1 (per-CPU: no FINISHED_ROUND: the\n"
		"              last CPU's AUXTRACE record ends the data; auxend1: it\n"
		"              claims 1 byte more than is left), auxhdr47 (per-CPU:\n"
		"              the last CPU's AUXTRACE record's size 47, 1 byte short\n"
		"              of its header), minor2only (every HW_ID record of minor\n"
		"              version 2, bit 40 set; minor2 writes version 3),\n"
		"              auxsize31 (before CPU 0's AUX record an empty one of\n"
		"              31 bytes, 1 short of one without sample ID; the records\n"
		"              after it at odd offsets: for a pipe, perf inject -o -),\n"
		"              hwidres0 hwidbit7 (with -H 0.0: CPU 1's\n"
		"              HW_ID record with bit 8 set, the lowest that minor\n"
		"              version 0 leaves zero, or bit 7, of the trace ID)\n"
		"  -p PID      first pid (default 1000, CPU c runs pid PID+c)\n"
		"  -M          header v1: stock static IDs 0x10+2*cpu in the metadata\n"
		"              instead of the real ones (as stock perf record writes);\n"
		"              with -H none the trace IDs are those of a stock 6.1\n"
		"              kernel: bits 6:0 of 0x10 + 2 * cpu\n"
		"  -F          header v2: legacy IDs flagged with bit 31 (perf 6.3-6.10);\n"
		"              with -H none the trace IDs are those of a stock 6.1\n"
		"              kernel: bits 6:0 of 0x10 + 2 * cpu\n"
		"  -X          a dummy event of another sample_type before cs_etm's\n"
		"  -U          unformatted trace (per-CPU sinks without formatter)\n"
		"  -Z N        per-CPU: CPUs from N on got no trace ID: no HW_ID, no trace\n"
		"  -R          per-CPU: the HW_ID record of a CPU comes right before its\n"
		"              own buffer in the file (after buffers that hold its trace)\n"
		"              but keeps its early timestamp\n"
		"  -I IDX      per-thread: buffer index of the AUXTRACE record (default 0)\n"
		"  -x          no AUXTRACE index (feature section): perf queues the\n"
		"              buffers as it meets them\n"
		"  -z          as perf record -z: the records other than AUXTRACE,\n"
		"              AUXTRACE_INFO and FINISHED_ROUND in PERF_RECORD_COMPRESSED\n"
		"              records (zstd, sizes not padded), a COMPRESSED feature;\n"
		"              -L lists the offsets before compression\n"
		"  -L          print 'cpu C sink SINKID id TRACEID pid PID' per CPU and\n"
		"              'hwid cpu C offset OFFSET value VALUE' per HW_ID record,\n"
		"              'auxtrace cpu C offset OFFSET size SIZE' per AUXTRACE record,\n"
		"              'aux cpu C offset OFFSET size SIZE' per AUX record,\n"
		"              'stray cpu C id ID bytes N' for the trace of an ID no CPU has\n"
		"  -S DIR      trace captured on hardware: the OpenCSD snapshot DIR (its\n"
		"              cores are the CPUs; -e names the ELF of its memory dumps to\n"
		"              write). -s 1 keeps the capture and its IDs, -s S re-formats\n"
		"              the sources' streams onto S sinks with the lowest IDs of\n"
		"              each, -U writes them raw, -t one part each; -T 0 clears\n"
		"              the timestamp option. The writer's thread 4242 runs\n"
		"              the code on every CPU\n"
		"  -A FROM     -S: the capture from the first frame with an A-sync from\n"
		"              byte FROM on\n"
		"  -N BYTES    -S: at most BYTES of it (whole frames)\n"
		"  -C CUTS     -S, one sink: cut the capture into buffers at these offsets\n"
		"              (down to a frame), A:B dropping the frames from A to B\n"
		"  -D DIR      -S: write each buffer as snapshot directory DIR/auxN and the\n"
		"              capture as DIR/capture, for trc_pkt_lister\n"
		"  -O KIND     snapshot mode (perf record -S): AUX records flagged OVERWRITE\n"
		"              whose offset is the head, one AUXTRACE buffer per snapshot.\n"
		"              plain: each buffer holds what was written since the last\n"
		"              snapshot; cut: from the second snapshot on the buffer begins\n"
		"              inside a record, inside a packet, and the record's next part\n"
		"              starts with an A-sync; overlap: each buffer holds the whole\n"
		"              AUX area (perf before 6.1), overlapping the previous ones.\n"
		"              -a atoms a part; -L lists 'snap', 'record' and\n"
		"              'expect cpu C branches N asyncs M' lines\n"
		"  -j K        -O: K snapshots (default 3, at most 16)\n");
	exit(2);
}

void parse_options(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "o:e:c:s:H:V:tg:a:T:y:nE:bk:B:p:MLFXUZ:P:RI:W:zYwK:S:A:N:C:D:O:j:Q:x")) != -1) {
		switch (opt) {
		case 'o': out_path = optarg; break;
		case 'e': elf_path = optarg; break;
		case 'c': nr_cpus = atoi(optarg); break;
		case 's': nr_sinks = atoi(optarg); break;
		case 'H':
			if (!strcmp(optarg, "none"))
				hwid_minor = -1;
			else if (!strcmp(optarg, "0.0"))
				hwid_minor = 0;
			else if (!strcmp(optarg, "0.1"))
				hwid_minor = 1;
			else
				usage();
			break;
		case 'V': header_version = atoi(optarg); break;
		case 't': per_thread = 1; break;
		case 'g': segments = atoi(optarg); break;
		case 'a': atoms = atoi(optarg); break;
		case 'T': ts_every = atoi(optarg); break;
		case 'y': sync_every = atoi(optarg); break;
		case 'n': sample_cpu = 0; break;
		case 'E': end_mode = optarg; break;
		case 'b': barrier = 1; break;
		case 'k': chunk = atoi(optarg); break;
		case 'B': bad = optarg; break;
		case 'p': pid_base = atoi(optarg); break;
		case 'M': legacy_meta = 1; break;
		case 'L': list_topology = 1; break;
		case 'F': flagged_meta = 1; break;
		case 'X': extra_event = 1; break;
		case 'U': unformatted = 1; break;
		case 'Z': nr_traced = atoi(optarg); break;
		case 'P': parse_hops(optarg); break;
		case 'R': late_hwid = 1; break;
		case 'I': thread_idx = atoi(optarg); break;
		case 'W': worker_exit = atoi(optarg); break;
		case 'z': compress = 1; break;
		case 'Y': thread_ts = 1; break;
		case 'w': workload = 1; break;
		case 'K': cpu1_file = optarg; break;
		case 'S': snap_dir = optarg; break;
		case 'A': slice_from = strtoull(optarg, NULL, 0); break;
		case 'N': slice_bytes = strtoull(optarg, NULL, 0); break;
		case 'C': cuts = optarg; break;
		case 'D': oracle_dir = optarg; break;
		case 'O': overwrite = optarg; break;
		case 'j': nr_snaps = atoi(optarg); break;
		case 'Q': nr_children = atoi(optarg); break;
		case 'x': no_index = 1; break;
		default: usage();
		}
	}
	if (!out_path || !elf_path || nr_cpus < 1 || nr_cpus > MAX_CPUS ||
	    nr_sinks < 1 || nr_sinks > MAX_SINKS || nr_sinks > nr_cpus || chunk < 1)
		usage();
	if (header_version < 1 || header_version > 2)
		die("header version must be 1 or 2");
	if (hwid_minor < 0 && header_version >= 2)
		fprintf(stderr, "csgen: warning: header v2 without HW_ID records\n");
	if (!segments)
		segments = 2 * nr_cpus;
	if (overwrite && (unformatted || nr_hops || snap_dir || *bad || atoms < 1 ||
			  nr_snaps < 1 || nr_snaps > OW_MAX_SNAPS))
		die("-O: formatted trace of csgen, not -U, -P, -S or -B, -a >= 1, 1-%d snapshots (-j)",
		    OW_MAX_SNAPS);
	if (worker_exit >= 0 && !nr_hops)
		die("-W needs a hop list (-P)");
	if (nr_children && (!per_thread || nr_hops || nr_children < 0 || *bad))
		die("-Q needs the per-thread layout (-t), without -P or -B");
	if (nr_hops) {
		int i;

		if (!per_thread)
			die("-P needs the per-thread layout (-t)");
		for (i = 0; i < nr_hops; i++)
			if (hop_cpu[i] < 0 || hop_cpu[i] >= nr_cpus)
				die("-P: CPU %d out of range 0-%d", hop_cpu[i], nr_cpus - 1);
	}
}
