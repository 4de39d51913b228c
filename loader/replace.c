// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * replace: tc's meaning.  The attachment ends up exactly as `attach` with
 * the same words would make it, options not given at their defaults
 * (where `change` keeps what is set).  Not attached: attach.  Attached in
 * the same mode, hook and flow table size: the settings are rewritten in
 * place, so no packet meets a device without sojourn.  Otherwise (rate to
 * real-queue, tc to xdp, another table size): detach, then attach.
 *
 * The daemon and the CNI plugin use it, so that neither has to know how
 * attachments are pinned to choose between attach and change.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "common.h"
#include "tune.h"

/* The hook attach would pick for this request is the one the attachment
 * has: XDP or not as attach decides it, and tcx or clsact where asked for
 * by name (tc and the default take either: clsact where tcx is missing) */
static bool hook_fits(const struct sj_tune *tune, const struct sj_link *link,
		      __u32 hook)
{
	if (sj_wants_xdp(tune, link) != (hook == SJ_HOOK_XDP))
		return false;
	if (tune->hook == SJ_HOOK_REQ_TCX)
		return hook == SJ_HOOK_TCX;
	if (tune->hook == SJ_HOOK_REQ_CLSACT)
		return hook == SJ_HOOK_CLSACT;
	return true;
}

int cmd_replace(int argc, char **argv)
{
	struct sj_settings set;
	struct sj_tune tune;
	struct sj_link link;
	struct sj_pins pins;
	struct sj_meta meta;
	__u64 cookie;
	char why[128];
	int fd, err, n;

	if (argc < 1)
		return sj_err("replace needs a device: sojourn replace DEV [ingress|egress] [options]");
	sj_tune_defaults(&tune);
	n = 1 + sj_dir_arg(argc - 1, argv + 1, &tune.dir);
	/* the whole request is checked before anything is touched */
	if (sj_tune_parse(&tune, argc - n, argv + n, true) || sj_tune_check(&tune))
		return -1;
	if (sj_resolve(argv[0], tune.dir, &link, &cookie, &pins) || sj_pins_lock())
		return -1;
	if (!sj_pins_exist(&pins))
		return sj_attach_resolved(&tune, &link, cookie, &pins);
	/* left by another version of sojourn: migrated the one way that
	 * reads none of its maps, taken off and attached anew */
	if (sj_pins_layout(pins.dir, why, sizeof(why)) == -EPROTO) {
		sj_info("sojourn: %s was made by another version of sojourn (%s): attaching anew",
			pins.dir, why);
		if (sj_detach_dir(pins.dir))
			return -1;
		return sj_attach_resolved(&tune, &link, cookie, &pins);
	}
	if (sj_meta_read(pins.dir, &meta))
		return sj_err("cannot read what %s %s is attached as", link.name,
			      sj_dir_name(tune.dir));
	if (meta.mode != tune.mode || !hook_fits(&tune, &link, meta.hook)) {
		/* the lock is held throughout: no one attaches in between */
		if (sj_detach_dir(pins.dir))
			return -1;
		return sj_attach_resolved(&tune, &link, cookie, &pins);
	}
	fd = sj_settings_open(&pins, &set);
	if (fd < 0)
		return -1;
	err = sj_settings_write(&link, &pins, fd, &tune, &set);
	close(fd);
	return err;
}
