// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one change sojourn makes to a qdisc tree: under an HTB root,
 * `sparse_class auto` adds a class beside the default class, served before
 * it, for sparse flows to go ahead in; detach removes it again.
 *
 * Facts relied on (net/sched/sch_htb.c, 5.4 to 6.18):
 *  - htb_classify takes skb->priority as a classid before any filter: a
 *    packet whose priority names a leaf class of this HTB goes there.
 *  - Classes of one level are served in prio order, 0 first, while they
 *    are within their rate; classes of equal prio share by DRR, each up to
 *    its quantum (rate / r2q, up to 200000 bytes: 80 ms at 20 Mbit/s).  So
 *    a class goes ahead only of classes of a higher prio number: beside a
 *    prio 0 default class it would wait its turn like any other.
 *  - A new leaf class gets a pfifo of the device's txqueuelen by itself.
 *  - A class's own rate is guaranteed; beyond it a class borrows from its
 *    parent up to its ceil.  Under the default class's parent, the added
 *    class takes from the same budget; at the top of the tree it would add
 *    capacity of its own, so the shaped rate would be exceeded.
 *    Within the parent too, a class with tokens of its own rate sends
 *    without asking its parent (htb_class_mode: HTB_CAN_SEND on the
 *    class's own tokens; the parent's ceil binds only what is borrowed):
 *    where the default class's rate is already the parent's whole rate,
 *    the two together send up to 9/8 of it while sparse flows fill their
 *    eighth.  The operator who wants the sum held gives the default class
 *    7/8 of the parent's rate (README says so); we never change a class
 *    we did not add.
 *  - Without TCA_HTB_RTAB the kernel computes the rate itself
 *    (psched_ratecfg_precompute); buffer and cbuffer are in psched ticks
 *    of 64 ns (PSCHED_SHIFT 6).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <linux/pkt_sched.h>
#include "common.h"
#include "htbpath.h"
#include "fair.h"

#define MINOR_FIRST	0xfff0	/* where our class's minor is sought */
#define MINOR_LAST	0xfffe

struct htb_class {
	__u32 classid, parent, prio;
	__u64 rate, ceil;	/* bytes per second */
	bool parms;
};

struct htb_walk {
	__u32 ifindex;
	/* the root qdisc */
	__u32 handle, defcls;
	bool htb;
	/* its classes */
	struct htb_class c[256];
	unsigned int n;
	bool overflow;
};

static int root_opts_cb(const struct nlattr *a, void *data)
{
	struct htb_walk *w = data;

	if (mnl_attr_get_type(a) == TCA_HTB_INIT &&
	    mnl_attr_get_payload_len(a) >= sizeof(struct tc_htb_glob))
		w->defcls = ((struct tc_htb_glob *)mnl_attr_get_payload(a))->defcls;
	return MNL_CB_OK;
}

static int root_attr_cb(const struct nlattr *a, void *data)
{
	struct htb_walk *w = data;

	if (mnl_attr_get_type(a) == TCA_KIND)
		w->htb = !strcmp(mnl_attr_get_str(a), "htb");
	else if (mnl_attr_get_type(a) == TCA_OPTIONS)
		mnl_attr_parse_nested(a, root_opts_cb, w);
	return MNL_CB_OK;
}

static int root_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	struct htb_walk *w = data;

	if ((__u32)tcm->tcm_ifindex != w->ifindex || tcm->tcm_parent != TC_H_ROOT)
		return MNL_CB_OK;
	w->handle = tcm->tcm_handle;
	mnl_attr_parse(nlh, sizeof(*tcm), root_attr_cb, w);
	return MNL_CB_OK;
}

