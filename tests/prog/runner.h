/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One frame through one of our programs with BPF_PROG_TEST_RUN, nothing
 * attached: the tc program in real-queue mode, the tc program in rate mode
 * and the XDP program, each with its own maps.  Reports the verdict, the
 * frame that came back, the change of every counter, queue 0 after the run
 * and the flow table.
 */
#ifndef SJ_TEST_RUNNER_H
#define SJ_TEST_RUNNER_H

#include <errno.h>
#include <stdarg.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "corpus.h"
#include "rodata.h"
#include "stats.h"
#include "testrun.h"

struct runner {
	const char *name;
	int prog, settings, queues, stats, flows;
	int frags;		/* the fragments' first-fragment memory */
	int xdp;
	int rate;		/* rate mode: the horizon is its drop rule */
	int pass, drop;		/* its verdicts */
	int ncpu;
	struct sj_stats *percpu;
};

/* What the run starts from */
struct rn_setup {
	int ecn;
	__u64 ce_threshold_ns;	/* 0: off */
	/* queue mode: the flow the run's packet belongs to, whose law is
	 * seeded with `pending` and `ldelay_ns` (NULL: no flow seeded) */
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
	r->stats = bpf_object__find_map_fd_by_name(obj, "stats");
	r->flows = bpf_object__find_map_fd_by_name(obj, "flows");
	r->frags = bpf_object__find_map_fd_by_name(obj, "frag_flows");
	if (r->settings < 0 || r->queues < 0 || r->stats < 0 || r->flows < 0 ||
	    r->frags < 0)
		rn_die("maps by name");
	r->xdp = xdp;
	r->rate = rate;
	r->pass = xdp ? 2 /* XDP_PASS */ : SJ_ACT_NEXT;
	r->drop = xdp ? 1 /* XDP_DROP */ : SJ_ACT_DROP;
	r->ncpu = libbpf_num_possible_cpus();
	r->percpu = calloc(r->ncpu, sizeof(*r->percpu));
	if (r->ncpu <= 0 || !r->percpu)
		rn_die("possible cpus");
}

static inline void rn_stats(const struct runner *r, struct sj_stats *sum)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(r->stats, &zero, r->percpu))
		rn_die("read stats");
	memset(sum, 0, sizeof(*sum));
	for (int c = 0; c < r->ncpu; c++)
		for (size_t i = 0; i < NSTAT; i++)
			((__u64 *)sum)[i] += ((__u64 *)&r->percpu[c])[i];
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
	__u32 zero = 0;

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
	if (bpf_map_update_elem(r->settings, &zero, &set, 0))
		rn_die("write settings");
	if (bpf_map_update_elem(r->queues, &zero, &q, 0))
		rn_die("write queues[0]");
	rn_flows_clear(r);
	rn_frags_clear(r);
	if (!r->rate && s->flow) {
		struct sj_flow f = {
			.first_seen_ns = rn_mono_ns(),
			.codel = { .dropping = 1,
				   .ldelay = CODEL_NS(s->ldelay_ns) },
			.signal_at = s->pending ? rn_mono_ns() : 0,
		};

		if (bpf_map_update_elem(r->flows, s->flow, &f, BPF_NOEXIST))
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
	__u32 zero = 0;

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
	if (prepare && bpf_map_lookup_elem(r->queues, &zero, &res->q))
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
	snprintf(buf, n, "{fam %u proto %u %s:%u > %s:%u}", k->family,
		 k->proto, s, ntohs(k->sport), d, ntohs(k->dport));
}

#endif /* SJ_TEST_RUNNER_H */
