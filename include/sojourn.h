/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The contract between the BPF programs and the sojourn command: map value
 * layouts, defaults and limits.  Every struct here is a map value or key with
 * BTF, so `bpftool map dump pinned /sys/fs/bpf/sojourn/...` prints fields.
 *
 * Includers provide __u8..__u64 (vmlinux.h in BPF, <linux/types.h> in C).
 */
#ifndef SOJOURN_H
#define SOJOURN_H

#include "codel.h"
#include "hist.h"
#include "wire.h"

/* Defaults, as the kernel's codel and fq_codel have them */
#define SJ_DEFAULT_TARGET_US	5000
#define SJ_DEFAULT_INTERVAL_US	100000
#define SJ_DEFAULT_ECN		1
#define SJ_DEFAULT_FAIR		1	/* see README: Fairness */
#define SJ_DEFAULT_ACK_ECHO	1	/* see README: Signals on the ACKs */

/* Bounds on what an operator may ask for */
#define SJ_MIN_TIME_US		1		/* target, interval */
/* 16 intervals must fit the signed 32-bit codel clock (~2199 s) */
#define SJ_MAX_INTERVAL_US	(100ULL * 1000000)

/*
 * Rate mode.  The horizon caps the virtual queue: a packet that would start
 * to leave later is dropped (drop_overlimit); the bulk meets that a ninth
 * sooner, the last ninth being the sparse flows' room (vqueue.h).  Without
 * `pace` packets leave at once and the queue is a fiction, so the bulk's
 * ceiling is also the largest excess an unresponsive sender gets past the
 * rate in one go; with `pace` the horizon is the longest real wait in the
 * fq below.  The bulk's 200 ms (of the default 225) is twice CoDel's
 * interval: room for the law to rein in a slow start before tail drops
 * take over (measured: 4 cubic flows at 20 Mbit keep 97% goodput at 200
 * ms, 68% at 50 ms; 175 ms cost l3_tunnel's tun 4-8 points of goodput),
 * and a bound an operator can live with either way.  fq's 10 s and
 * Cilium's 2 s are pacing horizons with no AQM in front of them.  The burst
 * is the credit an idle queue earns: 32 KB lets a small TSO train through
 * (at low rates no more than a quarter of the bulk's ceiling).
 */
#define SJ_DEFAULT_HORIZON_US	225000
#define SJ_DEFAULT_BURST_BYTES	32768
#define SJ_MIN_RATE_BYTES_PER_S	1000ULL			/* 8 kbit */
#define SJ_MAX_RATE_BYTES_PER_S	(400ULL * 1000 * 1000 * 1000 / 8)	/* 400 gbit */

/*
 * One loaded object per host (bpf/maps.bpf.h): every attachment's state
 * sits in maps all attachments share, found by the attachment's id.
 * Flows: one table for the host, LRU beyond; `flows N` is what one
 * attachment may add to it in a second (SJ_FLOW_WINDOW_NS), so that one
 * device's churn cannot push out every other device's flows.
 */
#define SJ_FLOWS_HOST		65536
#define SJ_FLOWS_DEFAULT	65536	/* new flows per window, per attachment */
#define SJ_FLOWS_MIN		256	/* `flows N` bounds */
#define SJ_FLOWS_MAX		(4U << 20)
#define SJ_FLOW_WINDOW_NS	1000000000ULL
#define SJ_ATT_MAX		2048	/* attachments on a host, ids 1.. */
#define SJ_MAX_TXQ		256	/* queues tracked per device */
#define SJ_QUEUES_HOST		8192	/* queue states of all attachments */
#define SJ_TXQ_MAP_SIZE		16384	/* skb hash -> txq, mq devices */

/* Where everything lives */
#define SJ_PIN_ROOT		"/sys/fs/bpf/sojourn"
/* clsact filters we add: above anything a person would type, so they run
 * after the filters already there */
#define SJ_TC_HANDLE		0x534a	/* "SJ" */
#define SJ_TC_PRIO_BASE		0xc000

/* tc actions we return; the same values under tcx and clsact */
#define SJ_ACT_NEXT		(-1)	/* TCX_NEXT == TC_ACT_UNSPEC */
#define SJ_ACT_DROP		2	/* TCX_DROP == TC_ACT_SHOT */

enum sj_hook {
	SJ_HOOK_TCX = 1,	/* bpf_link on tcx, kernels >= 6.6 */
	SJ_HOOK_CLSACT = 2,	/* direct-action filter under clsact */
	SJ_HOOK_XDP = 3,	/* ingress, through libxdp's dispatcher */
};

