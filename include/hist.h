/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Delay histograms: the bucket law, shared by the BPF programs (which
 * count) and the command (which reads, merges and prints), and the map
 * values that carry them, with BTF.
 *
 * Buckets are log2 in microseconds with Prometheus's meaning: bucket b
 * holds the samples s with bound(b-1) < s <= bound(b), bound(b) = 2^b us,
 * so a sample equal to a bound lands in the bucket of that bound (`le` is
 * inclusive).  Bucket 0 is "at most 1 us", the last one everything above
 * 2^24 us (16.8 s); in between 1 us .. 16.8 s, one bucket per doubling.
 *
 * Includers provide __u32/__u64 (vmlinux.h in BPF, <linux/types.h> in C).
 */
#ifndef SOJOURN_HIST_H
#define SOJOURN_HIST_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define SJ_HIST_BUCKETS		26
#define SJ_HIST_LAST		(SJ_HIST_BUCKETS - 1)	/* the +Inf bucket */

/* A device's histogram, one per CPU; the command adds the CPUs up. */
struct sj_hist {
	__u64 count[SJ_HIST_BUCKETS];
	__u64 sum_ns;		/* of every sample counted: Prometheus _sum */
};

/*
 * Per CPU, per attachment.  `all` counts every packet whose sojourn was
 * measured; `noflow` those of them that were counted to no flow: the
 * packet had none (not IP, a fragment), or the queue's exit could not tell
 * which it was (bpf/observe.bpf.h).  What is in `all` and neither in a live
 * flow nor in `noflow` belonged to a flow the LRU table has evicted since.
 */
struct sj_dev_hist {
	struct sj_hist all;
	struct sj_hist noflow;
};

/* one step of sj_fls64's binary search: where v is wider than s bits,
 * drop its low s bits and count them in n */
static __always_inline void sj_fls_step(__u64 *v, __u32 *n, __u32 s)
{
	if (*v >> s) {
		*n += s;
		*v >>= s;
	}
}

/* bit length of v: 0 for 0, k + 1 for 2^k <= v < 2^(k+1); the search's
 * steps written out, so the verifier sees straight code (a loop over the
 * shifts, even unrolled, compiles to more instructions) */
static __always_inline __u32 sj_fls64(__u64 v)
{
	__u32 n = 0;

	sj_fls_step(&v, &n, 32);
	sj_fls_step(&v, &n, 16);
	sj_fls_step(&v, &n, 8);
	sj_fls_step(&v, &n, 4);
	sj_fls_step(&v, &n, 2);
	sj_fls_step(&v, &n, 1);
	return n + (__u32)v;
}

/*
 * The bucket of a sojourn: the smallest b with ns <= 2^b * 1000.  With no
 * division: the BPF JIT turns ns / 1000 into a 64-bit div, and every
 * measured packet comes here.  1000 * 2^b lies between 2^(b + 9) and
 * 2^(b + 10), so with len the bit length of ns - 1 (2^(len - 1) < ns <=
 * 2^len), b is len - 10, or len - 9 when ns is above 1000 * 2^(len - 10);
 * at most 1024 ns, bucket 0 up to 1000 and 1 above.
 */
static __always_inline __u32 sj_hist_bucket(__u64 ns)
{
	__u32 len = ns ? sj_fls64(ns - 1) : 0;
	__u32 b = len > 10 ? len - 10 : 0;

	if (b >= SJ_HIST_LAST)
		return SJ_HIST_LAST;
	b += ns > (1000ULL << b);
	return b < SJ_HIST_LAST ? b : SJ_HIST_LAST;
}

#ifndef __bpf__
/* Userspace: bounds, merging, percentiles. */

#define SJ_HIST_INF_US		(~0ULL)

/* upper bound of bucket b in microseconds; SJ_HIST_INF_US for the last */
static inline __u64 sj_hist_bound_us(__u32 b)
{
	return b < SJ_HIST_LAST ? 1ULL << b : SJ_HIST_INF_US;
}

static inline void sj_hist_add(struct sj_hist *dst, const struct sj_hist *src)
{
	int b;

	for (b = 0; b < SJ_HIST_BUCKETS; b++)
		dst->count[b] += src->count[b];
	dst->sum_ns += src->sum_ns;
}

/* A per-CPU map value as the kernel hands it over: ncpu copies, each
 * rounded up to 8 bytes (ours already are). */
static inline void sj_dev_hist_merge(struct sj_dev_hist *out,
				     const struct sj_dev_hist *percpu, int ncpu)
{
	int i;

	__builtin_memset(out, 0, sizeof(*out));
	for (i = 0; i < ncpu; i++) {
		sj_hist_add(&out->all, &percpu[i].all);
		sj_hist_add(&out->noflow, &percpu[i].noflow);
	}
}

static inline __u64 sj_hist_total(const struct sj_hist *h)
{
	__u64 n = 0;
	int b;

	for (b = 0; b < SJ_HIST_BUCKETS; b++)
		n += h->count[b];
	return n;
}

/*
 * The bucket holding quantile permille/1000: the first bucket whose
 * cumulative count reaches ceil(total * permille / 1000) (at least 1), so
 * its bound is an upper limit of that percentile.  1000 gives the highest
 * non-empty bucket (the max).  -1 for an empty histogram.
 */
static inline int sj_hist_quantile(const struct sj_hist *h, unsigned permille)
{
	__u64 total = sj_hist_total(h), rank, cum = 0;
	int b;

	if (!total)
		return -1;
	if (permille > 1000)
		permille = 1000;
	/* total * permille cannot overflow before 2^54 samples */
	rank = (total * permille + 999) / 1000;
	if (rank < 1)
		rank = 1;
	for (b = 0; b < SJ_HIST_BUCKETS; b++) {
		cum += h->count[b];
		if (cum >= rank)
			return b;
	}
	return SJ_HIST_LAST;
}
#endif /* !__bpf__ */

#endif /* SOJOURN_HIST_H */
