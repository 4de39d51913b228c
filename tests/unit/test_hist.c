// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The histogram law (include/hist.h) and its Prometheus rendering
 * (loader/prom.c): bucket edges against a reference written from the
 * definition, `le` inclusive as Prometheus has it, percentiles from
 * buckets, the merge of per-CPU copies, the per-flow 32-bit deltas; the
 * exposition of made-up attachments (labels, sojourn_info, which mode has
 * which series, per-flow series only for the flows export hands over).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include "sojourn.h"
#include "prom.h"

#include "../lib/check.h"

/* the bucket of ns nanoseconds is want */
#define BUCKET_IS(ns, want, why)					\
	CHECK(sj_hist_bucket(ns) == (want), "%s: %llu ns -> bucket %u, "	\
	      "want %u", why, (unsigned long long)(ns), sj_hist_bucket(ns),	\
	      (unsigned)(want))

/* From the definition, by counting: the smallest b with ns <= 2^b us. */
static unsigned ref_bucket(__u64 ns)
{
	unsigned b;

	for (b = 0; b < SJ_HIST_LAST; b++)
		if (ns <= (1000ULL << b))
			return b;
	return SJ_HIST_LAST;
}

static void test_edges(void)
{
	unsigned b;
	__u64 ns, bound;

	BUCKET_IS(0, 0, "nothing");
	BUCKET_IS(1, 0, "a nanosecond");
	for (b = 0; b < SJ_HIST_LAST; b++) {
		bound = 1000ULL << b;
		/* equal to the bound: in the bound's bucket (le inclusive) */
		BUCKET_IS(bound, b, "on the bound");
		BUCKET_IS(bound + 1, b + 1, "1 ns above the bound");
		if (b)
			BUCKET_IS(bound - 1, b, "1 ns below the bound");
		CHECK(sj_hist_bound_us(b) == 1ULL << b,
		      "bound of bucket %u: %llu us, want %llu", b,
		      (unsigned long long)sj_hist_bound_us(b), 1ULL << b);
	}
	BUCKET_IS(16777216000ULL, SJ_HIST_LAST - 1,
		  "16.777216 s, the last finite bucket");
	BUCKET_IS(16777216001ULL, SJ_HIST_LAST, "above the last bound: +Inf");
	BUCKET_IS(~0ULL, SJ_HIST_LAST, "UINT64_MAX: +Inf");
	CHECK(sj_hist_bound_us(SJ_HIST_LAST) == SJ_HIST_INF_US,
	      "+Inf bound %llu us, want %llu",
	      (unsigned long long)sj_hist_bound_us(SJ_HIST_LAST), SJ_HIST_INF_US);
	/* 8 s, the "above 8 s", has a finite bucket below it */
	BUCKET_IS(8000000000ULL, 23, "8 s, in (4.19 s, 8.39 s]");

	/* a sweep: every small value, then a pseudo-random walk; the first
	 * value off the reference ends each, the rest would repeat it */
	for (ns = 0; ns < 300000; ns++) {
		BUCKET_IS(ns, ref_bucket(ns), "the sweep against the reference");
		if (sj_hist_bucket(ns) != ref_bucket(ns))
			break;
	}
	srand(5);
	for (b = 0; b < 200000; b++) {
		ns = ((__u64)rand() << 31 ^ rand()) >> (rand() % 40);
		BUCKET_IS(ns, ref_bucket(ns), "the walk against the reference");
		if (sj_hist_bucket(ns) != ref_bucket(ns))
			break;
	}
}

/* The cumulative count printed on the line of bucket `le` */
static long long prom_value(const char *text, const char *le)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), "le=\"%s\"} ", le);
	p = strstr(text, want);
	return p ? atoll(p + strlen(want)) : -1;
}

/* the cumulative count on the line of bucket le is want */
#define LE_IS(text, le, want, why)					\
	CHECK(prom_value(text, le) == (want), "%s: le=%s counts %lld, "	\
	      "want %lld", why, le, prom_value(text, le), (long long)(want))

/* An exposition that failed a check, shown once under the case: what
 * was got, in full (a check's message is cut at 4 KB) */
static void show_failed(long fails_before, const char *text)
{
	if (check_fails > fails_before)
		printf("    the exposition judged:\n%s", text);
}

static char *render_hist(const struct sj_hist *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	prom_hist(f, "t_seconds", "device=\"x\"", h);
	fclose(f);
	return buf;
}

