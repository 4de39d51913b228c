/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Rate mode, shared by the tc program (egress, or ingress under tcx or
 * clsact) and the XDP program: the virtual queue (include/vqueue.h) and the
 * CoDel law (include/codel.h) decide each packet's fate as it arrives, since
 * the packet's sojourn is known the moment it joins the queue.
 *
 * One lock guards the clock and the law's state: senders on every CPU push
 * the same clock, and an update lost to a race would let the rate drift.
 */
#ifndef SOJOURN_RATE_BPF_H
#define SOJOURN_RATE_BPF_H

#include "maps.bpf.h"
#include "vqueue.h"

enum sj_verdict {
	SJ_PASS,
	SJ_MARK,	/* CoDel's signal, carried as CE */
	SJ_DROP,	/* CoDel's signal, carried as a drop */
	SJ_OVERLIMIT,	/* would leave beyond the horizon */
};

struct sj_rate_result {
	__u64 start_ns;		/* when the packet starts to leave */
	__u64 sojourn_ns;
	int verdict;
};

/*
 * exempt: a packet we could not parse; it moves the clock but is always
 * passed.  ecn_capable: the packet is ECT, so a signal may be a CE mark.
 */
static __always_inline void sj_rate_admit(struct sj_settings *set,
					  struct sj_queue *q, __u64 now,
					  __u32 len, int exempt, int ecn_capable,
					  struct sj_rate_result *r)
{
	struct codel_params params;
	__u64 rate, burst, horizon, credit_ns, tx_ns, start, backlog = 0;
	int signal;

	bpf_spin_lock(&set->lock);
	params = set->codel;
	rate = set->rate_Bps;
	burst = set->burst_bytes;
	horizon = set->horizon_ns;
	bpf_spin_unlock(&set->lock);

	r->verdict = SJ_PASS;
	r->start_ns = now;
	r->sojourn_ns = 0;
	if (!rate)
		return;		/* not configured: never reached after attach */
	/* divisions outside the lock: it is held for a few loads and stores */
	credit_ns = sj_vq_tx_ns(burst, rate);
	tx_ns = sj_vq_tx_ns(len, rate);

	bpf_spin_lock(&q->lock);
	start = sj_vq_start(q->departure_ns, now, credit_ns);
	r->start_ns = start;
	r->sojourn_ns = sj_vq_sojourn(start, now);
	if (exempt) {
		q->departure_ns = start + tx_ns;
		bpf_spin_unlock(&q->lock);
		return;
	}
	if (r->sojourn_ns > horizon) {
		bpf_spin_unlock(&q->lock);
		r->verdict = SJ_OVERLIMIT;
		return;
	}
	if (!codel_time_before(CODEL_NS(r->sojourn_ns), params.target))
		backlog = sj_vq_backlog(r->sojourn_ns, rate);
	signal = codel_dequeue(&q->vars, &params, CODEL_NS(now),
			       CODEL_NS(r->sojourn_ns),
			       backlog > 0xffffffffULL ? 0xffffffffU : (__u32)backlog);
	if (signal && !(params.ecn && ecn_capable)) {
		/* a dropped packet never uses the link: the clock stays */
		bpf_spin_unlock(&q->lock);
		r->verdict = SJ_DROP;
		return;
	}
	q->departure_ns = start + tx_ns;
	if (len > q->maxpacket)
		q->maxpacket = len;
	bpf_spin_unlock(&q->lock);
	if (signal)
		r->verdict = SJ_MARK;
}

#endif /* SOJOURN_RATE_BPF_H */
