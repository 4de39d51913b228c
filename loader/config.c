// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sojourn.conf: libinih does the INI syntax; here each key is checked as it
 * comes.  inih's handler learns neither the line nor where a section starts
 * (Debian builds it without INI_HANDLER_LINENO and without a call per new
 * section), so our line reader counts both: two [Rule] sections in a row
 * stay two rules, and every error names its line.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ini.h>
#include "config.h"
#include "fair.h"
#include "tune.h"
#include "units.h"

struct parse {
	FILE *f;
	const char *path;
	int line;
	int sections;		/* section headers read so far */
	int section_line;	/* where the last one stands */
	int rule_at;		/* value of `sections` when the last rule began */
	struct sj_config *cfg;
	int err_line;		/* first error, 0 if none */
	char err[256];
	/* where each time was given, for the checks across keys */
	int target_line, interval_line, dir_line, hook_line;
	/* Observe=yes takes no key of the law or of rate mode: the first
	 * such key of the rule and its line (0: none), and Observe='s line */
	const char *signal_key;
	int signal_line, observe_line;
};

/* fgets for inih, counting lines and section headers as inih will see them */
static char *read_line(char *str, int num, void *stream)
{
	struct parse *p = stream;
	char *line = NULL, *s;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, p->f);

	if (n < 0) {
		free(line);
		return NULL;
	}
	p->line++;
	if (n >= num && !p->err_line) {
		p->err_line = p->line;
		snprintf(p->err, sizeof(p->err), "line longer than %d characters",
			 num - 2);
	}
	snprintf(str, num, "%s", line);
	free(line);
	for (s = str; isspace((unsigned char)*s); s++)
		;
	if (*s == '[') {
		p->sections++;
		p->section_line = p->line;
	}
	return str;
}

static int fail(struct parse *p, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct parse *p, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (p->err_line)
		return 0;	/* the first error is the one we report */
	p->err_line = p->line;
	if (key)
		n = snprintf(p->err, sizeof(p->err), "%s: ", key);
	va_start(ap, fmt);
	vsnprintf(p->err + n, sizeof(p->err) - n, fmt, ap);
	va_end(ap);
	return 0;
}

static int parse_bool(const char *v, bool *out)
{
	static const char *yes[] = { "1", "yes", "true", "on" };
	static const char *no[] = { "0", "no", "false", "off" };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (!strcasecmp(v, yes[i]))
			return *out = true, 0;
		if (!strcasecmp(v, no[i]))
			return *out = false, 0;
	}
	return -1;
}

static int time_key(struct parse *p, const char *key, const char *v,
		    __u64 *ns, __u64 max_ns)
{
	char a[SJ_UNITS_BUFSZ];

	if (sj_parse_time(v, ns))
		return fail(p, key, "bad time \"%s\" (expected e.g. 5ms, 100us, 1s)", v);
	if (*ns < SJ_MIN_TIME_US * 1000ULL)
		return fail(p, key, "must be at least 1us");
	if (*ns > max_ns)
		return fail(p, key, "must be at most %s",
			    sj_format_time(max_ns, a, sizeof(a)));
	return 1;
}

static int name_globs(struct parse *p, struct sj_rule *r, const char *key,
		      const char *v)
{
	char copy[256], *tok, *save;

	snprintf(copy, sizeof(copy), "%s", v);
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (r->nglobs == SJ_CONF_MAX_GLOBS)
			return fail(p, key, "more than %d names", SJ_CONF_MAX_GLOBS);
		if (strlen(tok) >= sizeof(r->globs[0]) || strchr(tok, '/'))
			return fail(p, key, "bad interface name or glob \"%s\"", tok);
		snprintf(r->globs[r->nglobs++], sizeof(r->globs[0]), "%s", tok);
	}
	return 1;
}

/* the keys that tune the law or rate mode: none applies to Observe=yes */
static const char *const signal_keys[] = {
	"Rate", "Burst", "Horizon", "Pace", "Target", "Interval", "CEThreshold",
	"ECN", "Fair", "Quantum", "SparseClass",
};

