// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer on the option parser of attach and change (loader/tune.c),
 * built alone with units.c and a stub sj_err().  The input is argv: words
 * separated by NUL bytes; its first byte picks attach or change (bit 0)
 * and what change finds attached: queue or observe mode (bit 1).
 * Properties beyond "no crash":
 *   - a refusal says why in exactly one line (sj_err once, no newline
 *     but one the user typed);
 *   - what parses and passes the checks gives settings the programs can
 *     run on: target below interval, both in bounds, the codel units
 *     derived from the nanoseconds, rate mode within its limits, observe
 *     with nothing that signals (no fairness, no sparse steering).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"
#include "vqueue.h"

static int err_calls;
static char err_line[512];

int sj_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err_line, sizeof(err_line), fmt, ap);
	va_end(ap);
	err_calls++;
	return -1;
}

/* a newline in the message may only be one the user typed, echoed */
static void refused(const uint8_t *data, size_t size)
{
	if (err_calls != 1 || !err_line[0] ||
	    (strchr(err_line, '\n') && !memchr(data, '\n', size)))
		abort();
}

#define MAX_ARGS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS];
	struct sj_settings s;
	struct sj_tune t;
	int argc = 0, attach;
	size_t i, start;

	if (size < 1 || size > 1024)
		return 0;
	attach = data[0] & 1;
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	for (i = 0, start = 0; i < size && argc < MAX_ARGS; i++)
		if (buf[i] == '\0') {
			argv[argc++] = buf + start;
			start = i + 1;
			if (start >= size - 1)
				break;
		}

	err_calls = 0;
	err_line[0] = '\0';
	sj_tune_defaults(&t);
	if (!attach) {
		/* change starts from what is attached */
		t.mode = data[0] & 2 ? SJ_MODE_OBSERVE : SJ_MODE_QUEUE;
	}
	if (sj_tune_parse(&t, argc, argv, attach)) {
		refused(data, size);
		goto out;
	}
	if (err_calls)
		abort();	/* complained, then accepted */
	if (sj_tune_check(&t)) {
		refused(data, size);
		goto out;
	}
	if (err_calls)
		abort();
	sj_tune_to_settings(&t, 1514, &s);
	if (s.target_ns < SJ_MIN_TIME_US * 1000ULL ||
	    s.target_ns >= s.interval_ns ||
	    s.interval_ns > SJ_MAX_INTERVAL_US * 1000ULL ||
	    s.ce_threshold_ns > SJ_MAX_INTERVAL_US * 1000ULL)
		abort();
	if (s.codel.target != CODEL_NS(s.target_ns) ||
	    s.codel.interval != CODEL_NS(s.interval_ns) ||
	    s.codel.ecn != (__u32)t.ecn || s.codel.mtu != 1514)
		abort();
	if (s.ce_threshold_ns ? s.codel.ce_threshold != CODEL_NS(s.ce_threshold_ns)
			      : s.codel.ce_threshold != CODEL_DISABLED_THRESHOLD)
		abort();
	if (t.mode == SJ_MODE_RATE &&
	    (s.rate_Bps < SJ_MIN_RATE_BYTES_PER_S || s.rate_Bps > SJ_MAX_RATE_BYTES_PER_S ||
	     s.horizon_ns <= s.target_ns || s.burst_bytes > SJ_MAX_BURST_BYTES ||
	     sj_vq_tx_ns(s.burst_bytes, s.rate_Bps) > s.horizon_ns))
		abort();
	if (t.mode != SJ_MODE_RATE && (s.rate_Bps || s.pace))
		abort();
	/* the wire model: within its bounds, and only in rate mode */
	if (s.wire.overhead < SJ_WIRE_MIN_OVERHEAD ||
	    s.wire.overhead > SJ_WIRE_MAX_OVERHEAD ||
	    s.wire.mpu > SJ_WIRE_MAX_MPU || s.wire.link > SJ_WIRE_PTM ||
	    (t.mode != SJ_MODE_RATE &&
	     (s.wire.overhead || s.wire.mpu || s.wire.link)))
		abort();
	if (t.mode == SJ_MODE_OBSERVE &&
	    (s.fair || s.sparse_mode || s.sparse_priority))
		abort();
out:
	free(buf);
	return 0;
}
