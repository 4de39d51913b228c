/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The settings of attach and change: parsed, checked, applied. */
#ifndef SJ_TUNE_H
#define SJ_TUNE_H

#include "common.h"
#include "options.h"

/* What `hook` asked for: the kernel's best tc hook, one of them, or XDP */
enum sj_hook_req {
	SJ_HOOK_REQ_DEFAULT = 0,	/* per device kind and direction */
	SJ_HOOK_REQ_TC,			/* tcx, clsact where tcx is missing */
	SJ_HOOK_REQ_TCX,
	SJ_HOOK_REQ_CLSACT,
	SJ_HOOK_REQ_XDP,
};

struct sj_tune {
	__u64 target_ns;
	__u64 interval_ns;
	__u64 ce_threshold_ns;	/* 0: off */
	int ecn;
	enum sj_hook_req hook;
	enum sj_dir dir;
	enum sj_mode mode;	/* rate mode once a rate is given */
	__u64 rate_Bps;
	__u64 burst_bytes;	/* 0: not given, the default that fits */
	__u64 horizon_ns;
	int pace;
	struct sj_wire wire;	/* rate mode's link accounting (wire.h) */
	int fair;
	__u32 quantum;
	enum sj_sparse sparse;
	__u32 sparse_classid;	/* under SJ_SPARSE_CLASS */
	int ack_echo;
	__u32 flows;		/* flow table entries (attach only) */
	struct sj_given given;	/* what the command line or the rule said */
};

/* every option at its default (options.c's table), queue mode, egress */
void sj_tune_defaults(struct sj_tune *t);
void sj_tune_from_settings(struct sj_tune *t, const struct sj_settings *s,
			   const struct sj_meta *meta);
/* keywords from argv; attach: may pick the hook and the mode, change not */
int sj_tune_parse(struct sj_tune *t, int argc, char **argv, bool attach);
/* attach and the config: observe or rate mode where the option was given */
void sj_tune_pick_mode(struct sj_tune *t);
/* What no single value shows: an option given that does not apply to the
 * mode, then the checks across options.  0, or -1 with the reason in msg,
 * phrased for the command line or for sojourn.conf (conf), and in blame[]
 * the two options (SJ_O_*, SJ_O_DIR, SJ_O_NONE) it is about.  Shared by
 * sj_tune_check and the config file. */
int sj_tune_problem(const struct sj_tune *t, bool conf, char *msg, size_t len,
		    int blame[2]);
int sj_tune_check(const struct sj_tune *t);
void sj_tune_to_settings(const struct sj_tune *t, __u32 mtu,
			 struct sj_settings *s);
/* "ingress"/"egress" right after DEV; returns how many words it took */
int sj_dir_arg(int argc, char **argv, enum sj_dir *dir);
/* "ethernet", "atm" or "ptm"; NULL for none of them */
const char *sj_wire_link_name(__u32 link);
/* tc's class handle, hex major:minor (e.g. 1:20), neither part 0 */
int sj_parse_classid(const char *s, __u32 *classid);

#endif
