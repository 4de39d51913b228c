/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon's configuration (sojourn.conf(5)): one [Daemon] section and
 * [Rule] sections, first match wins.  Parsed by libinih; every value is
 * checked here, so a bad file is refused whole with file, line and key.
 */
#ifndef SJ_CONFIG_H
#define SJ_CONFIG_H

#include <stdbool.h>
#include "common.h"
#include "tune.h"

#define SJ_CONF_DEFAULT		"/etc/sojourn/sojourn.conf"
#define SJ_STATE_DEFAULT	"/run/sojourn/attached"
#define SJ_CONF_MAX_RULES	64
#define SJ_CONF_MAX_GLOBS	16

#define SJ_RULE_EGRESS		(1u << SJ_DIR_EGRESS)
#define SJ_RULE_INGRESS		(1u << SJ_DIR_INGRESS)

struct sj_rule {
	int line;			/* where its [Rule] stands */
	int nglobs;
	char globs[SJ_CONF_MAX_GLOBS][16];	/* Name=: interface names */
	char kind[16];			/* Kind=: "" any, "physical", a link kind */
	char netns[64];			/* Netns=: "" the daemon's own, else a glob
					 * over the names under /run/netns */
	unsigned int dirs;		/* SJ_RULE_EGRESS | SJ_RULE_INGRESS */
	/* what `attach` gets, by enum sj_dir: every option at its default
	 * but those the rule gives for that direction (tune[dir].given: the
	 * plain keys and those with the direction's prefix), the mode picked
	 * from them; an asymmetric link is one rule */
	struct sj_tune tune[2];
};

struct sj_config {
	char path[SJ_PATH_MAX];
	bool detach_on_exit;
	char state_file[SJ_PATH_MAX];
	int nrules;
	struct sj_rule rules[SJ_CONF_MAX_RULES];
};

/* 0, or -1 after one line on stderr naming file, line and key; *cfg is
 * only written on success, so a failed reload keeps the old one */
int sj_config_load(const char *path, struct sj_config *cfg);

/* Arguments for `sojourn attach|change DEV ...` that give every setting of
 * the rule for one direction, defaults spelled out, so a `change` after a
 * reload also takes back what the new rule no longer says. */
#define SJ_ARGS_MAX 32
struct sj_args {
	int n;
	char *v[SJ_ARGS_MAX + 1];
	char buf[SJ_ARGS_MAX][24];
};
/* the rule takes this interface; netns "" is the daemon's own */
bool sj_rule_matches(const struct sj_rule *r, const char *name,
		     const char *kind, const char *netns);
void sj_rule_args(const struct sj_rule *r, enum sj_dir dir, bool attach,
		  struct sj_args *a);

#endif
