// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fairness arithmetic of include/fair.h: the mean, each flow counted
 * alike, lands on the fair share, a heavy flow stands out, the drop probability of an
 * unresponsive flow settles it at the mean, a flow's backlog never goes
 * below zero, the sparse test tells a 20 Hz probe from a bulk flow, and
 * the judge convicts a flow that never answers, never one that does (by
 * its packets, or for other protocols by its rate), and
 * the priority path stays within its bound.
 */
#define _GNU_SOURCE	/* pthread_tryjoin_np */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/types.h>
#include "fair.h"

#include "../lib/check.h"

#define MS 1000000ULL

/* n equal flows, packets in turn: the mean is each one's backlog */
static void test_mean_equal_flows(void)
{
	__u64 mean = 0;
	int i;

	for (i = 0; i < 20000; i++)
		mean = sj_fair_mean_step(mean, 30000);
	CHECK(mean > 29000 && mean <= 30000, "mean %llu, want ~30000", mean);
}

/*
 * One flow with 80% of a 100 KB queue sending 80% of the packets, four
 * with 5% each, their packets in a random order a packet every 25 us,
 * each moving the mean as tc.bpf.c has it (sj_fair_mean_due, interval 100
 * ms): each flow counts alike, so the mean is (80K + 4 * 5K) / 5 = 20 KB,
 * the queue reads as 5 flows, the big one is heavy and the small ones are
 * not.  By packet, the mean would be 0.8 * 80K + 0.2 * 5K = 65 KB, and the
 * queue would read as one flow.
 */
static void test_mean_one_hog(void)
{
	__u64 mean = 0, by_packet = 0, mean_at[5] = { 0 }, t = MS;
	int i;

	srand(1);
	for (i = 0; i < 400000; i++, t += 25000) {
		int f = rand() % 10 < 8 ? 0 : 1 + rand() % 4;
		__u64 backlog = f ? 5000 : 80000;

		by_packet = sj_fair_mean_step(by_packet, backlog);
		if (!sj_fair_mean_due(t, mean_at[f], 100 * MS))
			continue;
		mean_at[f] = t;
		mean = sj_fair_mean_step(mean, backlog);
	}
	CHECK(mean > 17000 && mean < 23000, "mean %llu, want ~20000", mean);
	CHECK(sj_fair_flows(100000, mean) >= 4 && sj_fair_flows(100000, mean) <= 5,
	      "%u flows, want 5", sj_fair_flows(100000, mean));
	CHECK(sj_fair_heavy(80000, mean), "the hog is not heavy");
	CHECK(!sj_fair_heavy(5000, mean), "a small flow is heavy");
	CHECK(by_packet > 60000 && by_packet < 70000,
	      "by packet %llu, want ~65000", by_packet);
	CHECK(sj_fair_mean_due(103125000, 100 * MS, 100 * MS) &&
	      !sj_fair_mean_due(103124999, 100 * MS, 100 * MS) &&
	      sj_fair_mean_due(10000 * MS, 0, 100 * MS), "once every 1/32 interval");
}

/* The drop probability rises while heavy, falls while not, and reaches 0 */
/*
 * A mean moved by time (sj_fair_mean_move): 1/64 a step while flows move
 * it often, dt/interval once that is more, the sample whole after an
 * interval in which no flow moved it; down as up; a difference past 4 GB
 * stays in 64 bits.
 */
static void test_mean_move(void)
{
	const __u64 i = 100000000ULL;	/* 100 ms */
	__u64 m;

	CHECK(sj_fair_mean_move(1200000, 0, i, i) == 0 &&
	      sj_fair_mean_move(0, 30000, 5 * i, i) == 30000,
	      "after an interval, the sample whole");
	CHECK(sj_fair_mean_move(64000, 0, i / 200, i) ==
		      sj_fair_mean_step(64000, 0) &&
	      sj_fair_mean_move(0, 64000, 0, i) == sj_fair_mean_step(0, 64000),
	      "moved often: a step of 1/64");
	m = sj_fair_mean_move(0, 1000000, i / 4, i);
	CHECK(m >= 249000 && m <= 251000, "a quarter interval: %llu of 1000000",
	      (unsigned long long)m);
	m = sj_fair_mean_move(1000000, 0, i / 4, i);
	CHECK(m >= 749000 && m <= 751000, "down a quarter: %llu",
	      (unsigned long long)m);
	m = sj_fair_mean_move(0, 1ULL << 40, i / 2, i);
	CHECK(m >= (1ULL << 39) - (1ULL << 30) && m <= (1ULL << 39) + (1ULL << 30),
	      "2^40 half way: %llu", (unsigned long long)m);
	/* the flood's own mean, then a ping's empty backlog every 50 ms:
	 * half way at each, under 1 % of it after 7 */
	m = 1200000;
	for (int k = 0; k < 7; k++)
		m = sj_fair_mean_move(m, 0, i / 2, i);
	CHECK(m < 12000, "7 pings 50 ms apart left a stale mean at %llu",
	      (unsigned long long)m);
}

