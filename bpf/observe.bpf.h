/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Where the data path reports what it measured, for the delay histograms.
 * Every program that knows a packet's sojourn calls sj_observe_sojourn();
 * the real-queue egress calls sj_observe_enqueue() so that the dequeue side
 * can tell the packet's flow later.
 */
#ifndef SOJOURN_OBSERVE_BPF_H
#define SOJOURN_OBSERVE_BPF_H

#include "maps.bpf.h"

static __always_inline void sj_observe_enqueue(struct __sk_buff *skb,
					       const struct sj_flow_key *key)
{
}

/* flow may be NULL: the packet had no flow (non-IP, fragment) */
static __always_inline void sj_observe_sojourn(struct sj_flow *flow,
					       __u64 sojourn_ns)
{
}

#endif
