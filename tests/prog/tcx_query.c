// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * For the fault tests: the programs the kernel runs at a device's tcx
 * egress and ingress, as the kernel lists them (bpftool 7.1 predates tcx).
 *   tcx_query NETNS DEV  ->  one line per program: "egress|ingress ID NAME"
 * NETNS "" is ours.  Exit 0, or 1 with a reason on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#define TCX_INGRESS 46
#define TCX_EGRESS 47

static int list(unsigned int ifindex, int type, const char *dir)
{
	LIBBPF_OPTS(bpf_prog_query_opts, q);
	__u32 ids[64];

	q.prog_ids = ids;
	q.prog_cnt = 64;
	/* target_fd and target_ifindex share the attribute */
	if (bpf_prog_query_opts(ifindex, type, &q)) {
		if (errno == EINVAL)	/* no tcx in this kernel */
			return 0;
		fprintf(stderr, "tcx_query: query %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (__u32 i = 0; i < q.prog_cnt; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(ids[i]);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			snprintf(info.name, sizeof(info.name), "?");
		if (fd >= 0)
			close(fd);
		printf("%s %u %s\n", dir, ids[i], info.name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	char path[256];
	unsigned int ifindex;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: tcx_query NETNS DEV\n");
		return 1;
	}
	if (argv[1][0]) {
		snprintf(path, sizeof(path), "/run/netns/%s", argv[1]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET)) {
			fprintf(stderr, "tcx_query: %s: %s\n", path, strerror(errno));
			return 1;
		}
		close(fd);
	}
	ifindex = if_nametoindex(argv[2]);
	if (!ifindex) {
		fprintf(stderr, "tcx_query: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	return list(ifindex, TCX_EGRESS, "egress") || list(ifindex, TCX_INGRESS, "ingress");
}
