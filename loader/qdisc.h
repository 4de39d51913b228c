/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What real-queue and observe mode may attach to: the qdisc tree judged. */
#ifndef SJ_QDISC_H
#define SJ_QDISC_H

#include "common.h"

/* fq_codel, cake, codel, pie, fq_pie, fq, choke, red, gred, sfb, dualpi2 */
bool sj_qdisc_is_aqm(const char *kind);
/* keeps per-packet state where observe carries its stamp: pie, fq_pie, choke */
bool sj_qdisc_owns_cb(const char *kind);
/* 0 if MODE may run on this tree, else -1 after one line saying why */
int sj_qdisc_tree_judge(const struct sj_link *link,
			const struct sj_qdisc_tree *tree, enum sj_mode mode);
/* reads the tree of LINK, writes its root's kind ("" if none) into root,
 * and judges it */
int sj_qdisc_check(const struct sj_link *link, enum sj_mode mode,
		   char *root, size_t len);

/* The band ahead that `sparse_class auto` sends sparse flows to, as the
 * skb->priority that reaches it: pfifo_fast's band 0, at the root or under
 * each queue of an mq root.  0 where the tree has none.
 * sj_sparse_auto_priority reads the device's tree (0 if it cannot). */
__u32 sj_qdisc_sparse_path(const struct sj_qdisc_tree *tree);
__u32 sj_sparse_auto_priority(__u32 ifindex);

#endif
