// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit parsers and formatters.  Standalone:
 *   gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I include \
 *       tests/unit/test_units.c loader/units.c -o /tmp/test_units
 * One case (tests/lib/check.h) per table: "PASS name" or "FAIL name: ..."
 * with every entry that failed.
 */
#include <stdio.h>
#include <string.h>

#include "../../loader/units.h"
#include "../lib/check.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define SENTINEL	0x5a5a5a5a5a5a5a5aULL	/* failures must not write it */

typedef int (*parse_fn)(const char *, __u64 *);
typedef char *(*format_fn)(__u64, char *, size_t);

struct good { const char *in; __u64 want; };

static const char *show(const char *s)
{
	return s ? s : "(null)";
}

static void check_good(const char *name, parse_fn fn, const struct good *t,
		       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		__u64 v = SENTINEL;
		int rc = fn(t[i].in, &v);

		CHECK(!rc && v == t[i].want,
		      "\"%s\" gave %llu (rc %d), want %llu (rc 0)", t[i].in,
		      (unsigned long long)v, rc, (unsigned long long)t[i].want);
	}
	check_case(name);
}

static void check_bad(const char *name, parse_fn fn, const char *const *t,
		      size_t n)
{
	for (size_t i = 0; i < n; i++) {
		__u64 v = SENTINEL;
		int rc = fn(t[i], &v);

		CHECK(rc == -1, "\"%s\" accepted as %llu (rc %d), want refused "
		      "(rc -1)", show(t[i]), (unsigned long long)v, rc);
		/* only a refusal is judged for what it wrote: one failure
		 * for one wrong answer */
		CHECK(rc != -1 || v == SENTINEL, "\"%s\" refused but wrote "
		      "%llu, want the value untouched", show(t[i]),
		      (unsigned long long)v);
	}
	check_case(name);
}

struct shown { __u64 in; const char *want; };

static void check_format(const char *name, format_fn fn, const struct shown *t,
			 size_t n)
{
	char buf[SJ_UNITS_BUFSZ];

	for (size_t i = 0; i < n; i++) {
		const char *got = fn(t[i].in, buf, sizeof(buf));

		CHECK(got && !strcmp(got, t[i].want),
		      "%llu shown as \"%s\", want \"%s\"",
		      (unsigned long long)t[i].in, show(got), t[i].want);
	}
	check_case(name);
}

/* The CLI echoes what it was given: canonical text must survive */
static void check_round_trip(const char *name, parse_fn p, format_fn f,
			     const char *const *t, size_t n)
{
	char buf[SJ_UNITS_BUFSZ];

	for (size_t i = 0; i < n; i++) {
		__u64 v = 0, back = 0;
		int rc = p(t[i], &v), rc_back = -1;
		const char *s = rc ? NULL : f(v, buf, sizeof(buf));

		if (s && !strcmp(s, t[i]))
			rc_back = p(s, &back);
		CHECK(!rc && s && !strcmp(s, t[i]) && !rc_back && back == v,
		      "\"%s\" -> %llu (rc %d) -> \"%s\" -> %llu (rc %d), want "
		      "the same text and value both ways", t[i],
		      (unsigned long long)v, rc, show(s),
		      (unsigned long long)back, rc_back);
	}
	check_case(name);
}

static int parse_u32_as_u64(const char *s, __u64 *out)
{
	__u32 v;

	if (sj_parse_u32(s, &v))
		return -1;
	*out = v;
	return 0;
}

static const struct good good_times[] = {
	{ "5ms", 5000000 }, { "100us", 100000 }, { "1s", 1000000000 },
	{ "1.5ms", 1500000 }, { "250ns", 250 }, { "2sec", 2000000000 },
	{ "10msec", 10000000 }, { "10usecs", 10000 }, { "3secs", 3000000000 },
	{ "7nsec", 7 }, { "7nsecs", 7 }, { "4usec", 4000 }, { "4msecs", 4000000 },
	{ "5000", 5000000 },		/* bare: usecs, like tc */
	{ "0", 0 }, { "0ms", 0 }, { "007ms", 7000000 },
	{ "0.1ms", 100000 }, { "0.3s", 300000000 }, { "0.7us", 700 },
	{ "1.000000001s", 1000000001 },
	{ "1.001ms", 1001000 }, { "1.003us", 1003 },	/* double*1000 misses */
	{ "0.0005us", 1 },		/* half a ns rounds up */
	{ "0.0004999us", 0 },
	{ "0.1234567891s", 123456789 },
	{ "5MS", 5000000 }, { "5Ms", 5000000 }, { "1SEC", 1000000000 },
	{ "18446744073.709551615s", 18446744073709551615ULL },
	{ "18446744073709551615ns", 18446744073709551615ULL },
};

