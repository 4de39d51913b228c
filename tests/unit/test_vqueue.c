// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The virtual queue of rate mode (include/vqueue.h): its clock, its credit,
 * its horizon, and the long-run rate it lets through, checked against
 * arithmetic done here independently.
 */
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include "vqueue.h"

#include "../lib/check.h"

#define MS 1000000ULL

static struct codel_params params(int ecn)
{
	struct codel_params p = {
		.target = CODEL_NS(5 * MS), .interval = CODEL_NS(100 * MS),
		.ce_threshold = CODEL_DISABLED_THRESHOLD, .mtu = 1514, .ecn = ecn,
	};
	return p;
}

/* pkt joins q, its ceiling worked out first as the programs do */
static void admit_pkt(struct sj_queue *q, const struct codel_params *p,
		      __u64 rate, __u64 credit_ns, __u64 horizon,
		      struct sj_vq_pkt *pkt, struct sj_rate_result *r)
{
	pkt->ceiling_ns = sj_vq_ceiling(p, horizon, pkt);
	sj_vq_admit(q, p, rate, credit_ns, pkt, r);
}

static struct sj_rate_result admit(struct sj_queue *q, const struct codel_params *p,
				   __u64 rate, __u64 burst, __u64 horizon,
				   __u64 now, __u32 len, int exempt, int ect)
{
	struct sj_vq_pkt pkt = { .now = now, .len = len, .exempt = exempt,
				 .ecn_capable = ect,
				 .tx_ns = sj_vq_tx_ns(len, rate) };
	struct sj_rate_result r;

	admit_pkt(q, p, rate, sj_vq_tx_ns(burst, rate), horizon, &pkt, &r);
	return r;
}

static void test_tx_time(void)
{
	/* 12 Mbit/s is 1.5 MB/s: 1500 bytes take exactly 1 ms */
	CHECK(sj_vq_tx_ns(1500, 1500000) == MS, "%llu", sj_vq_tx_ns(1500, 1500000));
	/* 64 KB at 400 Gbit/s still fits 64 bits and rounds down */
	CHECK(sj_vq_tx_ns(65536, 50000000000ULL) == 1310, "%llu",
	      sj_vq_tx_ns(65536, 50000000000ULL));
	/* the largest burst at the lowest rate does not overflow */
	CHECK(sj_vq_tx_ns(SJ_MAX_BURST_BYTES, SJ_MIN_RATE_BYTES_PER_S) ==
	      SJ_MAX_BURST_BYTES * 1000000ULL, "overflow");
}

/* Back-to-back packets wait for all the bytes admitted before them. */
static void test_clock_conserves_bytes(void)
{
	struct codel_params p = params(1);
	struct sj_queue q = { .departure_ns = 0 };
	__u64 now = 10 * 1000 * MS, rate = 1500000;	/* 12 Mbit */
	int i;

	for (i = 0; i < 10; i++) {
		struct sj_rate_result r = admit(&q, &p, rate, 0, 1000 * MS,
						now, 1500, 0, 1);

		CHECK(r.sojourn_ns == (__u64)i * MS, "packet %d waits %llu", i,
		      r.sojourn_ns);
		CHECK(r.verdict == SJ_PASS, "packet %d verdict %d", i, r.verdict);
	}
	CHECK(q.departure_ns == now + 10 * MS, "clock %llu", q.departure_ns - now);
	CHECK(q.maxpacket == 1500, "maxpacket %u", q.maxpacket);
}

/* An idle queue lets `burst` bytes through without waiting, no more. */
static void test_burst_credit(void)
{
	struct codel_params p = params(1);
	struct sj_queue q = { .departure_ns = 0 };
	__u64 now = 10 * 1000 * MS, rate = 1500000;
	struct sj_rate_result r;
	int i;

	for (i = 0; i < 4; i++) {
		r = admit(&q, &p, rate, 6000, 1000 * MS, now, 1500, 0, 1);
		CHECK(r.sojourn_ns == 0, "packet %d inside the burst waits %llu",
		      i, r.sojourn_ns);
	}
	r = admit(&q, &p, rate, 6000, 1000 * MS, now, 1500, 0, 1);
	CHECK(r.sojourn_ns == 0, "the burst's end starts now, waits %llu", r.sojourn_ns);
	r = admit(&q, &p, rate, 6000, 1000 * MS, now, 1500, 0, 1);
	CHECK(r.sojourn_ns == MS, "past the burst waits %llu", r.sojourn_ns);
}