static void test_prometheus_le(void)
{
	struct sj_hist h = {};
	char le[32], *text;
	long fails;
	int b;

	/* one sample exactly on the 1.024 ms bound */
	h.count[sj_hist_bucket(1024000)]++;
	h.sum_ns += 1024000;
	text = render_hist(&h);
	fails = check_fails;
	LE_IS(text, "0.000512", 0, "a sample on the bound, below it");
	LE_IS(text, "0.001024", 1, "a sample on the bound, counted in it");
	LE_IS(text, "+Inf", 1, "a sample on the bound, +Inf");
	CHECK(strstr(text, "t_seconds_sum{device=\"x\"} 0.001024000\n") != NULL,
	      "no line 't_seconds_sum{device=\"x\"} 0.001024000', want the "
	      "_sum in seconds");
	CHECK(strstr(text, "t_seconds_count{device=\"x\"} 1\n") != NULL,
	      "no line 't_seconds_count{device=\"x\"} 1', want the _count");
	show_failed(fails, text);
	free(text);

	/* one nanosecond more: the next bucket */
	memset(&h, 0, sizeof(h));
	h.count[sj_hist_bucket(1024001)]++;
	text = render_hist(&h);
	fails = check_fails;
	LE_IS(text, "0.001024", 0, "1 ns above the bound, not in it");
	LE_IS(text, "0.002048", 1, "1 ns above the bound, in the next bucket");
	show_failed(fails, text);
	free(text);

	/* every bound's label, and cumulative counts never fall */
	for (b = 0; b < SJ_HIST_BUCKETS; b++)
		h.count[b] = b + 1;
	text = render_hist(&h);
	fails = check_fails;
	prom_le(le, sizeof(le), 0);
	CHECK(!strcmp(le, "0.000001"), "le of bucket 0: %s, want 0.000001", le);
	prom_le(le, sizeof(le), 24);
	CHECK(!strcmp(le, "16.777216"), "le of bucket 24: %s, want 16.777216",
	      le);
	prom_le(le, sizeof(le), SJ_HIST_LAST);
	CHECK(!strcmp(le, "+Inf"), "le of the last: %s, want +Inf", le);
	LE_IS(text, "+Inf", SJ_HIST_BUCKETS * (SJ_HIST_BUCKETS + 1) / 2,
	      "b + 1 in each bucket b, +Inf is the total");
	LE_IS(text, "0.000004", 1 + 2 + 3, "b + 1 in each bucket b, cumulative");
	show_failed(fails, text);
	free(text);
}

/* the permille-th quantile of h is in bucket want */
#define QUANTILE_IS(h, permille, want, why)				\
	CHECK(sj_hist_quantile(h, permille) == (want), "%s: permille %d in "	\
	      "bucket %d, want %d", why, permille,				\
	      sj_hist_quantile(h, permille), want)

static void test_quantiles(void)
{
	struct sj_hist h = {};

	QUANTILE_IS(&h, 500, -1, "empty: none");
	h.count[3] = 90;
	h.count[5] = 9;
	h.count[10] = 1;
	QUANTILE_IS(&h, 500, 3, "p50");
	QUANTILE_IS(&h, 900, 3, "p90: the 90th of 100 is in 3");
	QUANTILE_IS(&h, 901, 5, "just above p90: next");
	QUANTILE_IS(&h, 990, 5, "p99: the 99th of 100 is in 5");
	QUANTILE_IS(&h, 1000, 10, "max: the highest non-empty");
	QUANTILE_IS(&h, 0, 3, "p0: the lowest non-empty");

	memset(&h, 0, sizeof(h));
	h.count[7] = 1;
	CHECK(sj_hist_quantile(&h, 500) == 7 && sj_hist_quantile(&h, 990) == 7 &&
	      sj_hist_quantile(&h, 1000) == 7,
	      "one sample in 7: p50 %d p99 %d max %d, want 7 in every quantile",
	      sj_hist_quantile(&h, 500), sj_hist_quantile(&h, 990),
	      sj_hist_quantile(&h, 1000));

	memset(&h, 0, sizeof(h));
	h.count[2] = 1;
	h.count[SJ_HIST_LAST] = 1000;
	QUANTILE_IS(&h, 990, SJ_HIST_LAST, "beyond the last bound");
	QUANTILE_IS(&h, 0, 2, "p0 of 1001: the first");
	/* rank ceil(1001 * 0.001) = 2: already past the one sample in 2 */
	QUANTILE_IS(&h, 1, SJ_HIST_LAST, "p0.1 of 1001: the second");

	/* 1000 samples: p99 is the 990th, which is in bucket 4 */
	memset(&h, 0, sizeof(h));
	h.count[4] = 990;
	h.count[6] = 10;
	QUANTILE_IS(&h, 990, 4, "990 of 1000 in 4");
	h.count[4] = 989;
	h.count[6] = 11;
	QUANTILE_IS(&h, 990, 6, "989 of 1000 in 4: p99 above");
}

