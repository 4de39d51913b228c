// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer on the tc units (loader/units.c).  The input, as a string, goes
 * through every parser; the first 8 bytes, as a number, through every
 * formatter.  Properties beyond "no crash":
 *   - a failed parse leaves *out untouched;
 *   - "<digits>[.<digits>]<unit>" with up to 18 fraction digits parses to
 *     whole * scale + round-half-up(fraction * scale), checked in 128 bits;
 *   - what a formatter prints parses back: sizes exactly, times within half
 *     a thousandth of the unit printed, rates within 0.1 % (tc's rounding).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

typedef int (*parse_fn)(const char *, __u64 *);

struct unit { const char *name; __u64 scale; };

/* The same tables written again, as tc documents them */
static const struct unit times[] = {
	{ "", 1000 }, { "ns", 1 }, { "nsec", 1 }, { "nsecs", 1 },
	{ "us", 1000 }, { "usec", 1000 }, { "usecs", 1000 },
	{ "ms", 1000000 }, { "msec", 1000000 }, { "msecs", 1000000 },
	{ "s", 1000000000 }, { "sec", 1000000000 }, { "secs", 1000000000 },
	{ NULL, 0 } };
static const struct unit rates[] = {
	{ "", 1 }, { "bit", 1 }, { "kbit", 1000 }, { "mbit", 1000000 },
	{ "gbit", 1000000000 }, { "tbit", 1000000000000ULL },
	{ "kibit", 1 << 10 }, { "mibit", 1 << 20 }, { "gibit", 1ULL << 30 },
	{ "tibit", 1ULL << 40 }, { "bps", 8 }, { "kbps", 8000 },
	{ "mbps", 8000000 }, { "gbps", 8000000000ULL },
	{ "tbps", 8000000000000ULL }, { "kibps", 8 << 10 },
	{ "mibps", 8 << 20 }, { "gibps", 8ULL << 30 }, { "tibps", 8ULL << 40 },
	{ NULL, 0 } };
static const struct unit sizes[] = {
	{ "", 1 }, { "b", 1 }, { "k", 1024 }, { "kb", 1024 }, { "m", 1 << 20 },
	{ "mb", 1 << 20 }, { "g", 1 << 30 }, { "gb", 1 << 30 },
	{ "kbit", 128 }, { "mbit", 1 << 17 }, { "gbit", 1 << 27 },
	{ NULL, 0 } };

static int ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? *a + 32 : *a;

		if (x != *b)
			return 0;
	}
	return *a == *b;
}

/* The model: 1 and the value if s is well formed and in range, else 0 */
static int model(const char *s, const struct unit *tab, __u64 *out)
{
	unsigned __int128 whole = 0, frac = 0, pow = 1, v;
	const char *p = s;
	int nd = 0, nf = 0;

	for (; *p >= '0' && *p <= '9'; p++, nd++) {
		whole = whole * 10 + (*p - '0');
		if (whole > UINT64_MAX)
			return -1;	/* too long for the model and the parser */
	}
	if (!nd)
		return 0;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, nf++) {
			if (nf == 18)
				return -1;	/* beyond what 128 bits hold here */
			frac = frac * 10 + (*p - '0');
			pow *= 10;
		}
		if (!nf)
			return 0;
	}
	for (; tab->name; tab++)
		if (ieq(p, tab->name))
			break;
	if (!tab->name)
		return 0;
	v = whole * tab->scale + (2 * frac * tab->scale + pow) / (2 * pow);
	if (v > UINT64_MAX)
		return 0;
	*out = (__u64)v;
	return 1;
}

static void check_parse(parse_fn fn, const char *s, const struct unit *tab)
{
	__u64 got = SENTINEL, want = 0;
	int ok = fn(s, &got) == 0, m = model(s, tab, &want);

	if (!ok && got != SENTINEL)
		abort();	/* a failed parse wrote its result */
	if (m < 0)
		return;		/* the model cannot say */
	if (ok != m || (ok && got != want))
		abort();
}

static void check_formats(__u64 v)
{
	char buf[SJ_UNITS_BUFSZ];
	__u64 back;

	if (!sj_format_size(v, buf, sizeof(buf)) ||
	    sj_parse_size(buf, &back) || back != v)
		abort();

	if (!sj_format_rate(v, buf, sizeof(buf)) || sj_parse_rate(buf, &back) ||
	    back > v || v - back > v / 1000)
		abort();

	if (!sj_format_time(v, buf, sizeof(buf)))
		abort();
	/* within a second of 2^64 ns the rounded text no longer fits u64 */
	if (v < UINT64_MAX - 1000000000ULL) {
		__u64 unit = v >= 1000000000 ? 1000000000 : v >= 1000000 ?
			     1000000 : v >= 1000 ? 1000 : 1;

		if (sj_parse_time(buf, &back))
			abort();
		/* half a thousandth of the unit, also when 999.9996ms
		 * rounds up to 1s */
		if ((back > v ? back - v : v - back) > unit / 2000)
			abort();
	}
	/* too small a buffer: NULL and an empty string, never a cut number */
	if (sj_format_time(v, buf, 3) && strlen(buf) > 2)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	__u64 v = 0;
	__u32 u;

	if (size > 256)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	check_parse(sj_parse_time, s, times);
	check_parse(sj_parse_rate, s, rates);
	check_parse(sj_parse_size, s, sizes);
	u = 0x5a5a5a5a;
	if (sj_parse_u32(s, &u) && u != 0x5a5a5a5a)
		abort();

	memcpy(&v, data, size < 8 ? size : 8);
	check_formats(v);
	free(s);
	return 0;
}
