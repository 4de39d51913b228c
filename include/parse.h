/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The packet parser, shared by the BPF programs (direct packet access) and
 * the userspace tests and fuzzers (a plain buffer): the same bounds checks
 * satisfy the verifier and keep the userspace build memory-safe.
 *
 * Includers provide the kernel header structs (vmlinux.h, or <linux/ip.h>,
 * <linux/ipv6.h>, <linux/tcp.h>, <linux/udp.h>, <linux/if_ether.h>) and
 * bpf_htons/bpf_ntohs (<bpf/bpf_endian.h> works on both sides).
 */
#ifndef SOJOURN_PARSE_H
#define SOJOURN_PARSE_H

#include "sojourn.h"

/* clang unrolls the bounded loops for the verifier; gcc builds of the
 * same code need no hint */
#ifdef __clang__
#define SJ_UNROLL _Pragma("unroll")
#else
#define SJ_UNROLL
#endif

/* Hides x's range from the compiler, so that a mask the verifier needs to
 * bound x is kept even where the compiler can prove it a no-op (libbpf's
 * barrier_var, which userspace builds of this header do not have) */
#define SJ_OPAQUE(x)	asm volatile("" : "+r"(x))

#define SJ_MAX_VLAN_TAGS	2	/* 802.1ad outer + 802.1Q inner */
#define SJ_MAX_IPV6_EXT		8	/* extension headers walked */
/* MPLS labels walked to the bottom of the stack: an L3VPN has 2-3, segment
 * routing a few more; a deeper stack is counted non_ip */
#define SJ_MAX_MPLS_LABELS	6

#define SJ_ETH_P_IP		0x0800
#define SJ_ETH_P_IPV6		0x86DD
#define SJ_ETH_P_8021Q		0x8100
#define SJ_ETH_P_8021AD		0x88A8
#define SJ_ETH_P_PPP_SES	0x8864	/* PPPoE session stage */
#define SJ_ETH_P_MPLS_UC	0x8847
#define SJ_ETH_P_MPLS_MC	0x8848

#define SJ_PPP_IP		0x0021	/* PPP protocol numbers */
#define SJ_PPP_IPV6		0x0057

/* The IP header lies at most this far in: Ethernet, 2 tags, then 8 bytes of
 * PPPoE or SJ_MAX_MPLS_LABELS labels.  A power of two less one, so that
 * the offset can be masked for the verifier. */
#define SJ_L3_OFF_MAX		63
_Static_assert(14 + 4 * SJ_MAX_VLAN_TAGS + 4 * SJ_MAX_MPLS_LABELS <= SJ_L3_OFF_MAX &&
	       14 + 4 * SJ_MAX_VLAN_TAGS + 8 <= SJ_L3_OFF_MAX,
	       "every IP header offset fits SJ_L3_OFF_MAX");

/*
 * Where a device's frames begin.  The loader reads the device type
 * (ARPHRD_*, loader/linktype.c) and sets the programs' cfg_link_layer.
 */
enum sj_link_layer {
	SJ_LINK_ETHER = 0,	/* Ethernet (and loopback's zeroed one) */
	SJ_LINK_L3 = 1,		/* the IP header first: tun, WireGuard, PPP,
				 * ipip/gre/sit, raw-IP modems */
	SJ_LINK_EITHER = 2,	/* each packet says: an IFB, into which
				 * Ethernet and L3 devices alike redirect
				 * (tc only, bpf/tc.bpf.c sj_skb_link; XDP
				 * reads it as Ethernet) */
	SJ_LINK_AT_NET = 3,	/* the IP header where the kernel's network
				 * header is, behind whatever the device
				 * wrote before it: a GRE device with no
				 * fixed remote writes the tunnel's outer
				 * header there (tc only, bpf/tc.bpf.c
				 * sj_skb_net_off; attach refuses XDP) */
};

#define SJ_IPPROTO_HOPOPTS	0
#define SJ_IPPROTO_ICMP		1
#define SJ_IPPROTO_TCP		6
#define SJ_IPPROTO_UDP		17
#define SJ_IPPROTO_ROUTING	43
#define SJ_IPPROTO_FRAGMENT	44
#define SJ_IPPROTO_AH		51
#define SJ_IPPROTO_ICMPV6	58
#define SJ_IPPROTO_DSTOPTS	60
#define SJ_IPPROTO_MH		135