/* Which way the packets we manage go; one attachment each way */
enum sj_dir {
	SJ_DIR_EGRESS = 0,
	SJ_DIR_INGRESS = 1,
};

enum sj_mode {
	SJ_MODE_QUEUE = 0,	/* sojourn measured in the device's real queue */
	SJ_MODE_RATE = 1,	/* sojourn of a virtual queue drained at a rate */
	SJ_MODE_OBSERVE = 2,	/* real queue measured, never signalled: for
				 * roots that already are an AQM (fq_codel, ...) */
};

/* How libxdp placed our XDP program (enum xdp_attach_mode's values) */
#define SJ_XDP_MODE_NATIVE	1
#define SJ_XDP_MODE_SKB		2

/* The live settings of one attachment; `change` rewrites it in place. */
struct sj_settings {
	struct bpf_spin_lock lock;	/* a retune is read whole or not at all */
	struct codel_params codel;	/* what the law runs on */
	/* CLOCK_MONOTONIC when the loader wrote this value (sj_settings_put):
	 * a per-CPU copy made from the same write is whole (maps.bpf.h:
	 * sj_law_of).  0: not written by a command of this version */
	__u64 written_ns;
	/* as the operator gave them: codel's 1024 ns units would show 5ms
	 * as 4.999ms.  ce_threshold_ns 0 is off. */
	__u64 target_ns;
	__u64 interval_ns;
	__u64 ce_threshold_ns;
	/* rate mode only; retuned in place like the rest */
	__u64 rate_Bps;		/* bytes per second the virtual queue drains */
	__u64 burst_bytes;	/* credit an idle virtual queue may build up */
	__u64 horizon_ns;	/* departures further ahead are dropped */
	__u32 pace;		/* write the departure into skb->tstamp (EDT) */
	struct sj_wire wire;	/* what a packet costs on the link (wire.h) */
	/* fairness, real-queue mode (include/fair.h) */
	__u32 fair;		/* signal heavy flows, contain unresponsive */
	__u32 quantum;		/* a flow holding no more is sparse */
	__u32 sparse_priority;	/* skb->priority for sparse flows; 0: off */
	__u32 sparse_mode;	/* enum sj_sparse: what the operator asked */
	__u32 ack_echo;		/* also echo a CE signal on the flow's ACKs
				 * (bpf/ackecho.bpf.h) */
	/* the most flows this attachment adds to the host's table in a
	 * window; the window's count and start, moved by every CPU without
	 * the lock (an estimate) */
	__u32 flows_cap;
	__u32 flows_window_count;
	__u64 flows_window_at;
};

/*
 * An attachment as the programs find it: by device, its network namespace
 * and direction (the programs are loaded once per host, so none of this
 * is a constant of theirs).  id indexes `settings` and the per-attachment
 * maps (`stats_of`, `hist_of`); its queues are queue_base.. in `queues`.
 */
struct sj_att_key {
	__u64 netns_cookie;
	__u32 ifindex;
	__u32 dir;		/* enum sj_dir */
};
struct sj_att {
	__u32 id;
	__u32 num_txq;		/* queues tracked, from queue_base */
	__u32 queue_base;
	__u32 mode;		/* enum sj_mode */
};

enum sj_sparse {
	SJ_SPARSE_OFF = 0,
	SJ_SPARSE_AUTO = 1,	/* pfifo_fast's band 0: root, or mq's children */
	SJ_SPARSE_CLASS = 2,	/* an HTB class the operator names */
};

/* pfifo_fast puts TC_PRIO_INTERACTIVE in band 0, ahead of the bulk */
#define SJ_PRIO_INTERACTIVE	6

/*
 * What the packet parser found.  Each kind has its own counter, so nothing
 * passes uncounted.  The kinds keyed to a flow come first, through
 * SJ_PKT_FRAGMENT (sj_pkt_kind_keyed).
 */
enum sj_pkt_kind {
	SJ_PKT_TCP,
	SJ_PKT_UDP,
	SJ_PKT_ICMP,		/* ICMP and ICMPv6 */
	SJ_PKT_OTHER_L4,	/* IP with another protocol: keyed by addresses */
	SJ_PKT_FRAGMENT,	/* an IPv4 or IPv6 fragment: keyed to its
				 * datagram's flow (bpf/frag.bpf.h) */
	SJ_PKT_NON_IP,		/* ARP, LLDP, ...: passed untouched */
	SJ_PKT_TRUNCATED,	/* a header ran past the packet's end */
	SJ_PKT_BAD_HEADER,	/* IHL < 5, IPv6 version mismatch, ... */
	SJ_PKT_VLAN_DEEP,	/* more VLAN tags than we parse */
	SJ_PKT_EXT_DEEP,	/* more IPv6 extension headers than we parse */
	SJ_PKT_KINDS,
};