static int rule_key(struct parse *p, struct sj_rule *r, const char *k,
		    const char *v)
{
	size_t i;
	__u64 u;

	for (i = 0; i < sizeof(signal_keys) / sizeof(signal_keys[0]); i++)
		if (!strcmp(k, signal_keys[i]) && !p->signal_line) {
			p->signal_key = signal_keys[i];
			p->signal_line = p->line;
		}
	if (!strcmp(k, "Observe")) {
		bool b;

		if (parse_bool(v, &b))
			return fail(p, k, "\"%s\" is not yes or no", v);
		r->observe = b;
		p->observe_line = p->line;
		return 1;
	}
	if (!strcmp(k, "Name"))
		return name_globs(p, r, k, v);
	if (!strcmp(k, "Kind")) {
		const char *s = v;

		for (; *s; s++)
			if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
			    *s != '_' && *s != '-')
				break;
		if (!*v || *s || strlen(v) >= sizeof(r->kind))
			return fail(p, k, "bad kind \"%s\" (veth, physical, or a link kind such as vlan)", v);
		snprintf(r->kind, sizeof(r->kind), "%s", v);
		return 1;
	}
	if (!strcmp(k, "Netns")) {
		if (strlen(v) >= sizeof(r->netns) || strchr(v, '/'))
			return fail(p, k, "bad namespace name \"%s\"", v);
		snprintf(r->netns, sizeof(r->netns), "%s", v);
		return 1;
	}
	if (!strcmp(k, "Direction")) {
		p->dir_line = p->line;
		if (!strcmp(v, "egress"))
			r->dirs = SJ_RULE_EGRESS;
		else if (!strcmp(v, "ingress"))
			r->dirs = SJ_RULE_INGRESS;
		else if (!strcmp(v, "both"))
			r->dirs = SJ_RULE_EGRESS | SJ_RULE_INGRESS;
		else
			return fail(p, k, "\"%s\" is not egress, ingress or both", v);
		return 1;
	}
	if (!strcmp(k, "Rate")) {
		if (sj_parse_rate(v, &u))
			return fail(p, k, "bad rate \"%s\" (expected e.g. 100mbit, 1gbit)", v);
		if (u / 8 < SJ_MIN_RATE_BPS || u / 8 > SJ_MAX_RATE_BPS)
			return fail(p, k, "%s is outside 8kbit..400gbit", v);
		r->rate_bits = u;
		return 1;
	}
	if (!strcmp(k, "Burst")) {
		if (sj_parse_size(v, &u) || !u)
			return fail(p, k, "bad size \"%s\" (expected e.g. 32kb, 1514b)", v);
		r->burst_bytes = u;
		return 1;
	}
	if (!strcmp(k, "Overhead")) {
		if (sj_wire_overhead_parse(v, &r->wire.overhead))
			return fail(p, k, "\"%s\" is not a number of bytes from %d to %d",
				    v, SJ_WIRE_MIN_OVERHEAD, SJ_WIRE_MAX_OVERHEAD);
		r->wire_given = true;
		return 1;
	}
	if (!strcmp(k, "MPU")) {
		if (sj_parse_u32(v, &r->wire.mpu) || r->wire.mpu > SJ_WIRE_MAX_MPU)
			return fail(p, k, "\"%s\" is not a number of bytes from 0 to %d",
				    v, SJ_WIRE_MAX_MPU);
		r->wire_given = true;
		return 1;
	}
	if (!strcmp(k, "LinkLayer")) {
		if (sj_wire_link_parse(v, &r->wire.link))
			return fail(p, k, "\"%s\" is not ethernet, atm or ptm", v);
		r->wire_given = true;
		return 1;
	}
	if (!strcmp(k, "Horizon"))
		return time_key(p, k, v, &r->horizon_ns, SJ_MAX_TIME_US * 1000ULL);
	if (!strcmp(k, "Target")) {
		p->target_line = p->line;
		return time_key(p, k, v, &r->target_ns, SJ_MAX_INTERVAL_US * 1000ULL);
	}
	if (!strcmp(k, "Interval")) {
		p->interval_line = p->line;
		return time_key(p, k, v, &r->interval_ns, SJ_MAX_INTERVAL_US * 1000ULL);
	}
	if (!strcmp(k, "CEThreshold")) {
		if (!strcmp(v, "off"))
			return r->ce_threshold_ns = 0, 1;
		return time_key(p, k, v, &r->ce_threshold_ns,
				SJ_MAX_INTERVAL_US * 1000ULL);
	}
	if (!strcmp(k, "ECN") || !strcmp(k, "Pace")) {
		bool b;

		if (parse_bool(v, &b))
			return fail(p, k, "\"%s\" is not yes or no", v);
		*(k[0] == 'E' ? &r->ecn : &r->pace) = b;
		return 1;
	}
	if (!strcmp(k, "Fair")) {
		bool b;

		if (parse_bool(v, &b))
			return fail(p, k, "\"%s\" is not yes or no", v);
		r->fair = b;
		return 1;
	}
	if (!strcmp(k, "Quantum")) {
		if (sj_parse_size(v, &u) || u < 64 || u > 65536)
			return fail(p, k, "bad size \"%s\" (expected 64b to 64kb)", v);
		r->quantum = u;
		return 1;
	}
	if (!strcmp(k, "SparseClass")) {
		__u32 classid;

		if (strcmp(v, "auto") && strcmp(v, "off") &&
		    sj_parse_classid(v, &classid))
			return fail(p, k, "\"%s\" is not a class like 1:20, auto or off", v);
		snprintf(r->sparse, sizeof(r->sparse), "%s", v);
		return 1;
	}
	if (!strcmp(k, "Flows")) {
		__u32 n;

		if (sj_parse_u32(v, &n) || n < SJ_FLOWS_MIN || n > SJ_FLOWS_MAX)
			return fail(p, k, "\"%s\" is not a number from %u to %u", v,
				    SJ_FLOWS_MIN, SJ_FLOWS_MAX);
		r->flows = n;
		return 1;
	}
	if (!strcmp(k, "Hook")) {
		p->hook_line = p->line;
		if (strcmp(v, "tc") && strcmp(v, "tcx") && strcmp(v, "clsact") &&
		    strcmp(v, "xdp"))
			return fail(p, k, "\"%s\" is not tc, tcx, clsact or xdp", v);
		snprintf(r->hook, sizeof(r->hook), "%s", v);
		return 1;
	}
	return fail(p, k, "unknown key in [Rule]");
}

