// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The malformed-packet corpus through every program (BPF_PROG_TEST_RUN):
 * the tc program in real-queue and in rate mode, and the XDP program when
 * it is built.  For every frame: the verdict, the frame unchanged, the
 * counters (one packet, its bytes, exactly one kind, a flow only for a
 * parsed packet) and the flow key; then the same frame under the program's
 * one drop rule (a pending CoDel signal with ECN off; a virtual queue past
 * its horizon), which may drop only packets the parser understood.
 *
 *   base         every kind the parser knows, exact flow keys
 *   truncate     each base frame cut at every length, plain and behind a tag
 *   ihl, ipv6_ext, qinq, ethertype, jumbo, zero_length, ecn matrix
 *   l3           the IP base frames as an L3 device's (no Ethernet header),
 *                whole and cut, through the tc and XDP programs loaded for
 *                an L3 link
 *
 * Prints "PASS group (n frames)" or "FAIL group: frame: why" and "NOTE"
 * where the kernel's test_run refuses a frame before the program runs.
 * Exit 0 all pass, 1 a failure, 77 without root or BPF.
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

#define MAX_RUNNERS 3
#define FAILS_SHOWN 8

/* The test attachments' ids (runner.h: rn_register), one a program */
#define ATT_TC_QUEUE	2
#define ATT_TC_RATE	3
#define ATT_TC_L3	4
#define ATT_XDP_L3	6
#define ATT_TC_AT_NET	7
#define ATT_XDP		8

static struct runner runners[MAX_RUNNERS];
static int nrunners;
/* the same programs loaded for an L3 device (cfg_link_layer): frames
 * that start at the IP header */
static struct runner l3runners[MAX_RUNNERS];
static int nl3runners;
/* and for a GRE device with an outer header (SJ_LINK_AT_NET): test_run
 * puts the network header 14 bytes in, so an untagged IP frame's
 * Ethernet header stands for the outer header */
static struct runner at_net_runner;
static int have_at_net;
static struct run_res res;	/* big: one, static */

/* ------------------------------------------------------------------ */
/* Groups of checks: one PASS/FAIL line per group                      */

static struct {
	const char *name;
	int frames, refused, fails;
	char first_refused[128];
} grp;
static int failures;

static void group_begin(const char *name)
{
	memset(&grp, 0, sizeof(grp));
	grp.name = name;
}

/* Ends one frame's checks */
static void frame_done(const struct runner *r, const char *frame)
{
	grp.frames++;
	if (!check_case_quiet())
		return;
	if (grp.fails++ < FAILS_SHOWN)
		printf("FAIL %s/%s: %s: %s\n", grp.name, r->name, frame,
		       check_why);
}

static void group_end(void)
{
	if (grp.refused)
		printf("NOTE %s: test_run refused %d frames before the program "
		       "ran (first: %s)\n", grp.name, grp.refused,
		       grp.first_refused);
	if (grp.fails) {
		printf("FAIL %s: %d of %d frames\n", grp.name, grp.fails,
		       grp.frames);
		failures++;
	} else {
		printf("PASS %s (%d frames)\n", grp.name, grp.frames);
	}
}

/* ------------------------------------------------------------------ */
/* The checks                                                           */

/* Every counter but the fairness ones (stats.h) */
static void check_delta(const struct sj_stats *want)
{
	for (size_t i = 0; i < NSTAT; i++) {
		const struct sj_stat_name *c = &sj_stat_names[i];
		__u64 got = sj_stat(&res.d, c->off), exp = sj_stat(want, c->off);

		if (!(c->group & SJ_STAT_FAIR))
			CHECK(got == exp, "%s %+lld, want %+lld", c->name,
			      (long long)got, (long long)exp);
	}
}

/* test_run wants an Ethernet header, and for an skb whose ethertype says
 * IPv4 or IPv6 the whole IP header too (the tagged sweep reaches those) */
static int refused_ok(const struct runner *r, const __u8 *data, __u32 len)
{
	__u16 et = len >= 14 ? fr_get16(data + 12) : 0;

	if (len < 14)
		return 1;
	return !r->xdp && ((et == 0x0800 && len < 14 + 20) ||
			   (et == 0x86dd && len < 14 + 40));
}

static int ran(const struct runner *r, const char *frame, const __u8 *data,
	       __u32 len)
{
	if (res.err == -EINVAL && refused_ok(r, data, len)) {
		/* nothing ran */
		if (!grp.refused++)
			snprintf(grp.first_refused, sizeof(grp.first_refused),
				 "%s, %u bytes", frame, len);
		return 0;
	}
	CHECK(!res.err, "test_run: %s", strerror(-res.err));
	if (res.err) {
		frame_done(r, frame);
		return 0;
	}
	return 1;
}