/* Beyond the bulk's ceiling: dropped, and the clock does not move. */
static void test_horizon(void)
{
	struct codel_params p = params(1);
	struct sj_queue q = { .departure_ns = 0 };
	__u64 now = 10 * 1000 * MS, rate = 1500000, before;
	__u64 horizon = 45 * MS / 2;	/* the bulk's ceiling, 8/9: 20 ms */
	struct sj_rate_result r;
	int i, over = 0;

	for (i = 0; i < 100; i++) {
		r = admit(&q, &p, rate, 0, horizon, now, 1500, 0, 1);
		over += r.verdict == SJ_OVERLIMIT;
	}
	/* sojourns 0..20 ms pass (21 packets), the other 79 are over the
	 * bulk's ceiling */
	CHECK(over == 79, "over the horizon: %d", over);
	before = q.departure_ns;
	r = admit(&q, &p, rate, 0, horizon, now, 1500, 0, 1);
	CHECK(r.verdict == SJ_OVERLIMIT && q.departure_ns == before,
	      "an overlimit packet moved the clock");
	/* an unparsed packet is held to half of CoDel's 5 ms target:
	 * dropped while the queue is longer, and the clock stays */
	now += 18 * MS;
	r = admit(&q, &p, rate, 0, horizon, now, 1500, 1, 0);
	CHECK(r.verdict == SJ_OVERLIMIT && q.departure_ns == before,
	      "exempt packet 3 ms out: verdict %d, clock moved %lld",
	      r.verdict, (long long)(q.departure_ns - before));
	/* within it, it passes and uses the link */
	now += MS;
	r = admit(&q, &p, rate, 0, horizon, now, 1500, 1, 0);
	CHECK(r.verdict == SJ_PASS && q.departure_ns == before + MS,
	      "exempt packet 2 ms out: verdict %d", r.verdict);
}

/*
 * 1 s of frames the parser gives up on (non-IP, bad headers, too deep) at
 * 1 Gbit against 20 Mbit, with one parsed packet a millisecond among them
 * (0.6 of the rate), half ECT, half not.  The flood is policed: the clock
 * never runs further ahead than half of CoDel's target and a packet or
 * two, flood and parsed packets together get no more than the rate, and
 * no parsed packet is dropped (the flood never holds the queue above
 * target, so CoDel has nothing to say), during the flood or right after it.
 */
static void test_exempt_flood(void)
{
	struct codel_params p = params(1);
	struct sj_queue q = { .departure_ns = 0 };
	__u64 rate = 2500000, horizon = 200 * MS, burst = 32768;
	__u64 start = 10 * 1000 * MS, now = start, end = start + 1000 * MS;
	__u64 gap = 12000;	/* 1500 bytes at 1 Gbit */
	__u64 passed = 0, ahead_max = 0, next_parsed = start;
	__u64 tx = sj_vq_tx_ns(1500, rate);
	struct sj_rate_result r;
	int parsed = 0, parsed_lost = 0;

	for (; now < end; now += gap) {
		if (now >= next_parsed) {
			r = admit(&q, &p, rate, burst, horizon, now, 1500, 0,
				  parsed & 1);
			parsed++;
			parsed_lost += r.verdict == SJ_OVERLIMIT ||
				       r.verdict == SJ_DROP;
			next_parsed += MS;
		}
		r = admit(&q, &p, rate, burst, horizon, now, 1500, 1, 0);
		if (r.verdict == SJ_PASS)
			passed += 1500;
		if (q.departure_ns > now && q.departure_ns - now > ahead_max)
			ahead_max = q.departure_ns - now;
	}
	/* half the target, the unparsed packet admitted at that edge and
	 * the parsed one that may come on top */
	CHECK(ahead_max <= 5 * MS / 2 + 2 * tx,
	      "the flood put the clock %llu us ahead (target 5 ms)",
	      ahead_max / 1000);
	/* a second of the rate, the idle queue's credit, and what the
	 * queue may hold at the end: the ceiling's worth and a packet or two */
	CHECK(passed + parsed * 1500ULL <= rate + burst + rate / 400 + 3000,
	      "flood and parsed packets passed %llu bytes in 1 s at %llu B/s",
	      passed + parsed * 1500ULL, rate);
	CHECK(parsed_lost == 0, "%d of %d parsed packets dropped during the flood",
	      parsed_lost, parsed);

	/* after it the very first parsed packet, a SYN (Not-ECT), passes */
	r = admit(&q, &p, rate, burst, horizon, end, 1500, 0, 0);
	CHECK(r.verdict == SJ_PASS,
	      "first parsed packet after the flood: verdict %d, waits %llu us",
	      r.verdict, r.sojourn_ns / 1000);
}

