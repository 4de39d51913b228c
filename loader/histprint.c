// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A sojourn histogram for people and for -j: bcc's `usecs : count
 * distribution` rows, the quantiles as the bound of the bucket holding
 * them, and the same in JSON with every bucket's bound.  hist and top
 * print through here.
 */
#include <stdio.h>
#include "obs.h"
#include "output.h"
#include "units.h"

const char *obs_quantile_str(const struct sj_hist *h, unsigned permille,
			     char *buf, size_t len)
{
	int b = sj_hist_quantile(h, permille);
	char t[SJ_UNITS_BUFSZ];

	if (b < 0)
		snprintf(buf, len, "-");
	else if (b == SJ_HIST_LAST)
		snprintf(buf, len, ">%s",
			 sj_format_time(sj_hist_bound_us(b - 1) * 1000, t, sizeof(t)));
	else
		snprintf(buf, len, "%s",
			 sj_format_time(sj_hist_bound_us(b) * 1000, t, sizeof(t)));
	return buf;
}

static void print_stars(__u64 val, __u64 max, int width)
{
	int stars = max ? (int)(val * width / max) : 0, i;

	for (i = 0; i < width; i++)
		putchar(i < stars ? '*' : ' ');
}

static const struct { const char *key; unsigned permille; } quantiles[] = {
	{ "p50_us", 500 }, { "p90_us", 900 }, { "p99_us", 990 }, { "max_us", 1000 },
};

/* the bound of the bucket holding it: an upper limit; null when empty
 * or beyond the last bound */
void obs_quantile_json(const char *key, const struct sj_hist *h,
		       unsigned permille)
{
	int b = sj_hist_quantile(h, permille);

	if (b < 0 || b == SJ_HIST_LAST)
		out_null(key);
	else
		out_u64(key, "", sj_hist_bound_us(b));
}

static void hist_json(const char *key, const struct sj_hist *h)
{
	size_t q;
	int b;

	out_open_object(key);
	out_u64("count", "", sj_hist_total(h));
	out_u64("sum_ns", "", h->sum_ns);
	for (q = 0; q < sizeof(quantiles) / sizeof(quantiles[0]); q++)
		obs_quantile_json(quantiles[q].key, h, quantiles[q].permille);
	out_open_array("buckets");
	for (b = 0; b < SJ_HIST_BUCKETS; b++) {
		out_open_object(NULL);
		if (b == SJ_HIST_LAST)
			out_null("le_us");	/* +Inf */
		else
			out_u64("le_us", "", sj_hist_bound_us(b));
		out_u64("count", "", h->count[b]);
		out_close_object();
	}
	out_close_array();
	out_close_object();
}

/*
 * bcc's layout.  Row "a -> b" holds a < usecs <= b: the bounds are
 * Prometheus's (le, inclusive), not bcc's [2^k, 2^(k+1) - 1].
 */
void obs_hist_print(const char *key, const struct sj_hist *h)
{
	char p[4][SJ_UNITS_BUFSZ + 1];
	__u64 max = 0;
	int b, last = -1;

	if (out_is_json()) {
		hist_json(key, h);
		return;
	}
	for (b = 0; b < SJ_HIST_BUCKETS; b++) {
		if (h->count[b])
			last = b;
		if (h->count[b] > max)
			max = h->count[b];
	}
	if (last < 0) {
		printf("     (no packets measured)\n");
		return;
	}
	printf("%5s%-19s : count    distribution\n", "", "usecs");
	for (b = 0; b <= last; b++) {
		__u64 lo = b ? sj_hist_bound_us(b - 1) : 0;

		if (b == SJ_HIST_LAST)
			printf("%10llu -> %-10s : %-8llu |", (unsigned long long)lo,
			       "inf", (unsigned long long)h->count[b]);
		else
			printf("%10llu -> %-10llu : %-8llu |", (unsigned long long)lo,
			       (unsigned long long)sj_hist_bound_us(b),
			       (unsigned long long)h->count[b]);
		print_stars(h->count[b], max, 40);
		printf("|\n");
	}
	printf("     count %llu  p50 %s  p90 %s  p99 %s  max %s  (a -> b: a < usecs <= b)\n",
	       (unsigned long long)sj_hist_total(h),
	       obs_quantile_str(h, 500, p[0], sizeof(p[0])),
	       obs_quantile_str(h, 900, p[1], sizeof(p[1])),
	       obs_quantile_str(h, 990, p[2], sizeof(p[2])),
	       obs_quantile_str(h, 1000, p[3], sizeof(p[3])));
}