/*
 * The frame as the parser must see it: passed unchanged, counted once under
 * `kind`, a flow only for a parsed packet; key (may be NULL) is the flow;
 * unmatched: a later fragment whose first the program has not seen.
 * Then under the drop rule: a signal drops only a parsed packet, the
 * horizon any.
 */
static void check_frame(const struct runner *r, const char *frame,
			const __u8 *data, __u32 len, int kind,
			const struct sj_flow_key *key, int unmatched)
{
	struct rn_setup plain = { .ecn = 1 }, rule = { .ecn = 0 };
	struct sj_stats want = { .packets = 1, .bytes = len };
	int flow = fr_has_flow(kind), dropped;
	struct sj_flow_key att_key;
	char g[96], w[96];

	want.kind[kind] = 1;
	want.flows_created = flow;
	want.frag_unmatched = unmatched;

	rn_run(r, data, len, &plain, 1, &res);
	if (!ran(r, frame, data, len))
		return;
	CHECK(res.retval == r->pass, "verdict %d, want %d", res.retval, r->pass);
	CHECK(res.out_len == len && !memcmp(res.out, data, len),
	      "frame changed (%u bytes back of %u)", res.out_len, len);
	check_delta(&want);
	CHECK(res.nflows == flow, "%d flows in the table, want %d", res.nflows,
	      flow);
	if (key)	/* the parser's key, in the runner's attachment */
		att_key = rn_key(r, key);
	if (res.nflows == flow && flow && key) {
		rn_fmt_key(&res.key, g, sizeof(g));
		rn_fmt_key(&att_key, w, sizeof(w));
		CHECK(!memcmp(&res.key, &att_key, sizeof(att_key)),
		      "flow key %s, want %s", g, w);
	}
	if (res.nflows == flow && flow &&
	    (!key || !memcmp(&res.key, &att_key, sizeof(att_key))))
		CHECK(res.flow.packets == 1 && res.flow.bytes == len,
		      "flow counted %llu packets %llu bytes, want 1, %u",
		      (unsigned long long)res.flow.packets,
		      (unsigned long long)res.flow.bytes, len);

	/* the one rule that drops: CoDel's signal on a packet we parsed, or
	 * a virtual queue past its horizon, which holds every frame, parsed
	 * or not: what we cannot parse still uses the link */
	if (r->rate) {
		rule.ahead_ns = 10ULL * 1000000000;
		dropped = 1;
	} else {
		/* the signal waits on the packet's own flow */
		rule.pending = 1;
		rule.flow = flow ? key : NULL;
		dropped = flow && key;
	}
	memset(&want, 0, sizeof(want));
	want.packets = 1;
	want.bytes = len;
	want.kind[kind] = 1;
	want.flows_created = flow && !rule.flow;
	want.frag_unmatched = unmatched;
	if (dropped && r->rate)
		want.drop_overlimit = 1;
	else if (dropped)
		want.drops = 1;
	rn_run(r, data, len, &rule, 1, &res);
	CHECK(!res.err, "rule run: test_run: %s", strerror(-res.err));
	if (!res.err)
		CHECK(res.retval == (dropped ? r->drop : r->pass),
		      "under the drop rule: verdict %d, want %d", res.retval,
		      dropped ? r->drop : r->pass);
	check_delta(&want);
	if (!r->rate && rule.flow)
		CHECK(!res.flow.signal_at,
		      "the flow's signal still pending after its packet");
	frame_done(r, frame);
}

static void check_built(const char *frame, const struct frame *f)
{
	for (int i = 0; i < nrunners; i++)
		check_frame(&runners[i], frame, f->b, f->len, f->kind,
			    fr_has_flow(f->kind) ? &f->key : NULL,
			    fr_unmatched(f, f->kind));
}

/* ------------------------------------------------------------------ */
/* The groups                                                           */

static struct frame fr, fr2;

static void test_bases(void)
{
	group_begin("base");
	for (size_t i = 0; i < FR_NBASES; i++) {
		fr_bases[i].build(&fr);
		CHECK(fr.kind == fr_bases[i].kind,
		      "corpus says kind %s, table says %s",
		      sj_kind_names[fr.kind], sj_kind_names[fr_bases[i].kind]);
		if (fr.kind != fr_bases[i].kind) {
			frame_done(&runners[0], fr_bases[i].name);
			continue;
		}
		check_built(fr_bases[i].name, &fr);
	}
	group_end();
}

/* f behind one more 802.1Q tag: the kernel's test_run looks no further
 * than the ethertype, so a cut IP header still reaches the program */
