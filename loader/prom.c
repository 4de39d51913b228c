// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Prometheus text exposition.  A metric family's lines must stand
 * together, so each family is one pass over all attachments.  Names
 * follow Prometheus's conventions: base units (seconds, bytes), counters
 * end in _total, histogram buckets are cumulative with inclusive `le`.
 * An attachment's labels are device (node_exporter's name for the
 * interface), netns and direction, and pod_namespace and pod_name when the
 * CNI plugin attached it for a pod (absent otherwise: Prometheus takes an
 * empty label as no label); what it is (mode, hook) is said once, in
 * sojourn_info, to be joined on those labels, rather than added to every
 * series.
 */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include "prom.h"

void prom_le(char *buf, size_t len, int b)
{
	__u64 us = sj_hist_bound_us(b);

	if (b >= SJ_HIST_LAST)
		snprintf(buf, len, "+Inf");
	else	/* whole microseconds: exact in decimal */
		snprintf(buf, len, "%llu.%06llu", us / 1000000, us % 1000000);
}

static void seconds(char *buf, size_t len, __u64 ns)
{
	snprintf(buf, len, "%llu.%09llu", ns / 1000000000, ns % 1000000000);
}

void prom_hist(FILE *f, const char *name, const char *labels,
	       const struct sj_hist *h)
{
	const char *sep = labels[0] ? "," : "";
	char le[32], s[32];
	__u64 cum = 0;
	int b;

	for (b = 0; b < SJ_HIST_BUCKETS; b++) {
		cum += h->count[b];
		prom_le(le, sizeof(le), b);
		fprintf(f, "%s_bucket{%s%sle=\"%s\"} %llu\n", name, labels, sep,
			le, cum);
	}
	seconds(s, sizeof(s), h->sum_ns);
	fprintf(f, "%s_sum{%s} %s\n", name, labels, s);
	fprintf(f, "%s_count{%s} %llu\n", name, labels, cum);
}

void prom_escape(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 3 < len; s++) {
		if (*s == '\\' || *s == '"') {
			buf[o++] = '\\';
			buf[o++] = *s;
		} else if (*s == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = '\0';
}

/* device, netns, direction and the pod's two, each escaped (twice its size) */
#define ATT_LABELS_LEN (2 * (16 + 80 + sizeof(((struct prom_att *)0)->pod_namespace) + \
			     sizeof(((struct prom_att *)0)->pod_name)) + 128)
#define LABELS_LEN (ATT_LABELS_LEN + 256)

static void att_labels(char *buf, size_t len, const struct prom_att *a)
{
	const struct sj_meta *m = &a->meta;
	char dev[64], ns[160], raw[80], pns[2 * sizeof(a->pod_namespace)];
	char pod[2 * sizeof(a->pod_name)];
	int n;

	snprintf(raw, sizeof(raw), "%.*s", (int)sizeof(m->ifname), m->ifname);
	prom_escape(dev, sizeof(dev), raw);
	prom_escape(ns, sizeof(ns), obs_netns_label(m, raw, sizeof(raw)));
	n = snprintf(buf, len, "device=\"%s\",netns=\"%s\",direction=\"%s\"", dev, ns,
		     sj_dir_name(m->direction));
	/* the pod on every series of its attachment: it is fixed for the
	 * attachment's life, so it adds no series, and a query by pod
	 * needs no join.  Named pod_*, not namespace and pod, which a
	 * Kubernetes scrape sets to the exporter's own pod. */
	if (a->pod_name[0] && n > 0 && (size_t)n < len) {
		prom_escape(pns, sizeof(pns), a->pod_namespace);
		prom_escape(pod, sizeof(pod), a->pod_name);
		snprintf(buf + n, len - n, ",pod_namespace=\"%s\",pod_name=\"%s\"", pns, pod);
	}
}

