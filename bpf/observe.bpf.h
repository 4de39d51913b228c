/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Where the data path reports what it measured, for the delay histograms
 * (include/hist.h).  Every program that knows a packet's sojourn calls
 * sj_observe_sojourn(); the real-queue egress calls sj_observe_enqueue() so
 * that the dequeue tracepoint can tell the packet's flow later.
 *
 * Works from tc, XDP and tp_btf programs: sj_observe_sojourn touches only
 * maps.  Maps are __weak, as in maps.bpf.h, so that each object has one.
 */
#ifndef SOJOURN_OBSERVE_BPF_H
#define SOJOURN_OBSERVE_BPF_H

#include "maps.bpf.h"
#include "hist.h"

#define sj_obs_barrier() asm volatile("" ::: "memory")

/* The device histogram, and the part of it that went to no flow: one
 * small map per attachment (maps.bpf.h says why) */
SJ_PER_ATTACHMENT(hist_of, sj_hist_map, struct sj_dev_hist);

/*
 * Real-queue mode: which flow a queued packet belongs to.  Egress runs
 * before the qdisc, the tracepoint after it, and nothing of ours travels
 * with the skb but its hash: egress writes the flow key into slot
 * hash % SJ_FLOW_SLOTS, the tracepoint reads it back and checks that the
 * slot still belongs to that hash.  Another flow whose hash shares the
 * slot and enters in between takes it over; the packet then counts as
 * `noflow`, never to the wrong flow (short of two flows with the same
 * 32-bit hash).  A direct-mapped array: one inlined lookup and a compare
 * per packet, no locks, no map updates.  One for the host: the key holds
 * the attachment, so a slot another device's flow took over reads as
 * `noflow` too, never as the other device's flow.
 */
#define SJ_FLOW_SLOTS		16384	/* a power of two */

struct sj_flow_slot {
	struct sj_flow_key key;
	__u32 hash;		/* skb->hash of the owner; 0 while rewritten */
	__u32 pad;
};

SJ_MAP(flow_slots, BPF_MAP_TYPE_ARRAY, SJ_FLOW_SLOTS, __u32,
       struct sj_flow_slot);

static __always_inline int sj_obs_key_eq(const struct sj_flow_key *a,
					 const struct sj_flow_key *b)
{
	const __u32 *x = (const __u32 *)a, *y = (const __u32 *)b;
	__u32 diff = 0;
	int i;

	for (i = 0; i < (int)(sizeof(*a) / sizeof(__u32)); i++)
		diff |= x[i] ^ y[i];
	return diff == 0;
}

/* A hash of our own for packets the stack left without one (forwarded
 * UDP, ...): any well-mixed value will do, it only has to be stable */
static __always_inline __u32 sj_obs_key_hash(const struct sj_flow_key *k)
{
	const __u32 *w = (const __u32 *)k;
	__u32 h = 0x9e3779b9;
	int i;

	for (i = 0; i < (int)(sizeof(*k) / sizeof(__u32)); i++) {
		h ^= w[i];
		h *= 0x85ebca6b;
		h ^= h >> 13;
	}
	h ^= h >> 16;
	return h ? h : 1;
}

static __always_inline void sj_observe_enqueue(struct __sk_buff *skb,
					       const struct sj_flow_key *key)
{
	struct sj_flow_slot *s;
	__u32 h = skb->hash, idx;

	if (!h) {
		/* a software hash, as the stack would compute one later for
		 * the queue choice anyway; bpf_get_hash_recalc keeps it */
		h = sj_obs_key_hash(key);
		bpf_set_hash(skb, h);
	}
	idx = h & (SJ_FLOW_SLOTS - 1);
	s = bpf_map_lookup_elem(&flow_slots, &idx);
	if (!s)
		return;
	/* nearly always ours already: read, do not write the shared line */
	if (READ_ONCE(s->hash) == h && sj_obs_key_eq(&s->key, key))
		return;
	/* the reader checks the hash before and after copying the key */
	WRITE_ONCE(s->hash, 0);
	sj_obs_barrier();
	s->key = *key;
	sj_obs_barrier();
	WRITE_ONCE(s->hash, h);
}

/* The flow of a packet leaving attachment id's queue, or NULL when its
 * slot was taken over (by another device's flow too: a packet forwarded
 * through two attached devices) or its flow evicted meanwhile. */
static __always_inline struct sj_flow *sj_observe_flow_of(__u32 id, __u32 hash)
{
	struct sj_flow_key key;
	struct sj_flow_slot *s;
	__u32 idx = hash & (SJ_FLOW_SLOTS - 1);

	if (!hash)
		return NULL;
	s = bpf_map_lookup_elem(&flow_slots, &idx);
	if (!s || READ_ONCE(s->hash) != hash)
		return NULL;
	sj_obs_barrier();
	__builtin_memcpy(&key, &s->key, sizeof(key));
	sj_obs_barrier();
	if (READ_ONCE(s->hash) != hash || key.att != id)
		return NULL;
	return bpf_map_lookup_elem(&flows, &key);
}

/*
 * flow may be NULL: the packet had no flow (non-IP, a bad header).
 * one_writer: only this CPU writes the flow's histogram now (the dequeue
 * tracepoint, which one CPU at a time runs for a root qdisc), so plain
 * adds do; rate mode's programs run on every CPU at once and need atomics.
 */
static __always_inline void sj_observe_sojourn_by(__u32 id,
						  struct sj_flow *flow,
						  __u64 sojourn_ns,
						  const int one_writer)
{
	struct sj_dev_hist *h;
	__u32 zero = 0, b = sj_hist_bucket(sojourn_ns);
	void *inner = bpf_map_lookup_elem(&hist_of, &id);

	if (!inner)
		return;
	h = bpf_map_lookup_elem(inner, &zero);
	if (!h)
		return;
	if (b > SJ_HIST_LAST)	/* cannot happen; tells the verifier */
		b = SJ_HIST_LAST;
	/* per CPU: plain adds, nobody else writes this copy */
	h->all.count[b]++;
	h->all.sum_ns += sojourn_ns;
	if (!flow) {
		h->noflow.count[b]++;
		h->noflow.sum_ns += sojourn_ns;
		return;
	}
	if (one_writer) {
		flow->hist[b]++;
		flow->sojourn_sum_ns += sojourn_ns;
		return;
	}
	__sync_fetch_and_add(&flow->hist[b], 1);
	__sync_fetch_and_add(&flow->sojourn_sum_ns, sojourn_ns);
}

/* From the rate path, which has attachment id in hand already */
static __always_inline void sj_observe_sojourn(__u32 id, struct sj_flow *flow,
					       __u64 sojourn_ns)
{
	sj_observe_sojourn_by(id, flow, sojourn_ns, 0);
}

#endif
