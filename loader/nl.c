// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rtnetlink queries through libmnl: a link's facts with the reason it
 * cannot be had (link.c reads them), its root qdisc, its whole qdisc tree,
 * the filters under a tc hook, its packet counters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/pkt_sched.h>
#include <linux/pkt_cls.h>
#include "common.h"

int sj_link_get(const char *name, struct sj_link *link)
{
	int ret = sj_link_lookup(name, link);

	if (ret == -EINVAL)
		return sj_err("bad device name \"%s\"", name ? name : "");
	if (ret == -ENODEV)
		return sj_err("cannot find device \"%s\"%s%s", name,
			      sj_netns_name ? " in netns " : "",
			      sj_netns_name ? sj_netns_name : "");
	if (ret < 0)
		return sj_err("cannot query device \"%s\": %s", name,
			      strerror(-ret));
	return 0;
}

struct tc_walk {
	__u32 ifindex;
	__u32 parent;
	char *kind;
	size_t kind_len;
	int count;
};

static int kind_attr(const struct nlattr *attr, void *data)
{
	struct tc_walk *w = data;

	if (mnl_attr_get_type(attr) == TCA_KIND)
		snprintf(w->kind, w->kind_len, "%s", mnl_attr_get_str(attr));
	return MNL_CB_OK;
}

static int root_qdisc_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	struct tc_walk *w = data;

	if ((__u32)tcm->tcm_ifindex == w->ifindex && tcm->tcm_parent == TC_H_ROOT)
		mnl_attr_parse(nlh, sizeof(*tcm), kind_attr, w);
	return MNL_CB_OK;
}

struct nlmsghdr *sj_tc_req(struct nl_req *r, int type, __u16 flags,
			   __u32 ifindex, __u32 handle, __u32 parent)
{
	struct tcmsg *tcm;

	sj_nl_req(r, type, flags);
	tcm = mnl_nlmsg_put_extra_header(r->nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_handle = handle;
	tcm->tcm_parent = parent;
	return r->nlh;
}

int sj_tc_msg_read(const struct nlmsghdr *nlh, __u32 *handle, __u32 *parent,
		   int (*attr_cb)(const struct nlattr *a, void *data), void *data)
{
	const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);

	*handle = tcm->tcm_handle;
	*parent = tcm->tcm_parent;
	mnl_attr_parse(nlh, sizeof(*tcm), attr_cb, data);
	return MNL_CB_OK;
}

static struct nlmsghdr *tc_dump_req(struct nl_req *r, int type, __u32 ifindex,
				    __u32 parent)
{
	return sj_tc_req(r, type, NLM_F_DUMP, ifindex, 0, parent);
}

/* counts the qdiscs or filters whose parent is w->parent */
static int count_at_parent_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	struct tc_walk *w = data;

	if ((__u32)tcm->tcm_ifindex == w->ifindex && tcm->tcm_parent == w->parent)
		w->count++;
	return MNL_CB_OK;
}

bool sj_has_clsact(__u32 ifindex)
{
	struct tc_walk w = { .ifindex = ifindex, .parent = TC_H_CLSACT };
	struct nl_req r;

	sj_nl_talk(tc_dump_req(&r, RTM_GETQDISC, ifindex, 0), count_at_parent_cb, &w);
	return w.count > 0;
}

int sj_root_qdisc_kind(__u32 ifindex, char *kind, size_t len)
{
	struct tc_walk w = { .ifindex = ifindex, .kind = kind, .kind_len = len };
	struct nl_req r;
	int ret;

	kind[0] = '\0';
	ret = sj_nl_talk(tc_dump_req(&r, RTM_GETQDISC, ifindex, 0), root_qdisc_cb, &w);
	if (ret < 0)
		return sj_err("cannot list qdiscs: %s", strerror(-ret));
	return 0;
}

int sj_count_filters(__u32 ifindex, __u32 parent)
{
	struct tc_walk w = { .ifindex = ifindex, .parent = parent };
	struct nl_req r;
	int ret;

	ret = sj_nl_talk(tc_dump_req(&r, RTM_GETTFILTER, ifindex, parent),
		      count_at_parent_cb, &w);
	if (ret < 0)
		return ret;
	return w.count;
}

/* Every qdisc of the device but those on the ingress side (ingress,
 * clsact): the root, and under a classful root (mq, mqprio, taprio, htb,
 * ...) each child, however deep.  The kernel's dump lists them all for a
 * device, whose qdisc table holds the children at every depth; the
 * invisible ones (defaults the kernel made itself, such as a leaf's pfifo)
 * are asked for too, so nothing below the root is missed. */
struct tree_walk {
	__u32 ifindex;
	struct sj_qdisc_tree *tree;
	int err;
};

static int tree_kind_attr(const struct nlattr *attr, void *data)
{
	struct sj_qdisc *q = data;

	if (mnl_attr_get_type(attr) == TCA_KIND)
		snprintf(q->kind, sizeof(q->kind), "%s", mnl_attr_get_str(attr));
	return MNL_CB_OK;
}

