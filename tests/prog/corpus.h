/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Frames for the packet corpus and the property test, each built with what
 * the parser must say about it, written down independently of the parser:
 * the kind, the flow key, and `need`, the bytes the parser reads before it
 * can say that kind (a frame cut shorter is "truncated").
 *
 * Builders append headers; once a header settles the kind for good (a third
 * VLAN tag, a fragment, a bad IHL) later headers add bytes only.
 */
#ifndef SJ_TEST_CORPUS_H
#define SJ_TEST_CORPUS_H

#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>

#include "sojourn.h"
#include "parse.h"	/* its limits only: SJ_MAX_VLAN_TAGS, SJ_MAX_IPV6_EXT,
			 * SJ_MAX_MPLS_LABELS */

#define FR_MAX		9216	/* a jumbo frame */
#define FR_SRC4		"198.18.0.1"
#define FR_DST4		"198.19.0.7"
#define FR_SRC6		"2001:db8::1"
#define FR_DST6		"2001:db8:ff::2"

struct frame {
	__u32 len;
	__u32 l3;		/* IP header offset (0: none) */
	__u32 l4;		/* L4 header offset (0: none) */
	int family;		/* 4, 6 or 0 */
	int kind;		/* enum sj_pkt_kind the parser must return */
	__u32 need;		/* shorter than this is SJ_PKT_TRUNCATED */
	struct sj_flow_key key;	/* when fr_has_flow(kind) */
	int settled;		/* kind no longer changes */
	/* fragments: keyed by addresses and protocol; the program adds a
	 * first fragment's ports when the 8 bytes they lie in are there
	 * (from l4 on); a later fragment is counted as frag_unmatched when
	 * the program saw no first of its datagram (as in every run here) */
	int frag_first;
	int frag_later;
	int frag_more;		/* IPv6: more to come, the data after
				 * frag_end must come in 8-byte units */
	__u32 frag_end;
	int tags;		/* VLAN tags so far */
	int exts;		/* IPv6 extension headers so far */
	int labels;		/* MPLS labels so far */
	__u8 b[FR_MAX];		/* last: fr_eth clears what is above */
};

static inline void *fr_put(struct frame *f, const void *src, __u32 n)
{
	__u8 *p = f->b + f->len;

	if (f->len + n > FR_MAX) {
		fprintf(stderr, "frame over %d bytes\n", FR_MAX);
		exit(2);
	}
	if (src)
		memcpy(p, src, n);
	else
		memset(p, 0, n);
	f->len += n;
	return p;
}

static inline void fr_put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline __u16 fr_get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static inline void fr_settle(struct frame *f, int kind, __u32 need)
{
	if (f->settled)
		return;
	f->kind = kind;
	f->need = need;
	f->settled = 1;
}

/* What the parser says of an IP header's payload it does not read */
static inline void fr_l4_default(struct frame *f, __u8 proto)
{
	f->kind = SJ_PKT_OTHER_L4;
	f->key.proto = proto;
}

/* A fragment: the parse ends at its IP or fragment header */
static inline void fr_fragment(struct frame *f, __u8 proto, int first)
{
	f->frag_first = first;
	f->frag_later = !first;
	f->kind = SJ_PKT_FRAGMENT;
	f->key.proto = proto;
	f->l4 = f->len;
	fr_settle(f, SJ_PKT_FRAGMENT, f->len);
}

/* Whether the header just put at h is a first fragment's L4 header, whose
 * ports the program reads (sj_frag_ports) */
static inline int fr_frag_l4(const struct frame *f, const __u8 *h)
{
	return f->frag_first && h == f->b + f->l4;
}

static inline int fr_is_vlan(__u16 proto)
{
	return proto == 0x8100 || proto == 0x88a8;
}

/* Starts a frame */
static inline void fr_eth(struct frame *f, __u16 proto)
{
	static const __u8 mac[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };

	memset(f, 0, offsetof(struct frame, b));
	fr_put(f, mac, 12);
	fr_put16(fr_put(f, NULL, 2), proto);
	f->kind = SJ_PKT_NON_IP;
	f->need = 14;
}

/* The tag after the ethertype (or tag) that said 0x8100/0x88a8 */
static inline void fr_vlan(struct frame *f, __u16 vid, __u16 next)
{
	__u8 *t = fr_put(f, NULL, 4);

	fr_put16(t, vid);
	fr_put16(t + 2, next);
	if (f->settled)
		return;
	f->tags++;
	f->need = f->len;
	if (f->tags == SJ_MAX_VLAN_TAGS && fr_is_vlan(next))
		fr_settle(f, SJ_PKT_VLAN_DEEP, f->len);
}