#define SJ_ECN_MASK		3
#define SJ_ECN_NOT_ECT		0
#define SJ_ECN_ECT0		2	/* ECT(1) is 1: L4S */
#define SJ_ECN_CE		3

struct sj_vlan_hdr {
	__be16 tci;
	__be16 encap_proto;
};

struct sj_ipv6_opt_hdr {
	__u8 nexthdr;
	__u8 hdrlen;
};

/* PPPoE session header (RFC 2516) and the PPP protocol field after it */
struct sj_pppoe_hdr {
	__u8 ver_type;		/* 0x11 */
	__u8 code;		/* 0 in the session stage */
	__be16 session;
	__be16 length;
	__be16 ppp_proto;
};

struct sj_ipv6_frag_hdr {
	__u8 nexthdr;
	__u8 reserved;
	__be16 frag_off;	/* offset << 3 | M flag */
	__be32 identification;
};

/*
 * Where a fragment lies in its datagram.  Only the first carries the L4
 * header: the parser keys every fragment by addresses and protocol, and
 * the programs add the first fragment's ports (sj_frag_ports) and remember
 * them for the later ones (bpf/frag.bpf.h).
 */
enum sj_frag {
	SJ_FRAG_NONE = 0,	/* a whole datagram */
	SJ_FRAG_FIRST = 1,	/* offset 0: its L4 header at frag_l4_off (an
				 * IPv6 atomic fragment, offset 0 and no more
				 * to come, is one too) */
	SJ_FRAG_LATER = 2,	/* offset > 0: no L4 header */
};

/* IPv4 flags and offset (frag_off), IPv6 fragment header offset and M */
#define SJ_IP_MF		0x2000
#define SJ_IP_OFFSET		0x1fff	/* 8-byte units */
#define SJ_IP6_OFFSET		0xfff8	/* already in bytes: units << 3 */
#define SJ_IP6_MF		0x0001
/* A power of two less one that every IPv6 fragment header's offset fits,
 * and that the verifier takes as a bound on a packet offset (its own
 * limit is 0xffff with what is added to it) */
#define SJ_FRAG_HDR_OFF_MAX	0x7fff
_Static_assert(SJ_L3_OFF_MAX + 40 + SJ_MAX_IPV6_EXT * 2048 + 8 <= SJ_FRAG_HDR_OFF_MAX,
	       "every fragment header's offset fits SJ_FRAG_HDR_OFF_MAX");
/* No datagram is longer (RFC 791; RFC 8200 without a jumbo option, which
 * a fragmented datagram cannot have, RFC 2675 section 5) */
#define SJ_IP_MAX_LEN		65535

struct sj_pkt {
	struct sj_flow_key key;
	__u16 l3_off;		/* from the start of the frame */
	union {
		__u16 frag_l4_off;	/* a fragment's data (a first one's
					 * L4 header), from the frame's
					 * start */
		__u16 tcp_flags;	/* a whole TCP packet: its flags,
					 * CWR ... FIN in the low byte and
					 * AE (AccECN, RFC 9768; once NS) in
					 * bit 8 (SJ_TCP_FLAG_AE) */
	};
	__u16 tcp_off;		/* a whole TCP packet: its header, from the
				 * frame's start */
	__u8 kind;		/* enum sj_pkt_kind */
	__u8 ecn;		/* the IP header's two ECN bits */
	__u8 has_flow;		/* key is valid */
	__u8 frag;		/* enum sj_frag */
	__u32 hdr_len;		/* from the frame's start to the end of the
				 * TCP or UDP header: what each GSO segment
				 * repeats; 0 for other packets and for
				 * fragments */
	/* a fragment's datagram: its identification (IPv4's 16 bits, or
	 * IPv6's 32, network order), which every fragment of it repeats
	 * with the addresses and key.proto (the protocol its IP header or
	 * fragment header names); a whole TCP packet's sequence number
	 * (host order) instead */
	union {
		__u32 frag_id;
		__u32 tcp_seq;
	};
};

/* A TCP segment whose header we read: a fragment carries none */
static __always_inline int sj_pkt_tcp(const struct sj_pkt *pkt)
{
	return pkt->key.proto == SJ_IPPROTO_TCP && pkt->frag == SJ_FRAG_NONE;
}

