// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one table of settings (options.h) and what reads a value through it.
 * tests/cli/dist.sh reads the words and keys out of this file (`.word =
 * "..."`, `.noword = "..."`, `.key = "..."`): keep each option's entry on
 * one line of its own, `[SJ_O_...] = { ... },`.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "options.h"
#include "tune.h"
#include "units.h"
#include "fair.h"
#include "vqueue.h"

#define FIELD(f) .offset = offsetof(struct sj_tune, f), \
		 .size = sizeof(((struct sj_tune *)0)->f)
#define NS(us) ((long long)(us) * 1000)

const char *const sj_linklayer_names[3] = {
	[SJ_WIRE_ETHERNET] = "ethernet", [SJ_WIRE_ATM] = "atm",
	[SJ_WIRE_PTM] = "ptm",
};

/* by enum sj_hook_req; the default has no word */
static const char *const hook_names[] = {
	[SJ_HOOK_REQ_DEFAULT] = "", [SJ_HOOK_REQ_TC] = "tc",
	[SJ_HOOK_REQ_TCX] = "tcx", [SJ_HOOK_REQ_CLSACT] = "clsact",
	[SJ_HOOK_REQ_XDP] = "xdp",
};

/* the words refused together out of their mode, and why */
#define RATE_GROUP .group = "burst, horizon and pace", \
		   .why = "they shape the virtual queue the rate drains"
#define WIRE_GROUP .group = "overhead, mpu and linklayer", \
		   .why = "they price packets against a rate"
#define FAIR_GROUP .group = "fair and quantum", \
		   .why = "rate mode's virtual queue has no fairness yet"
/* the limits of every time setting */
#define TIME_RANGE .min = NS(SJ_MIN_TIME_US), .max = NS(SJ_MAX_INTERVAL_US)

