/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tc-style units for the command line: the spellings `tc` accepts for times,
 * rates and sizes, parsed exactly (no binary floating point), and printed the
 * way `tc qdisc show` prints them.
 *
 * Parsers take "<digits>[.<digits>]<unit>", unit case-insensitive, nothing
 * else: no sign, no whitespace, no hex or exponent, no NaN/inf.  A fraction
 * that falls between two integers of the result unit is rounded to nearest
 * (half up).  They return 0, or -1 with *out untouched.
 *
 * Formatters return buf, or NULL (buf set to "" when len > 0) if the text
 * does not fit; SJ_UNITS_BUFSZ always fits.
 */
#ifndef SOJOURN_UNITS_H
#define SOJOURN_UNITS_H

#include <stddef.h>
#include <linux/types.h>

#define SJ_UNITS_BUFSZ	32

/* s|sec|secs, ms|msec|msecs, us|usec|usecs, ns|nsec|nsecs;
 * a bare number is microseconds, as tc's get_time() has it */
int sj_parse_time(const char *s, __u64 *ns);

/* bit kbit mbit gbit tbit (x1000), kibit mibit gibit tibit (x1024),
 * bps kbps ... tbps and kibps ... tibps are bytes per second (x8);
 * a bare number is bits per second, as in tc */
int sj_parse_rate(const char *s, __u64 *bits_per_sec);

/* b, k|kb, m|mb, g|gb (x1024), kbit mbit gbit (1024-based bits / 8), as tc's
 * get_size(); a bare number is bytes */
int sj_parse_size(const char *s, __u64 *bytes);

/* plain decimal 0..4294967295 */
int sj_parse_u32(const char *s, __u32 *out);

/* "250ns" "100us" "1.5ms" "2s": the largest unit reached, <= 3 decimals */
char *sj_format_time(__u64 ns, char *buf, size_t len);

/* "800bit" "512Kbit" "20Mbit" "1Gbit", SI prefixes, as tc's sprint_rate() */
char *sj_format_rate(__u64 bps, char *buf, size_t len);

/* "1514b" "32Kb" "1Mb" "1Gb", a prefix only when exact */
char *sj_format_size(__u64 bytes, char *buf, size_t len);

#endif /* SOJOURN_UNITS_H */
