// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer on the packet parser (include/parse.h, userspace build) and the
 * CE marking that follows it, on Ethernet and on L3 devices.  The frame
 * sits in a buffer of its own size (an Ethernet frame 2 bytes in, as the
 * kernel's NET_IP_ALIGN puts it), so ASan sees any read past its end.
 * Properties beyond "no crash":
 *   - the kind is one of enum sj_pkt_kind; parsing is deterministic;
 *   - a flow's IP header lies inside the frame at a place a header can be;
 *   - marking CE changes only the ECN bits (and the IPv4 checksum, which
 *     stays valid if it was valid), and only of an ECT packet.
 */
#include <stdint.h>
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

#include "parse.h"
#include "../prog/corpus.h"	/* fr_has_flow */

static __u32 csum_fold(const __u8 *p, __u32 n)
{
	__u32 sum = 0;

	for (__u32 i = 0; i + 1 < n; i += 2)
		sum += (__u32)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static void check_mark(__u8 *frame, size_t size, const struct sj_pkt *pkt)
{
	__u8 *before = malloc(size ? size : 1);
	__u32 hl = 0, off = pkt->l3_off;
	int ecn, marked, csum_ok = 0;

	if (!before)
		abort();
	memcpy(before, frame, size);
	if (pkt->key.family == 4) {
		struct iphdr *ip = (struct iphdr *)(frame + off);

		hl = ip->ihl * 4;
		csum_ok = off + hl <= size && hl >= 20 &&
			  csum_fold(frame + off, hl) == 0xffff;
		ecn = ip->tos & 3;
		marked = sj_ipv4_set_ce(ip);
	} else {
		ecn = (frame[off + 1] >> 4) & 3;
		marked = sj_ipv6_set_ce((struct ipv6hdr *)(frame + off));
	}
	if (marked != (ecn != 0))
		abort();	/* only ECT (or CE) packets carry a mark */
	for (size_t i = 0; i < size; i++) {
		int ecn_byte = i == off + 1 ||
			       (pkt->key.family == 4 && (i == off + 10 || i == off + 11));

		if (!ecn_byte && frame[i] != before[i])
			abort();	/* marking touched another byte */
	}
	if (marked && ((pkt->key.family == 4 ? frame[off + 1] : frame[off + 1] >> 4) & 3) != 3)
		abort();
	if (csum_ok && csum_fold(frame + off, hl) != 0xffff)
		abort();	/* a valid checksum made invalid */
	free(before);
}

/* One parse of the frame and the checks on what it found; l3_off,
 * l3_proto and gso as sj_parse_link takes them */
static void parse_one(__u8 *frame, size_t size, __u32 link, __u32 l3_off,
		      __be16 l3_proto, int gso)
{
	struct sj_pkt pkt, again;
	int kind;

	kind = sj_parse_link(frame, frame + size, link, l3_off, l3_proto, gso,
			     &pkt);
	if (kind < 0 || kind >= SJ_PKT_KINDS)
		abort();
	if (sj_parse_link(frame, frame + size, link, l3_off, l3_proto, gso,
			  &again) != kind ||
	    memcmp(&pkt, &again, sizeof(pkt)))
		abort();
	if (pkt.key.family) {
		__u32 need = pkt.key.family == 4 ? 20 : 40;

		if (pkt.key.family != 4 && pkt.key.family != 6)
			abort();
		/* L3: at l3_off.  Ethernet: behind 0..2 tags, then
		 * PPPoE's 8 bytes or 1..SJ_MAX_MPLS_LABELS labels */
		if (link == SJ_LINK_L3 ? pkt.l3_off != l3_off :
		    pkt.l3_off < 14 || pkt.l3_off > SJ_L3_OFF_MAX ||
		    (pkt.l3_off - 14) % 4)
			abort();
		if (pkt.l3_off + need > size)
			abort();
		check_mark(frame, size, &pkt);
	} else if (fr_has_flow(kind)) {
		abort();	/* a flow without addresses */
	}
	/* a fragment always has a flow, by addresses and protocol, its
	 * data (a first one's L4 header) past its headers and inside the
	 * datagram's 64 KB */
	if (kind == SJ_PKT_FRAGMENT &&
	    (!pkt.has_flow || pkt.key.sport || pkt.key.dport ||
	     (pkt.frag != SJ_FRAG_FIRST && pkt.frag != SJ_FRAG_LATER) ||
	     pkt.frag_l4_off < pkt.l3_off + (pkt.key.family == 4 ? 20 : 48) ||
	     pkt.frag_l4_off > size))
		abort();
	/* and the ports the programs read from the first fragment's L4
	 * header touch nothing else */
	if (kind == SJ_PKT_FRAGMENT && pkt.frag == SJ_FRAG_FIRST &&
	    pkt.frag_l4_off + SJ_FRAG_L4_BYTES <= size) {
		struct sj_flow_key before = pkt.key;

		sj_frag_ports(&pkt, frame + pkt.frag_l4_off);
		before.sport = pkt.key.sport;
		before.dport = pkt.key.dport;
		if (memcmp(&before, &pkt.key, sizeof(before)))
			abort();
	}
	/* the headers a GSO segment repeats: past the IP header for TCP
	 * (its data offset unchecked: wire.h does not trust a length past
	 * the frame) and UDP, inside the frame for UDP, not known for the
	 * rest */
	if (kind == SJ_PKT_TCP || kind == SJ_PKT_UDP ?
	    pkt.hdr_len < pkt.l3_off + (pkt.key.family == 4 ? 20 : 40) ||
	    (kind == SJ_PKT_UDP && pkt.hdr_len > size) :
	    pkt.hdr_len != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const __u16 l3_protos[] = { 0, 0x0800, 0x86dd, 0x0806 };
	int gso = size && (data[size - 1] & 1);
	__u8 *buf;

	if (size > 65536)
		return 0;
	/* as an Ethernet frame, and as an L3 device's frame under each word
	 * the kernel may have for it; a GSO aggregate when the last byte is
	 * odd (BIG TCP's IPv4 total length 0).  An L3 frame's IP header is
	 * at its start, so it sits at the start of its buffer, aligned */
	buf = malloc(size + 2);
	if (!buf)
		return 0;
	memcpy(buf + 2, data, size);
	parse_one(buf + 2, size, SJ_LINK_ETHER, 0, 0, gso);
	free(buf);
	buf = malloc(size + 4);
	if (!buf)
		return 0;
	for (size_t i = 0; i < sizeof(l3_protos) / sizeof(l3_protos[0]); i++) {
		memcpy(buf, data, size);
		parse_one(buf, size, SJ_LINK_L3, 0, bpf_htons(l3_protos[i]), gso);
		/* and behind a header of the device's own (a GRE device's
		 * outer header, SJ_LINK_AT_NET) as long as the second byte
		 * says, placed so that the IP header is aligned */
		if (size > 1) {
			__u32 off = data[1] & SJ_L3_OFF_MAX, pad = (4 - off % 4) % 4;

			memcpy(buf + pad, data, size);
			parse_one(buf + pad, size, SJ_LINK_L3, off,
				  bpf_htons(l3_protos[i]), gso);
		}
	}
	free(buf);
	return 0;
}