/* Light since now, or since a last packet an interval ago or more
 * (sj_fair_light_from) */
static void test_light_from(void)
{
	const __u64 i = 100000000ULL, now = 5000000000ULL;

	CHECK(sj_fair_light_from(now - i / 2, now, i) == now &&
	      sj_fair_light_from(0, now, i) == now,
	      "a packet half an interval ago, or none: light from now");
	CHECK(sj_fair_light_from(now - i, now, i) == now - i &&
	      sj_fair_light_from(now - 3 * i, now, i) == now - 3 * i,
	      "silent an interval or more: light from its last packet");
}

static void test_drop_probability(void)
{
	__u32 p = 1, prev;
	int i;

	for (i = 0; i < 2000; i++) {
		prev = p;
		p = sj_fair_p_step(p, 1);
		if (p < prev)
			break;
	}
	CHECK(p > 0xf0000000U, "p after 2000 heavy packets: %u", p);
	for (i = 0; i < 20000 && p; i++) {
		prev = p;
		p = sj_fair_p_step(p, 0);
		CHECK(p < prev, "p did not fall: %u -> %u", prev, p);
		if (p >= prev)
			break;
	}
	CHECK(p == 0, "p never reached 0: %u", p);
}

/*
 * A flood offering 3x its share against a dropper driven by heavy/light:
 * the admitted share settles near the mean, i.e. its fair share.
 */
static void test_dropper_settles(void)
{
	/* backlog in a FIFO is proportional to the admitted rate */
	double offered = 3.0, fair = 1.0, admitted = 0;
	__u32 p = 1;
	long i, n = 0;

	for (i = 0; i < 400000; i++) {
		admitted = offered * (1.0 - p / 4294967296.0);
		p = sj_fair_p_step(p, admitted > fair);
		if (i > 200000) {
			n++;
			CHECK(admitted > 0.9 * fair && admitted < 1.1 * fair,
			      "admitted %.3f of a fair 1.0 at step %ld", admitted, i);
			if (check_fails > 3)
				return;
		}
	}
	CHECK(n > 0, "no steps judged");
}

/* Backlog never below zero, and exact above it */
static void test_backlog_sub(void)
{
	__u64 b = 3000;

	CHECK(sj_fair_backlog_sub(&b, 1000) && b == 2000, "3000 - 1000 = %llu", b);
	CHECK(sj_fair_backlog_sub(&b, 5000) && b == 0, "2000 - 5000 = %llu", b);
	CHECK(sj_fair_backlog_sub(&b, 1500) && b == 0, "0 - 1500 = %llu", b);
	/* the flow's newest packet left: nothing of it is queued, and a
	 * count gone too high (a lost dequeue) comes back to 0 at once */
	b = 21804;
	CHECK(sj_fair_backlog_leave(&b, 1500, 0) && b == 20304,
	      "21804 - 1500 = %llu", b);
	CHECK(sj_fair_backlog_leave(&b, 1500, 1) && b == 0,
	      "newest left, count %llu, want 0", b);
}

/*
 * Two CPUs at once: one adds (enqueues), one takes away more than was
 * added (dequeues and lost events), a third reads as egress does.  The
 * count must never be seen below zero, i.e. near 2^64 (the fetch-and-sub
 * and repair this replaced was, between its two steps).
 */
static __u64 shared_backlog;
static volatile int racing;

static void *race_add(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < 2000000 && racing; i++)
		__sync_fetch_and_add(&shared_backlog, 1000);
	return NULL;
}

static void *race_sub(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < 2000000 && racing; i++)
		sj_fair_backlog_sub(&shared_backlog, 1500);
	return NULL;
}

static void test_backlog_sub_racing(void)
{
	pthread_t adder, taker;
	__u64 seen, worst = 0;

	racing = 1;
	if (pthread_create(&adder, NULL, race_add, NULL) ||
	    pthread_create(&taker, NULL, race_sub, NULL)) {
		CHECK(0, "pthread_create");
		return;
	}
	while (racing) {
		seen = *(volatile __u64 *)&shared_backlog;
		if (seen > worst)
			worst = seen;
		/* 2M adds of 1000 is the most it can honestly hold */
		if (seen > 2000000ULL * 1000)
			break;
		if (pthread_tryjoin_np(adder, NULL) == 0) {
			racing = 0;
			pthread_join(taker, NULL);
			break;
		}
	}
	if (racing) {
		racing = 0;
		pthread_join(adder, NULL);
		pthread_join(taker, NULL);
	}
	CHECK(worst <= 2000000ULL * 1000, "backlog seen at %llu", worst);
}