/* What no single key can see: checked when the rule is complete. */
static void rule_done(struct parse *p, struct sj_rule *r)
{
	char a[SJ_UNITS_BUFSZ], b[SJ_UNITS_BUFSZ];
	int line = p->line;

	if (!r || p->err_line)
		return;
	p->line = r->line;
	if (!r->nglobs && !r->kind[0])
		fail(p, "[Rule]", "needs Name= or Kind=, or it would match every interface");
	else if (r->observe && p->signal_line) {
		p->line = p->signal_line;
		fail(p, p->signal_key, "does not apply to Observe=yes, which measures and never signals");
	} else if (r->observe && (r->dirs & SJ_RULE_INGRESS)) {
		p->line = p->dir_line > p->observe_line ? p->dir_line : p->observe_line;
		fail(p, p->dir_line > p->observe_line ? "Direction" : "Observe",
		     "observe is for egress only: arriving packets pass no queue to measure");
	} else if (!r->rate_bits && (r->dirs & SJ_RULE_INGRESS)) {
		p->line = p->dir_line;
		fail(p, "Direction", "ingress needs rate mode: give Rate=");
	} else if (!r->rate_bits && (r->burst_bytes || r->horizon_ns || r->pace))
		fail(p, "[Rule]", "Burst=, Horizon= and Pace= need Rate=");
	else if (!r->rate_bits && r->wire_given)
		fail(p, "[Rule]", "Overhead=, MPU= and LinkLayer= need Rate=");
	else if (r->rate_bits && strcmp(r->sparse, "off"))
		fail(p, "[Rule]", "SparseClass= is for real-queue mode (no Rate=)");
	else if (!strcmp(r->hook, "xdp") && r->dirs != SJ_RULE_INGRESS) {
		p->line = p->hook_line;
		fail(p, "Hook", "xdp is an ingress hook: needs Direction=ingress");
	}
	else if (r->target_ns >= r->interval_ns) {
		p->line = p->target_line > p->interval_line ? p->target_line :
			  p->interval_line;
		fail(p, p->target_line > p->interval_line ? "Target" : "Interval",
		     "target (%s) must be below interval (%s)",
		     sj_format_time(r->target_ns, a, sizeof(a)),
		     sj_format_time(r->interval_ns, b, sizeof(b)));
	}
	p->line = line;
}

