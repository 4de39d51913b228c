// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * live: what sojourn's attached programs cost per packet under real
 * traffic, next to floors attached at the same hooks.  The dequeue program
 * sits on a tracepoint (tp_btf), which BPF_PROG_TEST_RUN cannot run, so
 * this is how it is measured: the kernel's own run-time statistics
 * (BPF_ENABLE_STATS, the in-process form of kernel.bpf_stats_enabled),
 * run_time_ns / run_cnt per program, while this process sends UDP frames
 * of FLOWS different flows out of DEV through its qdisc.
 *
 *   live DEV PINDIR FLOWS SECONDS
 *
 * Run inside DEV's namespace with bpffs visible (nsenter --net=...).
 * PINDIR is sojourn's attachment directory (prog_egress); the dequeue
 * program is the host's one, pinned in SJ_HOST_DIR.
 * Prints one `key value` line.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "host.h"
#include "../tests/prog/corpus.h"

#define FLOOR_OBJ	"build/floor.bpf.o"
#define BATCH		64
#define PAYLOAD		18	/* to 60 bytes, the minimum Ethernet frame */

enum { EGRESS, DEQUEUE, FLOOR_TC, FLOOR_DEQ, NPROGS };
static const char *const name[NPROGS] = { "egress", "dequeue", "floor_tc",
					   "floor_dequeue" };

