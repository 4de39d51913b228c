// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * top: the flows that queued in the last interval, worst first, with
 * their rates.  Two snapshots of the flow tables, one interval apart; the
 * difference of each flow's histogram gives its recent percentiles.  On a
 * terminal each frame replaces the last; through a pipe frames follow one
 * another as plain text (no terminal codes).  -j prints one snapshot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include "obs.h"
#include "output.h"
#include "units.h"

#define TOP_USAGE "usage: sojourn top [DEV] [-i SECONDS] [--sort delay|drops|marks|bytes] [--rows N] [--frames N] [-j] [-n NETNS]"

enum top_sort { SORT_DELAY, SORT_DROPS, SORT_MARKS, SORT_BYTES };

struct snap_att {
	struct obs_att att;
	struct obs_flow *flows;	/* sorted by key */
	size_t n;
};

struct snap {
	struct snap_att *a;
	int n;
	int foreign;		/* folders of another layout, left out */
	__u64 when_ns;
};

struct row {
	const struct snap_att *sa;
	const struct obs_flow *flow;
	struct sj_hist h;	/* in the interval */
	__u64 packets, bytes, drops, marks;
	int p99;		/* bucket, -1 when none measured */
};

static int key_cmp(const void *x, const void *y)
{
	return memcmp(&((const struct obs_flow *)x)->key,
		      &((const struct obs_flow *)y)->key, sizeof(struct sj_flow_key));
}

static void snap_free(struct snap *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		free(s->a[i].flows);
	free(s->a);
	memset(s, 0, sizeof(*s));
}

static int snap_take(const struct obs_filter *f, struct snap *s)
{
	struct obs_att *atts;
	int n, i;

	memset(s, 0, sizeof(*s));
	if (obs_list(f, &atts, &n, &s->foreign))
		return -1;
	s->a = calloc(n ? n : 1, sizeof(*s->a));
	if (!s->a) {
		free(atts);
		return sj_err("out of memory");
	}
	for (i = 0; i < n; i++) {
		struct snap_att *sa = &s->a[s->n];

		sa->att = atts[i];
		if (obs_read_flows(atts[i].dir, &sa->flows, &sa->n))
			continue;	/* detached meanwhile */
		if (sa->n > 1)
			qsort(sa->flows, sa->n, sizeof(*sa->flows), key_cmp);
		s->n++;
	}
	s->when_ns = obs_now_ns();
	free(atts);
	return 0;
}

static const struct snap_att *snap_find(const struct snap *s, const char *dir)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->a[i].att.dir, dir))
			return &s->a[i];
	return NULL;
}

static enum top_sort sort_by;

static int row_cmp(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	__u64 ka, kb;

	switch (sort_by) {
	case SORT_DELAY:
		if (a->p99 != b->p99)
			return a->p99 < b->p99 ? 1 : -1;
		ka = a->h.sum_ns;	/* then more time queued first */
		kb = b->h.sum_ns;
		break;
	case SORT_DROPS:
		ka = a->drops;
		kb = b->drops;
		break;
	case SORT_MARKS:
		ka = a->marks;
		kb = b->marks;
		break;
	default:
		ka = a->bytes;
		kb = b->bytes;
	}
	if (ka != kb)
		return ka < kb ? 1 : -1;
	return 0;
}

