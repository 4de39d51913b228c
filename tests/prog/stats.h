/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The counters of struct sj_stats by name, for the packet tests: each
 * named with its offset and the parsed kinds with the product's own names
 * (SJ_PKT_KIND_NAMES, by kind), so a reordered struct or enum changes no
 * name and no judgement.  A counter added without a name here fails the
 * build; sj_stat_names_fill() says when one is named twice.
 */
#ifndef SJ_TEST_STATS_H
#define SJ_TEST_STATS_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "sojourn.h"

#define NSTAT	(sizeof(struct sj_stats) / sizeof(__u64))
_Static_assert(sizeof(struct sj_stats) % sizeof(__u64) == 0, "stats are u64");

/* What a counter says, so a test picks the ones it judges */
enum sj_stat_group {
	SJ_STAT_PACKET = 1,	/* what the packet met: verdict, marks, flows */
	SJ_STAT_KIND = 2,	/* kind[]: what the parser found */
	SJ_STAT_FAIR = 4,	/* fairness: depends on earlier frames' backlog
				 * and on time; tests/e2e/fair_*.sh and
				 * test_fair judge them */
	SJ_STAT_DEQUEUE = 8,	/* the dequeue side: how the flows' signals
				 * fared, repeats, reordering */
	SJ_STAT_FRAG = 16,	/* fragments keyed without their first */
};

struct sj_stat_name {
	const char *name;
	size_t off;		/* in struct sj_stats */
	int group;
};

#define SJ_STAT(field, group) { #field, offsetof(struct sj_stats, field), group }
static const struct sj_stat_name sj_stat_fields[] = {
	SJ_STAT(packets, SJ_STAT_PACKET),
	SJ_STAT(bytes, SJ_STAT_PACKET),
	SJ_STAT(drops, SJ_STAT_PACKET),
	SJ_STAT(ecn_mark, SJ_STAT_PACKET),
	SJ_STAT(ce_mark, SJ_STAT_PACKET),
	SJ_STAT(drop_overlimit, SJ_STAT_PACKET),
	SJ_STAT(flows_created, SJ_STAT_PACKET),
	SJ_STAT(dequeued, SJ_STAT_PACKET),
	SJ_STAT(unmeasured, SJ_STAT_PACKET),
	SJ_STAT(edt_kept, SJ_STAT_PACKET),
	SJ_STAT(new_flow_count, SJ_STAT_FAIR),
	SJ_STAT(sparse_steered, SJ_STAT_FAIR),
	SJ_STAT(sparse_bounded, SJ_STAT_FAIR),
	SJ_STAT(unresponsive_drops, SJ_STAT_FAIR),
	SJ_STAT(tcp_answers, SJ_STAT_FAIR),
	SJ_STAT(rate_answers, SJ_STAT_FAIR),
	SJ_STAT(backlog_answers, SJ_STAT_FAIR),
	SJ_STAT(signals, SJ_STAT_DEQUEUE),
	SJ_STAT(signals_expired, SJ_STAT_DEQUEUE),
	SJ_STAT(signals_deferred, SJ_STAT_DEQUEUE),
	SJ_STAT(dequeue_repeats, SJ_STAT_DEQUEUE),
	SJ_STAT(frag_unmatched, SJ_STAT_FRAG),
	SJ_STAT(reordered, SJ_STAT_DEQUEUE),
	SJ_STAT(reordered_ahead, SJ_STAT_DEQUEUE),
	SJ_STAT(flows_capped, SJ_STAT_PACKET),
	SJ_STAT(ack_echoes, SJ_STAT_PACKET),
	SJ_STAT(ack_echo_declined, SJ_STAT_PACKET),
};
#undef SJ_STAT
#define SJ_STAT_NFIELDS	(sizeof(sj_stat_fields) / sizeof(sj_stat_fields[0]))
_Static_assert(SJ_STAT_NFIELDS + SJ_PKT_KINDS == NSTAT, "a name for every counter");

static const char *const sj_kind_names[SJ_PKT_KINDS] = SJ_PKT_KIND_NAMES;

/* Every counter: the fields above, then "kind[NAME]" for each kind */
static struct sj_stat_name sj_stat_names[NSTAT];
static char sj_kind_stat_names[SJ_PKT_KINDS][40];

static inline __u64 sj_stat(const struct sj_stats *s, size_t off)
{
	return *(const __u64 *)((const char *)s + off);
}

/* Fills sj_stat_names; NULL, or what is wrong with the names: a kind
 * without a name, a counter named twice (then another has none) */
static inline const char *sj_stat_names_fill(void)
{
	static char why[96];
	int seen[NSTAT] = { 0 };
	size_t n = 0;

	for (size_t i = 0; i < SJ_STAT_NFIELDS; i++)
		sj_stat_names[n++] = sj_stat_fields[i];
	for (int k = 0; k < SJ_PKT_KINDS; k++) {
		if (!sj_kind_names[k]) {
			snprintf(why, sizeof(why), "kind %d has no name", k);
			return why;
		}
		snprintf(sj_kind_stat_names[k], sizeof(sj_kind_stat_names[k]),
			 "kind[%s]", sj_kind_names[k]);
		sj_stat_names[n++] = (struct sj_stat_name){
			sj_kind_stat_names[k],
			offsetof(struct sj_stats, kind) + k * sizeof(__u64),
			SJ_STAT_KIND };
	}
	for (size_t i = 0; i < NSTAT; i++)
		if (seen[sj_stat_names[i].off / sizeof(__u64)]++) {
			snprintf(why, sizeof(why), "counter at %zu named twice",
				 sj_stat_names[i].off);
			return why;
		}
	return NULL;
}

#endif /* SJ_TEST_STATS_H */
