/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The settings of attach, change and replace, written once: each one's
 * command-line word, its sojourn.conf(5) [Rule] key, its type and field in
 * struct sj_tune, its limits and default, the modes it applies to and its
 * usage.  The command line (tune.c), the config file (config.c), the
 * daemon's argv for a rule, the defaults, the usage text and the tests
 * that check the man pages and the completion all read this one table.
 */
#ifndef SJ_OPTIONS_H
#define SJ_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "common.h"

/* Table order is the usage's order and the daemon's argv order. */
enum sj_opt_id {
	SJ_O_OBSERVE,
	SJ_O_RATE,
	SJ_O_BURST,
	SJ_O_HORIZON,
	SJ_O_PACE,
	SJ_O_OVERHEAD,
	SJ_O_MPU,
	SJ_O_LINKLAYER,
	SJ_O_TARGET,
	SJ_O_INTERVAL,
	SJ_O_CE_THRESHOLD,
	SJ_O_ECN,
	SJ_O_FAIR,
	SJ_O_QUANTUM,
	SJ_O_SPARSE_CLASS,
	SJ_O_ACK_ECHO,
	SJ_O_FLOWS,
	SJ_O_HOOK,
	SJ_O_COUNT,
	/* not options, for a check to name what it blames */
	SJ_O_DIR = SJ_O_COUNT,	/* egress|ingress; Direction= */
	SJ_O_NONE,
};

enum sj_opt_type {
	SJ_T_MODE,	/* the word alone picks a mode (observe); yes|no in the file */
	SJ_T_FLAG,	/* word sets 1, noword 0; yes|no in the file */
	SJ_T_TIME,	/* nanoseconds, written as tc writes times */
	SJ_T_TIME_OFF,	/* a time, or off (0) */
	SJ_T_RATE,	/* bytes per second, written in bits as tc writes rates */
	SJ_T_SIZE,	/* bytes, written as tc writes sizes */
	SJ_T_COUNT,	/* a plain number */
	SJ_T_BYTES,	/* a whole number of bytes, maybe negative (tc's overhead) */
	SJ_T_NAME,	/* one of names[], the value its index */
	SJ_T_SPARSE,	/* CLASSID, auto or off: sparse and sparse_classid */
};

/* the modes an option applies to */
#define SJ_IN_QUEUE	(1u << SJ_MODE_QUEUE)
#define SJ_IN_RATE	(1u << SJ_MODE_RATE)
#define SJ_IN_OBSERVE	(1u << SJ_MODE_OBSERVE)
#define SJ_IN_ALL	(SJ_IN_QUEUE | SJ_IN_RATE | SJ_IN_OBSERVE)

#define SJ_OPT_ATTACH_ONLY	1u	/* change cannot alter it (attach, replace) */
#define SJ_OPT_SPELLED		2u	/* the daemon's argv gives it at its default too */
#define SJ_OPT_ZERO_UNSET	4u	/* 0: off, or the default that fits; no limit */

struct sj_option {
	const char *word;	/* on the command line; a flag's "on" word */
	const char *noword;	/* a flag's "off" word */
	const char *key;	/* in a [Rule] of sojourn.conf */
	enum sj_opt_type type;
	size_t offset, size;	/* its field in struct sj_tune */
	long long min, max;	/* in the field's unit: ns, bytes/s, bytes, a count */
	long long def;		/* the default */
	const char *const *names;	/* SJ_T_NAME: the words by value, "" none */
	unsigned int modes;	/* SJ_IN_* */
	unsigned int flags;	/* SJ_OPT_* */
	const char *group;	/* words refused together out of their mode */
	const char *why;	/* ... and why they belong to it */
	const char *arg;	/* the value in the usage: TIME, RATE ... */
	const char *help;	/* one line */
};

extern const struct sj_option sj_options[SJ_O_COUNT];
extern const char *const sj_linklayer_names[3];

/* Which options were given (command line or rule), in the order given: a
 * check names the first that does not fit, and the daemon's argv gives
 * what the rule gave. */
struct sj_given {
	__u32 mask;			/* 1u << SJ_O_* */
	__u8 order[SJ_O_COUNT];
	__u8 n;
};

struct sj_tune;

/* the option a command-line word names (*on: the word, not the noword),
 * or the one a [Rule] key names; -1 for none */
int sj_option_by_word(const char *word, bool *on);
int sj_option_by_key(const char *key);
/* A [Rule] key for one direction: the table's key with "Egress" or
 * "Ingress" in front (EgressRate=, IngressTarget=), *dir that direction;
 * the plain key sets every direction the rule acts on, *dir -1.  -1 for
 * no key of the table. */
int sj_option_by_key_dir(const char *key, int *dir);
extern const char *const sj_dir_key_prefix[2];	/* by enum sj_dir */
bool sj_option_applies(int id, enum sj_mode mode);

/* One value for option id: from the command line (conf false: the word's
 * value, NULL when it is missing) or from the file (conf true).  0, or -1
 * with the reason in msg, phrased for where it came from. */
int sj_option_parse(int id, const char *s, bool conf, long long *v,
		    char *msg, size_t len);
/* option id's value in t is within the table's limits; else -1 with the
 * reason in msg, as sj_option_parse words it */
int sj_option_in_range(const struct sj_tune *t, int id, bool conf,
		       char *msg, size_t len);
long long sj_option_get(const struct sj_tune *t, int id);
void sj_option_set(struct sj_tune *t, int id, long long v);
/* the value as the command line reads it back; -1 where it has no
 * spelling (burst 0: the default that fits, hook not given) */
int sj_option_format(const struct sj_tune *t, int id, char *buf, size_t len);
/* why option id, given as typed in t, does not apply to mode */
void sj_option_misplaced(const struct sj_tune *t, int id, enum sj_mode mode,
			 bool conf, char *msg, size_t len);

/* sojourn.conf's booleans: 1 yes true on, 0 no false off, any case */
int sj_parse_yes_no(const char *v, bool *out);

void sj_given_add(struct sj_given *g, int id);
static inline bool sj_given_has(const struct sj_given *g, int id)
{
	return g->mask & (1u << id);
}

/* The usage of VERB (attach, replace or change) from the table: the
 * caller has written "       sojourn "; this writes "VERB DEV ..." with
 * every option, wrapped as main.c wraps, and attach's observe form on a
 * line of its own, each line ended. */
void sj_options_usage(FILE *f, const char *verb);
/* one line per option of VERB: word, value, the modes, its help */
void sj_options_help(FILE *f, const char *verb);

#endif
