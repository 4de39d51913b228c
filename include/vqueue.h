/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The virtual queue of rate mode: a clock of departures that every packet
 * pushes on by its own transmission time at the configured rate.  A packet
 * starts to leave when the one before it has left, so its sojourn is that
 * start minus now: the time it would wait behind the bytes admitted before
 * it.  Its own transmission is not counted, as a real queue's sojourn
 * (measured when a packet is dequeued) does not count it either; this
 * matters for 64 KB GSO packets, which take 26 ms to leave at 20 Mbit.
 *
 * An idle queue earns credit: the clock may trail now by up to `burst`
 * bytes' time, so a burst of that size leaves without waiting.
 *
 * The horizon bounds the clock: no packet, of any kind, is admitted to
 * start later than now + horizon (sj_vq_ceiling: the bulk meets its
 * ceiling a ninth short of it, the last ninth is kept for sparse flows).
 * A packet we cannot parse (non-IP, a bad or too deep header) uses the
 * link too and is policed at the rate, below a lower ceiling.
 *
 * Pure arithmetic: the BPF programs call it under the queue's lock
 * (bpf/rate.bpf.h), the unit tests call it directly.
 */
#ifndef SOJOURN_VQUEUE_H
#define SOJOURN_VQUEUE_H

#include "sojourn.h"

#define SJ_NSEC_PER_SEC	1000000000ULL

/* Limits that keep len * 1e9 and burst * 1e9 inside 64 bits */
#define SJ_MAX_BURST_BYTES	(1ULL << 30)	/* 1 GiB */

/* Nanoseconds that bytes take to leave at rate_Bps (> 0). */
static __always_inline __u64 sj_vq_tx_ns(__u64 bytes, __u64 rate_Bps)
{
	return bytes * SJ_NSEC_PER_SEC / rate_Bps;
}

/* When a packet arriving now starts to leave, given the departure of the
 * last admitted packet and the credit (ns) an idle queue may hold. */
static __always_inline __u64 sj_vq_start(__u64 departure, __u64 now, __u64 credit_ns)
{
	if (departure + credit_ns < now)
		return now - credit_ns;
	return departure;
}

/* The packet's sojourn: how long it waits before it starts to leave. */
static __always_inline __u64 sj_vq_sojourn(__u64 start, __u64 now)
{
	return start > now ? start - now : 0;
}

/* Bytes still ahead of a packet that waits sojourn_ns: CoDel's backlog,
 * for its one-MTU exemption.  Microseconds keep the product in range for
 * sojourns up to the longest horizon at the highest rate. */
static __always_inline __u64 sj_vq_backlog(__u64 sojourn_ns, __u64 rate_Bps)
{
	return sojourn_ns / 1000 * rate_Bps / 1000000;
}

/*
 * How far ahead the bulk may start: 8/9 of the horizon.  The last ninth is
 * the sparse flows' room (sj_vq_ceiling), inside the horizon, so that the
 * horizon bounds every packet's start, as fq's does (Linux 5.7+ sch_fq.c,
 * fq_packet_beyond_horizon: skb->tstamp, the packet's start, against now +
 * horizon).  The default horizon, 225 ms, puts the bulk's ceiling at the
 * 200 ms it was measured at (include/sojourn.h).
 */
#define SJ_VQ_SPARSE_ROOM_DIV	9

static __always_inline __u64 sj_vq_bulk_ceiling(__u64 horizon_ns)
{
	return horizon_ns - horizon_ns / SJ_VQ_SPARSE_ROOM_DIV;
}

/*
 * How long a packet we could not parse may wait at most.  Such packets get
 * no CoDel signal (they could neither be marked nor be trusted to answer
 * one), so they are held below the level the law keeps the queue at for
 * packets that do: half of CoDel's target (half, because the packet
 * admitted at the ceiling still adds its own time).  However many arrive,
 * they never hold the queue above target by themselves, so CoDel never
 * punishes parsed packets for them, and above that level the link is left
 * to parsed packets alone, during a flood and right after it.
 *
 * Small ones (ARP, STP, LACP: SJ_VQ_CONTROL_LEN bytes at most) may wait up
 * to half the bulk's ceiling instead: a queue CoDel keeps near its target
 * must not starve a host of its neighbour resolution.  A flood of them is
 * still policed at the rate and leaves parsed packets the other half.
 */
#define SJ_VQ_CONTROL_LEN	128

static __always_inline __u64 sj_vq_exempt_ceiling(const struct codel_params *p,
						  __u64 horizon_ns, __u32 len)
{
	__u64 target_ns = CODEL_TO_NS(p->target);
	__u64 bulk_ns = sj_vq_bulk_ceiling(horizon_ns);

	if (len <= SJ_VQ_CONTROL_LEN)
		return bulk_ns / 2;
	return (target_ns < bulk_ns ? target_ns : bulk_ns) / 2;
}

enum sj_verdict {
	SJ_PASS,
	SJ_MARK,	/* CoDel's signal, carried as CE */
	SJ_DROP,	/* CoDel's signal, carried as a drop */
	SJ_OVERLIMIT,	/* would leave beyond the horizon */
};