static void test_stale(void)
{
	/* last enqueue 20 ms ago, queue delay 10 ms, target 5 ms: stale */
	CHECK(sj_fair_stale(100 * MS, 120 * MS, 10 * MS, 5 * MS), "not stale");
	CHECK(!sj_fair_stale(100 * MS, 112 * MS, 10 * MS, 5 * MS), "stale too soon");
}

/* a flow's rate for sparseness counts TCP payload only (fair.h) */
static void test_sparse_bytes(void)
{
	CHECK(sj_fair_sparse_bytes(1, 66, 66) == 0, "a pure ACK counted %u",
	      sj_fair_sparse_bytes(1, 66, 66));
	CHECK(sj_fair_sparse_bytes(1, 1514, 66) == 1448, "a full segment counted %u",
	      sj_fair_sparse_bytes(1, 1514, 66));
	CHECK(sj_fair_sparse_bytes(1, 40, 66) == 0, "a short TCP packet counted %u",
	      sj_fair_sparse_bytes(1, 40, 66));
	CHECK(sj_fair_sparse_bytes(0, 66, 42) == 66, "a UDP packet counted %u",
	      sj_fair_sparse_bytes(0, 66, 42));
}

/* stale for shares after delay + target; gone for sure (steering) only
 * after an interval, or with nothing counted */
static void test_left_for_sure(void)
{
	CHECK(sj_fair_stale(100 * MS, 120 * MS, 10 * MS, 5 * MS) &&
	      !sj_fair_left_for_sure(3000, 100 * MS, 0, 120 * MS, 100 * MS, 10 * MS, 5 * MS, 120 * MS),
	      "stale count taken as gone for sure");
	CHECK(sj_fair_left_for_sure(3000, 100 * MS, 0, 200 * MS, 100 * MS, 10 * MS, 5 * MS, 200 * MS),
	      "an interval quiet: gone");
	CHECK(sj_fair_left_for_sure(0, 100 * MS, 0, 101 * MS, 100 * MS, 10 * MS, 5 * MS, 101 * MS),
	      "nothing counted, nothing forgotten: gone");
	/* a count forgotten 20 ms ago reads zero: the dequeues of what it
	 * held took away what came since */
	CHECK(!sj_fair_left_for_sure(0, 100 * MS, 81 * MS, 101 * MS, 100 * MS, 10 * MS, 5 * MS, 101 * MS),
	      "zero just after forgetting read as gone");
	/* a queue of 130 ms holds what a flow sent 110 ms ago */
	CHECK(!sj_fair_left_for_sure(3000, 100 * MS, 0, 210 * MS, 100 * MS, 130 * MS, 5 * MS, 210 * MS),
	      "quiet for an interval, but the queue holds more");
	CHECK(sj_fair_left_for_sure(3000, 100 * MS, 0, 370 * MS, 100 * MS, 130 * MS, 5 * MS, 370 * MS),
	      "quiet for twice the queue's delay: gone");
	/* a queue that stood still since the flow's last enqueue: nothing
	 * stamped at or after it has left, however long the quiet */
	CHECK(!sj_fair_left_for_sure(3000, 100 * MS, 0, 600 * MS, 100 * MS, 0, 5 * MS, 100 * MS - 1),
	      "a stalled queue's old delay read as gone");
	CHECK(!sj_fair_left_for_sure(0, 100 * MS, 0, 600 * MS, 100 * MS, 0, 5 * MS, 90 * MS),
	      "a zero count in a stalled queue read as gone");
	CHECK(sj_fair_left_for_sure(3000, 100 * MS, 0, 600 * MS, 100 * MS, 0, 5 * MS, 100 * MS),
	      "its own last packet left, an interval ago: still waiting");
	CHECK(sj_fair_left_for_sure(0, 0, 0, 600 * MS, 100 * MS, 0, 5 * MS, 0),
	      "a flow that never queued waits for a dequeue");
	/* another CPU wrote its time a moment after this CPU read now */
	CHECK(!sj_fair_left_for_sure(3000, 120 * MS + 1000, 0, 120 * MS, 100 * MS, 10 * MS, 5 * MS, 120 * MS),
	      "a time just ahead of now read as long ago");
	CHECK(!sj_fair_unresponsive(120 * MS + 1000, 120 * MS, 100 * MS, 5, 1),
	      "a judge's wait just begun read as over");
	CHECK(sj_fair_recent(1000, sj_since(120 * MS, 120 * MS + 1000), 100 * MS, 0) == 1000,
	      "a recent count wiped by a time just ahead of now");
}

