// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tc-style units.  The unit tables follow iproute2 (get_time, get_time64,
 * get_rate64, get_size); the arithmetic does not: tc multiplies strtod()'s
 * double and truncates, so get_time("1.001ms") is 1000us, and "1e3", "0x10"
 * or "-5" get through.  Here the digits are read as integers and scaled
 * exactly.
 */
#include <stdarg.h>
#include <stdio.h>

#include "units.h"

#define U64_MAX	((__u64)-1)

struct unit {
	const char *name;
	__u64 scale;		/* result units per written unit */
};

static const struct unit time_units[] = {
	{ "",      1000ULL },	/* tc's get_time(): a bare number is usecs */
	{ "ns",    1ULL }, { "nsec", 1ULL }, { "nsecs", 1ULL },
	{ "us",    1000ULL }, { "usec", 1000ULL }, { "usecs", 1000ULL },
	{ "ms",    1000000ULL }, { "msec", 1000000ULL },
	{ "msecs", 1000000ULL },
	{ "s",     1000000000ULL }, { "sec", 1000000000ULL },
	{ "secs",  1000000000ULL },
	{ NULL, 0 }
};

/* tc's get_rate64() scales a bare number as bits, then stores bytes/s */
static const struct unit rate_units[] = {
	{ "",      1ULL },
	{ "bit",   1ULL },
	{ "kbit",  1000ULL }, { "mbit", 1000000ULL },
	{ "gbit",  1000000000ULL }, { "tbit", 1000000000000ULL },
	{ "kibit", 1ULL << 10 }, { "mibit", 1ULL << 20 },
	{ "gibit", 1ULL << 30 }, { "tibit", 1ULL << 40 },
	{ "bps",   8ULL },
	{ "kbps",  8000ULL }, { "mbps", 8000000ULL },
	{ "gbps",  8000000000ULL }, { "tbps", 8000000000000ULL },
	{ "kibps", 8ULL << 10 }, { "mibps", 8ULL << 20 },
	{ "gibps", 8ULL << 30 }, { "tibps", 8ULL << 40 },
	{ NULL, 0 }
};

/* tc's get_size() reads "kbit" as 1024 bits, not 1000 */
static const struct unit size_units[] = {
	{ "",     1ULL }, { "b", 1ULL },
	{ "k",    1ULL << 10 }, { "kb", 1ULL << 10 },
	{ "m",    1ULL << 20 }, { "mb", 1ULL << 20 },
	{ "g",    1ULL << 30 }, { "gb", 1ULL << 30 },
	{ "kbit", (1ULL << 10) / 8 }, { "mbit", (1ULL << 20) / 8 },
	{ "gbit", (1ULL << 30) / 8 },
	{ NULL, 0 }
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* ASCII only: strcasecmp() would follow the locale (Turkish dotless i) */
static int ascii_ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a, y = *b;

		if (x >= 'A' && x <= 'Z')
			x += 'a' - 'A';
		if (y >= 'A' && y <= 'Z')
			y += 'a' - 'A';
		if (x != y)
			return 0;
	}
	return *a == *b;
}

/* Reads leading digits into *v; -1 if none or if they overflow */
static int read_digits(const char **p, __u64 *v)
{
	const char *s = *p;
	__u64 acc = 0;

	if (!is_digit(*s))
		return -1;
	for (; is_digit(*s); s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (acc > (U64_MAX - d) / 10)
			return -1;
		acc = acc * 10 + d;
	}
	*p = s;
	*v = acc;
	return 0;
}

/*
 * round(0.<frac digits> * scale), exactly.  Horner from the last digit:
 * floor((d + floor(x)) / 10) == floor((d + x) / 10), so flooring at every
 * step loses nothing; doubling the scale leaves one bit to round with.
 * With scale <= 2^43 no step comes near overflowing.
 */
static __u64 scale_fraction(const char *first, const char *end, __u64 scale)
{
	__u64 x = 0;

	while (end > first) {
		end--;
		x = ((__u64)(*end - '0') * 2 * scale + x) / 10;
	}
	return (x + 1) / 2;
}

