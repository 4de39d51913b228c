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
	struct sj_target t;
	struct sj_tune tune;
	int fd, err;

	if (sj_attach_request(&t, &tune, "replace", argc, argv) ||
	    sj_target_resolve(&t))
		return -1;
	/* the lock is held throughout (sj_target_find takes it): no one
	 * attaches in between */
	switch (sj_target_find(&t)) {
	case SJ_FOUND_NONE:
		return sj_attach_resolved(&tune, &t);
	case SJ_FOUND_FOREIGN:
		/* left by another version of sojourn: migrated the one way
		 * that reads none of its maps, taken off and attached anew */
		sj_info("sojourn: %s was made by another version of sojourn (%s): attaching anew",
			t.pins.dir, t.why);
		return sj_detach_dir(t.pins.dir) ? -1 : sj_attach_resolved(&tune, &t);
	case SJ_FOUND_NO_META:
		return sj_err("cannot read what %s %s is attached as",
			      t.link.name, sj_dir_name(t.dir));
	case SJ_FOUND:
		break;
	default:
		return -1;
	}
	/* another mode or hook: taken off and attached anew */
	if (t.meta.mode != tune.mode || !hook_fits(&tune, &t.link, t.meta.hook))
		return sj_detach_dir(t.pins.dir) ? -1 : sj_attach_resolved(&tune, &t);
	fd = sj_settings_open(&t.pins, &set);
	if (fd < 0)
		return -1;
	err = sj_settings_write(&t.link, &t.pins, fd, &tune, &set);
	close(fd);
	return err;
}
