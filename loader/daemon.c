// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sojourn daemon: keeps the interfaces that match a rule of sojourn.conf
 * attached as they come and go.  Links are watched over rtnetlink in the
 * daemon's namespace and in the named namespaces rules ask for.
 *
 * The daemon attaches, retunes and detaches by running this same binary
 * (`sojourn [-n NS] attach DEV ...`): those commands take the pin lock and
 * enter namespaces themselves, and so the daemon holds no BPF object at all.
 * Its whole state is the pins plus one small file naming which attachments
 * it made, so a restarted daemon adopts them (`replace`: in place where the
 * rule fits what is attached)
 * and leaves alone what an operator attached by hand.
 *
 * This file is the command: its options, signals, the event loop and what
 * systemd hears (READY, RELOADING, STATUS, WATCHDOG).  daemon.h lists the
 * other parts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <libmnl/libmnl.h>
#include "dynlib.h"
#include "daemon.h"

static void notify_status(const struct daemon *dm, const char *extra)
{
	int i, dir, att = 0, manual = 0, failing = 0;
	static char last[320];
	char msg[320];

	for (i = 0; i < dm->ndevs; i++) {
		for (dir = 0; dir < 2; dir++) {
			att += !!(dm->devs[i].ours & (1u << dir));
			manual += !!(dm->devs[i].manual & (1u << dir));
		}
		failing += dm->devs[i].failures > 0;
	}
	snprintf(msg, sizeof(msg),
		 "STATUS=%d attached, %d left alone, %d failing; %d interfaces in %d namespaces%s",
		 att, manual, failing, dm->ndevs, dm->nns,
		 dm->reload_refused ? "; last reload refused, see the log" : "");
	if (!extra[0] && !strcmp(msg, last))
		return;		/* unchanged: say nothing */
	snprintf(last, sizeof(last), "%s", msg);
	{
		char note[sizeof(msg) + 256];

		snprintf(note, sizeof(note), "%s%s", extra, msg);
		sj_sd_notify(note);
	}
}

/* ---- the command ---- */

static volatile sig_atomic_t stop;

static int load_config(struct daemon *dm, const char *path, bool reload)
{
	struct sj_config *c = malloc(sizeof(*c));

	if (!c)
		return sj_err("out of memory");
	if (sj_config_load(path, c)) {
		if (reload)
			logd(dm, LOG_ERR, NULL, "reload refused: keeping the configuration in force");
		free(c);
		return -1;
	}
	if (reload && !dm->state_given && strcmp(c->state_file, dm->cfg.state_file))
		logd(dm, LOG_WARNING, NULL, "StateFile= takes effect at restart");
	if (reload)
		snprintf(c->state_file, sizeof(c->state_file), "%s", dm->cfg.state_file);
	dm->cfg = *c;
	free(c);
	return 0;
}

static void shutdown_all(struct daemon *dm, bool detach)
{
	int i, dir;

	for (i = 0; detach && i < dm->ndevs; i++)
		for (dir = 0; dir < 2; dir++)
			if (dm->devs[i].ours & (1u << dir))
				detach_dir(dm, &dm->devs[i], dir, "daemon stopping");
	state_write(dm);
	while (dm->nns)
		mnl_socket_close(dm->ns[--dm->nns].nl);
}

/* RELOADING=1 with the time it began, as Type=notify-reload (systemd 253)
 * needs to tell this reload from an earlier one; older systemd ignores
 * MONOTONIC_USEC.  READY=1 follows once the retune is done. */
static void notify_reloading(void)
{
	struct timespec ts;
	char note[64];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(note, sizeof(note), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000);
	sj_sd_notify(note);
}

#define DAEMON_USAGE "usage: sojourn daemon [--config FILE] [--interface IFACE] " \
		     "[--state-file FILE] [--detach-on-exit] [--check]"