/* a sender convicted 150 ms ago is remembered, 250 ms ago not; never a
 * sender with no conviction */
static void test_sender_memory(void)
{
	CHECK(sj_fair_sender_recent(1000 * MS, 1150 * MS, 100 * MS), "forgot at 150 ms");
	CHECK(!sj_fair_sender_recent(1000 * MS, 1250 * MS, 100 * MS), "kept at 250 ms");
	CHECK(!sj_fair_sender_recent(0, 50 * MS, 100 * MS), "no conviction recalled");
	/* a new port takes it over only when heavy from its start */
	CHECK(sj_fair_recall_young(1000 * MS, 1012 * MS, 100 * MS), "young at 12 ms");
	CHECK(!sj_fair_recall_young(1000 * MS, 1013 * MS, 100 * MS), "young at 13 ms");
}

/* 20 Hz of 100-byte probes stay under a quantum; 2.5 Mbit does not */
static void test_sparse_by_rate(void)
{
	__u64 probe = 0, bulk = 0, t;
	int sparse_bulk = 0;

	for (t = 0; t < 2000 * MS; t += 50 * MS)
		probe = sj_fair_recent(probe, 50 * MS, 100 * MS, 100);
	CHECK(probe <= 1514, "probe's recent bytes %llu", probe);
	for (t = 0; t < 2000 * MS; t += 4800000ULL) {	/* 1500 B at 2.5 Mbit */
		bulk = sj_fair_recent(bulk, 4800000ULL, 100 * MS, 1500);
		sparse_bulk += bulk <= 1514 && t > 0;
	}
	CHECK(bulk > 10 * 1514, "bulk's recent bytes %llu", bulk);
	CHECK(sparse_bulk == 0, "bulk looked sparse %d times", sparse_bulk);
	/* a sparse flow that bursts loses the status within one quantum */
	probe = sj_fair_recent(probe, 1000, 100 * MS, 1514);
	CHECK(probe > 1514, "a quantum's burst still sparse: %llu", probe);
}

/* What counts as a TCP sender's answer: CWR, or data below what it sent */
static void test_tcp_answer(void)
{
	CHECK(sj_fair_tcp_answer(SJ_TCP_FLAG_CWR, 5000, 9000, 1), "CWR");
	CHECK(sj_fair_tcp_answer(SJ_TCP_FLAG_CWR, 9000, 0, 0), "CWR, no data");
	CHECK(sj_fair_tcp_answer(0x10, 5000, 9000, 1), "retransmission");
	CHECK(!sj_fair_tcp_answer(0x10, 9001, 9000, 1), "new data");
	CHECK(!sj_fair_tcp_answer(0x10, 5000, 9000, 0), "a pure ACK");
	CHECK(!sj_fair_tcp_answer(0x10, 5000, 0, 1), "the first packet");
	/* sequence numbers wrap: 0x10 comes after 0xfffffff0 */
	CHECK(!sj_fair_tcp_answer(0x10, 0x10, 0xfffffff0U, 1), "across the wrap");
	CHECK(sj_fair_tcp_high(0x10, 0xfffffff0U, 1) == 0x10, "high across the wrap");
	CHECK(sj_fair_tcp_high(5000, 9000, 1) == 9000, "high fell back");
	CHECK(sj_fair_tcp_high(9500, 9000, 0) == 9000, "high moved by an ACK");
	CHECK(sj_fair_tcp_high(7, 0, 1) == 7, "first high");
}

/*
 * A sender of 1514-byte packets for rate_answer_at: `kbit` from t = 0,
 * `burst` packets at once with the gaps that keep that rate, silent from
 * `pause_from` to `pause_to` (a stalled sender: 0, never), and from
 * `change_at` on (0: never) at `after_kbit`.
 */
struct sender {
	__u64 kbit, burst, pause_from, pause_to, change_at, after_kbit;
};

/*
 * A flow that is not TCP, its rate followed as tc.bpf.c does from the
 * moment it is judged (t = 200 ms) against a mean rate of the flows that
 * answer of `mean_kbit`: the time its rate has read as an answer that
 * counts (sj_fair_rate_answer, sj_fair_answer_near_share) for as long as
 * sj_fair_answer_held asks, 0 for never.  tau and interval 100 ms.
 */
