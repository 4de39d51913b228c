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

/* One's-complement sum of two 32-bit partial sums (the kernel's csum_add) */
static __always_inline __u32 sj_csum_add32(__u32 a, __u32 b)
{
	a += b;
	return a + (a < b);
}

/*
 * CE on the parsed packet of a tc skb.  IPv4's header checksum absorbs the
 * change, so the sum over the packet stays what it was.  IPv6 has no header
 * checksum: an skb whose driver summed the whole packet (CHECKSUM_COMPLETE,
 * skb->csum) must have the change added, as the kernel's IP6_ECN_set_ce
 * does, or the stack finds a "hw csum failure" and sums it again in
 * software.  bpf_csum_update adds to skb->csum under CHECKSUM_COMPLETE only
 * and does nothing otherwise: under NONE, UNNECESSARY and PARTIAL nothing
 * is owed, the traffic class being in no L4 checksum.
 */
static __always_inline int sj_skb_set_ce(struct __sk_buff *skb,
					 const struct sj_pkt *pkt)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	__be32 *word = data + (pkt->l3_off & SJ_L3_OFF_MAX);
	__be32 from, to;

	if (pkt->key.family != 6)
		return sj_pkt_set_ce(data, data_end, pkt);
	if ((void *)word + sizeof(struct ipv6hdr) > data_end)
		return 0;
	/* version, traffic class and flow label: the word the mark moves */
	from = *word;
	if (!sj_ipv6_set_ce((struct ipv6hdr *)word))
		return 0;
	to = from | bpf_htonl(SJ_ECN_CE << 20);
	if (to != from)
		bpf_csum_update(skb, sj_csum_add32(~from, to));
	return 1;
}

/* skb: the tc program's, so that a mark keeps its checksum state right;
 * NULL for XDP, which has none (a constant: the branch is compiled out) */
static __always_inline int sj_rate_set_ce(struct __sk_buff *skb, void *data,
					  void *data_end,
					  const struct sj_pkt *pkt)
{
	return skb ? sj_skb_set_ce(skb, pkt) : sj_pkt_set_ce(data, data_end, pkt);
}

/*
 * Carries out the verdict on the packet in [data, data_end) and counts it:
 * CE where CoDel signalled an ECT packet or ce_threshold asks for it; skb
 * as sj_rate_set_ce takes it.  Returns 1 when the packet is to be dropped.
 */
static __always_inline int sj_rate_apply(const struct sj_rate_result *r,
					 const struct sj_settings *set,
					 struct sj_stats *st, struct sj_flow *flow,
					 struct __sk_buff *skb,
					 void *data, void *data_end,
					 const struct sj_pkt *pkt, int ect)
{
	switch (r->verdict) {
	case SJ_MARK:
		if (sj_rate_set_ce(skb, data, data_end, pkt)) {
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
	    sj_rate_set_ce(skb, data, data_end, pkt)) {
		st->ce_mark++;
		if (flow)
			__sync_fetch_and_add(&flow->ce_marks, 1);
	}
	return 0;
}

#endif /* SOJOURN_RATE_BPF_H */
