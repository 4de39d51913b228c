// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which qdisc trees real-queue and observe mode take, and the one line
 * that refuses the others (loader/qdisc.c).  The trees are built here as
 * the kernel's dump would list them, so every AQM is covered on a kernel
 * that has none of them (this one); tests/e2e/aqm_root.sh checks real
 * trees in the 6.1 VM.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "check.h"
#include "qdisc.h"

/* what loader/qdisc.c needs from the rest of the command */
const char *sj_netns_name;
static char last_err[512];
static int errs;

int sj_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
	errs++;
	return -1;
}

static struct sj_qdisc_tree *next_tree;	/* what the "kernel" lists */

int sj_qdisc_tree_get(__u32 ifindex, struct sj_qdisc_tree *tree)
{
	(void)ifindex;
	*tree = *next_tree;
	return 0;
}

void sj_qdisc_tree_free(struct sj_qdisc_tree *tree)
{
	memset(tree, 0, sizeof(*tree));	/* ours are static */
}

#define Q(k, h, p) { .kind = k, .handle = h, .parent = p }
#define TREE(name, ...)							\
	static struct sj_qdisc name##_q[] = { __VA_ARGS__ };		\
	static struct sj_qdisc_tree name = {				\
		.n = sizeof(name##_q) / sizeof(name##_q[0]), .q = name##_q }

#define H(maj, min) TC_H_MAKE((maj) << 16, (min))

TREE(pfifo_root, Q("pfifo", H(1, 0), TC_H_ROOT));
TREE(htb_pfifo, Q("htb", H(1, 0), TC_H_ROOT), Q("pfifo", H(0x10, 0), H(1, 1)));
TREE(noqueue_root, Q("noqueue", 0, TC_H_ROOT));
TREE(fq_codel_root, Q("fq_codel", H(0x8001, 0), TC_H_ROOT));
TREE(cake_root, Q("cake", H(0x8002, 0), TC_H_ROOT));
/* the default of a multiqueue NIC where net.core.default_qdisc is
 * fq_codel: mq and its children all have handle 0:, children at :1.. */
TREE(mq_default, Q("mq", 0, TC_H_ROOT),
     Q("fq_codel", 0, H(0, 1)), Q("fq_codel", 0, H(0, 2)),
     Q("fq_codel", 0, H(0, 3)), Q("fq_codel", 0, H(0, 4)));
/* listed in hash order: the one an operator would name is still :1 */
TREE(mq_shuffled, Q("fq_codel", 0, H(1, 3)), Q("mq", H(1, 0), TC_H_ROOT),
     Q("fq_codel", 0, H(1, 2)), Q("fq_codel", 0, H(1, 1)));
TREE(mq_pfifo_fast, Q("mq", H(1, 0), TC_H_ROOT),
     Q("pfifo_fast", 0, H(1, 1)), Q("pfifo_fast", 0, H(1, 2)));
TREE(htb_fq_codel, Q("htb", H(1, 0), TC_H_ROOT),
     Q("fq_codel", H(0x10, 0), H(1, 0x10)));
TREE(pie_root, Q("pie", H(0x8003, 0), TC_H_ROOT));
TREE(fq_pie_root, Q("fq_pie", H(0x8003, 0), TC_H_ROOT));
/* nested: htb 1: > class 1:1 > htb 10: > class 10:1 > choke */
TREE(htb_choke, Q("htb", H(1, 0), TC_H_ROOT), Q("htb", H(0x10, 0), H(1, 1)),
     Q("choke", H(0x20, 0), H(0x10, 1)));
/* the kernel does not promise the root first */
TREE(leaf_first, Q("fq_codel", H(0x10, 0), H(1, 0x10)),
     Q("pie", H(0x20, 0), H(1, 0x20)), Q("htb", H(1, 0), TC_H_ROOT));
TREE(fq_root, Q("fq", H(1, 0), TC_H_ROOT));
TREE(pfifo_fast_root, Q("pfifo_fast", 0, TC_H_ROOT));
/* one queue's child replaced by hand: no band ahead on that queue */
TREE(mq_mixed, Q("mq", H(1, 0), TC_H_ROOT),
     Q("pfifo_fast", 0, H(1, 1)), Q("pfifo", H(0x10, 0), H(1, 2)));
TREE(mq_bare, Q("mq", H(1, 0), TC_H_ROOT));
TREE(codel_root, Q("codel", H(1, 0), TC_H_ROOT));

static const struct sj_link eth0 = { .name = "eth0", .ifindex = 2 };

/* judge: 0 or the refusal line, and no more than one line */
static int judge(struct sj_qdisc_tree *t, enum sj_mode mode)
{
	int before = errs, ret;

	last_err[0] = '\0';
	ret = sj_qdisc_tree_judge(&eth0, t, mode);
	CHECK((ret == 0) == (errs == before), "returned %d with %d lines", ret,
	      errs - before);
	CHECK(errs - before <= 1, "%d lines", errs - before);
	CHECK(!strchr(last_err, '\n'), "a newline in \"%s\"", last_err);
	return ret;
}

static void takes(const char *name, struct sj_qdisc_tree *t, enum sj_mode mode)
{
	CHECK(judge(t, mode) == 0, "%s mode %d refused: %s", name, mode, last_err);
}

static void refuses(const char *name, struct sj_qdisc_tree *t,
		    enum sj_mode mode, const char *want)
{
	CHECK(judge(t, mode) < 0, "%s mode %d taken", name, mode);
	CHECK(strstr(last_err, want), "%s mode %d: \"%s\" lacks \"%s\"", name,
	      mode, last_err, want);
}

static void refuses_exactly(const char *name, struct sj_qdisc_tree *t,
			    enum sj_mode mode, const char *want)
{
	CHECK(judge(t, mode) < 0, "%s mode %d taken", name, mode);
	CHECK(!strcmp(last_err, want), "%s mode %d:\n  got  \"%s\"\n  want \"%s\"",
	      name, mode, last_err, want);
}

int main(void)
{
	struct sj_qdisc_tree *observable[] = {
		&pfifo_root, &htb_pfifo, &fq_codel_root, &cake_root,
		&mq_default, &mq_pfifo_fast, &htb_fq_codel, &fq_root,
		&codel_root,
	};
	struct sj_qdisc_tree *any[] = {
		&pfifo_root, &htb_pfifo, &noqueue_root, &fq_codel_root,
		&cake_root, &mq_default, &htb_fq_codel, &pie_root, &htb_choke,
	};
	const char *aqms[] = { "fq_codel", "cake", "codel", "pie", "fq_pie",
			       "fq", "choke", "red", "gred", "sfb", "dualpi2" };
	const char *plain[] = { "pfifo", "bfifo", "pfifo_fast", "htb", "tbf",
				"mq", "mqprio", "taprio", "prio", "sfq",
				"netem", "noqueue", "fq_codelx", "" };
	char root[16];
	size_t i;

	/* which kinds are which */
	for (i = 0; i < sizeof(aqms) / sizeof(aqms[0]); i++)
		CHECK(sj_qdisc_is_aqm(aqms[i]), "%s is an AQM", aqms[i]);
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		CHECK(!sj_qdisc_is_aqm(plain[i]) && !sj_qdisc_owns_cb(plain[i]),
		      "%s is no AQM", plain[i]);
	CHECK(sj_qdisc_owns_cb("pie") && sj_qdisc_owns_cb("fq_pie") &&
	      sj_qdisc_owns_cb("choke"), "pie, fq_pie, choke own the cb");
	CHECK(!sj_qdisc_owns_cb("fq_codel") && !sj_qdisc_owns_cb("cake") &&
	      !sj_qdisc_owns_cb("fq") && !sj_qdisc_owns_cb("codel"),
	      "fq_codel, cake, fq, codel leave it alone");

	/* real-queue mode: plain trees only */
	takes("pfifo root", &pfifo_root, SJ_MODE_QUEUE);
	takes("htb + pfifo", &htb_pfifo, SJ_MODE_QUEUE);
	takes("mq + pfifo_fast", &mq_pfifo_fast, SJ_MODE_QUEUE);
	refuses("noqueue", &noqueue_root, SJ_MODE_QUEUE, "rate mode (rate RATE)");
	refuses_exactly("fq_codel root", &fq_codel_root, SJ_MODE_QUEUE,
		"eth0's root qdisc is fq_codel, already an AQM: a second CoDel on top would only add drops; measure it with 'sojourn attach eth0 observe'");
	refuses("cake root", &cake_root, SJ_MODE_QUEUE,
		"root qdisc is cake, already an AQM");
	refuses("fq root", &fq_root, SJ_MODE_QUEUE, "root qdisc is fq, already an AQM");
	refuses("codel root", &codel_root, SJ_MODE_QUEUE, "root qdisc is codel, already an AQM");
	refuses_exactly("default mq of fq_codel", &mq_default, SJ_MODE_QUEUE,
		"eth0's qdisc at parent :1 (under root mq 0:) is fq_codel (and 3 more), already an AQM: a second CoDel on top would only add drops; measure it with 'sojourn attach eth0 observe'");
	refuses("mq listed shuffled", &mq_shuffled, SJ_MODE_QUEUE,
		"eth0's qdisc at parent 1:1 (under root mq 1:) is fq_codel (and 2 more), already an AQM");
	refuses("htb + fq_codel leaf", &htb_fq_codel, SJ_MODE_QUEUE,
		"eth0's qdisc at parent 1:10 (under root htb 1:) is fq_codel, already an AQM");
	refuses("pie root", &pie_root, SJ_MODE_QUEUE,
		"root qdisc is pie, already an AQM: a second CoDel on top would only add drops; and observe cannot measure this tree either: pie keeps");
	refuses("nested choke", &htb_choke, SJ_MODE_QUEUE,
		"eth0's qdisc at parent 10:1 (under htb 10:) is choke, already an AQM");
	refuses("leaf listed before root", &leaf_first, SJ_MODE_QUEUE,
		"eth0's qdisc at parent 1:10 (under root htb 1:) is fq_codel (and 1 more), already an AQM");
	CHECK(strstr(last_err, "either: pie keeps"), "names pie: %s", last_err);

	/* observe: any tree with a queue, but not through pie/fq_pie/choke */
	for (i = 0; i < sizeof(observable) / sizeof(observable[0]); i++)
		takes(observable[i]->q[0].kind, observable[i], SJ_MODE_OBSERVE);
	refuses("noqueue", &noqueue_root, SJ_MODE_OBSERVE, "nothing to observe");
	refuses_exactly("pie root", &pie_root, SJ_MODE_OBSERVE,
		"eth0's root qdisc is pie, which keeps its own per-packet state in skb->cb, where observe carries the enqueue time: observe cannot measure through it");
	refuses("fq_pie root", &fq_pie_root, SJ_MODE_OBSERVE,
		"root qdisc is fq_pie, which keeps its own per-packet state");
	refuses("nested choke", &htb_choke, SJ_MODE_OBSERVE,
		"eth0's qdisc at parent 10:1 (under htb 10:) is choke, which keeps");
	refuses("pie leaf", &leaf_first, SJ_MODE_OBSERVE,
		"eth0's qdisc at parent 1:20 (under root htb 1:) is pie, which keeps");

	/* rate mode keeps a virtual queue of its own: any tree */
	for (i = 0; i < sizeof(any) / sizeof(any[0]); i++)
		takes(any[i]->q[0].kind, any[i], SJ_MODE_RATE);

	/* the suggestion can be pasted: it keeps -n */
	sj_netns_name = "router";
	refuses("fq_codel root, -n", &fq_codel_root, SJ_MODE_QUEUE,
		"measure it with 'sojourn attach eth0 observe -n router'");
	sj_netns_name = NULL;

	/* sj_qdisc_check reads the tree, names its root, judges it */
	next_tree = &leaf_first;
	CHECK(sj_qdisc_check(&eth0, SJ_MODE_RATE, root, sizeof(root)) == 0 &&
	      !strcmp(root, "htb"), "root of leaf_first: \"%s\"", root);
	next_tree = &mq_default;
	CHECK(sj_qdisc_check(&eth0, SJ_MODE_QUEUE, root, sizeof(root)) < 0 &&
	      !strcmp(root, "mq"), "root of mq_default: \"%s\"", root);

	/* sparse_class auto's band ahead: pfifo_fast's band 0, at the root or
	 * under every queue of mq; none anywhere else */
	CHECK(sj_qdisc_sparse_path(&pfifo_fast_root) == SJ_PRIO_INTERACTIVE,
	      "pfifo_fast root: band 0");
	CHECK(sj_qdisc_sparse_path(&mq_pfifo_fast) == SJ_PRIO_INTERACTIVE,
	      "mq of pfifo_fast: band 0 of each queue");
	CHECK(sj_qdisc_sparse_path(&mq_mixed) == 0, "mq with a pfifo child: none");
	CHECK(sj_qdisc_sparse_path(&mq_bare) == 0, "mq with no children listed: none");
	CHECK(sj_qdisc_sparse_path(&mq_default) == 0, "mq of fq_codel: none");
	CHECK(sj_qdisc_sparse_path(&htb_pfifo) == 0, "htb: none of its own");
	CHECK(sj_qdisc_sparse_path(&pfifo_root) == 0, "pfifo: none");
	next_tree = &mq_pfifo_fast;
	CHECK(sj_sparse_auto_priority(eth0.ifindex) == SJ_PRIO_INTERACTIVE,
	      "sj_sparse_auto_priority reads the device's tree");

	return check_exit("test_qdisc");
}