static void wrap_vlan(const struct frame *f, struct frame *w)
{
	*w = *f;
	memcpy(w->b, f->b, 12);
	fr_put16(w->b + 12, 0x8100);
	fr_put16(w->b + 14, 42);
	memcpy(w->b + 16, f->b + 12, f->len - 12);
	w->len = f->len + 4;
	w->need = f->need + 4;
	w->l3 = f->l3 ? f->l3 + 4 : 0;
	w->l4 = f->l4 ? f->l4 + 4 : 0;
	w->tags = f->tags + 1;
	if (!f->settled && w->tags > SJ_MAX_VLAN_TAGS) {
		w->kind = SJ_PKT_VLAN_DEEP;
		w->need = 14 + 4 * SJ_MAX_VLAN_TAGS;
	}
}

static void sweep(const char *base, const struct frame *f)
{
	struct sj_flow_key tmp;
	char name[96];

	for (__u32 len = 0; len <= f->len; len++) {
		int kind = fr_kind_at(f, len);

		snprintf(name, sizeof(name), "%s cut to %u", base, len);
		for (int i = 0; i < nrunners; i++)
			check_frame(&runners[i], name, f->b, len, kind,
				    fr_key_at(f, len, kind, &tmp),
				    fr_unmatched(f, kind));
	}
}

/*
 * f, an untagged IP base frame, as an L3 device hands it over: no Ethernet
 * header.  test_run still takes bytes 12-13 for an ethertype to make
 * skb->protocol, which the tc program on an L3 device goes by; the source
 * address is rewritten so that they name the family, as the kernel's
 * skb->protocol would (IPv4: 8.0.0.1; IPv6: 2001:db8:86dd::1).
 */
static int to_l3(const struct frame *f, struct frame *w)
{
	__u16 et = fr_get16(f->b + 12);

	if (f->tags || f->labels || f->l3 != 14 ||
	    !((f->family == 4 && et == 0x0800) || (f->family == 6 && et == 0x86dd)))
		return 0;
	*w = *f;
	memmove(w->b, f->b + 14, f->len - 14);
	w->len -= 14;
	w->need -= 14;
	w->l3 = 0;
	w->l4 = f->l4 ? f->l4 - 14 : 0;
	if (f->family == 4) {
		w->b[12] = 8;
		w->b[13] = 0;
		fr_ip4_csum(w->b);
		memcpy(&w->key.saddr[0], w->b + 12, 4);
	} else {
		w->b[12] = 0x86;
		w->b[13] = 0xdd;
		memcpy(w->key.saddr, w->b + 8, 16);
	}
	return 1;
}

/*
 * Each untagged IP base frame cut at every length, as group `group` with
 * runners rs[0..n): its IP header first (l3, an L3 device's frame), or
 * behind its Ethernet header, which the AT_NET instance reads at the
 * network header as Ethernet reads it there
 */
static void sweep_ip_frames(const char *group, const struct runner *rs, int n,
			    int l3)
{
	const struct frame *f = l3 ? &fr2 : &fr;
	char name[96];
	int bases = 0;

	group_begin(group);
	for (size_t i = 0; i < FR_NBASES; i++) {
		fr_bases[i].build(&fr);
		if (!to_l3(&fr, &fr2))
			continue;
		bases++;
		for (__u32 len = 0; len <= f->len && len <= 256; len++) {
			int kind = fr_kind_at(f, len);
			struct sj_flow_key tmp;

			snprintf(name, sizeof(name), "%s %s%s%u", group,
				 fr_bases[i].name,
				 len == f->len ? ", whole, " : " cut to ", len);
			for (int r = 0; r < n; r++)
				check_frame(&rs[r], name, f->b, len, kind,
					    fr_key_at(f, len, kind, &tmp),
					    fr_unmatched(f, kind));
		}
	}
	CHECK(bases >= 10, "only %d base frames as untagged IP frames", bases);
	group_end();
}

static void test_truncation(void)
{
	char name[96];

	group_begin("truncate");
	for (size_t i = 0; i < FR_NBASES; i++) {
		fr_bases[i].build(&fr);
		/* the long chain's tail tells nothing new */
		if (fr.len > 256)
			fr.len = fr.need + 8;
		sweep(fr_bases[i].name, &fr);
		if (fr.tags >= SJ_MAX_VLAN_TAGS)
			continue;
		wrap_vlan(&fr, &fr2);
		snprintf(name, sizeof(name), "tagged %s", fr_bases[i].name);
		sweep(name, &fr2);
	}
	group_end();
}