static int parse_scaled(const char *s, const struct unit *tab, __u64 *out)
{
	const char *p = s, *frac = NULL, *frac_end = NULL;
	__u64 whole, v, f;

	if (!s || !out || read_digits(&p, &whole))
		return -1;
	if (*p == '.') {
		frac = ++p;
		if (!is_digit(*p))
			return -1;
		while (is_digit(*p))
			p++;
		frac_end = p;
	}
	for (; tab->name; tab++)
		if (ascii_ieq(p, tab->name))
			break;
	if (!tab->name)
		return -1;

	if (whole > U64_MAX / tab->scale)
		return -1;
	v = whole * tab->scale;
	if (frac) {
		f = scale_fraction(frac, frac_end, tab->scale);
		if (f > U64_MAX - v)
			return -1;
		v += f;
	}
	*out = v;
	return 0;
}

int sj_parse_time(const char *s, __u64 *ns)
{
	return parse_scaled(s, time_units, ns);
}

int sj_parse_rate(const char *s, __u64 *bits_per_sec)
{
	return parse_scaled(s, rate_units, bits_per_sec);
}

int sj_parse_size(const char *s, __u64 *bytes)
{
	return parse_scaled(s, size_units, bytes);
}

int sj_parse_u32(const char *s, __u32 *out)
{
	const char *p = s;
	__u64 v;

	if (!s || !out || read_digits(&p, &v) || *p || v > (__u32)-1)
		return -1;
	*out = (__u32)v;
	return 0;
}

/* snprintf, but all or nothing: a cut-off number would read as a wrong one */
__attribute__((format(printf, 3, 4)))
static char *emit(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!buf || !len)
		return NULL;
	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		buf[0] = '\0';
		return NULL;
	}
	return buf;
}

char *sj_format_time(__u64 ns, char *buf, size_t len)
{
	static const char *const names[] = { "ns", "us", "ms", "s" };
	__u64 unit = 1, step, rem, q;
	char frac[5];
	int i = 0, n;

	while (i < 3 && ns >= unit * 1000) {
		unit *= 1000;
		i++;
	}
	if (i == 0)
		return emit(buf, len, "%lluns", (unsigned long long)ns);

	/* q counts thousandths of the unit, rounded to nearest */
	for (;;) {
		step = unit / 1000;
		rem = ns % step;
		q = ns / step + (rem >= step - rem);
		/* 999.9996ms rounds to 1000ms: say 1s instead */
		if (q < 1000000 || i == 3)
			break;
		unit *= 1000;
		i++;
	}

	n = snprintf(frac, sizeof(frac), ".%03u", (unsigned int)(q % 1000));
	while (n > 1 && frac[n - 1] == '0')
		frac[--n] = '\0';
	if (n == 1)
		frac[0] = '\0';
	return emit(buf, len, "%llu%s%s", (unsigned long long)(q / 1000), frac,
		    names[i]);
}

/*
 * tc's rule: step up a prefix while the number is a whole multiple, or while
 * it still has seven digits or more (then the remainder is dropped, so at
 * least six significant digits stay).
 */
char *sj_format_rate(__u64 bps, char *buf, size_t len)
{
	static const char *const prefix[] = { "", "K", "M", "G", "T" };
	int i;

	for (i = 0; i < 4; i++) {
		if (bps < 1000)
			break;
		if (bps % 1000 && bps < 1000000)
			break;
		bps /= 1000;
	}
	return emit(buf, len, "%llu%sbit", (unsigned long long)bps, prefix[i]);
}

/*
 * tc rounds sizes within 16 bytes (or 1 KiB) of a prefix; we print a prefix
 * only when exact, so what we print parses back to what we hold.
 */
char *sj_format_size(__u64 bytes, char *buf, size_t len)
{
	static const char *const prefix[] = { "", "K", "M", "G" };
	int i = 0;

	while (i < 3 && bytes && bytes % 1024 == 0) {
		bytes /= 1024;
		i++;
	}
	return emit(buf, len, "%llu%sb", (unsigned long long)bytes, prefix[i]);
}