static int class_opts_cb(const struct nlattr *a, void *data)
{
	struct htb_class *c = data;
	const struct tc_htb_opt *o;

	switch (mnl_attr_get_type(a)) {
	case TCA_HTB_PARMS:
		if (mnl_attr_get_payload_len(a) < sizeof(*o))
			break;
		o = mnl_attr_get_payload(a);
		c->prio = o->prio;
		if (!c->rate)
			c->rate = o->rate.rate;
		if (!c->ceil)
			c->ceil = o->ceil.rate;
		c->parms = true;
		break;
	case TCA_HTB_RATE64:	/* rates of 4 GB/s and more */
		if (mnl_attr_get_payload_len(a) >= sizeof(__u64))
			c->rate = mnl_attr_get_u64(a);
		break;
	case TCA_HTB_CEIL64:
		if (mnl_attr_get_payload_len(a) >= sizeof(__u64))
			c->ceil = mnl_attr_get_u64(a);
		break;
	}
	return MNL_CB_OK;
}

static int class_attr_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == TCA_OPTIONS)
		mnl_attr_parse_nested(a, class_opts_cb, data);
	return MNL_CB_OK;
}

static int class_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	struct htb_walk *w = data;
	struct htb_class *c;

	if ((__u32)tcm->tcm_ifindex != w->ifindex ||
	    TC_H_MAJ(tcm->tcm_handle) != TC_H_MAJ(w->handle))
		return MNL_CB_OK;
	if (w->n == sizeof(w->c) / sizeof(w->c[0])) {
		w->overflow = true;
		return MNL_CB_OK;
	}
	c = &w->c[w->n++];
	memset(c, 0, sizeof(*c));
	return sj_tc_msg_read(nlh, &c->classid, &c->parent, class_attr_cb, c);
}

static int htb_read(__u32 ifindex, struct htb_walk *w)
{
	struct nl_req r;
	int ret;

	memset(w, 0, sizeof(*w));
	w->ifindex = ifindex;
	ret = sj_nl_talk(sj_tc_req(&r, RTM_GETQDISC, NLM_F_DUMP, ifindex, 0, 0),
			 root_cb, w);
	if (ret >= 0 && w->htb)
		ret = sj_nl_talk(sj_tc_req(&r, RTM_GETTCLASS, NLM_F_DUMP, ifindex,
					0, 0), class_cb, w);
	return ret < 0 ? ret : 0;
}

static struct htb_class *htb_find(struct htb_walk *w, __u32 classid)
{
	for (unsigned int i = 0; i < w->n; i++)
		if (w->c[i].classid == classid)
			return &w->c[i];
	return NULL;
}

/* "1:10" */
static const char *id_text(__u32 id, char *buf, size_t len)
{
	snprintf(buf, len, "%x:%x", TC_H_MAJ(id) >> 16, TC_H_MIN(id));
	return buf;
}

/* psched ticks (64 ns) to send BYTES at RATE bytes/s */
static __u32 ticks(__u64 bytes, __u64 rate)
{
	__u64 t = bytes * 1000000000ULL / rate >> 6;

	return t > 0xffffffffULL ? 0xffffffffU : (__u32)t;
}

static void rate_put(struct tc_ratespec *spec, __u64 rate)
{
	spec->rate = rate >= 0xffffffffULL ? 0xffffffffU : (__u32)rate;
	spec->linklayer = TC_LINKLAYER_ETHERNET;	/* no rate table needed */
}

static int class_add(const struct sj_link *link, __u32 classid, __u32 parent,
		     __u64 rate, __u64 ceil, __u64 interval_ns)
{
	__u32 mtu = link->mtu + link->hard_header_len;
	struct tc_htb_opt o = { .quantum = mtu, .prio = 0 };
	struct nlattr *opts;
	struct nlmsghdr *nlh;
	struct nl_req r;

	rate_put(&o.rate, rate);
	rate_put(&o.ceil, ceil);
	/* A burst of what the rate sends in an interval: sparse packets of
	 * many flows arrive together, and beyond its burst the class must
	 * borrow, which HTB serves only after every class within its own
	 * rate (level 0 before the parent's level): behind the bulk.  With
	 * tc's default (1 ms of the rate plus a packet) fair_sparse's probes
	 * waited 25 ms at p99, and a flow's bulk packet passed its own packet
	 * sent ahead.  An interval's worth is the bound sojourn keeps anyway
	 * (fair.h).  The ceil's burst is tc's default. */
	o.buffer = ticks(rate * interval_ns / 1000000000ULL + mtu, rate);
	o.cbuffer = ticks(ceil / 1000 + mtu, ceil);
	nlh = sj_tc_req(&r, RTM_NEWTCLASS, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
		     link->ifindex, classid, parent);
	mnl_attr_put_strz(nlh, TCA_KIND, "htb");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_HTB_PARMS, sizeof(o), &o);
	if (rate >= 0xffffffffULL)
		mnl_attr_put_u64(nlh, TCA_HTB_RATE64, rate);
	if (ceil >= 0xffffffffULL)
		mnl_attr_put_u64(nlh, TCA_HTB_CEIL64, ceil);
	mnl_attr_nest_end(nlh, opts);
	return sj_nl_talk(nlh, NULL, NULL);
}

