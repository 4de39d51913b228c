/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fragments join the flow of their datagram.  Only the first fragment
 * carries the L4 header: its ports are read here (the parser keys every
 * fragment by addresses and protocol) and remembered by what every fragment
 * of the datagram repeats (addresses, protocol, identification); each later
 * fragment looks them up.  A later fragment whose first was not seen
 * (reordered ahead of it, or forgotten by the LRU) keeps the parser's key,
 * addresses and protocol: it still has a flow, and stats.frag_unmatched
 * counts it.
 *
 * A fragment then takes its flow's signals like any packet.  A CE mark
 * survives reassembly (RFC 3168 section 5.3: the kernel's ip_frag_ecn_table
 * gives the datagram CE when any fragment has it); a drop loses the whole
 * datagram, as a drop of a fragment by the kernel's codel or fq_codel
 * does.  A datagram is the sender's unit of data, so that is what a signal
 * to it costs.
 *
 * Called only for SJ_PKT_FRAGMENT: whole packets never touch these maps.
 * The L4 header's ports are not read by the parser itself (parse.h,
 * sj_frag): for the verifier a fragment header is a leaf of its walk.
 * SJ_PROG_XDP: the XDP program's (struct xdp_md), else the tc program's.
 */
#ifndef SOJOURN_FRAG_BPF_H
#define SOJOURN_FRAG_BPF_H

#include "maps.bpf.h"
#include "parse.h"

SJ_MAP(frag_flows, BPF_MAP_TYPE_LRU_HASH, SJ_FRAG_MAP_SIZE, struct sj_frag_key,
       struct sj_frag_val);

/* Built here, not on the stack: the tc program's rate path leaves 16 of
 * the 512 bytes to the functions it calls */
struct sj_frag_scratch {
	struct sj_frag_key key;
	struct sj_frag_val val;
	__u8 l4[SJ_FRAG_L4_BYTES];
};

SJ_SCRATCH(frag_scratch, struct sj_frag_scratch);

#ifdef SJ_PROG_XDP
#define sj_frag_ctx		xdp_md
#define sj_frag_load_bytes	bpf_xdp_load_bytes
#else
#define sj_frag_ctx		__sk_buff
#define sj_frag_load_bytes	bpf_skb_load_bytes
#endif

/*
 * pkt: a fragment as the parser left it, of the packet ctx.  A first
 * fragment gets its ports, which are remembered; a later fragment gets
 * them from its first, or is counted.  Called from the programs' global
 * parse function, so that the programs themselves take no branch more
 * (each would be a path more through all of them for the verifier); the
 * helper reads the ports wherever they lie (a tc packet's headers may be
 * outside its linear part).
 */
static __always_inline void sj_frag_join(struct sj_frag_ctx *ctx,
					 struct sj_pkt *pkt)
{
	struct sj_frag_scratch *sc;
	struct sj_frag_val *seen;
	struct sj_stats *st;
	__u32 zero = 0;

	sc = bpf_map_lookup_elem(&frag_scratch, &zero);
	if (!sc)
		return;
	__builtin_memcpy(sc->key.saddr, pkt->key.saddr, sizeof(sc->key.saddr));
	__builtin_memcpy(sc->key.daddr, pkt->key.daddr, sizeof(sc->key.daddr));
	sc->key.id = pkt->frag_id;
	sc->key.proto = pkt->key.proto;
	sc->key.family = pkt->key.family;
	sc->key.att = sj_here_id();
	if (pkt->frag == SJ_FRAG_FIRST) {
		if (sj_frag_load_bytes(ctx, pkt->frag_l4_off, sc->l4,
				       sizeof(sc->l4)) == 0)
			sj_frag_ports(pkt, sc->l4);
		sc->val.sport = pkt->key.sport;
		sc->val.dport = pkt->key.dport;
		/* an identification used again overwrites the old datagram */
		bpf_map_update_elem(&frag_flows, &sc->key, &sc->val, BPF_ANY);
		return;
	}
	seen = bpf_map_lookup_elem(&frag_flows, &sc->key);
	if (seen) {
		pkt->key.sport = seen->sport;
		pkt->key.dport = seen->dport;
		return;
	}
	st = sj_stats_this_cpu();
	if (st)
		st->frag_unmatched++;
}

#endif /* SOJOURN_FRAG_BPF_H */
