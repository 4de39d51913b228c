// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What sojourn may attach to in real-queue and observe mode, judged from
 * the device's whole qdisc tree (nl.c reads it):
 *
 *  - noqueue: no queue at all, nothing to measure.
 *  - An AQM anywhere in the tree (the root, an mq child, an HTB leaf):
 *    real-queue mode would run a second control law over one that already
 *    keeps the queue short, and could only add drops.  Observe mode, which
 *    measures and never signals, is offered instead.
 *  - A qdisc that keeps per-packet state of its own in the qdisc control
 *    block (skb->cb past its first 12 bytes), where observe carries the
 *    enqueue time from egress to the dequeue tracepoint: the two would
 *    overwrite each other, so observe is refused there.  choke keeps 17
 *    bytes; pie and fq_pie declare 16 (struct pie_skb_cb: a u64 and a u32,
 *    so they write the first 12) and are refused as well; codel and
 *    fq_codel keep 8, cake 12, fq 9, netem 8, sfb 8, dualpi2 9, which leave
 *    it alone.
 */
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "common.h"
#include "qdisc.h"

static const struct {
	const char *kind;
	bool owns_cb;		/* overwrites where observe keeps its stamp */
} aqms[] = {
	/* the list: what operators run as their AQM */
	{ "fq_codel", false }, { "cake", false }, { "codel", false },
	{ "pie", true }, { "fq_pie", true }, { "fq", false },
	/* the kernel's other qdiscs that drop or mark by a law of their own */
	{ "choke", true }, { "red", false }, { "gred", false },
	{ "sfb", false }, { "dualpi2", false },
};

#define NAQMS (sizeof(aqms) / sizeof(aqms[0]))

static int aqm_index(const char *kind)
{
	size_t i;

	for (i = 0; i < NAQMS; i++)
		if (!strcmp(kind, aqms[i].kind))
			return (int)i;
	return -1;
}

bool sj_qdisc_is_aqm(const char *kind)
{
	return aqm_index(kind) >= 0;
}

bool sj_qdisc_owns_cb(const char *kind)
{
	int i = aqm_index(kind);

	return i >= 0 && aqms[i].owns_cb;
}

/* tc's way of writing a parent: "root", "1:2", ":2" (major 0), "1:" */
static void parent_text(__u32 h, char *buf, size_t len)
{
	if (h == TC_H_ROOT)
		snprintf(buf, len, "root");
	else if (!TC_H_MAJ(h))
		snprintf(buf, len, ":%x", TC_H_MIN(h));
	else if (!TC_H_MIN(h))
		snprintf(buf, len, "%x:", TC_H_MAJ(h) >> 16);
	else
		snprintf(buf, len, "%x:%x", TC_H_MAJ(h) >> 16, TC_H_MIN(h));
}

/* The qdisc a child hangs under: the one whose handle has the parent's
 * major.  The root first: a default mq and its children all have handle
 * 0:, and the children hang under the root. */
static const struct sj_qdisc *parent_of(const struct sj_qdisc_tree *t,
					const struct sj_qdisc *q)
{
	__u32 maj = TC_H_MAJ(q->parent);
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->q[i].parent == TC_H_ROOT && TC_H_MAJ(t->q[i].handle) == maj)
			return &t->q[i];
	for (i = 0; i < t->n; i++)
		if (&t->q[i] != q && TC_H_MAJ(t->q[i].handle) == maj)
			return &t->q[i];
	return NULL;
}

/* "root qdisc", or "qdisc at parent 1:2 (under root mq 1:)" */
static void where(const struct sj_qdisc_tree *t, const struct sj_qdisc *q,
		  char *buf, size_t len)
{
	const struct sj_qdisc *up;
	char at[24];

	if (q->parent == TC_H_ROOT) {
		snprintf(buf, len, "root qdisc");
		return;
	}
	parent_text(q->parent, at, sizeof(at));
	up = parent_of(t, q);
	if (!up) {
		snprintf(buf, len, "qdisc at parent %s", at);
		return;
	}
	/* a qdisc's own handle as tc shows it: its major, "1:", "0:" */
	snprintf(buf, len, "qdisc at parent %s (under %s%s %x:)", at,
		 up->parent == TC_H_ROOT ? "root " : "", up->kind,
		 TC_H_MAJ(up->handle) >> 16);
}

/* The qdisc of the tree that pred picks and an operator would look at
 * first: the root, else the one at the lowest parent (1:1 before 1:2),
 * whatever order the kernel listed them in; *others: how many more it
 * picks. */
