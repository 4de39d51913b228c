// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Programs ahead of ours on the same tc hook.  A tc program that returns a
 * verdict (TCX_PASS == TC_ACT_OK, TCX_DROP == TC_ACT_SHOT, a redirect) ends
 * the chain: what comes after it never sees the packet.  sojourn attaches
 * last (tcx: appended; clsact: priority 0xc000), so a CNI program in front
 * that passes everything leaves sojourn blind, its signals unspent.
 *
 * The order the kernel runs them in (sch_handle_egress/ingress, net/core/
 * dev.c, 6.6-6.18): the tcx programs in their order, and only when the
 * last of them returns TCX_NEXT, the clsact filters of chain 0 by priority.
 * So ahead of a tcx program are the tcx programs before it; ahead of a
 * clsact filter are every tcx program and the filters listed before it.
 *
 * What is found here is what could skip us.  Whether packets really do
 * is measured (sj_ahead_skipped): real-queue and observe mode see every
 * packet leave the queue, and one our tc program never saw carries no
 * stamp (`unmeasured`); rate mode compares the device's packet counter
 * with our own since attach.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <linux/pkt_sched.h>
#include "common.h"
#include "output.h"
#include "tune.h"

/* libbpf 1.1 and the 6.1 uapi headers predate tcx; the kernel's values */
#define SJ_BPF_TCX_INGRESS 46
#define SJ_BPF_TCX_EGRESS 47
#define SJ_QUERY_MAX 64

/* the measured share is worth a note from this many packets and share on */
#define SJ_SKIP_MIN_PACKETS 1000
#define SJ_SKIP_MIN_PERCENT 10

static void add(struct sj_ahead *a, __u32 hook, __u32 prio, __u32 id,
		const char *kind)
{
	if (a->n < SJ_AHEAD_MAX) {
		a->p[a->n].hook = hook;
		a->p[a->n].prio = prio;
		a->p[a->n].id = id;
		snprintf(a->p[a->n].kind, sizeof(a->p[a->n].kind), "%s", kind);
	}
	a->n++;
}

/* The tcx programs on this direction, in the order they run; with ours
 * among them (until = our id) only those before it. */
static int tcx_ahead(__u32 ifindex, enum sj_dir dir, __u32 until,
		     struct sj_ahead *a)
{
	LIBBPF_OPTS(bpf_prog_query_opts, q);
	__u32 ids[SJ_QUERY_MAX], i;

	q.prog_ids = ids;
	q.prog_cnt = SJ_QUERY_MAX;
	/* target_fd and target_ifindex share the attribute */
	if (bpf_prog_query_opts(ifindex, dir == SJ_DIR_INGRESS ?
				SJ_BPF_TCX_INGRESS : SJ_BPF_TCX_EGRESS, &q))
		/* EINVAL: no tcx in this kernel, so nothing there */
		return errno == EINVAL ? 0 : -errno;
	for (i = 0; i < q.prog_cnt && i < SJ_QUERY_MAX; i++) {
		if (until && ids[i] == until)
			break;
		add(a, SJ_HOOK_TCX, 0, ids[i], "bpf");
	}
	return 0;
}

/* The clsact filters dumped before ours (its priority and handle). */
static int clsact_ahead(const struct sj_meta *meta, struct sj_ahead *a)
{
	struct sj_tc_filter f[SJ_QUERY_MAX];
	__u32 parent = TC_H_MAKE(TC_H_CLSACT, meta->direction == SJ_DIR_INGRESS ?
				 TC_H_MIN_INGRESS : TC_H_MIN_EGRESS);
	int n = sj_list_filters(meta->ifindex, parent, f, SJ_QUERY_MAX), i;

	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		if (f[i].prio == meta->tc_priority && f[i].handle == meta->tc_handle)
			break;
		add(a, SJ_HOOK_CLSACT, f[i].prio, f[i].prog_id, f[i].kind);
	}
	return 0;
}

/* In the current netns, which must be the device's. */
static void find_here(const struct sj_meta *meta, struct sj_ahead *a)
{
	__u64 rx, tx;
	int err;

	if (meta->hook == SJ_HOOK_TCX)
		err = tcx_ahead(meta->ifindex, meta->direction, meta->prog_id, a);
	else
		err = tcx_ahead(meta->ifindex, meta->direction, 0, a) ?:
		      clsact_ahead(meta, a);
	a->known = !err;
	if (!sj_link_packets(meta->ifindex, &rx, &tx)) {
		a->dev_known = true;
		a->dev_packets = meta->direction == SJ_DIR_INGRESS ? rx : tx;
	}
}

