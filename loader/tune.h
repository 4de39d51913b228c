/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The settings of attach and change: parsed, checked, applied. */
#ifndef SJ_TUNE_H
#define SJ_TUNE_H

#include "common.h"

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
	bool wire_given;	/* overhead, mpu or linklayer was given */
	int fair;
	__u32 quantum;
	enum sj_sparse sparse;
	__u32 sparse_classid;	/* under SJ_SPARSE_CLASS */
	__u32 flows;		/* flow table entries (attach only) */
};

void sj_tune_defaults(struct sj_tune *t);
void sj_tune_from_settings(struct sj_tune *t, const struct sj_settings *s,
			   const struct sj_meta *meta);
/* keywords from argv; attach: may pick the hook and the mode, change not */
int sj_tune_parse(struct sj_tune *t, int argc, char **argv, bool attach);
int sj_tune_check(const struct sj_tune *t);
void sj_tune_to_settings(const struct sj_tune *t, __u32 mtu,
			 struct sj_settings *s);
/* sparse auto: the priority that puts sparse flows ahead under this root
 * qdisc, 0 where none does */
__u32 sj_sparse_auto_priority(const char *root_kind);
/* "ingress"/"egress" right after DEV; returns how many words it took */
int sj_dir_arg(int argc, char **argv, enum sj_dir *dir);
const char *sj_dir_name(enum sj_dir dir);
/* "ethernet", "atm" or "ptm"; NULL for none of them */
const char *sj_wire_link_name(__u32 link);
int sj_wire_link_parse(const char *s, __u32 *link);
/* overhead: whole bytes, maybe negative (tc's way), within wire.h's bounds */
int sj_wire_overhead_parse(const char *s, __s32 *overhead);
/* tc's class handle, hex major:minor (e.g. 1:20), neither part 0 */
int sj_parse_classid(const char *s, __u32 *classid);

#endif