/* A kind keyed to a flow.  A range: one comparison on every packet,
 * whatever clang would make of a switch; so the enum's order is the
 * contract, pinned below.  The tests name the kinds one by one
 * (tests/prog/corpus.h fr_has_flow). */
static inline int sj_pkt_kind_keyed(int kind)
{
	return kind <= SJ_PKT_FRAGMENT;
}

_Static_assert(SJ_PKT_TCP <= SJ_PKT_FRAGMENT && SJ_PKT_UDP <= SJ_PKT_FRAGMENT &&
	       SJ_PKT_ICMP <= SJ_PKT_FRAGMENT && SJ_PKT_OTHER_L4 <= SJ_PKT_FRAGMENT,
	       "the kinds keyed to a flow come first, through SJ_PKT_FRAGMENT");
_Static_assert(SJ_PKT_NON_IP > SJ_PKT_FRAGMENT && SJ_PKT_TRUNCATED > SJ_PKT_FRAGMENT &&
	       SJ_PKT_BAD_HEADER > SJ_PKT_FRAGMENT && SJ_PKT_VLAN_DEEP > SJ_PKT_FRAGMENT &&
	       SJ_PKT_EXT_DEEP > SJ_PKT_FRAGMENT,
	       "the kinds without a flow come after SJ_PKT_FRAGMENT");
_Static_assert(SJ_PKT_KINDS == 10, "a new kind: add it to one of the two asserts above");

/* Each kind's name, by the kind: a reordered enum keeps its names */
#define SJ_PKT_KIND_NAMES {						\
	[SJ_PKT_TCP] = "tcp",						\
	[SJ_PKT_UDP] = "udp",						\
	[SJ_PKT_ICMP] = "icmp",						\
	[SJ_PKT_OTHER_L4] = "other_l4",					\
	[SJ_PKT_FRAGMENT] = "fragment",					\
	[SJ_PKT_NON_IP] = "non_ip",					\
	[SJ_PKT_TRUNCATED] = "truncated",				\
	[SJ_PKT_BAD_HEADER] = "bad_header",				\
	[SJ_PKT_VLAN_DEEP] = "vlan_too_deep",				\
	[SJ_PKT_EXT_DEEP] = "ipv6_ext_too_deep", }

/* TCP's flags as struct sj_pkt's tcp_flags holds them (include/parse.h);
 * CWR is fair.h's, which its unit test compiles alone */
#define SJ_TCP_FLAG_SYN		0x02
#define SJ_TCP_FLAG_RST		0x04
#define SJ_TCP_FLAG_ACK		0x10
#define SJ_TCP_FLAG_ECE		0x40
#define SJ_TCP_FLAG_AE		0x100

/*
 * A congestion signal owed to a TCP sender by way of its ACKs (bpf/
 * ackecho.bpf.h): the ACK stream's own 4-tuple, as the ACKs carry it (the
 * data's, reversed), in the network namespace both directions pass in.
 */
struct sj_ack_key {
	__u64 netns_cookie;
	__u32 saddr[4];		/* network order: the data's receiver */
	__u32 daddr[4];		/* the data's sender */
	__u16 sport;
	__u16 dport;
	__u32 family;		/* 4 or 6 */
};
struct sj_ack_owed {
	__u64 until_ns;		/* owed no longer after this: an interval */
	__u32 att;		/* the attachment whose law signalled */
	__u32 pad;
};
#define SJ_ACK_OWED_MAX		4096	/* flows signalled within an interval */

/* A flow: the 5-tuple; IPv4 addresses sit in the first word of each. */
struct sj_flow_key {
	__u32 saddr[4];		/* network order */
	__u32 daddr[4];
	__u16 sport;		/* network order; ICMP echo id in sport */
	__u16 dport;
	__u8 proto;
	__u8 family;		/* 4 or 6 */
	__u16 att;		/* the attachment's id (struct sj_att): one
				 * table holds the flows of every attachment */
};