static __u64 rate_answer_at(const struct sender *s, __u64 mean_kbit)
{
	__u64 tau = 100 * MS, recent = 0, at = 0, peak = 0, since = 0, t, gap, i;
	__u64 mean = mean_kbit * 1000 / 8 * tau / (1000 * MS); /* bytes a tau */

	for (t = MS; t < 1500 * MS; t += gap) {
		__u64 kbit = s->change_at && t >= s->change_at ? s->after_kbit
							       : s->kbit;

		gap = 1514ULL * 8 * 1000000 / kbit * s->burst;
		if (t >= s->pause_from && t < s->pause_to)
			continue;
		for (i = 0; i < s->burst; i++) {
			recent = sj_fair_recent(recent, t - at, tau, 1514);
			at = t;
			if (t < 200 * MS)
				continue;
			if (!peak || !sj_fair_answer_near_share(recent, mean) ||
			    !sj_fair_rate_answer(recent, peak))
				since = 0;
			else if (!since)
				since = t;
			else if (sj_fair_answer_held(since, t, tau))
				return t;
			if (recent > peak)
				peak = recent;
		}
	}
	return 0;
}

/* a mean rate no flow here comes near: the rate answer alone */
#define ANY_MEAN	(1ULL << 30)

/*
 * The rate answer: a flow at 5 Mbit/s, evenly or in bursts of 4 at the
 * same rate, never answers; the same flow cut to 0.7 of its rate (cubic's
 * answer) at 500 ms answers within 100 ms of the cut.
 */
static void test_rate_answer(void)
{
	struct sender even = { .kbit = 5000, .burst = 1 },
		      bursts = { .kbit = 5000, .burst = 4 },
		      cut = { .kbit = 5000, .burst = 1, .change_at = 500 * MS,
			      .after_kbit = 3500 },
		      bursty_cut = cut;
	__u64 t;

	bursty_cut.burst = 4;
	CHECK(!rate_answer_at(&even, ANY_MEAN), "an even flood answered at %llu ms",
	      rate_answer_at(&even, ANY_MEAN) / MS);
	CHECK(!rate_answer_at(&bursts, ANY_MEAN), "a bursty flood answered at %llu ms",
	      rate_answer_at(&bursts, ANY_MEAN) / MS);
	t = rate_answer_at(&cut, ANY_MEAN);
	CHECK(t > 500 * MS && t <= 600 * MS, "a cut to 0.7 answered at %llu ms", t / MS);
	t = rate_answer_at(&bursty_cut, ANY_MEAN);
	CHECK(t > 500 * MS && t <= 600 * MS, "a bursty cut answered at %llu ms", t / MS);
	CHECK(sj_fair_rate_answer(699, 800) && !sj_fair_rate_answer(700, 800) &&
	      !sj_fair_rate_answer(0, 0), "an eighth below the peak");
}

/*
 * A fall counts once it has lasted 1/16 interval (sj_fair_answer_held): a
 * 40 Mbit/s flood that sends all that is due in a burst every 20 ms falls
 * before each burst, by more than an eighth, and is back above within the
 * burst, and never answers, whatever the mean; a flow cut to 0.7 of its
 * rate answers (test_rate_answer).
 */
static void test_answer_held(void)
{
	struct sender bursts = { .kbit = 40000, .burst = 66 };
	__u64 t = rate_answer_at(&bursts, ANY_MEAN);

	CHECK(!t, "a flood in bursts every 20 ms answered at %llu ms", t / MS);
	/* without the hold, the first packet of the second burst would */
	CHECK(sj_fair_rate_answer(sj_fair_recent(500000, 20 * MS, 100 * MS, 1514),
				  500000), "a burst's gap is a fall");
	CHECK(sj_fair_answer_held(100 * MS, 106250000, 100 * MS) &&
	      !sj_fair_answer_held(100 * MS, 106249999, 100 * MS),
	      "held for 1/16 interval");
}

/*
 * A fall counts only near the flow's share (sj_fair_answer_near_share),
 * the mean rate of the flows that answer being 4 Mbit/s: a 40 Mbit/s flood
 * silent from 500 to 540 ms falls by more than an eighth for some 30 ms
 * after it, and never answers; a flow cut from 5 to 2 Mbit/s answers
 * within 100 ms of the cut, one cut from 20 to 10 Mbit/s (still above
 * twice the mean) never.
 */