static bool cookie_is(__u64 cookie)
{
	socklen_t len = sizeof(__u64);
	__u64 here = 0;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool same;

	if (fd < 0)
		return false;
	/* SO_NETNS_COOKIE, 71: as netns.c asks for it */
	same = !getsockopt(fd, SOL_SOCKET, 71, &here, &len) && here == cookie;
	close(fd);
	return same;
}

int sj_ahead_find(const struct sj_meta *meta, struct sj_ahead *a)
{
	char path[SJ_PATH_MAX];
	int home, there;

	memset(a, 0, sizeof(*a));
	if (meta->hook != SJ_HOOK_TCX && meta->hook != SJ_HOOK_CLSACT)
		return -EOPNOTSUPP;	/* XDP: libxdp's dispatcher chains */
	if (cookie_is(meta->netns_cookie)) {
		find_here(meta, a);
		return a->known ? 0 : -ENOENT;
	}
	/* show reads pins from anywhere: go to the namespace named at
	 * attach, if it is still the same one, and come back */
	if (!meta->netns[0] || strchr(meta->netns, '/') ||
	    snprintf(path, sizeof(path), "/run/netns/%.64s", meta->netns) >= (int)sizeof(path))
		return -ENOENT;
	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	there = open(path, O_RDONLY | O_CLOEXEC);
	if (home >= 0 && there >= 0 && !setns(there, CLONE_NEWNET)) {
		if (cookie_is(meta->netns_cookie))
			find_here(meta, a);
		if (setns(home, CLONE_NEWNET))
			sj_err("cannot return to the caller's network namespace: %s",
			       strerror(errno));
	}
	if (home >= 0)
		close(home);
	if (there >= 0)
		close(there);
	return a->known ? 0 : -ENOENT;
}

/* "tcx: ids 41 57" or "clsact: pref 1 bpf id 41, pref 2 u32; tcx: id 7" */
void sj_ahead_list(const struct sj_ahead *a, char *buf, size_t len)
{
	static const __u32 hooks[] = { SJ_HOOK_TCX, SJ_HOOK_CLSACT };
	size_t used = 0, h;
	int i, n = a->n < SJ_AHEAD_MAX ? a->n : SJ_AHEAD_MAX, in_hook;

	buf[0] = '\0';
#define PUT(...) do { if (used < len) used += snprintf(buf + used, len - used, __VA_ARGS__); } while (0)
	for (h = 0; h < sizeof(hooks) / sizeof(hooks[0]); h++) {
		in_hook = 0;
		for (i = 0; i < n; i++)
			in_hook += a->p[i].hook == hooks[h];
		if (!in_hook)
			continue;
		PUT("%s%s:", used ? "; " : "", hooks[h] == SJ_HOOK_TCX ? "tcx" : "clsact");
		if (hooks[h] == SJ_HOOK_TCX)
			PUT(" id%s", in_hook > 1 ? "s" : "");
		in_hook = 0;
		for (i = 0; i < n; i++) {
			const struct sj_ahead_prog *p = &a->p[i];

			if (p->hook != hooks[h])
				continue;
			if (p->hook == SJ_HOOK_TCX)
				PUT(" %u", p->id);
			else if (p->id)
				PUT("%s pref %u %s id %u", in_hook ? "," : "", p->prio, p->kind, p->id);
			else
				PUT("%s pref %u %s", in_hook ? "," : "", p->prio, p->kind);
			in_hook++;
		}
	}
	if (a->n > n)
		PUT(" and %d more", a->n - n);
#undef PUT
}

void sj_ahead_note(const struct sj_meta *meta)
{
	struct sj_ahead a;
	char list[256];

	if (sj_ahead_find(meta, &a) || !a.n)
		return;
	sj_ahead_list(&a, list, sizeof(list));
	sj_info("sojourn: note: %d program%s run%s before sojourn on %s %s (%s); "
		"one that returns a verdict (TCX_PASS/TC_ACT_OK, TCX_DROP, redirect) "
		"ends the chain and sojourn never sees those packets",
		a.n, a.n == 1 ? "" : "s", a.n == 1 ? "s" : "", meta->ifname,
		sj_dir_name(meta->direction), list);
}

/* attach: the device's counter of the packets our hook sees, as it
 * stood when we came on; rate mode compares against it later */
void sj_ahead_baseline(struct sj_meta *meta)
{
	__u64 rx, tx;

	if (!sj_link_packets(meta->ifindex, &rx, &tx)) {
		meta->dev_packets_at_attach =
			meta->direction == SJ_DIR_INGRESS ? rx : tx;
		meta->dev_packets_read = 1;
	}
}

