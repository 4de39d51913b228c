// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * show: settings of each attachment, and with -s its counters under
 * fq_codel's and codel's names.  Reads only the pins, so it works from any
 * namespace and for devices that are gone; through obs.c, as hist, top
 * and export read them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "common.h"
#include "obs.h"
#include "output.h"
#include "tune.h"
#include "units.h"
#include "vqueue.h"

bool sj_show_stats;

/* the attachments to show, and how many were */
struct show_arg {
	struct obs_filter f;
	int shown;
	int foreign;	/* of another layout: said, never read */
};

/* How many flows the flow table holds */
static __u64 count_flows(const char *dir)
{
	struct obs_flow *v;
	size_t n;

	if (obs_read_flows(dir, &v, &n))
		return 0;
	free(v);
	return n;
}

/* Rate and real-queue mode run one law per (virtual) queue; observe mode
 * keeps per queue only what it last saw leave */
static void show_queue(const struct sj_queue *q, bool law)
{
	if (law) {
		out_u64("count", " count %llu", q->vars.count);
		out_u64("lastcount", " lastcount %llu", q->vars.lastcount);
	}
	out_time("ldelay", " ldelay %s", CODEL_TO_NS(q->vars.ldelay));
	if (law)
		out_bool("dropping", " dropping", q->vars.dropping);
	out_u64("maxpacket", " maxpacket %llu", q->maxpacket);
}

static void show_stats(const char *dir, const struct sj_meta *meta)
{
	static const char *kinds[] = SJ_PKT_KIND_NAMES;
	struct sj_queue *queues, first = {};
	bool law = meta->mode != SJ_MODE_OBSERVE;
	__u64 flows;
	struct sj_stats st;
	__u32 i, nq, maxpacket = 0;

	obs_read_stats(dir, &st);
	flows = count_flows(dir);
	obs_read_queues(dir, meta, &queues, &nq);
	if (nq)
		first = queues[0];
	for (i = 0; i < nq; i++)
		if (queues[i].maxpacket > maxpacket)
			maxpacket = queues[i].maxpacket;

	out_open_object("stats");
	out_text("\n ");
	out_u64("packets", " packets %llu", st.packets);
	out_u64("bytes", " bytes %llu", st.bytes);
	out_u64("drops", " drops %llu", st.drops);
	out_u64("ecn_mark", " ecn_mark %llu", st.ecn_mark);
	out_u64("ce_mark", " ce_mark %llu", st.ce_mark);
	out_u64("drop_overlimit", " drop_overlimit %llu", st.drop_overlimit);
	out_text("\n ");
	out_u64("maxpacket", " maxpacket %llu", maxpacket);
	/* the first queue's law, as codel shows its own (each queue's
	 * follows below) */
	if (law) {
		out_u64("count", " count %llu", first.vars.count);
		out_u64("lastcount", " lastcount %llu", first.vars.lastcount);
	}
	out_time("ldelay", " ldelay %s", CODEL_TO_NS(first.vars.ldelay));
	if (law)
		out_bool("dropping", " dropping", first.vars.dropping);
	out_text("\n ");
	out_u64("flows", " flows %llu", flows);
	out_u64("flows_evicted", " flows_evicted %llu",
		st.flows_created > flows ? st.flows_created - flows : 0);
	out_u64("flows_capped", " flows_capped %llu", st.flows_capped);
	out_u64("dequeued", " dequeued %llu", st.dequeued);
	out_u64("unmeasured", " unmeasured %llu", st.unmeasured);
	out_u64("edt_kept", " edt_kept %llu", st.edt_kept);
	out_text("\n ");
	out_u64("signals", " signals %llu", st.signals);
	out_u64("signals_expired", " signals_expired %llu", st.signals_expired);
	out_u64("signals_deferred", " signals_deferred %llu", st.signals_deferred);
	out_u64("dequeue_repeats", " dequeue_repeats %llu", st.dequeue_repeats);
	out_u64("ack_echoes", " ack_echoes %llu", st.ack_echoes);
	out_u64("ack_echo_declined", " ack_echo_declined %llu",
		st.ack_echo_declined);
	out_text("\n ");
	out_u64("new_flow_count", " new_flow_count %llu", st.new_flow_count);
	out_u64("sparse_steered", " sparse_steered %llu", st.sparse_steered);
	out_u64("sparse_bounded", " sparse_bounded %llu", st.sparse_bounded);
	out_u64("unresponsive_drops", " unresponsive_drops %llu",
		st.unresponsive_drops);
	out_u64("tcp_answers", " tcp_answers %llu", st.tcp_answers);
	out_u64("rate_answers", " rate_answers %llu", st.rate_answers);
	out_u64("backlog_answers", " backlog_answers %llu", st.backlog_answers);
	out_u64("frag_unmatched", " frag_unmatched %llu", st.frag_unmatched);
	out_u64("reordered", " reordered %llu", st.reordered);
	out_u64("reordered_ahead", " reordered_ahead %llu", st.reordered_ahead);
	out_text("\n  parsed:");
	out_open_object("parsed");
	for (i = 0; i < SJ_PKT_KINDS; i++) {
		char fmt[48];

		snprintf(fmt, sizeof(fmt), " %s %%llu", kinds[i]);
		out_u64(kinds[i], fmt, st.kind[i]);
	}
	out_close_object();
	out_open_array("queues");
	for (i = 0; i < nq; i++) {
		out_open_object(NULL);
		out_text("\n  queue %u:", i);
		out_u64("queue", "", i);
		show_queue(&queues[i], law);
		out_close_object();
	}
	out_close_array();
	out_close_object();
	free(queues);
}