/* A TCP or UDP header of len bytes at l4: both begin with the source
 * and destination ports, which go into the key.  -1 where the packet
 * ends first. */
static __always_inline int sj_l4_ports(void *l4, void *data_end, __u32 len,
				       struct sj_pkt *pkt)
{
	__be16 *port = l4;

	if ((void *)((__u8 *)l4 + len) > data_end)
		return -1;
	pkt->key.sport = port[0];
	pkt->key.dport = port[1];
	return 0;
}

/* l4_off: where l4 starts in the frame */
static __always_inline int sj_parse_l4(void *l4, void *data_end, __u8 proto,
				       __u32 l4_off, struct sj_pkt *pkt)
{
	pkt->key.proto = proto;
	pkt->has_flow = 1;

	if (proto == SJ_IPPROTO_TCP) {
		struct tcphdr *th = l4;

		if (sj_l4_ports(l4, data_end, sizeof(*th), pkt))
			return SJ_PKT_TRUNCATED;
		pkt->hdr_len = l4_off + th->doff * 4;
		pkt->tcp_off = l4_off;
		pkt->tcp_flags = (((__u8 *)th)[12] & 1) << 8 | ((__u8 *)th)[13];
		pkt->tcp_seq = bpf_ntohl(th->seq);
		return SJ_PKT_TCP;
	}
	if (proto == SJ_IPPROTO_UDP) {
		if (sj_l4_ports(l4, data_end, sizeof(struct udphdr), pkt))
			return SJ_PKT_TRUNCATED;
		pkt->hdr_len = l4_off + sizeof(struct udphdr);
		return SJ_PKT_UDP;
	}
	if (proto == SJ_IPPROTO_ICMP || proto == SJ_IPPROTO_ICMPV6) {
		/* type, code, checksum, then the echo identifier */
		__u8 *ic = l4;
		__u8 type;

		if ((void *)(ic + 8) > data_end)
			return SJ_PKT_TRUNCATED;
		type = ic[0];
		/* one ping session is one flow; other ICMP shares a key */
		if (type == 0 || type == 8 || type == 128 || type == 129)
			pkt->key.sport = *(__u16 *)(ic + 4);
		return SJ_PKT_ICMP;
	}
	return SJ_PKT_OTHER_L4;
}

/*
 * A fragment: no L4 header is read here, for the verifier's sake (an IPv6
 * fragment header may sit at any of the walk's places, and reading on
 * after each would make it check the walk over again).  Keyed by addresses
 * and protocol; the programs add the first fragment's ports.
 */
static __always_inline int sj_frag(struct sj_pkt *pkt, __u8 frag, __u32 id,
				   __u8 proto, __u32 l4_off)
{
	pkt->frag = frag;
	pkt->frag_id = id;
	pkt->frag_l4_off = l4_off;
	pkt->key.proto = proto;
	pkt->has_flow = 1;
	return SJ_PKT_FRAGMENT;
}

/*
 * An IPv4 fragment.  One whose end lies past 65535 bytes can never be
 * reassembled (the kernel drops the datagram as oversized,
 * net/ipv4/ip_fragment.c): a bad header, passed as it is.
 */
static __always_inline int sj_parse_frag4(struct iphdr *ip, __u32 l4_off,
					  __u32 tot_len, struct sj_pkt *pkt)
{
	__u32 offset = (bpf_ntohs(ip->frag_off) & SJ_IP_OFFSET) * 8;

	if (offset + tot_len > SJ_IP_MAX_LEN)
		return SJ_PKT_BAD_HEADER;
	return sj_frag(pkt, offset ? SJ_FRAG_LATER : SJ_FRAG_FIRST, ip->id,
		       ip->protocol, l4_off);
}

/*
 * gso: the packet is a GSO aggregate (skb_is_gso).  Its total length may
 * then be 0, which BIG TCP writes for IPv4 aggregates over 64 KB and the
 * kernel reads as "the rest of the skb" (iph_totlen); on anything else a
 * length shorter than the header is bad.
 */