static void test_merge(void)
{
	enum { NCPU = 5 };
	struct sj_dev_hist per[NCPU], out;
	__u64 want_all = 0, want_noflow = 0, want_sum = 0;
	int i, b;

	memset(per, 0, sizeof(per));
	for (i = 0; i < NCPU; i++) {
		for (b = 0; b < SJ_HIST_BUCKETS; b++) {
			per[i].all.count[b] = (i + 1) * 1000 + b;
			per[i].noflow.count[b] = i * b;
			want_all += per[i].all.count[b];
			want_noflow += per[i].noflow.count[b];
		}
		per[i].all.sum_ns = 1ULL << (40 + i);
		want_sum += per[i].all.sum_ns;
	}
	sj_dev_hist_merge(&out, per, NCPU);
	CHECK(sj_hist_total(&out.all) == want_all, "merged total %llu, want %llu",
	      (unsigned long long)sj_hist_total(&out.all),
	      (unsigned long long)want_all);
	CHECK(sj_hist_total(&out.noflow) == want_noflow,
	      "merged noflow total %llu, want %llu",
	      (unsigned long long)sj_hist_total(&out.noflow),
	      (unsigned long long)want_noflow);
	CHECK(out.all.sum_ns == want_sum, "merged sum %llu, want %llu",
	      (unsigned long long)out.all.sum_ns, (unsigned long long)want_sum);
	CHECK(out.all.count[7] == 5 * 7 + 15000,
	      "bucket 7 added across CPUs: %llu, want %d",
	      (unsigned long long)out.all.count[7], 5 * 7 + 15000);
	CHECK(out.noflow.count[3] == (0 + 1 + 2 + 3 + 4) * 3,
	      "noflow bucket 3: %llu, want %d",
	      (unsigned long long)out.noflow.count[3], (0 + 1 + 2 + 3 + 4) * 3);
	/* the kernel rounds each per-CPU value to 8 bytes: ours need none */
	CHECK(sizeof(struct sj_dev_hist) % 8 == 0,
	      "per-CPU value of %zu bytes, want a multiple of 8",
	      sizeof(struct sj_dev_hist));
}

static void test_flow_delta(void)
{
	struct sj_flow then = {}, now = {};
	struct sj_hist h;

	then.hist[2] = 0xfffffff0u;	/* about to wrap */
	now.hist[2] = 0x10;
	then.hist[9] = 5;
	now.hist[9] = 12;
	then.sojourn_sum_ns = 100;
	now.sojourn_sum_ns = 350;
	obs_flow_hist_delta(&now, &then, &h);
	CHECK(h.count[2] == 0x20, "delta across the 32-bit wrap: %llu, want 32",
	      (unsigned long long)h.count[2]);
	CHECK(h.count[9] == 7, "plain delta %llu, want 7",
	      (unsigned long long)h.count[9]);
	CHECK(h.sum_ns == 250, "sum delta %llu, want 250",
	      (unsigned long long)h.sum_ns);
	obs_flow_hist(&now, &h);
	CHECK(h.count[9] == 12 && h.count[2] == 0x10,
	      "flow histogram as is: bucket 9 %llu, bucket 2 %llu; want 12, 16",
	      (unsigned long long)h.count[9], (unsigned long long)h.count[2]);
}

static void test_escape(void)
{
	char buf[64];
	const char *want = "a\\\"b\\\\c\\nd";

	prom_escape(buf, sizeof(buf), "a\"b\\c\nd");
	CHECK(!strcmp(buf, want), "escaped: %s, want %s", buf, want);
}

static char *render_atts(const struct prom_att *a, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	prom_render(f, a, n);
	fclose(f);
	return buf;
}

static int count_prefix(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = text;
	int c = 0;

	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, prefix, n))
			c++;
	return c;
}

/* the exposition has the line `line` (a literal, given without its
 * newline) */
#define HAS_LINE(text, line, why)					\
	CHECK(strstr(text, line "\n") != NULL, "%s: no line '%s', want it",	\
	      why, line)

/* want lines of the exposition start with prefix */
#define COUNT_IS(text, prefix, want, why)				\
	CHECK(count_prefix(text, prefix) == (want), "%s: %d lines start "	\
	      "'%s', want %d", why, count_prefix(text, prefix), prefix, want)