static void flow_labels(char *buf, size_t len, const struct prom_att *a,
			const struct sj_flow_key *k)
{
	char att[ATT_LABELS_LEN], s[OBS_ADDR_LEN], d[OBS_ADDR_LEN], p[8];

	att_labels(att, sizeof(att), a);
	obs_addr(k, true, s, sizeof(s));
	obs_addr(k, false, d, sizeof(d));
	snprintf(buf, len,
		 "%s,proto=\"%s\",src=\"%s\",sport=\"%u\",dst=\"%s\",dport=\"%u\"",
		 att, obs_proto_name(k->proto, p, sizeof(p)), s, ntohs(k->sport),
		 d, ntohs(k->dport));
}

static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

#define MODE_BIT(m)	(1u << (m))
#define ALL_MODES	(MODE_BIT(SJ_MODE_QUEUE) | MODE_BIT(SJ_MODE_RATE) | \
			 MODE_BIT(SJ_MODE_OBSERVE))
/* observe measures only: no law whose settings to give */
#define LAW_MODES	(MODE_BIT(SJ_MODE_QUEUE) | MODE_BIT(SJ_MODE_RATE))

/* one counter or gauge per attachment, from a field of struct prom_att */
struct att_metric {
	const char *name, *type, *help;
	__u64 (*get)(const struct prom_att *a);
	bool seconds;	/* the value is in ns, shown in seconds */
	unsigned modes;	/* MODE_BIT()s of the attachments that have it */
};

static __u64 get_packets(const struct prom_att *a) { return a->st.packets; }
static __u64 get_bytes(const struct prom_att *a) { return a->st.bytes; }
static __u64 get_drops(const struct prom_att *a) { return a->st.drops; }
static __u64 get_overlimit(const struct prom_att *a) { return a->st.drop_overlimit; }
static __u64 get_ecn(const struct prom_att *a) { return a->st.ecn_mark; }
static __u64 get_ce(const struct prom_att *a) { return a->st.ce_mark; }
static __u64 get_unmeasured(const struct prom_att *a) { return a->st.unmeasured; }
static __u64 get_signals(const struct prom_att *a) { return a->st.signals; }
static __u64 get_expired(const struct prom_att *a) { return a->st.signals_expired; }
static __u64 get_deferred(const struct prom_att *a) { return a->st.signals_deferred; }
static __u64 get_echoes(const struct prom_att *a) { return a->st.ack_echoes; }
static __u64 get_flows(const struct prom_att *a) { return a->live_flows; }
static __u64 get_evicted(const struct prom_att *a)
{
	return a->st.flows_created > a->live_flows ?
	       a->st.flows_created - a->live_flows : 0;
}
static __u64 get_noflow(const struct prom_att *a)
{
	return a->have_dev ? sj_hist_total(&a->dev.noflow) : 0;
}
static __u64 get_target(const struct prom_att *a) { return a->set.target_ns; }
static __u64 get_interval(const struct prom_att *a) { return a->set.interval_ns; }
static __u64 get_rate(const struct prom_att *a) { return a->set.rate_Bps; }
static __u64 get_burst(const struct prom_att *a) { return a->set.burst_bytes; }

