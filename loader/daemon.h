/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sojourn daemon's parts and the one context they pass around:
 *   daemon.c        the command: options, signals, the event loop, systemd
 *   daemon_state.c  the pins, and the state file naming what we attached
 *   daemon_run.c    the log, and running `sojourn VERB DEV ...` as a child
 *   daemon_rules.c  which rule a device matches, and making it so
 *   daemon_links.c  the links of each watched namespace over rtnetlink
 *   daemon_netns.c  which namespaces are watched, as they come and go
 */
#ifndef SJ_DAEMON_H
#define SJ_DAEMON_H

#include <limits.h>
#include <stdbool.h>
#include <syslog.h>	/* logd's priorities */
#include <sys/stat.h>
#include <time.h>
#include "common.h"
#include "config.h"

#define SJ_NS_MAX	64
#define SJ_CHILD_TIMEOUT_MS 10000
#define SJ_RETRY_MAX_S	60

struct mnl_socket;

struct ns {
	char name[64];		/* "" for the daemon's own */
	dev_t st_dev;		/* of /run/netns/NAME: a name reused is */
	ino_t st_ino;		/* another namespace */
	__u64 cookie;
	struct mnl_socket *nl;
	bool listed;		/* still under /run/netns at the last look */
};

struct dev {
	__u64 cookie;
	__u32 ifindex;
	char name[SJ_IFNAMSIZ];
	char kind[16];
	bool up, seen, dirty;
	unsigned int ours;	/* directions we attached (SJ_RULE_*) */
	unsigned int manual;	/* directions pinned by someone else */
	unsigned int told;	/* ... of which the log has heard */
	char applied[2][160];	/* the settings we last gave, per direction */
	time_t retry_at;
	int failures;
};

struct daemon {
	struct sj_config cfg;
	char exe[PATH_MAX];
	int self_ns;		/* fd of our own namespace, to come back */
	struct ns ns[SJ_NS_MAX];
	int nns;
	struct dev *devs;
	int ndevs, cap;
	bool state_dirty, journal;
	/* the last reload's file was refused (the one before stays in force):
	 * said in STATUS=, because under Type=notify-reload `systemctl
	 * reload` cannot fail on it (READY=1 is the only answer systemd takes) */
	bool reload_refused;
	/* --state-file named the list: the file's StateFile= does not count */
	bool state_given;
	char **adopt;		/* folder names the state file listed at start */
	int nadopt;
	/* --interface: the one interface (of our own namespace) this daemon
	 * manages, as sojourn@IFACE.service runs it; "" for every one */
	char only_iface[SJ_IFNAMSIZ];
};

/* daemon_run.c: a line for the journal (with its priority) or stderr,
 * naming the device and its namespace when d is given */
void logd(const struct daemon *dm, int prio, const struct dev *d,
	  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* `sojourn [-n NS] VERB DEV ARGS...`: 0 when it succeeded */
int run(const struct daemon *dm, const struct dev *d, const char *verb,
	const struct sj_args *a);
void args_text(const struct sj_args *a, char *buf, size_t len);

/* daemon_state.c */
bool pinned(__u64 cookie, __u32 ifindex, int dir);
int pin_lock(void);				/* an fd to close, or -1 */
int remove_pins(__u64 cookie, __u32 ifindex);	/* how many folders */
void state_write(struct daemon *dm);
void state_read(struct daemon *dm);
bool adoptable(const struct daemon *dm, const struct dev *d, int dir);

/* daemon_rules.c */
void detach_dir(struct daemon *dm, struct dev *d, int dir, const char *why);
/* every device marked dirty or due a retry, then the state file */
void reconcile_dirty(struct daemon *dm);

/* daemon_links.c */
struct dev *dev_find(struct daemon *dm, __u64 cookie, __u32 ifindex, bool create);
void dev_gone(struct daemon *dm, struct dev *d);
/* reads what the socket has; 0, or -ENOBUFS when events were lost */
int ns_read(struct daemon *dm, struct ns *n, bool wait_done);
int ns_scan(struct daemon *dm, struct ns *n);

/* daemon_netns.c */
const struct ns *ns_of(const struct daemon *dm, __u64 cookie);
int ns_enter(const struct ns *n);
void ns_leave(const struct daemon *dm, const struct ns *n);
/* starts watching a namespace ("" our own); st: its /run/netns file */
int ns_open(struct daemon *dm, const char *name, const struct stat *st);
void netns_refresh(struct daemon *dm);

#endif