static __always_inline int sj_parse_ipv4(void *data, void *data_end,
					 __u32 off, int gso, struct sj_pkt *pkt)
{
	struct iphdr *ip = data + off;
	__u32 ihl, tot_len;

	if ((void *)(ip + 1) > data_end)
		return SJ_PKT_TRUNCATED;
	ihl = ip->ihl;
	if (ip->version != 4 || ihl < 5)
		return SJ_PKT_BAD_HEADER;
	tot_len = bpf_ntohs(ip->tot_len);
	if (tot_len < ihl * 4 &&
	    !(tot_len == 0 && gso && ip->protocol == SJ_IPPROTO_TCP))
		return SJ_PKT_BAD_HEADER;
	if ((void *)ip + ihl * 4 > data_end)
		return SJ_PKT_TRUNCATED;

	pkt->l3_off = off;
	pkt->ecn = ip->tos & SJ_ECN_MASK;
	pkt->key.family = 4;
	pkt->key.saddr[0] = ip->saddr;
	pkt->key.daddr[0] = ip->daddr;
	if (ip->frag_off & bpf_htons(SJ_IP_MF | SJ_IP_OFFSET))
		return sj_parse_frag4(ip, off + ihl * 4, tot_len, pkt);
	return sj_parse_l4((void *)ip + ihl * 4, data_end, ip->protocol,
			   off + ihl * 4, pkt);
}

static __always_inline int sj_parse_ipv6(void *data, void *data_end,
					 __u32 off, struct sj_pkt *pkt)
{
	struct ipv6hdr *ip6 = data + off;
	__u32 cur_off = off + sizeof(*ip6);
	void *cur;
	__u8 next;
	int i;

	if ((void *)(ip6 + 1) > data_end)
		return SJ_PKT_TRUNCATED;
	if (ip6->version != 6)
		return SJ_PKT_BAD_HEADER;

	pkt->l3_off = off;
	pkt->ecn = (((__u8 *)ip6)[1] >> 4) & SJ_ECN_MASK;
	pkt->key.family = 6;
	__builtin_memcpy(pkt->key.saddr, &ip6->saddr, 16);
	__builtin_memcpy(pkt->key.daddr, &ip6->daddr, 16);

	cur = ip6 + 1;
	next = ip6->nexthdr;
SJ_UNROLL
	/* one pass per extension header, and one more for the L4 header */
	for (i = 0; i <= SJ_MAX_IPV6_EXT; i++) {
		if (next == SJ_IPPROTO_FRAGMENT) {
			struct sj_ipv6_frag_hdr *fh = cur;
			__u16 fo;

			if ((void *)(fh + 1) > data_end)
				return SJ_PKT_TRUNCATED;
			fo = bpf_ntohs(fh->frag_off);
			/* offset 0 and no more to come is an atomic fragment
			 * (RFC 6946), a whole datagram: keyed as a first
			 * fragment, which it is too.  Its lengths are
			 * checked once the walk is over (sj_frag6_bad). */
			return sj_frag(pkt, fo & SJ_IP6_OFFSET ? SJ_FRAG_LATER :
					    SJ_FRAG_FIRST, fh->identification,
				       fh->nexthdr, cur_off + sizeof(*fh));
		}
		if (next == SJ_IPPROTO_HOPOPTS || next == SJ_IPPROTO_ROUTING ||
		    next == SJ_IPPROTO_DSTOPTS || next == SJ_IPPROTO_MH ||
		    next == SJ_IPPROTO_AH) {
			struct sj_ipv6_opt_hdr *opt = cur;
			__u32 len;

			if (cur + sizeof(*opt) > data_end)
				return SJ_PKT_TRUNCATED;
			/* AH counts 4-byte words less 2, the others 8 less 1 */
			if (next == SJ_IPPROTO_AH)
				len = ((__u32)opt->hdrlen + 2) * 4;
			else
				len = ((__u32)opt->hdrlen + 1) * 8;
			next = opt->nexthdr;
			cur += len;
			cur_off += len;
			if (cur > data_end)
				return SJ_PKT_TRUNCATED;
			continue;
		}
		return sj_parse_l4(cur, data_end, next, cur_off, pkt);
	}
	return SJ_PKT_EXT_DEEP;
}

/* An IP header of either version, by its first nibble: what follows an
 * MPLS stack, or a frame of an L3 device when nothing else says */
