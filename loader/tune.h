/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The CoDel settings of attach and change: parsed, checked, applied. */
#ifndef SJ_TUNE_H
#define SJ_TUNE_H

#include "common.h"

struct sj_tune {
	__u64 target_ns;
	__u64 interval_ns;
	__u64 ce_threshold_ns;	/* 0: off */
	int ecn;
	enum sj_hook hook;	/* 0: tcx where the kernel has it */
};

void sj_tune_defaults(struct sj_tune *t);
void sj_tune_from_settings(struct sj_tune *t, const struct sj_settings *s);
/* keywords from argv; allow_hook: attach may pick the hook, change not */
int sj_tune_parse(struct sj_tune *t, int argc, char **argv, bool allow_hook);
int sj_tune_check(const struct sj_tune *t);
void sj_tune_to_settings(const struct sj_tune *t, __u32 mtu,
			 struct sj_settings *s);

#endif
