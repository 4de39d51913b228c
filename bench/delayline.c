// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * delayline: a wire with a fixed one-way delay between two interfaces, for
 * kernels without netem.  Each frame read on one interface (AF_PACKET) is
 * sent on the other once its delay has passed since the kernel received
 * it.  A frame whose TCP/UDP source or destination port has a rule gets
 * that rule's delay instead (mixed-RTT tests); each delay class is its own
 * FIFO, so order within a flow is kept.  No rate limit: the bottleneck
 * belongs elsewhere, and the exit report says whether this one kept up
 * (how late frames left, kernel and pool drops).
 *
 *   delayline [-d DELAY] [-p PORT=DELAY]... IF_A IF_B
 *
 * DELAY in ms (fractions allowed).  Runs until SIGINT/SIGTERM, then prints
 * one line of `key value` statistics on stdout.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SLOTS		32768	/* frames in flight, both directions */
#define VNET		sizeof(struct virtio_net_hdr)
#define SLOT_BYTES	(2048 + VNET)	/* offloads are off: frames <= 1514 */
#define MAX_RULES	16
#define LATE_BUCKETS	10001	/* lateness histogram, 1 us each, last = more */
#define NONE		UINT32_MAX

struct slot {
	uint64_t due;		/* CLOCK_MONOTONIC ns */
	uint32_t next;
	uint16_t len;
	uint8_t b[SLOT_BYTES];
};

struct fifo {
	uint32_t head, tail;
};

static struct slot *pool;
static uint32_t free_head;
static struct fifo q[2][MAX_RULES + 1];	/* [direction][class]; 0 = default */
static uint64_t delay_ns[MAX_RULES + 1];
static uint16_t rule_port[MAX_RULES + 1];
static int nrules;
static int fd[2];
static volatile sig_atomic_t stop;

static uint64_t fwd[2], pool_drops, tx_errs, oversize, late_max;
static uint64_t late_hist[LATE_BUCKETS];

static void fail(const char *what)
{
	fprintf(stderr, "delayline: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: delayline [-d MS] [-p PORT=MS]... IF_A IF_B\n");
	exit(2);
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t parse_ms(const char *s)
{
	char *end;
	double ms = strtod(s, &end);

	if (end == s || *end || ms < 0 || ms > 10000) {
		fprintf(stderr, "delayline: bad delay '%s' (ms, 0..10000)\n", s);
		exit(2);
	}
	return (uint64_t)(ms * 1e6 + 0.5);
}

static int open_if(const char *name)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	struct packet_mreq mr = { .mr_type = PACKET_MR_PROMISC };
	int one = 1, buf = 16 << 20, s;

	sll.sll_ifindex = if_nametoindex(name);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "delayline: no interface '%s'\n", name);
		exit(1);
	}
	s = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
	if (s < 0)
		fail("socket");
	/*
	 * A virtio_net header before each frame carries a pending checksum
	 * (CHECKSUM_PARTIAL from the sending veth) across, as a tap does:
	 * without it TCP would arrive with a checksum never filled in.
	 */
	if (setsockopt(s, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)))
		fail("PACKET_VNET_HDR");
	/* our own sends show up as outgoing copies: not ours to forward */
	if (setsockopt(s, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)))
		fail("PACKET_IGNORE_OUTGOING");
	if (setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		fail("SO_RCVBUFFORCE");
	/* the delay counts from the kernel's receive time, not our wake-up */
	if (setsockopt(s, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)))
		fail("SO_TIMESTAMPNS");
	if (bind(s, (struct sockaddr *)&sll, sizeof(sll)))
		fail("bind");
	mr.mr_ifindex = sll.sll_ifindex;
	if (setsockopt(s, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)))
		fail("PACKET_ADD_MEMBERSHIP");
	return s;
}

/* The rule class of a frame: by TCP/UDP port, either end; 0 = default */
static int classify(const uint8_t *b, unsigned len)
{
	unsigned off = 14, proto;
	uint16_t et, sp, dp;

	if (!nrules || len < 14)
		return 0;
	et = b[12] << 8 | b[13];
	if (et == ETH_P_IP && len >= off + 20) {
		if ((b[off + 6] & 0x3f) || b[off + 7])	/* a later fragment */
			return 0;
		proto = b[off + 9];
		off += (b[off] & 15) * 4;
	} else if (et == ETH_P_IPV6 && len >= off + 40) {
		proto = b[off + 6];	/* extension headers: default class */
		off += 40;
	} else {
		return 0;
	}
	if ((proto != IPPROTO_TCP && proto != IPPROTO_UDP) || len < off + 4)
		return 0;
	sp = b[off] << 8 | b[off + 1];
	dp = b[off + 2] << 8 | b[off + 3];
	for (int r = 1; r <= nrules; r++)
		if (rule_port[r] == sp || rule_port[r] == dp)
			return r;
	return 0;
}

