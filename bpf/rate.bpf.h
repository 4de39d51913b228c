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
#include "fair.bpf.h"
#include "vqueue.h"
#include "parse.h"

/*
 * Whether a flow's packet goes ahead of the virtual queue's bulk (vqueue.h):
 * the flow sent at most a quantum over about the last interval, and what
 * went ahead over it stays within the bound real-queue mode has (fair.h:
 * an eighth of what the queue admitted, or two quanta); one the bound
 * holds back is counted here.  The queue's sums are estimates every CPU
 * moves without the lock.
 */
static __always_inline int sj_rate_sparse(const struct sj_settings *set,
					  struct sj_stats *st,
					  struct sj_queue *q,
					  struct sj_flow *flow,
					  const struct sj_pkt *pkt, __u64 now,
					  __u32 len)
{
	__u64 tau = set->interval_ns;
	int room;

	if (!sj_flow_sparse(flow, now, tau, set->quantum,
			    sj_fair_sparse_bytes(sj_pkt_tcp(pkt), len,
						 pkt->hdr_len)))
		return 0;
	room = sj_ahead_room(q, now, tau, set->quantum, len);
	st->sparse_bounded += !room;
	return room;
}

/*
 * len: the packet's length as the hook sees it; wire: what it costs on the
 * link (sj_rate_wire), which the clock moves by.  exempt: a packet we could not parse; it gets
 * no CoDel signal but is held to the horizon like the rest.  ecn_capable:
 * the packet is ECT, so a signal may be a CE mark.  flow and pkt: the
 * packet's flow (NULL: none), which may go ahead (sj_rate_sparse), and
 * what the parser read of it.
 */
static __always_inline void sj_rate_admit(__u32 id, struct sj_settings *set,
					  struct sj_stats *st,
					  struct sj_queue *q,
					  struct sj_flow *flow,
					  const struct sj_pkt *pkt, __u64 now,
					  __u32 len, __u64 wire,
					  int exempt, int ecn_capable,
					  struct sj_rate_result *r)
{
	struct sj_vq_pkt vq = { .now = now, .len = len,
				.exempt = !!exempt,
				.ecn_capable = !!ecn_capable };
	const struct sj_law *law = sj_law_of(set, id);
	__u64 credit_ns;

	r->verdict = SJ_PASS;
	r->start_ns = now;
	r->sojourn_ns = 0;
	if (!law || !law->rate_Bps)
		return;		/* settings not written yet: pass */
	/* divisions outside the queue's lock: it is held for a few loads
	 * and stores */
	credit_ns = sj_vq_tx_ns(law->burst_bytes, law->rate_Bps);
	vq.tx_ns = sj_vq_tx_ns(wire, law->rate_Bps);
	if (flow && !exempt)
		vq.sparse = sj_rate_sparse(set, st, q, flow, pkt, now, len);
	vq.ceiling_ns = sj_vq_ceiling(&law->codel, law->horizon_ns, &vq);

	bpf_spin_lock(&q->lock);
	sj_vq_admit(q, &law->codel, law->rate_Bps, credit_ns, &vq, r);
	bpf_spin_unlock(&q->lock);
	if (r->verdict != SJ_PASS && r->verdict != SJ_MARK)
		return;
	/* what the queue admits, and what of it went ahead, set the bound */
	if (vq.sparse) {
		st->sparse_steered++;
		sj_ahead_took(q, now, set->interval_ns, len);
	}
	sj_ahead_sent(q, now, set->interval_ns, len);
}

/*
 * What a packet or aggregate costs on the link (include/wire.h).  The
 * model is read outside the settings' lock, as a copy under it does not
 * fit the tc program's stack: a retune racing a packet may price that one
 * packet by a mix of the old and the new model.
 */
static __always_inline __u64 sj_rate_wire(const struct sj_settings *set,
					  const struct sj_wire_frame *frame)
{
	return sj_wire_bytes(&set->wire, frame);
}

/*
 * Sets CE on a tc program's packet through the skb helpers, never by a
 * direct write: a program that writes packet data directly gets the
 * verifier's unclone prologue (bpf_unclone_prologue, net/core/filter.c,
 * 5.18-6.18), which copies every cloned skb on entry, written to or not,
 * and drops it when that allocation fails.  bpf_skb_store_bytes makes the
 * skb writable only for the packets it marks.  IPv4: the header checksum
 * is updated with bpf_l3_csum_replace.  IPv6: BPF_F_RECOMPUTE_CSUM moves
 * skb->csum with the mark under CHECKSUM_COMPLETE, as the kernel's
 * IP6_ECN_set_ce does.  Returns 1 when the packet carries CE now, 0 when
 * it is Not-ECT or its header is out of reach.
 */
static __always_inline int sj_skb_set_ce(struct __sk_buff *skb,
					 const struct sj_pkt *pkt)
{
	__u32 off = pkt->l3_off & SJ_L3_OFF_MAX;
	__u8 b[2];

	/* IPv4: version/ihl and tos; IPv6: the bytes the traffic class
	 * straddles */
	if (bpf_skb_load_bytes(skb, off, b, sizeof(b)))
		return 0;
	if (pkt->key.family == 4) {
		__u16 old, new;

		if ((b[1] & SJ_ECN_MASK) == SJ_ECN_NOT_ECT)
			return 0;
		if ((b[1] & SJ_ECN_MASK) == SJ_ECN_CE)
			return 1;
		__builtin_memcpy(&old, b, sizeof(old));
		b[1] |= SJ_ECN_CE;
		__builtin_memcpy(&new, b, sizeof(new));
		if (bpf_l3_csum_replace(skb, off + offsetof(struct iphdr, check),
					old, new, sizeof(new)))
			return 0;
		return !bpf_skb_store_bytes(skb, off, b, sizeof(b), 0);
	}
	if (pkt->key.family == 6) {
		if (((b[1] >> 4) & SJ_ECN_MASK) == SJ_ECN_NOT_ECT)
			return 0;
		if (((b[1] >> 4) & SJ_ECN_MASK) == SJ_ECN_CE)
			return 1;
		b[1] |= SJ_ECN_CE << 4;
		return !bpf_skb_store_bytes(skb, off + 1, &b[1], 1,
					    BPF_F_RECOMPUTE_CSUM);
	}
	return 0;
}

/* skb: the tc program's, so that a mark keeps its checksum state right;
 * NULL for XDP, which has none.  Chosen when the object is compiled, not
 * at run time: a direct write left anywhere in the tc program, even on a
 * branch it never takes, would give it the unclone prologue. */
static __always_inline int sj_rate_set_ce(struct __sk_buff *skb, void *data,
					  void *data_end,
					  const struct sj_pkt *pkt)
{
#ifdef SJ_PROG_XDP
	return sj_pkt_set_ce(data, data_end, pkt);
#else
	return sj_skb_set_ce(skb, pkt);
#endif
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
