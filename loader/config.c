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
#include "tune.h"

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
	/* where the rule gave each option (SJ_O_*) and Direction= (SJ_O_DIR)
	 * for each direction, 0 where it did not: a check across keys names
	 * the last of them */
	int key_line[2][SJ_O_DIR + 1];
	/* how the rule spelled each option: the plain key (SPELLED_ALL), with
	 * a direction's prefix (1 << dir), so one setting is not given both
	 * ways */
	unsigned char spelled[SJ_O_COUNT];
	bool dirs_given;		/* Direction= was in the rule */
	unsigned int named;		/* directions a prefixed key named */
	int named_line[2];		/* ... the first such key's line */
	char named_key[2][32];		/* ... and the key */
};

#define SPELLED_ALL	4u


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

static int rule_key(struct parse *p, struct sj_rule *r, const char *k,
		    const char *v)
{
	int id, kdir, dir;
	const char *key;
	char msg[200];
	long long val;

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
		p->key_line[SJ_DIR_EGRESS][SJ_O_DIR] = p->line;
		p->key_line[SJ_DIR_INGRESS][SJ_O_DIR] = p->line;
		p->dirs_given = true;
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
	/* the settings: options.c's table, as the command line reads them;
	 * the plain key for every direction, EgressKEY=/IngressKEY= for one */
	id = sj_option_by_key_dir(k, &kdir);
	if (id < 0)
		return fail(p, k, "unknown key in [Rule]");
	if (sj_option_parse(id, v, true, &val, msg, sizeof(msg)))
		return fail(p, k, "%s", msg);
	key = sj_options[id].key;
	if (kdir < 0 ? p->spelled[id] & ~SPELLED_ALL : p->spelled[id] & SPELLED_ALL)
		return fail(p, k, "not with %s%s= in the same rule: %s= sets every direction, Egress%s= and Ingress%s= one each",
			    kdir < 0 ? sj_dir_key_prefix[p->spelled[id] & 1 ? SJ_DIR_EGRESS :
							     SJ_DIR_INGRESS] : "",
			    key, key, key, key);
	p->spelled[id] |= kdir < 0 ? SPELLED_ALL : 1u << kdir;
	if (kdir >= 0 && !(p->named & (1u << kdir))) {
		p->named |= 1u << kdir;
		p->named_line[kdir] = p->line;
		snprintf(p->named_key[kdir], sizeof(p->named_key[kdir]), "%s", k);
	}
	for (dir = SJ_DIR_EGRESS; dir <= SJ_DIR_INGRESS; dir++) {
		struct sj_tune *t = &r->tune[dir];

		if (kdir >= 0 && kdir != dir)
			continue;
		p->key_line[dir][id] = p->line;
		if (sj_options[id].type == SJ_T_MODE && !val) {
			/* Observe=no: the mode the other keys pick */
			t->given.mask &= ~(1u << id);
			continue;
		}
		sj_option_set(t, id, val);
		sj_given_add(&t->given, id);
	}
	return 1;
}

/* the key as the rule spelled it for this direction: Rate or IngressRate */
static const char *spelled_key(const struct parse *p, int id, int dir,
			       char *buf, size_t len)
{
	if (id == SJ_O_DIR)
		return "Direction";
	snprintf(buf, len, "%s%s", p->spelled[id] & SPELLED_ALL ? "" :
		 sj_dir_key_prefix[dir], sj_options[id].key);
	return buf;
}

/* "KEY=" in msg becomes the direction's own key where the rule gave that
 * (Rate= is named when it gave no rate: the direction's rate then) */
static void respell(char *msg, size_t len, const struct parse *p, int id,
		    int dir)
{
	char plain[40], own[40], rest[256], *at;

	if (p->spelled[id] & SPELLED_ALL)
		return;
	if (!p->spelled[id] && !p->named)
		return;
	snprintf(plain, sizeof(plain), " %s=", sj_options[id].key);
	at = strstr(msg, plain);
	if (!at)
		return;
	snprintf(own, sizeof(own), " %s%s=", sj_dir_key_prefix[dir], sj_options[id].key);
	snprintf(rest, sizeof(rest), "%s", at + strlen(plain));
	snprintf(at, len - (at - msg), "%s%s", own, rest);
}

/* Without Direction=, a rule acts on the directions its prefixed keys
 * name (EgressRate= and IngressRate=: both), else on egress; with it, a
 * prefixed key for a direction it leaves out is a contradiction. */
