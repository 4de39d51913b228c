// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>
#include "tune.h"
#include "units.h"
#include "vqueue.h"
#include "fair.h"

void sj_tune_defaults(struct sj_tune *t)
{
	memset(t, 0, sizeof(*t));
	t->target_ns = SJ_DEFAULT_TARGET_US * 1000ULL;
	t->interval_ns = SJ_DEFAULT_INTERVAL_US * 1000ULL;
	t->ecn = SJ_DEFAULT_ECN;
	t->fair = SJ_DEFAULT_FAIR;
	t->quantum = SJ_DEFAULT_QUANTUM;
	t->flows = SJ_FLOWS_DEFAULT;
	t->horizon_ns = SJ_DEFAULT_HORIZON_US * 1000ULL;
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
	t->quantum = s->quantum;
	t->sparse = s->sparse_mode;
	t->sparse_classid = s->sparse_mode == SJ_SPARSE_CLASS ? s->sparse_priority : 0;
	if (t->mode == SJ_MODE_RATE) {
		t->rate_Bps = s->rate_Bps;
		t->burst_bytes = s->burst_bytes;
		t->horizon_ns = s->horizon_ns;
		t->pace = s->pace;
		t->wire = s->wire;
	}
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

static int parse_rate_arg(const char *val, __u64 *Bps)
{
	__u64 bps;

	if (!val)
		return sj_err("rate needs a rate (e.g. 20mbit)");
	if (sj_parse_rate(val, &bps))
		return sj_err("bad rate \"%s\": expected a rate like 20mbit, 1gbit, 500kbit",
			      val);
	*Bps = bps / 8;
	return 0;
}

static const char *const wire_links[] = {
	[SJ_WIRE_ETHERNET] = "ethernet", [SJ_WIRE_ATM] = "atm",
	[SJ_WIRE_PTM] = "ptm",
};

const char *sj_wire_link_name(__u32 link)
{
	return link < sizeof(wire_links) / sizeof(wire_links[0]) ?
	       wire_links[link] : NULL;
}

int sj_wire_link_parse(const char *s, __u32 *link)
{
	__u32 i;

	for (i = 0; s && i < sizeof(wire_links) / sizeof(wire_links[0]); i++)
		if (!strcmp(s, wire_links[i])) {
			*link = i;
			return 0;
		}
	return -1;
}

int sj_wire_overhead_parse(const char *s, __s32 *overhead)
{
	__u32 mag;

	if (!s || sj_parse_u32(s + (s[0] == '-'), &mag) ||
	    (s[0] == '-' ? -(__s64)mag < SJ_WIRE_MIN_OVERHEAD :
			   mag > SJ_WIRE_MAX_OVERHEAD))
		return -1;
	*overhead = s[0] == '-' ? -(__s32)mag : (__s32)mag;
	return 0;
}

static int parse_overhead_arg(const char *val, __s32 *overhead)
{
	if (sj_wire_overhead_parse(val, overhead))
		return sj_err("bad overhead \"%s\": expected bytes from %d to %d",
			      val ? val : "", SJ_WIRE_MIN_OVERHEAD,
			      SJ_WIRE_MAX_OVERHEAD);
	return 0;
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

static int parse_hook_arg(const char *val, enum sj_hook_req *hook)
{
	static const struct {
		const char *name;
		enum sj_hook_req req;
	} hooks[] = {
		{ "tc", SJ_HOOK_REQ_TC }, { "tcx", SJ_HOOK_REQ_TCX },
		{ "clsact", SJ_HOOK_REQ_CLSACT }, { "xdp", SJ_HOOK_REQ_XDP },
	};
	size_t i;

	for (i = 0; val && i < sizeof(hooks) / sizeof(hooks[0]); i++)
		if (!strcmp(val, hooks[i].name)) {
			*hook = hooks[i].req;
			return 0;
		}
	return sj_err("hook must be tc, tcx, clsact or xdp");
}

/* The words that tune the control law or the virtual queue: observe has
 * neither, so they do not apply to it. */
static bool signal_word(const char *key)
{
	static const char *const words[] = {
		"target", "interval", "ce_threshold", "ecn", "noecn", "rate",
		"burst", "horizon", "pace", "nopace", "fair", "nofair",
		"quantum", "sparse_class", "overhead", "mpu", "linklayer",
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(key, words[i]))
			return true;
	return false;
}

static int not_for_observe(const char *key)
{
	return sj_err("%s does not apply to observe: observe measures the real queue and never signals",
		      key);
}

int sj_tune_parse(struct sj_tune *t, int argc, char **argv, bool attach)
{
	const char *signalling = NULL;	/* first word observe cannot take */
	int i;

	for (i = 0; i < argc; i++) {
		const char *key = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (signal_word(key)) {
			if (t->mode == SJ_MODE_OBSERVE)
				return not_for_observe(key);
			if (!signalling)
				signalling = key;
		}
		if (!strcmp(key, "observe")) {
			if (!attach && t->mode != SJ_MODE_OBSERVE)
				return sj_err("observe is chosen at attach: detach, then attach with observe");
			if (signalling)
				return not_for_observe(signalling);
			t->mode = SJ_MODE_OBSERVE;
		} else if (!strcmp(key, "target")) {
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
		} else if (!strcmp(key, "rate")) {
			if (!attach && t->mode != SJ_MODE_RATE)
				return sj_err("rate mode is chosen at attach: detach, then attach with a rate");
			if (parse_rate_arg(val, &t->rate_Bps))
				return -1;
			t->mode = SJ_MODE_RATE;
			i++;
		} else if (!strcmp(key, "burst")) {
			if (!val || sj_parse_size(val, &t->burst_bytes) ||
			    !t->burst_bytes)
				return sj_err("bad burst \"%s\": expected a size like 32kb, 64k, 1514b",
					      val ? val : "");
			i++;
		} else if (!strcmp(key, "horizon")) {
			if (parse_time_arg(key, val, &t->horizon_ns))
				return -1;
			i++;
		} else if (!strcmp(key, "overhead")) {
			if (parse_overhead_arg(val, &t->wire.overhead))
				return -1;
			t->wire_given = true;
			i++;
		} else if (!strcmp(key, "mpu")) {
			if (!val || sj_parse_u32(val, &t->wire.mpu) ||
			    t->wire.mpu > SJ_WIRE_MAX_MPU)
				return sj_err("bad mpu \"%s\": expected bytes from 0 to %d",
					      val ? val : "", SJ_WIRE_MAX_MPU);
			t->wire_given = true;
			i++;
		} else if (!strcmp(key, "linklayer")) {
			if (sj_wire_link_parse(val, &t->wire.link))
				return sj_err("bad linklayer \"%s\": expected ethernet, atm or ptm",
					      val ? val : "");
			t->wire_given = true;
			i++;
		} else if (!strcmp(key, "pace")) {
			t->pace = 1;
		} else if (!strcmp(key, "nopace")) {
			t->pace = 0;
		} else if (!strcmp(key, "fair")) {
			t->fair = 1;
		} else if (!strcmp(key, "nofair")) {
			t->fair = 0;
		} else if (!strcmp(key, "quantum")) {
			__u64 q;

			if (!val || sj_parse_size(val, &q) || q < 64 || q > 65536)
				return sj_err("bad quantum \"%s\": expected a size from 64b to 64kb",
					      val ? val : "");
			t->quantum = q;
			i++;
		} else if (!strcmp(key, "sparse_class")) {
			if (val && !strcmp(val, "off")) {
				t->sparse = SJ_SPARSE_OFF;
			} else if (val && !strcmp(val, "auto")) {
				t->sparse = SJ_SPARSE_AUTO;
			} else if (sj_parse_classid(val, &t->sparse_classid) == 0) {
				t->sparse = SJ_SPARSE_CLASS;
			} else {
				return sj_err("bad sparse_class \"%s\": expected a class like 1:20, auto or off",
					      val ? val : "");
			}
			i++;
		} else if (!strcmp(key, "flows") && attach) {
			if (!val || sj_parse_u32(val, &t->flows) ||
			    t->flows < SJ_FLOWS_MIN || t->flows > SJ_FLOWS_MAX)
				return sj_err("bad flows \"%s\": expected a number from %u to %u",
					      val ? val : "", SJ_FLOWS_MIN, SJ_FLOWS_MAX);
			i++;
		} else if (!strcmp(key, "hook") && attach) {
			if (parse_hook_arg(val, &t->hook))
				return -1;
			i++;
		} else {
			return sj_err("unknown option \"%s\"", key);
		}
	}
	return 0;
}

/* The default burst, cut down at low rates to a quarter of the horizon:
 * 32 KB take 262 ms at 1 Mbit, more than the whole default horizon. */
static __u64 burst_of(const struct sj_tune *t)
{
	__u64 quarter = t->horizon_ns / 4000 * t->rate_Bps / 1000000;

	if (t->burst_bytes)
		return t->burst_bytes;
	return quarter < SJ_DEFAULT_BURST_BYTES ? quarter : SJ_DEFAULT_BURST_BYTES;
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
	if (t->dir == SJ_DIR_INGRESS && t->mode == SJ_MODE_OBSERVE)
		return sj_err("observe is for egress: arriving packets pass no queue of ours to measure");
	if (t->dir == SJ_DIR_INGRESS && t->mode != SJ_MODE_RATE)
		return sj_err("ingress needs rate mode: the packets have no queue of ours to measure (add rate RATE)");
	if (t->wire_given && t->mode != SJ_MODE_RATE)
		return sj_err("overhead, mpu and linklayer are for rate mode: they price packets against a rate (add rate RATE)");
	if (t->hook == SJ_HOOK_REQ_XDP && t->dir != SJ_DIR_INGRESS)
		return sj_err("hook xdp is for ingress only");
	if (t->mode != SJ_MODE_RATE)
		return 0;
	if (t->sparse != SJ_SPARSE_OFF)
		return sj_err("sparse_class is for real-queue mode: rate mode has no queue to go ahead in");
	if (t->rate_Bps * 8 < SJ_MIN_RATE_BPS * 8 || t->rate_Bps > SJ_MAX_RATE_BPS)
		return sj_err("rate must be between %s and %s",
			      sj_format_rate(SJ_MIN_RATE_BPS * 8, a, sizeof(a)),
			      sj_format_rate(SJ_MAX_RATE_BPS * 8, b, sizeof(b)));
	if (t->horizon_ns <= t->target_ns || t->horizon_ns > SJ_MAX_INTERVAL_US * 1000ULL)
		return sj_err("horizon must be above target (%s) and at most %s",
			      sj_format_time(t->target_ns, a, sizeof(a)),
			      sj_format_time(SJ_MAX_INTERVAL_US * 1000ULL, b, sizeof(b)));
	if (burst_of(t) > SJ_MAX_BURST_BYTES ||
	    sj_vq_tx_ns(burst_of(t), t->rate_Bps) > t->horizon_ns)
		return sj_err("burst %s takes %s to leave at this rate, longer than the horizon (%s)",
			      sj_format_size(burst_of(t), a, sizeof(a)),
			      sj_format_time(burst_of(t) > SJ_MAX_BURST_BYTES ? ~0ULL :
					     sj_vq_tx_ns(burst_of(t), t->rate_Bps), b, sizeof(b)),
			      sj_format_time(t->horizon_ns, (char[SJ_UNITS_BUFSZ]){0}, SJ_UNITS_BUFSZ));
	if (t->pace && t->dir != SJ_DIR_EGRESS)
		return sj_err("pace is for egress only: nothing below ingress honours a departure time");
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

__u32 sj_sparse_auto_priority(const char *root_kind)
{
	return !strcmp(root_kind, "pfifo_fast") ? SJ_PRIO_INTERACTIVE : 0;
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

const char *sj_dir_name(enum sj_dir dir)
{
	return dir == SJ_DIR_INGRESS ? "ingress" : "egress";
}
