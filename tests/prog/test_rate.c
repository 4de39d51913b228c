// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Rate mode's programs on crafted frames through BPF_PROG_TEST_RUN: the tc
 * program (egress, with and without pace) and the XDP program.  Time is
 * real here, so the settings are shrunk until CoDel acts within a run:
 * target 1us, interval 2us, a rate slow enough that a few hundred frames
 * build a standing virtual queue.
 *
 * Checked: CE marks come out with a valid IPv4 checksum (and in the IPv6
 * traffic class), Not-ECT packets are dropped instead, a packet beyond the
 * horizon is dropped as drop_overlimit (one we cannot parse beyond half of
 * CoDel's target), a flood of frames we cannot parse leaves the clock
 * within that, pace writes the departure time into skb->tstamp, and the
 * clock moves by the wire model's bytes, per segment of a GSO aggregate,
 * and a retune reaches the next packet on a CPU that ran the old settings.
 * Exits 0 when all pass, 1 on a failure, 77 without root or BPF.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sojourn.h"
#include "vqueue.h"
#include "sojourn.skel.h"
#include "sojourn_xdp.skel.h"

#define TC_ACT_SHOT	2
#define TC_NEXT		(-1)
#define ECT0		2
#define CE		3

#include "../lib/check.h"
#include "runner.h"

/* The test attachments' ids (runner.h: rn_register) */
#define ATT_TC	7
#define ATT_XDP	9

/* Ethernet + IPv4 or IPv6 + TCP with the given ECN bits, 200 bytes;
 * family 0: an ARP frame of as many, nothing we parse */
static void build(struct frame *f, int family, __u8 ecn, __u16 sport)
{
	if (family == 0) {
		b_arp(f);
		fr_put(f, NULL, 200 - f->len);
		return;
	}
	fr_eth(f, family == 4 ? ETH_P_IP : ETH_P_IPV6);
	if (family == 4)
		fr_ip4(f, ecn, P_TCP, 5, 0);
	else
		fr_ip6(f, ecn, 0, P_TCP);
	fr_tcp(f, sport, 80);
	fr_put(f, NULL, 200 - f->len);
	fr_finish(f);
}

static __u8 ecn_of(const __u8 *b, int family)
{
	return family == 4 ? b[14 + 1] & 3 : (b[14 + 1] >> 4) & 3;
}

/* A program, its maps and its test attachment (runner.h) */
struct prog {
	const char *name;
	int prog_fd;
	int xdp;
	struct runner rn;
};

static void write_att(const struct prog *p, const struct sj_settings *s,
		      const struct sj_queue *q)
{
	int err = rn_settings_write(&p->rn, s, 0);

	if (!err)
		err = rn_queue_write(&p->rn, 0, q, 0);
	if (err) {
		printf("FAIL setup: %s: settings: %s\n", p->name, strerror(-err));
		exit(1);
	}
}

static void read_queue(const struct prog *p, struct sj_queue *q)
{
	int err = rn_queue_read(&p->rn, 0, q, 0);

	if (err) {
		printf("FAIL setup: %s: queues: %s\n", p->name, strerror(-err));
		exit(1);
	}
}

/* written_ns: the stamp a command would give them (sj_settings_put);
 * 0, as most tests here write, is read anew by every packet */
static void settings_stamped(const struct prog *p, __u64 rate,
			     __u64 horizon_ns, int ecn, int pace,
			     __u64 written_ns)
{
	struct sj_settings s = {
		.codel = { .target = CODEL_NS(1000), .interval = CODEL_NS(2000),
			   .ce_threshold = CODEL_DISABLED_THRESHOLD,
			   .mtu = 1514, .ecn = ecn },
		.target_ns = 1000, .interval_ns = 2000,
		.rate_Bps = rate, .burst_bytes = 0, .horizon_ns = horizon_ns,
		.pace = pace, .written_ns = written_ns,
	};
	struct sj_queue q = {};

	write_att(p, &s, &q);
}

static void settings(const struct prog *p, __u64 rate, __u64 horizon_ns,
		     int ecn, int pace)
{
	settings_stamped(p, rate, horizon_ns, ecn, pace, 0);
}

/* The attachment's counters, summed over the CPUs */
static struct sj_stats stats(const struct prog *p)
{
	struct sj_stats sum;

	rn_stats(&p->rn, &sum);
	return sum;
}

struct out {
	int ret;
	struct frame f;
	__u64 tstamp;
};

/* test_run flags for the tc program: BPF_F_TEST_SKB_CHECKSUM_COMPLETE */
static __u32 tc_flags;

static struct out run(const struct prog *p, const struct frame *in, int repeat)
{
	struct __sk_buff ctx = {}, ctx_out = {};
	struct out o = {};
	struct sj_run r = { .out = o.f.b, .out_size = sizeof(o.f.b),
			    .repeat = repeat };

	if (!p->xdp) {
		r.ctx = &ctx;
		r.ctx_out = &ctx_out;
		r.ctx_size = sizeof(ctx);
		r.flags = tc_flags;
	}
	sj_test_run(p->prog_fd, in->b, in->len, &r);
	/* the kernel's own check: skb->csum no longer sums the packet the
	 * program left */
	CHECK(r.err != -EBADMSG,
	      "%s: skb->csum (CHECKSUM_COMPLETE) wrong after the run", p->name);
	if (r.err == -EBADMSG) {
		o.ret = -1000;
		return o;
	}
	if (r.err) {
		printf("FAIL setup: test_run: %s\n", strerror(-r.err));
		exit(1);
	}
	o.ret = r.retval;
	o.f.len = r.out_len;
	o.tstamp = ctx_out.tstamp;
	return o;
}

/* Whether this kernel's test_run makes CHECKSUM_COMPLETE skbs */
static int csum_complete_ok(const struct prog *p)
{
	static struct frame f, out;
	struct sj_run r = { .out = out.b, .out_size = sizeof(out.b),
			    .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE };

	settings(p, 2000000, 1000ULL * 1000 * 1000, 1, 0);
	build(&f, 0, 0, 0);
	return !sj_test_run(p->prog_fd, f.b, f.len, &r) || r.err != -EINVAL;
}

static int dropped(const struct prog *p, int ret)
{
	return p->xdp ? ret == XDP_DROP : ret == TC_ACT_SHOT;
}

static int passed(const struct prog *p, int ret)
{
	return p->xdp ? ret == XDP_PASS : ret == TC_NEXT;
}

/*
 * A standing queue of 50 ms for flow SPORT of IP version FAMILY, built of
 * ECT packets (200 bytes at 2 MB/s: 100 us each, 500 of them): the law
 * marks them and every one is admitted.  A burst of Not-ECT packets is
 * mostly dropped by the law (a 2 us interval): 482 of 500 on this host,
 * leaving 1.8 ms of queue, which a pause of the test as long drained in
 * the 6.1 TCG guest (1 run in 9: "the law never dropped the bulk").
 */
static void standing_queue(const struct prog *p, int family, __u16 sport)
{
	struct frame f;

	build(&f, family, ECT0, sport);
	run(p, &f, 500);
}

/* Build a standing queue, then run single frames until CoDel signals. */
static void test_mark(const struct prog *p, int family)
{
	struct sj_stats before, after, start = stats(p);
	__u64 hist0 = rn_hist_count(&p->rn);
	struct frame f;
	struct out o;
	int i, seen = 0;

	settings(p, 2000000, 1000ULL * 1000 * 1000, 1, 0);
	standing_queue(p, family, 1000 + family);
	build(&f, family, ECT0, 1000 + family);
	/* each frame's virtual sojourn goes to this attachment's histogram */
	CHECK(rn_hist_count(&p->rn) - hist0 == 500,
	      "%s v%d: %llu samples in the attachment's histogram for 500 frames",
	      p->name, family, (unsigned long long)(rn_hist_count(&p->rn) - hist0));
	for (i = 0; i < 2000 && !seen; i++) {
		before = stats(p);
		o = run(p, &f, 1);
		after = stats(p);
		if (after.ecn_mark == before.ecn_mark)
			continue;
		seen = 1;
		CHECK(passed(p, o.ret), "%s: marked packet not passed (%d)", p->name, o.ret);
		CHECK(ecn_of(o.f.b, family) == CE, "%s v%d: mark counted, CE not set",
		      p->name, family);
		if (family == 4)
			CHECK(fr_ip4_csum_ok(o.f.b + 14), "%s: IPv4 checksum wrong after CE",
			      p->name);
	}
	CHECK(seen, "%s v%d: no CE mark in 2000 packets over a 50 ms queue",
	      p->name, family);
	CHECK(after.drops == start.drops, "%s v%d: ECT packets dropped (%llu)",
	      p->name, family, (unsigned long long)(after.drops - start.drops));
}

static void test_drop_not_ect(const struct prog *p)
{
	struct sj_stats before, after;
	struct frame f;
	struct out o;
	struct sj_stats start;
	int i, seen = 0;

	settings(p, 2000000, 1000ULL * 1000 * 1000, 1, 0);
	standing_queue(p, 4, 2000);
	start = stats(p);
	build(&f, 4, 0, 2000);
	for (i = 0; i < 2000 && !seen; i++) {
		before = stats(p);
		o = run(p, &f, 1);
		after = stats(p);
		if (after.drops == before.drops)
			continue;
		seen = 1;
		CHECK(dropped(p, o.ret), "%s: drop counted, verdict %d", p->name, o.ret);
	}
	CHECK(seen, "%s: Not-ECT never dropped over a 50 ms queue", p->name);
	CHECK(after.ecn_mark == start.ecn_mark, "%s: Not-ECT packet marked", p->name);
}

static void test_horizon(const struct prog *p)
{
	struct sj_stats before, after;
	struct frame f, arp;
	struct out o;

	/* 200 bytes at 1000 B/s: 200 ms on the wire; horizon 100 ms */
	settings(p, 1000, 100ULL * 1000 * 1000, 1, 0);
	build(&f, 4, ECT0, 3000);
	o = run(p, &f, 1);
	CHECK(passed(p, o.ret), "%s: first packet of an idle queue: %d", p->name, o.ret);
	before = stats(p);
	o = run(p, &f, 1);
	after = stats(p);
	CHECK(dropped(p, o.ret), "%s: packet 200 ms out passed the 100 ms horizon",
	      p->name);
	CHECK(after.drop_overlimit == before.drop_overlimit + 1,
	      "%s: drop_overlimit %llu -> %llu", p->name,
	      (unsigned long long)before.drop_overlimit,
	      (unsigned long long)after.drop_overlimit);
	/* a frame we cannot parse is held to half the target at most */
	build(&arp, 0, 0, 0);
	before = stats(p);
	o = run(p, &arp, 1);
	after = stats(p);
	CHECK(dropped(p, o.ret), "%s: an unparsed frame 200 ms out passed the 100 ms horizon",
	      p->name);
	CHECK(after.kind[SJ_PKT_NON_IP] == before.kind[SJ_PKT_NON_IP] + 1 &&
	      after.drop_overlimit == before.drop_overlimit + 1,
	      "%s: non-IP frame past the horizon not counted non_ip + drop_overlimit",
	      p->name);
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * A flood of frames we cannot parse: 20000 ARP frames of 200 bytes against
 * 2 MB/s is 2 s of the link.  They are policed at the rate and held to half
 * of CoDel's target (1 us here): the clock ends no further ahead than that
 * and a frame, most of the flood is dropped as drop_overlimit, and a TCP
 * packet right after it passes.  Without the bound the clock ran 2 s ahead
 * and that packet was dropped.
 */
static void test_exempt_flood(const struct prog *p)
{
	struct sj_stats before, after;
	struct frame arp, tcp;
	struct sj_queue q;
	struct out o;
	__u64 t0, ahead;

	settings(p, 2000000, 20ULL * 1000 * 1000, 1, 0);
	build(&arp, 0, 0, 0);
	build(&tcp, 4, ECT0, 5000);
	before = stats(p);
	run(p, &arp, 20000);
	t0 = mono_ns();
	after = stats(p);
	read_queue(p, &q);
	ahead = q.departure_ns > t0 ? q.departure_ns - t0 : 0;
	CHECK(ahead <= 500 + 100000,
	      "%s: 2 s of unparsed frames put the clock %llu us ahead (target 1 us)",
	      p->name, (unsigned long long)(ahead / 1000));
	CHECK(after.drop_overlimit - before.drop_overlimit >= 10000,
	      "%s: only %llu of 20000 unparsed frames over the rate dropped",
	      p->name, (unsigned long long)(after.drop_overlimit - before.drop_overlimit));
	o = run(p, &tcp, 1);
	CHECK(passed(p, o.ret), "%s: TCP right after the flood dropped (%d)",
	      p->name, o.ret);
}

static void test_pace(const struct prog *p)
{
	struct timespec ts;
	struct frame f;
	struct out o;
	__u64 now;

	/* 200 bytes at 200 kB/s: 1 ms each; the 11th leaves 10 ms out */
	settings(p, 200000, 1000ULL * 1000 * 1000, 1, 1);
	build(&f, 4, ECT0, 4000);
	run(p, &f, 10);
	o = run(p, &f, 1);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	CHECK(o.tstamp > now + 5000000ULL && o.tstamp < now + 11000000ULL,
	      "pace: tstamp %lld ns from now, want 5..11 ms",
	      (long long)(o.tstamp - now));
	settings(p, 200000, 1000ULL * 1000 * 1000, 1, 0);
	run(p, &f, 10);
	o = run(p, &f, 1);
	CHECK(o.tstamp == 0, "nopace: tstamp written (%llu)",
	      (unsigned long long)o.tstamp);
}

/*
 * A retune reaches the packets: each CPU keeps a copy of the rate and the
 * law, stamped with the settings' written_ns (maps.bpf.h: sj_law_of).
 * Run on one CPU, so that a stale copy there cannot hide behind a fresh
 * one made on another.  Paced, the 11th frame's departure says which
 * rate it ran on: 10 ms out at 200 kB/s, at once at 200 MB/s (a moment
 * before the clock read after the run: -27 us in the 6.1 TCG guest).
 */
static void paced_at(const struct prog *p, __u64 rate, __u64 written_ns,
		     const char *what, __s64 lo_ns, __s64 hi_ns)
{
	struct frame f;
	struct out o;
	__s64 ahead;

	settings_stamped(p, rate, 1000ULL * 1000 * 1000, 1, 1, written_ns);
	build(&f, 4, ECT0, 4100);
	run(p, &f, 10);
	o = run(p, &f, 1);
	ahead = (__s64)(o.tstamp - mono_ns());
	CHECK(ahead > lo_ns && ahead < hi_ns,
	      "retune (%s): departure %lld ns from now, want %lld..%lld",
	      what, (long long)ahead, (long long)lo_ns, (long long)hi_ns);
}

static void test_retune(const struct prog *p)
{
	cpu_set_t one, was;

	if (sched_getaffinity(0, sizeof(was), &was))
		CPU_ZERO(&was);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		printf("FAIL setup: sched_setaffinity: %s\n", strerror(errno));
		exit(1);
	}
	paced_at(p, 200000, 1000, "200 kB/s", 5000000, 11000000);
	/* a new stamp: the copy is made again */
	paced_at(p, 200000000, 2000, "200 MB/s, stamped anew", -1000000, 1000000);
	paced_at(p, 200000, 3000, "200 kB/s again", 5000000, 11000000);
	/* no stamp (a writer that is not sj_settings_put): read every time */
	paced_at(p, 200000000, 0, "200 MB/s, unstamped", -1000000, 1000000);
	paced_at(p, 200000, 0, "200 kB/s, unstamped", 5000000, 11000000);
	if (CPU_COUNT(&was))
		sched_setaffinity(0, sizeof(was), &was);
}

/* Rate settings for sparse flows: 2 MB/s, a quantum of 1514, the law as
 * quick as test_mark's, and an interval of tau_ns for the flows' rates */
static void sparse_settings(const struct prog *p, __u64 tau_ns, int pace)
{
	struct sj_settings s = {
		.codel = { .target = CODEL_NS(1000), .interval = CODEL_NS(2000),
			   .ce_threshold = CODEL_DISABLED_THRESHOLD,
			   .mtu = 1514, .ecn = 1 },
		.target_ns = 1000, .interval_ns = tau_ns, .quantum = 1514,
		.rate_Bps = 2000000, .horizon_ns = 1000ULL * 1000 * 1000,
		.pace = pace,
	};
	struct sj_queue q = {};

	write_att(p, &s, &q);
}

/*
 * A sparse flow goes ahead of the virtual queue (vqueue.h): behind a bulk
 * flow's 50 ms, with the law dropping the bulk's Not-ECT packets, a new
 * flow's Not-ECT packet passes untouched, counted sparse_steered, and
 * with pace leaves now instead of 50 ms out.  What goes ahead is bounded:
 * 600 new flows at once take no more than an eighth of what the queue
 * admitted, plus two quanta, and the rest is sparse_bounded.
 */
static void test_sparse(const struct prog *p, int pace)
{
	struct sj_stats before, after;
	struct frame bulk, f;
	__u64 steered, admitted, now;
	struct out o;
	int i, dropping = 0;

	sparse_settings(p, 100ULL * 1000 * 1000, pace);
	standing_queue(p, 4, 6000 + pace);
	build(&bulk, 4, 0, 6000 + pace);
	for (i = 0; i < 2000 && !dropping; i++) {
		before = stats(p);
		run(p, &bulk, 1);
		after = stats(p);
		dropping = after.drops > before.drops;
	}
	CHECK(dropping, "%s: the law never dropped the bulk", p->name);
	build(&f, 4, 0, 6002 + pace);
	before = stats(p);
	o = run(p, &f, 1);
	after = stats(p);
	now = mono_ns();
	CHECK(passed(p, o.ret), "%s: sparse packet not passed (%d)", p->name, o.ret);
	CHECK(after.sparse_steered == before.sparse_steered + 1,
	      "%s: sparse_steered moved by %llu", p->name,
	      (unsigned long long)(after.sparse_steered - before.sparse_steered));
	CHECK(after.drops == before.drops &&
	      after.drop_overlimit == before.drop_overlimit,
	      "%s: sparse packet dropped", p->name);
	if (pace)
		CHECK(o.tstamp && o.tstamp <= now,
		      "%s pace: sparse packet leaves %lld ns from now",
		      p->name, (long long)(o.tstamp - now));

	/* the bound: a rate that does not decay within the test */
	sparse_settings(p, 10ULL * 1000 * 1000 * 1000, 0);
	build(&bulk, 4, ECT0, 6004);
	before = stats(p);
	run(p, &bulk, 100);
	for (i = 0; i < 600; i++) {
		build(&f, 4, ECT0, 7000 + i);
		run(p, &f, 1);
	}
	after = stats(p);
	steered = after.sparse_steered - before.sparse_steered;
	admitted = 700 - (after.drops - before.drops) -
		   (after.drop_overlimit - before.drop_overlimit);
	CHECK(steered > 0 && steered * 200 <= admitted * 200 / 8 + 2 * 1514,
	      "%s: %llu of %llu admitted packets went ahead", p->name,
	      (unsigned long long)steered, (unsigned long long)admitted);
	CHECK(after.sparse_bounded > before.sparse_bounded,
	      "%s: the bound never held a sparse packet back", p->name);
}

/*
 * The clock moves by what a packet costs on the wire (include/wire.h).  At
 * 1 GB/s a byte takes 1 ns, so the departure moves by exactly the wire
 * bytes when the queue is already ahead of now (no credit, no rounding).
 * len bytes (at most 4096, and test_run takes about a page) of Ethernet +
 * IPv4 or IPv6 + TCP, 54 or 74 bytes of headers; gso_size > 0 runs it as
 * a GSO aggregate of gso_segs segments (tc only: test_run takes gso_segs
 * and gso_size from the __sk_buff it is given).
 */
static __u64 clock_step(const struct prog *p, const struct sj_wire *w,
			int family, __u32 len, __u32 gso_size, __u32 gso_segs)
{
	static struct frame f, out;
	struct __sk_buff ctx = { .gso_size = gso_size, .gso_segs = gso_segs };
	struct sj_settings s = {
		.codel = { .target = CODEL_NS(1000), .interval = CODEL_NS(2000),
			   .ce_threshold = CODEL_DISABLED_THRESHOLD,
			   .mtu = 1514, .ecn = 1 },
		.target_ns = 1000, .interval_ns = 2000,
		.rate_Bps = 1000000000ULL, .horizon_ns = 100ULL * 1000000000ULL,
		.wire = *w,
	};
	struct sj_run r = { .out = out.b, .out_size = sizeof(out.b) };
	struct sj_queue q = {};
	__u64 before;

	fr_eth(&f, family == 4 ? ETH_P_IP : ETH_P_IPV6);
	if (family == 4)
		fr_ip4(&f, ECT0, P_TCP, 5, 0);
	else
		fr_ip6(&f, ECT0, 0, P_TCP);
	fr_tcp(&f, 6000, 80);
	fr_put(&f, NULL, len - f.len);
	fr_finish(&f);
	if (!p->xdp) {
		r.ctx = &ctx;
		r.ctx_size = sizeof(ctx);
	}
	/* one second ahead: the packet starts when the clock says */
	q.departure_ns = before = mono_ns() + 1000000000ULL;
	write_att(p, &s, &q);
	if (sj_test_run(p->prog_fd, f.b, f.len, &r)) {
		printf("FAIL setup: test_run (gso): %s\n", strerror(-r.err));
		exit(1);
	}
	CHECK(passed(p, r.retval), "%s: clock_step packet not passed (%d)",
	      p->name, r.retval);
	read_queue(p, &q);
	return q.departure_ns - before;
}

static void test_wire_clock(const struct prog *p)
{
	struct sj_wire eth = { 0 };
	struct sj_wire atm = { .overhead = 44, .link = SJ_WIRE_ATM };
	struct sj_wire ptm = { .overhead = 16, .mpu = 300, .link = SJ_WIRE_PTM };
	__u64 got;

	got = clock_step(p, &eth, 4, 200, 0, 0);
	CHECK(got == 200, "%s: 200-byte frame, ethernet: clock moved %llu", p->name,
	      (unsigned long long)got);
	/* 244 bytes are 6 cells */
	got = clock_step(p, &atm, 4, 200, 0, 0);
	CHECK(got == 6 * 53, "%s: 200-byte frame, atm overhead 44: clock moved %llu",
	      p->name, (unsigned long long)got);
	/* 216 bytes, raised to the mpu 300, plus 5 PTM bytes */
	got = clock_step(p, &ptm, 4, 200, 0, 0);
	CHECK(got == 305, "%s: 200-byte frame, ptm mpu 300: clock moved %llu",
	      p->name, (unsigned long long)got);
	if (p->xdp)
		return;
	/* 3450 bytes: two segments of 1448 and one of 500, each with its 54
	 * bytes of headers, leave as 1502 + 1502 + 554 = 3558 bytes */
	got = clock_step(p, &eth, 4, 54 + 2 * 1448 + 500, 1448, 3);
	CHECK(got == 3558, "%s: GSO aggregate, ethernet: clock moved %llu, want 3558",
	      p->name, (unsigned long long)got);
	/* on ATM with overhead 44: 1546 bytes are 33 cells, 598 are 13 */
	got = clock_step(p, &atm, 4, 54 + 2 * 1448 + 500, 1448, 3);
	CHECK(got == (2 * 33 + 13) * 53,
	      "%s: GSO aggregate, atm overhead 44: clock moved %llu, want %d",
	      p->name, (unsigned long long)got, (2 * 33 + 13) * 53);
	/* IPv6: 74 bytes of headers; 1428-byte segments, the last of 100 */
	got = clock_step(p, &eth, 6, 74 + 2 * 1428 + 100, 1428, 3);
	CHECK(got == 2 * 1502 + 174, "%s: IPv6 GSO aggregate: clock moved %llu, want %d",
	      p->name, (unsigned long long)got, 2 * 1502 + 174);
}

int main(void)
{
	struct sojourn_bpf *tc;
	struct sojourn_xdp *xdp;
	static struct prog ptc, pxdp;

	if (geteuid() != 0) {
		printf("SKIP test_rate needs root for BPF_PROG_TEST_RUN\n");
		return 77;
	}
	tc = sojourn_bpf__open();
	xdp = sojourn_xdp__open();
	if (!tc || !xdp)
		return 1;
	tc->rodata->cfg_mode = SJ_MODE_RATE;
	bpf_program__set_autoload(tc->progs.sojourn_dequeue, false);
	/* XDP is an ingress hook: loaded for it, as the loader does */
	xdp->rodata->cfg_direction = SJ_DIR_INGRESS;
	if (sojourn_bpf__load(tc) || sojourn_xdp__load(xdp)) {
		printf("FAIL test_rate: cannot load the programs\n");
		return 1;
	}
	ptc.name = "tc";
	ptc.prog_fd = bpf_program__fd(tc->progs.sojourn_egress);
	rn_init(&ptc.rn, "tc", tc->obj, tc->progs.sojourn_egress, 0, 1);
	rn_register(&ptc.rn, ATT_TC, SJ_MODE_RATE, SJ_DIR_EGRESS, 1);
	pxdp.name = "xdp";
	pxdp.prog_fd = bpf_program__fd(xdp->progs.sojourn_xdp);
	pxdp.xdp = 1;
	rn_init(&pxdp.rn, "xdp", xdp->obj, xdp->progs.sojourn_xdp, 1, 1);
	rn_register(&pxdp.rn, ATT_XDP, SJ_MODE_RATE, SJ_DIR_INGRESS, 1);

	test_mark(&ptc, 4);
	test_mark(&ptc, 6);
	check_case("mark tc");
	test_mark(&pxdp, 4);
	test_mark(&pxdp, 6);
	check_case("mark xdp");
	/* a CE mark on IPv6 moves skb->csum under CHECKSUM_COMPLETE */
	if (csum_complete_ok(&ptc)) {
		tc_flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE;
		test_mark(&ptc, 6);
		test_mark(&ptc, 4);
		tc_flags = 0;
		check_case("mark tc, CHECKSUM_COMPLETE");
	} else {
		printf("NOTE test_run refuses BPF_F_TEST_SKB_CHECKSUM_COMPLETE "
		       "(kernels before 6.7): CE under CHECKSUM_COMPLETE not tested\n");
	}
	test_drop_not_ect(&ptc);
	test_drop_not_ect(&pxdp);
	check_case("not-ect dropped");
	test_horizon(&ptc);
	test_horizon(&pxdp);
	check_case("horizon");
	test_exempt_flood(&ptc);
	test_exempt_flood(&pxdp);
	check_case("unparsed flood");
	test_pace(&ptc);
	test_retune(&ptc);
	check_case("pace");
	test_sparse(&ptc, 0);
	test_sparse(&pxdp, 0);
	test_sparse(&ptc, 1);
	check_case("sparse flows ahead");
	test_wire_clock(&ptc);
	test_wire_clock(&pxdp);
	check_case("wire clock");

	rn_fini(&ptc.rn);
	rn_fini(&pxdp.rn);
	sojourn_bpf__destroy(tc);
	sojourn_xdp__destroy(xdp);
	return check_exit("test_rate");
}
