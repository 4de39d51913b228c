/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The wire model of rate mode: how many bytes a packet costs on the link
 * whose rate the operator gave, as tc-stab(8) and CAKE count them.  The
 * departure clock (include/vqueue.h) moves by this length, not by the
 * skb's.  One function for the BPF programs and the unit tests.
 *
 * A packet of `len` bytes as the hook sees it costs, per segment:
 *   1. len + overhead, at least 1 (tc-stab's floor: every packet uses
 *      the link; a negative overhead may strip headers the link lacks);
 *   2. at least mpu, the link's minimum packet unit;
 *   3. on ATM, whole 53-byte cells of 48 payload bytes each:
 *      ceil(n / 48) * 53; on PTM (64b/65b), one byte more per 64 or part
 *      thereof: n + ceil(n / 64).
 * The same order as tc-stab and CAKE: overhead, then mpu, then cells.
 *
 * `len` is skb->len in tc (the Ethernet header included on an Ethernet
 * device, nothing below the IP header on an L3 device) and the frame's
 * length in XDP.  So the default, ethernet with overhead 0, counts the
 * Ethernet header and any VLAN tags but not the preamble, start delimiter,
 * FCS and inter-frame gap (24 bytes a frame on a real Ethernet wire) nor
 * anything a modem adds.  CAKE counts from the IP header; our overhead,
 * as tc-stab's, comes on top of what the frame already carries: CAKE's
 * `pppoe-ptm` (overhead 30) holds as it is on a PPP device (an L3 one),
 * and is `overhead 8 linklayer ptm` on the Ethernet device under it,
 * whose frames carry the 14 + 8 bytes of Ethernet and PPPoE headers.
 *
 * A GSO or GRO aggregate leaves as segments, each with its own copy of the
 * headers, and each segment is one packet to the link: the model is
 * applied per segment.  The headers are what the parser read up to the
 * end of TCP or UDP (struct sj_pkt's hdr_len).  Two cases it cannot see
 * whole: an encapsulated aggregate (VXLAN, GENEVE) repeats its inner
 * headers too, which count once here (its outer UDP header ends the
 * parse); a BIG TCP IPv6 aggregate's hop-by-hop jumbo option, on kernels
 * that still add one, is counted in every segment (8 bytes, 0.5%).
 */
#ifndef SOJOURN_WIRE_H
#define SOJOURN_WIRE_H

enum sj_wire_link {
	SJ_WIRE_ETHERNET = 0,	/* the length as it is */
	SJ_WIRE_ATM = 1,	/* 53-byte cells carrying 48 bytes each */
	SJ_WIRE_PTM = 2,	/* 64b/65b encoding (VDSL2, IEEE 802.3 61.3) */
};

#define SJ_WIRE_ATM_PAYLOAD	48
#define SJ_WIRE_ATM_CELL	53
#define SJ_WIRE_PTM_BLOCK	64

/* What an operator may ask for (CAKE's bounds) */
#define SJ_WIRE_MIN_OVERHEAD	(-64)
#define SJ_WIRE_MAX_OVERHEAD	256
#define SJ_WIRE_MAX_MPU		256

/* The link's accounting, part of an attachment's settings */
struct sj_wire {
	__s32 overhead;		/* bytes added to every packet or segment,
				 * SJ_WIRE_MIN..MAX_OVERHEAD; 0 by default */
	__u32 mpu;		/* minimum packet unit, bytes, 0..256; 0: none */
	__u32 link;		/* enum sj_wire_link; ethernet by default */
};

/* One packet or aggregate as the hook sees it */
struct sj_wire_frame {
	__u32 len;		/* bytes (skb->len, or the XDP frame's) */
	__u32 gso_size;		/* payload bytes per segment; 0: one packet */
	__u32 gso_segs;		/* segments the kernel counted: only used
				 * when hdr_len is not known */
	__u32 hdr_len;		/* bytes each segment repeats: link, IP and
				 * TCP or UDP headers; 0: not known */
};

/* The cost of one packet or segment of len bytes on the link */
static __always_inline __u64 sj_wire_packet(const struct sj_wire *w, __u32 len)
{
	__s64 n = (__s64)len + w->overhead;

	if (n < 1)
		n = 1;
	if (n < w->mpu)
		n = w->mpu;
	if (w->link == SJ_WIRE_ATM)
		return (n + SJ_WIRE_ATM_PAYLOAD - 1) / SJ_WIRE_ATM_PAYLOAD *
		       SJ_WIRE_ATM_CELL;
	if (w->link == SJ_WIRE_PTM)
		return n + (n + SJ_WIRE_PTM_BLOCK - 1) / SJ_WIRE_PTM_BLOCK;
	return n;
}

/*
 * The cost of a frame: one packet, or the segments of an aggregate.  An
 * aggregate of len bytes with hdr_len bytes of headers carries
 * len - hdr_len bytes of payload in segments of gso_size, the last one
 * shorter or full.  Where the headers are not known (a packet we could not
 * parse, or one neither TCP nor UDP), the kernel's segment count stands
 * in: the headers are at least len - gso_segs * gso_size, all segments but
 * the last being full, and that least is taken.
 */
static __always_inline __u64 sj_wire_bytes(const struct sj_wire *w,
					   const struct sj_wire_frame *f)
{
	__u32 hdr = f->hdr_len, payload, full_segs, last;
	__u64 segs_bytes;

	if (!f->gso_size || f->len <= f->gso_size)
		return sj_wire_packet(w, f->len);
	if (!hdr || hdr >= f->len) {
		__u64 carried = (__u64)f->gso_segs * f->gso_size;

		hdr = carried < f->len ? f->len - (__u32)carried : 0;
	}
	payload = f->len - hdr;
	if (payload <= f->gso_size)
		return sj_wire_packet(w, f->len);
	/* every segment but the last carries gso_size bytes */
	full_segs = (payload - 1) / f->gso_size;
	last = payload - full_segs * f->gso_size;
	segs_bytes = (__u64)full_segs * sj_wire_packet(w, hdr + f->gso_size);
	return segs_bytes + sj_wire_packet(w, hdr + last);
}

#endif /* SOJOURN_WIRE_H */