/* A PPPoE session header carrying PPP protocol ppp_proto (0x0021 IPv4,
 * 0x0057 IPv6: the IP header follows; anything else is not IP).  Its length
 * field is the builder's to set after the payload (fr_pppoe_len). */
static inline void fr_pppoe(struct frame *f, __u16 ppp_proto)
{
	__u8 *h = fr_put(f, NULL, 8);

	h[0] = 0x11;
	fr_put16(h + 2, 0x1234);
	fr_put16(h + 6, ppp_proto);
	if (f->settled)
		return;
	f->need = f->len;
	if (ppp_proto != 0x0021 && ppp_proto != 0x0057)
		fr_settle(f, SJ_PKT_NON_IP, f->len);
}

static inline void fr_pppoe_len(struct frame *f, __u32 at)
{
	fr_put16(f->b + at + 4, f->len - at - 6);
}

/* An MPLS label; after the bottom one the parser reads one more byte, the
 * IP version nibble; a stack deeper than it walks is not IP */
static inline void fr_mpls(struct frame *f, __u32 label, int bottom)
{
	__u8 *h = fr_put(f, NULL, 4);

	h[0] = label >> 12;
	h[1] = label >> 4;
	h[2] = (label & 0x0f) << 4 | (bottom ? 1 : 0);
	h[3] = 64;
	if (f->settled)
		return;
	f->labels++;
	f->need = f->len + (bottom ? 1 : 0);
	if (!bottom && f->labels == SJ_MAX_MPLS_LABELS)
		fr_settle(f, SJ_PKT_NON_IP, f->len);
}

static inline void fr_addr(int af, const char *s, void *dst)
{
	if (inet_pton(af, s, dst) != 1)
		exit(2);
}

/* IPv4 with IHL words (options as NOPs) from saddr to daddr (network
 * order); fr_finish fills lengths, checksum */
static inline void fr_ip4_addrs(struct frame *f, __u8 tos, __u8 proto,
				__u8 ihl, __u16 frag, __be32 saddr,
				__be32 daddr)
{
	__u32 hlen = ihl > 5 ? ihl * 4u : 20;
	__u8 *h = fr_put(f, NULL, hlen);

	h[0] = 0x40 | (ihl & 0x0f);
	h[1] = tos;
	fr_put16(h + 4, 0x1c46);
	fr_put16(h + 6, frag);
	h[8] = 64;
	h[9] = proto;
	memcpy(h + 12, &saddr, 4);
	memcpy(h + 16, &daddr, 4);
	if (hlen > 20)
		memset(h + 20, 1 /* NOP */, hlen - 20);
	if (f->settled)
		return;
	f->l3 = f->len - hlen;
	f->family = 4;
	f->key.family = 4;
	memcpy(&f->key.saddr[0], h + 12, 4);
	memcpy(&f->key.daddr[0], h + 16, 4);
	f->need = f->len;
	if (ihl < 5) {
		fr_settle(f, SJ_PKT_BAD_HEADER, f->l3 + 20);
		return;
	}
	f->l4 = f->len;
	if (frag & 0x3fff)
		fr_fragment(f, proto, !(frag & 0x1fff));
	else
		fr_l4_default(f, proto);
}

/* The same from FR_SRC4 to FR_DST4 */
static inline void fr_ip4(struct frame *f, __u8 tos, __u8 proto, __u8 ihl,
			  __u16 frag)
{
	__be32 saddr, daddr;

	fr_addr(AF_INET, FR_SRC4, &saddr);
	fr_addr(AF_INET, FR_DST4, &daddr);
	fr_ip4_addrs(f, tos, proto, ihl, frag, saddr, daddr);
}

static inline void fr_ip6(struct frame *f, __u8 tclass, __u32 flowlbl,
			  __u8 next)
{
	__u8 *h = fr_put(f, NULL, 40);

	h[0] = 0x60 | tclass >> 4;
	h[1] = (tclass & 0x0f) << 4 | ((flowlbl >> 16) & 0x0f);
	h[2] = flowlbl >> 8;
	h[3] = flowlbl;
	h[6] = next;
	h[7] = 64;
	fr_addr(AF_INET6, FR_SRC6, h + 8);
	fr_addr(AF_INET6, FR_DST6, h + 24);
	if (f->settled)
		return;
	f->l3 = f->len - 40;
	f->family = 6;
	f->key.family = 6;
	memcpy(f->key.saddr, h + 8, 16);
	memcpy(f->key.daddr, h + 24, 16);
	f->need = f->len;
	f->l4 = f->len;
	fr_l4_default(f, next);
}

