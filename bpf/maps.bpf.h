/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Maps and load-time constants shared by tc.bpf.c and dequeue.bpf.c.
 * Both files include this; the definitions are weak so that `bpftool gen
 * object` links them into one object with one copy of each map.
 */
#ifndef SOJOURN_MAPS_BPF_H
#define SOJOURN_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "sojourn.h"
#include "fair.h"

/* A load or store the compiler must make exactly once, as written: for
 * words other CPUs change at the same time without a lock */
#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))

/* Set by the loader before load; the verifier sees them as constants. */
const volatile __u32 cfg_ifindex __weak = 0;
const volatile __u64 cfg_netns_cookie __weak = 0;
const volatile __u32 cfg_num_txq __weak = 1;
const volatile __u32 cfg_link_layer __weak = 0;	/* enum sj_link_layer (parse.h) */
/* What this attachment does: enum sj_mode, enum sj_dir */
const volatile __u32 cfg_mode __weak = SJ_MODE_QUEUE;
const volatile __u32 cfg_direction __weak = SJ_DIR_EGRESS;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sj_settings);
} settings SEC(".maps") __weak;

/* Written once by attach; the programs never read it.  Pinned with the
 * rest so `show` and bpftool can tell what this folder belongs to. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sj_meta);
} meta SEC(".maps") __weak;

/* One CoDel state per transmit queue; max_entries = the device's queues */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sj_queue);
} queues SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sj_stats);
} stats SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SJ_FLOWS_DEFAULT);
	__type(key, struct sj_flow_key);
	__type(value, struct sj_flow);
} flows SEC(".maps") __weak;

/*
 * Which transmit queue a flow's packets leave on, learnt at dequeue: egress
 * runs before the kernel picks the queue, so it cannot know it itself.
 * Keyed by skb->hash, which is the same at both hooks.  Used only on
 * devices with more than one queue.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SJ_TXQ_MAP_SIZE);
	__type(key, __u32);
	__type(value, __u32);
} txq_of_hash SEC(".maps") __weak;

static __always_inline struct sj_stats *sj_stats_this_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

/*
 * A new flow's entry is built here, not on the stack: struct sj_flow is
 * hundreds of bytes, and on the stack it took most of the tc program's
 * 512 (with clang 19 the rate path then left too little for the parse
 * function's frame, each frame rounded up to 32).  Nothing but
 * sj_flow_get writes it, and only first_seen_ns: the rest stays zero.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sj_flow);
} flow_fresh SEC(".maps") __weak;

/* The packet's flow, created on first sight, with the packet counted. */
static __always_inline struct sj_flow *sj_flow_get(const struct sj_flow_key *key,
						   __u64 now, struct sj_stats *st,
						   __u32 len)
{
	struct sj_flow *flow = bpf_map_lookup_elem(&flows, key), *fresh;
	__u32 zero = 0;

	if (!flow) {
		fresh = bpf_map_lookup_elem(&flow_fresh, &zero);
		if (!fresh)
			return NULL;
		fresh->first_seen_ns = now;
		/* NOEXIST: another CPU may have created it a moment ago */
		if (bpf_map_update_elem(&flows, key, fresh, BPF_NOEXIST) == 0)
			st->flows_created++;
		flow = bpf_map_lookup_elem(&flows, key);
		if (!flow)
			return NULL;
	}
	__sync_fetch_and_add(&flow->packets, 1);
	__sync_fetch_and_add(&flow->bytes, len);
	flow->last_seen_ns = now;
	return flow;
}

/* A flow's signal earned at `at` has outlived its reason after one
 * interval (signed: another CPU's clock may read a moment behind) */
static __always_inline int sj_signal_expired(__u64 at, __u64 now,
					     __u64 interval_ns)
{
	return (__s64)(now - at) > (__s64)interval_ns;
}

/* Takes len bytes off a flow's backlog, never below zero, without a lock:
 * enqueues add to it on other CPUs at the same time (fair.h says how, and
 * what the verifier allows). */
static __always_inline void sj_fair_forget(struct sj_flow *flow, __u32 len)
{
	sj_fair_backlog_sub(&flow->backlog, len);
}

#endif /* SOJOURN_MAPS_BPF_H */