/* Every IHL with the total length right, one short of the header, 0, max */
static void test_ihl(void)
{
	static const int totlen_cases[] = { -1, -2, 0, 65535 };
	char name[96];

	group_begin("ipv4_ihl");
	for (int ihl = 0; ihl < 16; ihl++) {
		for (size_t t = 0; t < sizeof(totlen_cases) / sizeof(int); t++) {
			int tl = totlen_cases[t];
			__u32 hlen;

			fr_eth(&fr, 0x0800);
			fr_ip4(&fr, 0, P_TCP, ihl, 0);
			fr_tcp(&fr, 3000 + ihl, 80);
			fr_finish(&fr);
			hlen = ihl * 4;
			if (tl == -2)
				tl = hlen ? hlen - 1 : 0;
			if (tl != -1) {
				fr_put16(fr.b + fr.l3 + 2, tl);
				fr_ip4_csum(fr.b + fr.l3);
				if ((__u32)tl < hlen && ihl >= 5) {
					fr.kind = SJ_PKT_BAD_HEADER;
					fr.need = fr.l3 + 20;
				}
			}
			snprintf(name, sizeof(name), "ihl %d tot_len %s%d", ihl,
				 totlen_cases[t] == -1 ? "right " : "", tl);
			check_built(name, &fr);
			/* IHL beyond the frame: the header runs off its end */
			if (ihl > 5 && tl == -1) {
				fr.len = fr.l3 + hlen - 1;
				snprintf(name, sizeof(name), "ihl %d, frame ends "
					 "in the options", ihl);
				for (int i = 0; i < nrunners; i++)
					check_frame(&runners[i], name, fr.b, fr.len,
						    SJ_PKT_TRUNCATED, NULL, 0);
			}
		}
	}
	group_end();
}

/* Chains: header lengths at their limits, long, looping, cut */
static void test_ipv6_ext(void)
{
	static const __u8 types[] = { P_HBH, P_RT, P_DST, P_MH, P_AH };
	char name[96];

	group_begin("ipv6_ext");
	for (size_t t = 0; t < sizeof(types); t++) {
		/* the longest header each type can say: 2048 (AH 1028) bytes */
		__u32 longest = types[t] == P_AH ? (255 + 2) * 4 : (255 + 1) * 8;

		fr_eth(&fr, 0x86dd);
		fr_ip6(&fr, 0, 0, types[t]);
		fr_ext6(&fr, types[t], P_TCP, longest);
		fr_tcp(&fr, 4000 + t, 80);
		fr_finish(&fr);
		if (fr.len <= 3000) {	/* test_run's limit for an skb */
			snprintf(name, sizeof(name), "type %u, %u bytes, then tcp",
				 types[t], longest);
			check_built(name, &fr);
		}
		/* the same length said, the frame much shorter */
		fr.len = fr.l3 + 40 + 64;
		snprintf(name, sizeof(name), "type %u says %u bytes, has 64",
			 types[t], longest);
		for (int i = 0; i < nrunners; i++)
			check_frame(&runners[i], name, fr.b, fr.len,
				    SJ_PKT_TRUNCATED, NULL, 0);

		/* the smallest: AH with length 0 is 8 bytes */
		fr_eth(&fr, 0x86dd);
		fr_ip6(&fr, 0, 0, types[t]);
		fr_ext6(&fr, types[t], P_UDP, 8);
		fr_udp(&fr, 4100 + t, 53);
		fr_finish(&fr);
		snprintf(name, sizeof(name), "type %u, 8 bytes, then udp", types[t]);
		check_built(name, &fr);
	}
	/* every chain length from 0 to 12, each type in turn, then udp */
	for (int n = 0; n <= 12; n++) {
		fr_eth(&fr, 0x86dd);
		fr_ip6(&fr, 0, 0, n ? types[0] : P_UDP);
		for (int i = 0; i < n; i++)
			fr_ext6(&fr, types[i % sizeof(types)],
				i + 1 < n ? types[(i + 1) % sizeof(types)] : P_UDP,
				types[i % sizeof(types)] == P_AH ? 12 : 16);
		fr_udp(&fr, 4200 + n, 53);
		fr_finish(&fr);
		snprintf(name, sizeof(name), "chain of %d", n);
		CHECK((n <= SJ_MAX_IPV6_EXT) == (fr.kind == SJ_PKT_UDP),
		      "corpus: chain of %d is %s", n, sj_kind_names[fr.kind]);
		check_built(name, &fr);
		/* and with a fragment header last */
		fr_eth(&fr, 0x86dd);
		fr_ip6(&fr, 0, 0, n ? P_DST : P_FRAG);
		for (int i = 0; i < n; i++)
			fr_ext6(&fr, P_DST, i + 1 < n ? P_DST : P_FRAG, 8);
		fr_frag6(&fr, P_UDP, 0, 1);
		fr_udp(&fr, 4300 + n, 53);
		fr_put(&fr, NULL, 4);	/* 8-byte units */
		fr_finish(&fr);
		snprintf(name, sizeof(name), "chain of %d, then a fragment", n);
		check_built(name, &fr);
	}
	group_end();
}

