// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * flowgen ADDR FIRST_PORT COUNT ROUNDS GAP_MS: COUNT UDP flows that stay
 * the same flows.  One socket, one source port, one small datagram to
 * each of COUNT destination ports per round, ROUNDS rounds GAP_MS apart
 * (0: until killed).  bash's /dev/udp opens a new socket, so a new source
 * port, for every write: a new flow each time.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	long first, count, rounds, gap, r, i;
	struct timespec ts;
	int fd;

	if (argc != 6 || inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1) {
		fprintf(stderr, "usage: flowgen IPV4 FIRST_PORT COUNT ROUNDS GAP_MS\n");
		return 2;
	}
	first = atol(argv[2]);
	count = atol(argv[3]);
	rounds = atol(argv[4]);
	gap = atol(argv[5]);
	if (first < 1 || count < 1 || first + count > 65536 || rounds < 0 || gap < 0) {
		fprintf(stderr, "flowgen: bad numbers\n");
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	ts.tv_sec = gap / 1000;
	ts.tv_nsec = gap % 1000 * 1000000;
	for (r = 0; !rounds || r < rounds; r++) {
		for (i = 0; i < count; i++) {
			dst.sin_port = htons(first + i);
			/* ENOBUFS under load, ECONNREFUSED from an earlier ICMP
			 * port unreachable: the next round tries again */
			sendto(fd, "x", 1, 0, (struct sockaddr *)&dst, sizeof(dst));
		}
		nanosleep(&ts, NULL);
	}
	close(fd);
	return 0;
}