/*
 * A datagram whose first fragment was seen: its addresses, protocol and
 * identification, as every fragment of it repeats them (the kernel
 * reassembles by the same, net/ipv4/ip_fragment.c ip_find, and
 * net/ipv6/reassembly.c).  The value is what its later fragments lack.
 */
/*
 * A sender whose flow was judged unresponsive (bpf/sender.bpf.h): its
 * address and the protocol, since a sender that changes port makes a new
 * flow, not a new sender.
 */
struct sj_sender_key {
	__u32 saddr[4];		/* network order, IPv4 in the first word */
	__u8 proto;
	__u8 family;
	__u16 att;		/* as in sj_flow_key */
};
struct sj_sender {
	__u64 convicted_at;	/* its convicted flow's last enqueue drop */
	__u32 drop_p;		/* that flow's drop probability then */
	__u32 pad;
};
#define SJ_SENDERS_MAP_SIZE	4096

struct sj_frag_key {
	__u32 saddr[4];		/* network order, IPv4 in the first word */
	__u32 daddr[4];
	__u32 id;		/* IPv4: 16 bits, network order; IPv6: 32 */
	__u8 proto;		/* the IP header's, or the fragment header's
				 * next header */
	__u8 family;
	__u16 att;		/* as in sj_flow_key */
};

struct sj_frag_val {
	__u16 sport;		/* network order, as sj_flow_key has them */
	__u16 dport;
};

/* Datagrams remembered, LRU: the fragments of one datagram leave a host
 * back to back and arrive within a few packets of each other, so this
 * only needs to outlast the few datagrams in flight at once */
#define SJ_FRAG_MAP_SIZE	1024

struct sj_flow {
	__u64 packets;
	__u64 bytes;
	__u64 drops;
	__u64 ecn_marks;	/* CoDel signals carried out as CE */
	__u64 ce_marks;		/* ce_threshold marks */
	__u64 first_seen_ns;	/* CLOCK_MONOTONIC */
	__u64 last_seen_ns;
	/* sojourn of the packets measured (hist.h); 32-bit buckets keep
	 * the entry small and wrap after 2^32 samples of one bucket */
	__u64 sojourn_sum_ns;
	__u32 hist[SJ_HIST_BUCKETS];
	/* fairness (include/fair.h): bytes of this flow in the queue */
	__u64 backlog;
	__u64 backlog_at;	/* last enqueue, ns */
	__u64 forgot_at;	/* when the staleness rule last zeroed a count
				 * that was not zero, ns */
	__u64 judged_since;	/* the first signal the flow took while heavy
				 * and has not answered, ns; 0: none */
	__u64 light_since;	/* at or below it since, ns; 0: not */
	__u64 recent_bytes;	/* sent over about the last interval */
	__u64 recent_at;
	__u64 mean_at;		/* when it last moved the queue's means, ns
				 * (fair.h: sj_fair_mean_due) */
	__u64 judged_peak;	/* not TCP: the highest recent_bytes since it
				 * was judged (fair.h: sj_fair_rate_answer);
				 * 0: not judged */
	__u64 answer_at;	/* not TCP, judged: since when its packets
				 * read as an answer (fair.h:
				 * sj_fair_answer_held); 0: they do not */
	__u16 signals_heavy;	/* signals taken while heavy (saturates) */
	__u8 left_ahead;	/* the last packet measured leaving had been
				 * sent ahead (sparse steering) */
	__u8 pad8;
	__u32 drop_p;		/* unresponsive: enqueue drop probability,
				 * 32-bit fixed point; 0: responsive */
	/* real-queue mode: the sojourn of the flow's last packet measured
	 * leaving, for ce_threshold at its next egress packet */
	codel_time_t ldelay;
	union {
		/* fairness, TCP: the highest sequence number a data packet
		 * of the flow started at */
		__u32 tcp_high;
		/* fairness, not TCP: the most it held in the queue at its
		 * packets since it was judged, bytes, saturating (fair.h:
		 * sj_fair_backlog_answer); 0: not judged */
		__u32 backlog_peak;
	};
	__u64 signal_at;	/* when the queue's law gave the signal this flow's
				 * next packet carries out, ns; 0: none.
				 * Older than an interval, it has expired. */
	__u64 last_stamp;	/* enqueue time of the last packet measured:
				 * GSO segments and a requeued skb share it */
	__u64 last_left;	/* when that packet left, ns */
	__u64 last_skb;		/* the address of the last skb seen leaving:
				 * a requeued skb comes again, a GSO
				 * segment is a new one */
	__u64 path;		/* sparse steering: the last packet's path
				 * and when it was decided, claimed one
				 * packet at a time (fair.h:
				 * sj_fair_path_claim) */
};