static int rule_dirs(struct parse *p, struct sj_rule *r)
{
	int dir, dline = p->key_line[SJ_DIR_EGRESS][SJ_O_DIR];

	if (!p->dirs_given) {
		if (p->named)
			r->dirs = p->named;
		return 0;
	}
	for (dir = SJ_DIR_EGRESS; dir <= SJ_DIR_INGRESS; dir++) {
		if (!(p->named & ~r->dirs & (1u << dir)))
			continue;
		p->line = p->named_line[dir] > dline ? p->named_line[dir] : dline;
		fail(p, p->named_line[dir] > dline ? p->named_key[dir] : "Direction",
		     "%s= is for %s, which Direction=%s leaves out (Direction=both takes both)",
		     p->named_key[dir], sj_dir_name(dir),
		     sj_dir_name(dir == SJ_DIR_EGRESS ? SJ_DIR_INGRESS : SJ_DIR_EGRESS));
		return -1;
	}
	return 0;
}

/* What no single key can see, checked by the command line's own checks
 * (sj_tune_problem) for each direction, once the rule is complete: named
 * at the line of the last key the problem is about. */
static void rule_done(struct parse *p, struct sj_rule *r)
{
	int line = p->line, dir;

	if (!r || p->err_line)
		return;
	p->line = r->line;
	if (!r->nglobs && !r->kind[0]) {
		fail(p, "[Rule]", "needs Name= or Kind=, or it would match every interface");
		p->line = line;
		return;
	}
	if (rule_dirs(p, r)) {
		p->line = line;
		return;
	}
	for (dir = SJ_DIR_EGRESS; dir <= SJ_DIR_INGRESS; dir++) {
		struct sj_tune t;
		const char *key = "[Rule]";
		char msg[256], kbuf[2][40];
		int blame[2], i;

		sj_tune_pick_mode(&r->tune[dir]);
		t = r->tune[dir];

		if (!(r->dirs & (1u << dir)))
			continue;
		t.dir = dir;
		if (!sj_tune_problem(&t, true, msg, sizeof(msg), blame))
			continue;
		p->line = 0;
		for (i = 0; i < 2; i++)
			if (blame[i] != SJ_O_NONE && p->key_line[dir][blame[i]] > p->line) {
				p->line = p->key_line[dir][blame[i]];
				key = spelled_key(p, blame[i], dir, kbuf[i], sizeof(kbuf[i]));
			}
		if (!p->line)
			p->line = r->line;
		/* the table's checks name plain keys: a rule that gives this
		 * direction's own is told those (IngressRate=, not Rate=,
		 * which would contradict it) */
		for (i = 0; i < SJ_O_COUNT; i++)
			if (p->spelled[i] & ~SPELLED_ALL || i == SJ_O_RATE)
				respell(msg, sizeof(msg), p, i, dir);
		fail(p, key, "%s", msg);
		break;
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
	sj_tune_defaults(&r->tune[SJ_DIR_EGRESS]);
	r->tune[SJ_DIR_INGRESS] = r->tune[SJ_DIR_EGRESS];
	p->rule_at = p->sections;
	memset(p->key_line, 0, sizeof(p->key_line));
	memset(p->spelled, 0, sizeof(p->spelled));
	p->dirs_given = false;
	p->named = 0;
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
		if (sj_parse_yes_no(value, &b))
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

/*
 * From the table, in its order: the options of the rule's mode that it
 * gives, those the daemon always spells out (the law's), and for a change
 * every one with a spelling, so that a key taken out of the file puts its
 * default back.
 */
void sj_rule_args(const struct sj_rule *r, enum sj_dir dir, bool attach,
		  struct sj_args *a)
{
	const struct sj_tune *t = &r->tune[dir];
	int id;

	a->n = 0;
	a->v[0] = NULL;
	if (dir == SJ_DIR_INGRESS)
		arg(a, "ingress");
	for (id = 0; id < SJ_O_COUNT; id++) {
		const struct sj_option *o = &sj_options[id];
		bool given = sj_given_has(&t->given, id);
		char *buf;

		if (!sj_option_applies(id, t->mode) ||
		    (!attach && (o->flags & SJ_OPT_ATTACH_ONLY)))
			continue;
		if (o->type == SJ_T_MODE) {
			if (given)
				arg(a, o->word);	/* change takes it as a no-op */
			continue;
		}
		if (!given && attach && !(o->flags & SJ_OPT_SPELLED))
			continue;
		if (o->type == SJ_T_FLAG) {
			arg(a, sj_option_get(t, id) ? o->word : o->noword);
			continue;
		}
		if (a->n + 2 > SJ_ARGS_MAX)
			break;
		buf = a->buf[a->n + 1];
		if (sj_option_format(t, id, buf, sizeof(a->buf[0])))
			continue;	/* no spelling: the command's default */
		arg(a, o->word);
		arg(a, buf);
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