static void die(const char *what, int err)
{
	fprintf(stderr, "live: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void stats(int fd, __u64 *ns, __u64 *cnt)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		die("prog info", errno);
	*ns = info.run_time_ns;
	*cnt = info.run_cnt;
}

/* IPv4/UDP, ECT(0), flow i: source 10.x.y.z, ports spread */
static void flow_frame(__u32 i, struct frame *f)
{
	__be32 saddr = htonl(0x0a000000u | (i & 0xffffff));
	__be32 daddr = htonl(0xc6120201u);		/* 198.18.2.1 */

	fr_eth(f, ETH_P_IP);
	fr_ip4_addrs(f, 2, IPPROTO_UDP, 5, 0, saddr, daddr);
	fr_udp_payload(f, 1024 + (i >> 24), 9, NULL, PAYLOAD);
	fr_finish(f);
}

/* Sends frames of flows [0, flows) for secs s; returns frames sent */
static __u64 blast(int s, __u32 flows, double secs, int sequential)
{
	static struct frame buf[BATCH];
	struct mmsghdr m[BATCH];
	struct iovec iov[BATCH];
	double end = now_s() + secs;
	__u64 sent = 0;
	__u32 next = 0;

	for (;;) {
		for (int i = 0; i < BATCH; i++) {
			__u32 f = sequential ? next++ % flows :
				  (__u32)random() % flows;

			flow_frame(f, &buf[i]);
			iov[i] = (struct iovec){ buf[i].b, buf[i].len };
			memset(&m[i], 0, sizeof(m[i]));
			m[i].msg_hdr.msg_iov = &iov[i];
			m[i].msg_hdr.msg_iovlen = 1;
		}
		int n = sendmmsg(s, m, BATCH, 0);

		if (n < 0 && errno != ENOBUFS && errno != EAGAIN)
			die("sendmmsg", errno);
		if (n > 0)
			sent += n;
		if (sequential ? next >= flows : now_s() >= end)
			return sent;
	}
}

/* errors are reported by die(); libbpf's chatter (an existing clsact is
 * an "error" it prints before returning -EEXIST) is not wanted */
static int no_print(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l;
	(void)f;
	(void)ap;
	return 0;
}

int main(int argc, char **argv)
{
	__u64 ns0[NPROGS], cnt0[NPROGS], ns1[NPROGS], cnt1[NPROGS], sent;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_IP) };
	int fd[NPROGS], s, stats_fd, err;
	struct bpf_program *p;
	struct bpf_object *obj;
	struct bpf_link *link;
	char path[512];
	double t0, secs;
	__u32 ifindex, flows;

	if (argc != 5) {
		fprintf(stderr, "usage: live DEV PINDIR FLOWS SECONDS\n");
		return 2;
	}
	libbpf_set_print(no_print);
	ifindex = if_nametoindex(argv[1]);
	flows = strtoul(argv[3], NULL, 10);
	secs = strtod(argv[4], NULL);
	if (!ifindex || !flows || secs <= 0) {
		fprintf(stderr, "live: bad device, flow count or seconds\n");
		return 2;
	}
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/prog_%s",
			 i == DEQUEUE ? SJ_HOST_DIR : argv[2], name[i]);
		fd[i] = bpf_obj_get(path);
		if (fd[i] < 0)
			die(path, errno);
	}

	/* the floors: tc egress under clsact, and the same tracepoint */
	obj = bpf_object__open_file(FLOOR_OBJ, NULL);
	if (!obj)
		die("open " FLOOR_OBJ, errno);
	bpf_program__set_autoload(bpf_object__find_program_by_name(obj, "floor_xdp"),
				  false);
	{
		struct bpf_map *ro = bpf_object__find_map_by_name(obj, ".rodata");
		const void *init;
		size_t sz = 0;
		__u8 *v;

		init = ro ? bpf_map__initial_value(ro, &sz) : NULL;
		if (!init || sz < sizeof(__u32) || !(v = malloc(sz)))
			die("floor rodata", ENOENT);
		memcpy(v, init, sz);
		memcpy(v, &ifindex, sizeof(ifindex));	/* floor_ifindex, alone */
		if ((err = bpf_map__set_initial_value(ro, v, sz)))
			die("floor rodata", err);
		free(v);
	}
	if ((err = bpf_object__load(obj)))
		die("load " FLOOR_OBJ, err);
	p = bpf_object__find_program_by_name(obj, "floor_dequeue");
	link = bpf_program__attach(p);
	if (!link)
		die("attach floor_dequeue", errno);
	fd[FLOOR_DEQ] = bpf_program__fd(p);
	p = bpf_object__find_program_by_name(obj, "floor_parse");
	fd[FLOOR_TC] = bpf_program__fd(p);
	{
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = BPF_TC_EGRESS);
		LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 0x464c,
			    .priority = 0xfff0, .prog_fd = fd[FLOOR_TC]);

		err = bpf_tc_hook_create(&hook);
		if (err && err != -EEXIST)
			die("clsact", err);
		if ((err = bpf_tc_attach(&hook, &opts)))
			die("attach floor_parse", err);
	}

	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0)
		die("BPF_ENABLE_STATS", errno);

	s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IP));
	if (s < 0)
		die("socket", errno);
	sll.sll_ifindex = ifindex;
	if (bind(s, (struct sockaddr *)&sll, sizeof(sll)))
		die("bind", errno);

	/* every flow once, so the table holds what it can of them */
	blast(s, flows, 0, 1);
	for (int i = 0; i < NPROGS; i++)
		stats(fd[i], &ns0[i], &cnt0[i]);
	t0 = now_s();
	sent = blast(s, flows, secs, 0);
	secs = now_s() - t0;
	for (int i = 0; i < NPROGS; i++)
		stats(fd[i], &ns1[i], &cnt1[i]);

	printf("flows %u pps %.0f", flows, sent / secs);
	for (int i = 0; i < NPROGS; i++) {
		__u64 c = cnt1[i] - cnt0[i];

		printf(" %s_ns %.1f %s_runs %llu", name[i],
		       c ? (double)(ns1[i] - ns0[i]) / c : 0.0, name[i],
		       (unsigned long long)c);
	}
	printf("\n");

	{
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = BPF_TC_EGRESS);
		LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 0x464c,
			    .priority = 0xfff0);

		if ((err = bpf_tc_detach(&hook, &opts)))
			die("detach floor_parse", err);
	}
	bpf_link__destroy(link);
	bpf_object__close(obj);
	close(stats_fd);
	return 0;
}
