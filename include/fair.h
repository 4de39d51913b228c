/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fairness on a FIFO we do not own.  sojourn sees each packet enter (tc
 * egress) and leave (the dequeue tracepoint), so it keeps the bytes each
 * flow holds in the queue: added at enqueue, taken away at dequeue.
 *
 * Lost events (a packet the qdisc dropped, a dequeue whose flow we could not
 * tell, a device reset) would leave bytes counted forever, so a count is
 * trusted only as long as it is young: whatever a flow enqueued longer ago
 * than the queue's delay plus one target has left by now, one way or the
 * other, and its count starts again from zero.  The error of a lost event
 * lasts one queue delay at most.
 *
 * Fair share without counting flows: the mean of the flows' backlogs, each
 * flow counted alike (sj_fair_mean_due: a flow's packets move the mean at
 * most once every 1/32 interval; flows judged unresponsive stay out of
 * it).  n equal flows give total/n, the fair share, and one flow taking
 * most of the queue is one of n in the mean and stands above it.  (A mean
 * over packets, as it was, is pulled toward the flow that sends most of
 * them: a flood then stood near a mean made mostly of itself.)  A flow
 * above the mean is "heavy":
 *  - CoDel's signals go to flows that send faster than the mean, by the
 *    same flow-weighted mean of their bytes over the last interval
 *    (AFD's idea: act on the flows that take more than their share, not
 *    on whoever comes next; sj_fair_takes_signal says why by rate), and
 *    the law hastens by the number of flows the mean backlog implies
 *    (codel.h's codel_hasten, sj_fair_flows);
 *  - a heavy flow that took signals and has not answered the first of them
 *    within SJ_FAIR_ANSWER_INTERVALS does not respond: it is dropped at
 *    enqueue with a probability of its own that grows while it stays heavy
 *    and shrinks once it is not, so it settles where its backlog meets the
 *    mean: its fair share (AFD's drop-to-the-fair-rate, CHOKe's aim at the
 *    flow that hogs the FIFO).  It stays judged unresponsive until it has
 *    been light for an interval.  Staying heavy is no proof: a responsive
 *    flow with a short RTT holds more than a long one after every signal
 *    it answers (measured: a judge that convicted on heaviness alone
 *    dropped 96-197 packets of ECN cubic flows in fair_rtt).  A TCP
 *    sender shows its answer in the packets we see: CWR once it has cut
 *    its window for an ECN echo (RFC 3168 6.1.2), a retransmission once
 *    it has seen a loss (RFC 5681 3.2 cuts the window with it).  Either
 *    clears the flow's record.  Other protocols show no answer we can
 *    read in a packet, and a fall of their rate is their answer
 *    (sj_fair_rate_answer); they are judged after one interval while
 *    above their share (sj_fair_answer_intervals; a 500 ms
 *    wait let fair_udp's flood back in each time its dropper let go: the
 *    ping's median rise went from 12.7 to 15.2 ms).  ECT earns them no
 *    longer wait: a flood that set ECT and hopped ports escaped the judge
 *    with one (TCP's share 5.6-6.5 %, as with the FIFO; 73 % without it,
 *    2026-12-07).
 *  - a flow that has sent at most one quantum over the last interval is
 *    sparse (fq_codel's new flows get one quantum ahead of the rest), and
 *    may be sent ahead; once it sends more it is not, within one quantum.
 *    By rate rather than by backlog: on a FIFO kept near its target, each
 *    of many bulk flows holds about one packet, and would look sparse.
 * Pure arithmetic, shared by the programs and the unit test.
 */
#ifndef SOJOURN_FAIR_H
#define SOJOURN_FAIR_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define SJ_DEFAULT_QUANTUM	1514	/* one Ethernet MTU, as fq_codel */
#define SJ_FAIR_MEAN_SHIFT	6	/* the mean follows 1/64 per packet */
/* signals a heavy flow takes before it may be judged unresponsive */
#define SJ_FAIR_SIGNALS		2
/* How long, in intervals, a TCP flow has to answer its first signal.
 * The answer reaches us a round trip and a queue delay after the signal
 * (we signal at enqueue: the marked packet waits the queue first): 5
 * intervals, 500 ms by default, covers a 300 ms RTT behind 100 ms of
 * queue with 100 ms to spare.  Flows we cannot read an answer from get
 * one interval, unless they are near their share
 * (sj_fair_answer_intervals). */
#define SJ_FAIR_ANSWER_INTERVALS 5
#define SJ_TCP_FLAG_CWR		0x80

/*
 * Time since `then`, 0 if `then` is later.  A flow's times are written by
 * whichever CPU handles its packet, each with the clock it read a moment
 * before; two CPUs handling one flow at once (a forwarded flow arrives on
 * both, 2 CPUs at 100 Mbit/s) can leave a time a little after this CPU's
 * now.  Unsigned, now - then then wrapped to ~2^64, "long ago": a bulk
 * flow looked quiet and empty for an instant and its packet was sent
 * ahead of its own queued packets (field_idle: 72-131 reordered, each by
 * more than 1 ms), and a judge's wait looked over.
 */
static __always_inline __u64 sj_since(__u64 now, __u64 then)
{
	return now > then ? now - then : 0;
}

/* The flow's count is stale: its last enqueue is older than the queue's
 * delay plus one target, so everything it counted has left. */
static __always_inline int sj_fair_stale(__u64 backlog_at, __u64 now,
					 __u64 ldelay_ns, __u64 target_ns)
{
	return backlog_at + ldelay_ns + target_ns < now;
}

/* One step of a mean toward this packet's flow backlog (or rate) */
static __always_inline __u64 sj_fair_mean_step(__u64 mean, __u64 backlog)
{
	if (backlog >= mean)
		return mean + ((backlog - mean) >> SJ_FAIR_MEAN_SHIFT);
	return mean - ((mean - backlog) >> SJ_FAIR_MEAN_SHIFT);
}

/*
 * One step of a mean toward a flow's sample, weighted by the time since
 * any flow last moved that mean (`dt`): 1/64 (sj_fair_mean_step) while
 * flows move it often, dt/interval once that is more, the sample whole
 * after an interval in which none did.  Only flows that answer move the
 * means (a convicted flow stays out), so a mean moved by steps alone froze
 * where it stood when they fell silent.  sojourn attached where a 40
 * Mbit/s UDP flood had already driven one cubic flow into retransmission
 * timeouts (tests/e2e/fair_late.sh; the FIFO's tail drops) convicted the
 * flood and held it to a mean backlog that was the flood's own (1.2 MB,
 * the pfifo full: traced), moved since then by a retransmission now and
 * then and a ping every 50 ms, 1/64 each: the queue stayed at 570 ms and
 * the flood at 19.3 of 20 Mbit/s until the cubic flow came back by itself
 * 6-7 s later (its share 20-24 % from 2 s after attach on, 3 runs,
 * 2026-12-07).  Weighted by time, the ping's empty backlog is the mean
 * within a few of its packets, the flood is held to that, and the cubic
 * flow is back 2-3 s after attach, at its share (43 %; 66 % beside 4).
 * A mean that lags the flows also misjudged them as they start: fair_quic's
 * false drops, 8 runs each (ECN + no ECN): 11+0, 3+0, 29+0, 2+0, 4+0,
 * 0+6, 0+9, 2+0 before (the 29 over the test's bar); 0+0, 1+1, 0+0, 0+0,
 * 0+1, 4+0, 0+0, 1+0 with it.  Where flows move a mean 64 times an
 * interval or more between them (two bulk flows, each at most every 1/32
 * interval: sj_fair_mean_due), the step is 1/64 as before; on a slower
 * link each moves it further (fair_quic at 5mbit by hand, 4 runs each:
 * 0+0, 6+0, 0+0, 0+0 before, 11+0, 1+1, 11+0, 0+0 with it, at most 0.6 %
 * of the signals).
 */
static __always_inline __u64 sj_fair_mean_move(__u64 mean, __u64 sample,
					       __u64 dt_ns, __u64 interval_ns)
{
	/* in units of 1024 ns: an interval below 2^27 of them (137 s)
	 * times a difference below 2^32 stays in 64 bits */
	__u64 d, i = (interval_ns >> 10) | 1, t = dt_ns >> 10;

	if (dt_ns >= interval_ns)
		return sample;
	if (t < (i >> SJ_FAIR_MEAN_SHIFT))
		return sj_fair_mean_step(mean, sample);
	d = sample >= mean ? sample - mean : mean - sample;
	d = d > 0xffffffffULL ? d / i * t : d * t / i;
	return sample >= mean ? mean + d : mean - d;
}

/*
 * Whether this packet's flow moves the means (q->mean_backlog and
 * q->mean_recent): at most once every SJ_FAIR_MEAN_DIV-th of an interval
 * since it last did (`mean_at`), so that every flow that sends at least
 * that often weighs the same, however many packets it sends.  Weighted by
 * packet, a 40 Mbit/s flood beside four cubic flows on a 20 Mbit/s link
 * was most of the means it was judged against: its backlog read near the
 * mean (423948 against 424329 bytes, traced), a flow that sends in bursts
 * was light between them some 600 times in 15 s, and twice a mean made of
 * itself was easy to be under (sj_fair_answer_near_share).  A flow that
 * sends more rarely, a probe or a download's ACKs, weighs less, as it
 * would by packet.  1/32 interval (3 ms at 100 ms): a bulk flow sends
 * many packets in that time, and the mean's 1/64 steps still follow a
 * change of the flows within a few intervals.
 */
#define SJ_FAIR_MEAN_DIV	32

static __always_inline int sj_fair_mean_due(__u64 now, __u64 mean_at,
					    __u64 interval_ns)
{
	return sj_since(now, mean_at) >= interval_ns / SJ_FAIR_MEAN_DIV;
}

static __always_inline int sj_fair_heavy(__u64 backlog, __u64 mean)
{
	return backlog > mean;
}

/*
 * Whether a flow takes the law's signal (fair mode): the flow of a leaving
 * packet, as the law gives it (dequeue.bpf.c), and again as its next packet
 * would carry it out (tc.bpf.c).  It takes it if it sends faster than the
 * queue's mean: `recent`, its bytes over about the last interval
 * (sj_fair_recent), above `mean`, the flow-weighted mean of those over
 * the flows that are not sparse (q->mean_recent, moved in tc.bpf.c), the
 * flow a fair share would slow first, as fq_codel's DRR builds a queue
 * only for a flow above its share.
 *
 * By rate, not by the bytes it holds: in a FIFO kept near a 5 ms target
 * each flow holds one or two packets, and which of them holds two at a
 * given moment is chance.  Judged by backlog (a flow a quarter above the
 * mean taking at once), the law stayed due over 3400-4600 dequeues a run
 * in fair_rtt (signals_deferred), and the flows that needed the signals
 * most went without: the 10 ms flows took 146-164 each in 18 s,
 * the 300 ms flows 10-31, Jain 0.895-0.926, the 10 ms flows at 1.9x the
 * 300 ms ones.  By rate, 172-239 and 13-40, 807-901 deferred, ~500
 * signals a run against ~420, Jain 0.93-0.972, the short flows at 1.5x
 * (2026-12-06, six runs with ECN and without).
 *
 * No flow need be above the mean for long: one flow at a constant rate
 * is the mean.  So once the law has been due, or the signal owed, for
 * `waited` >= `grace` (half an interval), any flow takes it, and the law
 * never waits longer than that.  A quarter above the mean, with flows
 * above the mean after the grace (by rate), made equal flows wait the
 * grace for every signal: codel_ecn's count ran to 894, 238 signals
 * expired, and the RTT rise read 15.8 ms against 11.8.
 */
#define SJ_FAIR_GRACE_DIV	2	/* grace: interval / 2 */
static __always_inline int sj_fair_takes_signal(__u64 recent, __u64 mean,
						__u64 waited, __u64 grace)
{
	return recent > mean || waited >= grace;
}

/*
 * How many equal flows the queue's backlog holds, by the flow-weighted
 * mean: n flows of b bytes each give n*b / b = n; one flow that holds it
 * nearly all gives about 1.  What the law hastens by (codel_hasten).
 * No mean yet: 1.
 */
static __always_inline __u32 sj_fair_flows(__u64 qbacklog, __u64 mean)
{
	if (!mean || qbacklog < mean)
		return 1;
	qbacklog /= mean;
	return qbacklog > 0xffff ? 0xffff : (__u32)qbacklog;
}

/* Bytes a flow sent over about the last tau: a first-order decay of the
 * count by the time since it last moved, then this packet's bytes. */
static __always_inline __u64 sj_fair_recent(__u64 recent, __u64 dt_ns,
					    __u64 tau_ns, __u32 len)
{
	if (dt_ns >= tau_ns)
		recent = 0;
	else	/* tau below 2^37 ns (100 s): the product stays in 64 bits */
		recent -= recent * (dt_ns >> 10) / ((tau_ns >> 10) | 1);
	return recent + len;
}

/*
 * What a packet adds to its flow's rate for sparseness: a TCP segment's
 * payload, any other packet's whole length.  A download's ACKs are a flow
 * of their own the other way, ~850 a second at 20 Mbit/s: 56 KB/s, past a
 * quantum an interval by bytes, yet nothing a queue need hold.  Behind an
 * upload's data in a FIFO they slow the download's clock (traffic both
 * ways cost bulk TCP 1.14-2.67x fq_codel's RTT rise, bench/results/vm.md),
 * where fq_codel serves them as the thin flow they are.  Counted by
 * payload they stay sparse and go ahead, within the bound on what goes
 * ahead (sj_fair_sparse_room) and in order (sj_fair_left_for_sure).  A
 * bulk TCP flow's full segment (1448 bytes at MTU 1500) still is one
 * quantum, its second one more.  tcp: a TCP segment we read (no fragment).
 */
static __always_inline __u32 sj_fair_sparse_bytes(int tcp, __u32 len,
						 __u32 hdr_len)
{
	if (!tcp)
		return len;
	return len > hdr_len ? len - hdr_len : 0;
}

/*
 * A TCP packet whose sender shows it answered congestion: CWR, or data
 * that starts below the highest sequence number the flow has started a
 * packet at (a retransmission).  high 0: none seen yet.  Packets of one
 * flow that two CPUs handle out of order look like a retransmission: a
 * false answer only spares a flow, never convicts one.
 */
static __always_inline int sj_fair_tcp_answer(__u8 flags, __u32 seq,
					      __u32 high, int payload)
{
	if (flags & SJ_TCP_FLAG_CWR)
		return 1;
	return payload && high && (__s32)(seq - high) < 0;
}

/*
 * A flow we cannot read an answer from (not TCP) shows one in its rate: a
 * sender that answers congestion sends less.  Such flows are common where
 * a bottleneck carries tunnels: a VXLAN overlay's outer UDP (Flannel,
 * Calico, Cilium), a WireGuard or IPsec link, and QUIC, each carrying
 * traffic that answers.  Judged on heaviness and signals alone, the four
 * ECN cubic flows of vxlan_overlay (each its own outer UDP flow: the
 * source port is a hash of the inner flow) took 642-1720
 * unresponsive_drops in 12 s in three runs of four (2026-12-07).  This
 * answer alone left one run in four at 457: the rest was the recall rule
 * (sj_fair_recall_young).
 *
 * So from the first signal it takes while heavy (judged_since), and while
 * judged unresponsive, its rate (recent, bytes over about the last
 * interval, counted before any drop of ours) is followed: `peak` is the
 * highest it reached since.  Once it is an eighth below that, the flow
 * has answered: its record is cleared, as CWR clears a TCP flow's, and a
 * convicted flow's drop probability too; counted only while it sends near
 * its share (sj_fair_answer_near_share).  An answering sender cuts by more: cubic to
 * 0.7 of its window, Reno and QUIC's NewReno to half, and the rate follows
 * within a round trip.  A flood sends on at its rate whatever is dropped,
 * so its rate never falls by an eighth; an eighth is also above what the
 * count's own decay between packets takes (under 3 % at a packet a
 * millisecond, tau 100 ms).
 */
#define SJ_FAIR_RATE_CUT_DIV	8

static __always_inline int sj_fair_rate_answer(__u64 recent, __u64 peak)
{
	return recent < peak - peak / SJ_FAIR_RATE_CUT_DIV;
}

/*
 * A fall of a flow's rate, or of its backlog (sj_fair_backlog_answer),
 * counts as an answer only while the flow sends no faster than
 * SJ_FAIR_ANSWER_SLACK times the mean rate of the flows that answer
 * (`mean`, q->mean_recent, which the flows we drop stay out of): near its
 * fair share, where a sender that answers lands, and where the dropper
 * means to hold one that does not.  A fall alone let floods go:
 *  - a convicted flood was released at every pause of its sender:
 *    fair_udp's gap phase (40 Mbit/s, silent 40 ms every second) was
 *    back within 130-210 ms each time and filled the queue again: TCP's
 *    share 21.5-23.5 %, ping rise 90-101 ms, in 3 runs of 3;
 *  - a flood that sends in bursts (fair_udp's burst phase, 40 Mbit/s in a
 *    burst every 20 ms, as a frame-paced video sender sends) was never
 *    convicted: between its bursts both its rate and its backlog fall
 *    enough to read as answers: TCP's share 5.5-10.4 %, ping rise 555-567
 *    ms, the FIFO's (2026-12-07).  Beside four cubic flows this gate held
 *    it once the means counted each flow alike (sj_fair_mean_due; 66.8 %,
 *    12.5 ms), not while they were weighted by packet (it was most of
 *    them); beside one flow it did not (4.0 %: it is half of any mean of
 *    two), and sj_fair_answer_held does.
 * A flood also fills the mean it is held against if it joins it whenever
 * it is free: fair_udp's gap phase beside one cubic flow was released at
 * each pause and convicted again 160-210 ms later, time enough to pull the
 * mean rate up near its own (TCP's share 18.4 %, ping rise 67 ms); a flow
 * that is not TCP, of a sender convicted a moment ago (bpf/sender.bpf.h),
 * stays out of the means since (tc.bpf.c; 58.3 % and 10.0 ms).
 * Twice the mean, not the mean: a responsive flow convicted falsely
 * (fair_quic's) then stayed so about 100 ms, until its rate had sunk below
 * the mean, and took twice the unresponsive_drops (106 against 47 in 4
 * runs side by side); with twice the mean 40 against 66.  A flow far above
 * its share is released once it is light for an interval.  No mean yet:
 * no answer counts.
 */
#define SJ_FAIR_ANSWER_SLACK	2

static __always_inline int sj_fair_answer_near_share(__u64 recent, __u64 mean)
{
	return recent <= SJ_FAIR_ANSWER_SLACK * mean;
}

/*
 * A fall of a flow's rate or backlog (while judged, near its share) is an
 * answer once it has lasted SJ_FAIR_ANSWER_HOLD_DIV-th of an interval:
 * read at a packet that much after the first that showed it, with none
 * in between that did not.  A flood that sends in bursts falls before each
 * burst and is back within it; a sender that answers stays lower for
 * round trips (a cut window grows back by a packet a round trip).  Beside
 * one cubic flow, fair_udp's burst flood (40 Mbit/s in a burst every 20
 * ms) was most of the mean rate, so no gate by it could tell: TCP's share
 * 4.0-4.5 %, ping rise 563 ms, 0 unresponsive_drops in 3 runs; with the
 * hold 49.5-50.3 % and 13.4-14.1 ms (2026-12-07).  1/16 interval (6 ms):
 * under the round trip of all but the nearest peers, and under what
 * the judge waits before it convicts (one interval), so that an answer
 * still comes in time.
 */
#define SJ_FAIR_ANSWER_HOLD_DIV	16

static __always_inline int sj_fair_answer_held(__u64 since, __u64 now,
					       __u64 interval_ns)
{
	return sj_since(now, since) >= interval_ns / SJ_FAIR_ANSWER_HOLD_DIV;
}

/*
 * The rate answer is blind where signals come faster than the rate's
 * memory (an interval): a QUIC-like flow (tests/e2e/fair_quic.sh, RFC
 * 9002 NewReno, paced) at a 5 Mbit/s share and a ~12 ms RTT took an ECN
 * mark every ~45 ms and halved its window each time, back within ~3 round
 * trips; over 100 ms its rate dipped 5-10 %, never an eighth, and it
 * was judged unresponsive: 4-35 unresponsive_drops in 10 s, 0.5-4.5 % of
 * the law's signals, in 4 runs (2026-12-07).  What it holds in the queue
 * shows the cut at once: a sender that cuts its window by half (Reno,
 * NewReno) or to 0.7 (cubic) takes that much of its packets in flight
 * away, and the queue holds what is in flight beyond the path's BDP, so
 * its backlog falls by at least as large a share.  So while a flow that
 * is not TCP is judged (not yet convicted: our own drops would shrink its
 * backlog too), `peak` is the most it held at its packets since its first
 * signal, and a backlog a quarter below that is an answer.  (A peak over
 * the last interval instead, so that a cut just before the first signal
 * counts too, did no better: 2-24 unresponsive_drops a phase in 4 runs.
 * Traced with bpf_printk, 7 of 9 convictions in a phase came within 2 ms
 * of a flow's second signal, 125-160 ms after its first, which udpcc had
 * taken in its recovery period and so not answered, as RFC 9002 7.3.2
 * says; a quarter interval's grace after such a second signal did no
 * better either: 4.5 drops a phase in 6 runs, against 4.75 in 4.)
 * A flood holds what the queue lets it hold whatever is signalled; one
 * that pauses or sends in bursts spaced beyond its backlog's drain time
 * reads as answering, as it does by rate, unless it sends far above its
 * share (sj_fair_answer_near_share).
 */
#define SJ_FAIR_BACKLOG_CUT_DIV	4

static __always_inline int sj_fair_backlog_answer(__u64 backlog, __u32 peak)
{
	return backlog < peak - peak / SJ_FAIR_BACKLOG_CUT_DIV;
}

/* the peak sj_fair_backlog_answer compares with, this packet's backlog
 * counted; saturates at 4 GB */
static __always_inline __u32 sj_fair_backlog_peak(__u64 backlog, __u32 peak)
{
	if (backlog > 0xffffffffULL)
		backlog = 0xffffffffULL;
	return backlog > peak ? (__u32)backlog : peak;
}

/* The highest sequence number a data packet started at, this one counted */
static __always_inline __u32 sj_fair_tcp_high(__u32 seq, __u32 high,
					      int payload)
{
	if (payload && (!high || (__s32)(seq - high) > 0))
		return seq;
	return high;
}

/*
 * The priority path's bound.  A sparse flow's packet goes ahead of the
 * bulk queue (strict priority: pfifo_fast's band 0, a prio 0 HTB class),
 * which many sparse flows together, or one sender hopping ports, could
 * use to starve the bulk flows; fq_codel's DRR bounds this, a priority
 * band does not.  So what goes ahead over about an interval may not pass
 * 1/SJ_SPARSE_SHARE of what the queue sent over it, or SJ_SPARSE_FLOOR
 * quanta where that is more (a slow or idle queue still lets a DNS query
 * and a VoIP frame go ahead).  1/8: the bulk flows keep 7/8 of the link,
 * and at 20 Mbit/s that is 2.5 Mbit/s ahead, 30 VoIP calls' worth.
 * steered and sent are as of their last move; they decay as
 * sj_fair_recent does, by the time since.
 */
#define SJ_SPARSE_SHARE		8
#define SJ_SPARSE_FLOOR		2

static __always_inline int sj_fair_sparse_room(__u64 steered, __u64 steered_dt,
					       __u64 sent, __u64 sent_dt,
					       __u64 tau_ns, __u32 quantum,
					       __u32 len)
{
	__u64 budget;

	steered = sj_fair_recent(steered, steered_dt, tau_ns, 0);
	budget = sj_fair_recent(sent, sent_dt, tau_ns, 0) / SJ_SPARSE_SHARE;
	if (budget < (__u64)SJ_SPARSE_FLOOR * quantum)
		budget = (__u64)SJ_SPARSE_FLOOR * quantum;
	return steered + len <= budget;
}

/*
 * Whether a flow surely has nothing left in the queue, as sending it ahead
 * needs.  Two witnesses, both required:
 *  - Time.  The staleness rule forgets a count after the last packet's
 *    delay plus a target: right for shares, where a count kept too long
 *    would do more harm, but not for order, as a queue whose delay grows
 *    still holds the flow's packets then, and one sent ahead would pass
 *    them.  Worse, the dequeues of those packets then take away what the
 *    flow counted since, so its count reads zero while its newer packets
 *    wait.  So "surely gone" is the time a FIFO at its worst could hold a
 *    packet: an interval, or twice the queue's delay plus a target where
 *    that is more (field_idle's pfifo_fast at its limit: ~130 ms), since
 *    the flow's last enqueue, or since its count was last forgotten with
 *    bytes in it, for a count of zero.  Before, field_idle's bulk flows
 *    had packets sent ahead of their own 15-30 times each after a stall.
 *  - What left.  The queue's delay is what its last dequeue saw, and a
 *    queue that stops (a veth whose peer's ring is full holds its qdisc
 *    back, 6.16 on; a NIC's paused transmit queue) dequeues nothing while
 *    the delay it last saw stays low: field_idle's pfifo_fast drained to
 *    ~0 ms, stood still, and held packets 250-550 ms while the time rule
 *    read "an interval quiet, gone" (`reordered` 2-15 in 15 s with
 *    sparse_class auto, each an old packet passed by the flow's own sent
 *    ahead 100-500 ms later).  A FIFO lets packets go in the order they
 *    came, so once a packet stamped at or after the flow's last enqueue
 *    has left by the bulk path (bulk_left, sojourn.h), everything the
 *    flow queued before it has left too.  A flow that never enqueued
 *    (backlog_at 0) has nothing to wait for.
 * The second alone would do on one FIFO, but not where the bulk path is
 * several (HTB's leaves, pfifo_fast's bands 1 and 2) or the flow moved to
 * another transmit queue: there the time rule still holds the packet back.
 * A queue that passes its packets by without a dequeue we see (pfifo_fast
 * sends straight to an idle device) keeps a flow out of the fast path
 * until a later packet leaves by the queue: where nothing waits, nothing
 * is lost by that.
 */
static __always_inline int sj_fair_left_for_sure(__u64 counted, __u64 backlog_at,
						 __u64 forgot_at, __u64 now,
						 __u64 interval_ns,
						 __u64 ldelay_ns, __u64 target_ns,
						 __u64 bulk_left)
{
	__u64 hold = 2 * ldelay_ns + target_ns;

	if (hold < interval_ns)
		hold = interval_ns;
	return sj_since(now, counted ? backlog_at : forgot_at) >= hold &&
	       backlog_at <= bulk_left;
}

/*
 * A flow's path, decided one packet at a time.  Two CPUs handle one flow's
 * packets at once where it is forwarded (a veth puts each packet in the
 * backlog of the CPU that sent it, and a TCP sender sends from its own
 * calls and from the ACKs' softirq), each reading what the flow did last
 * and deciding apart: one packet could go ahead because "the flow's last
 * packet went ahead" while another, older, had just been kept in the bulk
 * queue, which the first then passes; or go ahead because the flow's
 * count still read zero while the other's bytes were on their way in.
 * fair_sparse's `reordered` read 4 in the full check of 6ed31c7
 * (2026-12-03) and 0 in every other run; which of these it was, or
 * neither (below), is not known.
 *
 * So the decision is claimed in one word, flow->path: when the deciding
 * packet was handled (ns, even) and its path (SJ_PATH_AHEAD).  A packet
 * reads the word, decides (an earlier bulk packet counts as queued until
 * the bulk path has let a packet go that was handled at or after it:
 * sj_fair_path_at beside backlog_at, tc.bpf.c), and swaps in its own
 * word only if nobody moved it meanwhile; one that finds it moved takes
 * the path the other packet took, so two packets handled together go the
 * same way and meet in one FIFO, in the order they reach it.  A claim's
 * time is later than the one it replaces, so a packet that read the same
 * word always sees its swap fail.  After SJ_FAIR_PATH_TRIES failed swaps
 * (more CPUs than that on one flow at one instant) the packet goes to the
 * bulk path unrecorded, where a later packet may pass it.
 *
 * What no decision here can change: two packets of one flow stamped on
 * two CPUs (tc egress runs before the qdisc's lock is taken) can reach one
 * FIFO in the other order from their stamps.  The dequeue counts those in
 * `reordered` too; `reordered_ahead` counts only a packet passed by one of
 * its flow that went ahead (dequeue.bpf.c).
 */
#define SJ_PATH_AHEAD		1ULL
#define SJ_FAIR_PATH_TRIES	4

static __always_inline __u64 sj_fair_path_at(__u64 path)
{
	return path & ~SJ_PATH_AHEAD;
}

/* seen: the word as read before deciding; ahead: what was decided.
 * Returns the path the packet takes. */
static __always_inline int sj_fair_path_claim(__u64 *path, __u64 seen,
					      __u64 now, int ahead)
{
	__u64 at, got;
	int i;

	for (i = 0; i < SJ_FAIR_PATH_TRIES; i++) {
		at = sj_fair_path_at(seen) + 2;
		if (sj_fair_path_at(now) > at)
			at = sj_fair_path_at(now);
		got = __sync_val_compare_and_swap(path, seen,
						  at | (ahead ? SJ_PATH_AHEAD : 0));
		if (got == seen)
			return ahead;
		seen = got;
		ahead = !!(got & SJ_PATH_AHEAD);
	}
	return 0;
}

/* How many intervals a flow has to answer its first signal while heavy
 * (sj_fair_unresponsive): TCP, and a flow not above its share
 * (sj_fair_above_share), SJ_FAIR_ANSWER_INTERVALS; any other one */
static __always_inline __u32 sj_fair_answer_intervals(int tcp, int above_share)
{
	return tcp || !above_share ? SJ_FAIR_ANSWER_INTERVALS : 1;
}

/* Unresponsive: took signals while heavy, and answered none of them
 * within `intervals` intervals of the first */
static __always_inline int sj_fair_unresponsive(__u64 judged_since, __u64 now,
						__u64 interval_ns, __u32 signals,
						__u32 intervals)
{
	return judged_since && signals >= SJ_FAIR_SIGNALS &&
	       sj_since(now, judged_since) >= intervals * interval_ns;
}

/*
 * Whether a flow sends faster than the mean rate of the flows that answer
 * by more than 1/SJ_FAIR_CONVICT_DIV (`mean`, q->mean_recent).  One that
 * does not takes little of anyone's share, and has as long as TCP to
 * answer (sj_fair_answer_intervals), not one interval: a QUIC-like flow
 * (fair_quic's udpcc) answers, but now and then not within one interval;
 * traced at 22 false convictions in 4 runs (2026-12-07), it sent 1.00-1.25
 * times the mean rate at 17 of them (1.30-2.23 at the others); fair_udp's
 * flood 2.88-6.05 at each of its.  A flood beside n-1 flows it starves is
 * at most n times a mean it is part of (2 beside one TCP flow): one
 * interval once it sends 5/3 of what one other flow does (n = 2), 4/3
 * (n = 5).  A longer wait, not no conviction: a flood that has starved the
 * others until they are sparse (out of the mean rate) is the whole mean
 * and never above it.  Where the first conviction came 500 ms late (an
 * experiment that gave a sender's first flows longer), such floods were
 * never convicted again: fair_udp's hop and gap phases read 4.7-9.6 % TCP
 * share.  fair_quic's unresponsive_drops, 6 runs: 4, 0, 43, 1, 1, 4 (the
 * 43 over the test's bar, 3.1 % of the signals); 12+15, 1+4, 10+12 in 3
 * runs without the rule.  No mean yet: above.
 */
#define SJ_FAIR_CONVICT_DIV	4

static __always_inline int sj_fair_above_share(__u64 recent, __u64 mean)
{
	return recent > mean + mean / SJ_FAIR_CONVICT_DIV;
}

/*
 * A sender whose flow was judged unresponsive is remembered for this many
 * intervals after that flow's last drop: a new flow of the same sender and
 * protocol (another port) that is heavy from the start takes over its drop
 * probability instead of being judged from nothing.  A flood that took a
 * new source port every second otherwise got a free interval or more each
 * time: fair_udp's ping rise went to 258 ms (15 ms without hopping).  Two
 * intervals: a hop is one packet's time after the last drop, and a sender
 * quiet for longer starts clean.  Only flows we cannot read an answer from
 * (not TCP) take it over, and only while heavy.
 */
#define SJ_FAIR_SENDER_INTERVALS 2

static __always_inline int sj_fair_sender_recent(__u64 convicted_at, __u64 now,
						 __u64 interval_ns)
{
	return convicted_at &&
	       sj_since(now, convicted_at) < SJ_FAIR_SENDER_INTERVALS * interval_ns;
}

/*
 * ... and only a flow that is heavy within an eighth of an interval of its
 * first packet: a flood that hops to a new port sends at its full rate
 * from the first packet on.  A flow that answers does not: a tunnel's
 * outer flow moves to a new source port when the inner TCP's hash
 * changes (tcp_write_timeout rehashes a socket at a retransmission
 * timeout, sk_rethink_txhash, and counts it in TcpExtTcpTimeoutRehash:
 * read in the 6.x source),
 * and that TCP restarts from one segment, several round trips below its
 * share.  Taking over regardless, a VXLAN overlay's Not-ECT flows, one
 * falsely convicted, cascaded to 93 outer flows and 975
 * unresponsive_drops in 12 s (vxlan_overlay without ECN, 2026-12-07).
 */
#define SJ_FAIR_RECALL_DIV	8

static __always_inline int sj_fair_recall_young(__u64 first_seen, __u64 now,
						__u64 interval_ns)
{
	return sj_since(now, first_seen) < interval_ns / SJ_FAIR_RECALL_DIV;
}

/*
 * Since when a flow found light at this packet has been light: since now,
 * or, when its last packet came an interval ago or more (`last`), since
 * that packet, since it held nothing in between.  A convicted flow is
 * released after an interval of being light (tc.bpf.c), and its drop
 * probability moves by its packets only, so a flow silent for longer
 * than that came back still convicted, and most of its first packets
 * were dropped: a sender back from a pause, a TCP sender's retransmission
 * after a timeout (at 15/16, 18 of 20 packets after 150 ms of silence:
 * test_pkt's fair_idle_releases_convicted).  So silence counts by time.
 */
static __always_inline __u64 sj_fair_light_from(__u64 last, __u64 now,
						__u64 interval_ns)
{
	return last && sj_since(now, last) >= interval_ns ? last : now;
}

/* The enqueue drop probability (32-bit fixed point) of an unresponsive
 * flow, one packet later: up by 1/2^SJ_FAIR_P_SHIFT of the way to 1 while
 * heavy, down by the same share of itself while not. */
#define SJ_FAIR_P_SHIFT		7

static __always_inline __u32 sj_fair_p_step(__u32 p, int heavy)
{
	if (heavy)
		return p + ((0xffffffffU - p) >> SJ_FAIR_P_SHIFT);
	return p - (p >> SJ_FAIR_P_SHIFT) - (p && p < (1U << SJ_FAIR_P_SHIFT));
}

/*
 * Takes a leaving packet's len bytes off its flow's backlog, never below
 * zero, while enqueues on other CPUs add to it: a compare-and-swap of the
 * result, retried when another CPU moved the count in between.  A
 * fetch-and-sub followed by a repair (what this replaced) let other CPUs
 * read ~2^64 in between.  The verifier wants a bound it can see, so
 * SJ_FAIR_FORGET_TRIES tries, then the decrement is lost: a count that
 * stays too high is what every lost dequeue already leaves, and it is
 * mended at the flow's next drained dequeue, by the staleness rule and by
 * the qdisc's own backlog (dequeue.bpf.c).  BPF programs may
 * compare-and-swap a 64-bit map value since 5.12 (BPF_ATOMIC with
 * BPF_CMPXCHG, clang -mcpu=v3); sojourn needs 5.18 anyway.
 *
 * drained: the leaving packet is the flow's newest (it entered at the
 * flow's last enqueue, backlog_at), so in a FIFO nothing of the flow is
 * left behind it and the count becomes 0, whatever it was.  Subtracting
 * alone let a count that had once gone too high stay there: on the L3
 * tunnel (l3_tunnel, 2026-12-06) one cubic flow at cwnd 2 read 21804
 * bytes queued for the whole run, took 2258 of 2659 CE marks as the
 * "heaviest" flow, and the other three grew unsignalled (the law's count
 * ran to 2000-4800, the bulk RTT rise to 15-21 ms).  Instrumented runs
 * later lost no decrement and formed no excess (README, Fairness): the
 * source is not known, and this bounds it.  An enqueue that
 * races the reset loses its bytes until its own packet leaves, which
 * resets again: the count errs low for one packet, never high for long.
 * Returns 1 when the count was moved, 0 when the bytes were lost.
 */
#define SJ_FAIR_FORGET_TRIES	4

static __always_inline int sj_fair_backlog_leave(__u64 *backlog, __u32 len,
						 int drained)
{
	__u64 old = *(volatile __u64 *)backlog, seen;
	int i;

	for (i = 0; i < SJ_FAIR_FORGET_TRIES; i++) {
		seen = __sync_val_compare_and_swap(backlog, old,
						   (drained || old <= len) ?
						   0 : old - len);
		if (seen == old)
			return 1;
		old = seen;
	}
	return 0;
}

static __always_inline int sj_fair_backlog_sub(__u64 *backlog, __u32 len)
{
	return sj_fair_backlog_leave(backlog, len, 0);
}

#endif /* SOJOURN_FAIR_H */
