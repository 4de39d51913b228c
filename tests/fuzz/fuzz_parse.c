// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer on the packet parser (include/parse.h, userspace build) and the
 * CE marking that follows it.  The frame sits in a buffer of its own size,
 * 2 bytes in as the kernel's NET_IP_ALIGN puts it, so ASan sees any read
 * past its end.  Properties beyond "no crash":
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sj_pkt pkt, again;
	__u8 *buf;
	int kind;

	if (size > 65536)
		return 0;
	buf = malloc(size + 2);
	if (!buf)
		return 0;
	memcpy(buf + 2, data, size);
	kind = sj_parse(buf + 2, buf + 2 + size, &pkt);
	if (kind < 0 || kind >= SJ_PKT_KINDS)
		abort();
	if (sj_parse(buf + 2, buf + 2 + size, &again) != kind ||
	    memcmp(&pkt, &again, sizeof(pkt)))
		abort();
	if (pkt.key.family) {
		__u32 need = pkt.key.family == 4 ? 20 : 40;

		if (pkt.key.family != 4 && pkt.key.family != 6)
			abort();
		/* behind 0, 1 or 2 tags */
		if (pkt.l3_off != 14 && pkt.l3_off != 18 && pkt.l3_off != 22)
			abort();
		if (pkt.l3_off + need > size)
			abort();
		check_mark(buf + 2, size, &pkt);
	} else if (kind < SJ_PKT_FRAGMENT) {
		abort();	/* a flow without addresses */
	}
	free(buf);
	return 0;
}