/* Reads every waiting frame of direction d into its FIFO */
static void drain(int d)
{
	char cbuf[CMSG_SPACE(sizeof(struct timespec))];
	uint64_t mono = now_ns(CLOCK_MONOTONIC);
	uint64_t off = now_ns(CLOCK_REALTIME) - mono;

	for (;;) {
		uint32_t i = free_head;
		struct slot *s;
		struct iovec iov;
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf) };
		uint64_t rx = mono;
		struct cmsghdr *c;
		ssize_t n;
		int k;

		if (i == NONE) {	/* pool full: read and drop */
			static uint8_t sink[SLOT_BYTES];

			if (recv(fd[d], sink, sizeof(sink), 0) < 0)
				return;
			pool_drops++;
			continue;
		}
		s = &pool[i];
		iov = (struct iovec){ s->b, SLOT_BYTES };
		n = recvmsg(fd[d], &m, MSG_TRUNC);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				fail("recvmsg");
			return;
		}
		if (n > (ssize_t)SLOT_BYTES) {
			oversize++;
			continue;
		}
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level == SOL_SOCKET &&
			    c->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec ts;
				uint64_t t;

				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				t = ts.tv_sec * 1000000000ULL + ts.tv_nsec - off;
				/* trust it only if it is plausible */
				if (t <= mono && mono - t < 1000000000ULL)
					rx = t;
			}
		}
		free_head = s->next;
		k = n > (ssize_t)VNET ? classify(s->b + VNET, n - VNET) : 0;
		s->len = n;
		s->due = rx + delay_ns[k];
		s->next = NONE;
		if (q[d][k].tail == NONE)
			q[d][k].head = i;
		else
			pool[q[d][k].tail].next = i;
		q[d][k].tail = i;
	}
}

/* Sends every frame that is due; returns the next due time (0: none) */
static uint64_t send_due(void)
{
	for (;;) {
		uint64_t best = 0, now;
		int bd = -1, bk = -1;

		for (int d = 0; d < 2; d++)
			for (int k = 0; k <= nrules; k++) {
				uint32_t h = q[d][k].head;

				if (h != NONE && (bd < 0 || pool[h].due < best)) {
					best = pool[h].due;
					bd = d;
					bk = k;
				}
			}
		if (bd < 0)
			return 0;
		now = now_ns(CLOCK_MONOTONIC);
		if (best > now)
			return best;

		uint32_t i = q[bd][bk].head;
		struct slot *s = &pool[i];
		uint64_t late = (now - best) / 1000;

		if (send(fd[!bd], s->b, s->len, 0) != s->len)
			tx_errs++;
		else
			fwd[bd]++;
		late_hist[late < LATE_BUCKETS - 1 ? late : LATE_BUCKETS - 1]++;
		if (late > late_max)
			late_max = late;
		q[bd][bk].head = s->next;
		if (s->next == NONE)
			q[bd][bk].tail = NONE;
		s->next = free_head;
		free_head = i;
	}
}

static uint64_t late_pctl(double p)
{
	uint64_t total = 0, seen = 0;

	for (int i = 0; i < LATE_BUCKETS; i++)
		total += late_hist[i];
	for (int i = 0; i < LATE_BUCKETS; i++) {
		seen += late_hist[i];
		if (total && seen >= p * total)
			return i;
	}
	return 0;
}

static uint64_t kernel_drops(int s)
{
	struct tpacket_stats st;
	socklen_t l = sizeof(st);

	if (getsockopt(s, SOL_PACKET, PACKET_STATISTICS, &st, &l))
		return 0;
	return st.tp_drops;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t kdrops;
	int opt;

	delay_ns[0] = 20000000;
	while ((opt = getopt(argc, argv, "d:p:")) != -1) {
		char *eq;
		long port;

		switch (opt) {
		case 'd':
			delay_ns[0] = parse_ms(optarg);
			break;
		case 'p':
			eq = strchr(optarg, '=');
			port = strtol(optarg, NULL, 10);
			if (!eq || port <= 0 || port > 65535 || nrules == MAX_RULES)
				usage();
			nrules++;
			rule_port[nrules] = port;
			delay_ns[nrules] = parse_ms(eq + 1);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 2)
		usage();

	pool = calloc(SLOTS, sizeof(*pool));
	if (!pool)
		fail("calloc");
	for (uint32_t i = 0; i < SLOTS; i++)
		pool[i].next = i + 1 < SLOTS ? i + 1 : NONE;
	for (int d = 0; d < 2; d++)
		for (int k = 0; k <= MAX_RULES; k++)
			q[d][k] = (struct fifo){ NONE, NONE };
	fd[0] = open_if(argv[optind]);
	fd[1] = open_if(argv[optind + 1]);
	/* wake-ups as exact as the timer allows */
	prctl(PR_SET_TIMERSLACK, 1UL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	while (!stop) {
		struct pollfd p[2] = { { fd[0], POLLIN, 0 }, { fd[1], POLLIN, 0 } };
		struct timespec ts, *tp = NULL;
		uint64_t next;

		drain(0);
		drain(1);
		next = send_due();
		if (next) {
			uint64_t now = now_ns(CLOCK_MONOTONIC);
			uint64_t w = next > now ? next - now : 0;

			ts = (struct timespec){ w / 1000000000ULL, w % 1000000000ULL };
			tp = &ts;
		}
		if (ppoll(p, 2, tp, NULL) < 0 && errno != EINTR)
			fail("ppoll");
	}
	kdrops = kernel_drops(fd[0]) + kernel_drops(fd[1]);
	printf("fwd_ab %llu fwd_ba %llu kernel_drops %llu pool_drops %llu "
	       "tx_errors %llu oversize %llu late_p50_us %llu late_p99_us %llu "
	       "late_p999_us %llu late_max_us %llu\n",
	       (unsigned long long)fwd[0], (unsigned long long)fwd[1],
	       (unsigned long long)kdrops, (unsigned long long)pool_drops,
	       (unsigned long long)tx_errs, (unsigned long long)oversize,
	       (unsigned long long)late_pctl(0.5),
	       (unsigned long long)late_pctl(0.99),
	       (unsigned long long)late_pctl(0.999),
	       (unsigned long long)late_max);
	return 0;
}
