/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One frame through one of our programs with BPF_PROG_TEST_RUN, nothing
 * attached: the tc program in real-queue mode, the tc program in rate mode
 * and the XDP program, each with its own maps.  Reports the verdict, the
 * frame that came back, the change of every counter, queue 0 after the run
 * and the flow table.
 *
 * The programs are loaded once per host and find the state of the
 * attachment a packet belongs to by its device (bpf/maps.bpf.h: the
 * `attachments` map, then settings[id], queues[queue_base..], stats_of[id]
 * and hist_of[id]).  rn_register() makes a runner's one test attachment;
 * everything the tests read or write of it goes through the rn_* helpers
 * below, with its id and queue base.
 */
#ifndef SJ_TEST_RUNNER_H
#define SJ_TEST_RUNNER_H

#include <errno.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "corpus.h"
#include "rodata.h"
#include "stats.h"
#include "testrun.h"

/*
 * Where BPF_PROG_TEST_RUN's packet arrives: the skb of a tc program and
 * the frame of an XDP program are the loopback device's of the calling
 * network namespace (net/bpf/test_run.c), ifindex 1.  The programs' key
 * also holds cfg_netns_cookie, which the tests leave at its default, 0.
 */
#define RN_IFINDEX		1
#define RN_NETNS_COOKIE		0
/* An attachment's queues: from queue_base, away from 0 so that a program
 * that forgets the base reads another attachment's (none) */
#define RN_QUEUES_PER_ATT	16
#define RN_QUEUE_BASE(id)	((id) * RN_QUEUES_PER_ATT + 3)

struct runner {
	const char *name;
	int prog, settings, queues, flows;
	int attachments, stats_of, hist_of;	/* the host's maps */
	int stats, hist;	/* the test attachment's own (inner) maps;
				 * -1 until rn_register */
	int frags;		/* the fragments' first-fragment memory */
	int senders;		/* convicted senders (-1: none in the object) */
	int xdp;
	int rate;		/* rate mode: the horizon is its drop rule */
	int pass, drop;		/* its verdicts */
	int ncpu;
	struct sj_stats *percpu;
	struct sj_att att;	/* the registered attachment */
	struct sj_att_key key;	/* and where the programs find it */
};

/* What the run starts from */
struct rn_setup {
	int ecn;
	__u64 ce_threshold_ns;	/* 0: off */
	/* queue mode: the flow the run's packet belongs to, whose law is
	 * seeded with `pending` and `ldelay_ns` (NULL: no flow seeded); its
	 * key as the parser makes it, seeded as the attachment's (rn_key) */
	const struct sj_flow_key *flow;
	__u32 pending;		/* a signal waits on that flow */
	__u64 ldelay_ns;	/* that flow's, and the queue's, last sojourn */
	__u64 ahead_ns;		/* rate mode: the virtual queue's backlog */
};

struct run_res {
	int err;
	int retval;
	__u32 out_len;
	struct sj_stats d;	/* after minus before */
	struct sj_queue q;
	int seeded;		/* the flow existed before the run */
	int nflows;
	struct sj_flow_key key;	/* the last flow found */
	struct sj_flow flow;
	__u8 out[FR_MAX];
};

