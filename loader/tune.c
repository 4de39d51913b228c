// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "tune.h"
#include "units.h"
#include "vqueue.h"
#include "fair.h"

void sj_tune_defaults(struct sj_tune *t)
{
	int id;

	memset(t, 0, sizeof(*t));
	for (id = 0; id < SJ_O_COUNT; id++)
		sj_option_set(t, id, sj_options[id].def);
}

void sj_tune_from_settings(struct sj_tune *t, const struct sj_settings *s,
			   const struct sj_meta *meta)
{
	sj_tune_defaults(t);
	t->target_ns = s->target_ns;
	t->interval_ns = s->interval_ns;
	t->ce_threshold_ns = s->ce_threshold_ns;
	t->ecn = s->codel.ecn;
	t->dir = meta->direction;
	t->mode = meta->mode;
	t->fair = s->fair;
	t->ack_echo = s->ack_echo;
	t->quantum = s->quantum;
	t->sparse = s->sparse_mode;
	t->sparse_classid = s->sparse_mode == SJ_SPARSE_CLASS ? s->sparse_priority : 0;
	if (s->flows_cap)
		t->flows = s->flows_cap;
	if (t->mode == SJ_MODE_RATE) {
		t->rate_Bps = s->rate_Bps;
		t->burst_bytes = s->burst_bytes;
		t->horizon_ns = s->horizon_ns;
		t->pace = s->pace;
		t->wire = s->wire;
	}
}

const char *sj_wire_link_name(__u32 link)
{
	return link < sizeof(sj_linklayer_names) / sizeof(sj_linklayer_names[0]) ?
	       sj_linklayer_names[link] : NULL;
}

int sj_parse_classid(const char *val, __u32 *classid)
{
	unsigned int maj, min;
	char end;

	if (!val || sscanf(val, "%x:%x%c", &maj, &min, &end) != 2 ||
	    maj > 0xffff || min > 0xffff || !maj || !min)
		return -1;
	*classid = maj << 16 | min;
	return 0;
}

static int not_for_observe(const char *key)
{
	return sj_err("%s does not apply to observe: observe measures the real queue and never signals",
		      key);
}

void sj_tune_pick_mode(struct sj_tune *t)
{
	if (sj_given_has(&t->given, SJ_O_OBSERVE))
		t->mode = SJ_MODE_OBSERVE;
	else if (sj_given_has(&t->given, SJ_O_RATE))
		t->mode = SJ_MODE_RATE;
	else
		t->mode = SJ_MODE_QUEUE;
	/*
	 * Ingress rate mode marks from the target on unless told otherwise.
	 * Its virtual queue delays nothing, so a download's RTT never grows
	 * and slow start doubles until the horizon drops the excess: CoDel's
	 * first signal comes an interval after the target is passed, too
	 * late.  Measured at 10-100 ms base RTT (rate_start_rtt): 280-780
	 * retransmitted segments in the first second with CoDel alone, none
	 * with ce_threshold at the target, goodput alike (8-15.7 Mbit/s of
	 * 20 against 7-16).
	 */
	if (t->mode == SJ_MODE_RATE && t->dir == SJ_DIR_INGRESS &&
	    !sj_given_has(&t->given, SJ_O_CE_THRESHOLD))
		t->ce_threshold_ns = t->target_ns;
	/*
	 * Real-queue mode sends sparse flows ahead wherever the device has a
	 * path for them (pfifo_fast's band 0, at the root or under mq; a
	 * class beside HTB's default one): a probe or a DNS query otherwise
	 * waits behind the bulk, CoDel's target or more (the VM
	 * bench measured the probe's p99 rise at 4.0x fq_codel's without,
	 * 1.27x with).  The other modes have no queue to go ahead in, and
	 * `off` is their table default.
	 */
	if (t->mode == SJ_MODE_QUEUE && !sj_given_has(&t->given, SJ_O_SPARSE_CLASS))
		t->sparse = SJ_SPARSE_AUTO;
}

int sj_tune_parse(struct sj_tune *t, int argc, char **argv, bool attach)
{
	char msg[256];
	int i;

	for (i = 0; i < argc; i++) {
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		const struct sj_option *o;
		long long v;
		bool on;
		int id = sj_option_by_word(argv[i], &on);

		if (id < 0 || (!attach && (sj_options[id].flags & SJ_OPT_ATTACH_ONLY)))
			return sj_err("unknown option \"%s\"", argv[i]);
		o = &sj_options[id];
		/* change keeps the mode it finds */
		if (!attach && id == SJ_O_OBSERVE && t->mode != SJ_MODE_OBSERVE)
			return sj_err("observe is chosen at attach: detach, then attach with observe");
		if (!attach && id == SJ_O_RATE && t->mode == SJ_MODE_OBSERVE)
			return not_for_observe(argv[i]);
		if (!attach && id == SJ_O_RATE && t->mode != SJ_MODE_RATE)
			return sj_err("rate mode is chosen at attach: detach, then attach with a rate");
		if (o->type == SJ_T_MODE || o->type == SJ_T_FLAG) {
			v = on;
		} else {
			if (sj_option_parse(id, val, false, &v, msg, sizeof(msg)))
				return sj_err("%s", msg);
			i++;
		}
		sj_option_set(t, id, v);
		sj_given_add(&t->given, id);
	}
	if (attach)
		sj_tune_pick_mode(t);
	return 0;
}

/* The default burst, cut down at low rates to a quarter of the bulk's
 * ceiling: 32 KB take 262 ms at 1 Mbit, more than the whole default horizon. */