static const char *const bad_times[] = {
	NULL, "", "ms", "-5ms", "+5ms", " 5ms", "5ms ", "5 ms", "5\tms",
	"5ms\n", "5msx", "5xs", "5m", "5msecss", "1e3ms", "1E3", "0x10",
	"0x10ms", "nan", "NaNms", "inf", "infms", "-0", ".5ms", "5.ms", "5.",
	"1..5ms", "1.2.3ms", "1,5ms", "s", "5min", "5h",
	"20000000000s",			/* 2e19 ns */
	"18446744073.709551616s",	/* U64_MAX + 1 */
	"18446744073709551616ns", "18446744073709552ms",
	"99999999999999999999999999",
};

static const struct good good_rates[] = {
	{ "800", 800 },			/* bare: bits per second, like tc */
	{ "800bit", 800 }, { "20mbit", 20000000 }, { "20Mbit", 20000000 },
	{ "1gbit", 1000000000 }, { "512kbit", 512000 },
	{ "2tbit", 2000000000000ULL },
	{ "1kibit", 1024 }, { "1mibit", 1048576 }, { "1gibit", 1073741824 },
	{ "1tibit", 1099511627776ULL }, { "1Kibit", 1024 },
	{ "1bps", 8 }, { "1kbps", 8000 }, { "1mbps", 8000000 },
	{ "1gbps", 8000000000ULL }, { "1tbps", 8000000000000ULL },
	{ "1kibps", 8192 }, { "1MiBps", 8388608 }, { "1gibps", 8589934592ULL },
	{ "1tibps", 8796093022208ULL }, { "1KBps", 8000 },
	{ "1.5mbit", 1500000 }, { "0.1mbit", 100000 }, { "2.5gbit", 2500000000ULL },
	{ "0.5kibit", 512 }, { "1.5bit", 2 }, { "0.001kbit", 1 },
	{ "12.345mbps", 98760000 },
	{ "18446744073709551615", 18446744073709551615ULL },
	{ "2305843009213693951bps", 18446744073709551608ULL },
};

static const char *const bad_rates[] = {
	NULL, "", "bit", "-1mbit", "+1mbit", " 1mbit", "1mbit ", "1 mbit",
	"1mbitx", "1mb", "1m", "1k", "1xbit", "1e6", "1e6bit", "0x100",
	"nan", "inf", "1.mbit", ".5mbit", "1%", "50%", "1mbit/s",
	"18446744073709551616", "18446744073709551616bit",
	"2305843009213693952bps", "18446744073710tbit", "20000000tbps",
	"18446744073709551615.5bit",	/* rounds past U64_MAX */
};

static const struct good good_sizes[] = {
	{ "1500", 1500 }, { "1514b", 1514 }, { "1514B", 1514 },
	{ "32k", 32768 }, { "32kb", 32768 }, { "32Kb", 32768 }, { "32KB", 32768 },
	{ "1m", 1048576 }, { "1mb", 1048576 }, { "1Mb", 1048576 },
	{ "1g", 1073741824 }, { "1gb", 1073741824 },
	{ "1kbit", 128 }, { "8mbit", 1048576 }, { "1gbit", 134217728 },
	{ "1.5k", 1536 }, { "0.5mb", 524288 }, { "1.5b", 2 },
	{ "0", 0 },
	{ "18446744073709551615", 18446744073709551615ULL },
	{ "18446744073709551615b", 18446744073709551615ULL },
	{ "17179869183g", 18446744072635809792ULL },
};

static const char *const bad_sizes[] = {
	NULL, "", "b", "-1", "+1", " 1", "1 ", "1 kb", "1kbx", "1kib", "1t",
	"1tb", "1bit", "1bps", "1e3", "0x10", "nan", "inf", "1.", ".5k",
	"18446744073709551616", "18446744073709551616b", "17179869184g",
	"18014398509481984k",
};

static const char *const bad_u32[] = {
	NULL, "", "-1", "+1", " 1", "1 ", "1x", "0x10", "1e3", "1.0", "1.5",
	"4294967296", "99999999999999999999999", "nan",
};

static const struct good good_u32[] = {
	{ "0", 0 }, { "1", 1 }, { "1024", 1024 }, { "00042", 42 },
	{ "4294967295", 4294967295ULL },
};

static const struct shown shown_times[] = {
	{ 0, "0ns" }, { 250, "250ns" }, { 999, "999ns" }, { 1000, "1us" },
	{ 100000, "100us" }, { 1500, "1.5us" }, { 999999, "999.999us" },
	{ 5000000, "5ms" }, { 1500000, "1.5ms" }, { 1250000, "1.25ms" },
	{ 1234567, "1.235ms" },		/* rounded to 3 decimals */
	{ 1000400, "1ms" }, { 100000000, "100ms" },
	{ 999999499, "999.999ms" }, { 999999500, "1s" },	/* carries up */
	{ 1000000000, "1s" }, { 2500000000ULL, "2.5s" },
	{ 3600000000000ULL, "3600s" },
	{ 18446744073709551615ULL, "18446744073.71s" },
};