static struct sj_rule *current_rule(struct parse *p)
{
	struct sj_config *c = p->cfg;
	struct sj_rule *r;

	if (c->nrules && p->rule_at == p->sections)
		return &c->rules[c->nrules - 1];
	if (c->nrules)
		rule_done(p, &c->rules[c->nrules - 1]);
	if (c->nrules == SJ_CONF_MAX_RULES) {
		fail(p, "[Rule]", "more than %d rules", SJ_CONF_MAX_RULES);
		return NULL;
	}
	r = &c->rules[c->nrules++];
	memset(r, 0, sizeof(*r));
	r->line = p->section_line;
	r->dirs = SJ_RULE_EGRESS;
	r->target_ns = SJ_DEFAULT_TARGET_US * 1000ULL;
	r->interval_ns = SJ_DEFAULT_INTERVAL_US * 1000ULL;
	r->ecn = SJ_DEFAULT_ECN;
	r->fair = SJ_DEFAULT_FAIR;
	r->quantum = SJ_DEFAULT_QUANTUM;
	snprintf(r->sparse, sizeof(r->sparse), "off");
	p->rule_at = p->sections;
	p->target_line = p->interval_line = p->dir_line = p->hook_line = p->line;
	p->signal_key = NULL;
	p->signal_line = p->observe_line = 0;
	return r;
}

static int handler(void *user, const char *section, const char *key,
		   const char *value)
{
	struct parse *p = user;
	struct sj_rule *r;
	bool b;

	if (p->err_line)
		return 1;
	if (!strcmp(section, "Rule")) {
		r = current_rule(p);
		return r ? rule_key(p, r, key, value) : 0;
	}
	if (strcmp(section, "Daemon"))
		return fail(p, key, "%s", section[0] ?
			    "unknown section (expected [Daemon] or [Rule])" :
			    "key outside a section");
	if (!strcmp(key, "DetachOnExit")) {
		if (parse_bool(value, &b))
			return fail(p, key, "\"%s\" is not yes or no", value);
		p->cfg->detach_on_exit = b;
		return 1;
	}
	if (!strcmp(key, "StateFile")) {
		if (value[0] != '/' || strlen(value) >= sizeof(p->cfg->state_file))
			return fail(p, key, "needs an absolute path");
		snprintf(p->cfg->state_file, sizeof(p->cfg->state_file), "%s", value);
		return 1;
	}
	return fail(p, key, "unknown key in [Daemon]");
}

int sj_config_load(const char *path, struct sj_config *out)
{
	struct parse p = { .path = path };
	int ret;

	p.cfg = calloc(1, sizeof(*p.cfg));
	if (!p.cfg)
		return sj_err("out of memory");
	p.f = fopen(path, "re");
	if (!p.f) {
		free(p.cfg);
		return sj_err("cannot read config %s: %s", path, strerror(errno));
	}
	snprintf(p.cfg->path, sizeof(p.cfg->path), "%s", path);
	snprintf(p.cfg->state_file, sizeof(p.cfg->state_file), "%s", SJ_STATE_DEFAULT);
	ret = ini_parse_stream(read_line, &p, handler, &p);
	fclose(p.f);
	if (p.cfg->nrules)
		rule_done(&p, &p.cfg->rules[p.cfg->nrules - 1]);
	/* inih's own complaints (no "=", unclosed "[") come back as a line */
	if (ret > 0 && (!p.err_line || ret < p.err_line)) {
		p.err_line = ret;
		snprintf(p.err, sizeof(p.err), "syntax error (expected [Section] or Key=value)");
	}
	if (ret < 0 && !p.err_line)
		snprintf(p.err, sizeof(p.err), "cannot parse: %s", strerror(ENOMEM));
	if (p.err_line || ret < 0) {
		sj_err("%s:%d: %s", path, p.err_line, p.err);
		free(p.cfg);
		return -1;
	}
	if (!p.cfg->nrules)
		sj_info("sojourn: %s: no [Rule]: nothing will be attached", path);
	*out = *p.cfg;
	free(p.cfg);
	return 0;
}

