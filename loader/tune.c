// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>
#include "tune.h"
#include "units.h"

void sj_tune_defaults(struct sj_tune *t)
{
	memset(t, 0, sizeof(*t));
	t->target_ns = SJ_DEFAULT_TARGET_US * 1000ULL;
	t->interval_ns = SJ_DEFAULT_INTERVAL_US * 1000ULL;
	t->ecn = SJ_DEFAULT_ECN;
}

void sj_tune_from_settings(struct sj_tune *t, const struct sj_settings *s)
{
	sj_tune_defaults(t);
	t->target_ns = s->target_ns;
	t->interval_ns = s->interval_ns;
	t->ce_threshold_ns = s->ce_threshold_ns;
	t->ecn = s->codel.ecn;
}

static int parse_time_arg(const char *key, const char *val, __u64 *ns)
{
	if (!val)
		return sj_err("%s needs a time (e.g. 5ms)", key);
	if (sj_parse_time(val, ns))
		return sj_err("bad %s \"%s\": expected a time like 5ms, 100us, 1s",
			      key, val);
	return 0;
}

int sj_tune_parse(struct sj_tune *t, int argc, char **argv, bool allow_hook)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *key = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(key, "target")) {
			if (parse_time_arg(key, val, &t->target_ns))
				return -1;
			i++;
		} else if (!strcmp(key, "interval")) {
			if (parse_time_arg(key, val, &t->interval_ns))
				return -1;
			i++;
		} else if (!strcmp(key, "ce_threshold")) {
			if (val && !strcmp(val, "off"))
				t->ce_threshold_ns = 0;
			else if (parse_time_arg(key, val, &t->ce_threshold_ns))
				return -1;
			else if (t->ce_threshold_ns == 0)
				return sj_err("ce_threshold must be above 0 (or \"off\")");
			i++;
		} else if (!strcmp(key, "ecn")) {
			t->ecn = 1;
		} else if (!strcmp(key, "noecn")) {
			t->ecn = 0;
		} else if (!strcmp(key, "hook") && allow_hook) {
			if (val && !strcmp(val, "tcx"))
				t->hook = SJ_HOOK_TCX;
			else if (val && !strcmp(val, "clsact"))
				t->hook = SJ_HOOK_CLSACT;
			else
				return sj_err("hook must be tcx or clsact");
			i++;
		} else {
			return sj_err("unknown option \"%s\"", key);
		}
	}
	return 0;
}

int sj_tune_check(const struct sj_tune *t)
{
	char a[SJ_UNITS_BUFSZ], b[SJ_UNITS_BUFSZ];

	if (t->target_ns < SJ_MIN_TIME_US * 1000ULL)
		return sj_err("target must be at least 1us");
	if (t->interval_ns > SJ_MAX_INTERVAL_US * 1000ULL)
		return sj_err("interval must be at most %s",
			      sj_format_time(SJ_MAX_INTERVAL_US * 1000ULL, a, sizeof(a)));
	if (t->target_ns >= t->interval_ns)
		return sj_err("target (%s) must be below interval (%s)",
			      sj_format_time(t->target_ns, a, sizeof(a)),
			      sj_format_time(t->interval_ns, b, sizeof(b)));
	if (t->ce_threshold_ns > SJ_MAX_INTERVAL_US * 1000ULL)
		return sj_err("ce_threshold must be at most %s",
			      sj_format_time(SJ_MAX_INTERVAL_US * 1000ULL, a, sizeof(a)));
	return 0;
}

void sj_tune_to_settings(const struct sj_tune *t, __u32 mtu,
			 struct sj_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->target_ns = t->target_ns;
	s->interval_ns = t->interval_ns;
	s->ce_threshold_ns = t->ce_threshold_ns;
	s->codel.target = CODEL_NS(t->target_ns);
	s->codel.interval = CODEL_NS(t->interval_ns);
	s->codel.ce_threshold = t->ce_threshold_ns ?
		CODEL_NS(t->ce_threshold_ns) : CODEL_DISABLED_THRESHOLD;
	s->codel.mtu = mtu;
	s->codel.ecn = t->ecn;
}