/* Per CPU, summed by the command */
struct sj_stats {
	__u64 packets;		/* seen at egress */
	__u64 bytes;
	__u64 drops;		/* CoDel signals carried out as drops */
	__u64 ecn_mark;		/* CoDel signals carried out as CE */
	__u64 ce_mark;		/* ce_threshold marks */
	__u64 drop_overlimit;	/* drops for exceeding a hard limit */
	__u64 flows_created;	/* new entries in the flow table */
	__u64 dequeued;		/* sojourn measured at the queue's exit */
	__u64 unmeasured;	/* left without a valid stamp of ours */
	__u64 edt_kept;		/* arrived with a future departure time (EDT,
				 * SO_TXTIME): left as it is, not measured */
	__u64 kind[SJ_PKT_KINDS];
	/* fairness (include/fair.h) */
	__u64 new_flow_count;	/* flows that found no backlog of theirs */
	__u64 sparse_steered;	/* packets of sparse flows sent ahead */
	__u64 sparse_bounded;	/* packets of sparse flows kept in the bulk
				 * queue: the priority path was at its bound */
	__u64 unresponsive_drops; /* enqueue drops of flows that ignore CoDel */
	__u64 tcp_answers;	/* TCP packets whose sender shows it answered
				 * congestion: CWR, or a retransmission */
	__u64 rate_answers;	/* packets of flows that are not TCP whose rate
				 * fell an eighth since they were judged: an
				 * answer (fair.h: sj_fair_rate_answer) */
	__u64 backlog_answers;	/* packets of flows that are not TCP whose
				 * backlog fell a quarter since they were
				 * judged: an answer (fair.h:
				 * sj_fair_backlog_answer) */
	/* real-queue mode: how the law's signals fared */
	__u64 signals;		/* given to a flow by its queue's law */
	__u64 signals_expired;	/* not carried out within an interval */
	__u64 signals_deferred;	/* dequeues at which the law was due but the
				 * leaving packet's flow could not take the
				 * signal (below its share, or one still
				 * owed): the next packet's flow may */
	__u64 dequeue_repeats;	/* one skb seen again: GSO segments after the
				 * first, NETDEV_TX_BUSY requeues: not measured
				 * twice */
	__u64 frag_unmatched;	/* later fragments whose first fragment was
				 * not seen (reordered, or forgotten): keyed
				 * by addresses and protocol alone */
	__u64 reordered;	/* packets that left the qdisc after a younger
				 * packet of their own flow: whatever passed
				 * it (sparse steering, classes, queues) */
	__u64 reordered_ahead;	/* of those, packets passed by a younger one
				 * of their flow that had been sent ahead:
				 * sparse steering's own */
	__u64 flows_capped;	/* packets of a new flow past the attachment's
				 * `flows` in one window: handled without a
				 * flow entry of their own */
	/* ackecho (bpf/ackecho.bpf.h), counted on the attachment whose law
	 * signalled */
	__u64 ack_echoes;	/* signals echoed as ECE on an ACK on its way
				 * back to the sender */
	__u64 ack_echo_declined; /* owed, but the ACKs speak AccECN or carry
				  * CWR: left to the CE mark alone */
};

/*
 * One transmit queue (rate mode: the virtual queue), and its CoDel law.
 * Rate mode runs the law on `vars` under `lock`: every CPU pushes the same
 * clock.  Real-queue mode runs it at the dequeue tracepoint, where for one
 * root qdisc only one CPU dequeues at a time (qdisc_run_begin,
 * include/net/sch_generic.h, 5.18-6.18; pfifo_fast through its seqlock),
 * so it needs no lock there.
 */