static void test_answer_near_share(void)
{
	struct sender paused = { .kbit = 40000, .burst = 1,
				 .pause_from = 500 * MS, .pause_to = 540 * MS },
		      cut = { .kbit = 5000, .burst = 1, .change_at = 500 * MS,
			      .after_kbit = 2000 },
		      cut_above = { .kbit = 20000, .burst = 1,
				    .change_at = 500 * MS, .after_kbit = 10000 };
	__u64 t;

	/* what released fair_udp's pausing flood before */
	t = rate_answer_at(&paused, ANY_MEAN);
	CHECK(t > 540 * MS && t < 550 * MS,
	      "a pause alone answered at %llu ms", t / MS);
	t = rate_answer_at(&paused, 4000);
	CHECK(!t, "a flood that paused 40 ms answered at %llu ms", t / MS);
	t = rate_answer_at(&cut, 4000);
	CHECK(t > 500 * MS && t <= 600 * MS,
	      "a cut below the mean answered at %llu ms", t / MS);
	t = rate_answer_at(&cut_above, 4000);
	CHECK(!t, "a cut still above twice the mean answered at %llu ms", t / MS);
	CHECK(sj_fair_answer_near_share(1000, 500) &&
	      !sj_fair_answer_near_share(1001, 500), "twice the mean");
	CHECK(!sj_fair_answer_near_share(1514, 0), "no mean, no answer");
}

/*
 * One interval to answer only above the mean rate by a quarter
 * (sj_fair_above_share, sj_fair_answer_intervals): fair_quic's udpcc flows
 * were at 1.00-1.25 times it at most of their false convictions; a flood
 * beside one TCP flow it starves is near twice it, beside four near five
 * times.  A flood that has starved every other flow out of the mean rate
 * is all of it, and has five intervals: convicted later, not never.
 */
static void test_above_share(void)
{
	__u64 mean = 400000, t0 = 1000 * MS, i = 100 * MS;

	CHECK(!sj_fair_above_share(mean, mean) &&
	      !sj_fair_above_share(mean * 5 / 4, mean) &&
	      sj_fair_above_share(mean * 5 / 4 + 1, mean), "a quarter above");
	/* a 40 Mbit/s flood beside one TCP flow at 4 Mbit/s (bytes a tau) */
	CHECK(sj_fair_above_share(500000, (500000 + 50000) / 2),
	      "a flood beside one starved flow is not above the mean");
	CHECK(sj_fair_above_share(1, 0), "no mean yet: above");
	CHECK(sj_fair_answer_intervals(0, 1) == 1 &&
	      sj_fair_answer_intervals(0, 0) == SJ_FAIR_ANSWER_INTERVALS &&
	      sj_fair_answer_intervals(1, 1) == SJ_FAIR_ANSWER_INTERVALS,
	      "one interval only for a flow that is not TCP, above its share");
	/* the flood that is the whole mean: judged at t0, two signals */
	CHECK(!sj_fair_unresponsive(t0, t0 + 4 * i, i, 2,
				    sj_fair_answer_intervals(0,
					sj_fair_above_share(500000, 500000))) &&
	      sj_fair_unresponsive(t0, t0 + 5 * i, i, 2,
				   sj_fair_answer_intervals(0,
					sj_fair_above_share(500000, 500000))),
	      "a flood that is the whole mean: not convicted at 500 ms");
}

/*
 * The backlog answer (fair.h: sj_fair_backlog_answer): a flow that holds
 * B bytes at its packets, give or take a packet, never answers; one that
 * halves its window (its backlog falls to half) or cuts to 0.7 answers at
 * its first packet after the cut; a fall of less than a quarter does not.
 */
static int backlog_answers(__u64 before, __u64 after, __u64 jitter)
{
	__u32 peak = 0;
	int i;

	for (i = 0; i < 200; i++) {
		__u64 b = (i < 100 ? before : after) + (i % 3) * jitter;

		if (sj_fair_backlog_answer(b, peak))
			return i;
		peak = sj_fair_backlog_peak(b, peak);
	}
	return 0;
}

static void test_backlog_answer(void)
{
	CHECK(!backlog_answers(9000, 9000, 1200), "a steady backlog answered");
	CHECK(backlog_answers(9000, 4500, 0) == 100, "a halved backlog: at %d",
	      backlog_answers(9000, 4500, 0));
	CHECK(backlog_answers(10000, 7000, 0) == 100, "a cut to 0.7: at %d",
	      backlog_answers(10000, 7000, 0));
	CHECK(!backlog_answers(10000, 8000, 0), "a fall of a fifth answered");
	CHECK(!sj_fair_backlog_answer(0, 0), "no peak, no answer");
	CHECK(sj_fair_backlog_peak(1ULL << 40, 7) == 0xffffffffU, "peak saturates");
}

