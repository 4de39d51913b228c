/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The CoDel control law, written once for the BPF programs and the
 * userspace tests.  It follows the kernel's codel (include/net/codel.h,
 * codel_impl.h): time in 1024 ns units that wrap at 32 bits, the inverse
 * square root of count kept in Q0.16 and refined by one Newton step per
 * change of count, and the same dropping state machine.
 *
 * One difference follows from where sojourn sits: the kernel's codel drops
 * the head packet and pulls the next one inside a single dequeue, while
 * sojourn observes the dequeue from a tracepoint and cannot touch the packet
 * leaving.  It issues a *signal* that the next egress packet of the leaving
 * packet's flow carries out (CE mark or drop).  So the law issues at most
 * one signal per dequeue, which is exactly the path the kernel takes when
 * it ECN-marks; a drop path that pulls the next head has no meaning here.
 *
 * Callers hold the queue's lock (BPF) or own the state (tests): nothing in
 * here calls a helper, loops, or blocks, so it may run under bpf_spin_lock.
 */
#ifndef SOJOURN_CODEL_H
#define SOJOURN_CODEL_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

typedef __u32 codel_time_t;

#define CODEL_SHIFT		10	/* 1 codel time unit = 1024 ns */
#define CODEL_NS(t)		((codel_time_t)((t) >> CODEL_SHIFT))
#define CODEL_TO_NS(t)		((__u64)(t) << CODEL_SHIFT)
#define CODEL_US(us)		CODEL_NS((__u64)(us) * 1000ULL)
#define CODEL_MS(ms)		CODEL_NS((__u64)(ms) * 1000000ULL)

/* rec_inv_sqrt keeps the 16 most significant bits of a Q0.32 value */
#define REC_INV_SQRT_BITS	16
#define REC_INV_SQRT_SHIFT	(32 - REC_INV_SQRT_BITS)

/* Dropping resumes at the old rate if it stopped less than this many
 * intervals ago (the kernel's "16 * interval" re-entry window). */
#define CODEL_REENTRY_INTERVALS	16

/* ce_threshold off: no sojourn can be after this (signed compare) */
#define CODEL_DISABLED_THRESHOLD 0x7fffffffU

struct codel_params {
	codel_time_t target;
	codel_time_t interval;
	codel_time_t ce_threshold;
	__u32 mtu;		/* backlog at or below one MTU is never signalled */
	__u32 ecn;		/* mark ECT packets instead of dropping them */
};

struct codel_vars {
	__u32 count;		/* signals since entering the dropping state */
	__u32 lastcount;	/* count when dropping was last entered */
	__u32 dropping;		/* in the dropping state */
	__u32 rec_inv_sqrt;	/* 1/sqrt(count), Q0.16 in the low bits */
	codel_time_t first_above_time;
	codel_time_t drop_next;
	codel_time_t ldelay;	/* sojourn of the last dequeued packet */
};

static __always_inline int codel_time_after(codel_time_t a, codel_time_t b)
{
	return (__s32)(a - b) > 0;
}

static __always_inline int codel_time_after_eq(codel_time_t a, codel_time_t b)
{
	return (__s32)(a - b) >= 0;
}

static __always_inline int codel_time_before(codel_time_t a, codel_time_t b)
{
	return (__s32)(a - b) < 0;
}

/* new = (old / 2) * (3 - count * old^2), in Q0.32 */
static __always_inline void codel_newton_step(struct codel_vars *v)
{
	__u32 invsqrt = v->rec_inv_sqrt << REC_INV_SQRT_SHIFT;
	__u32 invsqrt2 = ((__u64)invsqrt * invsqrt) >> 32;
	__u64 val = (3ULL << 32) - ((__u64)v->count * invsqrt2);

	val >>= 2;	/* keeps the next product within 64 bits */
	val = (val * invsqrt) >> (32 - 2 + 1);
	/* kept to 16 bits, as the kernel keeps it in a u16 */
	v->rec_inv_sqrt = (__u16)(val >> REC_INV_SQRT_SHIFT);
}

/* t + interval / sqrt(count), the division done as a Q0.32 multiply */
static __always_inline codel_time_t codel_control_law(codel_time_t t,
						      codel_time_t interval,
						      __u32 rec_inv_sqrt)
{
	__u32 scale = rec_inv_sqrt << REC_INV_SQRT_SHIFT;

	return t + (codel_time_t)(((__u64)interval * scale) >> 32);
}

