// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reading what the data path measured, for hist, top and export.  Only
 * the pins are read, so it works from any namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "obs.h"
#include "output.h"
#include "units.h"

int obs_filter_init(struct obs_filter *f, const char *dev, bool stay)
{
	struct sj_link link;
	int home = -1, err = 0;

	memset(f, 0, sizeof(*f));
	f->dir = -1;
	if (sj_check_privileges() || sj_check_bpffs())
		return -1;
	if (!sj_netns_name && !dev)
		return 0;	/* everything on the host */
	if (!stay && sj_netns_name) {
		home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (home < 0)
			return sj_err("cannot open /proc/self/ns/net: %s", strerror(errno));
	}
	if (sj_netns_enter(sj_netns_name) || sj_netns_cookie(&f->cookie)) {
		err = -1;
		goto out;
	}
	f->by_netns = true;
	if (dev) {
		f->dev = dev;
		if (sj_link_lookup(dev, &link) == 0)
			f->ifindex = link.ifindex;
	}
out:
	if (home >= 0) {
		if (setns(home, CLONE_NEWNET) && !err)
			err = sj_err("cannot return to our network namespace: %s",
				     strerror(errno));
		close(home);
	}
	return err;
}

struct list_arg {
	const struct obs_filter *f;
	struct obs_att *v;
	int n, cap;
};

static int list_one(const char *dir, void *arg)
{
	struct list_arg *a = arg;
	const struct obs_filter *f = a->f;
	struct sj_meta meta;
	struct obs_att *v;

	if (sj_meta_read(dir, &meta))
		return 0;
	if (f->by_netns && meta.netns_cookie != f->cookie)
		return 0;
	if (f->ifindex && meta.ifindex != f->ifindex)
		return 0;
	if (f->dev && !f->ifindex &&
	    strncmp(meta.ifname, f->dev, sizeof(meta.ifname)))
		return 0;
	if (f->dir >= 0 && meta.direction != (__u32)f->dir)
		return 0;
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 8;
		v = realloc(a->v, a->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		a->v = v;
	}
	snprintf(a->v[a->n].dir, sizeof(a->v[a->n].dir), "%s", dir);
	a->v[a->n++].meta = meta;
	return 0;
}

static int att_cmp(const void *x, const void *y)
{
	const struct obs_att *a = x, *b = y;

	if (a->meta.netns_cookie != b->meta.netns_cookie)
		return a->meta.netns_cookie < b->meta.netns_cookie ? -1 : 1;
	if (a->meta.ifindex != b->meta.ifindex)
		return a->meta.ifindex < b->meta.ifindex ? -1 : 1;
	return (int)a->meta.direction - (int)b->meta.direction;
}

int obs_list(const struct obs_filter *f, struct obs_att **out, int *n)
{
	struct list_arg a = { .f = f };

	if (sj_pins_foreach(list_one, &a) < 0) {
		free(a.v);
		return sj_err("out of memory");
	}
	/* the same order on every read: top and export compare snapshots */
	if (a.n > 1)
		qsort(a.v, a.n, sizeof(*a.v), att_cmp);
	*out = a.v;
	*n = a.n;
	return 0;
}

int obs_open_pin(const char *dir, const char *name)
{
	char path[SJ_PATH_MAX];

	if (sj_pin_path(path, dir, name))
		return -1;
	return bpf_obj_get(path);
}

/* a per-CPU array's one value, every CPU's copy */
static void *read_percpu(const char *dir, const char *name, size_t size,
			 int *ncpu)
{
	__u32 zero = 0;
	void *per;
	int fd;

	*ncpu = libbpf_num_possible_cpus();
	if (*ncpu <= 0 || (fd = obs_open_pin(dir, name)) < 0)
		return NULL;
	per = calloc(*ncpu, size);
	if (per && bpf_map_lookup_elem(fd, &zero, per)) {
		free(per);
		per = NULL;
	}
	close(fd);
	return per;
}

int obs_read_dev(const char *dir, struct sj_dev_hist *h)
{
	struct sj_dev_hist *per;
	int ncpu;

	memset(h, 0, sizeof(*h));
	per = read_percpu(dir, "hist", sizeof(*per), &ncpu);
	if (!per)
		return -1;
	sj_dev_hist_merge(h, per, ncpu);
	free(per);
	return 0;
}