/*
 * ARP and other small control frames under load: with 20 ms standing in
 * the queue (well above the ceiling of big unparsed frames) a 60-byte ARP
 * frame passes.  A flood of them (60 bytes at 1 Gbit, 1 s) is policed at
 * the rate all the same: the clock stays within half the horizon and a
 * frame, and parsed packets among them are never dropped as overlimit.
 */
static void test_exempt_control(void)
{
	struct codel_params p = params(1);
	struct sj_queue q = { .departure_ns = 0 };
	__u64 rate = 2500000, horizon = 200 * MS, burst = 0;
	__u64 start = 10 * 1000 * MS, now = start, end = start + 1000 * MS;
	__u64 passed = 0, ahead_max = 0, next_parsed = start;
	struct sj_rate_result r;
	int i, parsed = 0, over = 0;

	for (i = 0; i < 34; i++)	/* 20 ms of 1500-byte packets */
		admit(&q, &p, rate, burst, horizon, now, 1500, 0, 1);
	r = admit(&q, &p, rate, burst, horizon, now, 60, 1, 0);
	CHECK(r.verdict == SJ_PASS, "ARP behind %llu ms of queue: verdict %d",
	      r.sojourn_ns / MS, r.verdict);
	r = admit(&q, &p, rate, burst, horizon, now, 1500, 1, 0);
	CHECK(r.verdict == SJ_OVERLIMIT,
	      "a big unparsed frame behind 20 ms of queue: verdict %d", r.verdict);

	for (; now < end; now += 480) {
		if (now >= next_parsed) {
			r = admit(&q, &p, rate, burst, horizon, now, 1500, 0, 1);
			parsed++;
			over += r.verdict == SJ_OVERLIMIT;
			next_parsed += MS;
		}
		r = admit(&q, &p, rate, burst, horizon, now, 60, 1, 0);
		if (r.verdict == SJ_PASS)
			passed += 60;
		if (q.departure_ns > now && q.departure_ns - now > ahead_max)
			ahead_max = q.departure_ns - now;
	}
	CHECK(ahead_max <= horizon / 2 + sj_vq_tx_ns(1500, rate) * 2,
	      "small frames put the clock %llu ms ahead", ahead_max / MS);
	CHECK(passed + parsed * 1500ULL <= rate + rate / 5 + 1500,
	      "small frames and parsed passed %llu bytes in 1 s at %llu B/s",
	      passed + parsed * 1500ULL, rate);
	CHECK(over == 0, "%d of %d parsed packets over the horizon", over, parsed);
}

/*
 * CoDel on the virtual sojourn: a standing queue above target for an
 * interval earns a signal; ECT packets are marked (and use the link),
 * Not-ECT ones dropped (and do not).
 */
