/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The class sparse_class auto adds under an HTB root (htbpath.c). */
#ifndef SJ_HTBPATH_H
#define SJ_HTBPATH_H

#include "common.h"

/* Adds a prio 0 class beside the HTB root's default class, under the same
 * parent, with 1/SJ_SPARSE_SHARE of the parent's rate guaranteed (and a
 * burst of what that sends in interval_ns) and the parent's ceil; returns its classid, or 0 with why there is none (why: words that
 * follow "no class for sparse flows:"). */
__u32 sj_htb_path_add(const struct sj_link *link, __u64 interval_ns,
		      char *why, size_t len);
/* removes it again; 0 when it is gone, also with its device or root */
int sj_htb_path_del(__u32 ifindex, __u32 classid);

#endif
