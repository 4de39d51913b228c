/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One frame through one program with BPF_PROG_TEST_RUN: the one call the
 * packet tests and the cost benchmark make.  Nothing is attached; what
 * the program does to its maps is the caller's to read.
 */
#ifndef SJ_TEST_TESTRUN_H
#define SJ_TEST_TESTRUN_H

#include <errno.h>
#include <linux/types.h>
#include <bpf/bpf.h>

struct sj_run {
	/* in: all may stay 0 */
	void *out;		/* the frame as it came back (NULL: not read) */
	__u32 out_size;
	const void *ctx;	/* tc: the struct __sk_buff the skb starts from
				 * (gso_size, tstamp...); NULL: the kernel's */
	void *ctx_out;		/* tc: that context after the run (NULL: not
				 * read); both are ctx_size bytes */
	__u32 ctx_size;
	__u32 flags;		/* BPF_F_TEST_* */
	__u32 repeat;		/* runs (0: one) */
	/* out */
	int err;		/* -errno of the run, 0 */
	int retval;		/* the verdict */
	__u32 out_len;		/* bytes of the frame that came back */
	__u32 duration;		/* ns per run, as the kernel measured it */
};

/* Runs data[len] through prog; the result in r, and its err returned */
static inline int sj_test_run(int prog, const void *data, __u32 len,
			      struct sj_run *r)
{
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = data,
		.data_size_in = len,
		.data_out = r->out,
		.data_size_out = r->out ? r->out_size : 0,
		.ctx_in = r->ctx,
		.ctx_size_in = r->ctx ? r->ctx_size : 0,
		.ctx_out = r->ctx_out,
		.ctx_size_out = r->ctx_out ? r->ctx_size : 0,
		.flags = r->flags,
		.repeat = r->repeat,
	);

	r->err = bpf_prog_test_run_opts(prog, &o) ? -errno : 0;
	r->retval = (int)o.retval;
	r->out_len = o.data_size_out;
	r->duration = o.duration;
	return r->err;
}

#endif /* SJ_TEST_TESTRUN_H */