static __always_inline int sj_parse_ip_any(void *data, void *data_end,
					   __u32 off, int gso,
					   struct sj_pkt *pkt)
{
	__u8 *v = data + off;

	if ((void *)(v + 1) > data_end)
		return SJ_PKT_TRUNCATED;
	if ((*v >> 4) == 4)
		return sj_parse_ipv4(data, data_end, off, gso, pkt);
	if ((*v >> 4) == 6)
		return sj_parse_ipv6(data, data_end, off, pkt);
	return SJ_PKT_NON_IP;
}

/* PPPoE session frames carry PPP: IPv4 and IPv6 are parsed, the rest (LCP,
 * IPCP, ...) is not IP.  PPP's compressed one-byte protocol field is not
 * used on PPPoE (RFC 2516 section 7) and counts as non_ip. */
static __always_inline int sj_parse_pppoe(void *data, void *data_end,
					  __u32 off, int gso,
					  struct sj_pkt *pkt)
{
	struct sj_pppoe_hdr *ph = data + off;

	if ((void *)(ph + 1) > data_end)
		return SJ_PKT_TRUNCATED;
	if (ph->ver_type != 0x11 || ph->code != 0)
		return SJ_PKT_NON_IP;
	off += sizeof(*ph);
	if (ph->ppp_proto == bpf_htons(SJ_PPP_IP))
		return sj_parse_ipv4(data, data_end, off, gso, pkt);
	if (ph->ppp_proto == bpf_htons(SJ_PPP_IPV6))
		return sj_parse_ipv6(data, data_end, off, pkt);
	return SJ_PKT_NON_IP;
}

/* An MPLS label stack: below the label with the bottom-of-stack bit, an IP
 * header says its version in its first nibble (a pseudowire's control word
 * starts with 0, so Ethernet over MPLS is not IP) */
static __always_inline int sj_parse_mpls(void *data, void *data_end,
					 __u32 off, int gso, struct sj_pkt *pkt)
{
	int i;

SJ_UNROLL
	for (i = 0; i < SJ_MAX_MPLS_LABELS; i++) {
		__u8 *label = data + off;

		if ((void *)(label + 4) > data_end)
			return SJ_PKT_TRUNCATED;
		off += 4;
		if (label[2] & 1)
			return sj_parse_ip_any(data, data_end, off, gso, pkt);
	}
	return SJ_PKT_NON_IP;
}

static __always_inline int sj_parse_eth(void *data, void *data_end, int gso,
					struct sj_pkt *pkt)
{
	struct ethhdr *eth = data;
	__u32 off = sizeof(*eth);
	__be16 proto;
	int i;

	if ((void *)(eth + 1) > data_end)
		return SJ_PKT_TRUNCATED;
	proto = eth->h_proto;

SJ_UNROLL
	for (i = 0; i < SJ_MAX_VLAN_TAGS; i++) {
		struct sj_vlan_hdr *vh = data + off;

		if (proto != bpf_htons(SJ_ETH_P_8021Q) &&
		    proto != bpf_htons(SJ_ETH_P_8021AD))
			break;
		if ((void *)(vh + 1) > data_end)
			return SJ_PKT_TRUNCATED;
		proto = vh->encap_proto;
		off += sizeof(*vh);
	}
	if (proto == bpf_htons(SJ_ETH_P_8021Q) ||
	    proto == bpf_htons(SJ_ETH_P_8021AD))
		return SJ_PKT_VLAN_DEEP;

	if (proto == bpf_htons(SJ_ETH_P_IP))
		return sj_parse_ipv4(data, data_end, off, gso, pkt);
	if (proto == bpf_htons(SJ_ETH_P_IPV6))
		return sj_parse_ipv6(data, data_end, off, pkt);
	if (proto == bpf_htons(SJ_ETH_P_PPP_SES))
		return sj_parse_pppoe(data, data_end, off, gso, pkt);
	if (proto == bpf_htons(SJ_ETH_P_MPLS_UC) ||
	    proto == bpf_htons(SJ_ETH_P_MPLS_MC))
		return sj_parse_mpls(data, data_end, off, gso, pkt);
	return SJ_PKT_NON_IP;
}