/*
 * Has the sojourn stayed above target for a whole interval?  Also records
 * ldelay, like the kernel's codel_should_drop().  backlog is what the queue
 * still holds after this packet left.
 */
static __always_inline int codel_should_signal(struct codel_vars *v,
					       const struct codel_params *p,
					       codel_time_t now,
					       codel_time_t sojourn,
					       __u32 backlog)
{
	v->ldelay = sojourn;
	if (codel_time_before(sojourn, p->target) || backlog <= p->mtu) {
		/* below target: must stay above for a full interval again */
		v->first_above_time = 0;
		return 0;
	}
	if (v->first_above_time == 0) {
		v->first_above_time = now + p->interval;
		return 0;
	}
	return codel_time_after(now, v->first_above_time);
}

/*
 * One dequeue of the managed queue, in two steps, so that a caller may
 * decline a signal the law asks for without the law counting it:
 * codel_due() says whether CoDel asks for a signal now (it records ldelay
 * and first_above_time, and leaves the dropping state below target);
 * codel_signalled() moves the law on once the signal is given.
 */
static __always_inline int codel_due(struct codel_vars *v,
				     const struct codel_params *p,
				     codel_time_t now, codel_time_t sojourn,
				     __u32 backlog)
{
	if (!codel_should_signal(v, p, now, sojourn, backlog)) {
		v->dropping = 0;
		return 0;
	}
	/* entering the dropping state signals at once */
	return !v->dropping || codel_time_after_eq(now, v->drop_next);
}

static __always_inline void codel_signalled(struct codel_vars *v,
					    const struct codel_params *p,
					    codel_time_t now)
{
	__u32 delta;

	if (v->dropping) {
		v->count++;	/* wrap is harmless: no division uses it */
		codel_newton_step(v);
		v->drop_next = codel_control_law(v->drop_next, p->interval,
						 v->rec_inv_sqrt);
		return;
	}
	v->dropping = 1;
	/* Re-entering soon after the last episode: the rate that controlled
	 * the queue then is a good start now. */
	delta = v->count - v->lastcount;
	if (delta > 1 && codel_time_before(now - v->drop_next,
					   CODEL_REENTRY_INTERVALS * p->interval)) {
		v->count = delta;
		codel_newton_step(v);
	} else {
		v->count = 1;
		v->rec_inv_sqrt = ~0U >> REC_INV_SQRT_SHIFT;
	}
	v->lastcount = v->count;
	v->drop_next = codel_control_law(now, p->interval, v->rec_inv_sqrt);
}

/*
 * One law for a FIFO of n bulk flows, as prompt as fq_codel's n laws are
 * together.  fq_codel runs a law per flow queue: n flows sharing an
 * episode's k signals have taken k/n each, so each is next due
 * interval/sqrt(k/n) on, and one of the n is due n times as often,
 * interval/sqrt(k*n): the one law's step, interval/sqrt(k), shortened by
 * sqrt(n).  Called just after codel_signalled(); n comes from the caller
 * (the queue's backlog over its flows' mean backlog, fair.h), 1 leaves the
 * law as the kernel's, and more than 16 counts as 16.  Measured on a FIFO
 * of four cubic flows in Debian's 6.1 (up / down / both, against fq_codel
 * in the same run): interleaved with the plain law in one run
 * (bench/results/vm-ab.md, 2026-12-06), the bulk's RTT rise read 0.89 /
 * 1.23 / 0.92x fq_codel's where the plain law read 1.09 / 1.33 / 1.10x,
 * about as many signals given (160 / 187 / 384 against 151 / 170 / 313),
 * only sooner in each episode.
 */
#define CODEL_HASTEN_MAX	16

/* floor(sqrt(x)) for x < 2^22, digit by digit: no table, for a table in
 * .rodata of two linked objects broke the BTF clang-14 and bpftool 7.1
 * wrote for it (DATASEC .rodata "Invalid offset+size": the kernel
 * refused the whole object) */
