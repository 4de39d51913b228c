// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Our XDP program goes in through libxdp's dispatcher, so the device keeps
 * every XDP program it had, and later ones can join.  Native mode where the
 * driver has it, generic (skb) mode otherwise; a device whose dispatcher
 * already runs in one mode gets our program in that mode.
 */
#include <errno.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "common.h"
#include "sojourn_xdp.skel.h"

static struct xdp_multiprog *multiprog_of(__u32 ifindex)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);

	return libxdp_get_error(mp) ? NULL : mp;
}

/* The mode XDP already runs in on the device, XDP_MODE_UNSPEC for none;
 * -1 for a program loaded without the dispatcher, which we must not
 * replace. */
static int mode_in_use(__u32 ifindex)
{
	struct xdp_multiprog *mp = multiprog_of(ifindex);
	int mode = XDP_MODE_UNSPEC;

	if (mp) {
		mode = xdp_multiprog__is_legacy(mp) ? -1 :
		       (int)xdp_multiprog__attach_mode(mp);
		xdp_multiprog__close(mp);
	}
	return mode;
}

/* libxdp and libbpf narrate every fallback they try (a mode the driver
 * lacks, a dispatcher the kernel refuses); what matters reaches the user
 * as one line of ours, so they stay quiet while we attach. */
static int quiet_xdp(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

static int quiet_bpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

/* Joined other programs in libxdp's dispatcher (1), or holds the hook
 * alone because the kernel refused the dispatcher (0). */
static __u32 shares_dispatcher(__u32 ifindex)
{
	struct xdp_multiprog *mp = multiprog_of(ifindex);
	__u32 shared = 0;

	if (mp) {
		shared = !xdp_multiprog__is_legacy(mp);
		xdp_multiprog__close(mp);
	}
	return shared;
}

int sj_xdp_attach(struct sojourn_xdp *skel, __u32 ifindex, struct sj_meta *meta)
{
	enum xdp_attach_mode modes[] = { XDP_MODE_NATIVE, XDP_MODE_SKB };
	int have = mode_in_use(ifindex), err = -EOPNOTSUPP;
	struct xdp_program *prog;
	size_t i;

	if (have < 0)
		return sj_err("%s runs an XDP program loaded without libxdp's dispatcher: ours cannot join it (use hook tc)",
			      meta->ifname);
	libxdp_print_fn_t old_xdp;
	libbpf_print_fn_t old_bpf;

	prog = xdp_program__from_bpf_obj(skel->obj, "xdp");
	err = libxdp_get_error(prog);
	if (err)
		return sj_err("cannot prepare XDP program: %s", strerror(-err));
	old_xdp = libxdp_set_print(quiet_xdp);
	old_bpf = libbpf_set_print(quiet_bpf);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (have != XDP_MODE_UNSPEC && have != (int)modes[i])
			continue;
		err = xdp_program__attach(prog, ifindex, modes[i], 0);
		if (!err) {
			meta->xdp_mode = modes[i] == XDP_MODE_NATIVE ?
					 SJ_XDP_MODE_NATIVE : SJ_XDP_MODE_SKB;
			meta->prog_id = xdp_program__id(prog);
			break;
		}
	}
	libxdp_set_print(old_xdp);
	libbpf_set_print(old_bpf);
	xdp_program__close(prog);
	if (err)
		return sj_err("%s refuses XDP: %s", meta->ifname, strerror(-err));
	meta->hook = SJ_HOOK_XDP;
	meta->xdp_dispatcher = shares_dispatcher(ifindex);
	return 0;
}

/* Only our program leaves; libxdp takes the dispatcher away with the last. */
int sj_xdp_detach(const struct sj_meta *meta)
{
	struct xdp_multiprog *mp = multiprog_of(meta->ifindex);
	struct xdp_program *p;
	int err = 0;

	if (!mp)
		return 0;	/* no XDP on the device: ours is gone already */
	/* without the dispatcher (kernels that refuse freplace) ours is
	 * the one program there, the "main" one */
	p = xdp_multiprog__is_legacy(mp) ? xdp_multiprog__main_prog(mp) :
	    xdp_multiprog__next_prog(NULL, mp);
	for (; p; p = xdp_multiprog__is_legacy(mp) ? NULL :
		    xdp_multiprog__next_prog(p, mp)) {
		if (xdp_program__id(p) != meta->prog_id)
			continue;
		err = xdp_program__detach(p, meta->ifindex,
					  xdp_multiprog__attach_mode(mp), 0);
		break;
	}
	xdp_multiprog__close(mp);
	if (err && err != -ENOENT)
		return sj_err("cannot detach our XDP program from %s: %s",
			      meta->ifname, strerror(-err));
	return 0;
}
