// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Dequeue: net_dev_start_xmit fires when a packet leaves the qdisc for the
 * driver.  Its sojourn is now minus the enqueue time tc.bpf.c put in
 * the skb's control block.  CoDel runs here once per transmit queue, as the
 * kernel's codel runs once per qdisc, fed by the packets whose sojourn
 * speaks for the queue (codel.h: codel_speaks).  A signal the law gives
 * goes to the flow of the packet leaving and is carried out by the egress
 * program on that flow's next packet (a tracepoint cannot drop or mark the
 * packet that is leaving).
 *
 * The tracepoint fires for every device on the host, so the first thing is
 * to leave when the device is not one of ours (ifindex and network
 * namespace): one program serves every real-queue attachment of the host.
 */
#include "maps.bpf.h"
#include "fair.bpf.h"
#include "observe.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

/* include/net/sch_generic.h: per-CPU stats, no root lock (pfifo_fast) */
#define SJ_TCQ_F_NOLOCK 0x100

/*
 * The enqueue time egress wrote into cb[] (include/sojourn.h), or 0 when
 * the packet carries none of ours: enqueued before we attached, a future
 * departure time, or cb[] reused after us.  cb[] of the kernel's skb is
 * struct qdisc_skb_cb while the packet is in the qdisc layer (5.18-6.18);
 * CO-RE finds its data[] wherever a kernel puts it.
 */
static __always_inline __u64 sj_cb_stamp(const struct sk_buff *skb, __u64 now,
					 __u32 mode)
{
	/* a tp_btf program reads the skb directly: three loads, no helper */
	const __u32 *w = (const __u32 *)((const char *)skb->cb +
		bpf_core_field_offset(struct qdisc_skb_cb, data) +
		SJ_CB_DATA_OFF - 4);
	__u64 stamp;

	stamp = (__u64)w[2] << 32 | w[1];
	if (!stamp || stamp > now || now - stamp > SJ_CB_MAX_AGE_NS)
		return 0;
	/* observe mode runs under qdiscs whose own cb[] state reaches into
	 * the check word (cake, fq): there the stamp's age must do */
	if (mode == SJ_MODE_QUEUE && w[0] != sj_cb_check(w[1], w[2]))
		return 0;
	return stamp;
}

/* 6.1 to 6.5: clsact's egress hook hangs from the device itself */
struct net_device___miniq {
	struct mini_Qdisc *miniq_egress;
} __attribute__((preserve_access_index));

/*
 * Whether any tc egress program can run on dev.  Real-queue and observe
 * modes always have one there (tc.bpf.c stamps the packets), so where
 * none can run the device is not ours, and the tracepoint, which fires
 * for every device of the host, leaves before building a key and missing
 * in the attachments' hash.  6.6 on, clsact's egress and tcx's both hang
 * from dev->tcx_egress (net/sched/sch_ingress.c: clsact_init's
 * tcx_entry_fetch_or_create; tcx.c), NULL while neither is there; before
 * 6.6 clsact's hangs from dev->miniq_egress (6.1: CONFIG_NET_EGRESS, set
 * while a clsact qdisc holds a filter).  A kernel with neither field:
 * looked up as before.
 */