static __always_inline __u32 codel_isqrt(__u32 x)
{
	__u32 r = 0, bit = 1U << 20;
	int i;

	for (i = 0; i < 11; i++) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/* now + (at - now) / sqrt(n), n capped at CODEL_HASTEN_MAX; at itself if
 * it is not later than now or n < 2 */
static __always_inline codel_time_t codel_sooner(codel_time_t at,
						 codel_time_t now, __u32 n)
{
	codel_time_t left = at - now;

	if (n < 2 || (__s32)left <= 0)
		return at;
	if (n > CODEL_HASTEN_MAX)
		n = CODEL_HASTEN_MAX;
	/* left / sqrt(n) as left * 256 / (256 * sqrt(n)) */
	return now + (codel_time_t)(((__u64)left << 8) / codel_isqrt(n << 16));
}

static __always_inline void codel_hasten(struct codel_vars *v,
					 codel_time_t now, __u32 n)
{
	if (v->dropping)
		v->drop_next = codel_sooner(v->drop_next, now, n);
}

/*
 * The wait that opens an episode, hastened alike.  fq_codel's n laws each
 * keep their own "above target since": one flow's cut empties its own
 * queue and leaves the other laws' clocks running.  The FIFO's one law
 * starts its clock over whenever the queue's delay dips below the target,
 * which one flow's cut does, so it waits a whole interval again before the
 * next signal: at 100 Mbit, four cubic flows, its episodes were one or two
 * signals long (count 1-2 at the end of every run), it gave 56-70 signals
 * a run against fq_codel's 74-84, and each packet waited 7.3 / 6.9 ms
 * against fq_codel's 5.6 / 5.8 (up / down; bench/results/vm-100w.md).  So
 * a busy period's interval is shortened by sqrt(n) too, on the dequeue
 * that starts it: `was`, first_above_time before codel_due(), is 0 there.
 */
static __always_inline void codel_hasten_entry(struct codel_vars *v,
					       codel_time_t now, __u32 n,
					       codel_time_t was)
{
	if (was || v->dropping || !v->first_above_time)
		return;
	v->first_above_time = codel_sooner(v->first_above_time, now, n);
	if (!v->first_above_time)	/* 0 means "not above target" */
		v->first_above_time = 1;
}

/*
 * How long the law has been due: since its next signal's time in the
 * dropping state, since "above target for an interval" before it.  Only
 * meaningful while codel_due() says yes.
 */
static __always_inline codel_time_t codel_overdue(const struct codel_vars *v,
						  codel_time_t now)
{
	codel_time_t since = v->dropping ? v->drop_next : v->first_above_time;

	return codel_time_after(now, since) ? now - since : 0;
}

/*
 * One dequeue of the managed queue.  Returns 1 when CoDel asks for a
 * congestion signal now (and counts it), 0 otherwise.
 */
static __always_inline int codel_dequeue(struct codel_vars *v,
					 const struct codel_params *p,
					 codel_time_t now, codel_time_t sojourn,
					 __u32 backlog)
{
	if (!codel_due(v, p, now, sojourn, backlog))
		return 0;
	codel_signalled(v, p, now);
	return 1;
}

/*
 * Whether a dequeued packet's sojourn speaks for its queue's law.  One law
 * runs per transmit queue, as the kernel's codel runs one per qdisc, but
 * the root may be classful (HTB, pfifo_fast's bands) and the dequeue
 * tracepoint cannot see which class a packet waited in.  A packet that
 * found no packet of its own flow queued ahead of it and waited less than
 * target is what an uncongested class lets through (VoIP, DNS, ACKs beside
 * a bulk class); fed to the law, each would reset "above target since" and
 * the bulk class would never be signalled (tests/e2e/field_htb.sh).  It
 * is left out.  In a FIFO that loses nothing: it waited in the same queue
 * as the packets of backlogged flows, which speak.  A sojourn at or above
 * target always speaks: it is a standing queue in whatever class it was.
 * What this cannot tell apart: a backlogged flow of a second class below
 * target still resets the law of a congested one (README: One CoDel law
 * per queue).
 */
static __always_inline int codel_speaks(const struct codel_params *p,
					codel_time_t sojourn,
					int behind_own_flow)
{
	return behind_own_flow || !codel_time_before(sojourn, p->target);
}

/*
 * The queue this state watches went empty.  The kernel's codel_dequeue()
 * leaves the dropping state when it finds its queue empty and, since the
 * 2025 fix for sparse flows (include/net/codel_impl.h, backported to the
 * stable 6.x kernels), forgets first_above_time too: a new busy period has
 * to stay above target for a whole interval of its own.
 */
static __always_inline void codel_queue_empty(struct codel_vars *v)
{
	v->first_above_time = 0;
	v->dropping = 0;
}

/* ce_threshold marks on sojourn alone, outside the state machine */
static __always_inline int codel_over_ce_threshold(const struct codel_params *p,
						   codel_time_t sojourn)
{
	return codel_time_after(sojourn, p->ce_threshold);
}

#endif /* SOJOURN_CODEL_H */
