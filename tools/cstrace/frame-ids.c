// SPDX-License-Identifier: GPL-2.0
/*
 * frame-ids - the trace IDs that OpenCSD's frame deformatter finds in a
 * buffer of formatted trace, configured as perf configures it
 * (tools/perf/util/cs-etm-decoder: memory-aligned frames, reset on four
 * FSYNCs).
 *
 *   frame-ids FILE [OFFSET SIZE]
 *
 * Feeds SIZE bytes of FILE from OFFSET (default: the whole file) to the
 * deformatter in one block, as perf does (after a frame it rejects: a reset,
 * then on at the next frame), and prints each ID whose data it
 * unpacks with the number of its bytes, one "ID BYTES" line per ID
 * ("0x10 123"), sorted by ID. The reserved IDs 0x00 (padding) and
 * 0x70-0x7f never reach a decoder and are not printed.
 *
 * The deformatter's unpacked raw output lists each frame's data per ID as
 * "ID_DATA[0x10]; 20 21 ..." lines; that is what is parsed here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opencsd/c_api/opencsd_c_api.h>

static unsigned long bytes[128];

static void print_cb(const void *ctx, const char *str, const int len)
{
	const char *p = str, *end = str + len;

	(void)ctx;
	/* "Frame Data; Index      0;   ID_DATA[0x10]; 20 20 ... \n" */
	while (p < end && (p = strstr(p, "ID_DATA[")) != NULL) {
		char *q;
		unsigned long id = strtoul(p + 8, &q, 16);
		unsigned long n = 0;

		/* "????": data before any ID, which no decoder gets */
		if (q == p + 8 || *q != ']') {
			p += 8;
			continue;
		}
		p = q + 2;
		/* the data bytes: two hex digits each, up to the end of line */
		while (p + 2 < end && *p != '\n') {
			if (p[0] == ' ' && p[1] != ' ' && p[1] != '\n')
				n++;
			p++;
		}
		if (id < 128)
			bytes[id] += n;
	}
}

int main(int argc, char **argv)
{
	dcd_tree_handle_t tree;
	unsigned long off = 0, size;
	uint32_t consumed = 0;
	ocsd_datapath_resp_t resp;
	unsigned long done;
	unsigned char *buf;
	long len;
	FILE *f;
	int id;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: frame-ids FILE [OFFSET SIZE]\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0) {
		fprintf(stderr, "frame-ids: cannot read %s\n", argv[1]);
		return 2;
	}
	size = len;
	if (argc == 4) {
		off = strtoul(argv[2], NULL, 0);
		size = strtoul(argv[3], NULL, 0);
	}
	if (off > (unsigned long)len || size > (unsigned long)len - off) {
		fprintf(stderr, "frame-ids: %lu bytes at %lu are beyond the end of %s\n",
			size, off, argv[1]);
		return 2;
	}
	buf = malloc(size ? size : 1);
	if (!buf || fseek(f, off, SEEK_SET) || fread(buf, 1, size, f) != size) {
		fprintf(stderr, "frame-ids: cannot read %s\n", argv[1]);
		return 2;
	}
	fclose(f);

	/* perf: OCSD_DFRMTR_FRAME_MEM_ALIGN | OCSD_DFRMTR_RESET_ON_4X_FSYNC */
	tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_FRAME_FORMATTED,
				    OCSD_DFRMTR_FRAME_MEM_ALIGN |
				    OCSD_DFRMTR_RESET_ON_4X_FSYNC);
	if (!tree) {
		fprintf(stderr, "frame-ids: cannot create a decode tree\n");
		return 2;
	}
	ocsd_def_errlog_init(OCSD_ERR_SEV_ERROR, 1);
	ocsd_def_errlog_config_output(C_API_MSGLOGOUT_FLG_NONE, NULL);
	ocsd_def_errlog_set_strprint_cb(tree, NULL, print_cb);
	ocsd_dt_set_raw_frame_printer(tree, OCSD_DFRMTR_UNPACKED_RAW_OUT);

	/*
	 * As perf does: one block, then the end of the trace; where the
	 * deformatter rejects a frame, a reset and on at the next frame.
	 */
	for (done = 0; done < size; done = (done + 16) & ~15UL) {
		resp = ocsd_dt_process_data(tree, OCSD_OP_DATA, done, size - done,
					    buf + done, &consumed);
		done += consumed;
		if (!OCSD_DATA_RESP_IS_FATAL(resp))
			break;
		ocsd_dt_process_data(tree, OCSD_OP_RESET, 0, 0, NULL, NULL);
	}
	ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
	ocsd_destroy_dcd_tree(tree);
	free(buf);

	for (id = 0x01; id <= 0x6f; id++)
		if (bytes[id])
			printf("%#04x %lu\n", id, bytes[id]);
	return 0;
}
