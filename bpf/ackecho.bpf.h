/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A CE signal echoed on the ACKs.  sojourn marks at enqueue (a tracepoint
 * cannot touch the packet leaving, dequeue.bpf.c), so its mark waits the
 * whole queue before the receiver sees it and echoes it: the sender hears
 * one queue delay later than from fq_codel, which marks the packet leaving.
 * Where the flow's ACKs pass another device sojourn manages on their way
 * back (a router with sojourn on both sides; a pod's veth and the host's
 * uplink), the signal can ride them instead: ECE set on the next ACK of
 * the flow reaches the sender without waiting the queue, or the path to the
 * receiver, at all.
 *
 * The mark on the data stays: where no ACK passes us, it still carries the
 * signal, and where one did, the receiver's own echo of it comes before the
 * sender leaves CWR and is not taken twice.  Kernel facts relied on
 * (net/ipv4/tcp_input.c, 4.19-6.18): an RFC 3168 sender takes ECE on any
 * ACK but a SYN (tcp_ecn_rcv_ecn_echo), a flag the header prediction does
 * not expect, so the ACK takes the slow path that reads it; it cuts its
 * window at most once per window of data (tcp_enter_cwr does nothing in
 * CWR and above, and CWR lasts until data sent after the cut is acked:
 * snd_una past high_seq); the CE-marked packet was sent before the ACK
 * that carried our ECE arrived, so the receiver's echoes of it ack data
 * below high_seq.
 *
 * Never on AccECN (RFC 9768): there ECE is one bit of the ACE counter and
 * flipping it would falsify the count.  An AccECN sender's data carries
 * the count of CE it received, which starts at 5 (AE and ECE set), and
 * its receiver's ACKs start at 5 too and keep AE or CWR set three counts
 * in four; a classic sender's data never carries AE or ECE and its
 * receiver's pure ACKs never AE or CWR.  So only data with neither owes an
 * echo, only to ECT(0) (ECT(1) is L4S, whose senders speak AccECN), and an
 * ACK with AE or CWR set is left alone and the echo declined.
 */
#ifndef SOJOURN_ACKECHO_BPF_H
#define SOJOURN_ACKECHO_BPF_H

#include "maps.bpf.h"
#include "parse.h"

/* Echoes owed, by the ACK stream's 4-tuple; the last time one was owed,
 * so that egress skips the lookup while none can be */
SJ_MAP(ack_owed, BPF_MAP_TYPE_LRU_HASH, SJ_ACK_OWED_MAX, struct sj_ack_key,
       struct sj_ack_owed);
SJ_MAP(ack_owed_last, BPF_MAP_TYPE_ARRAY, 1, __u32, __u64);

/* The key of pkt's own ACK stream (from_data: pkt is the data, reversed) */
static __always_inline void sj_ack_key_of(const struct sj_pkt *pkt,
					  int from_data, struct sj_ack_key *k)
{
	const struct sj_flow_key *f = &pkt->key;

	__builtin_memset(k, 0, sizeof(*k));
	k->netns_cookie = cfg_netns_cookie;
	k->family = f->family;
	__builtin_memcpy(k->saddr, from_data ? f->daddr : f->saddr,
			 sizeof(k->saddr));
	__builtin_memcpy(k->daddr, from_data ? f->saddr : f->daddr,
			 sizeof(k->daddr));
	k->sport = from_data ? f->dport : f->sport;
	k->dport = from_data ? f->sport : f->dport;
}

/* Whether pkt, just CE-marked for a signal, may have it echoed on its
 * ACKs: a classic ECN sender's data (see above) */
static __always_inline int sj_ack_echo_fits(const struct sj_pkt *pkt)
{
	return sj_pkt_tcp(pkt) && pkt->ecn == SJ_ECN_ECT0 &&
	       !(pkt->tcp_flags & (SJ_TCP_FLAG_AE | SJ_TCP_FLAG_ECE |
				   SJ_TCP_FLAG_SYN));
}

/* The data packet pkt carried a signal of attachment att as CE: its next
 * ACK may echo it, within the interval the signal is good for */
static __always_inline void sj_ack_owe(const struct sj_pkt *pkt, __u32 att,
				       __u64 now, __u64 interval_ns)
{
	struct sj_ack_owed owed = { .until_ns = now + interval_ns, .att = att };
	struct sj_ack_key k;
	__u32 zero = 0;
	__u64 *last;

	if (!sj_ack_echo_fits(pkt))
		return;
	sj_ack_key_of(pkt, 1, &k);
	bpf_map_update_elem(&ack_owed, &k, &owed, BPF_ANY);
	last = bpf_map_lookup_elem(&ack_owed_last, &zero);
	if (last && READ_ONCE(*last) < owed.until_ns)
		WRITE_ONCE(*last, owed.until_ns);
}

/* ECE into the flags at tcp_off + 13, the checksum moved to match.  The
 * TCP checksum covers the flags, so the word changes and the checksum
 * with it: the packet's sum stays, and skb->csum under CHECKSUM_COMPLETE
 * with it; under CHECKSUM_PARTIAL the field holds the pseudo-header's sum
 * and bpf_l4_csum_replace leaves it (net/core/utils.c,
 * inet_proto_csum_replace4, 4.19-6.18).  1 when set. */
static __always_inline int sj_skb_set_ece(struct __sk_buff *skb, __u32 tcp_off)
{
	__u16 old, new;

	tcp_off &= 0xffff;
	if (bpf_skb_load_bytes(skb, tcp_off + 12, &old, sizeof(old)))
		return 0;
	new = old | bpf_htons(SJ_TCP_FLAG_ECE);
	if (bpf_l4_csum_replace(skb, tcp_off + 16, old, new, sizeof(new)))
		return 0;
	return !bpf_skb_store_bytes(skb, tcp_off + 12, &new, sizeof(new), 0);
}

/*
 * Every whole TCP packet (SJ_PKT_TCP: flags and tcp_off were read) a tc
 * program sends on: when it is an ACK that owes an echo, it carries ECE.
 * One array read while nothing is owed.
 */
static __always_inline void sj_ack_echo(struct __sk_buff *skb,
					const struct sj_pkt *pkt, __u64 now)
{
	__u32 zero = 0, flags = pkt->tcp_flags, att;
	struct sj_ack_owed *owed;
	__u64 until;
	struct sj_stats *st;
	struct sj_ack_key k;
	__u64 *last;

	if (!(flags & SJ_TCP_FLAG_ACK) ||
	    (flags & (SJ_TCP_FLAG_SYN | SJ_TCP_FLAG_RST)))
		return;
	last = bpf_map_lookup_elem(&ack_owed_last, &zero);
	if (!last || READ_ONCE(*last) < now)
		return;
	sj_ack_key_of(pkt, 0, &k);
	owed = bpf_map_lookup_elem(&ack_owed, &k);
	if (!owed)
		return;
	/* read before the delete: a freed entry may be reused at once */
	until = READ_ONCE(owed->until_ns);
	att = READ_ONCE(owed->att);
	if (bpf_map_delete_elem(&ack_owed, &k) || until < now)
		return;		/* another CPU's ACK took it, or too old */
	if (flags & SJ_TCP_FLAG_ECE)
		return;		/* the receiver echoes already */
	st = sj_stats_of(att);
	if (flags & (SJ_TCP_FLAG_AE | SJ_TCP_FLAG_CWR)) {
		if (st)
			st->ack_echo_declined++;
		return;
	}
	if (sj_skb_set_ece(skb, pkt->tcp_off) && st)
		st->ack_echoes++;
}

#endif /* SOJOURN_ACKECHO_BPF_H */
