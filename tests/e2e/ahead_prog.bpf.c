// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A foreign tc program for ahead.sh, standing in for a CNI's: it counts
 * the packets it sees (the global `seen`, for the test to read) and
 * returns AHEAD_VERDICT.  Built twice (mk/ahead.mk): ahead_ok returns
 * TC_ACT_OK (== TCX_PASS), which ends the chain as Cilium's and Calico's
 * programs do on most paths; ahead_next returns TC_ACT_UNSPEC
 * (== TCX_NEXT), which lets what follows run.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define TC_ACT_UNSPEC_NR	(-1)
#define TC_ACT_OK_NR		0

#ifndef AHEAD_VERDICT
#define AHEAD_VERDICT TC_ACT_OK_NR
#endif

__u64 seen;

SEC("tc")
int ahead(struct __sk_buff *skb)
{
	__sync_fetch_and_add(&seen, 1);
	return AHEAD_VERDICT;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