static void test_codel_on_sojourn(void)
{
	struct codel_params p = params(1);
	struct sj_queue q = { .departure_ns = 0 };
	__u64 now = 10 * 1000 * MS, rate = 1500000, before;
	struct sj_rate_result r;
	int i, marks = 0;

	/* keep 10 ms standing: a 1 ms packet every 1 ms after a 10 ms jump */
	for (i = 0; i < 10; i++)
		admit(&q, &p, rate, 0, 1000 * MS, now, 1500, 0, 1);
	for (i = 0; i < 300; i++) {
		now += MS;
		r = admit(&q, &p, rate, 0, 1000 * MS, now, 1500, 0, 1);
		marks += r.verdict == SJ_MARK;
		CHECK(r.verdict != SJ_DROP, "ECT packet dropped at %d", i);
	}
	/* first signal after 100 ms, then at 100/sqrt(n) ms: 1 + 2 + ... */
	CHECK(marks >= 3 && marks <= 8, "marks in 300 ms: %d", marks);

	p.ecn = 0;
	before = q.departure_ns;
	for (i = 0; i < 100; i++) {
		now += MS;
		before = q.departure_ns;
		r = admit(&q, &p, rate, 0, 1000 * MS, now, 1500, 0, 1);
		if (r.verdict == SJ_DROP)
			break;
	}
	CHECK(r.verdict == SJ_DROP, "noecn never dropped");
	CHECK(q.departure_ns == before, "a CoDel drop moved the clock");
}

/*
 * A sparse flow's packet waits behind no one: with 10 ms standing and the
 * law dropping non-ECT packets, it starts now, takes no signal, leaves
 * the law as it was, and still pushes the clock by its own time; the
 * horizon holds it back a ninth further out than the bulk's ceiling.
 */
static void test_sparse_goes_ahead(void)
{
	struct codel_params p = params(0);
	struct sj_queue q = { .departure_ns = 0 };
	__u64 now = 10 * 1000 * MS, rate = 1500000, before;
	struct sj_vq_pkt pkt = { .len = 100, .sparse = 1,
				 .tx_ns = sj_vq_tx_ns(100, rate) };
	struct codel_vars vars;
	struct sj_rate_result r;
	int i;

	/* 10 ms standing, then 1 ms packets 1 ms apart until one drops */
	for (i = 0; i < 10; i++)
		admit(&q, &p, rate, 0, 1000 * MS, now, 1500, 0, 0);
	for (i = 0; i < 300; i++) {
		now += MS;
		r = admit(&q, &p, rate, 0, 1000 * MS, now, 1500, 0, 0);
		if (r.verdict == SJ_DROP)
			break;
	}
	CHECK(r.verdict == SJ_DROP && q.vars.dropping, "the law never dropped");
	before = q.departure_ns;
	vars = q.vars;
	pkt.now = now;
	admit_pkt(&q, &p, rate, 0, 1000 * MS, &pkt, &r);
	CHECK(r.verdict == SJ_PASS, "sparse packet's verdict %d", r.verdict);
	CHECK(r.start_ns == now && r.sojourn_ns == 0,
	      "sparse packet starts %lld ns from now, sojourn %llu",
	      (long long)(r.start_ns - now), r.sojourn_ns);
	CHECK(q.departure_ns == before + pkt.tx_ns,
	      "clock moved by %lld, want its own %llu",
	      (long long)(q.departure_ns - before), pkt.tx_ns);
	CHECK(!memcmp(&vars, &q.vars, sizeof(vars)),
	      "the law's state changed by a sparse packet");
	/* the bulk behind it waits for its bytes too */
	r = admit(&q, &p, rate, 0, 1000 * MS, now, 1500, 0, 1);
	CHECK(r.start_ns == before + pkt.tx_ns, "bulk start %llu, want %llu",
	      r.start_ns, before + pkt.tx_ns);

	/* at a horizon of 90 ms: the bulk's ceiling is 80 ms, a sparse
	 * packet's the horizon */
	q.departure_ns = now + 85 * MS;
	before = q.departure_ns;
	r = admit(&q, &p, rate, 0, 90 * MS, now, 1500, 0, 1);
	CHECK(r.verdict == SJ_OVERLIMIT && q.departure_ns == before,
	      "bulk packet 85 ms out, horizon 90 ms: verdict %d", r.verdict);
	admit_pkt(&q, &p, rate, 0, 90 * MS, &pkt, &r);
	CHECK(r.verdict == SJ_PASS && q.departure_ns == before + pkt.tx_ns,
	      "sparse packet 85 ms out, horizon 90 ms: verdict %d", r.verdict);
	q.departure_ns = now + 91 * MS;
	before = q.departure_ns;
	admit_pkt(&q, &p, rate, 0, 90 * MS, &pkt, &r);
	CHECK(r.verdict == SJ_OVERLIMIT && q.departure_ns == before,
	      "sparse packet 91 ms out, horizon 90 ms: verdict %d, clock moved %lld",
	      r.verdict, (long long)(q.departure_ns - before));

	/* an idle queue's credit: it starts no later than now either */
	q.departure_ns = 0;
	pkt.now = now;
	admit_pkt(&q, &p, rate, 5 * MS, 1000 * MS, &pkt, &r);
	CHECK(r.verdict == SJ_PASS && r.start_ns == now - 5 * MS && r.sojourn_ns == 0,
	      "idle: start %lld from now, sojourn %llu",
	      (long long)(r.start_ns - now), r.sojourn_ns);
}

