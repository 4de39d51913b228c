/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fairness in the programs: the flow's and the queue's sums that the
 * arithmetic of include/fair.h reads and moves, for tc.bpf.c, dequeue.bpf.c
 * and rate.bpf.h (so the XDP program too).
 */
#ifndef SOJOURN_FAIR_BPF_H
#define SOJOURN_FAIR_BPF_H

#include "maps.bpf.h"
#include "fair.h"

/* Takes len bytes off a flow's backlog, never below zero, without a lock:
 * enqueues add to it on other CPUs at the same time (fair.h says how, and
 * what the verifier allows). */
static __always_inline void sj_fair_forget(struct sj_flow *flow, __u32 len)
{
	sj_fair_backlog_sub(&flow->backlog, len);
}

/*
 * The bound on what goes ahead of queue q (fair.h), read and moved by every
 * CPU without the lock: estimates.  sj_ahead_room: whether len more bytes
 * may go ahead now; sj_ahead_took: len bytes went ahead; sj_ahead_sent:
 * the queue sent len bytes, ahead or not (real-queue mode: its dequeuer;
 * rate mode: each admission).  Real-queue mode steers by them, rate mode
 * lets sparse packets start at once.
 */
static __always_inline int sj_ahead_room(const struct sj_queue *q, __u64 now,
					 __u64 tau_ns, __u32 quantum, __u32 len)
{
	return sj_fair_sparse_room(READ_ONCE(q->steered_recent),
				   sj_since(now, READ_ONCE(q->steered_at)),
				   READ_ONCE(q->sent_recent),
				   sj_since(now, READ_ONCE(q->sent_at)),
				   tau_ns, quantum, len);
}

/* len more bytes in a sum that decays as sj_fair_recent does */
static __always_inline void sj_recent_add(__u64 *recent, __u64 *at,
					  __u64 now, __u64 tau_ns, __u32 len)
{
	WRITE_ONCE(*recent, sj_fair_recent(READ_ONCE(*recent),
					   sj_since(now, READ_ONCE(*at)),
					   tau_ns, len));
	WRITE_ONCE(*at, now);
}

/* Whether flow is sparse once a packet adding bytes to its rate
 * (sj_fair_sparse_bytes) counts: at most a quantum over about the last
 * interval (fair.h).  Both modes judge by it. */
static __always_inline int sj_flow_sparse(struct sj_flow *flow, __u64 now,
					  __u64 tau_ns, __u32 quantum,
					  __u32 bytes)
{
	sj_recent_add(&flow->recent_bytes, &flow->recent_at, now, tau_ns,
		      bytes);
	return flow->recent_bytes <= quantum;
}

static __always_inline void sj_ahead_took(struct sj_queue *q, __u64 now,
					  __u64 tau_ns, __u32 len)
{
	sj_recent_add(&q->steered_recent, &q->steered_at, now, tau_ns, len);
}

static __always_inline void sj_ahead_sent(struct sj_queue *q, __u64 now,
					  __u64 tau_ns, __u32 len)
{
	sj_recent_add(&q->sent_recent, &q->sent_at, now, tau_ns, len);
}

#endif /* SOJOURN_FAIR_BPF_H */