/* Tag stacks 0..8 deep, in both tag types */
static void test_qinq(void)
{
	char name[96];

	group_begin("qinq");
	for (int n = 0; n <= 8; n++) {
		for (int ad = 0; ad < 2; ad++) {
			__u16 tpid = ad ? 0x88a8 : 0x8100;

			fr_eth(&fr, n ? tpid : 0x0800);
			for (int i = 0; i < n; i++)
				fr_vlan(&fr, i + 1, i + 1 < n ? 0x8100 : 0x0800);
			fr_ip4(&fr, 0, P_UDP, 5, 0);
			fr_udp(&fr, 5000 + n, 53);
			fr_finish(&fr);
			snprintf(name, sizeof(name), "%d tags, outer %04x", n, tpid);
			CHECK((n <= SJ_MAX_VLAN_TAGS) == (fr.kind == SJ_PKT_UDP),
			      "corpus: %d tags is %s", n, sj_kind_names[fr.kind]);
			check_built(name, &fr);
		}
	}
	group_end();
}

/* A TCP/IPv4 frame under every 97th ethertype and the ones that matter */
static void test_ethertypes(void)
{
	static const __u16 special[] = { 0x0000, 0x05dc, 0x0600, 0x0806,
		0x0842, 0x22f0, 0x8035, 0x809b, 0x8137, 0x8847, 0x8848,
		0x8863, 0x8864, 0x888e, 0x88cc, 0x88e5, 0x88f7, 0x8906,
		0x894f, 0x9000, 0x9100, 0xffff, 0x0800, 0x86dd };
	const __u32 n = 65536 / 97 + sizeof(special) / sizeof(special[0]);
	char name[64];

	group_begin("ethertype");
	for (__u32 i = 0; i < n; i++) {
		__u16 et = i < 65536 / 97 ? i * 97 : special[i - 65536 / 97];

		if (et == 0x8100 || et == 0x88a8)
			continue;	/* tags: the qinq group */
		b_tcp4(&fr);
		fr_put16(fr.b + 12, et);
		if (et == 0x86dd) {
			fr.kind = SJ_PKT_TRUNCATED;	/* 20 bytes of v4 + 28 < 40? */
			if (fr.len - 14 >= 40)
				fr.kind = SJ_PKT_BAD_HEADER;
		} else if (et != 0x0800) {
			fr.kind = SJ_PKT_NON_IP;
		}
		snprintf(name, sizeof(name), "ethertype %04x", et);
		check_built(name, &fr);
	}
	group_end();
}

static void test_zero_length(void)
{
	group_begin("zero_length");
	for (int i = 0; i < nrunners; i++) {
		rn_run(&runners[i], fr.b, 0, &(struct rn_setup){ .ecn = 1 }, 1, &res);
		if (res.err != -EINVAL) {
			/* if a kernel lets it through, it must pass as truncated */
			check_frame(&runners[i], "0 bytes", fr.b, 0,
				    SJ_PKT_TRUNCATED, NULL, 0);
			continue;
		}
		check_delta(&(struct sj_stats){ 0 });
		frame_done(&runners[i], "0 bytes (refused, nothing counted)");
		grp.refused++;
		snprintf(grp.first_refused, sizeof(grp.first_refused), "0 bytes");
	}
	group_end();
}

/*
 * Big frames: as big as test_run takes (an skb's one page; 9000-byte jumbo
 * frames need multi-buffer and are refused), IP lengths claiming 64 KB,
 * and an IPv6 jumbogram (payload length 0, a Jumbo Payload option).
 */
