// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tc egress: runs before the packet enters the device's qdisc.  It stamps
 * the packet with its enqueue time, keys it to a flow, and carries out the
 * congestion signals the dequeue side earned for the packet's queue.
 *
 * How the enqueue time travels: in skb->tstamp, as a CLOCK_MONOTONIC
 * delivery time (the same type TCP uses for EDT).  A departure time already
 * in the future is kept as it is, so pacing is never lost or moved earlier;
 * sojourn is then counted from that departure time, not from the enqueue,
 * because waiting for it is intended, not queueing.  Everything else gets
 * "now", which a downstream fq reads as "may leave at once": exactly what a
 * packet without a timestamp means to fq.  CLOCK_TAI times (SO_TXTIME for
 * etf/taprio) are left alone and such packets are not measured.
 */
#include "maps.bpf.h"
#include "parse.h"
#include "observe.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))

/* Headers we may need when the stack left them outside the linear part */
#define SJ_PULL_LEN 128

static __always_inline void sj_stamp(struct __sk_buff *skb, __u64 now,
				     struct sj_stats *st)
{
	if (skb->tstamp_type == BPF_SKB_TSTAMP_DELIVERY_MONO &&
	    skb->tstamp > now) {
		st->edt_kept++;
		return;
	}
	if (skb->tstamp_type != BPF_SKB_TSTAMP_DELIVERY_MONO &&
	    skb->tstamp_type != BPF_SKB_TSTAMP_UNSPEC && skb->tstamp)
		return;
	bpf_skb_set_tstamp(skb, now, BPF_SKB_TSTAMP_DELIVERY_MONO);
}

static __always_inline int sj_parse_skb(struct __sk_buff *skb,
					struct sj_pkt *pkt)
{
	int kind = sj_parse((void *)(long)skb->data,
			    (void *)(long)skb->data_end, pkt);

	if (kind == SJ_PKT_TRUNCATED &&
	    skb->len > skb->data_end - skb->data) {
		__u32 want = skb->len < SJ_PULL_LEN ? skb->len : SJ_PULL_LEN;

		if (bpf_skb_pull_data(skb, want) == 0)
			kind = sj_parse((void *)(long)skb->data,
					(void *)(long)skb->data_end, pkt);
	}
	return kind;
}

/* Sets CE in place; 0 when the header is no longer in reach or Not-ECT. */
static __always_inline int sj_set_ce(struct __sk_buff *skb,
				     const struct sj_pkt *pkt)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	/* 14, 18 or 22: bounded so the verifier can check the access */
	__u32 off = pkt->l3_off & 0x1f;

	if (pkt->key.family == 4) {
		struct iphdr *ip = data + off;

		if ((void *)(ip + 1) > data_end)
			return 0;
		return sj_ipv4_set_ce(ip);
	}
	if (pkt->key.family == 6) {
		struct ipv6hdr *ip6 = data + off;

		if ((void *)(ip6 + 1) > data_end)
			return 0;
		return sj_ipv6_set_ce(ip6);
	}
	return 0;
}

static __always_inline struct sj_flow *sj_flow_get(const struct sj_flow_key *key,
						   __u64 now,
						   struct sj_stats *st)
{
	struct sj_flow *flow = bpf_map_lookup_elem(&flows, key);
	struct sj_flow fresh = { .first_seen_ns = now };

	if (flow)
		return flow;
	/* NOEXIST: another CPU may have created it a moment ago */
	if (bpf_map_update_elem(&flows, key, &fresh, BPF_NOEXIST) == 0)
		st->flows_created++;
	return bpf_map_lookup_elem(&flows, key);
}

/* The queue this packet will leave on, or -1 while we do not know yet. */
static __always_inline int sj_txq_of(struct __sk_buff *skb)
{
	__u32 hash, *txq;

	if (cfg_num_txq <= 1)
		return 0;
	hash = bpf_get_hash_recalc(skb);
	txq = bpf_map_lookup_elem(&txq_of_hash, &hash);
	return txq ? (int)*txq : -1;
}

/* Takes one pending signal of the queue, if there is one. */
static __always_inline int sj_take_signal(struct sj_queue *q)
{
	int taken = 0;

	/* nearly every packet finds none: look before taking the lock, then
	 * look again under it, where the signal is really taken */
	if (!READ_ONCE(q->signals_pending))
		return 0;
	bpf_spin_lock(&q->lock);
	if (q->signals_pending) {
		q->signals_pending--;
		taken = 1;
	}
	bpf_spin_unlock(&q->lock);
	return taken;
}

SEC("tc")
int sojourn_egress(struct __sk_buff *skb)
{
	__u64 now = bpf_ktime_get_ns();
	struct sj_settings *set;
	struct sj_stats *st;
	struct sj_flow *flow;
	struct sj_queue *q;
	struct sj_pkt pkt;
	__u32 zero = 0;
	int kind, txq;

	st = sj_stats_this_cpu();
	set = bpf_map_lookup_elem(&settings, &zero);
	if (!st || !set)
		return SJ_ACT_NEXT;
	st->packets++;
	st->bytes += skb->len;
	sj_stamp(skb, now, st);

	kind = sj_parse_skb(skb, &pkt);
	if (kind >= 0 && kind < SJ_PKT_KINDS)
		st->kind[kind]++;
	if (!pkt.has_flow || kind >= SJ_PKT_FRAGMENT)
		return SJ_ACT_NEXT;

	flow = sj_flow_get(&pkt.key, now, st);
	if (flow) {
		__sync_fetch_and_add(&flow->packets, 1);
		__sync_fetch_and_add(&flow->bytes, skb->len);
		flow->last_seen_ns = now;
	}

	txq = sj_txq_of(skb);
	if (txq < 0)
		return SJ_ACT_NEXT;
	q = bpf_map_lookup_elem(&queues, &txq);
	if (!q)
		return SJ_ACT_NEXT;

	/* ldelay is one aligned word: a racy read is a value the queue had */
	if (pkt.ecn != SJ_ECN_NOT_ECT &&
	    codel_over_ce_threshold(&set->codel, q->vars.ldelay) &&
	    sj_set_ce(skb, &pkt)) {
		st->ce_mark++;
		if (flow)
			__sync_fetch_and_add(&flow->ce_marks, 1);
	}

	if (!sj_take_signal(q))
		return SJ_ACT_NEXT;
	if (set->codel.ecn && pkt.ecn != SJ_ECN_NOT_ECT && sj_set_ce(skb, &pkt)) {
		st->ecn_mark++;
		if (flow)
			__sync_fetch_and_add(&flow->ecn_marks, 1);
		return SJ_ACT_NEXT;
	}
	st->drops++;
	if (flow)
		__sync_fetch_and_add(&flow->drops, 1);
	return SJ_ACT_DROP;
}