static void arg(struct sj_args *a, const char *s)
{
	if (a->n < SJ_ARGS_MAX)
		a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

/* tc's spelling when it reads back exactly, else the plain unit */
static void arg_fmt(struct sj_args *a, char *(*fmt)(__u64, char *, size_t),
		    int (*parse)(const char *, __u64 *), const char *unit,
		    __u64 v)
{
	char *buf = a->buf[a->n < SJ_ARGS_MAX ? a->n : 0];
	__u64 back;

	if (a->n >= SJ_ARGS_MAX)
		return;
	if (!fmt(v, buf, sizeof(a->buf[0])) || parse(buf, &back) || back != v)
		snprintf(buf, sizeof(a->buf[0]), "%llu%s", (unsigned long long)v, unit);
	arg(a, buf);
}

static void arg_int(struct sj_args *a, long long v)
{
	char *buf = a->buf[a->n < SJ_ARGS_MAX ? a->n : 0];

	if (a->n >= SJ_ARGS_MAX)
		return;
	snprintf(buf, sizeof(a->buf[0]), "%lld", v);
	arg(a, buf);
}

#define ARG_TIME(a, v) arg_fmt(a, sj_format_time, sj_parse_time, "ns", v)
#define ARG_RATE(a, v) arg_fmt(a, sj_format_rate, sj_parse_rate, "bit", v)
#define ARG_SIZE(a, v) arg_fmt(a, sj_format_size, sj_parse_size, "b", v)

/* the settings of the law and of rate mode, defaults spelled out */
static void signal_args(const struct sj_rule *r, bool attach, struct sj_args *a)
{
	if (r->rate_bits) {
		arg(a, "rate");
		ARG_RATE(a, r->rate_bits);
		if (r->burst_bytes) {
			arg(a, "burst");
			ARG_SIZE(a, r->burst_bytes);
		}
		if (r->horizon_ns) {
			arg(a, "horizon");
			ARG_TIME(a, r->horizon_ns);
		}
		if (r->pace || !attach)
			arg(a, r->pace ? "pace" : "nopace");
		/* a change spells the defaults out: a key taken out of the
		 * file puts its default back */
		if (r->wire_given || !attach) {
			arg(a, "overhead");
			arg_int(a, r->wire.overhead);
			arg(a, "mpu");
			arg_int(a, r->wire.mpu);
			arg(a, "linklayer");
			arg(a, sj_wire_link_name(r->wire.link));
		}
	}
	arg(a, "target");
	ARG_TIME(a, r->target_ns);
	arg(a, "interval");
	ARG_TIME(a, r->interval_ns);
	arg(a, "ce_threshold");
	if (r->ce_threshold_ns)
		ARG_TIME(a, r->ce_threshold_ns);
	else
		arg(a, "off");
	arg(a, r->ecn ? "ecn" : "noecn");
	if (!r->rate_bits) {
		arg(a, r->fair ? "fair" : "nofair");
		arg(a, "quantum");
		ARG_SIZE(a, r->quantum);
		arg(a, "sparse_class");
		arg(a, r->sparse);
	}
}

void sj_rule_args(const struct sj_rule *r, enum sj_dir dir, bool attach,
		  struct sj_args *a)
{
	a->n = 0;
	a->v[0] = NULL;
	if (dir == SJ_DIR_INGRESS)
		arg(a, "ingress");
	if (r->observe)
		arg(a, "observe");	/* nothing to tune: change takes it as a no-op */
	else
		signal_args(r, attach, a);
	if (attach && r->flows && a->n + 1 < SJ_ARGS_MAX) {
		char *buf = a->buf[a->n + 1];

		snprintf(buf, sizeof(a->buf[0]), "%u", r->flows);
		arg(a, "flows");
		arg(a, buf);
	}
	if (attach && r->hook[0]) {
		arg(a, "hook");
		arg(a, r->hook);
	}
}

/* used by the daemon: does this rule take the interface? */
bool sj_rule_matches(const struct sj_rule *r, const char *name,
		     const char *kind, const char *netns)
{
	int i;

	if (fnmatch(r->netns[0] ? r->netns : "", netns, 0))
		return false;
	if (r->kind[0] && strcmp(r->kind, kind))
		return false;
	if (!r->nglobs)
		return true;
	for (i = 0; i < r->nglobs; i++)
		if (!fnmatch(r->globs[i], name, 0))
			return true;
	return false;
}