static inline __u64 rn_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void rn_die(const char *what)
{
	printf("FAIL setup: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* libbpf's messages but its debug ones */
static inline int rn_quiet(enum libbpf_print_level level, const char *fmt,
			   va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

/* A program that would not load: skip (77) where BPF is not to be had,
 * else fail */
static inline void rn_load_failed(int err, const char *what)
{
	if (err == -EPERM || err == -ENOSYS || err == -EOPNOTSUPP) {
		printf("SKIP: BPF unavailable: %s\n", strerror(-err));
		exit(77);
	}
	printf("FAIL load %s: %s\n", what, strerror(-err));
	exit(1);
}

/* Every packet test's start: lines out as they are written, skip (77)
 * without root, and libbpf's messages but its debug ones */
static inline void rn_begin(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		printf("SKIP: needs root for BPF_PROG_TEST_RUN\n");
		exit(77);
	}
	libbpf_set_print(rn_quiet);
}

static inline void rn_init(struct runner *r, const char *name,
			   struct bpf_object *obj, struct bpf_program *prog,
			   int xdp, int rate)
{
	const char *why = sj_stat_names_fill();

	if (why) {
		printf("FAIL setup: the counters' names: %s\n", why);
		exit(1);
	}
	r->name = name;
	r->prog = bpf_program__fd(prog);
	r->settings = bpf_object__find_map_fd_by_name(obj, "settings");
	r->queues = bpf_object__find_map_fd_by_name(obj, "queues");
	r->flows = bpf_object__find_map_fd_by_name(obj, "flows");
	r->frags = bpf_object__find_map_fd_by_name(obj, "frag_flows");
	r->senders = bpf_object__find_map_fd_by_name(obj, "senders");
	r->attachments = bpf_object__find_map_fd_by_name(obj, "attachments");
	r->stats_of = bpf_object__find_map_fd_by_name(obj, "stats_of");
	r->hist_of = bpf_object__find_map_fd_by_name(obj, "hist_of");
	if (r->settings < 0 || r->queues < 0 || r->flows < 0 || r->frags < 0 ||
	    r->attachments < 0 || r->stats_of < 0 || r->hist_of < 0)
		rn_die("maps by name");
	r->stats = r->hist = -1;
	memset(&r->att, 0, sizeof(r->att));
	memset(&r->key, 0, sizeof(r->key));
	r->xdp = xdp;
	r->rate = rate;
	r->pass = xdp ? 2 /* XDP_PASS */ : SJ_ACT_NEXT;
	r->drop = xdp ? 1 /* XDP_DROP */ : SJ_ACT_DROP;
	r->ncpu = libbpf_num_possible_cpus();
	r->percpu = calloc(r->ncpu, sizeof(*r->percpu));
	if (r->ncpu <= 0 || !r->percpu)
		rn_die("possible cpus");
}

/* Closes what rn_init and rn_register made (the programs' maps stay) */
static inline void rn_fini(struct runner *r)
{
	if (r->stats >= 0)
		close(r->stats);
	if (r->hist >= 0)
		close(r->hist);
	r->stats = r->hist = -1;
	free(r->percpu);
	r->percpu = NULL;
}

/*
 * The runner's one test attachment, as the loader makes one: attachment id
 * (1..SJ_ATT_MAX-1) in `mode`, found by the programs on RN_IFINDEX in
 * direction `dir` (enum sj_dir: the program's cfg_direction), with num_txq
 * queues from RN_QUEUE_BASE(id).  Its per-CPU counters and histogram are
 * maps of its own, made here and put in stats_of[id] and hist_of[id]; its
 * queues are zeroed.  Called again, it replaces the one before.
 */
static inline void rn_register(struct runner *r, __u32 id, __u32 mode,
			       __u32 dir, __u32 num_txq)
{
	struct sj_queue q = {};
	__u32 base = RN_QUEUE_BASE(id);

	if (!id || id >= SJ_ATT_MAX || !num_txq ||
	    num_txq > RN_QUEUES_PER_ATT || base + num_txq > SJ_QUEUES_HOST) {
		errno = EINVAL;
		rn_die("attachment id or queues out of range");
	}
	if (r->stats >= 0)
		close(r->stats);
	if (r->hist >= 0)
		close(r->hist);
	if (r->key.ifindex)
		bpf_map_delete_elem(r->attachments, &r->key);
	r->stats = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "sj_test_stats",
				  sizeof(__u32), sizeof(struct sj_stats), 1, NULL);
	if (r->stats < 0)
		rn_die("create the attachment's stats");
	r->hist = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "sj_test_hist",
				 sizeof(__u32), sizeof(struct sj_dev_hist), 1,
				 NULL);
	if (r->hist < 0)
		rn_die("create the attachment's histogram");
	if (bpf_map_update_elem(r->stats_of, &id, &r->stats, 0))
		rn_die("write stats_of[id]");
	if (bpf_map_update_elem(r->hist_of, &id, &r->hist, 0))
		rn_die("write hist_of[id]");
	r->att = (struct sj_att){ .id = id, .num_txq = num_txq,
				  .queue_base = base, .mode = mode };
	for (__u32 i = 0; i < num_txq; i++) {
		__u32 idx = base + i;

		if (bpf_map_update_elem(r->queues, &idx, &q, 0))
			rn_die("zero the attachment's queues");
	}
	r->key = (struct sj_att_key){ .netns_cookie = RN_NETNS_COOKIE,
				      .ifindex = RN_IFINDEX, .dir = dir };
	if (bpf_map_update_elem(r->attachments, &r->key, &r->att, 0))
		rn_die("write the attachment");
}