static void test_jumbo(void)
{
	static const __u32 sizes[] = { 1514, 2048, 3000, 3500, 4096, 9014 };
	char name[64];

	group_begin("jumbo");
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (int v6 = 0; v6 < 2; v6++) {
			(v6 ? b_tcp6 : b_tcp4)(&fr);
			fr_put(&fr, NULL, sizes[s] - fr.len);
			fr_finish(&fr);
			snprintf(name, sizeof(name), "ipv%d tcp %u bytes",
				 v6 ? 6 : 4, sizes[s]);
			for (int i = 0; i < nrunners; i++) {
				rn_run(&runners[i], fr.b, fr.len,
				       &(struct rn_setup){ .ecn = 1 }, 1, &res);
				if (res.err == -EINVAL && sizes[s] > 3000) {
					if (!grp.refused++)
						snprintf(grp.first_refused,
							 sizeof(grp.first_refused),
							 "%s by %s", name,
							 runners[i].name);
					continue;
				}
				check_frame(&runners[i], name, fr.b, fr.len,
					    fr.kind, &fr.key, 0);
			}
		}
	}
	b_tcp4(&fr);
	fr_put16(fr.b + fr.l3 + 2, 65535);
	fr_ip4_csum(fr.b + fr.l3);
	check_built("ipv4 tot_len 65535, 62 bytes here", &fr);

	/* RFC 2675: payload length 0, hop-by-hop Jumbo Payload option */
	fr_eth(&fr, 0x86dd);
	fr_ip6(&fr, 0, 0, P_HBH);
	fr_ext6(&fr, P_HBH, P_TCP, 8);
	fr.b[fr.len - 6] = 0xc2;	/* option type, length 4, 100000 */
	fr.b[fr.len - 5] = 4;
	fr.b[fr.len - 4] = 0;
	fr.b[fr.len - 3] = 1;
	fr.b[fr.len - 2] = 0x86;
	fr.b[fr.len - 1] = 0xa0;
	fr_tcp(&fr, 6000, 80);
	check_built("ipv6 jumbogram", &fr);
	group_end();
}

/* A later fragment of the IPv6 base frame's datagram (b_frag6_first) */
static void b_frag6_first_later(struct frame *f)
{
	fr_eth(f, 0x86dd);
	fr_ip6(f, 0, 0, P_FRAG);
	fr_frag6(f, P_UDP, 3, 0);
	fr_put(f, "the datagram's end", 18);
	fr_finish(f);
}

/* The later fragment, run after its first: err 0, then on the first's flow */
static void frag_join_check(const struct runner *r)
{
	struct sj_flow_key want = rn_key(r, &fr.key);
	char g[96], w[96];
	int joined = res.nflows == 1 && !res.d.frag_unmatched &&
		     res.d.kind[SJ_PKT_FRAGMENT] == 1 && res.flow.packets == 2;

	CHECK(!res.err, "test_run: %s", strerror(-res.err));
	if (res.err)
		return;
	CHECK(joined, "%d flows, %llu unmatched, flow of %llu packets; "
	      "want 1, 0, 2", res.nflows,
	      (unsigned long long)res.d.frag_unmatched,
	      (unsigned long long)res.flow.packets);
	if (!joined)
		return;
	rn_fmt_key(&res.key, g, sizeof(g));
	rn_fmt_key(&want, w, sizeof(w));
	CHECK(!memcmp(&res.key, &want, sizeof(want)), "flow key %s, want %s",
	      g, w);
}

/* Through every program: the first fragment, then a later one of the
 * same datagram, which lands on the first's flow, uncounted */
static void test_frag_join(void)
{
	static const struct rn_setup plain = { .ecn = 1 };
	static const fr_build_fn firsts[] = { b_frag4_first, b_frag6_first };
	static const fr_build_fn laters[] = { b_frag4_later, b_frag6_first_later };

	group_begin("fragment_join");
	for (int i = 0; i < nrunners; i++)
		for (int v6 = 0; v6 < 2; v6++) {
			const char *name = v6 ? "ipv6 first, then later" :
						"ipv4 first, then later";

			firsts[v6](&fr);
			laters[v6](&fr2);
			rn_run(&runners[i], fr.b, fr.len, &plain, 1, &res);
			rn_run(&runners[i], fr2.b, fr2.len, &plain, 0, &res);
			frag_join_check(&runners[i]);
			frame_done(&runners[i], name);
		}
	group_end();
}

/* ------------------------------------------------------------------ */
/* ECN: every codepoint, both families, under every setting that marks */

static int ecn_of(const __u8 *ip, int family)
{
	return family == 4 ? ip[1] & 3 : (ip[1] >> 4) & 3;
}