/*
 * Nothing pushes the clock past the horizon (issue 15): a flood at twice
 * the rate with one sparse packet in eight, then 100 sparse packets at
 * once.  No packet is admitted to start later than now + horizon, so the
 * clock is never further ahead than that plus the packet's own time (the
 * rule of fq's horizon, which sch_fq.c applies to skb->tstamp, a packet's
 * start).  Before the sparse room lay inside the horizon, the flood and
 * the burst put the clock 225.3 ms ahead against 200.
 */
static void test_horizon_holds_everyone(void)
{
	struct codel_params p = params(1);
	struct sj_queue q = { .departure_ns = 0 };
	__u64 rate = 2500000, horizon = 200 * MS, burst = 32768;
	__u64 now = 10 * 1000 * MS, end = now + 2000 * MS;
	__u64 tx = sj_vq_tx_ns(1500, rate), credit = sj_vq_tx_ns(burst, rate);
	__u64 ahead, ahead_max = 0;
	struct sj_vq_pkt pkt = { .len = 1500, .sparse = 1, .tx_ns = tx };
	struct sj_rate_result r;
	int i, sparse_over = 0, sparse_passed = 0;

	for (i = 0; now < end; i++, now += tx / 2) {
		if (i % 8 == 7) {
			pkt.now = now;
			admit_pkt(&q, &p, rate, credit, horizon, &pkt, &r);
			sparse_over += r.verdict == SJ_OVERLIMIT;
		} else {
			admit(&q, &p, rate, burst, horizon, now, 1500, 0, 1);
		}
		ahead = q.departure_ns > now ? q.departure_ns - now : 0;
		if (ahead > ahead_max)
			ahead_max = ahead;
	}
	for (i = 0; i < 100; i++) {
		pkt.now = now;
		admit_pkt(&q, &p, rate, credit, horizon, &pkt, &r);
		sparse_passed += r.verdict == SJ_PASS;
		ahead = q.departure_ns - now;
		if (ahead > ahead_max)
			ahead_max = ahead;
	}
	CHECK(ahead_max <= horizon + tx,
	      "the clock ran %llu us ahead, horizon %llu us and one packet %llu us",
	      ahead_max / 1000, horizon / 1000, tx / 1000);
	/* the sparse room is still there: none of the flood's sparse
	 * packets met the horizon, and the burst's first ones pass */
	CHECK(sparse_over == 0, "%d sparse packets among the flood over the limit",
	      sparse_over);
	CHECK(sparse_passed >= 10, "%d of 100 sparse packets passed at the bulk's ceiling",
	      sparse_passed);
}

/*
 * The long-run rate: a sender offering twice the rate for 10 s gets the
 * rate, plus at most the horizon and the burst once.
 */
