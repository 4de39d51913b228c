// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * XDP ingress in rate mode: the same virtual queue and law as the tc
 * program (rate.bpf.h), run where a download or a pod's upload first
 * arrives, before the stack has built an skb.  Loaded through libxdp's
 * dispatcher so other XDP programs on the device keep running: we return
 * XDP_PASS for everything we do not drop, and the dispatcher moves on.
 *
 * A separate object from the tc programs: libxdp loads it itself (as an
 * extension of its dispatcher), and each ingress attachment has its own
 * maps, apart from the device's egress attachment.
 */
/* rate.bpf.h: marks write the frame directly, as XDP does */
#define SJ_PROG_XDP 1
#include "maps.bpf.h"
#include "parse.h"
#include "rate.bpf.h"
#include "observe.bpf.h"
#include "frag.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * The parser as a global function, as the tc program has it: the verifier
 * checks it once, not once per path of the program.  XDP has no
 * skb->protocol: on an L3 device (generic XDP on tun, WireGuard, a raw-IP
 * modem) the IP version nibble says.  Frames are never GSO aggregates here.
 */
__noinline int sj_parse_xdp(struct xdp_md *ctx, struct sj_pkt *pkt)
{
	int kind;

	if (!pkt)
		return SJ_PKT_TRUNCATED;
	kind = sj_parse_link((void *)(long)ctx->data,
			     (void *)(long)ctx->data_end, cfg_link_layer, 0, 0,
			     0, pkt);
	/* a fragment joins its datagram's flow (frag.bpf.h) */
	if (kind == SJ_PKT_FRAGMENT)
		sj_frag_join(ctx, pkt);
	return kind;
}

SEC("xdp")
int sojourn_xdp(struct xdp_md *ctx)
{
	void *data, *data_end;
	__u64 now = bpf_ktime_get_ns();
	__u32 len = bpf_xdp_get_buff_len(ctx);
	struct sj_flow *flow = NULL;
	struct sj_rate_result r;
	struct sj_settings *set;
	struct sj_stats *st;
	struct sj_queue *q;
	struct sj_att *att;
	struct sj_pkt pkt;
	int kind, ect;

	att = sj_here_enter(ctx->ingress_ifindex);
	if (!att)
		return XDP_PASS;
	st = sj_stats_of(att->id);
	set = bpf_map_lookup_elem(&settings, &att->id);
	q = sj_queue_of(att, 0);
	if (!st || !set || !q)
		return XDP_PASS;
	st->packets++;
	st->bytes += len;

	kind = sj_parse_xdp(ctx, &pkt);
	if (kind >= 0 && kind < SJ_PKT_KINDS)
		st->kind[kind]++;
	pkt.key.att = att->id;
	if (pkt.has_flow && sj_pkt_kind_keyed(kind))
		flow = sj_flow_get(&pkt.key, now, st, set, len);

	ect = sj_pkt_kind_keyed(kind) && pkt.ecn != SJ_ECN_NOT_ECT;
	/* an XDP frame is one packet */
	sj_rate_admit(att->id, set, st, q, flow, &pkt, now, len,
		      sj_rate_wire(set, &(struct sj_wire_frame){ .len = len }),
		      !sj_pkt_kind_keyed(kind), ect, &r);
	sj_observe_sojourn(att->id, flow, r.sojourn_ns);

	/* read after the parse: a call may leave packet pointers stale */
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	if (sj_rate_apply(&r, set, st, flow, NULL, data, data_end, &pkt, ect))
		return XDP_DROP;
	return XDP_PASS;
}
