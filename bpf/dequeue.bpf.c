// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Dequeue: net_dev_start_xmit fires when a packet leaves the qdisc for the
 * driver.  Its sojourn is now minus the stamp egress.bpf.c put in
 * skb->tstamp.  CoDel runs here, per transmit queue, and earns signals that
 * the egress program carries out on the next packet of the same queue (a
 * tracepoint cannot drop or mark the packet that is leaving).
 *
 * The tracepoint fires for every device on the host, so the first thing is
 * to leave when the device is not ours (ifindex and network namespace).
 */
#include "maps.bpf.h"
#include "observe.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

/* include/net/sch_generic.h: per-CPU stats, no root lock (pfifo_fast) */
#define SJ_TCQ_F_NOLOCK 0x100

/* kernels before 6.11 name the one tstamp type bit differently */
struct sk_buff___pre611 {
	__u8 mono_delivery_time: 1;
} __attribute__((preserve_access_index));

static __always_inline int sj_tstamp_is_mono(const struct sk_buff *skb)
{
	if (bpf_core_field_exists(skb->tstamp_type))
		return BPF_CORE_READ_BITFIELD_PROBED(skb, tstamp_type) ==
		       BPF_SKB_TSTAMP_DELIVERY_MONO;
	return BPF_CORE_READ_BITFIELD_PROBED(
		(struct sk_buff___pre611 *)skb, mono_delivery_time);
}

/*
 * Bytes still queued in the qdisc feeding transmit queue txq: the root
 * qdisc on a single queue device, the queue's child under mq.  A lockless
 * qdisc (pfifo_fast) keeps its backlog per CPU behind a pointer this
 * kernel's BTF does not mark per-CPU, so we cannot add it up: its backlog
 * is reported as unknown ("large") and the one-MTU exemption is off there.
 */
static __always_inline __u32 sj_qdisc_backlog(const struct net_device *dev,
					      __u32 txq)
{
	__u64 qaddr = (__u64)BPF_CORE_READ(dev, _tx) +
		      txq * bpf_core_type_size(struct netdev_queue) +
		      bpf_core_field_offset(struct netdev_queue, qdisc);
	struct Qdisc *qd = NULL;

	bpf_probe_read_kernel(&qd, sizeof(qd), (void *)qaddr);
	if (!qd)
		return 0;
	if (BPF_CORE_READ(qd, flags) & SJ_TCQ_F_NOLOCK)
		return SJ_BACKLOG_UNKNOWN;
	return BPF_CORE_READ(qd, qstats.backlog);
}

static __always_inline void sj_learn_txq(const struct sk_buff *skb, __u32 txq)
{
	__u32 hash = skb->hash, *known;

	if (cfg_num_txq <= 1 || !hash)
		return;
	known = bpf_map_lookup_elem(&txq_of_hash, &hash);
	if (!known || *known != txq)
		bpf_map_update_elem(&txq_of_hash, &hash, &txq, BPF_ANY);
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(sojourn_dequeue, const struct sk_buff *skb,
	     const struct net_device *dev)
{
	struct codel_params params;
	struct sj_settings *set;
	struct sj_stats *st;
	struct sj_flow *flow;
	__u32 sparse_priority;
	struct sj_queue *q;
	__u64 stamp, now;
	codel_time_t sojourn, cnow;
	__u32 zero = 0, txq, qidx, len, backlog = 0;

	if (dev->ifindex != cfg_ifindex ||
	    BPF_CORE_READ(dev, nd_net.net, net_cookie) != cfg_netns_cookie)
		return 0;

	st = sj_stats_this_cpu();
	set = bpf_map_lookup_elem(&settings, &zero);
	if (!st || !set)
		return 0;

	stamp = skb->tstamp;
	txq = skb->queue_mapping;
	/* one root qdisc feeds every queue unless the root is mq: then it is
	 * one queue, one CoDel state */
	qidx = cfg_num_txq > 1 ? txq : 0;
	q = bpf_map_lookup_elem(&queues, &qidx);
	if (!stamp || !sj_tstamp_is_mono(skb) || !q) {
		/* enqueued before we attached, a TAI time, or a queue added
		 * after attach: nothing to measure */
		st->unmeasured++;
		return 0;
	}
	now = bpf_ktime_get_ns();
	/* an EDT time not yet reached: the packet left early, no queueing */
	sojourn = now > stamp ? CODEL_NS(now - stamp) : 0;
	cnow = CODEL_NS(now);
	len = skb->len;
	st->dequeued++;
	flow = sj_observe_flow_of(skb->hash);
	sj_observe_sojourn(flow, now > stamp ? now - stamp : 0);
	/* the packet has left: it is no longer its flow's backlog */
	if (flow)
		sj_fair_forget(flow, len);

	bpf_spin_lock(&set->lock);
	params = set->codel;
	sparse_priority = set->sparse_priority;
	bpf_spin_unlock(&set->lock);

	/* a packet we sent ahead to another class did not wait in the bulk
	 * queue: its short sojourn says nothing of that queue, and fed to
	 * the law it would keep resetting "above target" for the bulk */
	if (sparse_priority && skb->priority == sparse_priority) {
		sj_learn_txq(skb, qidx);
		return 0;
	}

	/* the backlog only matters once sojourn is above target: below it,
	 * skip the chase through the device's queues */
	if (!codel_time_before(sojourn, params.target)) {
		backlog = sj_qdisc_backlog(dev, txq);
		/* no flow holds more than the whole queue: this bounds what
		 * lost dequeues of a busy flow may have left counted */
		if (flow && backlog != SJ_BACKLOG_UNKNOWN &&
		    flow->backlog > backlog)
			flow->backlog = backlog;
	}

	bpf_spin_lock(&q->lock);
	if (codel_dequeue(&q->vars, &params, cnow, sojourn, backlog) &&
	    q->signals_pending < SJ_MAX_PENDING_SIGNALS)
		q->signals_pending++;
	/* the queue recovered: a signal not yet spent is no longer owed */
	if (!q->vars.dropping)
		q->signals_pending = 0;
	if (len > q->maxpacket)
		q->maxpacket = len;
	bpf_spin_unlock(&q->lock);

	sj_learn_txq(skb, qidx);
	return 0;
}