/*
 * The attachment, found on another device or in another direction from
 * now on (its id, maps and state kept): with any but RN_IFINDEX and the
 * program's direction, test_run's packets find no attachment.
 * -errno, or 0.
 */
static inline int rn_rekey(struct runner *r, __u32 ifindex, __u32 dir)
{
	struct sj_att_key k = r->key;

	k.ifindex = ifindex;
	k.dir = dir;
	if (bpf_map_delete_elem(r->attachments, &r->key) ||
	    bpf_map_update_elem(r->attachments, &k, &r->att, BPF_NOEXIST))
		return -errno;
	r->key = k;
	return 0;
}

/* The attachment's settings (settings[id]); flags: BPF_F_LOCK or 0.
 * -errno, or 0 */
static inline int rn_settings_write(const struct runner *r,
				    const struct sj_settings *set, __u64 flags)
{
	return bpf_map_update_elem(r->settings, &r->att.id, set, flags) ?
	       -errno : 0;
}

static inline int rn_settings_read(const struct runner *r,
				   struct sj_settings *set, __u64 flags)
{
	return bpf_map_lookup_elem_flags(r->settings, &r->att.id, set, flags) ?
	       -errno : 0;
}

/* The attachment's queue txq (queues[queue_base + txq]); -errno, or 0 */
static inline int rn_queue_write(const struct runner *r, __u32 txq,
				 const struct sj_queue *q, __u64 flags)
{
	__u32 idx = r->att.queue_base + txq;

	if (txq >= r->att.num_txq)
		return -ERANGE;
	return bpf_map_update_elem(r->queues, &idx, q, flags) ? -errno : 0;
}

static inline int rn_queue_read(const struct runner *r, __u32 txq,
				struct sj_queue *q, __u64 flags)
{
	__u32 idx = r->att.queue_base + txq;

	if (txq >= r->att.num_txq)
		return -ERANGE;
	return bpf_map_lookup_elem_flags(r->queues, &idx, q, flags) ? -errno : 0;
}

/* The attachment's counters, summed over the CPUs */
static inline void rn_stats(const struct runner *r, struct sj_stats *sum)
{
	__u32 zero = 0;

	if (r->stats < 0 || bpf_map_lookup_elem(r->stats, &zero, r->percpu))
		rn_die("read stats");
	memset(sum, 0, sizeof(*sum));
	for (int c = 0; c < r->ncpu; c++)
		for (size_t i = 0; i < NSTAT; i++)
			((__u64 *)sum)[i] += ((__u64 *)&r->percpu[c])[i];
}

/* The samples in the attachment's own device histogram (`all`), summed
 * over the CPUs and buckets */
static inline __u64 rn_hist_count(const struct runner *r)
{
	struct sj_dev_hist *h = calloc(r->ncpu, sizeof(*h));
	__u32 zero = 0;
	__u64 n = 0;

	if (!h || r->hist < 0 || bpf_map_lookup_elem(r->hist, &zero, h))
		rn_die("read hist");
	for (int c = 0; c < r->ncpu; c++)
		for (int b = 0; b < SJ_HIST_BUCKETS; b++)
			n += h[c].all.count[b];
	free(h);
	return n;
}

/* A flow key as the program makes it for this attachment: the parser's
 * key and the attachment's id (one table holds every attachment's flows) */
static inline struct sj_flow_key rn_key(const struct runner *r,
					const struct sj_flow_key *k)
{
	struct sj_flow_key w = *k;

	w.att = r->att.id;
	return w;
}

/* The flows in the table that are attachment id's */
static inline int rn_flows_of(const struct runner *r, __u32 id)
{
	struct sj_flow_key k, prev;
	int n = 0, first = 1;

	while (bpf_map_get_next_key(r->flows, first ? NULL : &prev, &k) == 0) {
		n += k.att == id;
		prev = k;
		first = 0;
	}
	return n;
}

static inline void rn_flows_clear(const struct runner *r)
{
	struct sj_flow_key k;

	while (bpf_map_get_next_key(r->flows, NULL, &k) == 0)
		if (bpf_map_delete_elem(r->flows, &k))
			rn_die("delete flow");
}