static void check_ecn_case(const struct runner *r, const char *name, int v6,
			   int cp, int setting)
{
	const __u8 dscp = 0xb8;	/* EF: must survive */
	struct rn_setup s = { .ecn = 1 };
	struct sj_stats want = { .packets = 1 };
	int marks, drop = 0, ect = cp != 0;
	const __u8 *ip;
	__u32 i;

	if (v6) {
		fr_eth(&fr, 0x86dd);
		fr_ip6(&fr, dscp | cp, 0xabcde, P_TCP);
	} else {
		fr_eth(&fr, 0x0800);
		fr_ip4(&fr, dscp | cp, P_TCP, 5, 0);
	}
	fr_tcp(&fr, 7000 + cp, 80);
	fr_finish(&fr);
	want.bytes = fr.len;
	want.kind[SJ_PKT_TCP] = 1;
	want.flows_created = 1;

	switch (setting) {
	case 0:			/* a CoDel signal, ECN on */
		if (r->rate)
			return;	/* its signal needs the law's state: test_pkt */
		s.pending = 1;
		marks = ect;
		drop = !ect;
		want.ecn_mark = marks;
		want.drops = drop;
		break;
	case 1:			/* a CoDel signal, ECN off: always a drop */
		if (r->rate)
			return;
		s.ecn = 0;
		s.pending = 1;
		marks = 0;
		drop = 1;
		want.drops = 1;
		break;
	default:		/* ce_threshold below the queue's sojourn */
		s.ce_threshold_ns = 1000000;
		s.ldelay_ns = 20000000;
		s.ahead_ns = 20000000;
		marks = ect;
		want.ce_mark = marks;
		break;
	}
	if (!r->rate) {
		/* the signal and the sojourn are the packet's own flow's */
		s.flow = &fr.key;
		want.flows_created = 0;
	}
	rn_run(r, fr.b, fr.len, &s, 1, &res);
	CHECK(!res.err, "test_run: %s", strerror(-res.err));
	if (res.err) {
		frame_done(r, name);
		return;
	}
	check_delta(&want);
	CHECK(res.retval == (drop ? r->drop : r->pass), "verdict %d, want %d",
	      res.retval, drop ? r->drop : r->pass);
	if (drop) {
		frame_done(r, name);
		return;
	}
	ip = res.out + fr.l3;
	CHECK(ecn_of(ip, fr.family) == (marks ? 3 : cp), "ECN field %d, want %d",
	      ecn_of(ip, fr.family), marks ? 3 : cp);
	/* DSCP kept; IPv4 checksum still valid; nothing else moved */
	CHECK((v6 ? ((ip[0] << 4 | ip[1] >> 4) & 0xfc) : (ip[1] & 0xfc)) == dscp,
	      "DSCP changed");
	if (!v6)
		CHECK(fr_ip4_csum_ok(ip), "IPv4 checksum wrong after marking");
	for (i = 0; i < fr.len; i++) {
		int ecn_byte = i == fr.l3 + 1 || (!v6 && (i == fr.l3 + 10 ||
						      i == fr.l3 + 11));

		if (!ecn_byte && res.out[i] != fr.b[i])
			break;
	}
	CHECK(i == fr.len, "byte %u changed", i);
	if (v6)
		CHECK((res.out[fr.l3 + 1] & 0x0f) == (fr.b[fr.l3 + 1] & 0x0f),
		      "flow label changed");
	frame_done(r, name);
}

static void test_ecn(void)
{
	static const char *const cps[] = { "not-ect", "ect1", "ect0", "ce" };
	static const char *const sets[] = { "signal ecn", "signal noecn",
					    "ce_threshold" };
	char name[96];

	group_begin("ecn_matrix");
	for (int i = 0; i < nrunners; i++)
		for (int v6 = 0; v6 < 2; v6++)
			for (int cp = 0; cp < 4; cp++)
				for (int st = 0; st < 3; st++) {
					snprintf(name, sizeof(name), "ipv%d %s, %s",
						 v6 ? 6 : 4, cps[cp], sets[st]);
					check_ecn_case(&runners[i], name, v6, cp, st);
				}
	group_end();
}

/* ------------------------------------------------------------------ */

