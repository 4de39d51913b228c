/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Prometheus text exposition (format 0.0.4) of what export read.  Pure
 * formatting on a FILE: the unit test renders made-up histograms through
 * the same code.
 */
#ifndef SJ_PROM_H
#define SJ_PROM_H

#include <stdio.h>
#include "obs.h"

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Everything export knows of one attachment at one moment */
struct prom_att {
	struct sj_meta meta;
	struct sj_settings set;
	struct sj_stats st;
	struct sj_dev_hist dev;
	bool have_dev;		/* an attachment from before histograms has none */
	struct sj_queue *queues;
	__u32 nq;
	__u64 live_flows;
	struct obs_flow *top;	/* the flows with per-flow series */
	size_t ntop;
	/* The Kubernetes pod the CNI plugin attached for, "" when none is
	 * known: labels pod_namespace and pod_name of the attachment's
	 * series.  export reads them from the plugin's records (cni/state.c). */
	char pod_namespace[64];	/* a DNS label: 63 characters at most */
	char pod_name[254];	/* a DNS subdomain: 253 at most */
};

/* "0.000001" .. "16.777216", "+Inf": bucket b's le, in seconds */
void prom_le(char *buf, size_t len, int b);
/* name_bucket (cumulative), name_sum, name_count; labels without braces */
void prom_hist(FILE *f, const char *name, const char *labels,
	       const struct sj_hist *h);
/* a label value with \ " and newline escaped */
void prom_escape(char *buf, size_t len, const char *s);
void prom_render(FILE *f, const struct prom_att *a, int n);
/* attachments left out: made by another version of sojourn (pins.c) */
void prom_render_foreign(FILE *f, int n);

#endif