static void test_long_run_rate(void)
{
	struct codel_params p = params(0);
	struct sj_queue q = { .departure_ns = 0 };
	__u64 rate = 1250000, now = 10 * 1000 * MS, end = now + 10 * 1000 * MS;
	__u64 start = now, passed = 0, horizon = 200 * MS, burst = 32768;
	double want, got;

	for (; now < end; now += sj_vq_tx_ns(1500, rate) / 2) {
		struct sj_rate_result r = admit(&q, &p, rate, burst, horizon,
						now, 1500, 0, 0);

		if (r.verdict == SJ_PASS)
			passed += 1500;
	}
	want = (double)rate * (end - start) / 1e9;
	got = passed;
	CHECK(got >= want * 0.999 && got <= want + rate * 0.2 + burst + 1500,
	      "passed %.0f bytes, rate allows %.0f", got, want);
}

/* The wire model (include/wire.h) against costs worked out by hand */
static __u64 wire(int link, int overhead, __u32 mpu, __u32 len)
{
	struct sj_wire w = { .overhead = overhead, .mpu = mpu, .link = link };

	return sj_wire_packet(&w, len);
}

#define WIRE_IS(link, overhead, mpu, len, want) \
	CHECK(wire(link, overhead, mpu, len) == (want), \
	      "link %d overhead %d mpu %d len %d: %llu, want %d", link, \
	      overhead, mpu, len, wire(link, overhead, mpu, len), want)

static void test_wire_packet(void)
{
	/* ethernet with the defaults: the length as the hook sees it */
	WIRE_IS(SJ_WIRE_ETHERNET, 0, 0, 1514, 1514);
	WIRE_IS(SJ_WIRE_ETHERNET, 24, 0, 1514, 1538);
	WIRE_IS(SJ_WIRE_ETHERNET, -14, 0, 1514, 1500);
	/* ATM: 48 bytes fill one cell, one more byte takes a second */
	WIRE_IS(SJ_WIRE_ATM, 0, 0, 48, 53);
	WIRE_IS(SJ_WIRE_ATM, 0, 0, 49, 106);
	WIRE_IS(SJ_WIRE_ATM, 0, 0, 96, 106);
	WIRE_IS(SJ_WIRE_ATM, 0, 0, 97, 159);
	/* the overhead goes in before the cells are counted */
	WIRE_IS(SJ_WIRE_ATM, 8, 0, 40, 53);
	WIRE_IS(SJ_WIRE_ATM, 8, 0, 41, 106);
	WIRE_IS(SJ_WIRE_ATM, 8, 0, 88, 106);
	WIRE_IS(SJ_WIRE_ATM, 8, 0, 89, 159);
	/* a full Ethernet frame over PPPoA-like overhead: 1558 bytes, 33 cells */
	WIRE_IS(SJ_WIRE_ATM, 44, 0, 1514, 33 * 53);
	/* PTM: one byte per 64 or part of 64 */
	WIRE_IS(SJ_WIRE_PTM, 0, 0, 64, 65);
	WIRE_IS(SJ_WIRE_PTM, 0, 0, 65, 67);
	WIRE_IS(SJ_WIRE_PTM, 0, 0, 128, 130);
	WIRE_IS(SJ_WIRE_PTM, 16, 0, 1514, 1530 + 24);
	/* mpu: after the overhead, before the cells */
	WIRE_IS(SJ_WIRE_ETHERNET, 0, 64, 60, 64);
	WIRE_IS(SJ_WIRE_ETHERNET, 0, 64, 65, 65);
	WIRE_IS(SJ_WIRE_ETHERNET, -10, 64, 70, 64);
	WIRE_IS(SJ_WIRE_ETHERNET, 10, 64, 60, 70);
	WIRE_IS(SJ_WIRE_ATM, 0, 96, 40, 106);
	WIRE_IS(SJ_WIRE_PTM, 0, 64, 1, 65);
	/* a negative overhead never makes a packet free: at least a byte,
	 * one cell on ATM */
	WIRE_IS(SJ_WIRE_ETHERNET, -64, 0, 20, 1);
	WIRE_IS(SJ_WIRE_ETHERNET, -64, 0, 64, 1);
	WIRE_IS(SJ_WIRE_ETHERNET, -64, 0, 65, 1);
	WIRE_IS(SJ_WIRE_ETHERNET, -64, 0, 66, 2);
	WIRE_IS(SJ_WIRE_ATM, -64, 0, 20, 53);
	WIRE_IS(SJ_WIRE_PTM, -64, 0, 20, 2);
	/* the bounds do not overflow at the largest lengths */
	CHECK(wire(SJ_WIRE_ATM, SJ_WIRE_MAX_OVERHEAD, 0, 0xffffffffU) ==
	      (0xffffffffULL + 256 + 47) / 48 * 53, "%llu",
	      wire(SJ_WIRE_ATM, SJ_WIRE_MAX_OVERHEAD, 0, 0xffffffffU));
}