/* An extension header of `type` (hop-by-hop, routing, destination, mobility:
 * 8-byte units; AH: 4-byte units) spanning len bytes, padded with zeros */
static inline void fr_ext6(struct frame *f, __u8 type, __u8 next, __u32 len)
{
	__u8 *h = fr_put(f, NULL, len);

	h[0] = next;
	h[1] = type == 51 ? len / 4 - 2 : len / 8 - 1;
	if (len >= 4 && type != 51) {
		h[2] = 1;		/* PadN */
		h[3] = len - 4;
	}
	if (f->settled)
		return;
	f->exts++;
	f->need = f->len;
	f->l4 = f->len;
	fr_l4_default(f, next);
	/* the parser walks SJ_MAX_IPV6_EXT; one more settles it */
	if (f->exts > SJ_MAX_IPV6_EXT)
		fr_settle(f, SJ_PKT_EXT_DEEP, f->len);
}

/* A fragment header ends the parse; offset 0 and no more, an atomic
 * fragment (RFC 6946), is keyed as a first fragment */
static inline void fr_frag6(struct frame *f, __u8 next, __u16 off8, int more)
{
	__u8 *h = fr_put(f, NULL, 8);

	h[0] = next;
	fr_put16(h + 2, off8 << 3 | (more ? 1 : 0));
	fr_put16(h + 6, 0x4242);
	if (f->settled)
		return;
	f->frag_more = more;
	f->frag_end = f->len;
	fr_fragment(f, next, !off8);
}

static inline void fr_tcp(struct frame *f, __u16 sport, __u16 dport)
{
	__u8 *h = fr_put(f, NULL, 20);

	fr_put16(h, sport);
	fr_put16(h + 2, dport);
	h[7] = 1;		/* seq */
	h[12] = 5 << 4;		/* doff */
	h[13] = 0x10;		/* ACK */
	fr_put16(h + 14, 512);
	fr_put(f, "payload!", 8);
	if (fr_frag_l4(f, h)) {
		f->key.sport = htons(sport);
		f->key.dport = htons(dport);
	}
	if (f->settled)
		return;
	f->kind = SJ_PKT_TCP;
	f->need = f->l4 + 20;
	f->key.sport = htons(sport);
	f->key.dport = htons(dport);
}

/* A UDP header and n bytes of payload (NULL: zeros) */
static inline void fr_udp_payload(struct frame *f, __u16 sport, __u16 dport,
				  const void *payload, __u16 n)
{
	__u8 *h = fr_put(f, NULL, 8);

	fr_put16(h, sport);
	fr_put16(h + 2, dport);
	fr_put16(h + 4, 8 + n);
	fr_put(f, payload, n);
	if (fr_frag_l4(f, h)) {
		f->key.sport = htons(sport);
		f->key.dport = htons(dport);
	}
	if (f->settled)
		return;
	f->kind = SJ_PKT_UDP;
	f->need = f->l4 + 8;
	f->key.sport = htons(sport);
	f->key.dport = htons(dport);
}

static inline void fr_udp(struct frame *f, __u16 sport, __u16 dport)
{
	fr_udp_payload(f, sport, dport, "hello world!", 12);
}

/* ICMP or ICMPv6: echo request/reply key the identifier as sport */
static inline void fr_icmp(struct frame *f, __u8 type, __u16 id)
{
	__u8 *h = fr_put(f, NULL, 8);

	h[0] = type;
	fr_put16(h + 4, id);
	fr_put16(h + 6, 1);
	fr_put(f, "ping-data", 9);
	if (fr_frag_l4(f, h) &&
	    (type == 0 || type == 8 || type == 128 || type == 129))
		f->key.sport = htons(id);
	if (f->settled)
		return;
	f->kind = SJ_PKT_ICMP;
	f->need = f->l4 + 8;
	if (type == 0 || type == 8 || type == 128 || type == 129)
		f->key.sport = htons(id);
}

