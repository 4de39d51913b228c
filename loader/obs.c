// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reading what the data path measured, for show, hist, top and export:
 * which attachments, their settings, counters, queues, histograms and
 * flow tables.  Only the pins are read, so it works from any namespace.
 * The flow filter is flowspec.c's, the printing of histograms
 * histprint.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "mapread.h"
#include "obs.h"
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

bool obs_filter_match(const struct obs_filter *f, const struct sj_meta *meta)
{
	if (f->by_netns && meta->netns_cookie != f->cookie)
		return false;
	if (f->ifindex && meta->ifindex != f->ifindex)
		return false;
	if (f->dev && !f->ifindex &&
	    strncmp(meta->ifname, f->dev, sizeof(meta->ifname)))
		return false;
	if (f->dir >= 0 && meta->direction != (__u32)f->dir)
		return false;
	return true;
}

/* A folder whose meta cannot be read is matched by its name alone
 * (pins.c: <netns cookie>-<ifindex>-<direction>): an attachment of another
 * layout on another device is none of this command's business. */
bool obs_filter_match_dir(const struct obs_filter *f, const char *dir)
{
	const char *base = strrchr(dir, '/');
	unsigned long long cookie;
	unsigned int ifindex;
	char way[16];

	if (!base || sscanf(base + 1, "%llu-%u-%15s", &cookie, &ifindex, way) != 3)
		return true;	/* not named by us: let it be said */
	if (f->by_netns && cookie != f->cookie)
		return false;
	if (f->ifindex && ifindex != f->ifindex)
		return false;
	if (f->dir >= 0 && strcmp(way, sj_dir_name(f->dir)))
		return false;
	return true;
}

/* Said once per folder per process: top and export read again and again */
static bool said_before(const char *dir)
{
	static char *said[64];
	static unsigned int n;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(said[i], dir))
			return true;
	if (n < sizeof(said) / sizeof(said[0]) && (said[n] = strdup(dir)))
		n++;
	return false;
}

bool obs_foreign(const struct obs_filter *f, const char *dir)
{
	char why[128];

	if (sj_pins_layout(dir, why, sizeof(why)) != -EPROTO)
		return false;
	/* a device asked for by name is an error; a walk goes on */
	if (obs_filter_match_dir(f, dir) && !said_before(dir))
		sj_pins_foreign(dir, why, !f->dev);
	return true;
}

struct list_arg {
	const struct obs_filter *f;
	struct obs_att *v;
	size_t n, cap;
	int foreign;
};

