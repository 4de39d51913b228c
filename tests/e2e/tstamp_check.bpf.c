// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A tc ingress checker for field_txtime.sh, on the receiver's interface:
 * for every datagram of txtime_send.c it compares the skb->tstamp that
 * arrived with what the sender asked for, and counts the outcome in the
 * array map tstamp_counts (index: the enum below; field_txtime.sh reads
 * the slots by these numbers).
 *
 * Reading __sk_buff->tstamp_type is what lets a tc ingress program see a
 * delivery time at all: without it, the kernel shows a mono delivery time
 * at ingress as 0.  A timed packet is kept when it arrives as a mono
 * delivery time equal to the one its sender wrote; a plain packet (sent
 * with no departure time) is clean when it arrives with no delivery time
 * (type unspecified: 0, or the receive time the stack may stamp), and
 * stamped when someone on the way gave it a mono time.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define TXTIME_MAGIC	0x534a5458u	/* txtime_send.c */
#define ETH_P_IPV4	0x0800
#define IPPROTO_UDP_NR	17
#define TC_ACT_OK	0

enum {
	TS_TIMED_KEPT,		/* mono, equal to the sender's departure time */
	TS_TIMED_MOVED,		/* mono, another time */
	TS_TIMED_LOST,		/* no delivery time any more */
	TS_PLAIN_CLEAN,		/* no delivery time */
	TS_PLAIN_STAMPED,	/* a mono delivery time nobody asked for */
	TS_SLOTS,
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TS_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} tstamp_counts SEC(".maps");

struct payload {
	__u32 magic;
	__u32 kind;
	__u64 txtime_ns;
	__u32 seq;
} __attribute__((packed));

static __always_inline void count(__u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(&tstamp_counts, &slot);

	if (v)
		__sync_fetch_and_add(v, 1);
}

SEC("tc")
int tstamp_check(struct __sk_buff *skb)
{
	struct payload p;
	__u8 vihl, proto;
	__u32 off;
	int mono;

	if (skb->protocol != bpf_htons(ETH_P_IPV4))
		return TC_ACT_OK;
	if (bpf_skb_load_bytes(skb, 14, &vihl, 1) ||
	    bpf_skb_load_bytes(skb, 14 + 9, &proto, 1) ||
	    proto != IPPROTO_UDP_NR)
		return TC_ACT_OK;
	off = 14 + (vihl & 0xf) * 4 + 8;
	if (bpf_skb_load_bytes(skb, off, &p, sizeof(p)) ||
	    p.magic != TXTIME_MAGIC)
		return TC_ACT_OK;

	mono = skb->tstamp_type == BPF_SKB_TSTAMP_DELIVERY_MONO;
	if (p.kind == 0) {
		count(mono ? TS_PLAIN_STAMPED : TS_PLAIN_CLEAN);
		return TC_ACT_OK;
	}
	if (!mono)
		count(TS_TIMED_LOST);
	else if (skb->tstamp == p.txtime_ns)
		count(TS_TIMED_KEPT);
	else
		count(TS_TIMED_MOVED);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