static inline __u32 fr_csum_fold(const __u8 *p, __u32 n)
{
	__u32 sum = 0;

	for (__u32 i = 0; i + 1 < n; i += 2)
		sum += (__u32)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (__u32)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static inline __u32 fr_ip4_hlen(const __u8 *ip)
{
	__u32 hl = (ip[0] & 0x0f) * 4;

	return hl < 20 ? 20 : hl;
}

static inline void fr_ip4_csum(__u8 *ip)
{
	fr_put16(ip + 10, 0);
	fr_put16(ip + 10, ~fr_csum_fold(ip, fr_ip4_hlen(ip)) & 0xffff);
}

static inline int fr_ip4_csum_ok(const __u8 *ip)
{
	return fr_csum_fold(ip, fr_ip4_hlen(ip)) == 0xffff;
}

/* IP lengths and the IPv4 checksum: after the payload */
static inline void fr_finish(struct frame *f)
{
	__u8 *ip = f->b + f->l3;

	if (f->family == 4) {
		fr_put16(ip + 2, f->len - f->l3);
		fr_ip4_csum(ip);
	} else if (f->family == 6) {
		fr_put16(ip + 4, f->len - f->l3 - 40);
		/* RFC 8200: a fragment with more to come carries 8-byte
		 * units; the parser, as the kernel, finds it bad at its
		 * fragment header */
		if (f->frag_more && (f->len - f->frag_end) % 8) {
			f->kind = SJ_PKT_BAD_HEADER;
			f->need = f->frag_end;
			f->settled = 1;
		}
	}
}

/* The kind the parser must give the frame cut to len bytes */
static inline int fr_kind_at(const struct frame *f, __u32 len)
{
	return len < f->need ? SJ_PKT_TRUNCATED : f->kind;
}

/* The kinds keyed to a flow, by name: the programs' sj_pkt_kind_keyed is
 * a range over the enum's order, and a kind on the wrong side shows here */
static inline int fr_has_flow(int kind)
{
	switch (kind) {
	case SJ_PKT_TCP:
	case SJ_PKT_UDP:
	case SJ_PKT_ICMP:
	case SJ_PKT_OTHER_L4:
	case SJ_PKT_FRAGMENT:
		return 1;
	default:
		return 0;
	}
}

/* The flow key of the frame cut to len bytes, of that kind (NULL: none):
 * a first fragment keeps its ports only while the 8 bytes they lie in
 * are there; tmp holds the key without them */
static inline const struct sj_flow_key *fr_key_at(const struct frame *f,
						  __u32 len, int kind,
						  struct sj_flow_key *tmp)
{
	if (kind != f->kind || !fr_has_flow(kind))
		return NULL;
	if (!f->frag_first || len >= f->l4 + SJ_FRAG_L4_BYTES)
		return &f->key;
	*tmp = f->key;
	tmp->sport = tmp->dport = 0;
	return tmp;
}

/* Whether the frame cut to a length of this kind is a later fragment the
 * program finds no first for: one counted in frag_unmatched */
static inline int fr_unmatched(const struct frame *f, int kind)
{
	return kind == SJ_PKT_FRAGMENT && kind == f->kind && f->frag_later;
}

/* ------------------------------------------------------------------ */
/* The base frames: every kind, every header the parser knows           */

#define P_ICMP 1
#define P_TCP 6
#define P_UDP 17
#define P_GRE 47
#define P_ESP 50
#define P_AH 51
#define P_ICMP6 58
#define P_NONXT 59
#define P_HBH 0
#define P_RT 43
#define P_FRAG 44
#define P_DST 60
#define P_MH 135
#define P_SCTP 132

typedef void (*fr_build_fn)(struct frame *f);

static inline void b_tcp4(struct frame *f)
{
	fr_eth(f, 0x0800);
	fr_ip4(f, 0, P_TCP, 5, 0x4000 /* DF: not a fragment */);
	fr_tcp(f, 40001, 80);
	fr_finish(f);
}

static inline void b_udp4(struct frame *f)
{
	fr_eth(f, 0x0800);
	fr_ip4(f, 0, P_UDP, 5, 0);
	fr_udp(f, 5353, 53);
	fr_finish(f);
}

static inline void b_tcp4_opts(struct frame *f)
{
	fr_eth(f, 0x0800);
	fr_ip4(f, 0, P_TCP, 15, 0);
	fr_tcp(f, 40002, 8080);
	fr_finish(f);
}

static inline void b_icmp4(struct frame *f)
{
	fr_eth(f, 0x0800);
	fr_ip4(f, 0, P_ICMP, 5, 0);
	fr_icmp(f, 8, 0x1234);
	fr_finish(f);
}

static inline void b_icmp4_unreach(struct frame *f)
{
	fr_eth(f, 0x0800);
	fr_ip4(f, 0, P_ICMP, 5, 0);
	fr_icmp(f, 3, 0x5555);
	fr_finish(f);
}

static inline void b_gre4(struct frame *f)
{
	fr_eth(f, 0x0800);
	fr_ip4(f, 0, P_GRE, 5, 0);
	fr_put(f, "\x00\x00\x08\x00", 4);
	fr_finish(f);
}

static inline void b_evil_bit4(struct frame *f)
{
	fr_eth(f, 0x0800);
	fr_ip4(f, 0, P_UDP, 5, 0x8000 /* reserved bit: not a fragment */);
	fr_udp(f, 1, 2);
	fr_finish(f);
}

static inline void b_frag4_first(struct frame *f)
{
	fr_eth(f, 0x0800);
	fr_ip4(f, 0, P_UDP, 5, 0x2000);
	fr_udp(f, 40007, 53);
	fr_finish(f);
}

static inline void b_frag4_later(struct frame *f)
{
	fr_eth(f, 0x0800);
	fr_ip4(f, 0, P_UDP, 5, 185);
	fr_put(f, "the rest of the datagram", 24);
	fr_finish(f);
}

static inline void b_frag4_middle(struct frame *f)
{
	fr_eth(f, 0x0800);
	fr_ip4(f, 0, P_TCP, 5, 0x2000 | 185);
	fr_put(f, "middle", 6);
	fr_finish(f);
}

static inline void b_tcp6(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0x5eed5, P_TCP);
	fr_tcp(f, 40003, 443);
	fr_finish(f);
}

