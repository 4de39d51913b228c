// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The tc hook, egress or ingress.  tcx (kernel >= 6.6) gives a bpf_link appended after the
 * programs already there; older kernels get a direct-action filter under
 * clsact at a priority above the usual ones.  Either way our program
 * returns "next", so what runs after it still runs.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/pkt_sched.h>
#include "common.h"

/* libbpf 1.1 predates tcx; the kernel's uapi values */
#define SJ_BPF_TCX_INGRESS 46
#define SJ_BPF_TCX_EGRESS 47
#define SJ_TC_PRIO_TRIES 64

static enum bpf_tc_attach_point tc_point(const struct sj_meta *meta)
{
	return meta->direction == SJ_DIR_INGRESS ? BPF_TC_INGRESS : BPF_TC_EGRESS;
}

static int tcx_attach(int prog_fd, __u32 ifindex, enum sj_dir dir,
		      int *link_fd)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	int fd = bpf_link_create(prog_fd, ifindex, dir == SJ_DIR_INGRESS ?
				 SJ_BPF_TCX_INGRESS : SJ_BPF_TCX_EGRESS, &opts);

	if (fd < 0)
		return -errno;
	*link_fd = fd;
	return 0;
}

/* The attachment's meta map, pinned in its folder before we act: what we
 * are about to do is written there first, so a command killed half-way
 * leaves enough behind for the next one to undo it (pins.c's sweep). */
static void save_meta(int meta_fd, const struct sj_meta *meta)
{
	__u32 zero = 0;

	if (meta_fd >= 0)
		bpf_map_update_elem(meta_fd, &zero, meta, 0);
}

static int clsact_attach(int prog_fd, __u32 ifindex, struct sj_meta *meta,
			 int meta_fd)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = tc_point(meta));
	int err, i;

	meta->hook = SJ_HOOK_CLSACT;
	/* ask first: creating over an existing one makes libbpf print the
	 * kernel's refusal, which is no error of ours */
	meta->created_clsact = !sj_has_clsact(ifindex);
	save_meta(meta_fd, meta);
	err = meta->created_clsact ? bpf_tc_hook_create(&hook) : -EEXIST;
	if (err && err != -EEXIST) {
		meta->created_clsact = 0;
		save_meta(meta_fd, meta);
		return err;
	}
	if (err == -EEXIST && meta->created_clsact) {
		meta->created_clsact = 0;	/* someone was quicker */
		save_meta(meta_fd, meta);
	}
	for (i = 0; i < SJ_TC_PRIO_TRIES; i++) {
		LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = prog_fd,
			    .handle = SJ_TC_HANDLE,
			    .priority = SJ_TC_PRIO_BASE + i);

		meta->tc_handle = SJ_TC_HANDLE;
		meta->tc_priority = SJ_TC_PRIO_BASE + i;
		save_meta(meta_fd, meta);
		err = bpf_tc_attach(&hook, &opts);
		if (err == -EEXIST || err == -EINVAL)
			continue;	/* that priority holds another filter */
		break;
	}
	if (err) {
		meta->tc_handle = meta->tc_priority = 0;
		if (meta->created_clsact) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			bpf_tc_hook_destroy(&hook);
			meta->created_clsact = 0;
		}
		save_meta(meta_fd, meta);
	}
	return err;
}

int sj_hook_attach(int prog_fd, __u32 ifindex, enum sj_hook hook,
		   struct sj_meta *meta, int meta_fd, int *link_fd)
{
	int err;

	*link_fd = -1;
	const char *dir = sj_dir_name(meta->direction);

	if (hook == SJ_HOOK_TCX || hook == 0) {
		err = tcx_attach(prog_fd, ifindex, meta->direction, link_fd);
		if (!err) {
			meta->hook = SJ_HOOK_TCX;
			return 0;
		}
		/* an old kernel does not know the attach type */
		if (hook == SJ_HOOK_TCX || err != -EINVAL)
			return sj_err("cannot attach tcx %s program: %s%s",
				      dir, strerror(-err), err == -EINVAL ?
				      " (kernel older than 6.6? try hook clsact)" : "");
	}
	err = clsact_attach(prog_fd, ifindex, meta, meta_fd);
	if (err)
		return sj_err("cannot attach clsact %s filter: %s", dir,
			      strerror(-err));
	meta->hook = SJ_HOOK_CLSACT;
	return 0;
}

__u32 sj_prog_id(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* Removes our filter only if it is still ours, and the clsact qdisc only
 * if we made it and nobody else put a filter under it since. */
int sj_hook_detach_clsact(const struct sj_meta *meta, int prog_fd)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = meta->ifindex,
		    .attach_point = tc_point(meta));
	LIBBPF_OPTS(bpf_tc_opts, q, .handle = meta->tc_handle,
		    .priority = meta->tc_priority);
	int err;

	err = bpf_tc_query(&hook, &q);
	if (err == -ENODEV)
		return 0;	/* the device is gone, and all it had */
	if (err && err != -ENOENT && err != -EINVAL)
		return sj_err("cannot query our clsact filter: %s", strerror(-err));
	/* gone already (removed by hand, or by a detach that was killed):
	 * the clsact qdisc we made may still be there */
	if (!err && (prog_fd < 0 || q.prog_id == sj_prog_id(prog_fd))) {
		LIBBPF_OPTS(bpf_tc_opts, d, .handle = meta->tc_handle,
			    .priority = meta->tc_priority);

		err = bpf_tc_detach(&hook, &d);
		if (err && err != -ENOENT)
			return sj_err("cannot remove our clsact filter: %s",
				      strerror(-err));
	}
	if (meta->created_clsact &&
	    sj_count_filters(meta->ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS)) == 0 &&
	    sj_count_filters(meta->ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS)) == 0) {
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
	}
	return 0;
}
