// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A foreign tc program for ahead.sh, standing in for a CNI's: it counts
 * the packets it sees (the global `seen`, for the test to read) and
 * returns AHEAD_VERDICT.  Built twice (mk/test-helpers.mk): ahead_ok returns
 * TC_ACT_OK (== TCX_PASS), which ends the chain as Cilium's and Calico's
 * programs do on most paths; ahead_next returns TC_ACT_UNSPEC
 * (== TCX_NEXT), which lets what follows run; ahead_half returns TC_ACT_OK
 * for every second packet only.  `passed` counts the TC_ACT_OK verdicts.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define TC_ACT_UNSPEC_NR	(-1)
#define TC_ACT_OK_NR		0

#ifndef AHEAD_VERDICT
#define AHEAD_VERDICT TC_ACT_OK_NR
#endif

__u64 seen;
__u64 passed;	/* packets it returned TC_ACT_OK for */

SEC("tc")
int ahead(struct __sk_buff *skb)
{
	__u64 n = __sync_fetch_and_add(&seen, 1);

#ifdef AHEAD_EVERY
	/* ahead_half: a verdict for one packet in AHEAD_EVERY, next for the
	 * rest, so that a known share skips what follows */
	if (n % AHEAD_EVERY)
		return TC_ACT_UNSPEC_NR;
#else
	(void)n;
#endif
	if (AHEAD_VERDICT == TC_ACT_OK_NR)
		__sync_fetch_and_add(&passed, 1);
	return AHEAD_VERDICT;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