const struct sj_option sj_options[SJ_O_COUNT] = {
	[SJ_O_OBSERVE] = { .word = "observe", .key = "Observe", .type = SJ_T_MODE, FIELD(mode), .modes = SJ_IN_ALL, .help = "observe mode: measure the real queue, never signal (egress)" },
	[SJ_O_RATE] = { .word = "rate", .key = "Rate", .type = SJ_T_RATE, FIELD(rate_Bps), .min = SJ_MIN_RATE_BYTES_PER_S, .max = SJ_MAX_RATE_BYTES_PER_S, .modes = SJ_IN_RATE, .flags = SJ_OPT_SPELLED, .arg = "RATE", .help = "rate mode: a virtual queue drained at RATE (what ingress needs)" },
	[SJ_O_BURST] = { .word = "burst", .key = "Burst", .type = SJ_T_SIZE, FIELD(burst_bytes), .min = 1, .max = SJ_MAX_BURST_BYTES, .modes = SJ_IN_RATE, .flags = SJ_OPT_ZERO_UNSET, RATE_GROUP, .arg = "SIZE", .help = "what may leave at once (default 32kb, less at low rates)" },
	[SJ_O_HORIZON] = { .word = "horizon", .key = "Horizon", .type = SJ_T_TIME, FIELD(horizon_ns), TIME_RANGE, .def = NS(SJ_DEFAULT_HORIZON_US), .modes = SJ_IN_RATE, RATE_GROUP, .arg = "TIME", .help = "the latest a packet may start to leave, beyond it drop; the bulk's ceiling is 8/9 of it (default 225ms)" },
	[SJ_O_PACE] = { .word = "pace", .noword = "nopace", .key = "Pace", .type = SJ_T_FLAG, FIELD(pace), .max = 1, .modes = SJ_IN_RATE, RATE_GROUP, .help = "hold packets to their departure time (egress; default nopace)" },
	[SJ_O_OVERHEAD] = { .word = "overhead", .key = "Overhead", .type = SJ_T_BYTES, FIELD(wire.overhead), .min = SJ_WIRE_MIN_OVERHEAD, .max = SJ_WIRE_MAX_OVERHEAD, .modes = SJ_IN_RATE, WIRE_GROUP, .arg = "BYTES", .help = "bytes the link adds to every packet, maybe negative (default 0)" },
	[SJ_O_MPU] = { .word = "mpu", .key = "MPU", .type = SJ_T_BYTES, FIELD(wire.mpu), .max = SJ_WIRE_MAX_MPU, .modes = SJ_IN_RATE, WIRE_GROUP, .arg = "BYTES", .help = "the smallest packet the link carries (default 0)" },
	[SJ_O_LINKLAYER] = { .word = "linklayer", .key = "LinkLayer", .type = SJ_T_NAME, FIELD(wire.link), .max = SJ_WIRE_PTM, .names = sj_linklayer_names, .modes = SJ_IN_RATE, WIRE_GROUP, .arg = "ethernet|atm|ptm", .help = "the link's framing: atm cells, ptm 64/65 or ethernet (default)" },
	[SJ_O_TARGET] = { .word = "target", .key = "Target", .type = SJ_T_TIME, FIELD(target_ns), TIME_RANGE, .def = NS(SJ_DEFAULT_TARGET_US), .modes = SJ_IN_QUEUE | SJ_IN_RATE, .flags = SJ_OPT_SPELLED, .arg = "TIME", .help = "the standing delay CoDel accepts (default 5ms)" },
	[SJ_O_INTERVAL] = { .word = "interval", .key = "Interval", .type = SJ_T_TIME, FIELD(interval_ns), TIME_RANGE, .def = NS(SJ_DEFAULT_INTERVAL_US), .modes = SJ_IN_QUEUE | SJ_IN_RATE, .flags = SJ_OPT_SPELLED, .arg = "TIME", .help = "how long a delay may stand before a signal (default 100ms)" },
	[SJ_O_CE_THRESHOLD] = { .word = "ce_threshold", .key = "CEThreshold", .type = SJ_T_TIME_OFF, FIELD(ce_threshold_ns), TIME_RANGE, .modes = SJ_IN_QUEUE | SJ_IN_RATE, .flags = SJ_OPT_SPELLED | SJ_OPT_ZERO_UNSET, .arg = "TIME|off", .help = "CE-mark ECN packets whose sojourn is above it (default off; ingress rate mode: the target)" },
	[SJ_O_ECN] = { .word = "ecn", .noword = "noecn", .key = "ECN", .type = SJ_T_FLAG, FIELD(ecn), .max = 1, .def = SJ_DEFAULT_ECN, .modes = SJ_IN_QUEUE | SJ_IN_RATE, .flags = SJ_OPT_SPELLED, .help = "mark ECN-capable packets instead of dropping them (default ecn)" },
	[SJ_O_FAIR] = { .word = "fair", .noword = "nofair", .key = "Fair", .type = SJ_T_FLAG, FIELD(fair), .max = 1, .def = SJ_DEFAULT_FAIR, .modes = SJ_IN_QUEUE, .flags = SJ_OPT_SPELLED, FAIR_GROUP, .help = "signal the flows above their share of the queue (default fair)" },
	[SJ_O_QUANTUM] = { .word = "quantum", .key = "Quantum", .type = SJ_T_SIZE, FIELD(quantum), .min = 64, .max = 65536, .def = SJ_DEFAULT_QUANTUM, .modes = SJ_IN_QUEUE, .flags = SJ_OPT_SPELLED, FAIR_GROUP, .arg = "SIZE", .help = "what a flow may send and still count as sparse (default 1514b)" },
	[SJ_O_SPARSE_CLASS] = { .word = "sparse_class", .key = "SparseClass", .type = SJ_T_SPARSE, FIELD(sparse), .modes = SJ_IN_QUEUE, .flags = SJ_OPT_SPELLED, .why = "rate mode has no queue to go ahead in", .arg = "CLASSID|auto|off", .help = "steer sparse flows: to a class; auto (real-queue mode's default): pfifo_fast band 0 under the root or mq, or a class added beside HTB's default; off" },
	[SJ_O_ACK_ECHO] = { .word = "ackecho", .noword = "noackecho", .key = "AckEcho", .type = SJ_T_FLAG, FIELD(ack_echo), .max = 1, .def = SJ_DEFAULT_ACK_ECHO, .modes = SJ_IN_QUEUE, .flags = SJ_OPT_SPELLED, .why = "rate mode marks a packet as it is admitted, with no queue of ours to ride", .help = "also set ECE on a marked flow's next ACK that passes another sojourn device (default ackecho)" },
	[SJ_O_FLOWS] = { .word = "flows", .key = "Flows", .type = SJ_T_COUNT, FIELD(flows), .min = SJ_FLOWS_MIN, .max = SJ_FLOWS_MAX, .def = SJ_FLOWS_DEFAULT, .modes = SJ_IN_ALL, .arg = "N", .help = "new flows a second this attachment may add to the host's one flow table of 65536 (default 65536)" },
	[SJ_O_HOOK] = { .word = "hook", .key = "Hook", .type = SJ_T_NAME, FIELD(hook), .min = SJ_HOOK_REQ_TC, .max = SJ_HOOK_REQ_XDP, .names = hook_names, .modes = SJ_IN_ALL, .flags = SJ_OPT_ATTACH_ONLY | SJ_OPT_ZERO_UNSET, .arg = "tc|tcx|clsact|xdp", .help = "tcx, clsact, the best of the two (tc), or xdp (ingress only)" },
};

