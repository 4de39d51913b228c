/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* link.c: a link as rtnetlink describes it (RTM_NEWLINK), read in one
 * place for the loader's queries, the daemon's link watch and the CNI
 * plugin, which links this object alone of the loader's: libmnl only. */
#ifndef SJ_LINK_H
#define SJ_LINK_H

#include <stdbool.h>
#include <linux/types.h>

/* IFNAMSIZ, without <linux/if.h> or <net/if.h>: the two clash when both
 * are read, and this header's readers include one or the other */
#define SJ_IFNAMSIZ 16

struct sj_link {
	char name[SJ_IFNAMSIZ];
	__u32 ifindex;
	__u32 flags;		/* IFF_UP, IFF_LOOPBACK, ... */
	__u16 type;		/* ARPHRD_*: where its frames begin */
	__u32 mtu;
	__u32 num_tx_queues;	/* 0 when the kernel did not say */
	__u32 hard_header_len;	/* Ethernet: 14 */
	__u32 peer;		/* IFLA_LINK: a veth's peer's ifindex, in the
				 * peer's namespace; 0: none */
	bool hardware;		/* a bus device under it (IFLA_PARENT_DEV_NAME) */
	char kind[16];		/* "veth", "bridge", ...; "" for a NIC */
	bool outer_header;	/* a GRE device whose frames carry, or
				 * for all netlink says may carry, the
				 * tunnel's outer header at tc and XDP
				 * (link.c, gre_outer_header) */
};

struct nlmsghdr;

/* one RTM_NEWLINK message into *link (cleared first) */
void sj_link_parse(const struct nlmsghdr *nlh, struct sj_link *link);

/* at least MNL_SOCKET_BUFFER_SIZE, which is not a constant */
#define SJ_NL_BUF 16384

struct nl_req {
	char buf[SJ_NL_BUF];
	struct nlmsghdr *nlh;
};

/* The header of a request of type, NLM_F_REQUEST | flags, in r (link.c) */
struct nlmsghdr *sj_nl_req(struct nl_req *r, __u16 type, __u16 flags);

/* A tc request (qdisc, class, filter) in r: type, NLM_F_* beyond
 * NLM_F_REQUEST, the device and the tcmsg's handle and parent (nl.c) */
struct nlmsghdr *sj_tc_req(struct nl_req *r, int type, __u16 flags,
			   __u32 ifindex, __u32 handle, __u32 parent);

/* One qdisc or class of a tc dump: its handle and parent into *handle and
 * *parent, its attributes to attr_cb with data (nl.c).  MNL_CB_OK, what
 * the dump's callback returns next. */
struct nlattr;
int sj_tc_msg_read(const struct nlmsghdr *nlh, __u32 *handle, __u32 *parent,
		   int (*attr_cb)(const struct nlattr *a, void *data), void *data);

/* Sends the request on a socket of its own in the current namespace and
 * feeds every answer to cb until the kernel is done; >= 0, or -errno. */
int sj_nl_talk(struct nlmsghdr *nlh,
	       int (*cb)(const struct nlmsghdr *nlh, void *data), void *data);

/* the device of that name in the current namespace; -EINVAL for a bad
 * name, -ENODEV for none, -errno.  num_tx_queues is at least 1. */
int sj_link_lookup(const char *name, struct sj_link *link);

#endif
