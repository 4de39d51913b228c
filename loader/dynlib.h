/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * dynlib.c: libmicrohttpd (export --listen) and libsystemd (the daemon's
 * notifications), opened by the commands that use them.  Linked in, they
 * and what they pull in (GnuTLS, libgcrypt, ...) cost every run of every
 * command: about 7 ms of an exec on the test VM, where attach's own work
 * is about 2 ms, and sojourn-cni runs one sojourn per pod it adds.
 */
#ifndef SOJOURN_DYNLIB_H
#define SOJOURN_DYNLIB_H

#include <microhttpd.h>
#include <stdint.h>
#include <systemd/sd-daemon.h>

struct sj_mhd {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
};

/* libmicrohttpd's functions, or NULL after one line that says why */
const struct sj_mhd *sj_mhd(void);

/* sd_notify(0, msg) when libsystemd is there (without it, no service
 * manager can be listening: Debian's systemd ships it) */
void sj_sd_notify(const char *msg);
/* sd_watchdog_enabled(0, usec); 0 without libsystemd */
int sj_sd_watchdog_enabled(uint64_t *usec);

#endif