int sj_option_by_word(const char *word, bool *on)
{
	int id;

	for (id = 0; id < SJ_O_COUNT; id++) {
		if (!strcmp(word, sj_options[id].word))
			return *on = true, id;
		if (sj_options[id].noword && !strcmp(word, sj_options[id].noword))
			return *on = false, id;
	}
	return -1;
}

int sj_option_by_key(const char *key)
{
	int id;

	for (id = 0; id < SJ_O_COUNT; id++)
		if (!strcmp(key, sj_options[id].key))
			return id;
	return -1;
}

const char *const sj_dir_key_prefix[2] = {
	[SJ_DIR_EGRESS] = "Egress", [SJ_DIR_INGRESS] = "Ingress",
};

int sj_option_by_key_dir(const char *key, int *dir)
{
	int d;

	*dir = -1;
	for (d = SJ_DIR_EGRESS; d <= SJ_DIR_INGRESS; d++) {
		size_t n = strlen(sj_dir_key_prefix[d]);

		if (!strncmp(key, sj_dir_key_prefix[d], n) && key[n]) {
			int id = sj_option_by_key(key + n);

			if (id >= 0)
				*dir = d;
			return id;
		}
	}
	return sj_option_by_key(key);
}

bool sj_option_applies(int id, enum sj_mode mode)
{
	return sj_options[id].modes & (1u << mode);
}

long long sj_option_get(const struct sj_tune *t, int id)
{
	const struct sj_option *o = &sj_options[id];
	const char *field = (const char *)t + o->offset;
	__u64 u64;
	__u32 u32;
	__s32 s32;

	if (o->type == SJ_T_MODE)
		return t->mode == SJ_MODE_OBSERVE;
	if (o->type == SJ_T_SPARSE)
		return (long long)t->sparse << 32 |
		       (t->sparse == SJ_SPARSE_CLASS ? t->sparse_classid : 0);
	if (o->size == sizeof(u64)) {
		memcpy(&u64, field, sizeof(u64));
		return (long long)u64;
	}
	if (o->min < 0) {
		memcpy(&s32, field, sizeof(s32));
		return s32;
	}
	memcpy(&u32, field, sizeof(u32));
	return u32;
}