__u32 sj_htb_path_add(const struct sj_link *link, __u64 interval_ns,
		      char *why, size_t len)
{
	struct htb_class *def, *parent;
	struct htb_walk w;
	char a[16], b[16];
	__u32 classid = 0, minor;
	int ret;

	why[0] = '\0';
	ret = htb_read(link->ifindex, &w);
	if (ret < 0) {
		snprintf(why, len, "cannot read its classes: %s", strerror(-ret));
		return 0;
	}
	if (!w.htb || w.overflow) {
		snprintf(why, len, w.htb ? "its HTB has more than %zu classes" :
			 "its root is no HTB", sizeof(w.c) / sizeof(w.c[0]));
		return 0;
	}
	def = w.defcls ? htb_find(&w, TC_H_MAKE(w.handle, w.defcls)) : NULL;
	if (!def) {
		snprintf(why, len, "its HTB has no default class (htb default N): unclassified traffic is not shaped, and there is no class to go ahead of");
		return 0;
	}
	id_text(def->classid, a, sizeof(a));
	parent = def->parent == TC_H_ROOT ? NULL : htb_find(&w, def->parent);
	if (!parent || !parent->rate || !parent->ceil) {
		snprintf(why, len, "its default class %s is at the top of the tree: a class beside it would add rate of its own; put %s under a parent class that holds the link's rate",
			 a, a);
		return 0;
	}
	if (!def->parms || def->prio == 0) {
		snprintf(why, len, "its default class %s is prio 0, which HTB serves first: a class beside it would only share turns with it; give %s prio 1 or more (tc class change dev %s classid %s htb rate ... prio 1)",
			 a, a, link->name, a);
		return 0;
	}
	for (minor = MINOR_FIRST; minor <= MINOR_LAST && !classid; minor++)
		if (!htb_find(&w, TC_H_MAKE(w.handle, minor)))
			classid = TC_H_MAKE(w.handle, minor);
	if (!classid) {
		snprintf(why, len, "classes %x:%x to %x:%x are all taken",
			 TC_H_MAJ(w.handle) >> 16, MINOR_FIRST,
			 TC_H_MAJ(w.handle) >> 16, MINOR_LAST);
		return 0;
	}
	/* the share the priority path may carry (fair.h's bound) is also its
	 * guaranteed rate; beyond it, it borrows as the default class does */
	ret = class_add(link, classid, parent->classid,
			parent->rate / SJ_SPARSE_SHARE ? parent->rate / SJ_SPARSE_SHARE : 1,
			parent->ceil, interval_ns);
	if (ret < 0) {
		snprintf(why, len, "cannot add class %s under %s: %s",
			 id_text(classid, a, sizeof(a)),
			 id_text(parent->classid, b, sizeof(b)), strerror(-ret));
		return 0;
	}
	return classid;
}

int sj_htb_path_del(__u32 ifindex, __u32 classid)
{
	struct nl_req r;
	int ret;

	ret = sj_nl_talk(sj_tc_req(&r, RTM_DELTCLASS, NLM_F_ACK, ifindex, classid, 0),
			 NULL, NULL);
	/* gone already, with its device or its root: nothing left to do */
	return ret == -ENOENT || ret == -ENODEV || ret == -EOPNOTSUPP ? 0 : ret;
}
