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
 * For the link-type tests: a persistent tun device of any link type
 * (ARPHRD_*, TUNSETLINK), and IPv4 and IPv6 TCP packets written into a tun
 * device, so that they arrive on it as they would from a VPN.
 *   flood --tun NAME TYPE
 *   flood --tun-send NAME COUNT  ->  COUNT of each family written
 * And a VPN's data path without the VPN: packets read from one tun device
 * are written into the other, both ways, until killed.  Each device lives
 * in its own network namespace (by its name under /run/netns).
 *   flood --tun-relay NS_A TUN_A NS_B TUN_B
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
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <net/if.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>

#define BATCH 32
#define PATH_MAX_NS 300
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

static int tun_open(const char *name)
{
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };
	int fd = open("/dev/net/tun", O_RDWR);

	if (fd < 0) {
		perror("flood: /dev/net/tun");
		return -1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		perror("flood: TUNSETIFF");
		close(fd);
		return -1;
	}
	return fd;
}

static int tun_create(int argc, char **argv)
{
	unsigned long type;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: flood --tun NAME TYPE\n");
		return 2;
	}
	type = strtoul(argv[3], NULL, 0);
	fd = tun_open(argv[2]);
	if (fd < 0)
		return 1;
	if (ioctl(fd, TUNSETLINK, type) || ioctl(fd, TUNSETPERSIST, 1)) {
		perror("flood: TUNSETLINK/TUNSETPERSIST");
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

static __u16 csum16(const void *p, size_t n)
{
	const unsigned char *b = p;
	unsigned long sum = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		sum += b[i] << 8 | b[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons(~sum & 0xffff);
}

/* IPv4 and IPv6 TCP (ACK, 100 bytes of payload, ECT(0)) into the device;
 * the transport checksum is not filled in: only the parser reads them */
static int tun_send(int argc, char **argv)
{
	unsigned char p4[20 + 20 + 100] = { 0 }, p6[40 + 20 + 100] = { 0 };
	struct iphdr *ip = (struct iphdr *)p4;
	struct ip6_hdr *ip6 = (struct ip6_hdr *)p6;
	struct tcphdr *th;
	long count;
	int fd;

	if (argc != 4 || (count = atol(argv[3])) <= 0) {
		fprintf(stderr, "usage: flood --tun-send NAME COUNT\n");
		return 2;
	}
	ip->version = 4;
	ip->ihl = 5;
	ip->tos = 2;
	ip->tot_len = htons(sizeof(p4));
	ip->ttl = 64;
	ip->protocol = IPPROTO_TCP;
	inet_pton(AF_INET, "198.18.7.1", &ip->saddr);
	inet_pton(AF_INET, "198.18.7.2", &ip->daddr);
	ip->check = csum16(ip, sizeof(*ip));
	ip6->ip6_flow = htonl(6u << 28 | 2u << 20);
	ip6->ip6_plen = htons(sizeof(p6) - 40);
	ip6->ip6_nxt = IPPROTO_TCP;
	ip6->ip6_hlim = 64;
	inet_pton(AF_INET6, "fd00:5e:7::1", &ip6->ip6_src);
	inet_pton(AF_INET6, "fd00:5e:7::2", &ip6->ip6_dst);
	th = (struct tcphdr *)(p4 + 20);
	th->source = htons(40000);
	th->dest = htons(80);
	th->doff = 5;
	th->ack = 1;
	memcpy(p6 + 40, th, sizeof(*th));
	fd = tun_open(argv[2]);
	if (fd < 0)
		return 1;
	for (long i = 0; i < count; i++)
		if (write(fd, p4, sizeof(p4)) < 0 || write(fd, p6, sizeof(p6)) < 0) {
			perror("flood: write to tun");
			close(fd);
			return 1;
		}
	close(fd);
	printf("%ld\n", count);
	return 0;
}

/* The tun device NAME of network namespace NS, opened from there */
static int tun_open_in(const char *ns, const char *name)
{
	char path[PATH_MAX_NS];
	int self, nsfd, fd = -1;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	self = open("/proc/self/ns/net", O_RDONLY);
	nsfd = open(path, O_RDONLY);
	if (self < 0 || nsfd < 0 || setns(nsfd, CLONE_NEWNET)) {
		perror("flood: enter the namespace");
	} else {
		fd = tun_open(name);
		if (setns(self, CLONE_NEWNET)) {
			perror("flood: back to our namespace");
			exit(1);
		}
	}
	if (self >= 0)
		close(self);
	if (nsfd >= 0)
		close(nsfd);
	return fd;
}

static int tun_relay(int argc, char **argv)
{
	static unsigned char buf[65536];
	struct pollfd pfd[2];

	if (argc != 6) {
		fprintf(stderr, "usage: flood --tun-relay NS_A TUN_A NS_B TUN_B\n");
		return 2;
	}
	pfd[0].fd = tun_open_in(argv[2], argv[3]);
	pfd[1].fd = tun_open_in(argv[4], argv[5]);
	if (pfd[0].fd < 0 || pfd[1].fd < 0)
		return 1;
	pfd[0].events = pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("flood: poll");
			return 1;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (!(pfd[i].revents & POLLIN))
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf));
			/* a full device queue on the far side drops, as a
			 * link would */
			if (n > 0 && write(pfd[!i].fd, buf, n) < 0 &&
			    errno != EAGAIN && errno != ENOBUFS && errno != EIO)
				perror("flood: relay write");
		}
	}
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
	if (argc > 1 && !strcmp(argv[1], "--tun"))
		return tun_create(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "--tun-send"))
		return tun_send(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "--tun-relay"))
		return tun_relay(argc, argv);
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
