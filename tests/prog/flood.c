// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * For the flow-table flood test: UDP packets at a steady rate, each with a
 * 5-tuple not used before (source port x destination port, 64000 x 60000),
 * from a raw socket so no socket per flow is needed.
 *   flood SRC DST PPS SECS  ->  prints the number of packets sent
 * For the rate-mode flood test: Ethernet frames of one ethertype, SIZE
 * bytes with the header, broadcast out of DEV through a packet socket, so
 * they pass the device's tc egress hook as any frame does.
 *   flood --frames DEV ETHERTYPE SIZE PPS SECS  ->  the number offered
 *   (sent or dropped on the way out)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>

#define BATCH 32
#define PAYLOAD 18

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Offers BATCH at a time until secs have passed, PPS on average */
static unsigned long long pace(int fd, struct mmsghdr *msg, double pps,
			       double secs)
{
	unsigned long long sent = 0;
	double t0, due;

	t0 = due = now();
	while (now() - t0 < secs) {
		/* a frame the device's tc hook drops fails its send
		 * (ENOBUFS) and ends the batch there: count it as offered
		 * and go on with the rest */
		for (int k = 0; k < BATCH;) {
			int n = sendmmsg(fd, msg + k, BATCH - k, 0);

			if (n > 0) {
				k += n;
				continue;
			}
			if (errno != ENOBUFS && errno != EAGAIN)
				perror("flood: sendmmsg");
			k++;
		}
		sent += BATCH;
		due += BATCH / pps;
		while (now() < due)
			usleep(200);
	}
	return sent;
}

static int frames(int argc, char **argv)
{
	static unsigned char frame[ETH_FRAME_LEN];
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = ETH_ALEN };
	struct mmsghdr msg[BATCH];
	struct iovec iov = { frame, 0 };
	unsigned long ethertype, size;
	int fd;

	if (argc != 7) {
		fprintf(stderr, "usage: flood --frames DEV ETHERTYPE SIZE PPS SECS\n");
		return 2;
	}
	ethertype = strtoul(argv[3], NULL, 0);
	size = strtoul(argv[4], NULL, 0);
	to.sll_ifindex = if_nametoindex(argv[2]);
	if (!to.sll_ifindex || ethertype > 0xffff || size < ETH_HLEN ||
	    size > sizeof(frame)) {
		fprintf(stderr, "flood: bad device, ethertype or size\n");
		return 2;
	}
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("flood: packet socket");
		return 1;
	}
	memset(frame, 0xff, ETH_ALEN);		/* broadcast */
	frame[6] = 0x02;			/* a local unicast source */
	frame[12] = ethertype >> 8;
	frame[13] = ethertype & 0xff;
	memset(to.sll_addr, 0xff, ETH_ALEN);
	iov.iov_len = size;
	memset(msg, 0, sizeof(msg));
	for (int k = 0; k < BATCH; k++) {
		msg[k].msg_hdr.msg_iov = &iov;
		msg[k].msg_hdr.msg_iovlen = 1;
		msg[k].msg_hdr.msg_name = &to;
		msg[k].msg_hdr.msg_namelen = sizeof(to);
	}
	printf("%llu\n", pace(fd, msg, atof(argv[5]), atof(argv[6])));
	return 0;
}

int main(int argc, char **argv)
{
	static unsigned char pkt[BATCH][sizeof(struct iphdr) + sizeof(struct udphdr) + PAYLOAD];
	struct mmsghdr msg[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct in_addr src;
	unsigned long long sent = 0, i = 0;
	double pps, secs, t0, due;
	int fd, one = 1;

	if (argc > 1 && !strcmp(argv[1], "--frames"))
		return frames(argc, argv);
	if (argc != 5 || inet_pton(AF_INET, argv[1], &src) != 1 ||
	    inet_pton(AF_INET, argv[2], &dst.sin_addr) != 1) {
		fprintf(stderr, "usage: flood SRC DST PPS SECS\n");
		return 2;
	}
	pps = atof(argv[3]);
	secs = atof(argv[4]);
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one))) {
		perror("flood: raw socket");
		return 1;
	}
	memset(msg, 0, sizeof(msg));
	for (int k = 0; k < BATCH; k++) {
		struct iphdr *ip = (struct iphdr *)pkt[k];

		ip->version = 4;
		ip->ihl = 5;
		ip->ttl = 64;
		ip->protocol = IPPROTO_UDP;
		ip->tot_len = htons(sizeof(pkt[k]));
		ip->saddr = src.s_addr;
		ip->daddr = dst.sin_addr.s_addr;
		iov[k].iov_base = pkt[k];
		iov[k].iov_len = sizeof(pkt[k]);
		msg[k].msg_hdr.msg_iov = &iov[k];
		msg[k].msg_hdr.msg_iovlen = 1;
		msg[k].msg_hdr.msg_name = &dst;
		msg[k].msg_hdr.msg_namelen = sizeof(dst);
	}
	t0 = due = now();
	while (now() - t0 < secs) {
		for (int k = 0; k < BATCH; k++, i++) {
			struct udphdr *uh = (struct udphdr *)(pkt[k] + sizeof(struct iphdr));

			uh->source = htons(1024 + i % 64000);
			uh->dest = htons(1 + (i / 64000) % 60000);
			uh->len = htons(sizeof(struct udphdr) + PAYLOAD);
			uh->check = 0;	/* none: allowed for UDP over IPv4 */
		}
		int n = sendmmsg(fd, msg, BATCH, 0);

		if (n > 0)
			sent += n;
		else if (errno != ENOBUFS && errno != EAGAIN)
			perror("flood: sendmmsg");
		due += BATCH / pps;
		while (now() < due)
			usleep(200);
	}
	printf("%llu\n", sent);
	return 0;
}