/* Forgets every first fragment seen: a later fragment run next is one
 * whose first the program has not seen */
static inline void rn_frags_clear(const struct runner *r)
{
	struct sj_frag_key k;

	while (bpf_map_get_next_key(r->frags, NULL, &k) == 0)
		if (bpf_map_delete_elem(r->frags, &k))
			rn_die("delete a fragment's datagram");
}

static inline void rn_prepare(const struct runner *r, const struct rn_setup *s)
{
	struct sj_settings set = {
		.codel = {
			.target = CODEL_MS(5),
			.interval = CODEL_MS(100),
			.ce_threshold = s->ce_threshold_ns ?
				CODEL_NS(s->ce_threshold_ns) : CODEL_DISABLED_THRESHOLD,
			.mtu = 1514,
			.ecn = s->ecn,
		},
		.target_ns = 5000000,
		.interval_ns = 100000000,
		.ce_threshold_ns = s->ce_threshold_ns,
	};
	struct sj_queue q = {};

	if (r->rate) {
		set.rate_Bps = SJ_MAX_RATE_BYTES_PER_S;
		set.burst_bytes = SJ_DEFAULT_BURST_BYTES;
		set.horizon_ns = SJ_DEFAULT_HORIZON_US * 1000ULL;
		if (s->ahead_ns)
			q.departure_ns = rn_mono_ns() + s->ahead_ns;
	} else {
		q.vars.dropping = 1;
		q.vars.ldelay = CODEL_NS(s->ldelay_ns);
	}
	if ((errno = -rn_settings_write(r, &set, 0)))
		rn_die("write settings");
	if ((errno = -rn_queue_write(r, 0, &q, 0)))
		rn_die("write queues[0]");
	rn_flows_clear(r);
	rn_frags_clear(r);
	if (!r->rate && s->flow) {
		struct sj_flow f = {
			.first_seen_ns = rn_mono_ns(),
			.ldelay = CODEL_NS(s->ldelay_ns),
			.signal_at = s->pending ? rn_mono_ns() : 0,
		};

		/* the flow of the packet in this attachment */
		struct sj_flow_key k = rn_key(r, s->flow);

		if (bpf_map_update_elem(r->flows, &k, &f, BPF_NOEXIST))
			rn_die("seed the flow");
	}
}

/* prepare: write the setup first (0 when the last run left it as it was) */
static inline void rn_run(const struct runner *r, const void *data, __u32 len,
			  const struct rn_setup *s, int prepare,
			  struct run_res *res)
{
	struct sj_run o = { .out = res->out, .out_size = sizeof(res->out) };
	struct sj_stats before, after;
	struct sj_flow_key k, *prev = NULL;

	if (prepare) {
		rn_prepare(r, s);
		res->seeded = !r->rate && s->flow;
	}
	rn_stats(r, &before);
	res->err = sj_test_run(r->prog, data, len, &o);
	res->retval = o.retval;
	res->out_len = o.out_len;
	rn_stats(r, &after);
	for (size_t i = 0; i < NSTAT; i++)
		((__u64 *)&res->d)[i] = ((__u64 *)&after)[i] -
					((__u64 *)&before)[i];
	if (prepare && (errno = -rn_queue_read(r, 0, &res->q, 0)))
		rn_die("read queues[0]");
	res->nflows = 0;
	while (bpf_map_get_next_key(r->flows, prev, &k) == 0) {
		res->key = k;
		prev = &res->key;
		res->nflows++;
	}
	if (res->nflows && bpf_map_lookup_elem(r->flows, &res->key, &res->flow))
		rn_die("read flow");
}

static inline void rn_fmt_key(const struct sj_flow_key *k, char *buf, size_t n)
{
	char s[INET6_ADDRSTRLEN] = "?", d[INET6_ADDRSTRLEN] = "?";
	int af = k->family == 6 ? AF_INET6 : AF_INET;

	inet_ntop(af, k->saddr, s, sizeof(s));
	inet_ntop(af, k->daddr, d, sizeof(d));
	snprintf(buf, n, "{fam %u proto %u %s:%u > %s:%u att %u}", k->family,
		 k->proto, s, ntohs(k->sport), d, ntohs(k->dport), k->att);
}

#endif /* SJ_TEST_RUNNER_H */
