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
#include "parse.h"

/*
 * exempt: a packet we could not parse; it gets no CoDel signal but is held
 * to the horizon like the rest.  ecn_capable: the packet is ECT, so a
 * signal may be a CE mark.
 */
static __always_inline void sj_rate_admit(struct sj_settings *set,
					  struct sj_queue *q, __u64 now,
					  __u32 len, int exempt, int ecn_capable,
					  struct sj_rate_result *r)
{
	struct sj_vq_pkt pkt = { .now = now, .len = len, .exempt = !!exempt,
				 .ecn_capable = !!ecn_capable };
	struct codel_params params;
	__u64 rate, burst, horizon, credit_ns;

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
		return;		/* settings not written yet: pass */
	/* divisions outside the lock: it is held for a few loads and stores */
	credit_ns = sj_vq_tx_ns(burst, rate);
	pkt.tx_ns = sj_vq_tx_ns(len, rate);

	bpf_spin_lock(&q->lock);
	sj_vq_admit(q, &params, rate, credit_ns, horizon, &pkt, r);
	bpf_spin_unlock(&q->lock);
}

/*
 * Carries out the verdict on the packet in [data, data_end) and counts it:
 * CE where CoDel signalled an ECT packet or ce_threshold asks for it.
 * Returns 1 when the packet is to be dropped.
 */
static __always_inline int sj_rate_apply(const struct sj_rate_result *r,
					 const struct sj_settings *set,
					 struct sj_stats *st, struct sj_flow *flow,
					 void *data, void *data_end,
					 const struct sj_pkt *pkt, int ect)
{
	switch (r->verdict) {
	case SJ_MARK:
		if (sj_pkt_set_ce(data, data_end, pkt)) {
			st->ecn_mark++;
			if (flow)
				__sync_fetch_and_add(&flow->ecn_marks, 1);
			return 0;
		}
		/* fall through: the header went out of reach */
	case SJ_DROP:
		st->drops++;
		if (flow)
			__sync_fetch_and_add(&flow->drops, 1);
		return 1;
	case SJ_OVERLIMIT:
		st->drop_overlimit++;
		if (flow)
			__sync_fetch_and_add(&flow->drops, 1);
		return 1;
	}
	if (ect && codel_over_ce_threshold(&set->codel, CODEL_NS(r->sojourn_ns)) &&
	    sj_pkt_set_ce(data, data_end, pkt)) {
		st->ce_mark++;
		if (flow)
			__sync_fetch_and_add(&flow->ce_marks, 1);
	}
	return 0;
}

#endif /* SOJOURN_RATE_BPF_H */