/* the flows that moved between the two snapshots */
static struct row *rows_diff(const struct snap *old, const struct snap *now,
			     size_t *nrows)
{
	struct row *rows = NULL, *r;
	size_t total = 0, i, k = 0;
	int a;

	for (a = 0; a < now->n; a++)
		total += now->a[a].n;
	rows = calloc(total ? total : 1, sizeof(*rows));
	if (!rows)
		return NULL;
	for (a = 0; a < now->n; a++) {
		const struct snap_att *sa = &now->a[a];
		const struct snap_att *pa = snap_find(old, sa->att.dir);

		for (i = 0; i < sa->n; i++) {
			const struct obs_flow *f = &sa->flows[i], *p = NULL;
			struct sj_flow zero = {};
			const struct sj_flow *was;

			if (pa && pa->n)
				p = bsearch(f, pa->flows, pa->n, sizeof(*f), key_cmp);
			/* a flow born in the interval: all it has is new */
			was = p ? &p->val : &zero;
			r = &rows[k];
			r->sa = sa;
			r->flow = f;
			r->packets = f->val.packets - was->packets;
			r->bytes = f->val.bytes - was->bytes;
			r->drops = f->val.drops - was->drops;
			r->marks = f->val.ecn_marks + f->val.ce_marks -
				   was->ecn_marks - was->ce_marks;
			obs_flow_hist_delta(&f->val, was, &r->h);
			if (!r->packets && !sj_hist_total(&r->h))
				continue;	/* idle */
			r->p99 = sj_hist_quantile(&r->h, 990);
			k++;
		}
	}
	qsort(rows, k, sizeof(*rows), row_cmp);
	*nrows = k;
	return rows;
}

static int screen_rows(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 4)
		return ws.ws_row - 3;
	return 20;
}

static void print_text(const struct row *rows, size_t n, size_t max,
		       double secs, bool tty)
{
	char name[160], p50[40], p99[40], mx[40], rate[SJ_UNITS_BUFSZ];
	const char *sorts[] = { "delay", "drops", "marks", "bytes" };
	time_t t = time(NULL);
	char when[16];
	size_t i;

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
	if (tty)
		fputs("\033[H\033[J", stdout);	/* home, clear: a fresh frame */
	printf("sojourn top - %s  interval %.1fs  %zu flows queued  sort %s\n",
	       when, secs, n, sorts[sort_by]);
	printf("%-12s %-46s %9s %9s %9s %8s %10s %6s %6s\n", "DEV", "FLOW",
	       "P50", "P99", "MAX", "PKT/S", "RATE", "DROPS", "MARKS");
	for (i = 0; i < n && i < max; i++) {
		const struct row *r = &rows[i];

		obs_flow_name(&r->flow->key, name, sizeof(name));
		printf("%-12.16s %-46s %9s %9s %9s %8.0f %10s %6llu %6llu\n",
		       r->sa->att.meta.ifname, name,
		       obs_quantile_str(&r->h, 500, p50, sizeof(p50)),
		       obs_quantile_str(&r->h, 990, p99, sizeof(p99)),
		       obs_quantile_str(&r->h, 1000, mx, sizeof(mx)),
		       r->packets / secs,
		       sj_format_rate((__u64)(r->bytes * 8 / secs), rate, sizeof(rate)),
		       (unsigned long long)r->drops, (unsigned long long)r->marks);
	}
	if (!tty)
		putchar('\n');
	fflush(stdout);
}

static void print_json(const struct row *rows, size_t n, size_t max,
		       __u64 interval_ns)
{
	const char *sorts[] = { "delay", "drops", "marks", "bytes" };
	double secs = interval_ns / 1e9;
	char a[OBS_ADDR_LEN], p[8], ns[80];
	size_t i;

	out_open_object(NULL);
	out_u64("interval_ms", "", interval_ns / 1000000);
	out_str("sort", "", sorts[sort_by]);
	out_u64("flows_queued", "", n);
	out_open_array("flows");
	for (i = 0; i < n && i < max; i++) {
		const struct row *r = &rows[i];
		const struct sj_flow_key *k = &r->flow->key;

		out_open_object(NULL);
		out_str("dev", "", r->sa->att.meta.ifname);
		out_str("netns", "", obs_netns_label(&r->sa->att.meta, ns, sizeof(ns)));
		out_str("direction", "", sj_dir_name(r->sa->att.meta.direction));
		out_str("proto", "", obs_proto_name(k->proto, p, sizeof(p)));
		obs_addr(k, true, a, sizeof(a));
		out_str("src", "", a);
		out_u64("sport", "", ntohs(k->sport));
		obs_addr(k, false, a, sizeof(a));
		out_str("dst", "", a);
		out_u64("dport", "", ntohs(k->dport));
		out_u64("measured", "", sj_hist_total(&r->h));
		obs_quantile_json("p50_us", &r->h, 500);
		obs_quantile_json("p99_us", &r->h, 990);
		obs_quantile_json("max_us", &r->h, 1000);
		out_u64("packets", "", r->packets);
		out_u64("bytes", "", r->bytes);
		out_u64("drops", "", r->drops);
		out_u64("marks", "", r->marks);
		out_u64("pps", "", (__u64)(r->packets / secs));
		out_u64("bps", "", (__u64)(r->bytes * 8 / secs));
		out_close_object();
	}
	out_close_array();
	out_close_object();
	out_flush();
}