/*
 * A flow heavy the whole time, offered a signal every 100 ms (the interval),
 * whose sender answers each one an RTT after it: with RTTs up to 300 ms
 * (and a 100 ms queue, RTT + 100 ms in all) it is never judged; a sender
 * that never answers is judged within the answer window plus one signal.
 */
static __u64 judge_time(__u64 answer_after)
{
	__u64 interval = 100 * MS, judged = 0, t, pending = 0;
	__u64 start = 1000 * MS;	/* 0 means "no record" */
	__u32 signals = 0;

	for (t = start; t < start + 5000 * MS; t += MS) {
		if (answer_after && pending && t >= pending) {
			judged = 0;	/* CWR seen: the record is cleared */
			signals = 0;
			pending = 0;
		}
		if (t % interval == 0) {
			if (!signals++)
				judged = t;
			if (!pending)
				pending = t + answer_after;
		}
		if (sj_fair_unresponsive(judged, t, interval, signals,
					 SJ_FAIR_ANSWER_INTERVALS))
			return t - start;
	}
	return 0;
}

static void test_judge(void)
{
	__u64 rtt, t;

	for (rtt = 1; rtt <= 300; rtt *= 2)
		CHECK(!judge_time((rtt + 100) * MS), "judged at %llu ms with a %llu ms RTT",
		      judge_time((rtt + 100) * MS) / MS, rtt);
	CHECK(!judge_time(400 * MS), "judged with a 300 ms RTT");
	t = judge_time(0);
	CHECK(t >= SJ_FAIR_ANSWER_INTERVALS * 100 * MS &&
	      t <= (SJ_FAIR_ANSWER_INTERVALS + 1) * 100 * MS,
	      "a sender that never answers judged at %llu ms", t / MS);
	CHECK(!sj_fair_unresponsive(0, 900 * MS, 100 * MS, 9, 1), "no record");
	CHECK(!sj_fair_unresponsive(MS, 900 * MS, 100 * MS, 1, 1), "one signal");
	/* a flow that cannot show an answer: one interval, as before */
	CHECK(sj_fair_unresponsive(MS, 101 * MS, 100 * MS, 2, 1), "UDP after an interval");
	CHECK(!sj_fair_unresponsive(MS, 100 * MS, 100 * MS, 2, 1), "UDP too soon");
}

/* The priority path's bound: 1/8 of what the queue sent, 2 quanta at least */
static void test_sparse_bound(void)
{
	const __u64 tau = 100 * MS, sent = 250000;	/* 20 Mbit/s */
	__u64 steered = 0, offered = 0, ahead = 0, t;
	int i;

	CHECK(sj_fair_sparse_room(0, tau, 0, tau, tau, 1514, 1514), "idle: one");
	CHECK(!sj_fair_sparse_room(2000, 0, 0, tau, tau, 1514, 1514), "idle: past the floor");
	CHECK(sj_fair_sparse_room(29000, 0, sent, 0, tau, 1514, 1514), "busy: in");
	CHECK(!sj_fair_sparse_room(30000, 0, sent, 0, tau, 1514, 1514), "busy: past 1/8");
	CHECK(sj_fair_sparse_room(30000, 50 * MS, sent, 0, tau, 1514, 1514),
	      "half an interval later, half of it is spent");
	/* 50 sparse flows of 1400 bytes each per interval, spread over it,
	 * on a queue that sends 250 kB per interval: what goes ahead stays
	 * within 1/8 of that (plus one packet), the rest waits in the bulk */
	for (t = 0; t < 20 * tau; t += tau / 50) {
		offered += 1400;
		if (sj_fair_sparse_room(steered, tau / 50, sent, 0, tau, 1514, 1400)) {
			steered = sj_fair_recent(steered, tau / 50, tau, 1400);
			ahead += 1400;
		} else {
			steered = sj_fair_recent(steered, tau / 50, tau, 0);
		}
	}
	i = (int)(ahead * 1000 / (20 * sent));
	CHECK(ahead <= 20 * (sent / SJ_SPARSE_SHARE + 1400),
	      "%d per mille of the link went ahead", i);
	CHECK(ahead >= 20 * (sent / SJ_SPARSE_SHARE) * 9 / 10,
	      "only %d per mille of the link went ahead", i);
	CHECK(offered > 2 * ahead, "the test offered too little: %llu", offered);
}

/*
 * Who takes the law's signal: a flow that sends faster than the mean at
 * once, however little; one at or below the mean only once the law has
 * waited its grace, so a flow alone, or flows of equal rates, still get
 * signals.  And the flows the backlog holds, by the mean.
 */