static inline void b_udp6(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_UDP);
	fr_udp(f, 40004, 4789);
	fr_finish(f);
}

static inline void b_icmp6(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_ICMP6);
	fr_icmp(f, 128, 0xbeef);
	fr_finish(f);
}

static inline void b_icmp6_ns(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_ICMP6);
	fr_icmp(f, 135, 0x7777);	/* neighbour solicitation: no id */
	fr_finish(f);
}

static inline void b_ext_mix6(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_HBH);
	fr_ext6(f, P_HBH, P_DST, 8);
	fr_ext6(f, P_DST, P_RT, 16);
	fr_ext6(f, P_RT, P_AH, 24);
	fr_ext6(f, P_AH, P_MH, 24);
	fr_ext6(f, P_MH, P_UDP, 8);
	fr_udp(f, 40005, 53);
	fr_finish(f);
}

static inline void b_ext8_6(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_DST);
	for (int i = 0; i < SJ_MAX_IPV6_EXT; i++)
		fr_ext6(f, P_DST, i + 1 < SJ_MAX_IPV6_EXT ? P_DST : P_TCP, 8);
	fr_tcp(f, 40006, 22);
	fr_finish(f);
}

/* Nine destination-options headers, each naming the next: a chain the
 * parser must give up on */
static inline void b_ext9_6(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_DST);
	for (int i = 0; i < SJ_MAX_IPV6_EXT + 1; i++)
		fr_ext6(f, P_DST, i < SJ_MAX_IPV6_EXT ? P_DST : P_UDP, 8);
	fr_udp(f, 40007, 53);
	fr_finish(f);
}

/* A "loop": hop-by-hop headers naming hop-by-hop, many times */
static inline void b_ext_loop6(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_HBH);
	for (int i = 0; i < 40; i++)
		fr_ext6(f, P_HBH, P_HBH, 8);
	fr_finish(f);
}

static inline void b_esp6(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_DST);
	fr_ext6(f, P_DST, P_ESP, 8);
	fr_put(f, "\x00\x00\x01\x00\x00\x00\x00\x01", 8);
	fr_finish(f);
}

static inline void b_nonxt6(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_NONXT);
	fr_finish(f);
}

static inline void b_frag6_first(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_FRAG);
	fr_frag6(f, P_UDP, 0, 1);
	fr_udp(f, 40008, 53);
	fr_put(f, NULL, 4);	/* 8-byte units: there is more to come */
	fr_finish(f);
}

/* more to come, and 20 bytes of it: not in 8-byte units */
static inline void b_frag6_odd(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_FRAG);
	fr_frag6(f, P_UDP, 0, 1);
	fr_udp(f, 40009, 53);
	fr_finish(f);
}

