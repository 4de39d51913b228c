// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hist: a device's sojourn histogram as bcc's tools print theirs, split
 * into live flows, evicted flows and packets without a flow; with --flow,
 * the histogram of each flow the filter matches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "obs.h"
#include "output.h"

#define HIST_USAGE "usage: sojourn hist DEV [ingress|egress] [--flow all|[src ADDR] [dst ADDR] [sport PORT] [dport PORT] [proto PROTO]] [-j] [-n NETNS]"

static void flow_print(const struct obs_flow *f, __u64 now)
{
	char name[160], a[OBS_ADDR_LEN], p[8];
	const struct sj_flow *v = &f->val;
	struct sj_hist h;

	obs_flow_hist(v, &h);
	out_open_object(NULL);
	obs_flow_name(&f->key, name, sizeof(name));
	out_text("\n%s\n", name);
	out_str("proto", "", obs_proto_name(f->key.proto, p, sizeof(p)));
	obs_addr(&f->key, true, a, sizeof(a));
	out_str("src", "", a);
	out_u64("sport", "", ntohs(f->key.sport));
	obs_addr(&f->key, false, a, sizeof(a));
	out_str("dst", "", a);
	out_u64("dport", "", ntohs(f->key.dport));
	out_u64("packets", "     packets %llu", v->packets);
	out_u64("bytes", " bytes %llu", v->bytes);
	out_u64("drops", " drops %llu", v->drops);
	out_u64("ecn_marks", " ecn_marks %llu", v->ecn_marks);
	out_u64("ce_marks", " ce_marks %llu", v->ce_marks);
	out_u64("age_ms", " age %llums", now > v->first_seen_ns ?
		(now - v->first_seen_ns) / 1000000 : 0);
	out_u64("idle_ms", " idle %llums\n", now > v->last_seen_ns ?
		(now - v->last_seen_ns) / 1000000 : 0);
	obs_hist_print("histogram", &h);
	out_close_object();
}

static int hist_one(const struct obs_att *att, const struct obs_flowspec *spec)
{
	char ns[80], pin[SJ_PATH_MAX];
	struct obs_flow *flows = NULL;
	struct sj_dev_hist dev;
	struct obs_split sp;
	size_t n = 0, i, shown = 0;
	__u64 now;

	/* flows first, then the device: see obs_split */
	if (obs_read_flows(att->dir, &flows, &n))
		return -1;
	if (obs_read_dev(att->dir, &dev)) {
		free(flows);
		return sj_err("%s has no histograms (attached by an older sojourn?)",
			      att->dir);
	}
	now = obs_now_ns();
	obs_split(&dev, flows, n, &sp);

	out_open_object(NULL);
	out_str("dev", "dev %s", att->meta.ifname);
	out_str("netns", " netns %s", obs_netns_label(&att->meta, ns, sizeof(ns)));
	out_str("direction", " %s", sj_dir_name(att->meta.direction));
	snprintf(pin, sizeof(pin), "%s", att->dir);
	out_str("pin", "  (%s)\n", pin);
	obs_hist_print("histogram", &sp.all);
	out_u64("flows", "     flows %llu live;", sp.live);
	out_u64("in_flows", " packets in live flows %llu,", sj_hist_total(&sp.flows));
	out_u64("in_evicted", " in evicted flows %llu,", sj_hist_total(&sp.evicted));
	out_u64("without_flow", " without a flow %llu\n", sj_hist_total(&sp.noflow));
	if (out_is_json()) {
		obs_hist_print("flows_histogram", &sp.flows);
		obs_hist_print("evicted_histogram", &sp.evicted);
		obs_hist_print("noflow_histogram", &sp.noflow);
	}
	if (spec) {
		out_open_array("flow_list");
		for (i = 0; i < n; i++)
			if (obs_flowspec_match(spec, &flows[i].key)) {
				flow_print(&flows[i], now);
				shown++;
			}
		out_close_array();
		if (!shown)
			out_text("\n(no live flow matches the filter)\n");
	}
	out_close_object();
	free(flows);
	return 0;
}

int cmd_hist(int argc, char **argv)
{
	struct obs_flowspec spec = {}, *specp = NULL;
	struct obs_filter f;
	struct obs_att *atts;
	int i, n, err = 0, k, foreign;
	const char *dev = NULL;
	int dir = -1;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--flow") || !strcmp(argv[i], "flow")) {
			k = obs_flowspec_parse(argc - i - 1, argv + i + 1, &spec);
			if (k < 0)
				return -1;
			specp = &spec;
			i += k;
		} else if (!strcmp(argv[i], "ingress")) {
			dir = SJ_DIR_INGRESS;
		} else if (!strcmp(argv[i], "egress")) {
			dir = SJ_DIR_EGRESS;
		} else if (!dev && argv[i][0] != '-') {
			dev = argv[i];
		} else {
			return sj_err("unexpected \"%s\"; %s", argv[i], HIST_USAGE);
		}
	}
	if (!dev)
		return sj_err("hist needs a device; %s", HIST_USAGE);
	if (obs_filter_init(&f, dev, true))
		return -1;
	f.dir = dir;
	if (obs_list(&f, &atts, &n, &foreign))
		return -1;
	if (!n) {
		free(atts);
		if (foreign)	/* said in one line already */
			return -1;
		return sj_err("%s is not attached%s%s", dev,
			      sj_netns_name ? " in netns " : "",
			      sj_netns_name ? sj_netns_name : "");
	}
	out_open_array(NULL);
	for (i = 0; i < n && !err; i++) {
		if (i)
			out_text("\n");
		err = hist_one(&atts[i], specp);
	}
	out_close_array();
	out_flush();
	free(atts);
	return err || foreign ? -1 : 0;
}
