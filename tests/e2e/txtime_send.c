// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * txtime_send IPV4 PORT SECS PPS MIN_MS MAX_MS: a paced UDP sender for the
 * field_txtime test.  PPS times a second, for SECS seconds, it sends two
 * datagrams to IPV4:PORT from one socket:
 *   - one with a departure time (SO_TXTIME, CLOCK_MONOTONIC, an SCM_TXTIME
 *     control message) MIN_MS..MAX_MS in the future, chosen at random;
 *   - one with none, which leaves the host with skb->tstamp 0.
 * Each payload says which it is and the departure time asked for, so that
 * a checker where the packets are received (tstamp_check.bpf.c) can compare
 * skb->tstamp with it.  Payload, in host byte order (sender and checker
 * run on one machine): u32 TXTIME_MAGIC, u32 kind (1 timed, 0 plain),
 * u64 departure time in ns (0 when plain), u32 sequence.
 * Prints "timed N plain N" (datagrams sent) at the end.  Exit 0 on success,
 * 2 on a bad argument, 1 when the socket cannot do it (no SO_TXTIME).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SO_TXTIME
#define SO_TXTIME 61
#define SCM_TXTIME SO_TXTIME
#endif

#define TXTIME_MAGIC 0x534a5458u	/* "SJTX"; tstamp_check.bpf.c too */

struct txtime_payload {
	uint32_t magic;
	uint32_t kind;
	uint64_t txtime_ns;
	uint32_t seq;
} __attribute__((packed));

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int send_one(int fd, const struct sockaddr_in *dst, uint32_t seq,
		    uint64_t txtime)
{
	struct txtime_payload p = {
		.magic = TXTIME_MAGIC, .kind = txtime ? 1 : 0,
		.txtime_ns = txtime, .seq = seq,
	};
	char control[CMSG_SPACE(sizeof(uint64_t))] = { 0 };
	struct iovec iov = { .iov_base = &p, .iov_len = sizeof(p) };
	struct msghdr msg = {
		.msg_name = (void *)dst, .msg_namelen = sizeof(*dst),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	struct cmsghdr *cm;

	if (txtime) {
		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_TXTIME;
		cm->cmsg_len = CMSG_LEN(sizeof(uint64_t));
		memcpy(CMSG_DATA(cm), &txtime, sizeof(txtime));
	}
	/* a full socket buffer or a dropped packet is the network's business:
	 * only a refusal of the control message is fatal */
	if (sendmsg(fd, &msg, 0) < 0)
		return errno == EINVAL || errno == EPERM || errno == EOPNOTSUPP ?
		       -1 : 0;
	return 1;
}

static long number(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "txtime_send: bad %s '%s' (%ld..%ld)\n", what, s,
			lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct sock_txtime cfg = { .clockid = CLOCK_MONOTONIC };
	long secs, pps, min_ms, max_ms, timed = 0, plain = 0;
	uint64_t period, next, end;
	struct timespec ts;
	uint32_t seq = 0;
	int fd, rc;

	if (argc != 7 || inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1) {
		fprintf(stderr, "usage: txtime_send IPV4 PORT SECS PPS MIN_MS MAX_MS\n");
		return 2;
	}
	dst.sin_port = htons(number(argv[2], 1, 65535, "port"));
	secs = number(argv[3], 1, 3600, "seconds");
	pps = number(argv[4], 1, 10000, "rate");
	min_ms = number(argv[5], 1, 10000, "min_ms");
	max_ms = number(argv[6], min_ms, 10000, "max_ms");

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("txtime_send: socket");
		return 1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_TXTIME, &cfg, sizeof(cfg))) {
		perror("txtime_send: SO_TXTIME");
		return 1;
	}
	srandom(getpid());
	period = 1000000000ull / pps;
	next = mono_ns();
	end = next + secs * 1000000000ull;
	while (next < end) {
		uint64_t ahead = (min_ms + random() % (max_ms - min_ms + 1)) *
				 1000000ull;

		rc = send_one(fd, &dst, seq++, mono_ns() + ahead);
		if (rc < 0) {
			perror("txtime_send: sendmsg with SCM_TXTIME");
			return 1;
		}
		timed += rc;
		plain += send_one(fd, &dst, seq++, 0) > 0;
		next += period;
		ts.tv_sec = next / 1000000000ull;
		ts.tv_nsec = next % 1000000000ull;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
		       EINTR)
			;
	}
	printf("timed %ld plain %ld\n", timed, plain);
	close(fd);
	return 0;
}