static inline void b_frag6_later(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_HBH);
	fr_ext6(f, P_HBH, P_FRAG, 8);
	fr_frag6(f, P_TCP, 181, 0);
	fr_put(f, "tail of it", 10);
	fr_finish(f);
}

static inline void b_frag6_atomic(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_FRAG);
	fr_frag6(f, P_TCP, 0, 0);
	fr_tcp(f, 1, 2);
	fr_finish(f);
}

static inline void b_vlan_tcp4(struct frame *f)
{
	fr_eth(f, 0x8100);
	fr_vlan(f, 100, 0x0800);
	fr_ip4(f, 0, P_TCP, 5, 0);
	fr_tcp(f, 40009, 22);
	fr_finish(f);
}

static inline void b_qinq_udp6(struct frame *f)
{
	fr_eth(f, 0x88a8);
	fr_vlan(f, 10, 0x8100);
	fr_vlan(f, 20, 0x86dd);
	fr_ip6(f, 0, 0, P_UDP);
	fr_udp(f, 40010, 123);
	fr_finish(f);
}

static inline void b_qinq_rev_tcp4(struct frame *f)
{
	fr_eth(f, 0x8100);
	fr_vlan(f, 10, 0x88a8);
	fr_vlan(f, 20, 0x0800);
	fr_ip4(f, 0, P_TCP, 5, 0);
	fr_tcp(f, 40011, 25);
	fr_finish(f);
}

static inline void b_vlan3(struct frame *f)
{
	fr_eth(f, 0x88a8);
	fr_vlan(f, 1, 0x8100);
	fr_vlan(f, 2, 0x8100);
	fr_vlan(f, 3, 0x0800);
	fr_ip4(f, 0, P_TCP, 5, 0);
	fr_tcp(f, 40012, 80);
	fr_finish(f);
}

static inline void b_vlan6(struct frame *f)
{
	fr_eth(f, 0x8100);
	for (int i = 0; i < 6; i++)
		fr_vlan(f, i, i < 5 ? 0x8100 : 0x86dd);
	fr_ip6(f, 0, 0, P_UDP);
	fr_udp(f, 1, 2);
	fr_finish(f);
}

static inline void b_arp(struct frame *f)
{
	static const __u8 arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1,
				      198, 18, 0, 1, 0, 0, 0, 0, 0, 0,
				      198, 19, 0, 7 };

	fr_eth(f, 0x0806);
	fr_put(f, arp, sizeof(arp));
}

static inline void b_vlan_arp(struct frame *f)
{
	fr_eth(f, 0x8100);
	fr_vlan(f, 7, 0x0806);
	fr_put(f, NULL, 28);
}

static inline void b_lldp(struct frame *f)
{
	fr_eth(f, 0x88cc);
	fr_put(f, "\x02\x07\x04\x02\x00\x00\x00\x00\x01", 9);
}

/* label 20, bottom, then zeros: version nibble 0, not IP */
static inline void b_mpls_zeros(struct frame *f)
{
	fr_eth(f, 0x8847);
	fr_mpls(f, 20, 1);
	fr_put(f, NULL, 40);
}

static inline void b_mpls_tcp4(struct frame *f)
{
	fr_eth(f, 0x8847);
	fr_mpls(f, 16, 1);
	fr_ip4(f, 0, P_TCP, 5, 0);
	fr_tcp(f, 40013, 80);
	fr_finish(f);
}

static inline void b_mpls3_tcp6(struct frame *f)
{
	fr_eth(f, 0x8847);
	fr_mpls(f, 100, 0);
	fr_mpls(f, 200, 0);
	fr_mpls(f, 300, 1);
	fr_ip6(f, 0, 0, P_TCP);
	fr_tcp(f, 40014, 443);
	fr_finish(f);
}

static inline void b_mpls_mc_udp6(struct frame *f)
{
	fr_eth(f, 0x8848);
	fr_mpls(f, 7, 1);
	fr_ip6(f, 0, 0, P_UDP);
	fr_udp(f, 40015, 53);
	fr_finish(f);
}

/* an Ethernet pseudowire: control word 0, then a frame */
static inline void b_mpls_pw(struct frame *f)
{
	fr_eth(f, 0x8847);
	fr_mpls(f, 500, 1);
	fr_put(f, NULL, 4);
	fr_put(f, f->b, 14);
	fr_put(f, NULL, 46);
}

