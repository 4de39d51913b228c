// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Libraries opened when a command needs them (dynlib.h says why). */
#include <dlfcn.h>
#include <stdint.h>
#include <linux/types.h>
#include "common.h"
#include "dynlib.h"

/* The sonames of Debian 12's libmicrohttpd12 and libsystemd0 */
#define SJ_MHD_SONAME	"libmicrohttpd.so.12"
#define SJ_SD_SONAME	"libsystemd.so.0"

#define SJ_SYM(lib, h, field, name) \
	(((lib)->field = (__typeof__((lib)->field))dlsym(h, name)) != NULL)

const struct sj_mhd *sj_mhd(void)
{
	static struct sj_mhd m;
	static bool done;
	void *h;

	if (done)
		return m.start_daemon ? &m : NULL;
	done = true;
	h = dlopen(SJ_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		sj_err("cannot serve HTTP: %s (Debian: apt install libmicrohttpd12)", dlerror());
		return NULL;
	}
	if (!SJ_SYM(&m, h, start_daemon, "MHD_start_daemon") ||
	    !SJ_SYM(&m, h, stop_daemon, "MHD_stop_daemon") ||
	    !SJ_SYM(&m, h, create_response_from_buffer, "MHD_create_response_from_buffer") ||
	    !SJ_SYM(&m, h, add_response_header, "MHD_add_response_header") ||
	    !SJ_SYM(&m, h, queue_response, "MHD_queue_response") ||
	    !SJ_SYM(&m, h, destroy_response, "MHD_destroy_response")) {
		sj_err("cannot serve HTTP: %s lacks %s", SJ_MHD_SONAME, dlerror());
		m.start_daemon = NULL;
		return NULL;
	}
	return &m;
}

static struct {
	__typeof__(sd_notify) *notify;
	__typeof__(sd_watchdog_enabled) *watchdog_enabled;
} sd;

static bool sd_open(void)
{
	static bool done;
	void *h;

	if (!done) {
		done = true;
		h = dlopen(SJ_SD_SONAME, RTLD_NOW | RTLD_LOCAL);
		if (h && (!SJ_SYM(&sd, h, notify, "sd_notify") ||
			  !SJ_SYM(&sd, h, watchdog_enabled, "sd_watchdog_enabled")))
			sd.notify = NULL;
	}
	return sd.notify != NULL;
}

void sj_sd_notify(const char *msg)
{
	if (sd_open())
		sd.notify(0, msg);
}

int sj_sd_watchdog_enabled(uint64_t *usec)
{
	if (!sd_open())
		return 0;
	return sd.watchdog_enabled(0, usec);
}