int obs_read_stats(const char *dir, struct sj_stats *st)
{
	struct sj_stats *per;
	size_t k;
	int ncpu, i;

	memset(st, 0, sizeof(*st));
	per = read_percpu(dir, "stats", sizeof(*per), &ncpu);
	if (!per)
		return -1;
	/* every field is a __u64 counter */
	for (i = 0; i < ncpu; i++)
		for (k = 0; k < sizeof(*st) / sizeof(__u64); k++)
			((__u64 *)st)[k] += ((__u64 *)&per[i])[k];
	free(per);
	return 0;
}

/* key by key: kernels or maps without batch lookups */
static int read_flows_slow(int fd, struct obs_flow **v, size_t *n, size_t *cap)
{
	struct sj_flow_key key, next;
	void *prev = NULL;
	struct obs_flow *nv;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 1024;
			nv = realloc(*v, *cap * sizeof(**v));
			if (!nv)
				return -ENOMEM;
			*v = nv;
		}
		if (bpf_map_lookup_elem(fd, &key, &(*v)[*n].val))
			continue;	/* evicted since */
		(*v)[(*n)++].key = key;
	}
	return 0;
}

int obs_read_flows(const char *dir, struct obs_flow **out, size_t *n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	struct sj_flow_key *keys = NULL;
	struct sj_flow *vals = NULL;
	struct obs_flow *v = NULL;
	size_t cap = 0, i;
	__u32 batch = 4096, got, token;
	void *in = NULL;
	int fd, err = 0;

	*out = NULL;
	*n = 0;
	fd = obs_open_pin(dir, "flows");
	if (fd < 0)
		return -1;
	keys = calloc(batch, sizeof(*keys));
	vals = calloc(batch, sizeof(*vals));
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	/* batches: one system call per 4096 flows instead of two per flow */
	for (;;) {
		got = batch;
		err = bpf_map_lookup_batch(fd, in, &token, keys, vals, &got, &opts);
		if (err && errno != ENOENT) {
			if (*n == 0 && (errno == EINVAL || errno == 524 /* ENOTSUPP */ ||
					errno == EOPNOTSUPP)) {
				err = read_flows_slow(fd, &v, n, &cap);
				goto out;
			}
			if (errno == ENOSPC) {	/* one bucket holds more: grow */
				batch *= 2;
				free(keys);
				free(vals);
				keys = calloc(batch, sizeof(*keys));
				vals = calloc(batch, sizeof(*vals));
				if (!keys || !vals) {
					err = -ENOMEM;
					goto out;
				}
				continue;
			}
			err = -errno;
			goto out;
		}
		if (*n + got > cap) {
			struct obs_flow *nv;

			cap = (*n + got) * 2;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				err = -ENOMEM;
				goto out;
			}
			v = nv;
		}
		for (i = 0; i < got; i++) {
			v[*n].key = keys[i];
			v[(*n)++].val = vals[i];
		}
		if (err)	/* ENOENT: that was the last batch */
			break;
		in = &token;
	}
	err = 0;
out:
	free(keys);
	free(vals);
	close(fd);
	if (err) {
		free(v);
		*n = 0;
		return sj_err("cannot read %s/flows: %s", dir, strerror(-err));
	}
	*out = v;
	return 0;
}

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

/*
 * LRU eviction tells BPF nothing, so the evicted aggregate is what is
 * left: device minus live flows minus packets without a flow.  Read the
 * flows before the device histogram (callers do), so that a packet
 * counted in between lands in the device only and the rest never goes
 * below zero; "evicted" thus also holds flows born after the table was
 * read.  A bucket that would go negative all the same (a flow bucket that
 * wrapped at 2^32) is reported as 0.
 */
void obs_split(const struct sj_dev_hist *dev, const struct obs_flow *flows,
	       size_t n, struct obs_split *out)
{
	struct sj_hist h;
	size_t i;
	int b;

	memset(out, 0, sizeof(*out));
	out->all = dev->all;
	out->noflow = dev->noflow;
	out->live = n;
	for (i = 0; i < n; i++) {
		obs_flow_hist(&flows[i].val, &h);
		sj_hist_add(&out->flows, &h);
	}
	for (b = 0; b < SJ_HIST_BUCKETS; b++) {
		__u64 known = out->flows.count[b] + out->noflow.count[b];

		out->evicted.count[b] = out->all.count[b] > known ?
					out->all.count[b] - known : 0;
	}
	if (out->all.sum_ns > out->flows.sum_ns + out->noflow.sum_ns)
		out->evicted.sum_ns = out->all.sum_ns - out->flows.sum_ns -
				      out->noflow.sum_ns;
}