/* one label more than the parser walks, then IPv4 */
static inline void b_mpls_deep(struct frame *f)
{
	fr_eth(f, 0x8847);
	for (int i = 0; i <= SJ_MAX_MPLS_LABELS; i++)
		fr_mpls(f, 1000 + i, i == SJ_MAX_MPLS_LABELS);
	fr_ip4(f, 0, P_TCP, 5, 0);
	fr_tcp(f, 1, 2);
	fr_finish(f);
}

/* PPP says IPv4, 20 bytes of zeros follow: version 0 */
static inline void b_pppoe_zeros(struct frame *f)
{
	fr_eth(f, 0x8864);
	fr_pppoe(f, 0x0021);
	fr_put(f, NULL, 20);
	fr_pppoe_len(f, 14);
	fr_settle(f, SJ_PKT_BAD_HEADER, f->len);
}

static inline void b_pppoe_tcp4(struct frame *f)
{
	fr_eth(f, 0x8864);
	fr_pppoe(f, 0x0021);
	fr_ip4(f, 0, P_TCP, 5, 0x4000);
	fr_tcp(f, 40016, 80);
	fr_finish(f);
	fr_pppoe_len(f, 14);
}

static inline void b_pppoe_udp6(struct frame *f)
{
	fr_eth(f, 0x8864);
	fr_pppoe(f, 0x0057);
	fr_ip6(f, 0, 0, P_UDP);
	fr_udp(f, 40017, 53);
	fr_finish(f);
	fr_pppoe_len(f, 14);
}

static inline void b_vlan_pppoe_tcp4(struct frame *f)
{
	fr_eth(f, 0x8100);
	fr_vlan(f, 7, 0x8864);
	fr_pppoe(f, 0x0021);
	fr_ip4(f, 0, P_TCP, 5, 0);
	fr_tcp(f, 40018, 443);
	fr_finish(f);
	fr_pppoe_len(f, 18);
}

/* LCP echo request: a session frame that is not IP */
static inline void b_pppoe_lcp(struct frame *f)
{
	fr_eth(f, 0x8864);
	fr_pppoe(f, 0xc021);
	fr_put(f, "\x09\x01\x00\x08\x12\x34\x56\x78", 8);
	fr_pppoe_len(f, 14);
}

/* the discovery stage (PADI) is another ethertype, not parsed */
static inline void b_pppoe_padi(struct frame *f)
{
	fr_eth(f, 0x8863);
	fr_put(f, "\x11\x09\x00\x00\x00\x04\x01\x01\x00\x00", 10);
}

static inline void b_8023_llc(struct frame *f)
{
	fr_eth(f, 0x0026);	/* a length, not an ethertype */
	fr_put(f, "\x42\x42\x03", 3);
	fr_put(f, NULL, 35);
}

static inline void b_ip6_under_ip4(struct frame *f)
{
	fr_eth(f, 0x0800);
	fr_ip6(f, 0, 0, P_TCP);
	fr_tcp(f, 1, 2);
	fr_finish(f);
	f->kind = SJ_PKT_BAD_HEADER;	/* version 6 where 4 was promised */
	f->need = f->l3 + 20;
	f->settled = 1;
}

static inline void b_ip4_under_ip6(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip4(f, 0, P_TCP, 5, 0);
	fr_tcp(f, 1, 2);
	fr_finish(f);
	f->kind = SJ_PKT_BAD_HEADER;
	f->need = f->l3 + 40;
	f->settled = 1;
}

static inline void b_sctp4(struct frame *f)
{
	fr_eth(f, 0x0800);
	fr_ip4(f, 0, P_SCTP, 5, 0);
	fr_put(f, NULL, 28);
	fr_finish(f);
}

struct fr_base {
	const char *name;
	fr_build_fn build;
	int kind;		/* what the full frame must be, as a cross-check */
};