/*
 * A frame of an L3 device: the IP header at off, 0 but where the caller
 * found a header in front of it (SJ_LINK_AT_NET).  l3_proto is the
 * kernel's word for it (skb->protocol, network order), and a header of the
 * other version is bad; 0 when the hook has no such word (XDP), and the
 * first nibble decides.  Never the bytes at offset 12: an IPv4 source
 * address 8.0.x.x is not an ethertype.
 */
static __always_inline int sj_parse_l3(void *data, void *data_end, __u32 off,
				       __be16 l3_proto, int gso,
				       struct sj_pkt *pkt)
{
	SJ_OPAQUE(off);
	off &= SJ_L3_OFF_MAX;
	if (l3_proto == bpf_htons(SJ_ETH_P_IP))
		return sj_parse_ipv4(data, data_end, off, gso, pkt);
	if (l3_proto == bpf_htons(SJ_ETH_P_IPV6))
		return sj_parse_ipv6(data, data_end, off, pkt);
	if (l3_proto == 0)
		return sj_parse_ip_any(data, data_end, off, gso, pkt);
	return SJ_PKT_NON_IP;
}

/*
 * An IPv6 fragment as the walk left it in pkt.  Bad, as the kernel finds
 * it (ip6_frag_queue, net/ipv6/reassembly.c), when its data would end past
 * 65535 bytes, or when a fragment with more to come is not a multiple of 8
 * bytes long; and when the payload length does not even cover the headers
 * up to its data.  An atomic fragment is never bad here.  Checked once,
 * here, not at each of the walk's places a fragment header may sit: each
 * check there was a path more for the verifier at every one of them.
 */
static __always_inline int sj_frag6_bad(void *data, void *data_end,
					const struct sj_pkt *pkt)
{
	__u32 off, fo_at, payload, unfrag, len, fo;
	struct ipv6hdr *ip6;
	__be16 *fo_be;

	/* what the walk stored, read back from pkt: the verifier then
	 * meets one state here, not one per place the walk came from */
	asm volatile("" ::: "memory");
	off = pkt->l3_off & SJ_L3_OFF_MAX;
	/* the fragment header's offset and M flag, 6 bytes before its
	 * data: read again, bounded for the verifier (it lies within
	 * SJ_L3_OFF_MAX + 40 + SJ_MAX_IPV6_EXT * 2048 bytes) */
	fo_at = (__u32)(pkt->frag_l4_off - 6) & SJ_FRAG_HDR_OFF_MAX;
	ip6 = data + off;
	fo_be = data + fo_at;
	if ((void *)(fo_be + 1) > data_end)
		return 0;
	fo = bpf_ntohs(*fo_be);
	if ((void *)(ip6 + 1) > data_end)
		return 0;
	if (!(fo & (SJ_IP6_OFFSET | SJ_IP6_MF)))
		return 0;
	payload = bpf_ntohs(ip6->payload_len);
	unfrag = pkt->frag_l4_off - off - sizeof(*ip6);
	if (payload < unfrag)
		return 1;
	len = payload - unfrag;
	if ((fo & SJ_IP6_OFFSET) + len > SJ_IP_MAX_LEN)
		return 1;
	return (fo & SJ_IP6_MF) && (len & 7);
}

/*
 * Parse one frame of a link of type `link` (enum sj_link_layer, where
 * SJ_LINK_L3 reads the IP header at l3_off: 0, or on SJ_LINK_AT_NET what
 * the caller found, at most SJ_L3_OFF_MAX); l3_proto and gso as
 * sj_parse_l3 and sj_parse_ipv4 take them.  Returns the kind;
 * pkt->has_flow says whether pkt->key names a flow.  Never reads outside
 * [data, data_end).
 */
static __always_inline int sj_parse_link(void *data, void *data_end,
					 __u32 link, __u32 l3_off,
					 __be16 l3_proto, int gso,
					 struct sj_pkt *pkt)
{
	int kind;

	__builtin_memset(pkt, 0, sizeof(*pkt));
	if (link == SJ_LINK_L3)
		kind = sj_parse_l3(data, data_end, l3_off, l3_proto, gso, pkt);
	else
		kind = sj_parse_eth(data, data_end, gso, pkt);
	if (kind == SJ_PKT_FRAGMENT && pkt->key.family == 6 &&
	    sj_frag6_bad(data, data_end, pkt))
		return SJ_PKT_BAD_HEADER;
	return kind;
}

