// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The flow filter of `hist --flow`, in tc's words (src ADDR dst ADDR
 * sport N dport N proto NAME|N, or all), and its test against a flow key.
 */
#include <string.h>
#include <arpa/inet.h>
#include "obs.h"
#include "units.h"

static int parse_addr(const char *s, __u32 *a, __u8 *family)
{
	memset(a, 0, 16);
	if (inet_pton(AF_INET, s, a) == 1) {
		*family = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a) == 1) {
		*family = 6;
		return 0;
	}
	return sj_err("bad address \"%s\" in flow filter", s);
}

static int parse_port(const char *s, __u16 *port)
{
	__u32 v;

	if (sj_parse_u32(s, &v) || v > 65535)
		return sj_err("bad port \"%s\" in flow filter", s);
	*port = htons(v);
	return 0;
}

static int parse_proto(const char *s, __u8 *proto)
{
	static const struct { const char *name; __u8 nr; } names[] = {
		{ "tcp", 6 }, { "udp", 17 }, { "icmp", 1 }, { "icmpv6", 58 },
		{ "ipv6-icmp", 58 },
	};
	size_t i;
	__u32 v;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*proto = names[i].nr;
			return 0;
		}
	if (sj_parse_u32(s, &v) || v > 255)
		return sj_err("bad protocol \"%s\" in flow filter (tcp, udp, icmp, icmpv6 or 0..255)", s);
	*proto = v;
	return 0;
}

int obs_flowspec_parse(int argc, char **argv, struct obs_flowspec *s)
{
	int i;

	if (argc > 0 && !strcmp(argv[0], "all")) {
		s->have = 0;
		return 1;	/* every flow */
	}
	for (i = 0; i + 1 < argc; i += 2) {
		const char *w = argv[i], *v = argv[i + 1];
		int err;

		if (!strcmp(w, "src")) {
			err = parse_addr(v, s->src, &s->family_src);
			s->have |= OBS_FS_SRC;
		} else if (!strcmp(w, "dst")) {
			err = parse_addr(v, s->dst, &s->family_dst);
			s->have |= OBS_FS_DST;
		} else if (!strcmp(w, "sport")) {
			err = parse_port(v, &s->sport);
			s->have |= OBS_FS_SPORT;
		} else if (!strcmp(w, "dport")) {
			err = parse_port(v, &s->dport);
			s->have |= OBS_FS_DPORT;
		} else if (!strcmp(w, "proto") || !strcmp(w, "ip_proto")) {
			err = parse_proto(v, &s->proto);
			s->have |= OBS_FS_PROTO;
		} else {
			break;
		}
		if (err)
			return -1;
	}
	if (i < argc && (!strcmp(argv[i], "src") || !strcmp(argv[i], "dst") ||
			 !strcmp(argv[i], "sport") || !strcmp(argv[i], "dport") ||
			 !strcmp(argv[i], "proto")))
		return sj_err("flow filter: \"%s\" needs a value", argv[i]);
	if (!s->have)
		return sj_err("--flow needs all, or at least one of src ADDR, dst ADDR, sport PORT, dport PORT, proto PROTO");
	return i;
}

bool obs_flowspec_match(const struct obs_flowspec *s, const struct sj_flow_key *k)
{
	if ((s->have & OBS_FS_SRC) &&
	    (k->family != s->family_src || memcmp(k->saddr, s->src, 16)))
		return false;
	if ((s->have & OBS_FS_DST) &&
	    (k->family != s->family_dst || memcmp(k->daddr, s->dst, 16)))
		return false;
	if ((s->have & OBS_FS_SPORT) && k->sport != s->sport)
		return false;
	if ((s->have & OBS_FS_DPORT) && k->dport != s->dport)
		return false;
	if ((s->have & OBS_FS_PROTO) && k->proto != s->proto)
		return false;
	return true;
}