static void sleep_ns(__u64 ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int cmd_top(int argc, char **argv)
{
	const char *dev = NULL;
	__u64 interval_ns = 1000000000ULL;
	__u32 max_rows = 0, frames = 0, shown = 0;
	bool tty = isatty(STDOUT_FILENO);
	struct snap old, now;
	struct obs_filter f;
	struct row *rows;
	size_t n;
	int i;

	sort_by = SORT_DELAY;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-i") || !strcmp(a, "--sort") ||
		    !strcmp(a, "--rows") || !strcmp(a, "--frames")) {
			if (!v)
				return sj_err("%s needs a value; %s", a, TOP_USAGE);
			i++;
		}
		if (!strcmp(a, "-i")) {
			if (obs_parse_seconds(v, &interval_ns))
				return -1;
		} else if (!strcmp(a, "--sort")) {
			if (!strcmp(v, "delay"))
				sort_by = SORT_DELAY;
			else if (!strcmp(v, "drops"))
				sort_by = SORT_DROPS;
			else if (!strcmp(v, "marks"))
				sort_by = SORT_MARKS;
			else if (!strcmp(v, "bytes"))
				sort_by = SORT_BYTES;
			else
				return sj_err("--sort takes delay, drops, marks or bytes, not \"%s\"", v);
		} else if (!strcmp(a, "--rows")) {
			if (sj_parse_u32(v, &max_rows) || !max_rows)
				return sj_err("bad --rows \"%s\"", v);
		} else if (!strcmp(a, "--frames")) {
			if (sj_parse_u32(v, &frames) || !frames)
				return sj_err("bad --frames \"%s\"", v);
		} else if (!dev && a[0] != '-') {
			dev = a;
		} else {
			return sj_err("unexpected \"%s\"; %s", a, TOP_USAGE);
		}
	}
	if (obs_filter_init(&f, dev, true) || snap_take(&f, &old))
		return -1;
	if (dev && !old.n) {
		bool said = old.foreign;	/* in one line already */

		snap_free(&old);
		return said ? -1 : sj_err("%s is not attached", dev);
	}
	if (out_is_json())
		frames = 1;
	for (;;) {
		sleep_ns(interval_ns);
		if (snap_take(&f, &now)) {
			snap_free(&old);
			return -1;
		}
		rows = rows_diff(&old, &now, &n);
		if (!rows) {
			snap_free(&old);
			snap_free(&now);
			return sj_err("out of memory");
		}
		if (out_is_json())
			print_json(rows, n, max_rows ? max_rows : n,
				   now.when_ns - old.when_ns);
		else
			print_text(rows, n, max_rows ? max_rows :
				   (tty ? (size_t)screen_rows() : 20),
				   (now.when_ns - old.when_ns) / 1e9, tty);
		free(rows);
		snap_free(&old);
		old = now;
		if (frames && ++shown >= frames)
			break;
	}
	snap_free(&old);
	return 0;
}