static const struct att_metric att_metrics[] = {
	{ "sojourn_packets_total", "counter", "Packets seen by the sojourn program.", get_packets, false, ALL_MODES },
	{ "sojourn_bytes_total", "counter", "Bytes seen by the sojourn program.", get_bytes, false, ALL_MODES },
	{ "sojourn_drops_total", "counter", "CoDel signals carried out as drops.", get_drops, false, ALL_MODES },
	{ "sojourn_drop_overlimit_total", "counter", "Packets dropped for exceeding a hard limit (rate mode horizon).", get_overlimit, false, ALL_MODES },
	{ "sojourn_ecn_marks_total", "counter", "CoDel signals carried out as CE marks.", get_ecn, false, ALL_MODES },
	{ "sojourn_ce_marks_total", "counter", "CE marks for sojourn above ce_threshold.", get_ce, false, ALL_MODES },
	{ "sojourn_unmeasured_total", "counter", "Packets that left without a sojourn measurement.", get_unmeasured, false, ALL_MODES },
	{ "sojourn_signals_total", "counter", "Signals earned by the flows' CoDel laws (real-queue mode).", get_signals, false, ALL_MODES },
	{ "sojourn_signals_expired_total", "counter", "Signals not carried out within an interval.", get_expired, false, ALL_MODES },
	{ "sojourn_signals_deferred_total", "counter", "Dequeues at which the queue's law was due but the leaving packet's flow could not take the signal (real-queue mode).", get_deferred, false, ALL_MODES },
	{ "sojourn_ack_echoes_total", "counter", "Signals echoed as ECE on an ACK passing another sojourn device (real-queue mode).", get_echoes, false, MODE_BIT(SJ_MODE_QUEUE) },
	{ "sojourn_noflow_packets_total", "counter", "Packets measured that were counted to no flow.", get_noflow, false, ALL_MODES },
	{ "sojourn_flows", "gauge", "Live entries in the flow table.", get_flows, false, ALL_MODES },
	{ "sojourn_flows_evicted_total", "counter", "Flows evicted from the flow table (created minus live).", get_evicted, false, ALL_MODES },
	{ "sojourn_codel_target_seconds", "gauge", "CoDel target.", get_target, true, LAW_MODES },
	{ "sojourn_codel_interval_seconds", "gauge", "CoDel interval.", get_interval, true, LAW_MODES },
	{ "sojourn_rate_bytes_per_second", "gauge", "Rate the virtual queue drains at (rate mode).", get_rate, false, MODE_BIT(SJ_MODE_RATE) },
	{ "sojourn_burst_bytes", "gauge", "Credit an idle virtual queue may build up (rate mode).", get_burst, false, MODE_BIT(SJ_MODE_RATE) },
};

static void render_att_metric(FILE *f, const struct att_metric *m,
			      const struct prom_att *a, int n)
{
	char labels[LABELS_LEN], s[32];
	int i;

	family(f, m->name, m->type, m->help);
	for (i = 0; i < n; i++) {
		if (a[i].meta.mode >= 32 || !(m->modes & MODE_BIT(a[i].meta.mode)))
			continue;
		att_labels(labels, sizeof(labels), &a[i]);
		if (m->seconds) {
			seconds(s, sizeof(s), m->get(&a[i]));
			fprintf(f, "%s{%s} %s\n", m->name, labels, s);
		} else {
			fprintf(f, "%s{%s} %llu\n", m->name, labels, m->get(&a[i]));
		}
	}
}

/* node_exporter's node_uname_info style: the value is 1, the labels are
 * the information, one series per attachment whatever its traffic */
static void render_info(FILE *f, const struct prom_att *a, int n)
{
	char labels[LABELS_LEN];
	int i;

	family(f, "sojourn_info", "gauge",
	       "1 for each attachment; its mode (queue, rate, observe) and hook.");
	for (i = 0; i < n; i++) {
		att_labels(labels, sizeof(labels), &a[i]);
		fprintf(f, "sojourn_info{%s,mode=\"%s\",hook=\"%s\"} 1\n", labels,
			sj_mode_name(a[i].meta.mode), sj_hook_name(&a[i].meta));
	}
}

static void render_queues(FILE *f, const struct prom_att *a, int n)
{
	static const char *names[] = {
		"sojourn_codel_dropping", "sojourn_codel_signals",
		"sojourn_codel_ldelay_seconds",
	};
	static const char *helps[] = {
		"1 while the queue's CoDel is in its dropping state.",
		"CoDel's count: signals since it entered the dropping state.",
		"Sojourn of the last packet CoDel looked at.",
	};
	char labels[LABELS_LEN], s[32];
	int m, i;
	__u32 q;

	for (m = 0; m < 3; m++) {
		family(f, names[m], "gauge", helps[m]);
		for (i = 0; i < n; i++) {
			if (a[i].meta.mode == SJ_MODE_OBSERVE)
				continue;	/* no law, no state of one */
			att_labels(labels, sizeof(labels), &a[i]);
			for (q = 0; q < a[i].nq; q++) {
				const struct codel_vars *v = &a[i].queues[q].vars;

				fprintf(f, "%s{%s,queue=\"%u\"} ", names[m], labels, q);
				if (m == 0) {
					fprintf(f, "%u\n", v->dropping ? 1 : 0);
				} else if (m == 1) {
					fprintf(f, "%u\n", v->count);
				} else {
					seconds(s, sizeof(s), CODEL_TO_NS(v->ldelay));
					fprintf(f, "%s\n", s);
				}
			}
		}
	}
}