int main(void)
{
	struct sojourn_bpf *q, *rt, *q3, *an;
	int err;

	rn_begin();

	q = sojourn_bpf__open();
	if (!q)
		rn_load_failed(-errno, "tc object");
	err = sojourn_bpf__load(q);
	if (err)
		rn_load_failed(err, "tc program, queue mode");
	rn_init(&runners[nrunners], "tc-queue", q->obj,
		q->progs.sojourn_egress, 0, 0);
	rn_register(&runners[nrunners++], ATT_TC_QUEUE, SJ_MODE_QUEUE,
		    SJ_DIR_EGRESS, 1);

	rt = sojourn_bpf__open();
	if (!rt)
		rn_load_failed(-errno, "tc object");
	err = rn_set_rodata_u32(rt->obj, "cfg_mode", SJ_MODE_RATE);
	if (err) {
		printf("NOTE tc program has no cfg_mode: no rate mode to test\n");
		sojourn_bpf__destroy(rt);
		rt = NULL;
	} else if ((err = sojourn_bpf__load(rt))) {
		rn_load_failed(err, "tc program, rate mode");
	} else {
		rn_init(&runners[nrunners], "tc-rate", rt->obj,
			rt->progs.sojourn_egress, 0, 1);
		rn_register(&runners[nrunners++], ATT_TC_RATE, SJ_MODE_RATE,
			    SJ_DIR_EGRESS, 1);
	}

	q3 = sojourn_bpf__open();
	if (!q3)
		rn_load_failed(-errno, "tc object");
	err = rn_set_rodata_u32(q3->obj, "cfg_link_layer", SJ_LINK_L3);
	CHECK(!err, "the tc program has no cfg_link_layer");
	if (err) {
		;
	} else if ((err = sojourn_bpf__load(q3))) {
		rn_load_failed(err, "tc program, L3 link");
	} else {
		rn_init(&l3runners[nl3runners], "tc-queue-l3", q3->obj,
			q3->progs.sojourn_egress, 0, 0);
		rn_register(&l3runners[nl3runners++], ATT_TC_L3, SJ_MODE_QUEUE,
			    SJ_DIR_EGRESS, 1);
	}

	an = sojourn_bpf__open();
	if (!an)
		rn_load_failed(-errno, "tc object");
	err = rn_set_rodata_u32(an->obj, "cfg_link_layer", SJ_LINK_AT_NET);
	CHECK(!err, "the tc program has no cfg_link_layer");
	if (err) {
		;
	} else if ((err = sojourn_bpf__load(an))) {
		rn_load_failed(err, "tc program, the IP header at the network header");
	} else {
		rn_init(&at_net_runner, "tc-queue-at-net", an->obj,
			an->progs.sojourn_egress, 0, 0);
		rn_register(&at_net_runner, ATT_TC_AT_NET, SJ_MODE_QUEUE,
			    SJ_DIR_EGRESS, 1);
		have_at_net = 1;
	}

#ifdef HAVE_XDP
	struct sojourn_xdp *x3 = sojourn_xdp__open();

	if (!x3)
		rn_load_failed(-errno, "XDP object");
	err = rn_set_rodata_u32(x3->obj, "cfg_link_layer", SJ_LINK_L3);
	CHECK(!err, "the XDP program has no cfg_link_layer");
	/* XDP is an ingress hook: loaded for it, as the loader does */
	if (!err)
		err = rn_set_rodata_u32(x3->obj, "cfg_direction", SJ_DIR_INGRESS);
	CHECK(!err, "the XDP program has no cfg_direction");
	if (err) {
		;
	} else if ((err = sojourn_xdp__load(x3))) {
		rn_load_failed(err, "XDP program, L3 link");
	} else {
		rn_init(&l3runners[nl3runners], "xdp-l3", x3->obj,
			x3->progs.sojourn_xdp, 1, 1);
		rn_register(&l3runners[nl3runners++], ATT_XDP_L3, SJ_MODE_RATE,
			    SJ_DIR_INGRESS, 1);
	}

	struct sojourn_xdp *x = sojourn_xdp__open();

	if (!x)
		rn_load_failed(-errno, "XDP object");
	err = rn_set_rodata_u32(x->obj, "cfg_direction", SJ_DIR_INGRESS);
	CHECK(!err, "the XDP program has no cfg_direction");
	err = sojourn_xdp__load(x);
	if (err)
		rn_load_failed(err, "XDP program");
	rn_init(&runners[nrunners], "xdp", x->obj, x->progs.sojourn_xdp, 1, 1);
	rn_register(&runners[nrunners++], ATT_XDP, SJ_MODE_RATE, SJ_DIR_INGRESS,
		    1);
#else
	printf("NOTE no XDP program built: tc only\n");
#endif

	test_bases();
	test_truncation();
	if (nl3runners)
		sweep_ip_frames("l3", l3runners, nl3runners, 1);
	if (have_at_net)
		sweep_ip_frames("at_net", &at_net_runner, 1, 0);
	test_ihl();
	test_ipv6_ext();
	test_qinq();
	test_ethertypes();
	test_zero_length();
	test_jumbo();
	test_ecn();
	test_frag_join();

	printf("%s: %d groups failed, programs:", failures ? "FAIL" : "PASS",
	       failures);
	for (int i = 0; i < nrunners; i++)
		printf(" %s", runners[i].name);
	for (int i = 0; i < nl3runners; i++)
		printf(" %s", l3runners[i].name);
	if (have_at_net)
		printf(" %s", at_net_runner.name);
	printf("\n");
	return check_exit("test_corpus") || failures;
}