void sj_option_set(struct sj_tune *t, int id, long long v)
{
	const struct sj_option *o = &sj_options[id];
	char *field = (char *)t + o->offset;
	__u64 u64 = v;
	__u32 u32 = v;

	if (o->type == SJ_T_MODE)
		return;		/* the mode follows from what was given */
	if (o->type == SJ_T_SPARSE) {
		t->sparse = v >> 32;
		t->sparse_classid = v & 0xffffffff;
		return;
	}
	if (o->size == sizeof(u64))
		memcpy(field, &u64, sizeof(u64));
	else
		memcpy(field, &u32, sizeof(u32));	/* two's complement: s32 too */
}

void sj_given_add(struct sj_given *g, int id)
{
	if (sj_given_has(g, id))
		return;
	g->mask |= 1u << id;
	g->order[g->n++] = id;
}

/* ---- values ---- */

static const char *fmt_value(const struct sj_option *o, long long v,
			     char *buf, size_t len)
{
	switch (o->type) {
	case SJ_T_TIME:
	case SJ_T_TIME_OFF:
		return sj_format_time(v, buf, len);
	case SJ_T_RATE:
		return sj_format_rate((__u64)v * 8, buf, len);
	case SJ_T_SIZE:
		return sj_format_size(v, buf, len);
	default:
		snprintf(buf, len, "%lld", v);
		return buf;
	}
}

/* "ethernet, atm or ptm" */
static void names_list(const struct sj_option *o, char *buf, size_t len)
{
	size_t off = 0;
	long long i;

	buf[0] = '\0';
	for (i = o->min; i <= o->max && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s",
				i == o->min ? "" : i == o->max ? " or " : ", ",
				o->names[i]);
}

/* what the value should be, for "expected ..." */
static void noun(const struct sj_option *o, char *buf, size_t len)
{
	static const char *const fixed[] = {
		[SJ_T_MODE] = "yes or no",
		[SJ_T_FLAG] = "yes or no",
		[SJ_T_TIME] = "a time like 5ms, 100us, 1s",
		[SJ_T_TIME_OFF] = "a time like 5ms, 100us, 1s, or off",
		[SJ_T_RATE] = "a rate like 20mbit, 1gbit, 500kbit",
		[SJ_T_SIZE] = "a size like 32kb, 64k, 1514b",
		[SJ_T_SPARSE] = "a class like 1:20, auto or off",
	};

	if (o->type == SJ_T_COUNT || o->type == SJ_T_BYTES)
		snprintf(buf, len, "a number%s from %lld to %lld",
			 o->type == SJ_T_BYTES ? " of bytes" : "", o->min, o->max);
	else if (o->type == SJ_T_NAME)
		names_list(o, buf, len);
	else
		snprintf(buf, len, "%s", fixed[o->type]);
}

static int bad_value(const struct sj_option *o, const char *s, bool conf,
		     char *msg, size_t len)
{
	static const char *const conf_unit[] = {
		[SJ_T_TIME] = "time (expected e.g. 5ms, 100us, 1s)",
		[SJ_T_TIME_OFF] = "time (expected e.g. 5ms, 100us, 1s, or off)",
		[SJ_T_RATE] = "rate (expected e.g. 100mbit, 1gbit)",
		[SJ_T_SIZE] = "size (expected e.g. 32kb, 1514b)",
	};
	char what[96];

	noun(o, what, sizeof(what));
	if (!conf && !s)
		snprintf(msg, len, "%s needs %s", o->word, what);
	else if (!conf)
		snprintf(msg, len, "bad %s \"%s\": expected %s", o->word, s, what);
	else if (o->type < sizeof(conf_unit) / sizeof(conf_unit[0]) &&
		 conf_unit[o->type]) {
		const char *u = conf_unit[o->type];
		int n = strcspn(u, " ");

		snprintf(msg, len, "bad %.*s \"%s\"%s", n, u, s, u + n);
	} else {
		snprintf(msg, len, "\"%s\" is not %s", s, what);
	}
	return -1;
}