static void test_render(void)
{
	struct obs_flow flow = {};
	struct prom_att a[3];
	char *text;
	long fails;

	memset(a, 0, sizeof(a));
	snprintf(a[0].meta.ifname, sizeof(a[0].meta.ifname), "eth0");
	a[0].meta.netns_cookie = 4096;	/* no name: the cookie */
	a[0].meta.hook = SJ_HOOK_TCX;
	a[0].meta.mode = SJ_MODE_QUEUE;
	a[0].set.target_ns = 5000000;
	a[0].nq = 0;
	snprintf(a[1].meta.ifname, sizeof(a[1].meta.ifname), "veth1");
	snprintf(a[1].meta.netns, sizeof(a[1].meta.netns), "pod\"x");
	a[1].meta.direction = SJ_DIR_INGRESS;
	a[1].meta.hook = SJ_HOOK_XDP;
	a[1].meta.xdp_mode = SJ_XDP_MODE_NATIVE;
	a[1].meta.mode = SJ_MODE_RATE;
	a[1].set.rate_Bps = 2500000;
	a[1].set.burst_bytes = 32768;
	snprintf(a[1].pod_namespace, sizeof(a[1].pod_namespace), "default");
	snprintf(a[1].pod_name, sizeof(a[1].pod_name), "web-0\\\"q");
	snprintf(a[2].meta.ifname, sizeof(a[2].meta.ifname), "eth1");
	a[2].meta.hook = SJ_HOOK_CLSACT;
	a[2].meta.mode = SJ_MODE_OBSERVE;

	text = render_atts(a, 3);
	fails = check_fails;
	HAS_LINE(text, "sojourn_info{device=\"eth0\",netns=\"4096\",direction=\"egress\",mode=\"queue\",hook=\"tcx\"} 1",
		 "info of the real queue");
	HAS_LINE(text, "sojourn_info{device=\"veth1\",netns=\"pod\\\"x\",direction=\"ingress\",pod_namespace=\"default\",pod_name=\"web-0\\\\\\\"q\",mode=\"rate\",hook=\"xdp-native\"} 1",
		 "info of the rate attachment, netns and pod escaped");
	HAS_LINE(text, "sojourn_info{device=\"eth1\",netns=\"0\",direction=\"egress\",mode=\"observe\",hook=\"clsact\"} 1",
		 "info of the observe attachment");
	COUNT_IS(text, "sojourn_info{", 3, "one info per attachment");
	CHECK(strstr(text, "dev=") == NULL, "a dev= label left at '%.60s', want "
	      "none", strstr(text, "dev="));
	HAS_LINE(text, "sojourn_rate_bytes_per_second{device=\"veth1\",netns=\"pod\\\"x\",direction=\"ingress\",pod_namespace=\"default\",pod_name=\"web-0\\\\\\\"q\"} 2500000",
		 "rate gauge, with the pod");
	HAS_LINE(text, "sojourn_burst_bytes{device=\"veth1\",netns=\"pod\\\"x\",direction=\"ingress\",pod_namespace=\"default\",pod_name=\"web-0\\\\\\\"q\"} 32768",
		 "burst gauge, with the pod");
	/* the pod on every series of its attachment, on no other's */
	COUNT_IS(text, "sojourn_packets_total{device=\"veth1\",netns=\"pod\\\"x\",direction=\"ingress\",pod_namespace=\"default\",", 1,
		 "the pod on its attachment's series");
	COUNT_IS(text, "sojourn_packets_total{device=\"eth0\",netns=\"4096\",direction=\"egress\"}", 1,
		 "no pod on another attachment's series");
	COUNT_IS(text, "sojourn_rate_bytes_per_second{", 1,
		 "rate gauges for rate mode only");
	COUNT_IS(text, "sojourn_burst_bytes{", 1, "rate gauges for rate mode only");
	COUNT_IS(text, "sojourn_codel_target_seconds{", 2,
		 "no law's settings for observe");
	COUNT_IS(text, "sojourn_codel_target_seconds{device=\"eth1\"", 0,
		 "no law's settings for observe");
	CHECK(strstr(text, "sojourn_flow_") == NULL, "a per-flow family without "
	      "flows handed over, at '%.60s'; want none",
	      strstr(text, "sojourn_flow_"));
	show_failed(fails, text);
	free(text);

	/* what export --flows 1 hands over for the real queue */
	flow.key.proto = 17;
	flow.val.packets = 7;
	a[0].top = &flow;
	a[0].ntop = 1;
	text = render_atts(a, 3);
	fails = check_fails;
	COUNT_IS(text, "sojourn_flow_packets_total{device=\"eth0\"", 1,
		 "the flow's counter");
	COUNT_IS(text, "sojourn_flow_packets_total{", 1, "that flow only");
	COUNT_IS(text, "sojourn_flow_queue_delay_seconds_count{", 1,
		 "the flow's histogram");
	show_failed(fails, text);
	free(text);
}

int main(void)
{
	test_edges();
	check_case("bucket edges");
	test_prometheus_le();
	check_case("prometheus le");
	test_quantiles();
	check_case("quantiles");
	test_merge();
	check_case("per-CPU merge");
	test_flow_delta();
	check_case("flow deltas");
	test_escape();
	check_case("label escape");
	test_render();
	check_case("exposition");
	return check_exit("test_hist");
}
