// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Flows as people read them, and their histograms.  No libbpf here: the
 * unit test links it with the Prometheus renderer alone.
 */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include "obs.h"

const char *obs_proto_name(__u8 proto, char *buf, size_t len)
{
	switch (proto) {
	case 6:
		return "tcp";
	case 17:
		return "udp";
	case 1:
		return "icmp";
	case 58:
		return "icmpv6";
	}
	snprintf(buf, len, "%u", proto);
	return buf;
}

void obs_addr(const struct sj_flow_key *k, bool src, char *buf, size_t len)
{
	const __u32 *a = src ? k->saddr : k->daddr;

	if (!inet_ntop(k->family == 6 ? AF_INET6 : AF_INET, a, buf, len))
		snprintf(buf, len, "?");
}

void obs_flow_name(const struct sj_flow_key *k, char *buf, size_t len)
{
	char s[OBS_ADDR_LEN], d[OBS_ADDR_LEN], p[8];
	const char *proto = obs_proto_name(k->proto, p, sizeof(p));

	obs_addr(k, true, s, sizeof(s));
	obs_addr(k, false, d, sizeof(d));
	if (k->proto == 6 || k->proto == 17)
		snprintf(buf, len, k->family == 6 ? "%s [%s]:%u > [%s]:%u" :
			 "%s %s:%u > %s:%u", proto, s, ntohs(k->sport), d,
			 ntohs(k->dport));
	else if (k->proto == 1 || k->proto == 58)
		snprintf(buf, len, "%s %s > %s id %u", proto, s, d,
			 ntohs(k->sport));
	else
		snprintf(buf, len, "%s %s > %s", proto, s, d);
}

/* the name given with -n, else the cookie: two unnamed namespaces' eth0
 * must not read the same */
const char *obs_netns_label(const struct sj_meta *m, char *buf, size_t len)
{
	if (m->netns[0])
		snprintf(buf, len, "%.*s", (int)sizeof(m->netns), m->netns);
	else
		snprintf(buf, len, "%llu", (unsigned long long)m->netns_cookie);
	return buf;
}

void obs_flow_hist(const struct sj_flow *f, struct sj_hist *h)
{
	int b;

	for (b = 0; b < SJ_HIST_BUCKETS; b++)
		h->count[b] = f->hist[b];
	h->sum_ns = f->sojourn_sum_ns;
}

void obs_flow_hist_delta(const struct sj_flow *now, const struct sj_flow *then,
			 struct sj_hist *h)
{
	int b;

	for (b = 0; b < SJ_HIST_BUCKETS; b++)
		h->count[b] = (__u32)(now->hist[b] - then->hist[b]);
	h->sum_ns = now->sojourn_sum_ns - then->sojourn_sum_ns;
}
