// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The floors for bench/cost.c: a tc program that parses the frame with the
 * same sj_parse() the egress program uses, counts the kind per CPU and
 * passes the packet on.  Nothing else: what every AQM must at least pay.
 * Beside it the flow floor: that, plus what keeping state per flow costs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_tracing.h>
#include "sojourn.h"
#include "parse.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SJ_PKT_KINDS);
	__type(key, __u32);
	__type(value, __u64);
} floor_kinds SEC(".maps");

/* The parse and the per-CPU count of its kind: every floor's core */
static __always_inline void floor_count(void *data, void *data_end,
					struct sj_pkt *pkt)
{
	__u32 kind = sj_parse(data, data_end, pkt);
	__u64 *n = bpf_map_lookup_elem(&floor_kinds, &kind);

	if (n)
		(*n)++;
}

SEC("tc")
int floor_parse(struct __sk_buff *skb)
{
	struct sj_pkt pkt;

	floor_count((void *)(long)skb->data, (void *)(long)skb->data_end, &pkt);
	return SJ_ACT_NEXT;
}

/*
 * The floor of any per-flow AQM: the clock read, the parse, and one flow
 * entry found (or made) in an LRU hash keyed like sojourn's, its last-seen
 * time written.  What sojourn's egress costs above this is its own logic.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SJ_FLOWS_DEFAULT);
	__type(key, struct sj_flow_key);
	__type(value, __u64);
} floor_flows SEC(".maps");

SEC("tc")
int floor_flow(struct __sk_buff *skb)
{
	__u64 now = bpf_ktime_get_ns(), *seen;
	struct sj_pkt pkt;

	floor_count((void *)(long)skb->data, (void *)(long)skb->data_end, &pkt);
	if (!pkt.has_flow)
		return SJ_ACT_NEXT;
	seen = bpf_map_lookup_elem(&floor_flows, &pkt.key);
	if (seen)
		*seen = now;
	else
		bpf_map_update_elem(&floor_flows, &pkt.key, &now, BPF_NOEXIST);
	return SJ_ACT_NEXT;
}

/* The same floor at XDP, for the ingress program */
SEC("xdp")
int floor_xdp(struct xdp_md *ctx)
{
	struct sj_pkt pkt;

	floor_count((void *)(long)ctx->data, (void *)(long)ctx->data_end, &pkt);
	return XDP_PASS;
}

/*
 * The floor at the dequeue tracepoint: what any program there pays to run
 * for every transmitted packet and leave when the device is not its own
 * (bench/live.sh attaches it next to sojourn_dequeue and reads both
 * programs' run time from bpf_stats).
 */
const volatile __u32 floor_ifindex = 0;

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(floor_dequeue, const struct sk_buff *skb,
	     const struct net_device *dev)
{
	__u32 kind = SJ_PKT_NON_IP;
	__u64 *n;

	if (dev->ifindex != floor_ifindex)
		return 0;
	n = bpf_map_lookup_elem(&floor_kinds, &kind);
	if (n)
		(*n)++;
	return 0;
}
