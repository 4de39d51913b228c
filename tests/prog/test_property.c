// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Property: for any frame, the userspace build of include/parse.h and the
 * BPF programs agree.  400k seeded frames (SJ_PROPERTY_N=, SJ_SEED=), each a
 * valid base frame with 0-4 mutations at the places a parser decides
 * (ethertypes, tags, IHL, version, next headers, lengths, fragment bits,
 * cuts, random bytes), go through sj_parse() here and through every program
 * with BPF_PROG_TEST_RUN (every frame through the tc program in queue mode,
 * every SJ_PROPERTY_STRIDE-th, default 8th, through rate mode and XDP: a
 * test_run costs ~50 us): the program's kind counter must be the kind the
 * parser said, its flow key (read back from the flows map) the key the
 * parser said, the frame unchanged and passed.  An unmutated frame must also
 * be what the corpus says it is.
 *
 * Exit 0 all agree, 1 a disagreement (the frame is printed in hex), 77
 * without root or BPF.
 */
#include <stdarg.h>
#include <unistd.h>

#include "runner.h"
#include "../lib/check.h"
#include "sojourn.skel.h"
#if __has_include("sojourn_xdp.skel.h")
#include "sojourn_xdp.skel.h"
#define HAVE_XDP 1
#endif

#define MAX_SHOWN 5

/* The test attachments' ids (runner.h: rn_register), one a program */
#define ATT_TC_QUEUE	2
#define ATT_TC_RATE	3
#define ATT_XDP		8

static __u64 rng_state;