/* The link accounting of rate mode, in tc's words: text names what
 * differs from the default (ethernet, nothing added); JSON has it all */
static void show_wire(const struct sj_wire *w)
{
	const char *link = sj_wire_link_name(w->link);

	if (out_is_json() || w->overhead)
		out_s64("overhead", " overhead %lld", w->overhead);
	if (out_is_json() || w->mpu)
		out_u64("mpu", " mpu %llu", w->mpu);
	if (out_is_json() || w->link != SJ_WIRE_ETHERNET)
		out_str("linklayer", " linklayer %s", link ? link : "unknown");
}

static void show_fair(const struct sj_settings *set)
{
	char buf[32];

	out_bool("fair", " fair", set->fair);
	if (!set->fair)
		out_text(" nofair");
	out_u64("quantum", " quantum %llu", set->quantum);
	switch (set->sparse_mode) {
	case SJ_SPARSE_CLASS:
		snprintf(buf, sizeof(buf), "%x:%x", set->sparse_priority >> 16,
			 set->sparse_priority & 0xffff);
		out_str("sparse_class", " sparse_class %s", buf);
		break;
	case SJ_SPARSE_AUTO:
		out_str("sparse_class", " sparse_class %s", "auto");
		if (TC_H_MAJ(set->sparse_priority))
			out_text(" (HTB class %x:%x, added by sojourn until detach)",
				 set->sparse_priority >> 16,
				 set->sparse_priority & 0xffff);
		else if (set->sparse_priority)
			out_text(" (pfifo_fast band 0)");
		else
			out_text(" (off: no band or class ahead; attach said why)");
		break;
	default:
		out_str("sparse_class", " sparse_class %s", "off");
	}
	out_u64("sparse_priority", "", set->sparse_priority);
	out_bool("ackecho", " ackecho", set->ack_echo);
	if (!set->ack_echo)
		out_text(" noackecho");
}

static void show_law(const struct sj_settings *set)
{
	out_time("target", " target %s", set->target_ns);
	out_time("interval", " interval %s", set->interval_ns);
	if (set->ce_threshold_ns)
		out_time("ce_threshold", " ce_threshold %s", set->ce_threshold_ns);
	else
		out_null("ce_threshold");
	out_bool("ecn", " ecn", set->codel.ecn);
	if (!set->codel.ecn)
		out_text(" noecn");
}

