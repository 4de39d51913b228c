/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Senders of flows judged unresponsive, remembered for a moment so that a
 * sender hopping ports does not start each new flow from a clean record
 * (include/fair.h, SJ_FAIR_SENDER_INTERVALS).
 */
#ifndef SJ_SENDER_BPF_H
#define SJ_SENDER_BPF_H

SJ_MAP(senders, BPF_MAP_TYPE_LRU_HASH, SJ_SENDERS_MAP_SIZE, struct sj_sender_key,
       struct sj_sender);

/* Built here, not on the stack, which the tc program has little of left
 * (see frag.bpf.h) */
struct sj_sender_scratch {
	struct sj_sender_key key;
	struct sj_sender val;
};

SJ_SCRATCH(sender_scratch, struct sj_sender_scratch);

static __always_inline struct sj_sender_scratch *sj_sender_of(const struct sj_pkt *pkt)
{
	struct sj_sender_scratch *sc;
	__u32 zero = 0;

	sc = bpf_map_lookup_elem(&sender_scratch, &zero);
	if (!sc)
		return NULL;
	__builtin_memcpy(sc->key.saddr, pkt->key.saddr, sizeof(sc->key.saddr));
	sc->key.proto = pkt->key.proto;
	sc->key.family = pkt->key.family;
	sc->key.att = pkt->key.att;
	return sc;
}

/* The drop probability a recently convicted flow of this packet's sender
 * had, or 0 */
static __always_inline __u32 sj_sender_recall(const struct sj_pkt *pkt,
					      __u64 now, __u64 interval_ns)
{
	struct sj_sender_scratch *sc = sj_sender_of(pkt);
	struct sj_sender *s;

	if (!sc)
		return 0;
	s = bpf_map_lookup_elem(&senders, &sc->key);
	if (!s || !sj_fair_sender_recent(READ_ONCE(s->convicted_at), now,
					 interval_ns))
		return 0;
	return READ_ONCE(s->drop_p);
}

/* A convicted flow of this packet's sender dropped a packet: remembered,
 * at most every 1/8 interval (a flood drops thousands a second) */
static __always_inline void sj_sender_convict(const struct sj_pkt *pkt,
					      __u64 now, __u32 drop_p,
					      __u64 interval_ns)
{
	struct sj_sender_scratch *sc = sj_sender_of(pkt);
	struct sj_sender *s;

	if (!sc)
		return;
	s = bpf_map_lookup_elem(&senders, &sc->key);
	if (s) {
		if (sj_since(now, READ_ONCE(s->convicted_at)) >= interval_ns / 8) {
			WRITE_ONCE(s->convicted_at, now);
			WRITE_ONCE(s->drop_p, drop_p);
		}
		return;
	}
	sc->val.convicted_at = now;
	sc->val.drop_p = drop_p;
	sc->val.pad = 0;
	bpf_map_update_elem(&senders, &sc->key, &sc->val, BPF_ANY);
}

#endif