static __u64 burst_of(const struct sj_tune *t)
{
	__u64 quarter = sj_vq_bulk_ceiling(t->horizon_ns) / 4000 * t->rate_Bps / 1000000;

	if (t->burst_bytes)
		return t->burst_bytes;
	return quarter < SJ_DEFAULT_BURST_BYTES ? quarter : SJ_DEFAULT_BURST_BYTES;
}

/* msg, blaming a and b, for `return problem(...)` */
static int problem(char *msg, size_t len, int blame[2], int a, int b,
		   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int problem(char *msg, size_t len, int blame[2], int a, int b,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	blame[0] = a;
	blame[1] = b;
	return -1;
}

int sj_tune_problem(const struct sj_tune *t, bool conf, char *msg, size_t len,
		    int blame[2])
{
	char a[SJ_UNITS_BUFSZ], b[SJ_UNITS_BUFSZ], c[SJ_UNITS_BUFSZ];
	const char *add_rate = conf ? "give Rate=" : "add rate RATE";
	int i;

	blame[0] = blame[1] = SJ_O_NONE;
	/* the first option given that the mode has no use for */
	for (i = 0; i < t->given.n; i++) {
		int id = t->given.order[i];

		if (sj_given_has(&t->given, id) && !sj_option_applies(id, t->mode)) {
			sj_option_misplaced(t, id, t->mode, conf, msg, len);
			blame[0] = id;
			return -1;
		}
	}
	/* every value within the table's limits, whatever set it */
	for (i = 0; i < SJ_O_COUNT; i++)
		if (sj_option_applies(i, t->mode) &&
		    sj_option_in_range(t, i, conf, msg, len)) {
			blame[0] = i;
			return -1;
		}
	if (t->target_ns >= t->interval_ns)
		return problem(msg, len, blame, SJ_O_TARGET, SJ_O_INTERVAL,
			       "target (%s) must be below interval (%s)",
			       sj_format_time(t->target_ns, a, sizeof(a)),
			       sj_format_time(t->interval_ns, b, sizeof(b)));
	if (t->dir == SJ_DIR_INGRESS && t->mode == SJ_MODE_OBSERVE)
		return problem(msg, len, blame, SJ_O_OBSERVE, SJ_O_DIR,
			       "observe is for egress only: arriving packets pass no queue of ours to measure");
	if (t->dir == SJ_DIR_INGRESS && t->mode != SJ_MODE_RATE)
		return problem(msg, len, blame, SJ_O_DIR, SJ_O_NONE,
			       "ingress needs rate mode: the packets have no queue of ours to measure (%s)",
			       add_rate);
	if (t->hook == SJ_HOOK_REQ_XDP && t->dir != SJ_DIR_INGRESS)
		return problem(msg, len, blame, SJ_O_HOOK, SJ_O_DIR, "%s",
			       conf ? "xdp is an ingress hook: needs Direction=ingress" :
				      "hook xdp is for ingress only");
	if (t->mode != SJ_MODE_RATE)
		return 0;
	if (t->sparse != SJ_SPARSE_OFF)
		return problem(msg, len, blame, SJ_O_SPARSE_CLASS, SJ_O_NONE,
			       "sparse_class is for real-queue mode: rate mode has no queue to go ahead in");
	if (sj_vq_bulk_ceiling(t->horizon_ns) <= t->target_ns)
		return problem(msg, len, blame, SJ_O_HORIZON, SJ_O_TARGET,
			       "horizon must be above target (%s) by an eighth: the bulk's ceiling is 8/9 of it",
			       sj_format_time(t->target_ns, a, sizeof(a)));
	/* within its limit (above), the burst's time to leave fits in 64 bits */
	if (sj_vq_tx_ns(burst_of(t), t->rate_Bps) > t->horizon_ns)
		return problem(msg, len, blame, SJ_O_BURST, SJ_O_HORIZON,
			       "burst %s takes %s to leave at this rate, longer than the horizon (%s)",
			       sj_format_size(burst_of(t), a, sizeof(a)),
			       sj_format_time(sj_vq_tx_ns(burst_of(t), t->rate_Bps), b, sizeof(b)),
			       sj_format_time(t->horizon_ns, c, sizeof(c)));
	if (t->pace && t->dir != SJ_DIR_EGRESS)
		return problem(msg, len, blame, SJ_O_PACE, SJ_O_DIR,
			       "pace is for egress only: nothing below ingress honours a departure time");
	return 0;
}

int sj_tune_check(const struct sj_tune *t)
{
	int blame[2];
	char msg[256];

	if (sj_tune_problem(t, false, msg, sizeof(msg), blame))
		return sj_err("%s", msg);
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
	/* observe signals nothing: no fairness to steer by */
	s->fair = t->mode == SJ_MODE_OBSERVE ? 0 : t->fair;
	s->quantum = t->quantum;
	/* observe marks nothing to echo */
	s->ack_echo = t->mode == SJ_MODE_QUEUE && t->ack_echo;
	s->flows_cap = t->flows;
	s->sparse_mode = t->mode == SJ_MODE_OBSERVE ? SJ_SPARSE_OFF : t->sparse;
	if (t->sparse == SJ_SPARSE_CLASS)
		s->sparse_priority = t->sparse_classid;
	if (t->mode == SJ_MODE_RATE) {
		s->rate_Bps = t->rate_Bps;
		s->burst_bytes = burst_of(t);
		s->horizon_ns = t->horizon_ns;
		s->pace = t->pace;
		s->wire = t->wire;
	}
}

int sj_dir_arg(int argc, char **argv, enum sj_dir *dir)
{
	*dir = SJ_DIR_EGRESS;
	if (argc > 0 && !strcmp(argv[0], "ingress")) {
		*dir = SJ_DIR_INGRESS;
		return 1;
	}
	if (argc > 0 && !strcmp(argv[0], "egress"))
		return 1;
	return 0;
}