/* How many bytes of a first fragment's L4 header sj_frag_ports reads */
#define SJ_FRAG_L4_BYTES	8

/*
 * A first fragment's ports, from the first SJ_FRAG_L4_BYTES of its L4
 * header (l4, copied out by the caller; a fragment shorter than that keeps
 * its key of addresses and protocol): what sj_parse_l4 reads of a whole
 * packet.  The protocol is the IP header's or the fragment header's: an
 * IPv6 datagram with an extension header in its fragmentable part (rare:
 * destination options) stays keyed by that header's number.
 */
static __always_inline void sj_frag_ports(struct sj_pkt *pkt, const __u8 *l4)
{
	__u8 proto = pkt->key.proto;

	if (proto == SJ_IPPROTO_TCP || proto == SJ_IPPROTO_UDP) {
		__builtin_memcpy(&pkt->key.sport, l4, 2);
		__builtin_memcpy(&pkt->key.dport, l4 + 2, 2);
	} else if ((proto == SJ_IPPROTO_ICMP || proto == SJ_IPPROTO_ICMPV6) &&
		   (l4[0] == 0 || l4[0] == 8 || l4[0] == 128 || l4[0] == 129)) {
		__builtin_memcpy(&pkt->key.sport, l4 + 4, 2);
	}
}

/* One Ethernet frame, not a GSO aggregate */
static __always_inline int sj_parse(void *data, void *data_end,
				    struct sj_pkt *pkt)
{
	return sj_parse_link(data, data_end, SJ_LINK_ETHER, 0, 0, 0, pkt);
}

/* One's-complement update of a checksum for one changed 16-bit word
 * (RFC 1624, eqn. 3): HC' = ~(~HC + ~m + m'). */
static __always_inline __u16 sj_csum_replace16(__u16 check, __u16 old,
					       __u16 new)
{
	__u32 sum = (__u16)~check + (__u16)~old + (__u32)new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/*
 * Set CE in an ECT packet's IP header, keeping the IPv4 checksum valid.
 * Returns 1 if the packet now carries CE, 0 if it is Not-ECT (never marked).
 * The header must lie within the buffer (the caller checked l3_off).
 */
static __always_inline int sj_ipv4_set_ce(struct iphdr *ip)
{
	/* version, ihl and tos as one network-order word.  The new word is
	 * computed, not read back after the byte store: the compiler may
	 * keep the old load under strict aliasing. */
	__u16 old = *(__u16 *)ip;
	__u16 new = old | bpf_htons(SJ_ECN_CE);

	if ((ip->tos & SJ_ECN_MASK) == SJ_ECN_NOT_ECT)
		return 0;
	if ((ip->tos & SJ_ECN_MASK) == SJ_ECN_CE)
		return 1;
	ip->tos |= SJ_ECN_CE;
	ip->check = sj_csum_replace16(ip->check, old, new);
	return 1;
}

static __always_inline int sj_ipv6_set_ce(struct ipv6hdr *ip6)
{
	__u8 *b = (__u8 *)ip6;	/* traffic class straddles bytes 0 and 1 */

	if (((b[1] >> 4) & SJ_ECN_MASK) == SJ_ECN_NOT_ECT)
		return 0;
	b[1] |= SJ_ECN_CE << 4;
	return 1;
}

/* Sets CE in the parsed packet's IP header; 0 when the header is out of
 * reach or the packet is Not-ECT.  Works on any data/data_end pair: tc,
 * XDP, or a test's buffer. */
static __always_inline int sj_pkt_set_ce(void *data, void *data_end,
					 const struct sj_pkt *pkt)
{
	/* bounded so the verifier can check the access */
	__u32 off = pkt->l3_off & SJ_L3_OFF_MAX;

	if (pkt->key.family == 4) {
		struct iphdr *ip = data + off;

		if ((void *)(ip + 1) > data_end)
			return 0;
		return sj_ipv4_set_ce(ip);
	}
	if (pkt->key.family == 6) {
		struct ipv6hdr *ip6 = data + off;

		if ((void *)(ip6 + 1) > data_end)
			return 0;
		return sj_ipv6_set_ce(ip6);
	}
	return 0;
}

#endif /* SOJOURN_PARSE_H */
