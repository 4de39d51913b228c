// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The device's link type decides where the programs start to parse.  tc
 * and XDP hand them the frame from the device's own link-layer header:
 * Ethernet's 14 bytes on Ethernet-like devices (veth, bridges, VLANs,
 * macvlan, vxlan, tap, loopback's zeroed header), none at all on L3
 * devices, where the IP header comes first.  Anything else (Wi-Fi monitor
 * headers, InfiniBand, CAN, 6LoWPAN, ...) is refused at attach: a parser
 * that read it as Ethernet would count everything non_ip at best.  A GRE
 * device may have its own outer header in front of the IP header (no
 * fixed remote: link.c, gre_outer_header): the tc program finds the IP
 * header where the kernel's network header is, on every GRE device, not
 * by the remote the device has now (its header_ops were given when it was
 * made); XDP has no network header to ask, so it is refused on a device
 * whose remote says it has the outer header.
 */
#include <string.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
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

int sj_linktype_get(const struct sj_link *link, bool xdp, __u32 *layer)
{
	int l = sj_linktype_layer(link->type);
	const char *name;

	if (l < 0) {
		name = sj_linktype_name(link->type);
		return sj_err("%s has link type %s%s%u%s, whose frames sojourn cannot parse (it manages Ethernet and IP-only devices)",
			      link->name, name ? name : "", name ? " (" : "",
			      link->type, name ? ")" : "");
	}
	/* an IFB carries what Ethernet and L3 devices redirect into it,
	 * each packet as its device had it */
	if (l == SJ_LINK_ETHER && !strcmp(link->kind, "ifb"))
		l = SJ_LINK_EITHER;
	if (xdp && link->outer_header && link->type == ARPHRD_IP6GRE)
		return sj_err("%s is an ip6gre device: XDP may see its packets behind the tunnel's outer header (one made with remote :: keeps it after it is given a remote) and cannot ask where the IP header is; use hook tc",
			      link->name);
	if (xdp && link->outer_header)
		return sj_err("%s is a GRE device with no fixed remote (NBMA or multicast): XDP sees its packets behind the tunnel's outer header and cannot ask where the IP header is; use hook tc",
			      link->name);
	if (!xdp && (link->type == ARPHRD_IPGRE || link->type == ARPHRD_IP6GRE))
		l = SJ_LINK_AT_NET;
	*layer = l;
	return 0;
}
