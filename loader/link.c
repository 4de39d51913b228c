// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A link's facts from rtnetlink: the one parser of RTM_NEWLINK (its
 * ifinfomsg and the IFLA attributes sojourn reads), the exchange of a
 * request and its answers, and the query of one device by name.  The
 * loader's queries (nl.c), the link type attach checks (linktype.c), the
 * daemon's link watch and the CNI plugin's host veth all read links
 * through here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <libmnl/libmnl.h>
#include <linux/if_arp.h>
#include <linux/if_link.h>
#include <linux/if_tunnel.h>
#include <linux/rtnetlink.h>
#include "link.h"

/* The buffer is zeroed first: libmnl 1.0.4 (Debian 12) copies an
 * attribute's payload and leaves its alignment padding as it was, so a
 * name of odd length sent stack garbage to the kernel (which skips it;
 * valgrind does not). */
struct nlmsghdr *sj_nl_req(struct nl_req *r, __u16 type, __u16 flags)
{
	memset(r->buf, 0, sizeof(r->buf));
	r->nlh = mnl_nlmsg_put_header(r->buf);
	r->nlh->nlmsg_type = type;
	r->nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	return r->nlh;
}

int sj_nl_talk(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[SJ_NL_BUF];
	struct mnl_socket *nl;
	unsigned int seq, portid;
	int ret;

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	nlh->nlmsg_seq = seq = time(NULL);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	do {
		ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (ret <= 0) {
			ret = ret < 0 ? -errno : -EIO;
			break;
		}
		ret = mnl_cb_run(buf, ret, seq, portid, cb, data);
	} while (ret > 0);
	if (ret < 0 && errno)
		ret = -errno;
out:
	mnl_socket_close(nl);
	return ret;
}

/* mnl_attr_parse's callback: each attribute into its slot of a table;
 * types beyond what these headers know are left out */
struct attr_table {
	const struct nlattr **tb;
	unsigned int max;
};

static int attr_slot(const struct nlattr *attr, void *data)
{
	const struct attr_table *t = data;

	if (mnl_attr_type_valid(attr, t->max) > 0)
		t->tb[mnl_attr_get_type(attr)] = attr;
	return MNL_CB_OK;
}

/*
 * Whether a GRE device hands its packets over with the outer IP and GRE
 * headers already in front.  Such a device has header_ops: ip_gre.c gives
 * them to one with no fixed remote (NBMA, remote 0) or a multicast one,
 * unless it is `external` (collect_md); ip6_gre.c to one whose remote is
 * :: and not external (Linux 4.x to 6.18, ipgre_tunnel_init,
 * ip6gre_tunnel_init).  Its header_ops write the outer header when the
 * neighbour is resolved, before tc egress, and ipgre_xmit pulls it off
 * again and builds its own; on receive, __ipgre_rcv leaves the mac header
 * on the outer IP header, so tc ingress and generic XDP see it too.  The
 * tc program finds the inner header by itself (bpf/tc.bpf.c,
 * sj_skb_net_off); XDP cannot, and this says where it would misread.
 * header_ops are given once, when the device is made (ndo_init), and the
 * remote read here is today's: gre refuses to change a remote between
 * none, unicast and multicast (-EINVAL on 6.1), so its remote tells; but
 * ip6gre lets :: become a unicast remote (6.1), and such a device keeps
 * the header_ops it was made with.  Nothing netlink reports tells the two
 * apart, so an ip6gre device that is not external may carry the outer
 * header, whatever its remote says today.
 */
static bool gre_outer_header(const char *kind, const struct nlattr *data)
{
	const struct nlattr *tb[IFLA_GRE_MAX + 1] = {};
	struct attr_table t = { tb, IFLA_GRE_MAX };
	const unsigned char *remote;
	unsigned int len, i;
	bool v6 = !strcmp(kind, "ip6gre");

	if (!data || (!v6 && strcmp(kind, "gre")))
		return false;
	mnl_attr_parse_nested(data, attr_slot, &t);
	if (tb[IFLA_GRE_COLLECT_METADATA])
		return false;
	if (v6)
		return true;		/* it may have been made with :: */
	if (!tb[IFLA_GRE_REMOTE])
		return true;		/* no remote said: none */
	remote = mnl_attr_get_payload(tb[IFLA_GRE_REMOTE]);
	len = mnl_attr_get_payload_len(tb[IFLA_GRE_REMOTE]);
	if (len == 4 && (remote[0] & 0xf0) == 0xe0)
		return true;		/* 224.0.0.0/4: multicast */
	for (i = 0; i < len; i++)
		if (remote[i])
			return false;
	return true;
}

void sj_link_parse(const struct nlmsghdr *nlh, struct sj_link *link)
{
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[IFLA_MAX + 1] = {};
	const struct nlattr *info[IFLA_INFO_MAX + 1] = {};
	struct attr_table t = { tb, IFLA_MAX }, ti = { info, IFLA_INFO_MAX };

	memset(link, 0, sizeof(*link));
	link->ifindex = ifm->ifi_index;
	link->flags = ifm->ifi_flags;
	link->type = ifm->ifi_type;
	link->hard_header_len = ifm->ifi_type == ARPHRD_ETHER ? 14 : 0;
	mnl_attr_parse(nlh, sizeof(*ifm), attr_slot, &t);
	if (tb[IFLA_IFNAME])
		snprintf(link->name, sizeof(link->name), "%s",
			 mnl_attr_get_str(tb[IFLA_IFNAME]));
	if (tb[IFLA_MTU])
		link->mtu = mnl_attr_get_u32(tb[IFLA_MTU]);
	if (tb[IFLA_NUM_TX_QUEUES])
		link->num_tx_queues = mnl_attr_get_u32(tb[IFLA_NUM_TX_QUEUES]);
	if (tb[IFLA_LINK])
		link->peer = mnl_attr_get_u32(tb[IFLA_LINK]);
	link->hardware = tb[IFLA_PARENT_DEV_NAME] != NULL;
	if (tb[IFLA_LINKINFO])
		mnl_attr_parse_nested(tb[IFLA_LINKINFO], attr_slot, &ti);
	if (info[IFLA_INFO_KIND]) {
		snprintf(link->kind, sizeof(link->kind), "%s",
			 mnl_attr_get_str(info[IFLA_INFO_KIND]));
		link->outer_header = ifm->ifi_type != ARPHRD_ETHER &&
			gre_outer_header(link->kind, info[IFLA_INFO_DATA]);
	}
}

static int lookup_cb(const struct nlmsghdr *nlh, void *data)
{
	sj_link_parse(nlh, data);
	return MNL_CB_OK;
}

int sj_link_lookup(const char *name, struct sj_link *link)
{
	struct nl_req r;
	struct ifinfomsg *ifm;
	int ret;

	memset(link, 0, sizeof(*link));
	if (!name || !*name || strlen(name) >= SJ_IFNAMSIZ)
		return -EINVAL;
	sj_nl_req(&r, RTM_GETLINK, NLM_F_ACK);
	ifm = mnl_nlmsg_put_extra_header(r.nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(r.nlh, IFLA_IFNAME, name);
	ret = sj_nl_talk(r.nlh, lookup_cb, link);
	if (ret >= 0 && !link->ifindex)
		ret = -ENODEV;
	if (ret < 0)
		return ret;
	if (!link->num_tx_queues)
		link->num_tx_queues = 1;
	return 0;
}