void sj_ahead_skipped(const struct sj_meta *meta, const struct sj_ahead *a,
		      const struct sj_stats *st, struct sj_skipped *s)
{
	memset(s, 0, sizeof(*s));
	if (meta->mode != SJ_MODE_RATE) {
		/* every packet leaving the queue: measured, or without our
		 * stamp; packets we left unstamped on purpose (a sender's
		 * future departure time) are no skip */
		__u64 unstamped = st->unmeasured > st->edt_kept ?
				  st->unmeasured - st->edt_kept : 0;

		s->known = true;
		s->of = st->dequeued + st->unmeasured;
		s->skipped = unstamped;
	} else if (a->dev_known && meta->dev_packets_read &&
		   a->dev_packets >= meta->dev_packets_at_attach) {
		/* the device counts what we saw, less what we dropped on
		 * egress (it never left), plus what never reached us.  A NIC
		 * that counts TSO segments counts more than the skbs we
		 * see: that reads as skipped, hence the 10% threshold. */
		__u64 dev = a->dev_packets - meta->dev_packets_at_attach;
		__u64 ours = st->packets;
		__u64 dropped = st->drops + st->drop_overlimit;

		if (meta->direction == SJ_DIR_EGRESS)
			ours -= dropped < ours ? dropped : ours;
		s->known = true;
		s->of = dev;
		s->skipped = dev > ours ? dev - ours : 0;
	}
	if (s->of)
		s->percent = (unsigned int)(100 * s->skipped / s->of);
	s->noted = s->known && s->of >= SJ_SKIP_MIN_PACKETS &&
		   s->percent > SJ_SKIP_MIN_PERCENT;
}

/* show: the programs ahead, one note line in text; "ahead" in JSON, an
 * array of {hook, id, pref, kind}, null where the hook cannot be read (a
 * device that is gone, a namespace show cannot reach, hook xdp) */
void sj_ahead_show(const struct sj_meta *meta, const struct sj_ahead *a)
{
	int i, n = a->n < SJ_AHEAD_MAX ? a->n : SJ_AHEAD_MAX;
	char list[256];

	if (!a->known) {
		out_null("ahead");
		return;
	}
	out_open_array("ahead");
	for (i = 0; i < n; i++) {
		out_open_object(NULL);
		out_str("hook", "", a->p[i].hook == SJ_HOOK_TCX ? "tcx" : "clsact");
		if (a->p[i].id)
			out_u64("id", "", a->p[i].id);
		else
			out_null("id");
		if (a->p[i].hook == SJ_HOOK_CLSACT)
			out_u64("pref", "", a->p[i].prio);
		out_str("kind", "", a->p[i].kind);
		out_close_object();
	}
	out_close_array();
	if (!a->n)
		return;
	sj_ahead_list(a, list, sizeof(list));
	out_text("\n note: %d program%s run%s before sojourn on its %s hook (%s); "
		 "one that returns a verdict ends the chain and sojourn never sees those packets",
		 a->n, a->n == 1 ? "" : "s", a->n == 1 ? "s" : "",
		 sj_dir_name(meta->direction), list);
}

/* show -s: how many packets went by without our program; "skipped" in
 * JSON ({packets, of, percent}, null where the mode cannot tell), and one
 * note line in text once the share is large enough to mean something */
void sj_ahead_show_skipped(const struct sj_meta *meta, const struct sj_ahead *a,
			   const struct sj_stats *st)
{
	struct sj_skipped s;
	char list[256];

	sj_ahead_skipped(meta, a, st, &s);
	if (!s.known) {
		out_null("skipped");
		return;
	}
	out_open_object("skipped");
	out_u64("packets", "", s.skipped);
	out_u64("of", "", s.of);
	out_u64("percent", "", s.percent);
	out_bool("noted", "", s.noted);
	out_close_object();
	if (!s.noted)
		return;
	if (a->known && a->n)
		sj_ahead_list(a, list, sizeof(list));
	out_text("\n note: %u%% of packets (%llu of %llu) did not pass sojourn's %s program: %s%s%s",
		 s.percent, (unsigned long long)s.skipped, (unsigned long long)s.of,
		 sj_dir_name(meta->direction),
		 a->known && a->n ? "a program ahead of it (" : "",
		 a->known && a->n ? list : "something ahead of it on the hook returns a verdict",
		 a->known && a->n ? ") returns a verdict" : "");
}
