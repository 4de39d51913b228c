// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * node_tcx IFINDEX...: the ids of the BPF programs on each device's tc
 * hooks, one line "IFINDEX egress|ingress PROG_ID" per program, so that
 * bench/node.sh can tell the programs of its own pods from those of other
 * users of the machine without knowing sojourn's pin layout.  Debian 12's
 * bpftool (v7.1) predates tcx and shows neither tcx programs nor the
 * device of a tcx link, hence this helper.  Only tcx is asked: on a
 * kernel without tcx (< 6.6) sojourn uses clsact filters, the query fails
 * with a one-line note on stderr, and node.sh counts the programs it finds
 * pinned instead.  Exit 0, or 1 on a bad argument.
 *
 * node_tcx --stats: turns on the kernel's BPF run-time statistics
 * (BPF_ENABLE_STATS) for as long as it runs, prints "on" and waits to be
 * killed; unlike kernel.bpf_stats_enabled this needs no restoring and does
 * not fight other users of the sysctl.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

/* libbpf 1.1's headers predate tcx: the kernel's uapi values */
#define NODE_BPF_TCX_INGRESS 46
#define NODE_BPF_TCX_EGRESS 47
#define NODE_MAX_PROGS 64

/* BPF_PROG_QUERY by hand: libbpf 1.1's bpf_prog_query takes a target fd,
 * and tcx wants the ifindex in the same field */
static int query(unsigned int ifindex, unsigned int type, __u32 *ids,
		 __u32 *count)
{
	union bpf_attr attr;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.query.target_fd = ifindex;
	attr.query.attach_type = type;
	attr.query.prog_ids = (unsigned long)ids;
	attr.query.prog_cnt = *count;
	err = syscall(__NR_bpf, BPF_PROG_QUERY, &attr, sizeof(attr));
	if (err)
		return -errno;
	*count = attr.query.prog_cnt;
	return 0;
}

static int stats_on_until_killed(void)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.enable_stats.type = BPF_STATS_RUN_TIME;
	fd = syscall(__NR_bpf, BPF_ENABLE_STATS, &attr, sizeof(attr));
	if (fd < 0) {
		fprintf(stderr, "node_tcx: BPF_ENABLE_STATS: %s\n", strerror(errno));
		return 1;
	}
	printf("on\n");
	fflush(stdout);
	for (;;)
		pause();	/* the fd closes with us */
}

int main(int argc, char **argv)
{
	static const struct { unsigned int type; const char *name; } hooks[] = {
		{ NODE_BPF_TCX_EGRESS, "egress" },
		{ NODE_BPF_TCX_INGRESS, "ingress" },
	};
	__u32 ids[NODE_MAX_PROGS];
	int i, h;

	if (argc == 2 && !strcmp(argv[1], "--stats"))
		return stats_on_until_killed();
	if (argc < 2) {
		fprintf(stderr, "usage: node_tcx IFINDEX... | --stats\n");
		return 1;
	}
	for (i = 1; i < argc; i++) {
		char *end;
		unsigned long ifindex = strtoul(argv[i], &end, 10);

		if (*end || !ifindex || ifindex > 0x7fffffff) {
			fprintf(stderr, "node_tcx: \"%s\" is not an ifindex\n", argv[i]);
			return 1;
		}
		for (h = 0; h < 2; h++) {
			__u32 n = NODE_MAX_PROGS, j;
			int err = query(ifindex, hooks[h].type, ids, &n);

			if (err == -ENODEV)	/* the device went away: nothing on it */
				continue;
			if (err) {
				fprintf(stderr, "node_tcx: query %lu %s: %s\n", ifindex,
					hooks[h].name, strerror(-err));
				continue;
			}
			for (j = 0; j < n && j < NODE_MAX_PROGS; j++)
				printf("%lu %s %u\n", ifindex, hooks[h].name, ids[j]);
		}
	}
	return 0;
}