static __always_inline int sj_dev_may_be_ours(const struct net_device *dev)
{
	const struct net_device___miniq *old = (const void *)dev;

	if (bpf_core_field_exists(dev->tcx_egress))
		return dev->tcx_egress != NULL;
	if (bpf_core_field_exists(old->miniq_egress))
		return old->miniq_egress != NULL;
	return 1;
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

static __always_inline void sj_learn_txq(const struct sk_buff *skb,
					 const struct sj_att *att, __u32 txq)
{
	struct sj_txq_key k = { .hash = skb->hash, .att = att->id };
	__u32 *known;

	if (att->num_txq <= 1 || !k.hash)
		return;
	known = bpf_map_lookup_elem(&txq_of_hash, &k);
	if (!known || *known != txq)
		bpf_map_update_elem(&txq_of_hash, &k, &txq, BPF_ANY);
}

/* The n the law hastens by (fair.h: sj_fair_flows); a root whose backlog
 * we cannot read, or no fairness: one flow, the kernel's law */
static __always_inline __u32 sj_queue_flows(const struct sj_queue *q, int fair,
					    __u32 backlog)
{
	if (!fair || backlog == SJ_BACKLOG_UNKNOWN)
		return 1;
	return sj_fair_flows(backlog, READ_ONCE(q->mean_backlog));
}

/*
 * One dequeue through the queue's law.  When the law asks for a signal, the
 * leaving packet's flow takes it if it may: with fairness, only a flow that
 * sends faster than the queue's mean rate, or any flow once the law has
 * waited half an interval (fair.h: sj_fair_takes_signal; egress carries
 * a signal out by the same rule), and never a flow that
 * still owes one (no saved-up signals on one flow).  Else the law
 * stays due, unmoved, and the next packet's flow may take it: the signals
 * go at the kernel's rate for the queue, to the flows whose packets leave
 * while it is due, as the kernel's codel gives them to whatever packet is
 * at the head.  With fairness the law then hastens by the number of flows
 * the backlog holds (codel.h: codel_hasten), as fq_codel's law per flow
 * would, both within an episode and in the interval that opens one.
 */
static __always_inline void sj_queue_law(struct sj_queue *q,
					 struct sj_flow *flow, int fair,
					 const struct codel_params *params,
					 __u64 interval_ns, __u64 now,
					 codel_time_t sojourn, __u32 backlog,
					 struct sj_stats *st)
{
	struct codel_vars *v = &q->vars;
	codel_time_t cnow = CODEL_NS(now), was = v->first_above_time;
	__u64 at;
	int may_take, due;

	due = codel_due(v, params, cnow, sojourn, backlog);
	/* n is needed only where the clock just started and at a signal:
	 * not a division on every dequeue */
	if (!was && v->first_above_time)
		codel_hasten_entry(v, cnow, sj_queue_flows(q, fair, backlog), was);
	if (!due)
		return;
	at = flow ? READ_ONCE(flow->signal_at) : 0;
	/* one owed for over an interval has outlived its reason */
	if (at && sj_signal_expired(at, now, interval_ns) &&
	    __sync_val_compare_and_swap(&flow->signal_at, at, 0) == at) {
		st->signals_expired++;
		at = 0;
	}
	may_take = flow && (!fair ||
		   sj_fair_takes_signal(READ_ONCE(flow->recent_bytes),
					READ_ONCE(q->mean_recent),
					codel_overdue(v, cnow),
					params->interval / SJ_FAIR_GRACE_DIV));
	if (!may_take || at) {
		st->signals_deferred++;
		return;
	}
	codel_signalled(v, params, cnow);
	codel_hasten(v, cnow, sj_queue_flows(q, fair, backlog));
	WRITE_ONCE(flow->signal_at, now);
	st->signals++;
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(sojourn_dequeue, const struct sk_buff *skb,
	     const struct net_device *dev)
{
	struct sj_att_key key = { .dir = SJ_DIR_EGRESS };
	const struct sj_law *law;
	struct sj_settings *set;
	struct sj_att *att;
	struct sj_stats *st;
	struct sj_flow *flow;
	struct sj_queue *q;
	__u64 stamp, now, prev_left = 0;
	codel_time_t sojourn;
	__u32 txq, qidx, len, backlog = 0, sparse_priority;
	int steered, emptied = 0;

	/* one program for the host: the device's attachment, if any, by
	 * its ifindex and its netns's cookie (struct net, 5.14 on).  Loads
	 * through the tracepoint's BTF pointers, not bpf_probe_read: two
	 * helper calls cost ~50 ns of every packet on every device */
	if (!sj_dev_may_be_ours(dev))
		return 0;
	key.ifindex = dev->ifindex;
	key.netns_cookie = dev->nd_net.net->net_cookie;
	att = bpf_map_lookup_elem(&attachments, &key);
	if (!att || att->mode == SJ_MODE_RATE)
		return 0;

	st = sj_stats_of(att->id);
	set = bpf_map_lookup_elem(&settings, &att->id);
	if (!st || !set)
		return 0;

	now = bpf_ktime_get_ns();
	stamp = sj_cb_stamp(skb, now, att->mode);
	if (!stamp) {
		st->unmeasured++;
		return 0;
	}
	len = skb->len;
	/* sent ahead to the priority path (tc.bpf.c); one aligned word,
	 * read without the lock */
	sparse_priority = READ_ONCE(set->sparse_priority);
	steered = sparse_priority && skb->priority == sparse_priority;
	flow = sj_observe_flow_of(att->id, skb->hash);
	if (flow) {
		__u64 skb_at = (__u64)skb;
		int again = READ_ONCE(flow->last_stamp) == stamp;

		/* the packet has left: it is no longer its flow's backlog
		 * (every segment of a GSO skb takes its own bytes away), and
		 * when it was the flow's newest, the flow has nothing queued
		 * (fair.h: sj_fair_backlog_leave).  A skb the driver turned
		 * back (NETDEV_TX_BUSY: a veth whose peer's ring is full,
		 * 6.16 on) is requeued and comes here again: its bytes went
		 * once.  Taken twice, they made a flow with packets still
		 * queued look empty, and sparse steering then passed them
		 * (field_idle: 72-120 reordered). */
		if (!again || READ_ONCE(flow->last_skb) != skb_at)
			sj_fair_backlog_leave(&flow->backlog, len,
					      stamp >= READ_ONCE(flow->backlog_at));
		WRITE_ONCE(flow->last_skb, skb_at);
		/* GSO segments and a requeued skb carry the stamp of the
		 * packet already measured: the law sees each skb once, as
		 * the kernel's codel does at its dequeue */
		if (again) {
			st->dequeue_repeats++;
			return 0;
		}
		/* a younger packet of this flow left before it: the queue
		 * (or whatever sent one of them ahead) reordered the flow;
		 * steering did, if that one went ahead and this one did not */
		if (stamp < READ_ONCE(flow->last_stamp)) {
			st->reordered++;
			if (flow->left_ahead && !steered)
				st->reordered_ahead++;
		}
		flow->left_ahead = steered;
		prev_left = flow->last_left;
		flow->last_stamp = stamp;
		flow->last_left = now;
	}
	st->dequeued++;
	sj_observe_sojourn_by(att->id, flow, now - stamp, 1);
	if (att->mode == SJ_MODE_OBSERVE)
		return 0;

	txq = skb->queue_mapping;
	/* one root qdisc feeds every queue unless the root is mq */
	qidx = att->num_txq > 1 ? txq : 0;
	sojourn = CODEL_NS(now - stamp);
	q = qidx < att->num_txq ? sj_queue_of(att, qidx) : NULL;
	/* a packet sent ahead to another class did not wait in the bulk
	 * queue: its short sojourn is not the queue's delay, which egress
	 * reads to judge (fair.h: staleness, unresponsive flows) */
	if (q && !steered) {
		/* one writer per queue (qdisc_run_begin): no lock.  The last
		 * bulk packet left before this one entered: in a FIFO, it
		 * found the queue empty */
		emptied = READ_ONCE(q->bulk_left_at) < stamp;
		WRITE_ONCE(q->vars.ldelay, sojourn);
		if (stamp > q->bulk_left)
			WRITE_ONCE(q->bulk_left, stamp);
		WRITE_ONCE(q->bulk_left_at, now);
		if (len > q->maxpacket)
			q->maxpacket = len;
	}
	sj_learn_txq(skb, att, qidx);
	if (!q)
		return 0;

	/* this CPU's copy of the settings: no other writer while we run */
	law = sj_law_of(set, att->id);
	if (!law)
		return 0;

	/* what the queue sends sets the priority path's bound (fair.h) */
	if (sparse_priority)
		sj_ahead_sent(q, now, law->interval_ns, len);

	/* nor does it say anything of the bulk path */
	if (steered)
		return 0;
	if (emptied)
		codel_queue_empty(&q->vars);
	if (flow)
		flow->ldelay = sojourn;
	if (!codel_speaks(&law->codel, sojourn, flow && prev_left >= stamp))
		return 0;

	/* the backlog only matters once sojourn is above target: below it,
	 * skip the chase through the device's queues */
	if (!codel_time_before(sojourn, law->codel.target)) {
		backlog = sj_qdisc_backlog(dev, txq);
		/* no flow holds more than the whole queue: this bounds what
		 * lost dequeues of a busy flow may have left counted */
		if (flow && backlog != SJ_BACKLOG_UNKNOWN &&
		    flow->backlog > backlog)
			flow->backlog = backlog;
	}
	sj_queue_law(q, flow, law->fair, &law->codel, law->interval_ns, now,
		     sojourn, backlog, st);
	return 0;
}
