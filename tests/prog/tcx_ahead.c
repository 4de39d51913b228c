// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * For tests/e2e/ahead.sh: puts a foreign tc program at the head of a
 * device's tcx chain, as a CNI attached first would be (bpftool 7.1 and
 * iproute2 6.1 cannot attach tcx links).
 *   tcx_ahead NETNS DEV egress|ingress OBJ PIN
 * loads the first program of OBJ, links it with BPF_F_BEFORE and no
 * relative program (the head of the chain) and pins the link at PIN;
 * removing PIN (and closing every fd) takes it off again.  NETNS "" is
 * ours.  Exit 0; 1 with a reason; 77 when the kernel has no tcx.
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
#include <bpf/libbpf.h>

/* the kernel's uapi values; the 6.1 headers predate tcx */
#define TCX_INGRESS 46
#define TCX_EGRESS 47
#define F_BEFORE (1U << 3)

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = F_BEFORE);
	struct bpf_program *prog;
	struct bpf_object *obj;
	unsigned int ifindex;
	char path[256];
	int fd, link;

	if (argc != 6 || (strcmp(argv[3], "egress") && strcmp(argv[3], "ingress"))) {
		fprintf(stderr, "usage: tcx_ahead NETNS DEV egress|ingress OBJ PIN\n");
		return 1;
	}
	if (argv[1][0]) {
		snprintf(path, sizeof(path), "/run/netns/%s", argv[1]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET)) {
			fprintf(stderr, "tcx_ahead: %s: %s\n", path, strerror(errno));
			return 1;
		}
		close(fd);
	}
	ifindex = if_nametoindex(argv[2]);
	if (!ifindex) {
		fprintf(stderr, "tcx_ahead: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	obj = bpf_object__open_file(argv[4], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "tcx_ahead: cannot load %s: %s\n", argv[4], strerror(errno));
		return 1;
	}
	prog = bpf_object__next_program(obj, NULL);
	if (!prog) {
		fprintf(stderr, "tcx_ahead: %s has no program\n", argv[4]);
		return 1;
	}
	link = bpf_link_create(bpf_program__fd(prog), ifindex,
			       strcmp(argv[3], "egress") ? TCX_INGRESS : TCX_EGRESS, &opts);
	if (link < 0) {
		fprintf(stderr, "tcx_ahead: cannot attach tcx %s: %s\n", argv[3],
			strerror(errno));
		return errno == EINVAL ? 77 : 1;
	}
	if (bpf_obj_pin(link, argv[5])) {
		fprintf(stderr, "tcx_ahead: cannot pin %s: %s\n", argv[5], strerror(errno));
		return 1;
	}
	return 0;
}