struct flow_metric {
	const char *name, *help;
	size_t off;	/* of a __u64 in struct sj_flow */
};

static const struct flow_metric flow_metrics[] = {
	{ "sojourn_flow_packets_total", "Packets of the flow.", __builtin_offsetof(struct sj_flow, packets) },
	{ "sojourn_flow_bytes_total", "Bytes of the flow.", __builtin_offsetof(struct sj_flow, bytes) },
	{ "sojourn_flow_drops_total", "Packets of the flow dropped.", __builtin_offsetof(struct sj_flow, drops) },
	{ "sojourn_flow_ecn_marks_total", "CoDel CE marks on the flow.", __builtin_offsetof(struct sj_flow, ecn_marks) },
	{ "sojourn_flow_ce_marks_total", "ce_threshold marks on the flow.", __builtin_offsetof(struct sj_flow, ce_marks) },
};

static void render_flows(FILE *f, const struct prom_att *a, int n)
{
	char labels[LABELS_LEN];
	struct sj_hist h;
	size_t j, m, total = 0;
	int i;

	for (i = 0; i < n; i++)
		total += a[i].ntop;
	if (!total)	/* export's default: no family that cannot have a series */
		return;
	family(f, "sojourn_flow_queue_delay_seconds", "histogram",
	       "Sojourn of the flow's packets, for the flows with the most queueing time.");
	for (i = 0; i < n; i++)
		for (j = 0; j < a[i].ntop; j++) {
			flow_labels(labels, sizeof(labels), &a[i], &a[i].top[j].key);
			obs_flow_hist(&a[i].top[j].val, &h);
			prom_hist(f, "sojourn_flow_queue_delay_seconds", labels, &h);
		}
	for (m = 0; m < sizeof(flow_metrics) / sizeof(flow_metrics[0]); m++) {
		family(f, flow_metrics[m].name, "counter", flow_metrics[m].help);
		for (i = 0; i < n; i++)
			for (j = 0; j < a[i].ntop; j++) {
				const char *v = (const char *)&a[i].top[j].val;

				flow_labels(labels, sizeof(labels), &a[i],
					    &a[i].top[j].key);
				fprintf(f, "%s{%s} %llu\n", flow_metrics[m].name, labels,
					*(const __u64 *)(v + flow_metrics[m].off));
			}
	}
}

void prom_render(FILE *f, const struct prom_att *a, int n)
{
	char labels[LABELS_LEN];
	size_t m;
	int i;

	render_info(f, a, n);
	family(f, "sojourn_queue_delay_seconds", "histogram",
	       "Sojourn of the packets in the managed queue (real or virtual).");
	for (i = 0; i < n; i++) {
		if (!a[i].have_dev)
			continue;
		att_labels(labels, sizeof(labels), &a[i]);
		prom_hist(f, "sojourn_queue_delay_seconds", labels, &a[i].dev.all);
	}
	for (m = 0; m < sizeof(att_metrics) / sizeof(att_metrics[0]); m++)
		render_att_metric(f, &att_metrics[m], a, n);
	render_queues(f, a, n);
	render_flows(f, a, n);
}

void prom_render_foreign(FILE *f, int n)
{
	family(f, "sojourn_attachments_foreign", "gauge",
	       "Attachments made by another version of sojourn, whose maps this one does not read.");
	fprintf(f, "sojourn_attachments_foreign %d\n", n);
}