int cmd_daemon(int argc, char **argv)
{
	/* static: the configuration holds every rule, too much for a stack */
	static struct daemon D;
	struct daemon *dm = &D;
	const char *path = SJ_CONF_DEFAULT, *state = NULL;
	bool detach_flag = false, check = false;
	struct pollfd pfd[SJ_NS_MAX + 2];
	uint64_t wd_usec = 0;
	sigset_t sigs;
	int sfd, tfd, i, n;
	ssize_t len;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--config") && i + 1 < argc)
			path = argv[++i];
		else if (!strcmp(argv[i], "--interface") && i + 1 < argc) {
			const char *name = argv[++i];

			if (!*name || strlen(name) >= SJ_IFNAMSIZ || strchr(name, '/') ||
			    strchr(name, ' '))
				return sj_err("bad interface name \"%s\"", name);
			snprintf(dm->only_iface, sizeof(dm->only_iface), "%s", name);
		} else if (!strcmp(argv[i], "--state-file") && i + 1 < argc) {
			state = argv[++i];
			if (state[0] != '/' || strlen(state) >= sizeof(dm->cfg.state_file))
				return sj_err("--state-file needs an absolute path");
		} else if (!strcmp(argv[i], "--detach-on-exit"))
			detach_flag = true;
		else if (!strcmp(argv[i], "--check"))
			check = true;
		else
			return sj_err(DAEMON_USAGE);
	}
	if (load_config(dm, path, false))
		return -1;
	/* over [Daemon] StateFile=: each sojourn@ instance keeps its own list */
	if (state) {
		snprintf(dm->cfg.state_file, sizeof(dm->cfg.state_file), "%s", state);
		dm->state_given = true;
	}
	if (check)
		return 0;
	if (sj_check_all())
		return -1;
	dm->cfg.detach_on_exit |= detach_flag;
	dm->journal = getenv("JOURNAL_STREAM") != NULL;
	len = readlink("/proc/self/exe", dm->exe, sizeof(dm->exe) - 1);
	if (len <= 0)
		return sj_err("cannot find our own binary: %s", strerror(errno));
	dm->exe[len] = '\0';
	dm->self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (dm->self_ns < 0)
		return sj_err("cannot open our namespace: %s", strerror(errno));

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (sfd < 0 || tfd < 0)
		return sj_err("cannot set up signals and timer: %s", strerror(errno));
	if (sj_sd_watchdog_enabled(&wd_usec) <= 0)
		wd_usec = 0;
	{
		/* a tick: retries, named namespaces, the watchdog at half its time */
		__u64 tick = wd_usec && wd_usec / 2 < 1000000 ? wd_usec / 2 : 1000000;
		struct itimerspec its = {
			.it_interval = { tick / 1000000, (tick % 1000000) * 1000 },
			.it_value = { tick / 1000000, (tick % 1000000) * 1000 },
		};

		timerfd_settime(tfd, 0, &its, NULL);
	}

	state_read(dm);
	if (ns_open(dm, "", NULL))
		return -1;
	netns_refresh(dm);
	reconcile_dirty(dm);
	for (i = 0; i < dm->nadopt; i++)
		free(dm->adopt[i]);
	free(dm->adopt);
	dm->adopt = NULL;
	dm->nadopt = 0;
	logd(dm, LOG_INFO, NULL, "ready: %d rule%s from %s%s%s", dm->cfg.nrules,
	     dm->cfg.nrules == 1 ? "" : "s", dm->cfg.path,
	     dm->only_iface[0] ? ", for " : "", dm->only_iface);
	notify_status(dm, "READY=1\n");

	while (!stop) {
		pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = tfd, .events = POLLIN };
		for (i = 0; i < dm->nns; i++)
			pfd[i + 2] = (struct pollfd){ .fd = mnl_socket_get_fd(dm->ns[i].nl),
						      .events = POLLIN };
		n = dm->nns;
		if (poll(pfd, n + 2, -1) < 0 && errno != EINTR)
			break;
		for (i = 0; i < n; i++) {
			if (!(pfd[i + 2].revents & POLLIN))
				continue;
			if (ns_read(dm, &dm->ns[i], false) == -ENOBUFS) {
				logd(dm, LOG_WARNING, NULL, "link events lost: scanning again");
				ns_scan(dm, &dm->ns[i]);
			}
		}
		if (pfd[1].revents & POLLIN) {
			__u64 ticks;

			if (read(tfd, &ticks, sizeof(ticks)) < 0)
				ticks = 0;
			netns_refresh(dm);
			if (wd_usec)
				sj_sd_notify("WATCHDOG=1");
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo != SIGHUP) {
					stop = 1;
					continue;
				}
				notify_reloading();
				logd(dm, LOG_INFO, NULL, "reloading %s", dm->cfg.path);
				dm->reload_refused = load_config(dm, dm->cfg.path, true) != 0;
				if (!dm->reload_refused) {
					dm->cfg.detach_on_exit |= detach_flag;
					netns_refresh(dm);
					for (i = 0; i < dm->nns; i++)
						ns_scan(dm, &dm->ns[i]);
				}
				reconcile_dirty(dm);
				notify_status(dm, "READY=1\n");
			}
		}
		reconcile_dirty(dm);
		notify_status(dm, "");
	}
	sj_sd_notify("STOPPING=1");
	logd(dm, LOG_INFO, NULL, "stopping%s", dm->cfg.detach_on_exit ?
	     ": detaching what we attached" : "; attachments stay pinned");
	shutdown_all(dm, dm->cfg.detach_on_exit);
	free(dm->devs);
	close(dm->self_ns);
	close(sfd);
	close(tfd);
	return 0;
}
