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

/* A map every program of the host shares.  Weak: the files that define it
 * link into one object with one copy of it (`bpftool gen object`). */
#define SJ_MAP(name, map_type, entries, key_t, val_t)			\
	struct {							\
		__uint(type, map_type);					\
		__uint(max_entries, entries);				\
		__type(key, key_t);					\
		__type(value, val_t);					\
	} name SEC(".maps") __weak

/* One val_t per CPU: room the programs' 512 bytes of stack do not have */
#define SJ_SCRATCH(name, val_t)						\
	SJ_MAP(name, BPF_MAP_TYPE_PERCPU_ARRAY, 1, __u32, val_t)

/* Each attachment's own per-CPU val_t, a map of one entry made at attach
 * and pinned in its folder, reached by id through `name`.  The inner map
 * is described by size: the programs reach the value only through a
 * pointer, so the object's BTF would hold no more than its name. */
#define SJ_PER_ATTACHMENT(name, inner, val_t)				\
	struct inner {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);		\
		__uint(max_entries, 1);					\
		__uint(key_size, sizeof(__u32));			\
		__uint(value_size, sizeof(val_t));			\
	};								\
	struct {							\
		__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);		\
		__uint(max_entries, SJ_ATT_MAX);			\
		__type(key, __u32);					\
		__array(values, struct inner);				\
	} name SEC(".maps") __weak

/*
 * One object per host.  The programs are loaded once (per hook, mode,
 * direction, link layer and network namespace: the constants below) and
 * every attachment links the loaded program to its device; what is its own
 * sits in the maps here, found by its id (struct sj_att).  Settings and
 * queues hold a bpf_spin_lock, which an inner map of a map-in-map may not
 * (kernel/bpf/map_in_map.c, 6.1 to 6.18: -ENOTSUPP), so they are arrays
 * indexed by id; the per-CPU counters and histogram are small maps of
 * each attachment's own (stats_of, hist_of), made at attach and pinned in
 * its folder, so that their size follows the attachments there are.
 */
const volatile __u64 cfg_netns_cookie __weak = 0;
const volatile __u32 cfg_link_layer __weak = 0;	/* enum sj_link_layer (parse.h) */
/* What this program does: enum sj_mode, enum sj_dir */
const volatile __u32 cfg_mode __weak = SJ_MODE_QUEUE;
const volatile __u32 cfg_direction __weak = SJ_DIR_EGRESS;

/* The attachments: device, netns and direction to id and queues */
SJ_MAP(attachments, BPF_MAP_TYPE_HASH, SJ_ATT_MAX, struct sj_att_key,
       struct sj_att);

SJ_MAP(settings, BPF_MAP_TYPE_ARRAY, SJ_ATT_MAX, __u32, struct sj_settings);

/* One CoDel state per transmit queue: an attachment's are queue_base.. */
SJ_MAP(queues, BPF_MAP_TYPE_ARRAY, SJ_QUEUES_HOST, __u32, struct sj_queue);

SJ_PER_ATTACHMENT(stats_of, sj_stats_map, struct sj_stats);

SJ_MAP(flows, BPF_MAP_TYPE_LRU_HASH, SJ_FLOWS_HOST, struct sj_flow_key,
       struct sj_flow);

/*
 * Which transmit queue a flow's packets leave on, learnt at dequeue: egress
 * runs before the kernel picks the queue, so it cannot know it itself.
 * Keyed by skb->hash, which is the same at both hooks, and the attachment.
 * Used only on devices with more than one queue.
 */
struct sj_txq_key {
	__u32 hash;
	__u32 att;
};

SJ_MAP(txq_of_hash, BPF_MAP_TYPE_LRU_HASH, SJ_TXQ_MAP_SIZE, struct sj_txq_key,
       __u32);

/*
 * The attachment the running tc or XDP program serves, found once at its
 * start.  Per CPU: tc and XDP programs run with bottom halves off and do
 * not nest on a CPU; the dequeue tracepoint, which may fire wherever a
 * packet leaves, passes its attachment by hand and never touches this.
 * The key is built here too: the tc program's rate path has no stack to
 * spare.
 */
struct sj_here {
	struct sj_att_key key;
	struct sj_att att;
};

SJ_SCRATCH(here, struct sj_here);

/* This program's attachment on ifindex, or NULL: attached a moment ago
 * and not yet registered, or going away.  Made the current one. */
static __always_inline struct sj_att *sj_here_enter(__u32 ifindex)
{
	struct sj_here *h;
	struct sj_att *att;
	__u32 zero = 0;

	h = bpf_map_lookup_elem(&here, &zero);
	if (!h)
		return NULL;
	h->key.netns_cookie = cfg_netns_cookie;
	h->key.ifindex = ifindex;
	h->key.dir = cfg_direction;
	att = bpf_map_lookup_elem(&attachments, &h->key);
	if (!att)
		return NULL;
	h->att = *att;
	return &h->att;
}

static __always_inline __u32 sj_here_id(void)
{
	__u32 zero = 0;
	struct sj_here *h = bpf_map_lookup_elem(&here, &zero);

	return h ? h->att.id : 0;
}

