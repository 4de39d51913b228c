// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * detach: idempotent.  Removing the pins drops the last reference to our
 * links, which takes the programs off the device; a clsact filter and our
 * XDP program in libxdp's dispatcher are removed by hand, and only while
 * they are still ours.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "common.h"

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

	if (sj_meta_read(dir, &meta) == 0 && meta.hook == SJ_HOOK_XDP) {
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