static int list_one(const char *dir, void *arg)
{
	struct list_arg *a = arg;
	const struct obs_filter *f = a->f;
	struct sj_meta meta;
	struct obs_att *v;

	if (obs_foreign(f, dir)) {
		a->foreign += obs_filter_match_dir(f, dir);
		return 0;
	}
	if (sj_meta_read(dir, &meta) || !obs_filter_match(f, &meta))
		return 0;
	v = sj_grow(a->v, &a->cap, a->n, sizeof(*v), 8);
	if (!v)
		return -ENOMEM;
	a->v = v;
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

int obs_list(const struct obs_filter *f, struct obs_att **out, int *n,
	     int *foreign)
{
	struct list_arg a = { .f = f };

	obs_flows_forget();	/* a new pass reads the flows anew */
	if (sj_pins_foreach(list_one, &a) < 0) {
		free(a.v);
		return sj_err("out of memory");
	}
	/* the same order on every read: top and export compare snapshots */
	if (a.n > 1)
		qsort(a.v, a.n, sizeof(*a.v), att_cmp);
	*out = a.v;
	*n = (int)a.n;	/* at most SJ_ATT_MAX attachments per host */
	if (foreign)
		*foreign = a.foreign;
	return 0;
}

/* through pins.c's check: a map of another layout is not opened */
int obs_open_pin(const char *dir, const char *name)
{
	return sj_pin_open_map(dir, name, NULL, 0);
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

int obs_read_settings(const char *dir, const struct sj_meta *meta,
		      struct sj_settings *set)
{
	int fd = obs_open_pin(dir, "settings"), err;

	memset(set, 0, sizeof(*set));
	if (fd < 0)
		return -1;
	err = bpf_map_lookup_elem_flags(fd, &meta->att_id, set, BPF_F_LOCK) ? -1 : 0;
	close(fd);
	return err;
}

int obs_read_queues(const char *dir, const struct sj_meta *meta,
		    struct sj_queue **out, __u32 *n)
{
	struct sj_queue *q = NULL;
	int fd = -1;
	__u32 i;

	*out = NULL;
	*n = 0;
	/* a meta that claims more queues than a device may have is none of
	 * ours: no calloc of what it says */
	if (!meta->num_txq || meta->num_txq > SJ_MAX_TXQ ||
	    (fd = obs_open_pin(dir, "queues")) < 0 ||
	    !(q = calloc(meta->num_txq, sizeof(*q))))
		goto fail;
	for (i = 0; i < meta->num_txq; i++)
		if (bpf_map_lookup_elem_flags(fd, &(__u32){meta->queue_base + i},
					      &q[i], BPF_F_LOCK))
			goto fail;
	close(fd);
	*out = q;
	*n = meta->num_txq;
	return 0;
fail:
	free(q);
	if (fd >= 0)
		close(fd);
	return -1;
}

struct table_read {
	struct obs_flow *v;
	size_t n, cap;
};

static int table_add(const void *key, const void *val, void *ctx)
{
	struct table_read *t = ctx;
	struct obs_flow *nv;

	nv = sj_grow(t->v, &t->cap, t->n, sizeof(*nv), 4096);
	if (!nv)
		return -ENOMEM;
	t->v = nv;
	memcpy(&t->v[t->n].key, key, sizeof(t->v[t->n].key));
	memcpy(&t->v[t->n++].val, val, sizeof(t->v[0].val));
	return 0;
}

/* The whole flow table of the host, as one read: every attachment's */
static int read_table(const char *dir, struct obs_flow **out, size_t *n)
{
	struct table_read t = { 0 };
	int fd, err;

	*out = NULL;
	*n = 0;
	fd = obs_open_pin(dir, "flows");
	if (fd < 0)
		return -1;
	err = sj_map_each(fd, sizeof(struct sj_flow_key), sizeof(struct sj_flow),
			  table_add, &t);
	close(fd);
	if (err) {
		free(t.v);
		return sj_err("cannot read %s/flows: %s", dir, strerror(-err));
	}
	*out = t.v;
	*n = t.n;
	return 0;
}

/*
 * The host's one table holds every attachment's flows: it is read once
 * per pass over the attachments (obs_list and show start one), not once
 * per attachment, which on a node of 500 attachments and a full table
 * was 500 reads of 65536 entries per scrape.
 */
static struct {
	struct obs_flow *v;
	size_t n;
	__u32 map_id;
} table;

void obs_flows_forget(void)
{
	free(table.v);
	memset(&table, 0, sizeof(table));
}

static __u32 flows_map_id(const char *dir)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = obs_open_pin(dir, "flows");

	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		info.id = 0;
	close(fd);
	return info.id;
}

int obs_read_flows(const char *dir, struct obs_flow **out, size_t *n)
{
	struct sj_meta meta;
	__u32 id = flows_map_id(dir);
	size_t i, kept = 0;
	struct obs_flow *v;

	*out = NULL;
	*n = 0;
	if (!id || sj_meta_read(dir, &meta))
		return sj_err("cannot read %s/flows", dir);
	if (!table.map_id || table.map_id != id) {
		obs_flows_forget();
		if (read_table(dir, &table.v, &table.n))
			return -1;
		table.map_id = id;
	}
	v = calloc(table.n ? table.n : 1, sizeof(*v));
	if (!v)
		return sj_err("out of memory");
	for (i = 0; i < table.n; i++)
		if (table.v[i].key.att == meta.att_id)
			v[kept++] = table.v[i];
	*out = v;
	*n = kept;
	return 0;
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