static __always_inline struct sj_stats *sj_stats_of(__u32 id)
{
	__u32 zero = 0;
	void *inner = bpf_map_lookup_elem(&stats_of, &id);

	return inner ? bpf_map_lookup_elem(inner, &zero) : NULL;
}

/* Queue txq of the attachment (txq < its num_txq, checked by callers) */
static __always_inline struct sj_queue *sj_queue_of(const struct sj_att *att,
						    __u32 txq)
{
	__u32 idx = att->queue_base + txq;

	return bpf_map_lookup_elem(&queues, &idx);
}

static __always_inline struct sj_stats *sj_stats_this_cpu(void)
{
	return sj_stats_of(sj_here_id());
}

/*
 * A new flow's entry is built here, not on the stack: struct sj_flow is
 * hundreds of bytes, and on the stack it took most of the tc program's
 * 512 (with clang 19 the rate path then left too little for the parse
 * function's frame, each frame rounded up to 32).  Nothing but
 * sj_flow_get writes it, and only first_seen_ns: the rest stays zero.
 */
SJ_SCRATCH(flow_fresh, struct sj_flow);

/*
 * Whether the attachment may add one more flow to the host's table: at
 * most flows_cap in a window.  Racy by design (every CPU moves the count
 * without a lock): a bound on churn, not an exact count.
 */
static __always_inline int sj_flow_budget(struct sj_settings *set, __u64 now)
{
	__u64 at = READ_ONCE(set->flows_window_at);

	if (!set->flows_cap)
		return 1;
	if (sj_since(now, at) >= SJ_FLOW_WINDOW_NS) {
		WRITE_ONCE(set->flows_window_at, now);
		WRITE_ONCE(set->flows_window_count, 0);
	}
	return __sync_fetch_and_add(&set->flows_window_count, 1) < set->flows_cap;
}

/* The packet's flow, created on first sight within the attachment's
 * budget, with the packet counted. */
static __always_inline struct sj_flow *sj_flow_get(const struct sj_flow_key *key,
						   __u64 now, struct sj_stats *st,
						   struct sj_settings *set,
						   __u32 len)
{
	struct sj_flow *flow = bpf_map_lookup_elem(&flows, key), *fresh;
	__u32 zero = 0;

	if (!flow) {
		if (!sj_flow_budget(set, now)) {
			st->flows_capped++;
			return NULL;
		}
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

/*
 * What a packet's law and virtual queue run on, read whole: one retune's
 * CoDel parameters, interval, fairness and rate, never half of two.  The
 * lock that makes it so cost ~50 ns of the dequeue program's ~290 when it
 * was taken on every packet (bench/live.sh at 1k flows, 6.18 under KVM:
 * bpf_spin_lock saves and restores interrupts).  So each CPU keeps a copy,
 * made under the lock and stamped with the settings' written_ns, and a
 * packet takes the lock only when the stamp it reads is not its copy's.
 * That is safe because the loader writes settings whole with BPF_F_LOCK
 * (sj_settings_put), which holds this same lock across the copy (kernel
 * copy_map_value_locked, 5.1-6.18): a reader that sees the new stamp
 * before the rest of the value waits on the lock for all of it, and one
 * that still sees the old stamp uses the copy of the old value, whole.
 * Direct-mapped by id: an attachment whose slot another took copies
 * again, as every packet did before.  The programs that share a copy
 * (tc, XDP, the tracepoint) run with bottom halves off and do not nest
 * on a CPU.
 */
struct sj_law {
	__u64 written_ns;	/* the settings' stamp this copy was made from */
	__u32 att_id;		/* whose copy; 0: none yet */
	__u32 fair;
	struct codel_params codel;
	__u64 interval_ns;
	__u64 rate_Bps;
	__u64 burst_bytes;
	__u64 horizon_ns;
};

#define SJ_LAW_SLOTS	64	/* a power of two */

SJ_MAP(law_copies, BPF_MAP_TYPE_PERCPU_ARRAY, SJ_LAW_SLOTS, __u32,
       struct sj_law);

static __always_inline const struct sj_law *sj_law_of(struct sj_settings *set,
						     __u32 id)
{
	__u32 slot = id & (SJ_LAW_SLOTS - 1);
	struct sj_law *law = bpf_map_lookup_elem(&law_copies, &slot);
	__u64 written = READ_ONCE(set->written_ns);

	if (!law)
		return NULL;
	/* a value no command stamped (0) is copied every time */
	if (written && law->att_id == id && law->written_ns == written)
		return law;
	bpf_spin_lock(&set->lock);
	law->written_ns = set->written_ns;
	law->fair = set->fair;
	law->codel = set->codel;
	law->interval_ns = set->interval_ns;
	law->rate_Bps = set->rate_Bps;
	law->burst_bytes = set->burst_bytes;
	law->horizon_ns = set->horizon_ns;
	bpf_spin_unlock(&set->lock);
	law->att_id = id;
	return law;
}

/* A flow's signal earned at `at` has outlived its reason after one
 * interval (signed: another CPU's clock may read a moment behind) */
static __always_inline int sj_signal_expired(__u64 at, __u64 now,
					     __u64 interval_ns)
{
	return (__s64)(now - at) > (__s64)interval_ns;
}

#endif /* SOJOURN_MAPS_BPF_H */