struct sj_queue {
	struct bpf_spin_lock lock;
	struct codel_vars vars;
	__u32 maxpacket;	/* largest packet seen leaving */
	/* rate mode: when the last admitted packet leaves the virtual queue
	 * (CLOCK_MONOTONIC ns); shared by all CPUs, moved under `lock` */
	__u64 departure_ns;
	/* fairness: the backlog the average flow holds, each flow counted
	 * alike (fair.h: sj_fair_mean_due), an estimate every CPU nudges
	 * without the lock */
	__u64 mean_backlog;
	/* fairness: the rate (sj_flow's recent_bytes) the average flow that
	 * is not sparse sends at, nudged as mean_backlog is; who takes the
	 * law's signals (fair.h) */
	__u64 mean_recent;
	/* when a flow last moved mean_backlog, and mean_recent, ns: how far
	 * the next one moves them (fair.h: sj_fair_mean_move) */
	__u64 mean_backlog_at;
	__u64 mean_recent_at;
	/* sparse steering's bound (fair.h): bytes that left over about the
	 * last interval (the queue's one dequeuer moves it) and bytes sent
	 * ahead over about the last interval (every CPU, without the lock:
	 * an estimate), each with the time it last moved */
	__u64 sent_recent;
	__u64 sent_at;
	__u64 steered_recent;
	__u64 steered_at;
	/* the enqueue stamp of the newest packet that left by the bulk path
	 * (not sent ahead), moved by the queue's one dequeuer: in a FIFO,
	 * every packet stamped before it has left too (fair.h) */
	__u64 bulk_left;
	/* when that packet left, ns: a packet stamped later found the bulk
	 * path empty, and the law forgets its episode (codel.h) */
	__u64 bulk_left_at;
};

/* The qdisc keeps no single backlog count we can read (lockless qdiscs) */
#define SJ_BACKLOG_UNKNOWN	0xffffffffU

/*
 * The enqueue time travels in the skb's control block, in the part of it
 * the qdisc layer leaves to classifiers (struct qdisc_skb_cb's data[20],
 * which tc programs see as __sk_buff cb[0..4]).  The time, ns, sits in
 * cb[3] (low word) and cb[4] (high word), data bytes 12..19: codel and
 * fq_codel (8 bytes), fq (9), netem (8) and cake (12) keep their own state
 * in front of it, so `observe` can measure under them; pie and fq_pie use
 * 16 bytes and would overwrite it.  cb[2] holds a check word in real-queue
 * mode, so that a program after ours that reuses cb[] cannot make us
 * measure garbage.  __copy_skb_header copies cb[] to GSO segments.
 * skb->tstamp is never written in real-queue mode: it belongs to the
 * sender's EDT and SO_TXTIME times and to fq's per-socket pacing.
 */
#define SJ_CB_CHECK		2
#define SJ_CB_STAMP_LO		3
#define SJ_CB_STAMP_HI		4
#define SJ_CB_DATA_OFF		12	/* of cb[3] in qdisc_skb_cb.data */
#define SJ_CB_MAGIC		0x534a4342U	/* "SJCB" */
/* a stamp further back than this is not ours (or from another boot) */
#define SJ_CB_MAX_AGE_NS	(100ULL * 1000000000ULL)

static __always_inline __u32 sj_cb_check(__u32 lo, __u32 hi)
{
	return (lo ^ SJ_CB_MAGIC) * 0x9e3779b1U ^ hi;
}

/* Fixed facts of an attachment, written once by attach, read by show. */
struct sj_meta {
	__u64 netns_cookie;
	__u32 ifindex;
	__u32 hook;		/* enum sj_hook */
	__u32 num_txq;		/* queues tracked (entries of `queues`) */
	__u32 tc_handle;	/* clsact filter we own, 0 under tcx */
	__u32 tc_priority;
	__u32 created_clsact;	/* we made the clsact qdisc, so we remove it */
	__u32 direction;	/* enum sj_dir */
	__u32 mode;		/* enum sj_mode */
	__u32 xdp_mode;		/* SJ_XDP_MODE_*, under SJ_HOOK_XDP */
	__u32 prog_id;		/* our tc or XDP program, to find it again */
	__u32 xdp_dispatcher;	/* in libxdp's dispatcher (0: the kernel refused
				 * it, we hold the XDP hook alone) */
	__u32 sparse_class_made;	/* the HTB class sparse_class auto added
					 * (loader/htbpath.c), removed at detach */
	__u64 attached_at;	/* CLOCK_REALTIME seconds */
	char ifname[16];
	char netns[64];		/* name given with -n, "" for the caller's */
	/* rate mode: the device's packet counter for our direction (tx
	 * egress, rx ingress) when we came on, to tell how many packets
	 * never reached us (loader/ahead.c), if dev_packets_read */
	__u64 dev_packets_at_attach;
	__u32 dev_packets_read;
	__u32 att_id;		/* struct sj_att: where its state sits in the
				 * host's maps (bpf/maps.bpf.h) */
	__u32 queue_base;	/* its first entry in `queues` */
	__u32 pad2;
};

#endif /* SOJOURN_H */