static __u64 wire_gso(const struct sj_wire *w, __u32 len, __u32 gso_size,
		      __u32 gso_segs, __u32 hdr_len)
{
	struct sj_wire_frame f = { .len = len, .gso_size = gso_size,
				   .gso_segs = gso_segs, .hdr_len = hdr_len };

	return sj_wire_bytes(w, &f);
}

/* Aggregates: every segment carries its own headers and pays the model */
static void test_wire_gso(void)
{
	struct sj_wire eth = { 0 };
	struct sj_wire atm = { .overhead = 44, .link = SJ_WIRE_ATM };
	/* TCP over IPv4 with timestamps: 14 + 20 + 32 bytes of headers */
	__u32 hdr = 66, mss = 1448;
	__u64 got;

	/* not an aggregate: the frame alone */
	CHECK(wire_gso(&eth, 1514, 0, 0, 0) == 1514, "plain");
	CHECK(wire_gso(&atm, 1514, 0, 1, hdr) == 1749, "plain atm");
	/* a 45-segment aggregate of 65226 bytes leaves as 45 frames of
	 * 1514: 68130 bytes, 4.45% more than skb->len */
	got = wire_gso(&eth, hdr + 45 * mss, mss, 45, hdr);
	CHECK(got == 45 * 1514, "full aggregate: %llu", got);
	/* the last segment short: 10000 bytes of payload are 6 full
	 * segments and one of 1312 */
	got = wire_gso(&eth, hdr + 10000, mss, 7, hdr);
	CHECK(got == 6 * 1514 + hdr + 1312, "short last: %llu", got);
	/* ATM, overhead 44: 1514 + 44 = 1558 bytes are 33 cells; the last,
	 * 1378 + 44 = 1422 bytes, 30 cells */
	got = wire_gso(&atm, hdr + 10000, mss, 7, hdr);
	CHECK(got == 6 * 33 * 53 + 30 * 53, "short last atm: %llu", got);
	/* headers not known: taken from the kernel's segment count, exact
	 * when every segment is full ... */
	got = wire_gso(&eth, hdr + 45 * mss, mss, 45, 0);
	CHECK(got == 45 * 1514, "unknown headers, full: %llu", got);
	/* ... and never more than the truth when the last is short */
	got = wire_gso(&eth, hdr + 10000, mss, 7, 0);
	CHECK(got == hdr + 10000, "unknown headers, short last: %llu", got);
	/* headers that cannot be right (as long as the frame) count as
	 * not known */
	got = wire_gso(&eth, hdr + 45 * mss, mss, 45, hdr + 45 * mss);
	CHECK(got == 45 * 1514, "bad headers: %llu", got);
	/* gso_size at least the payload: one segment */
	got = wire_gso(&atm, 1514, mss, 1, hdr);
	CHECK(got == 1749, "one segment: %llu", got);
	/* a BIG TCP aggregate of 185 KB: 128 full segments */
	got = wire_gso(&eth, hdr + 128 * mss, mss, 128, hdr);
	CHECK(got == 128 * 1514, "big tcp: %llu", got);
}

int main(void)
{
	test_tx_time();
	test_clock_conserves_bytes();
	test_burst_credit();
	test_horizon();
	test_exempt_flood();
	test_exempt_control();
	test_codel_on_sojourn();
	test_sparse_goes_ahead();
	test_horizon_holds_everyone();
	test_long_run_rate();
	test_wire_packet();
	test_wire_gso();
	return check_exit("test_vqueue");
}