static int tree_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	struct tree_walk *w = data;
	struct sj_qdisc_tree *t = w->tree;
	struct sj_qdisc *q;

	if ((__u32)tcm->tcm_ifindex != w->ifindex || tcm->tcm_parent == TC_H_INGRESS)
		return MNL_CB_OK;	/* TC_H_INGRESS is TC_H_CLSACT too */
	q = sj_grow(t->q, &t->cap, t->n, sizeof(*q), 16);
	if (!q) {
		w->err = -ENOMEM;
		return MNL_CB_ERROR;
	}
	t->q = q;
	q = &t->q[t->n++];
	memset(q, 0, sizeof(*q));
	return sj_tc_msg_read(nlh, &q->handle, &q->parent, tree_kind_attr, q);
}

int sj_qdisc_tree_get(__u32 ifindex, struct sj_qdisc_tree *tree)
{
	struct tree_walk w = { .ifindex = ifindex, .tree = tree };
	struct nlmsghdr *nlh;
	struct nl_req r;
	int ret;

	memset(tree, 0, sizeof(*tree));
	nlh = tc_dump_req(&r, RTM_GETQDISC, ifindex, 0);
	mnl_attr_put(nlh, TCA_DUMP_INVISIBLE, 0, NULL);
	ret = sj_nl_talk(nlh, tree_cb, &w);
	if (w.err)
		ret = w.err;
	if (ret < 0) {
		sj_qdisc_tree_free(tree);
		return sj_err("cannot list qdiscs: %s", strerror(-ret));
	}
	return 0;
}

void sj_qdisc_tree_free(struct sj_qdisc_tree *tree)
{
	free(tree->q);
	memset(tree, 0, sizeof(*tree));
}

/* The filters under one clsact direction, chain 0, as the kernel dumps
 * them: chain 0's filters by priority, and within one priority in the
 * order they are walked, which for bpf filters is the order they run in.
 * Other chains run only when a filter jumps there.  The message a dump
 * gives for a priority's classifier itself (handle 0) is no filter. */
struct filter_walk {
	__u32 ifindex, parent;
	struct sj_tc_filter *f;
	int n, max;
};

static int bpf_opt_attr(const struct nlattr *attr, void *data)
{
	struct sj_tc_filter *f = data;

	if (mnl_attr_get_type(attr) == TCA_BPF_ID &&
	    mnl_attr_get_payload_len(attr) >= sizeof(__u32))
		f->prog_id = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

struct filter_attrs {
	struct sj_tc_filter *f;
	__u32 chain;
	const struct nlattr *options;
};

static int filter_attr(const struct nlattr *attr, void *data)
{
	struct filter_attrs *a = data;

	switch (mnl_attr_get_type(attr)) {
	case TCA_KIND:
		snprintf(a->f->kind, sizeof(a->f->kind), "%s", mnl_attr_get_str(attr));
		break;
	case TCA_CHAIN:
		a->chain = mnl_attr_get_u32(attr);
		break;
	case TCA_OPTIONS:
		a->options = attr;
		break;
	}
	return MNL_CB_OK;
}

static int filter_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	struct filter_walk *w = data;
	struct sj_tc_filter f = {};
	struct filter_attrs a = { .f = &f };

	if ((__u32)tcm->tcm_ifindex != w->ifindex || tcm->tcm_parent != w->parent ||
	    !tcm->tcm_handle || w->n >= w->max)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*tcm), filter_attr, &a);
	if (a.chain)
		return MNL_CB_OK;
	f.prio = TC_H_MAJ(tcm->tcm_info) >> 16;
	f.handle = tcm->tcm_handle;
	if (a.options && !strcmp(f.kind, "bpf"))
		mnl_attr_parse_nested(a.options, bpf_opt_attr, &f);
	w->f[w->n++] = f;
	return MNL_CB_OK;
}

int sj_list_filters(__u32 ifindex, __u32 parent, struct sj_tc_filter *f, int max)
{
	struct filter_walk w = { .ifindex = ifindex, .parent = parent,
				 .f = f, .max = max };
	struct nl_req r;
	int ret;

	ret = sj_nl_talk(tc_dump_req(&r, RTM_GETTFILTER, ifindex, parent),
		      filter_cb, &w);
	return ret < 0 ? ret : w.n;
}

/* The device's own packet counters (IFLA_STATS64), in the current netns. */
static int stats64_attr(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == IFLA_STATS64 &&
	    mnl_attr_get_payload_len(attr) >= sizeof(struct rtnl_link_stats64))
		memcpy(data, mnl_attr_get_payload(attr), sizeof(struct rtnl_link_stats64));
	return MNL_CB_OK;
}

static int stats64_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, sizeof(struct ifinfomsg), stats64_attr, data);
	return MNL_CB_OK;
}

int sj_link_packets(__u32 ifindex, __u64 *rx, __u64 *tx)
{
	struct rtnl_link_stats64 st = {};
	struct ifinfomsg *ifm;
	struct nl_req r;
	int ret;

	sj_nl_req(&r, RTM_GETLINK, NLM_F_ACK);
	ifm = mnl_nlmsg_put_extra_header(r.nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = ifindex;
	ret = sj_nl_talk(r.nlh, stats64_cb, &st);
	if (ret < 0)
		return ret;
	*rx = st.rx_packets;
	*tx = st.tx_packets;
	return 0;
}