/* splitmix64: small, seedable, good enough to pick mutations */
static __u64 rnd(void)
{
	__u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static __u32 below(__u32 n)
{
	return n ? rnd() % n : 0;
}

static const __u16 ethertypes[] = { 0x0800, 0x86dd, 0x8100, 0x88a8, 0x0806,
				    0x88cc, 0x0000, 0xffff };
static const __u8 protos[] = { 0, 1, 6, 17, 43, 44, 50, 51, 58, 59, 60, 135,
			       47, 132, 255 };

/* Offset of a byte the parser reads at the IP layer, or any byte */
static __u32 ip_off(const struct frame *f, __u32 within)
{
	return f->l3 ? f->l3 + below(within) : below(f->len);
}

static void mutate(struct frame *f)
{
	__u32 at;

	if (!f->len)
		return;
	switch (below(12)) {
	case 0:		/* a random byte anywhere */
		f->b[below(f->len)] = rnd();
		break;
	case 1:		/* one bit anywhere in the first 80 bytes */
		at = below(f->len < 80 ? f->len : 80);
		f->b[at] ^= 1 << below(8);
		break;
	case 2:		/* the outer ethertype */
		if (f->len < 14)
			break;
		fr_put16(f->b + 12, ethertypes[below(sizeof(ethertypes) / 2)]);
		break;
	case 3:		/* a tag more, right after the addresses */
		if (f->len < 14 || f->len + 4 > FR_MAX)
			break;
		memmove(f->b + 16, f->b + 12, f->len - 12);
		fr_put16(f->b + 12, below(2) ? 0x8100 : 0x88a8);
		fr_put16(f->b + 14, below(4096));
		f->len += 4;
		if (f->l3)
			f->l3 += 4;
		break;
	case 4:		/* version and IHL */
		at = ip_off(f, 1);
		f->b[at] = rnd();
		break;
	case 5:		/* IPv4 protocol or IPv6 next header */
		if (f->l3 && f->l3 + 9 < f->len)
			f->b[f->l3 + (f->family == 6 ? 6 : 9)] =
				protos[below(sizeof(protos))];
		break;
	case 6:		/* fragment bits */
		if (f->l3 && f->family == 4 && f->l3 + 8 <= f->len)
			fr_put16(f->b + f->l3 + 6, rnd());
		break;
	case 7:		/* IPv4 total length */
		if (f->l3 && f->l3 + 4 <= f->len)
			fr_put16(f->b + f->l3 + 2, below(3) ? below(80) : rnd());
		break;
	case 8:		/* a next-header or length byte past the IP header */
		at = f->l4 ? f->l4 + below(4) : below(f->len);
		if (at < f->len)
			f->b[at] = below(2) ? protos[below(sizeof(protos))] : rnd();
		break;
	case 9:		/* cut anywhere */
		f->len = below(f->len + 1);
		break;
	case 10:	/* cut near the headers' end */
		if (f->need > 4)
			f->len = f->need - 4 + below(8);
		if (f->len > FR_MAX)
			f->len = FR_MAX;
		break;
	default:	/* random bytes appended */
		at = below(64);
		if (f->len + at <= FR_MAX)
			for (__u32 i = 0; i < at; i++)
				f->b[f->len++] = rnd();
	}
}

/* ------------------------------------------------------------------ */

static struct runner runners[3];
static int nrunners;
static struct run_res res;
static long refused, disagree, checked, unmutated;

/* Ends one frame's checks: a frame that failed one is shown */
static void frame_done(const char *prog, const __u8 *b, __u32 len, __u64 n)
{
	const char *why = check_why;

	if (!check_case_quiet() || ++disagree > MAX_SHOWN)
		return;
	printf("FAIL frame %llu (%s, %u bytes): %s\n    ", (unsigned long long)n,
	       prog, len, why);
	for (__u32 i = 0; i < len && i < 96; i++)
		printf("%02x%s", b[i], i % 32 == 31 ? "\n    " : "");
	printf("\n");
}

static int refused_ok(const struct runner *r, const __u8 *d, __u32 len)
{
	__u16 et = len >= 14 ? fr_get16(d + 12) : 0;

	return len < 14 || (!r->xdp && ((et == 0x0800 && len < 34) ||
					(et == 0x86dd && len < 54)));
}

static void compare(struct runner *r, const __u8 *d, __u32 len, int kind,
		    const struct sj_pkt *pkt, __u64 n)
{
	static const struct rn_setup plain = { .ecn = 1 };
	int flow = pkt->has_flow && fr_has_flow(kind);
	char g[96], w[96];
	int bpf_kind = -1, kinds = 0, ok;

	rn_run(r, d, len, &plain, 0, &res);
	if (res.err == -EINVAL && refused_ok(r, d, len)) {
		refused++;
		return;
	}
	checked++;
	CHECK(!res.err, "test_run: %s", strerror(-res.err));
	if (res.err) {
		frame_done(r->name, d, len, n);
		return;
	}
	for (int k = 0; k < SJ_PKT_KINDS; k++)
		if (res.d.kind[k]) {
			bpf_kind = k;
			kinds += res.d.kind[k];
		}
	/* each check only when the one before held: one reason a frame */
	ok = kinds == 1 && bpf_kind == kind;
	CHECK(ok, "BPF counted %d kinds, %s; parser: %s", kinds,
	      bpf_kind >= 0 ? sj_kind_names[bpf_kind] : "-", sj_kind_names[kind]);
	if (ok) {
		ok = res.retval == r->pass && res.out_len == len &&
		     !memcmp(res.out, d, len);
		CHECK(ok, "verdict %d or frame changed", res.retval);
	}
	if (ok) {
		ok = res.nflows == flow && res.d.flows_created == (__u64)flow;
		CHECK(ok, "%d flows (%llu created), parser: %d", res.nflows,
		      (unsigned long long)res.d.flows_created, flow);
	}
	if (ok && flow) {
		/* the parser's key, in the runner's attachment */
		struct sj_flow_key want = rn_key(r, &pkt->key);

		rn_fmt_key(&res.key, g, sizeof(g));
		rn_fmt_key(&want, w, sizeof(w));
		CHECK(!memcmp(&res.key, &want, sizeof(want)),
		      "flow key %s, parser: %s", g, w);
	}
	frame_done(r->name, d, len, n);
	if (res.nflows)
		rn_flows_clear(r);
	/* every frame's later fragments alone, as the parser keys them:
	 * the corpus's frames share addresses and identifications */
	if (kind == SJ_PKT_FRAGMENT)
		rn_frags_clear(r);
}

int main(void)
{
	const char *e = getenv("SJ_PROPERTY_N"), *s = getenv("SJ_SEED");
	const char *st = getenv("SJ_PROPERTY_STRIDE");
	__u64 n = e ? strtoull(e, NULL, 0) : 400000, seed;
	__u64 stride = st && strtoull(st, NULL, 0) ? strtoull(st, NULL, 0) : 8;
	static struct frame f;
	struct sojourn_bpf *q, *rt;
	long per_kind[SJ_PKT_KINDS] = { 0 };
	__u64 t0;
	int err;

	rn_begin();
	seed = s ? strtoull(s, NULL, 0) : 0x5eed50;
	rng_state = seed;

	q = sojourn_bpf__open();
	if (!q || (err = sojourn_bpf__load(q)))
		rn_load_failed(q ? err : -errno, "tc program");
	rn_init(&runners[nrunners], "tc-queue", q->obj, q->progs.sojourn_egress, 0, 0);
	rn_register(&runners[nrunners++], ATT_TC_QUEUE, SJ_MODE_QUEUE,
		    SJ_DIR_EGRESS, 1);
	rt = sojourn_bpf__open();
	if (rt && !rn_set_rodata_u32(rt->obj, "cfg_mode", SJ_MODE_RATE)) {
		if ((err = sojourn_bpf__load(rt)))
			rn_load_failed(err, "tc program, rate mode");
		rn_init(&runners[nrunners], "tc-rate", rt->obj,
			rt->progs.sojourn_egress, 0, 1);
		rn_register(&runners[nrunners++], ATT_TC_RATE, SJ_MODE_RATE,
			    SJ_DIR_EGRESS, 1);
	}
#ifdef HAVE_XDP
	struct sojourn_xdp *x = sojourn_xdp__open();

	/* XDP is an ingress hook: loaded for it, as the loader does */
	if (x && rn_set_rodata_u32(x->obj, "cfg_direction", SJ_DIR_INGRESS))
		rn_load_failed(-ENOENT, "XDP program: no cfg_direction");
	if (!x || (err = sojourn_xdp__load(x)))
		rn_load_failed(x ? err : -errno, "XDP program");
	rn_init(&runners[nrunners], "xdp", x->obj, x->progs.sojourn_xdp, 1, 1);
	rn_register(&runners[nrunners++], ATT_XDP, SJ_MODE_RATE, SJ_DIR_INGRESS,
		    1);
#endif
	for (int i = 0; i < nrunners; i++)
		rn_prepare(&runners[i], &(struct rn_setup){ .ecn = 1 });

	t0 = rn_mono_ns();
	for (__u64 i = 0; i < n; i++) {
		const struct fr_base *b = &fr_bases[below(FR_NBASES)];
		int muts = below(5), kind;
		struct sj_pkt pkt;
		__u8 *exact;

		b->build(&f);
		if (f.len > 256)	/* the long chains: keep frames small */
			f.len = f.need + 16;
		for (int m = 0; m < muts; m++)
			mutate(&f);
		/* a buffer that ends where the frame does, so a sanitizer
		 * build catches an over-read; 2 bytes in, as the kernel's
		 * NET_IP_ALIGN puts the IP header on a 4-byte boundary */
		exact = malloc(f.len + 2);
		if (!exact)
			return 1;
		memcpy(exact + 2, f.b, f.len);
		kind = sj_parse(exact + 2, exact + 2 + f.len, &pkt);
		/* the programs add a first fragment's ports, when its 8
		 * bytes are there */
		if (kind == SJ_PKT_FRAGMENT && pkt.frag == SJ_FRAG_FIRST &&
		    (__u32)pkt.frag_l4_off + SJ_FRAG_L4_BYTES <= f.len)
			sj_frag_ports(&pkt, exact + 2 + pkt.frag_l4_off);
		free(exact);
		CHECK(kind >= 0 && kind < SJ_PKT_KINDS, "kind out of range");
		if (kind < 0 || kind >= SJ_PKT_KINDS) {
			frame_done("userspace", f.b, f.len, i);
			continue;
		}
		per_kind[kind]++;
		if (!muts) {
			unmutated++;
			CHECK(kind == f.kind && (!fr_has_flow(kind) ||
			      !memcmp(&pkt.key, &f.key, sizeof(f.key))),
			      "unmutated frame: not what the corpus says");
			frame_done("userspace", f.b, f.len, i);
		}
		/* a test_run costs ~50 us: every frame through the first
		 * program, every stride-th through the others */
		for (int r = 0; r < nrunners; r++)
			if (r == 0 || i % stride == 0)
				compare(&runners[r], f.b, f.len, kind, &pkt, i);
	}

	printf("NOTE seed 0x%llx, %llu frames (%ld unmutated) through", (unsigned long long)seed,
	       (unsigned long long)n, unmutated);
	for (int r = 0; r < nrunners; r++)
		printf(" %s", runners[r].name);
	printf(" (every %llu. frame past the first) in %.1f s: %ld BPF runs "
	       "compared, %ld refused by test_run\n", (unsigned long long)stride,
	       (rn_mono_ns() - t0) / 1e9, checked, refused);
	printf("NOTE kinds:");
	for (int k = 0; k < SJ_PKT_KINDS; k++)
		printf(" %s %ld", sj_kind_names[k], per_kind[k]);
	printf("\n");
	/* a corpus that never reaches a kind proves nothing about it */
	for (int k = 0; k < SJ_PKT_KINDS && n >= 100000; k++)
		CHECK(per_kind[k] >= (long)(n / 1000),
		      "kind %s reached only %ld times", sj_kind_names[k],
		      per_kind[k]);
	if (disagree)
		printf("FAIL property: %ld disagreements\n", disagree);
	else if (!check_fails)
		printf("PASS property: parser and programs agree\n");
	return check_exit("test_property");
}