static int out_of_range(const struct sj_option *o, const char *s, bool conf,
			char *msg, size_t len)
{
	char lo[SJ_UNITS_BUFSZ], hi[SJ_UNITS_BUFSZ];
	const char *off = o->type == SJ_T_TIME_OFF ? " (or off)" : "";

	/* a plain number's limits are in its "expected" already */
	if (o->type == SJ_T_COUNT || o->type == SJ_T_BYTES)
		return bad_value(o, s, conf, msg, len);
	fmt_value(o, o->min, lo, sizeof(lo));
	fmt_value(o, o->max, hi, sizeof(hi));
	if (conf)
		snprintf(msg, len, "%s is outside %s..%s%s", s, lo, hi, off);
	else
		snprintf(msg, len, "%s must be between %s and %s%s", o->word, lo, hi, off);
	return -1;
}

int sj_parse_yes_no(const char *v, bool *out)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(v, yes[i]))
			return *out = true, 0;
		if (!strcasecmp(v, no[i]))
			return *out = false, 0;
	}
	return -1;
}

int sj_option_parse(int id, const char *s, bool conf, long long *v,
		    char *msg, size_t len)
{
	const struct sj_option *o = &sj_options[id];
	__u64 u = 0;
	__u32 u32;
	long long i;
	int bad;

	if (o->type == SJ_T_MODE || o->type == SJ_T_FLAG) {
		bool b;

		if (!conf)
			return *v = 1, 0;	/* the word itself says it */
		if (sj_parse_yes_no(s, &b))
			return bad_value(o, s, conf, msg, len);
		return *v = b, 0;
	}
	if (!s)
		return bad_value(o, s, conf, msg, len);
	switch (o->type) {
	case SJ_T_TIME_OFF:
		if (!strcmp(s, "off"))
			return *v = 0, 0;
		/* fall through */
	case SJ_T_TIME:
		bad = sj_parse_time(s, &u);
		break;
	case SJ_T_RATE:
		bad = sj_parse_rate(s, &u);
		u /= 8;
		break;
	case SJ_T_SIZE:
		bad = sj_parse_size(s, &u);
		break;
	case SJ_T_COUNT:
		bad = sj_parse_u32(s, &u32);
		u = u32;
		break;
	case SJ_T_BYTES:
		/* tc's overhead: a sign, then plain digits */
		bad = sj_parse_u32(s + (s[0] == '-'), &u32);
		if (bad)
			break;
		*v = s[0] == '-' ? -(long long)u32 : u32;
		if (*v < o->min || *v > o->max)
			return out_of_range(o, s, conf, msg, len);
		return 0;
	case SJ_T_NAME:
		for (i = o->min; i <= o->max; i++)
			if (!strcmp(s, o->names[i]))
				return *v = i, 0;
		return bad_value(o, s, conf, msg, len);
	case SJ_T_SPARSE:
		if (!strcmp(s, "off"))
			return *v = (long long)SJ_SPARSE_OFF << 32, 0;
		if (!strcmp(s, "auto"))
			return *v = (long long)SJ_SPARSE_AUTO << 32, 0;
		if (sj_parse_classid(s, &u32))
			return bad_value(o, s, conf, msg, len);
		return *v = (long long)SJ_SPARSE_CLASS << 32 | u32, 0;
	default:
		bad = -1;
	}
	if (bad)
		return bad_value(o, s, conf, msg, len);
	if (u > LLONG_MAX || (long long)u < o->min || (long long)u > o->max)
		return out_of_range(o, s, conf, msg, len);
	*v = u;
	return 0;
}

int sj_option_in_range(const struct sj_tune *t, int id, bool conf,
		       char *msg, size_t len)
{
	const struct sj_option *o = &sj_options[id];
	long long v = sj_option_get(t, id);
	char given[SJ_UNITS_BUFSZ];

	if (o->type == SJ_T_MODE || o->type == SJ_T_SPARSE ||
	    (!v && (o->flags & SJ_OPT_ZERO_UNSET)) ||
	    (v >= o->min && v <= o->max))
		return 0;
	fmt_value(o, v, given, sizeof(given));
	return out_of_range(o, given, conf, msg, len);
}