const char *obs_quantile_str(const struct sj_hist *h, unsigned permille,
			     char *buf, size_t len)
{
	int b = sj_hist_quantile(h, permille);
	char t[SJ_UNITS_BUFSZ];

	if (b < 0)
		snprintf(buf, len, "-");
	else if (b == SJ_HIST_LAST)
		snprintf(buf, len, ">%s",
			 sj_format_time(sj_hist_bound_us(b - 1) * 1000, t, sizeof(t)));
	else
		snprintf(buf, len, "%s",
			 sj_format_time(sj_hist_bound_us(b) * 1000, t, sizeof(t)));
	return buf;
}

static void print_stars(__u64 val, __u64 max, int width)
{
	int stars = max ? (int)(val * width / max) : 0, i;

	for (i = 0; i < width; i++)
		putchar(i < stars ? '*' : ' ');
}

static const struct { const char *key; unsigned permille; } quantiles[] = {
	{ "p50_us", 500 }, { "p90_us", 900 }, { "p99_us", 990 }, { "max_us", 1000 },
};

static void hist_json(const char *key, const struct sj_hist *h)
{
	size_t q;
	int b;

	out_open_object(key);
	out_u64("count", "", sj_hist_total(h));
	out_u64("sum_ns", "", h->sum_ns);
	/* the bound of the bucket holding it: an upper limit; null when
	 * empty or beyond the last bound */
	for (q = 0; q < sizeof(quantiles) / sizeof(quantiles[0]); q++) {
		b = sj_hist_quantile(h, quantiles[q].permille);
		if (b < 0 || b == SJ_HIST_LAST)
			out_null(quantiles[q].key);
		else
			out_u64(quantiles[q].key, "", sj_hist_bound_us(b));
	}
	out_open_array("buckets");
	for (b = 0; b < SJ_HIST_BUCKETS; b++) {
		out_open_object(NULL);
		if (b == SJ_HIST_LAST)
			out_null("le_us");	/* +Inf */
		else
			out_u64("le_us", "", sj_hist_bound_us(b));
		out_u64("count", "", h->count[b]);
		out_close_object();
	}
	out_close_array();
	out_close_object();
}

/*
 * bcc's layout.  Row "a -> b" holds a < usecs <= b: the bounds are
 * Prometheus's (le, inclusive), not bcc's [2^k, 2^(k+1) - 1].
 */
void obs_hist_print(const char *key, const struct sj_hist *h)
{
	char p[4][SJ_UNITS_BUFSZ + 1];
	__u64 max = 0;
	int b, last = -1;

	if (out_is_json()) {
		hist_json(key, h);
		return;
	}
	for (b = 0; b < SJ_HIST_BUCKETS; b++) {
		if (h->count[b])
			last = b;
		if (h->count[b] > max)
			max = h->count[b];
	}
	if (last < 0) {
		printf("     (no packets measured)\n");
		return;
	}
	printf("%5s%-19s : count    distribution\n", "", "usecs");
	for (b = 0; b <= last; b++) {
		__u64 lo = b ? sj_hist_bound_us(b - 1) : 0;

		if (b == SJ_HIST_LAST)
			printf("%10llu -> %-10s : %-8llu |", (unsigned long long)lo,
			       "inf", (unsigned long long)h->count[b]);
		else
			printf("%10llu -> %-10llu : %-8llu |", (unsigned long long)lo,
			       (unsigned long long)sj_hist_bound_us(b),
			       (unsigned long long)h->count[b]);
		print_stars(h->count[b], max, 40);
		printf("|\n");
	}
	printf("     count %llu  p50 %s  p90 %s  p99 %s  max %s  (a -> b: a < usecs <= b)\n",
	       (unsigned long long)sj_hist_total(h),
	       obs_quantile_str(h, 500, p[0], sizeof(p[0])),
	       obs_quantile_str(h, 900, p[1], sizeof(p[1])),
	       obs_quantile_str(h, 990, p[2], sizeof(p[2])),
	       obs_quantile_str(h, 1000, p[3], sizeof(p[3])));
}

__u64 obs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int obs_parse_seconds(const char *s, __u64 *ns)
{
	bool bare = strspn(s, "0123456789.") == strlen(s);

	/* sj_parse_time reads a bare number as microseconds */
	if (sj_parse_time(s, ns) || (bare && *ns > ~0ULL / 1000000))
		return sj_err("bad interval \"%s\" (seconds, or a time as 500ms)", s);
	if (bare)
		*ns *= 1000000;
	if (*ns < 10000000)
		return sj_err("interval \"%s\" is below 10ms", s);
	return 0;
}