static const struct shown shown_rates[] = {
	{ 0, "0bit" }, { 800, "800bit" }, { 999, "999bit" }, { 1000, "1Kbit" },
	{ 1500, "1500bit" }, { 512000, "512Kbit" }, { 20000000, "20Mbit" },
	{ 1500000, "1500Kbit" }, { 1000000000, "1Gbit" },
	{ 1000000000000ULL, "1Tbit" }, { 1000000000000000ULL, "1000Tbit" },
	{ 1048576, "1048Kbit" },	/* 1mibit: no exact SI form, tc cuts */
	{ 1234567890, "1234Mbit" },	/* tc drops the rest past 6 digits */
	{ 18446744073709551615ULL, "18446744Tbit" },
};

static const struct shown shown_sizes[] = {
	{ 0, "0b" }, { 1, "1b" }, { 1514, "1514b" }, { 1024, "1Kb" },
	{ 32768, "32Kb" }, { 1536, "1536b" }, { 1048576, "1Mb" },
	{ 1572864, "1536Kb" }, { 1073741824, "1Gb" },
	{ 1099511627776ULL, "1024Gb" },
	{ 18446744073709551615ULL, "18446744073709551615b" },
};

static const char *const trip_times[] = {
	"5ms", "100ms", "1.5ms", "250ns", "1s", "100us", "10ms", "2.5s",
	"12.345ms", "999.999us",
};

static const char *const trip_rates[] = {
	"20Mbit", "1Gbit", "512Kbit", "800bit", "1500Kbit", "10Gbit", "100Tbit",
};

static const char *const trip_sizes[] = {
	"1514b", "32Kb", "1Mb", "1Gb", "64Kb", "9000b",
};

static void check_small_buffers(void)
{
	char buf[8];
	const char *s;

	/* what a refusal leaves is shown with %.8s: buf may lack its NUL */
	memset(buf, 'x', sizeof(buf));
	s = sj_format_rate(20000000, buf, 6);
	CHECK(!s && buf[0] == '\0', "\"20Mbit\" in 6 bytes: %s, buf \"%.8s\"; "
	      "want refused (NULL) and buf \"\"", s ? "a result" : "NULL", buf);
	s = sj_format_rate(20000000, buf, 7);
	CHECK(s && !strcmp(buf, "20Mbit"), "\"20Mbit\" in 7 bytes: %s, buf "
	      "\"%.8s\"; want \"20Mbit\"", s ? "a result" : "NULL", buf);
	CHECK(!sj_format_time(5000000, buf, 0),
	      "a time into 0 bytes: a result, want NULL");
	CHECK(!sj_format_size(1, NULL, 8),
	      "a size into no buffer: a result, want NULL");
	s = sj_format_time(1500000, buf, 3);
	CHECK(!s && buf[0] == '\0', "\"1.5ms\" in 3 bytes: %s, buf \"%.8s\"; "
	      "want refused (NULL) and buf \"\"", s ? "a result" : "NULL", buf);
	check_case("format buffer limits");
}

#define GOOD(n, f, t)	check_good(n, f, t, ARRAY_SIZE(t))
#define BAD(n, f, t)	check_bad(n, f, t, ARRAY_SIZE(t))
#define SHOWN(n, f, t)	check_format(n, f, t, ARRAY_SIZE(t))
#define TRIP(n, p, f, t) check_round_trip(n, p, f, t, ARRAY_SIZE(t))

int main(void)
{
	GOOD("parse time", sj_parse_time, good_times);
	BAD("reject time", sj_parse_time, bad_times);
	GOOD("parse rate", sj_parse_rate, good_rates);
	BAD("reject rate", sj_parse_rate, bad_rates);
	GOOD("parse size", sj_parse_size, good_sizes);
	BAD("reject size", sj_parse_size, bad_sizes);
	GOOD("parse u32", parse_u32_as_u64, good_u32);
	BAD("reject u32", parse_u32_as_u64, bad_u32);
	SHOWN("format time", sj_format_time, shown_times);
	SHOWN("format rate", sj_format_rate, shown_rates);
	SHOWN("format size", sj_format_size, shown_sizes);
	TRIP("round trip time", sj_parse_time, sj_format_time, trip_times);
	TRIP("round trip rate", sj_parse_rate, sj_format_rate, trip_rates);
	TRIP("round trip size", sj_parse_size, sj_format_size, trip_sizes);
	check_small_buffers();
	return check_exit("test_units");
}