/* tc's spelling when it reads back exactly, else the plain unit */
static int fmt_exact(char *(*fmt)(__u64, char *, size_t),
		     int (*parse)(const char *, __u64 *), const char *unit,
		     __u64 v, char *buf, size_t len)
{
	__u64 back;

	if (!fmt(v, buf, len) || parse(buf, &back) || back != v)
		snprintf(buf, len, "%llu%s", (unsigned long long)v, unit);
	return 0;
}

int sj_option_format(const struct sj_tune *t, int id, char *buf, size_t len)
{
	const struct sj_option *o = &sj_options[id];
	long long v = sj_option_get(t, id);

	switch (o->type) {
	case SJ_T_FLAG:
	case SJ_T_MODE:
		snprintf(buf, len, "%s", v ? o->word : o->noword ? o->noword : "");
		return 0;
	case SJ_T_TIME_OFF:
		if (!v) {
			snprintf(buf, len, "off");
			return 0;
		}
		/* fall through */
	case SJ_T_TIME:
		return fmt_exact(sj_format_time, sj_parse_time, "ns", v, buf, len);
	case SJ_T_RATE:
		return fmt_exact(sj_format_rate, sj_parse_rate, "bit", (__u64)v * 8, buf, len);
	case SJ_T_SIZE:
		if (!v)
			return -1;	/* burst: the default that fits the rate */
		return fmt_exact(sj_format_size, sj_parse_size, "b", v, buf, len);
	case SJ_T_NAME:
		if (v < 0 || v > o->max || !o->names[v][0])
			return -1;	/* hook: the command picks */
		snprintf(buf, len, "%s", o->names[v]);
		return 0;
	case SJ_T_SPARSE:
		if (t->sparse == SJ_SPARSE_CLASS)
			snprintf(buf, len, "%x:%x", t->sparse_classid >> 16,
				 t->sparse_classid & 0xffff);
		else
			snprintf(buf, len, "%s", t->sparse == SJ_SPARSE_AUTO ? "auto" : "off");
		return 0;
	default:
		snprintf(buf, len, "%lld", v);
		return 0;
	}
}

void sj_option_misplaced(const struct sj_tune *t, int id, enum sj_mode mode,
			 bool conf, char *msg, size_t len)
{
	const struct sj_option *o = &sj_options[id];
	const char *typed = o->type == SJ_T_FLAG && !sj_option_get(t, id) ?
			    o->noword : o->word;
	const char *subject = o->group ? o->group : typed;
	const char *are = o->group ? "are" : "is";

	if (mode == SJ_MODE_OBSERVE && conf)
		snprintf(msg, len, "does not apply to Observe=yes, which measures and never signals");
	else if (mode == SJ_MODE_OBSERVE)
		snprintf(msg, len, "%s does not apply to observe: observe measures the real queue and never signals",
			 typed);
	else if (mode == SJ_MODE_QUEUE && conf)
		snprintf(msg, len, "is for rate mode: give Rate=, or leave %s= out", o->key);
	else if (mode == SJ_MODE_QUEUE)
		snprintf(msg, len, "%s %s for rate mode: %s (add rate RATE)",
			 subject, are, o->why);
	else if (conf)
		snprintf(msg, len, "is for real-queue mode: not with Rate=");
	else
		snprintf(msg, len, "%s %s for real-queue mode: %s", subject, are, o->why);
}

/* ---- usage ---- */

#define USAGE_WIDTH	80
#define USAGE_INDENT	"              "	/* main.c's continuation lines */

struct wrap {
	FILE *f;
	int col;
};

static void put(struct wrap *w, const char *tok)
{
	int n = strlen(tok);

	if (w->col + 1 + n > USAGE_WIDTH) {
		fprintf(w->f, "\n%s%s", USAGE_INDENT, tok);
		w->col = strlen(USAGE_INDENT) + n;
	} else {
		fprintf(w->f, " %s", tok);
		w->col += 1 + n;
	}
}

