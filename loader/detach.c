// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * detach: idempotent.  Removing the pins drops the last reference to our
 * links, which takes the programs off the device; a clsact filter and our
 * XDP program in libxdp's dispatcher are removed by hand, and only while
 * they are still ours.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <linux/pkt_sched.h>
#include "common.h"
#include "htbpath.h"

#define FOREIGN_FILTERS_MAX 64

/*
 * Another version's meta is not read (pins.c): what holds its program on
 * the device is asked of the kernel instead.  A tcx link goes with the
 * pins.  A clsact filter or an XDP program is taken off only where it runs
 * the very program pinned in the folder, on the device the folder is named
 * for (<netns cookie>-<ifindex>-<direction>), from that device's namespace.
 */
static int detach_foreign(const char *final, const char *dir)
{
	const char *base = strrchr(final, '/');
	struct sj_tc_filter f[FOREIGN_FILTERS_MAX];
	unsigned long long cookie;
	struct sj_meta m = {};
	char path[SJ_PATH_MAX], way[16];
	unsigned int ifindex;
	__u32 id, parent;
	__u64 here;
	int fd, n, i, err = 0;

	if (!base || sscanf(base + 1, "%llu-%u-%15s", &cookie, &ifindex, way) != 3 ||
	    sj_netns_cookie(&here) || here != cookie)
		return 0;	/* elsewhere: the pins are all we can take */
	m.netns_cookie = cookie;
	m.ifindex = ifindex;
	m.direction = strcmp(way, "ingress") ? SJ_DIR_EGRESS : SJ_DIR_INGRESS;
	if (!if_indextoname(ifindex, m.ifname))
		return 0;	/* the device is gone, and all it had */
	if (!sj_pin_path(path, dir, "prog_xdp") && (fd = bpf_obj_get(path)) >= 0) {
		m.prog_id = sj_prog_id(fd);
		close(fd);
		if (m.prog_id && (err = sj_xdp_detach(&m)))
			return err;
	}
	if (sj_pin_path(path, dir, "prog_egress") || (fd = bpf_obj_get(path)) < 0)
		return 0;
	id = sj_prog_id(fd);
	parent = TC_H_MAKE(TC_H_CLSACT, m.direction == SJ_DIR_INGRESS ?
			   TC_H_MIN_INGRESS : TC_H_MIN_EGRESS);
	n = sj_list_filters(ifindex, parent, f, FOREIGN_FILTERS_MAX);
	for (i = 0; id && i < n && i < FOREIGN_FILTERS_MAX; i++) {
		if (f[i].prog_id != id)
			continue;
		m.hook = SJ_HOOK_CLSACT;
		m.tc_handle = f[i].handle;
		m.tc_priority = f[i].prio;
		/* whether it made the clsact qdisc is in the meta: left */
		err = sj_hook_detach_clsact(&m, fd);
		break;
	}
	close(fd);
	return err;
}

void sj_sparse_class_remove(const struct sj_meta *meta)
{
	__u64 here;
	int err;

	/* an ifindex means a device only in the namespace it came from */
	if (!meta->sparse_class_made || sj_netns_cookie(&here) ||
	    here != meta->netns_cookie)
		return;
	err = sj_htb_path_del(meta->ifindex, meta->sparse_class_made);
	if (err)
		sj_info("sojourn: warning: %s: cannot remove HTB class %x:%x that sparse_class auto added: %s",
			meta->ifname, meta->sparse_class_made >> 16,
			meta->sparse_class_made & 0xffff, strerror(-err));
}

int sj_detach_dir(const char *final)
{
	char path[SJ_PATH_MAX], dir[SJ_PATH_MAX];
	struct sj_meta meta;
	int prog_fd = -1, err;

	/* from here on the folder is no attachment: if we are killed, the
	 * next command finishes the job (pins.c's sweep) */
	err = sj_pins_retire(final, dir, sizeof(dir));
	if (err == -ENOENT)
		return 0;
	if (err)
		return sj_err("cannot rename %s: %s", final, strerror(-err));

	if (sj_meta_read(dir, &meta) == -EPROTO) {
		err = detach_foreign(final, dir);
		if (err)
			return err;
	} else if (sj_meta_read(dir, &meta) == 0 && meta.hook == SJ_HOOK_XDP) {
		err = sj_xdp_detach(&meta);
		if (err)
			return err;
	}
	if (sj_meta_read(dir, &meta) == 0 && meta.hook == SJ_HOOK_CLSACT) {
		if (!sj_pin_path(path, dir, "prog_egress"))
			prog_fd = bpf_obj_get(path);
		err = sj_hook_detach_clsact(&meta, prog_fd);
		if (prog_fd >= 0)
			close(prog_fd);
		if (err)
			return err;
	}
	if (sj_meta_read(dir, &meta) == 0)
		sj_sparse_class_remove(&meta);
	err = sj_pins_remove_dir(dir);
	if (err)
		return sj_err("cannot remove %s: %s", dir, strerror(-err));
	return 0;
}

int cmd_detach(int argc, char **argv)
{
	struct sj_pins pins;
	enum sj_dir dir = SJ_DIR_EGRESS;
	__u64 cookie;
	int err;

	if (argc == 2 && !strcmp(argv[1], "ingress"))
		dir = SJ_DIR_INGRESS;
	else if (argc != 1 && !(argc == 2 && !strcmp(argv[1], "egress")))
		return sj_err("usage: sojourn detach DEV [ingress|egress] [-n NETNS]");
	if (sj_check_all() || sj_netns_enter(sj_netns_name) ||
	    sj_netns_cookie(&cookie) || sj_pins_lock())
		return -1;
	err = sj_pins_find(argv[0], cookie, dir, &pins);
	if (err == -ENOENT)
		return 0;	/* a known device, not attached: nothing to do */
	if (err)
		return sj_link_get(argv[0], &(struct sj_link){});
	return sj_detach_dir(pins.dir);
}