static const struct fr_base fr_bases[] = {
	{ "ipv4_tcp_df",	b_tcp4,		SJ_PKT_TCP },
	{ "ipv4_udp",		b_udp4,		SJ_PKT_UDP },
	{ "ipv4_60b_hdr_tcp",	b_tcp4_opts,	SJ_PKT_TCP },
	{ "ipv4_icmp_echo",	b_icmp4,	SJ_PKT_ICMP },
	{ "ipv4_icmp_unreach",	b_icmp4_unreach, SJ_PKT_ICMP },
	{ "ipv4_gre",		b_gre4,		SJ_PKT_OTHER_L4 },
	{ "ipv4_sctp",		b_sctp4,	SJ_PKT_OTHER_L4 },
	{ "ipv4_evil_bit_udp",	b_evil_bit4,	SJ_PKT_UDP },
	{ "ipv4_frag_first",	b_frag4_first,	SJ_PKT_FRAGMENT },
	{ "ipv4_frag_later",	b_frag4_later,	SJ_PKT_FRAGMENT },
	{ "ipv4_frag_middle",	b_frag4_middle,	SJ_PKT_FRAGMENT },
	{ "ipv6_tcp",		b_tcp6,		SJ_PKT_TCP },
	{ "ipv6_udp",		b_udp6,		SJ_PKT_UDP },
	{ "ipv6_icmp_echo",	b_icmp6,	SJ_PKT_ICMP },
	{ "ipv6_icmp_ns",	b_icmp6_ns,	SJ_PKT_ICMP },
	{ "ipv6_ext_mix_udp",	b_ext_mix6,	SJ_PKT_UDP },
	{ "ipv6_ext8_tcp",	b_ext8_6,	SJ_PKT_TCP },
	{ "ipv6_ext9",		b_ext9_6,	SJ_PKT_EXT_DEEP },
	{ "ipv6_ext_loop",	b_ext_loop6,	SJ_PKT_EXT_DEEP },
	{ "ipv6_esp",		b_esp6,		SJ_PKT_OTHER_L4 },
	{ "ipv6_no_next",	b_nonxt6,	SJ_PKT_OTHER_L4 },
	{ "ipv6_frag_first",	b_frag6_first,	SJ_PKT_FRAGMENT },
	{ "ipv6_frag_later",	b_frag6_later,	SJ_PKT_FRAGMENT },
	{ "ipv6_frag_atomic",	b_frag6_atomic,	SJ_PKT_FRAGMENT },
	{ "ipv6_frag_odd_units", b_frag6_odd,	SJ_PKT_BAD_HEADER },
	{ "vlan_ipv4_tcp",	b_vlan_tcp4,	SJ_PKT_TCP },
	{ "qinq_ipv6_udp",	b_qinq_udp6,	SJ_PKT_UDP },
	{ "qinq_8100_88a8_tcp",	b_qinq_rev_tcp4, SJ_PKT_TCP },
	{ "vlan_3_tags",	b_vlan3,	SJ_PKT_VLAN_DEEP },
	{ "vlan_6_tags",	b_vlan6,	SJ_PKT_VLAN_DEEP },
	{ "arp",		b_arp,		SJ_PKT_NON_IP },
	{ "vlan_arp",		b_vlan_arp,	SJ_PKT_NON_IP },
	{ "lldp",		b_lldp,		SJ_PKT_NON_IP },
	{ "mpls_zeros",		b_mpls_zeros,	SJ_PKT_NON_IP },
	{ "mpls_ipv4_tcp",	b_mpls_tcp4,	SJ_PKT_TCP },
	{ "mpls_3_labels_ipv6_tcp", b_mpls3_tcp6, SJ_PKT_TCP },
	{ "mpls_multicast_ipv6_udp", b_mpls_mc_udp6, SJ_PKT_UDP },
	{ "mpls_pseudowire",	b_mpls_pw,	SJ_PKT_NON_IP },
	{ "mpls_too_deep",	b_mpls_deep,	SJ_PKT_NON_IP },
	{ "pppoe_ipv4_zeros",	b_pppoe_zeros,	SJ_PKT_BAD_HEADER },
	{ "pppoe_ipv4_tcp",	b_pppoe_tcp4,	SJ_PKT_TCP },
	{ "pppoe_ipv6_udp",	b_pppoe_udp6,	SJ_PKT_UDP },
	{ "vlan_pppoe_ipv4_tcp", b_vlan_pppoe_tcp4, SJ_PKT_TCP },
	{ "pppoe_lcp",		b_pppoe_lcp,	SJ_PKT_NON_IP },
	{ "pppoe_discovery",	b_pppoe_padi,	SJ_PKT_NON_IP },
	{ "8023_llc",		b_8023_llc,	SJ_PKT_NON_IP },
	{ "ipv6_under_0800",	b_ip6_under_ip4, SJ_PKT_BAD_HEADER },
	{ "ipv4_under_86dd",	b_ip4_under_ip6, SJ_PKT_BAD_HEADER },
};

#define FR_NBASES (sizeof(fr_bases) / sizeof(fr_bases[0]))

#endif /* SJ_TEST_CORPUS_H */
