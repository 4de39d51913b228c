/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What show, hist, top and export share: which attachments to read,
 * reading their settings, counters, queues, histograms and flow tables
 * from the pins (obs.c), naming flows (flowkey.c), the flow filter
 * (flowspec.c), splitting a device's histogram into live flows, evicted
 * flows and packets without a flow (obs.c), and printing histograms
 * (histprint.c).
 */
#ifndef SJ_OBS_H
#define SJ_OBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "common.h"

/* Which attachments a command looks at */
struct obs_filter {
	bool by_netns;
	__u64 cookie;
	__u32 ifindex;		/* 0: any */
	const char *dev;	/* by name, for a device that is gone */
	int dir;		/* enum sj_dir, or -1 for both */
};

/* An attachment's mode and hook as show, export and the schemas name them */
static inline const char *sj_mode_name(__u32 mode)
{
	switch (mode) {
	case SJ_MODE_QUEUE:
		return "queue";
	case SJ_MODE_RATE:
		return "rate";
	case SJ_MODE_OBSERVE:
		return "observe";
	}
	return "unknown";
}

static inline const char *sj_hook_name(const struct sj_meta *m)
{
	switch (m->hook) {
	case SJ_HOOK_TCX:
		return "tcx";
	case SJ_HOOK_CLSACT:
		return "clsact";
	case SJ_HOOK_XDP:
		return m->xdp_mode == SJ_XDP_MODE_NATIVE ? "xdp-native" : "xdp-generic";
	}
	return "unknown";
}

struct obs_att {
	char dir[SJ_PATH_MAX];
	struct sj_meta meta;
};

/* -n NETNS and DEV into a filter; the caller stays in its namespace (the
 * pins are the same from everywhere) unless stay is set. */
int obs_filter_init(struct obs_filter *f, const char *dev, bool stay);
/* the attachment is one the filter takes */
bool obs_filter_match(const struct obs_filter *f, const struct sj_meta *meta);
/* the folder's name (cookie, ifindex, direction) fits the filter: for a
 * folder whose meta cannot be read */
bool obs_filter_match_dir(const struct obs_filter *f, const char *dir);
/* the folder is of another version's layout (pins.c), and if the filter
 * takes it, that is said in one line, once per process: an error where a
 * device was named, a warning where all attachments are walked */
bool obs_foreign(const struct obs_filter *f, const char *dir);
/* every matching attachment; *out is malloc'ed.  Folders of another
 * layout are left out, and counted in *foreign (may be NULL) */
int obs_list(const struct obs_filter *f, struct obs_att **out, int *n,
	     int *foreign);

/* a pinned map, if it has this build's layout (sj_pin_open_map) */
int obs_open_pin(const char *dir, const char *name);
int obs_read_dev(const char *dir, struct sj_dev_hist *h);
int obs_read_stats(const char *dir, struct sj_stats *st);
/* the attachment's settings: its entry (meta->att_id) of the host's table,
 * read under its lock; all zero, and -1, when it cannot be read */
int obs_read_settings(const char *dir, const struct sj_meta *meta,
		      struct sj_settings *set);
/* the attachment's queues: meta->num_txq entries of the host's table from
 * meta->queue_base, each read under its lock, queue i at (*out)[i]; *out is
 * malloc'ed.  All or none: NULL, 0 and -1 when any cannot be read. */
int obs_read_queues(const char *dir, const struct sj_meta *meta,
		    struct sj_queue **out, __u32 *n);

struct obs_flow {
	struct sj_flow_key key;
	struct sj_flow val;
};
/* the whole flow table; *out is malloc'ed (NULL when empty) */
int obs_read_flows(const char *dir, struct obs_flow **out, size_t *n);
/* the next obs_read_flows reads the host's table anew (obs_list does it) */
void obs_flows_forget(void);
void obs_flow_hist(const struct sj_flow *f, struct sj_hist *h);
/* the same histogram taken now and before: what came in between (the
 * 32-bit buckets wrap, so the difference is taken modulo 2^32) */
void obs_flow_hist_delta(const struct sj_flow *now, const struct sj_flow *then,
			 struct sj_hist *h);

#define OBS_ADDR_LEN 48
const char *obs_proto_name(__u8 proto, char *buf, size_t len);
void obs_addr(const struct sj_flow_key *k, bool src, char *buf, size_t len);
/* "tcp 198.18.1.1:40000 > 198.18.2.1:5201" */
void obs_flow_name(const struct sj_flow_key *k, char *buf, size_t len);
const char *obs_netns_label(const struct sj_meta *m, char *buf, size_t len);

/* flowspec.c, tc style: src ADDR dst ADDR sport N dport N proto NAME|N,
 * or "all" */
struct obs_flowspec {
	unsigned have;		/* OBS_FS_* */
	__u8 family_src, family_dst, proto;
	__u32 src[4], dst[4];
	__u16 sport, dport;	/* network order */
};
#define OBS_FS_SRC	1
#define OBS_FS_DST	2
#define OBS_FS_SPORT	4
#define OBS_FS_DPORT	8
#define OBS_FS_PROTO	16
/* parses words from argv; returns how many it took, -1 on bad input */
int obs_flowspec_parse(int argc, char **argv, struct obs_flowspec *s);
bool obs_flowspec_match(const struct obs_flowspec *s, const struct sj_flow_key *k);

/* device = in live flows + without a flow + evicted, per bucket */
struct obs_split {
	struct sj_hist all, flows, noflow, evicted;
	__u64 live;
};
void obs_split(const struct sj_dev_hist *dev, const struct obs_flow *flows,
	       size_t n, struct obs_split *out);

/* histprint.c: bcc's `usecs : count distribution` in text, buckets with
 * bounds in JSON (through output.h), with p50/p90/p99/max */
void obs_hist_print(const char *key, const struct sj_hist *h);
/* "512us", "1.05s", ">16.8s": the bound of the bucket holding permille */
const char *obs_quantile_str(const struct sj_hist *h, unsigned permille,
			     char *buf, size_t len);
/* that bound in microseconds as the JSON field key; null when empty or
 * beyond the last bound */
void obs_quantile_json(const char *key, const struct sj_hist *h,
		       unsigned permille);
/* -i: a bare number is seconds (as top's), or a tc time ("500ms") */
int obs_parse_seconds(const char *s, __u64 *ns);
/* CLOCK_MONOTONIC now, the clock of first_seen_ns / last_seen_ns */
__u64 obs_now_ns(void);

#endif
