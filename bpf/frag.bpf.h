/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fragments join the flow of their datagram.  Only the first fragment
 * carries the L4 header, so the parser keys it as the whole datagram would
 * be; here its ports are remembered by what every fragment of the datagram
 * repeats (addresses, protocol, identification), and each later fragment
 * looks them up.  A later fragment whose first was not seen (reordered
 * ahead of it, or forgotten by the LRU) keeps the parser's key, addresses
 * and protocol: it still has a flow, and stats.frag_unmatched counts it.
 *
 * A fragment then takes its flow's signals like any packet.  A CE mark
 * survives reassembly (RFC 3168 section 5.3: the kernel's ip_frag_ecn_table
 * gives the datagram CE when any fragment has it); a drop loses the whole
 * datagram, as a drop of a fragment by the kernel's codel or fq_codel
 * does.  A datagram is the sender's unit of data, so that is what a signal
 * to it costs.
 *
 * Called only for SJ_PKT_FRAGMENT: whole packets never touch the map.
 */
#ifndef SOJOURN_FRAG_BPF_H
#define SOJOURN_FRAG_BPF_H

#include "maps.bpf.h"
#include "parse.h"

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SJ_FRAG_MAP_SIZE);
	__type(key, struct sj_frag_key);
	__type(value, struct sj_frag_val);
} frag_flows SEC(".maps") __weak;

/*
 * pkt: a fragment as the parser left it.  The first fragment's ports are
 * remembered; a later fragment's key gets them.  Returns 0 when a later
 * fragment's first was not seen, 1 otherwise.  A global function: the
 * verifier checks it once, and the programs' own stack stays small.
 */
__noinline int sj_frag_join(struct sj_pkt *pkt)
{
	struct sj_frag_key fk = {};
	struct sj_frag_val *seen, first = {};

	if (!pkt)
		return 1;
	__builtin_memcpy(fk.saddr, pkt->key.saddr, sizeof(fk.saddr));
	__builtin_memcpy(fk.daddr, pkt->key.daddr, sizeof(fk.daddr));
	fk.id = pkt->frag_id;
	fk.proto = pkt->frag_proto;
	fk.family = pkt->key.family;
	if (pkt->frag == SJ_FRAG_FIRST) {
		first.sport = pkt->key.sport;
		first.dport = pkt->key.dport;
		first.proto = pkt->key.proto;
		/* a datagram id used again later overwrites the old one */
		bpf_map_update_elem(&frag_flows, &fk, &first, BPF_ANY);
		return 1;
	}
	if (pkt->frag != SJ_FRAG_LATER)
		return 1;
	seen = bpf_map_lookup_elem(&frag_flows, &fk);
	if (!seen)
		return 0;
	pkt->key.sport = seen->sport;
	pkt->key.dport = seen->dport;
	pkt->key.proto = seen->proto;
	return 1;
}

#endif /* SOJOURN_FRAG_BPF_H */