static void test_takes_signal(void)
{
	const __u32 grace = 4882;	/* 5 ms in the law's units */

	CHECK(sj_fair_takes_signal(10001, 10000, 0, grace),
	      "a flow above the mean rate did not take the signal at once");
	CHECK(!sj_fair_takes_signal(10000, 10000, grace - 1, grace),
	      "a flow at the mean took it before the grace");
	CHECK(!sj_fair_takes_signal(5000, 10000, grace - 1, grace),
	      "a light flow took it before the grace");
	CHECK(sj_fair_takes_signal(10000, 10000, grace, grace),
	      "a flow at the mean (alone, or all equal) did not take it after the grace");
	CHECK(sj_fair_takes_signal(0, 10000, grace, grace),
	      "no flow took it after the grace: the law would wait on");
	CHECK(sj_fair_flows(40000, 10000) == 4, "4 equal flows: %u",
	      sj_fair_flows(40000, 10000));
	CHECK(sj_fair_flows(40000, 0) == 1, "no mean yet: %u",
	      sj_fair_flows(40000, 0));
	CHECK(sj_fair_flows(5000, 10000) == 1, "backlog under the mean: %u",
	      sj_fair_flows(5000, 10000));
}

/*
 * Two packets of one flow decide its path at once (fair.h:
 * sj_fair_path_claim): whichever claims second finds the word moved and
 * goes the way the first went, ahead or not; claims one after another keep
 * their own decisions; the word's time only moves forward.
 */
static void test_path_claim(void)
{
	__u64 path = 0, seen_a, seen_b;
	int a, b;

	CHECK(sj_fair_path_claim(&path, 0, 10 * MS, 1) == 1 &&
	      path == (10 * MS | SJ_PATH_AHEAD), "a lone claim: word %llx", path);
	CHECK(sj_fair_path_claim(&path, path, 11 * MS, 0) == 0 &&
	      sj_fair_path_at(path) == 11 * MS && !(path & SJ_PATH_AHEAD),
	      "a later claim keeps its own path: word %llx", path);

	/* A (older) read the word, then B read it, went ahead first (the
	 * flow's last packet had), and A, kept in bulk by its own reading,
	 * would have been passed by B */
	path = 10 * MS | SJ_PATH_AHEAD;
	seen_a = path;
	seen_b = path;
	b = sj_fair_path_claim(&path, seen_b, 12 * MS + 2, 1);
	a = sj_fair_path_claim(&path, seen_a, 12 * MS, 0);
	CHECK(b == 1 && a == 1, "A took %d while B went ahead", a);
	CHECK(sj_fair_path_at(path) > 12 * MS + 2,
	      "A's claim did not move the word past B's: %llu", sj_fair_path_at(path));

	/* the other way: A kept in bulk first; B, having read "ahead",
	 * must not pass it */
	path = 10 * MS | SJ_PATH_AHEAD;
	seen_a = path;
	seen_b = path;
	a = sj_fair_path_claim(&path, seen_a, 12 * MS, 0);
	b = sj_fair_path_claim(&path, seen_b, 12 * MS + 2, 1);
	CHECK(a == 0 && b == 0, "B took %d after A went to bulk", b);

	/* a claim handled no later than the word's time (the other CPU's
	 * clock read a moment after ours) still moves it, so a third packet
	 * that read the old word cannot claim over both */
	path = 20 * MS;
	seen_a = path;
	CHECK(sj_fair_path_claim(&path, path, 20 * MS - 4, 0) == 0 &&
	      path > seen_a, "an earlier time left the word at %llu", path);
	CHECK(sj_fair_path_claim(&path, seen_a, 20 * MS + 6, 1) == 0,
	      "a claim on a word read before another's went through");

	/* a packet kept in bulk on another CPU whose bytes are not counted
	 * yet: the word's time stands for its enqueue (tc.bpf.c), and the
	 * flow has not left until the bulk path lets it go */
	CHECK(!sj_fair_left_for_sure(0, 300 * MS, 0, 300 * MS + 1000, 100 * MS, 10 * MS,
				     5 * MS, 290 * MS),
	      "a count still zero read as gone after a bulk claim");
}

int main(void)
{
	test_tcp_answer();
	test_rate_answer();
	test_answer_held();
	test_answer_near_share();
	test_above_share();
	test_backlog_answer();
	test_judge();
	test_takes_signal();
	test_sparse_bound();
	test_mean_equal_flows();
	test_mean_one_hog();
	test_mean_move();
	test_light_from();
	test_drop_probability();
	test_dropper_settles();
	test_stale();
	test_left_for_sure();
	test_path_claim();
	test_sparse_bytes();
	test_sender_memory();
	test_sparse_by_rate();
	test_backlog_sub();
	test_backlog_sub_racing();
	return check_exit("test_fair");
}
