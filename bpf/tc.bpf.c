// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The tc program.  In real-queue mode it runs at egress, before the packet
 * enters the device's qdisc: it stamps the packet with its enqueue time,
 * keys it to a flow, and carries out the congestion signal the dequeue side
 * (dequeue.bpf.c) earned for that flow.  In observe mode it only stamps
 * and keys.  In rate mode it runs at egress or ingress and decides each
 * packet on the spot against the virtual queue (rate.bpf.h).
 *
 * How the enqueue time travels: in the skb's control block, which the
 * qdisc layer leaves to classifiers (include/sojourn.h, SJ_CB_*), never in
 * skb->tstamp.  The sender's departure time there (TCP's EDT, SO_TXTIME,
 * CLOCK_TAI for etf/taprio) and "no time" (which fq reads as "pace by the
 * socket's SO_MAX_PACING_RATE") reach the qdisc as they were written, on
 * every kernel.  A packet whose departure time lies in the future is not
 * measured: the wait for it is intended, and fed to the law as sojourn 0 it
 * would hide the queue.
 */
#include "maps.bpf.h"
#include "parse.h"
#include "rate.bpf.h"
#include "observe.bpf.h"
#include "frag.bpf.h"
#include "sender.bpf.h"
#include "fair.bpf.h"
#include "fair.h"
#include "ackecho.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Headers we may need when the stack left them outside the linear part */
#define SJ_PULL_LEN 128

static __always_inline int sj_future_edt(struct __sk_buff *skb, __u64 now)
{
	return skb->tstamp_type == BPF_SKB_TSTAMP_DELIVERY_MONO &&
	       skb->tstamp > now;
}

/* The enqueue time into cb[]; a packet we will not measure gets none. */
static __always_inline void sj_stamp(struct __sk_buff *skb, __u64 now,
				     struct sj_stats *st)
{
	__u32 lo = (__u32)now, hi = (__u32)(now >> 32);

	if (sj_future_edt(skb, now)) {
		st->edt_kept++;
		lo = hi = 0;
	}
	skb->cb[SJ_CB_STAMP_LO] = lo;
	skb->cb[SJ_CB_STAMP_HI] = hi;
	if (cfg_mode == SJ_MODE_QUEUE)
		skb->cb[SJ_CB_CHECK] = sj_cb_check(lo, hi);
}

/* Whether the network header lies less than k bytes past data: a read of
 * one byte, head - k past it, ends inside the linear data only then (the
 * helper's bound, below); 0 < k <= head. */
static __always_inline int sj_net_before(struct __sk_buff *skb, __u32 head,
					 __u32 k)
{
	__u8 b;

	return !bpf_skb_load_bytes_relative(skb, head - k, &b, 1,
					    BPF_HDR_START_NET);
}

/*
 * Where this packet's IP header lies on a device whose packets come with
 * and without a link-layer header: an IFB, into which an Ethernet device's
 * ingress redirects its frames from the Ethernet header and an L3 device's
 * (tun, WireGuard, ppp: sqm-style ingress shaping) from the IP header
 * (act_mirred pushes back the mac_len it pulled, 0 on an L3 device).  No
 * field of __sk_buff says where the network header is, but
 * bpf_skb_load_bytes_relative reads from it and fails when the read would
 * pass the end of the linear data, which at tc is data_end: one byte
 * SJ_ETH_HLEN short of that end, counted from the network header, is
 * inside only when the network header lies less than SJ_ETH_HLEN past
 * data, that is at data itself (net/core/filter.c, 4.18-6.18; the network
 * header is where the receiving device left it, on the IP header, and
 * stays there through the redirect and bpf_skb_pull_data).  -1 when the
 * linear data is too short or too long (past the helper's 64 KB offset)
 * to tell.
 */
#define SJ_ETH_HLEN	14

static __always_inline int sj_skb_link(struct __sk_buff *skb)
{
	__u32 head = skb->data_end - skb->data;

	if (head <= SJ_ETH_HLEN || head - SJ_ETH_HLEN > 0xffff)
		return -1;
	return sj_net_before(skb, head, SJ_ETH_HLEN) ? SJ_LINK_L3 : SJ_LINK_ETHER;
}

/*
 * How far past data the network header lies, on a device that may write
 * a header of its own in front of the IP header (SJ_LINK_AT_NET).  A GRE
 * device with no fixed remote (NBMA, a multicast remote; ip6gre's ::) has
 * header_ops: at egress neigh_resolve_output's dev_hard_header writes the
 * tunnel's outer IP and GRE header in front while the network header
 * stays on the inner one; at ingress __ipgre_rcv leaves the mac header on
 * the outer header, tc pushes back to it, and ip_tunnel_rcv resets the
 * network header on the inner one (Linux 4.x to 6.18, ip_gre.c,
 * ip_tunnel.c; measured on 6.1 with an NBMA gre device, both hooks).
 * Without header_ops (a fixed remote, `external`) the IP header is at
 * data, which one read tells; otherwise one read more says it lies within
 * SJ_L3_OFF_MAX + 1 bytes and a search of 6 finds it, whatever the outer
 * header's form (IPv4 or IPv6, GRE's checksum, key and sequence words):
 * the kernel already knows where it ends.  -1 when
 * the linear data is too short to hold the IP header's first byte, -2
 * when the header lies further in than the parser reaches or the data is
 * too long for the helper's 64 KB offset.
 */
static __always_inline int sj_skb_net_off(struct __sk_buff *skb)
{
	__u32 head = skb->data_end - skb->data, lo = 1, hi = SJ_L3_OFF_MAX + 1;
	int i;

	if (!head)
		return -1;
	if (head > 0xffff)
		return -2;
	if (sj_net_before(skb, head, 1))
		return 0;
	if (hi > head)
		hi = head;
	if (!sj_net_before(skb, head, hi))
		return hi < SJ_L3_OFF_MAX + 1 ? -1 : -2;
	/* the offset is in [lo, hi) */
SJ_UNROLL
	for (i = 0; i < 6; i++) {
		__u32 mid = (lo + hi) / 2;

		if (hi - lo <= 1)
			break;
		if (sj_net_before(skb, head, mid))
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/*
 * The parser as a global function: the verifier checks it once, on its
 * own, instead of once per path that reaches each of its call sites (every
 * link layer, tag depth and label depth times every IP header form), which
 * is what made attach slow.
 */
__noinline int sj_parse_frame(struct __sk_buff *skb, struct sj_pkt *pkt)
{
	/* a GSO aggregate may be BIG TCP: IPv4 total length 0 */
	int gso = skb->gso_size != 0, kind, link = cfg_link_layer, off = 0;

	if (!pkt)
		return SJ_PKT_TRUNCATED;
	if (link == SJ_LINK_EITHER)
		link = sj_skb_link(skb);
	if (link == SJ_LINK_AT_NET) {
		off = sj_skb_net_off(skb);
		if (off < 0) {
			/* a head too short is pulled and searched again */
			__builtin_memset(pkt, 0, sizeof(*pkt));
			return off == -1 ? SJ_PKT_TRUNCATED : SJ_PKT_NON_IP;
		}
		link = SJ_LINK_L3;
	}
	if (link < 0) {
		/* a head too short to tell is pulled and told again */
		__builtin_memset(pkt, 0, sizeof(*pkt));
		return skb->data_end - skb->data <= SJ_ETH_HLEN ?
			SJ_PKT_TRUNCATED : SJ_PKT_NON_IP;
	}
	kind = sj_parse_link((void *)(long)skb->data,
			     (void *)(long)skb->data_end, link, off,
			     skb->protocol, gso, pkt);
	/* a fragment joins its datagram's flow (frag.bpf.h); never
	 * truncated, so never parsed twice */
	if (kind == SJ_PKT_FRAGMENT)
		sj_frag_join(skb, pkt);
	return kind;
}

static __always_inline int sj_parse_skb(struct __sk_buff *skb,
					struct sj_pkt *pkt)
{
	int kind = sj_parse_frame(skb, pkt);

	if (kind == SJ_PKT_TRUNCATED &&
	    skb->len > skb->data_end - skb->data) {
		__u32 want = skb->len < SJ_PULL_LEN ? skb->len : SJ_PULL_LEN;

		if (bpf_skb_pull_data(skb, want) == 0)
			kind = sj_parse_frame(skb, pkt);
	}
	return kind;
}

static __always_inline int sj_set_ce(struct __sk_buff *skb,
				     const struct sj_pkt *pkt)
{
	return sj_skb_set_ce(skb, pkt);
}

/* The queue this packet will leave on, or -1 while we do not know yet. */
static __always_inline int sj_txq_of(struct __sk_buff *skb,
				     const struct sj_att *att)
{
	struct sj_txq_key k;
	__u32 *txq;

	if (att->num_txq <= 1)
		return 0;
	k.hash = bpf_get_hash_recalc(skb);
	k.att = att->id;
	txq = bpf_map_lookup_elem(&txq_of_hash, &k);
	return txq && *txq < att->num_txq ? (int)*txq : -1;
}

/*
 * Takes the flow's pending signal, if it has one that is still owed: one
 * earned more than an interval ago has outlived its reason (the flow went
 * quiet meanwhile) and expires instead.  Egress packets of the flow may
 * race each other here; the compare-and-swap lets one of them take it.
 */
static __always_inline int sj_take_signal(struct sj_flow *flow, __u64 now,
					  __u64 interval_ns,
					  struct sj_stats *st)
{
	__u64 at = READ_ONCE(flow->signal_at);

	if (!at)
		return 0;
	if (__sync_val_compare_and_swap(&flow->signal_at, at, 0) != at)
		return 0;
	if (sj_signal_expired(at, now, interval_ns)) {
		st->signals_expired++;
		return 0;
	}
	return 1;
}

/* One of the queue's means (`seen`: as this packet read it) moved toward
 * a flow's sample, by the time since a flow last moved it (`at`; fair.h:
 * sj_fair_mean_move) */
static __always_inline void sj_queue_mean_move(__u64 *mean, __u64 *at,
					       __u64 seen, __u64 sample,
					       __u64 now, __u64 interval_ns)
{
	WRITE_ONCE(*mean, sj_fair_mean_move(seen, sample,
					    sj_since(now, READ_ONCE(*at)),
					    interval_ns));
	WRITE_ONCE(*at, now);
}

/*
 * Fairness at enqueue (include/fair.h): the flow's backlog grows by this
 * packet; a sparse flow is sent ahead; an unresponsive heavy flow loses
 * its excess.  Returns 1 when the packet is dropped, and says in *heavy
 * whether the flow holds more than the mean, in *carry whether it may
 * carry out a signal it owes (fair.h: sj_fair_takes_signal).
 */
static __always_inline int sj_fair_enqueue(struct __sk_buff *skb,
					   struct sj_settings *set,
					   struct sj_stats *st,
					   struct sj_flow *flow,
					   const struct sj_pkt *pkt,
					   struct sj_queue *q, __u64 now,
					   int *heavy, int *carry)
{
	__u64 ldelay = CODEL_TO_NS(READ_ONCE(q->vars.ldelay));
	__u64 backlog = READ_ONCE(flow->backlog), mean, mean_rate;
	/* the flow's last path, and when it was decided: a packet kept in
	 * the bulk queue a moment ago on another CPU counts as enqueued
	 * before its bytes and backlog_at are written (fair.h) */
	__u64 path = READ_ONCE(flow->path);
	__u64 last_at = sj_fair_path_at(path) > flow->backlog_at ?
			sj_fair_path_at(path) : flow->backlog_at;
	int left = sj_fair_left_for_sure(backlog, last_at, flow->forgot_at,
					 now, set->interval_ns, ldelay,
					 set->target_ns,
					 READ_ONCE(q->bulk_left));
	__u32 len = skb->len;
	int tcp = sj_pkt_tcp(pkt), sparse, ahead;

	if (!backlog || sj_fair_stale(flow->backlog_at, now, ldelay,
				      set->target_ns)) {
		/* what it had queued has left: a new flow, as fq_codel
		 * counts them; a racing dequeue cannot take it below 0 */
		if (backlog)
			flow->forgot_at = now;
		backlog = 0;
		WRITE_ONCE(flow->backlog, 0);
		st->new_flow_count++;
	}
	sparse = sj_flow_sparse(flow, now, set->interval_ns, set->quantum,
				sj_fair_sparse_bytes(tcp, len, pkt->hdr_len));
	/* Sent ahead only if that cannot pass a packet of its own: the flow
	 * has nothing queued (for sure, fair.h), or all it has queued went
	 * ahead too (its last packet did, and every one before that, by the
	 * same rule).  Claimed against the flow's other CPU (fair.h:
	 * sj_fair_path_claim); without steering only a word that still says
	 * "ahead" is put back to bulk, so that turning steering on later
	 * does not trust it. */
	ahead = set->sparse_priority && sparse &&
		(left || (path & SJ_PATH_AHEAD)) &&
		sj_ahead_room(q, now, set->interval_ns, set->quantum, len);
	if (set->sparse_priority || (path & SJ_PATH_AHEAD))
		ahead = sj_fair_path_claim(&flow->path, path, now, ahead);
	if (ahead && set->sparse_priority) {
		skb->priority = set->sparse_priority;
		st->sparse_steered++;
		sj_ahead_took(q, now, set->interval_ns, len);
	} else if (set->sparse_priority && sparse) {
		st->sparse_bounded++;
	}
	if (!set->fair) {
		/* plain CoDel: any flow may take the queue's signal, and
		 * nothing below is read */
		*heavy = 1;
		goto admit;
	}
	/* the queue's mean rate, read once: the answer's gate, who takes the
	 * signal, how long to answer, and the step below (fair.h) */
	mean_rate = READ_ONCE(q->mean_recent);
	if (tcp) {
		int payload = skb->len > pkt->hdr_len;

		/* the sender cut its window: the signals it took are answered */
		if (sj_fair_tcp_answer(pkt->tcp_flags, pkt->tcp_seq,
				       flow->tcp_high, payload)) {
			st->tcp_answers++;
			flow->judged_since = 0;
			flow->signals_heavy = 0;
		}
		flow->tcp_high = sj_fair_tcp_high(pkt->tcp_seq, flow->tcp_high,
						  payload);
	} else {
		/* no answer in its packets: a fall of its rate, or of its
		 * backlog while judged, is one (fair.h) */
		int by_rate = 0, by_backlog = 0;

		if (flow->judged_since || flow->drop_p) {
			int near = sj_fair_answer_near_share(flow->recent_bytes,
							     mean_rate);
			int rate_fell = sj_fair_rate_answer(flow->recent_bytes,
							    flow->judged_peak);
			/* not while convicted: our drops shrink it too */
			int backlog_fell = !flow->drop_p &&
				sj_fair_backlog_answer(backlog,
						       flow->backlog_peak);

			/* an answer once a fall near its share has lasted */
			if (!near || !(rate_fell || backlog_fell))
				flow->answer_at = 0;
			else if (!flow->answer_at)
				flow->answer_at = now;
			else if (sj_fair_answer_held(flow->answer_at, now,
						     set->interval_ns)) {
				by_rate = rate_fell;
				by_backlog = !rate_fell;
			}
		}
		st->rate_answers += by_rate;
		st->backlog_answers += by_backlog;
		if (by_rate || by_backlog) {
			flow->judged_since = 0;
			flow->signals_heavy = 0;
			flow->drop_p = 0;
		}
		if (!flow->judged_since && !flow->drop_p) {
			/* not judged: no answer to read, no peak to keep */
			flow->judged_peak = 0;
			flow->backlog_peak = 0;
			flow->answer_at = 0;
		} else {
			if (flow->recent_bytes > flow->judged_peak)
				flow->judged_peak = flow->recent_bytes;
			flow->backlog_peak = sj_fair_backlog_peak(backlog,
							flow->backlog_peak);
		}
	}
	mean = READ_ONCE(q->mean_backlog);
	*heavy = sj_fair_heavy(backlog, mean);
	/* by its rate, this packet counted, as the law judged it */
	*carry = sj_fair_takes_signal(flow->recent_bytes,
				      mean_rate,
				      sj_since(now, READ_ONCE(flow->signal_at)),
				      set->interval_ns / SJ_FAIR_GRACE_DIV);
	if (*heavy) {
		flow->light_since = 0;
	} else {
		/* light since its last packet, if it sent nothing for an
		 * interval: it held nothing all that time (fair.h:
		 * sj_fair_light_from) */
		if (!flow->light_since)
			flow->light_since = sj_fair_light_from(flow->backlog_at,
							now, set->interval_ns);
		flow->judged_since = 0;
		flow->signals_heavy = 0;
	}
	/* judged unresponsive: took signals while heavy and answered none
	 * in time (fair.h: sj_fair_answer_intervals), while the queue stands
	 * above target; acquitted after an interval of being light */
	if (*heavy && ldelay > set->target_ns && !flow->drop_p) {
		if (sj_fair_unresponsive(flow->judged_since, now,
				set->interval_ns, flow->signals_heavy,
				sj_fair_answer_intervals(tcp,
					sj_fair_above_share(flow->recent_bytes,
							    mean_rate))))
			flow->drop_p = 1;
		/* a new port of a sender convicted a moment ago (fair.h):
		 * only flows that show no answer in their packets, heavy
		 * from their start */
		else if (!tcp &&
			 sj_fair_recall_young(flow->first_seen_ns, now,
					      set->interval_ns))
			flow->drop_p = sj_sender_recall(pkt, now, set->interval_ns);
	}
	if (flow->drop_p) {
		if (!*heavy && sj_since(now, flow->light_since) >= set->interval_ns)
			flow->drop_p = 0;
		else
			flow->drop_p = sj_fair_p_step(flow->drop_p, *heavy);
		if (flow->drop_p && bpf_get_prandom_u32() < flow->drop_p) {
			st->unresponsive_drops++;
			__sync_fetch_and_add(&flow->drops, 1);
			sj_sender_convict(pkt, now, flow->drop_p, set->interval_ns);
			return 1;
		}
	}
	/* the mean is the fair share of the flows that answer: those
	 * judged unresponsive, and what is dropped, stay out of it; the
	 * mean rate is that of the flows that compete for the link, so a
	 * sparse flow (a download's ACKs, a DNS query) stays out of it too,
	 * as fq_codel shares the link among the flows it holds a queue for;
	 * each flow counted alike, not by its packets (fair.h); a flow that
	 * is not TCP, of a sender convicted a moment ago, stays out too, so
	 * that a flood released at a pause does not fill the mean it is then
	 * judged against (fair.h: sj_fair_answer_near_share); a step moves
	 * a mean further the longer no flow moved it (sj_fair_mean_move) */
	if (!flow->drop_p && sj_fair_mean_due(now, flow->mean_at,
					       set->interval_ns)) {
		flow->mean_at = now;
		if (tcp || !sj_sender_recall(pkt, now, set->interval_ns)) {
			sj_queue_mean_move(&q->mean_backlog, &q->mean_backlog_at,
					   mean, backlog, now, set->interval_ns);
			if (!sparse)
				sj_queue_mean_move(&q->mean_recent,
						   &q->mean_recent_at, mean_rate,
						   flow->recent_bytes, now,
						   set->interval_ns);
		}
	}
admit:
	__sync_fetch_and_add(&flow->backlog, len);
	flow->backlog_at = now;
	return 0;
}

static __always_inline int sj_real_queue(struct __sk_buff *skb,
					 const struct sj_att *att,
					 struct sj_settings *set,
					 struct sj_stats *st,
					 struct sj_flow *flow,
					 const struct sj_pkt *pkt, __u64 now)
{
	struct sj_queue *q = NULL;
	int txq, heavy = 1, carry = 1;

	sj_observe_enqueue(skb, &pkt->key);
	if (!flow)
		return SJ_ACT_NEXT;
	/* fairness compares the flow with the others of its queue; while
	 * we do not know the queue yet, the flow is taken as heavy */
	txq = sj_txq_of(skb, att);
	if (txq >= 0)
		q = sj_queue_of(att, txq);
	if (q && sj_fair_enqueue(skb, set, st, flow, pkt, q, now, &heavy,
				 &carry))
		return SJ_ACT_DROP;

	/* the flow's last sojourn: one aligned word, a racy read is a
	 * value it had */
	if (pkt->ecn != SJ_ECN_NOT_ECT &&
	    codel_over_ce_threshold(&set->codel, READ_ONCE(flow->ldelay)) &&
	    sj_set_ce(skb, pkt)) {
		st->ce_mark++;
		__sync_fetch_and_add(&flow->ce_marks, 1);
	}

	/* with fairness, a flow carries its signal out as the law gave it
	 * (fair.h: sj_fair_takes_signal), else the signal waits (and
	 * expires if that lasts an interval); one judged unresponsive has
	 * its own dropper */
	if ((set->fair && (!carry || flow->drop_p)) ||
	    !sj_take_signal(flow, now, set->interval_ns, st))
		return SJ_ACT_NEXT;
	if (heavy && !flow->signals_heavy)
		flow->judged_since = now;
	if (heavy && flow->signals_heavy < 0xffff)
		flow->signals_heavy++;
	if (set->codel.ecn && pkt->ecn != SJ_ECN_NOT_ECT && sj_set_ce(skb, pkt)) {
		st->ecn_mark++;
		__sync_fetch_and_add(&flow->ecn_marks, 1);
		if (set->ack_echo)
			sj_ack_owe(pkt, att->id, now, set->interval_ns);
		return SJ_ACT_NEXT;
	}
	st->drops++;
	__sync_fetch_and_add(&flow->drops, 1);
	sj_fair_forget(flow, skb->len);
	return SJ_ACT_DROP;
}

static __always_inline int sj_rate(struct __sk_buff *skb, __u64 now,
				   const struct sj_att *att,
				   struct sj_settings *set,
				   struct sj_stats *st, struct sj_flow *flow,
				   const struct sj_pkt *pkt, int exempt)
{
	struct sj_rate_result r;
	struct sj_queue *q;
	__u64 wire;
	int ect = !exempt && pkt->ecn != SJ_ECN_NOT_ECT;

	q = sj_queue_of(att, 0);
	if (!q)
		return SJ_ACT_NEXT;
	/* an aggregate leaves as segments, each with its own headers */
	wire = sj_rate_wire(set, &(struct sj_wire_frame){
		.len = skb->len, .gso_size = skb->gso_size,
		.gso_segs = skb->gso_segs, .hdr_len = pkt->hdr_len });
	sj_rate_admit(att->id, set, st, q, flow, pkt, now, skb->len, wire,
		      exempt, ect, &r);
	sj_observe_sojourn(att->id, flow, r.sojourn_ns);

	if (sj_rate_apply(&r, set, st, flow, skb, (void *)(long)skb->data,
			  (void *)(long)skb->data_end, pkt, ect))
		return SJ_ACT_DROP;
	/* pacing hands the departure to an fq below; a later EDT the
	 * sender asked for is kept */
	if (cfg_direction == SJ_DIR_EGRESS && set->pace &&
	    !(sj_future_edt(skb, r.start_ns)))
		bpf_skb_set_tstamp(skb, r.start_ns, BPF_SKB_TSTAMP_DELIVERY_MONO);
	return SJ_ACT_NEXT;
}

SEC("tc")
int sojourn_egress(struct __sk_buff *skb)
{
	__u64 now = bpf_ktime_get_ns();
	struct sj_flow *flow = NULL;
	struct sj_settings *set;
	struct sj_stats *st;
	struct sj_att *att;
	struct sj_pkt pkt;
	int kind;

	att = sj_here_enter(skb->ifindex);
	if (!att)
		return SJ_ACT_NEXT;
	st = sj_stats_of(att->id);
	set = bpf_map_lookup_elem(&settings, &att->id);
	if (!st || !set)
		return SJ_ACT_NEXT;
	st->packets++;
	st->bytes += skb->len;
	if (cfg_mode != SJ_MODE_RATE)
		sj_stamp(skb, now, st);

	kind = sj_parse_skb(skb, &pkt);
	if (kind >= 0 && kind < SJ_PKT_KINDS)
		st->kind[kind]++;
	pkt.key.att = att->id;
	/* an ACK on its way back may carry a signal another attachment
	 * gave its flow (ackecho.bpf.h) */
	if (kind == SJ_PKT_TCP)
		sj_ack_echo(skb, &pkt, now);
	if (pkt.has_flow && sj_pkt_kind_keyed(kind))
		flow = sj_flow_get(&pkt.key, now, st, set, skb->len);

	if (cfg_mode == SJ_MODE_RATE)
		/* odd packets use the link too: they move the clock and
		 * meet the horizon, but only packets we understand are
		 * marked or take CoDel's drops */
		return sj_rate(skb, now, att, set, st, flow, &pkt,
			       !sj_pkt_kind_keyed(kind));
	if (!pkt.has_flow || !sj_pkt_kind_keyed(kind))
		return SJ_ACT_NEXT;
	if (cfg_mode == SJ_MODE_OBSERVE) {
		/* measured at dequeue, never signalled */
		sj_observe_enqueue(skb, &pkt.key);
		return SJ_ACT_NEXT;
	}
	return sj_real_queue(skb, att, set, st, flow, &pkt, now);
}