struct sj_rate_result {
	__u64 start_ns;		/* when the packet starts to leave */
	__u64 sojourn_ns;
	int verdict;		/* enum sj_verdict */
};

/* What one packet needs to know, worked out before the lock is taken */
struct sj_vq_pkt {
	__u64 now;
	__u64 tx_ns;		/* its own time on the wire at the rate */
	__u32 len;
	__u8 exempt;		/* unparsed: no CoDel signal, a lower ceiling */
	__u8 ecn_capable;	/* ECT: a signal may be a CE mark */
	__u8 sparse;		/* a sparse flow's, within the bound: ahead */
	__u64 ceiling_ns;	/* the longest sojourn it may be admitted
				 * with: sj_vq_ceiling, whose division by 9
				 * stays out of the queue's lock */
};

/*
 * The longest sojourn this packet may be admitted with.  A sparse flow's:
 * the horizon itself, a ninth beyond the bulk's ceiling.  At that ceiling
 * the bulk fills every slot the clock frees (a sender the law cannot slow:
 * a path whose BDP is below one packet, a flood), and a sparse packet held
 * to it lost one ping in ten on rate_container's 0.1 ms path (one in two
 * with no sparse path).  What it pushes the clock past the bulk's ceiling
 * the bulk pays for: its packets meet the ceiling until the clock is back
 * under it, so the rate holds.  One we could not parse: its own lower
 * ceiling.  None starts later than now + horizon, so the clock is never
 * further ahead than that plus one packet's own time.
 */
static __always_inline __u64 sj_vq_ceiling(const struct codel_params *p,
					   __u64 horizon_ns,
					   const struct sj_vq_pkt *pkt)
{
	if (pkt->exempt)
		return sj_vq_exempt_ceiling(p, horizon_ns, pkt->len);
	if (pkt->sparse)
		return horizon_ns;
	return sj_vq_bulk_ceiling(horizon_ns);
}

/*
 * The fate of one packet joining virtual queue q.  Only packets that use
 * the link move the clock: one dropped here never leaves.
 *
 * A sparse flow's packet (fair.h: at most a quantum over the last
 * interval, and what goes ahead bounded to an eighth of what the queue
 * admits) waits behind no one, as fq_codel's new flows go first and fq
 * keeps a departure time per flow: it starts now, its sojourn is 0, and
 * it takes no signal, so a DNS query or a probe in a pod neither waits
 * behind the pod's own bulk (pace) nor takes the bulk's drops (police).
 * Its bytes still use the link: they push the clock the bulk waits on,
 * and the horizon holds it back, a ninth further out than the bulk's
 * ceiling (sj_vq_ceiling), so the clock stays within its bound.  The law sees
 * only the bulk's sojourns: a sparse packet's 0 would end its dropping
 * state.  It cannot pass a packet of
 * its own flow that waits: pace hands departures to fq, whose queue per
 * flow keeps their order, and police holds nothing.
 */
static __always_inline void sj_vq_admit(struct sj_queue *q,
					const struct codel_params *p,
					__u64 rate_Bps, __u64 credit_ns,
					const struct sj_vq_pkt *pkt,
					struct sj_rate_result *r)
{
	__u64 start = sj_vq_start(q->departure_ns, pkt->now, credit_ns);
	__u64 backlog = 0;
	int signal = 0;

	r->verdict = SJ_PASS;
	r->start_ns = start;
	r->sojourn_ns = sj_vq_sojourn(start, pkt->now);
	/* nothing is admitted to start later than now + horizon (the bulk:
	 * 8/9 of it), so the clock is never further ahead than that plus one
	 * packet's own time; one we could not parse only below its lower
	 * ceiling, so that a flood of them is policed at the rate and never
	 * stands in the way of parsed packets */
	if (r->sojourn_ns > pkt->ceiling_ns) {
		r->verdict = SJ_OVERLIMIT;
		return;
	}
	if (pkt->sparse) {
		/* it starts now, or earlier where an idle queue's credit
		 * already lets the clock trail now */
		r->start_ns = start < pkt->now ? start : pkt->now;
		r->sojourn_ns = 0;
	} else if (!pkt->exempt) {
		if (!codel_time_before(CODEL_NS(r->sojourn_ns), p->target))
			backlog = sj_vq_backlog(r->sojourn_ns, rate_Bps);
		signal = codel_dequeue(&q->vars, p, CODEL_NS(pkt->now),
				       CODEL_NS(r->sojourn_ns),
				       backlog > 0xffffffffULL ? 0xffffffffU :
				       (__u32)backlog);
		if (signal && !(p->ecn && pkt->ecn_capable)) {
			r->verdict = SJ_DROP;
			return;
		}
		if (signal)
			r->verdict = SJ_MARK;
	}
	q->departure_ns = start + pkt->tx_ns;
	if (pkt->len > q->maxpacket)
		q->maxpacket = pkt->len;
}

#endif /* SOJOURN_VQUEUE_H */
