// SPDX-License-Identifier: GPL-2.0
/*
 * hop: the workload of the board's per-thread session (tests/board/
 * perthread.sh). One thread, no child: it binds itself to each CPU of its
 * command line in turn with sched_setaffinity(), and on each it runs for a
 * while, sleeps once (so that it is scheduled out and in again on that
 * CPU: a per-thread event starts there twice) and runs again.
 *
 * Usage: hop MS CPU...   MS milliseconds of running on each CPU
 *
 * Prints "hop: CPU N" for every CPU it ran on. Exits 1 if it cannot bind
 * to a CPU or finds itself on another one, 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Run on this CPU for @ns nanoseconds */
static void spin(long long ns)
{
	long long end = now_ns() + ns;

	while (now_ns() < end)
		;
}

/* A decimal number from @s, or -1 */
static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		return -1;
	return v;
}

int main(int argc, char **argv)
{
	const struct timespec nap = { .tv_nsec = 2 * 1000 * 1000 };
	cpu_set_t set;
	long ms, cpu;
	int i;

	ms = argc < 3 ? -1 : number(argv[1]);
	if (ms < 0) {
		fprintf(stderr, "usage: hop MS CPU...\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		cpu = number(argv[i]);
		if (cpu < 0 || cpu >= CPU_SETSIZE) {
			fprintf(stderr, "hop: bad CPU '%s'\n", argv[i]);
			return 2;
		}
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "hop: cannot bind to CPU %ld: %s\n",
				cpu, strerror(errno));
			return 1;
		}
		spin(ms * 500000LL);
		nanosleep(&nap, NULL);
		spin(ms * 500000LL);
		if (sched_getcpu() != cpu) {
			fprintf(stderr, "hop: on CPU %d, not on CPU %ld\n",
				sched_getcpu(), cpu);
			return 1;
		}
		printf("hop: CPU %ld\n", cpu);
	}
	return 0;
}