static int show_one(const char *dir, void *arg)
{
	struct show_arg *sa = arg;
	struct sj_settings set;
	struct sj_ahead ahead;
	struct sj_stats st;
	struct sj_meta meta;

	if (obs_foreign(&sa->f, dir)) {
		sa->foreign += obs_filter_match_dir(&sa->f, dir);
		return 0;
	}
	if (sj_meta_read(dir, &meta) || !obs_filter_match(&sa->f, &meta))
		return 0;
	obs_read_settings(dir, &meta, &set);
	sa->shown++;

	out_open_object(NULL);
	out_str("dev", "%s", meta.ifname);
	out_str("netns", meta.netns[0] ? " netns %s" : "%s", meta.netns);
	out_u64("netns_cookie", "", meta.netns_cookie);
	out_str("direction", " %s", sj_dir_name(meta.direction));
	out_u64("ifindex", " ifindex %llu", meta.ifindex);
	out_str("hook", " hook %s", sj_hook_name(&meta));
	if (meta.hook == SJ_HOOK_XDP) {
		out_bool("xdp_dispatcher", "", meta.xdp_dispatcher);
		if (!meta.xdp_dispatcher)
			out_text(" (alone: no libxdp dispatcher)");
	}
	if (meta.mode == SJ_MODE_RATE) {
		out_str("mode", " mode %s", sj_mode_name(meta.mode));
		/* as tc -j prints tbf's: bytes per second and bytes */
		out_rate("rate", " rate %s", set.rate_Bps);
		out_size("burst", " burst %s", set.burst_bytes);
		out_time("horizon", " horizon %s", set.horizon_ns);
		/* what the bulk meets: drop_overlimit's threshold (vqueue.h) */
		out_time("bulk_ceiling", " bulk_ceiling %s",
			 sj_vq_bulk_ceiling(set.horizon_ns));
		out_bool("pace", " pace", set.pace);
		show_wire(&set.wire);
	} else if (meta.mode == SJ_MODE_OBSERVE) {
		out_str("mode", " mode %s", sj_mode_name(meta.mode));
		out_u64("queues", " queues %llu", meta.num_txq);
	} else {
		out_str("mode", " mode %s", sj_mode_name(meta.mode));
		out_u64("queues", " queues %llu", meta.num_txq);
		show_fair(&set);
	}
	out_u64("flows", " flows %llu", set.flows_cap);
	/* observe measures only: it has no law to show settings of */
	if (meta.mode != SJ_MODE_OBSERVE)
		show_law(&set);
	out_str("pin", "\n pinned %s", dir);
	/* programs ahead of ours on the hook, and (-s) packets that skipped us */
	sj_ahead_find(&meta, &ahead);
	sj_ahead_show(&meta, &ahead);
	if (sj_show_stats) {
		show_stats(dir, &meta);
		obs_read_stats(dir, &st);
		sj_ahead_show_skipped(&meta, &ahead, &st);
	}
	out_text("\n");
	out_close_object();
	return 0;
}

int cmd_show(int argc, char **argv)
{
	struct show_arg sa = {};
	struct sj_link link;

	if (argc > 1)
		return sj_err("usage: sojourn show [DEV] [-s] [-j] [-n NETNS]");
	/* in the pins' own order, which obs_list's sorting would change */
	if (obs_filter_init(&sa.f, argc ? argv[0] : NULL, true))
		return -1;
	out_open_array(NULL);
	obs_flows_forget();	/* the host's flows, read once for all */
	sj_pins_foreach(show_one, &sa);
	out_close_array();
	if (sa.f.dev && !sa.shown && sa.foreign)	/* said in one line */
		return -1;
	if (sa.f.dev && !sa.shown && !sa.f.ifindex)	/* not even pins by that name */
		return sj_link_get(sa.f.dev, &link);
	out_flush();
	/* the device named has one direction of another layout */
	return sa.f.dev && sa.foreign ? -1 : 0;
}