static const struct sj_qdisc *first_match(const struct sj_qdisc_tree *t,
					  bool (*pred)(const char *),
					  size_t *others)
{
	const struct sj_qdisc *found = NULL;
	size_t i, n = 0;

	for (i = 0; i < t->n; i++) {
		if (!pred(t->q[i].kind))
			continue;
		n++;
		if (!found || t->q[i].parent == TC_H_ROOT ||
		    (found->parent != TC_H_ROOT && t->q[i].parent < found->parent))
			found = &t->q[i];
	}
	*others = n ? n - 1 : 0;
	return found;
}

static const char *root_kind(const struct sj_qdisc_tree *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->q[i].parent == TC_H_ROOT)
			return t->q[i].kind;
	return "";
}

/*
 * pfifo_fast serves band 0 first, strictly, and maps skb->priority to a band
 * through a fixed table: TC_PRIO_INTERACTIVE (6) lands in band 0
 * (sch_default_prio2band, net/sched/sch_generic.c, unchanged from 2.6 to
 * 6.18).  mq hands each packet to one child per transmit queue; its
 * children are the default qdisc, pfifo_fast unless net.core.default_qdisc
 * says otherwise, and skb->priority passes through mq untouched.  So the
 * path exists when every qdisc of the tree below an mq root is pfifo_fast.
 */
__u32 sj_qdisc_sparse_path(const struct sj_qdisc_tree *t)
{
	const char *root = root_kind(t);
	size_t i, children = 0;

	if (!strcmp(root, "pfifo_fast"))
		return SJ_PRIO_INTERACTIVE;
	if (strcmp(root, "mq"))
		return 0;
	for (i = 0; i < t->n; i++) {
		if (t->q[i].parent == TC_H_ROOT)
			continue;
		if (strcmp(t->q[i].kind, "pfifo_fast"))
			return 0;
		children++;
	}
	return children ? SJ_PRIO_INTERACTIVE : 0;
}

__u32 sj_sparse_auto_priority(__u32 ifindex)
{
	struct sj_qdisc_tree t;
	__u32 prio;

	if (sj_qdisc_tree_get(ifindex, &t))
		return 0;
	prio = sj_qdisc_sparse_path(&t);
	sj_qdisc_tree_free(&t);
	return prio;
}

/* " (and 3 more)" */
static void more_text(size_t others, char *buf, size_t len)
{
	buf[0] = '\0';
	if (others)
		snprintf(buf, len, " (and %zu more)", others);
}

int sj_qdisc_tree_judge(const struct sj_link *link,
			const struct sj_qdisc_tree *t, enum sj_mode mode)
{
	const char *ns = sj_netns_name ? sj_netns_name : "";
	const struct sj_qdisc *q, *cb;
	char at[96], more[48];
	size_t others;

	if (mode == SJ_MODE_RATE)
		return 0;	/* a virtual queue of its own: any tree */
	if (!strcmp(root_kind(t), "noqueue"))
		return mode == SJ_MODE_OBSERVE ?
			sj_err("%s has no queue (qdisc noqueue): nothing to observe; give it a qdisc (tc qdisc add dev %s root pfifo) or use rate mode (rate RATE), which measures a virtual queue",
			       link->name, link->name) :
			sj_err("%s has no queue (qdisc noqueue): nothing to manage in real-queue mode; give it a qdisc (tc qdisc add dev %s root pfifo) or use rate mode (rate RATE)",
			       link->name, link->name);

	cb = first_match(t, sj_qdisc_owns_cb, &others);
	if (mode == SJ_MODE_OBSERVE) {
		if (!cb)
			return 0;
		where(t, cb, at, sizeof(at));
		more_text(others, more, sizeof(more));
		return sj_err("%s's %s is %s%s, which keeps its own per-packet state in skb->cb, where observe carries the enqueue time: observe cannot measure through it",
			      link->name, at, cb->kind, more);
	}
	q = first_match(t, sj_qdisc_is_aqm, &others);
	if (!q)
		return 0;
	where(t, q, at, sizeof(at));
	more_text(others, more, sizeof(more));
	if (cb)
		return sj_err("%s's %s is %s%s, already an AQM: a second CoDel on top would only add drops; and observe cannot measure this tree either: %s keeps its own per-packet state in skb->cb, where observe carries the enqueue time",
			      link->name, at, q->kind, more, cb->kind);
	return sj_err("%s's %s is %s%s, already an AQM: a second CoDel on top would only add drops; measure it with 'sojourn attach %s observe%s%s'",
		      link->name, at, q->kind, more, link->name,
		      *ns ? " -n " : "", ns);
}

int sj_qdisc_check(const struct sj_link *link, enum sj_mode mode,
		   char *root, size_t len)
{
	struct sj_qdisc_tree t;
	int err;

	root[0] = '\0';
	if (sj_qdisc_tree_get(link->ifindex, &t))
		return -1;
	snprintf(root, len, "%s", root_kind(&t));
	err = sj_qdisc_tree_judge(link, &t, mode);
	sj_qdisc_tree_free(&t);
	return err;
}