/* "[word ARG]" or "[word|noword]", opening or closing rate's bracket */
static void option_token(const struct sj_option *o, const char *open,
			 const char *close, char *buf, size_t len)
{
	if (o->type == SJ_T_FLAG)
		snprintf(buf, len, "%s%s|%s%s", open, o->word, o->noword, close);
	else if (o->type == SJ_T_MODE)
		snprintf(buf, len, "%s%s%s", open, o->word, close);
	else
		snprintf(buf, len, "%s%s %s%s", open, o->word, o->arg, close);
}

static bool in_usage(int id, bool attach, enum sj_mode mode)
{
	const struct sj_option *o = &sj_options[id];

	return sj_option_applies(id, mode) && o->type != SJ_T_MODE &&
	       (attach || !(o->flags & SJ_OPT_ATTACH_ONLY));
}

/* one form of the verb: the options of the modes in `modes` */
static void usage_form(FILE *f, const char *verb, const char *head,
		       bool attach, unsigned int modes)
{
	struct wrap w = { .f = f };
	char tok[64];
	int id;

	w.col = (int)strlen("       sojourn ") +
		fprintf(f, "%s DEV %s", verb, head);
	for (id = 0; id < SJ_O_COUNT; id++) {
		const struct sj_option *o = &sj_options[id];
		bool open, close, listed = false;
		enum sj_mode m;

		for (m = SJ_MODE_QUEUE; m <= SJ_MODE_OBSERVE; m++)
			if ((modes & (1u << m)) && in_usage(id, attach, m))
				listed = true;
		if (!listed)
			continue;
		/* what only rate mode takes stands inside rate's brackets */
		open = id == SJ_O_RATE;
		close = o->modes == SJ_IN_RATE &&
			(id + 1 == SJ_O_COUNT || sj_options[id + 1].modes != SJ_IN_RATE);
		option_token(o, "[", open ? "" : close && id != SJ_O_RATE ? "]]" : "]",
			     tok, sizeof(tok));
		put(&w, tok);
	}
	put(&w, "[-n NETNS]");
	fputc('\n', f);
}

void sj_options_usage(FILE *f, const char *verb)
{
	bool attach = strcmp(verb, "change") != 0;

	usage_form(f, verb, "[egress|ingress]", attach, SJ_IN_QUEUE | SJ_IN_RATE);
	if (!attach)
		return;
	fprintf(f, "       sojourn ");
	usage_form(f, verb, "[egress] observe", attach, SJ_IN_OBSERVE);
	if (!strcmp(verb, "replace"))
		fprintf(f, "%s(ends up as attach would make it: in place where the mode,\n"
			"%shook and flows allow, else detached and attached again)\n",
			USAGE_INDENT, USAGE_INDENT);
}

void sj_options_help(FILE *f, const char *verb)
{
	bool attach = strcmp(verb, "change") != 0;
	char tok[64];
	int id;

	for (id = 0; id < SJ_O_COUNT; id++) {
		const struct sj_option *o = &sj_options[id];
		const char *modes = o->modes == SJ_IN_RATE ? "rate mode" :
				    o->modes == SJ_IN_QUEUE ? "real-queue mode" :
				    o->modes == (SJ_IN_QUEUE | SJ_IN_RATE) ?
				    "real-queue and rate mode" : "";

		if (!attach && (o->flags & SJ_OPT_ATTACH_ONLY))
			continue;
		option_token(o, "", "", tok, sizeof(tok));
		if (*modes)
			fprintf(f, "  %-34s %s\n", tok, modes);
		else
			fprintf(f, "  %s\n", tok);
		fprintf(f, "      %s%s\n", o->help,
			o->type == SJ_T_MODE && !attach ? " (chosen at attach)" : "");
	}
}
