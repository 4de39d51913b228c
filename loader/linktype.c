// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The device's link type decides where the programs start to parse.  tc
 * and XDP hand them the frame from the device's own link-layer header:
 * Ethernet's 14 bytes on Ethernet-like devices (veth, bridges, VLANs,
 * macvlan, vxlan, tap, loopback's zeroed header), none at all on L3
 * devices, where the IP header comes first.  Anything else (Wi-Fi monitor
 * headers, InfiniBand, CAN, 6LoWPAN, ...) is refused at attach: a parser
 * that read it as Ethernet would count everything non_ip at best.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <libmnl/libmnl.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/rtnetlink.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include "common.h"
#include "parse.h"	/* enum sj_link_layer */
#include "linktype.h"

static const struct {
	unsigned int type;
	const char *name;
	int layer;		/* enum sj_link_layer, -1: refused */
} link_types[] = {
	{ ARPHRD_ETHER, "ether", SJ_LINK_ETHER },
	/* loopback writes an Ethernet header of zeros */
	{ ARPHRD_LOOPBACK, "loopback", SJ_LINK_ETHER },
	/* no header: tun, WireGuard, xfrm interfaces */
	{ ARPHRD_NONE, "none", SJ_LINK_L3 },
	{ ARPHRD_PPP, "ppp", SJ_LINK_L3 },
	/* raw-IP cellular modems (qmi_wwan raw_ip, rmnet, MHI) */
	{ ARPHRD_RAWIP, "rawip", SJ_LINK_L3 },
	{ ARPHRD_TUNNEL, "ipip", SJ_LINK_L3 },
	{ ARPHRD_TUNNEL6, "tunnel6", SJ_LINK_L3 },
	{ ARPHRD_SIT, "sit", SJ_LINK_L3 },
	{ ARPHRD_IPGRE, "gre", SJ_LINK_L3 },
	{ ARPHRD_IP6GRE, "ip6gre", SJ_LINK_L3 },
	/* named, so that a refusal says what the device is */
	{ ARPHRD_INFINIBAND, "infiniband", -1 },
	{ ARPHRD_CAN, "can", -1 },
	{ ARPHRD_IEEE80211, "ieee802.11", -1 },
	{ ARPHRD_IEEE80211_PRISM, "ieee802.11-prism", -1 },
	{ ARPHRD_IEEE80211_RADIOTAP, "ieee802.11-radiotap", -1 },
	{ ARPHRD_IEEE802154, "ieee802.15.4", -1 },
	{ ARPHRD_6LOWPAN, "6lowpan", -1 },
	{ ARPHRD_NETLINK, "netlink", -1 },
	{ ARPHRD_SLIP, "slip", -1 },
	{ ARPHRD_CISCO, "cisco-hdlc", -1 },
	{ ARPHRD_RAWHDLC, "raw-hdlc", -1 },
	{ ARPHRD_X25, "x25", -1 },
	{ ARPHRD_MCTP, "mctp", -1 },
	{ ARPHRD_VOID, "void", -1 },
};

#define N_TYPES (sizeof(link_types) / sizeof(link_types[0]))

int sj_linktype_layer(unsigned int arphrd)
{
	for (size_t i = 0; i < N_TYPES; i++)
		if (link_types[i].type == arphrd)
			return link_types[i].layer;
	return -1;
}

const char *sj_linktype_name(unsigned int arphrd)
{
	for (size_t i = 0; i < N_TYPES; i++)
		if (link_types[i].type == arphrd)
			return link_types[i].name;
	return NULL;
}

static int type_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	int *type = data;

	if (nlh->nlmsg_type == RTM_NEWLINK)
		*type = ifm->ifi_type;
	return MNL_CB_OK;
}

/* The link type of ifindex, or -errno */
static int query_type(__u32 ifindex)
{
	char buf[8192];	/* one RTM_NEWLINK answer */
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	unsigned int seq, portid;
	int ret, type = -ENODEV;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq = time(NULL);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = ifindex;

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (ret < 0) {
		ret = -errno;
		goto out;
	}
	ret = mnl_cb_run(buf, ret, seq, portid, type_cb, &type);
	ret = ret < 0 ? -errno : type;
out:
	mnl_socket_close(nl);
	return ret;
}

int sj_linktype_get(__u32 ifindex, const char *dev, __u32 *layer)
{
	int type = query_type(ifindex), l;
	const char *name;

	if (type < 0)
		return sj_err("cannot read the link type of %s: %s", dev,
			      strerror(-type));
	l = sj_linktype_layer(type);
	if (l < 0) {
		name = sj_linktype_name(type);
		return sj_err("%s has link type %s%s%u%s, whose frames sojourn cannot parse (it manages Ethernet and IP-only devices)",
			      dev, name ? name : "", name ? " (" : "", type,
			      name ? ")" : "");
	}
	*layer = l;
	return 0;
}
