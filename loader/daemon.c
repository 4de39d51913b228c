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
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <syslog.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <systemd/sd-daemon.h>
#include "common.h"
#include "config.h"

#define SJ_NS_MAX	64
#define SJ_CHILD_TIMEOUT_MS 10000
#define SJ_RETRY_MAX_S	60

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
	char name[IFNAMSIZ];
	char kind[16];
	bool up, seen, dirty;
	unsigned int ours;	/* directions we attached (SJ_RULE_*) */
	unsigned int manual;	/* directions pinned by someone else */
	unsigned int told;	/* ... of which the log has heard */
	char applied[2][160];	/* the settings we last gave, per direction */
	time_t retry_at;
	int failures;
};

static struct daemon {
	struct sj_config cfg;
	char exe[PATH_MAX];
	int self_ns;		/* fd of our own namespace, to come back */
	struct ns ns[SJ_NS_MAX];
	int nns;
	struct dev *devs;
	int ndevs, cap;
	bool state_dirty, journal;
	char **adopt;		/* folder names the state file listed at start */
	int nadopt;
	/* --interface: the one interface (of our own namespace) this daemon
	 * manages, as sojourn@IFACE.service runs it; "" for every one */
	char only_iface[IFNAMSIZ];
} D;

static void logd(int prio, const struct dev *d, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void logd(int prio, const struct dev *d, const char *fmt, ...)
{
	const struct ns *n = NULL;
	char line[512];
	va_list ap;
	int i, len;

	for (i = 0; d && i < D.nns; i++)
		if (D.ns[i].cookie == d->cookie)
			n = &D.ns[i];
	if (D.journal)
		len = snprintf(line, sizeof(line), "<%d>", prio);
	else
		len = snprintf(line, sizeof(line), "sojourn: ");
	if (d)
		len += snprintf(line + len, sizeof(line) - len, "%s%s%s: ",
				n && n->name[0] ? n->name : "",
				n && n->name[0] ? "/" : "", d->name);
	va_start(ap, fmt);
	vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

static struct ns *ns_of(__u64 cookie)
{
	int i;

	for (i = 0; i < D.nns; i++)
		if (D.ns[i].cookie == cookie)
			return &D.ns[i];
	return NULL;
}

static int ns_enter(const struct ns *n)
{
	char path[SJ_PATH_MAX];
	int fd, err;

	if (!n->name[0])
		return 0;
	snprintf(path, sizeof(path), "/run/netns/%s", n->name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = setns(fd, CLONE_NEWNET) ? -errno : 0;
	close(fd);
	return err;
}

static void ns_leave(const struct ns *n)
{
	if (n->name[0] && setns(D.self_ns, CLONE_NEWNET))
		logd(LOG_ERR, NULL, "cannot return to our namespace: %s", strerror(errno));
}

/* ---- the pins and the list of ours ---- */

static bool pinned(__u64 cookie, __u32 ifindex, int dir)
{
	struct sj_pins p;

	sj_pins_for(&p, cookie, ifindex, dir);
	return sj_pins_exist(&p);
}

static int pin_lock(void)
{
	int fd;

	mkdir(SJ_PIN_ROOT, 0700);
	fd = open(SJ_PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Pins of a device that is gone hold nothing but a tracepoint program that
 * no packet matches any more: remove them, ours or not. */
static int remove_pins(__u64 cookie, __u32 ifindex)
{
	struct sj_pins p;
	int dir, n = 0, lock = pin_lock();

	for (dir = 0; dir < 2; dir++) {
		sj_pins_for(&p, cookie, ifindex, dir);
		if (access(p.dir, F_OK) == 0 && sj_pins_remove_dir(p.dir) == 0)
			n++;
	}
	if (lock >= 0)
		close(lock);
	return n;
}

static void state_write(void)
{
	char tmp[SJ_PATH_MAX + 8], *slash, path[SJ_PATH_MAX];
	FILE *f;
	int i, dir;

	snprintf(path, sizeof(path), "%s", D.cfg.state_file);
	slash = strrchr(path, '/');
	if (slash && slash != path) {
		*slash = '\0';
		mkdir(path, 0755);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", D.cfg.state_file);
	f = fopen(tmp, "we");
	if (!f) {
		logd(LOG_ERR, NULL, "cannot write %s: %s", tmp, strerror(errno));
		return;
	}
	fprintf(f, "# attachments sojourn daemon made: netns cookie-ifindex-direction\n");
	for (i = 0; i < D.ndevs; i++)
		for (dir = 0; dir < 2; dir++)
			if (D.devs[i].ours & (1u << dir))
				fprintf(f, "%llu-%u-%s\n",
					(unsigned long long)D.devs[i].cookie,
					D.devs[i].ifindex, sj_dir_name(dir));
	if (fclose(f) || rename(tmp, D.cfg.state_file))
		logd(LOG_ERR, NULL, "cannot write %s: %s", D.cfg.state_file,
		     strerror(errno));
	D.state_dirty = false;
}

static void state_read(void)
{
	char line[128];
	FILE *f = fopen(D.cfg.state_file, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char **a;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		a = realloc(D.adopt, (D.nadopt + 1) * sizeof(*a));
		if (!a)
			break;
		D.adopt = a;
		D.adopt[D.nadopt++] = strdup(line);
	}
	fclose(f);
}

/* the state file named it: a previous daemon attached it */
static bool adoptable(const struct dev *d, int dir)
{
	char name[64];
	int i;

	snprintf(name, sizeof(name), "%llu-%u-%s", (unsigned long long)d->cookie,
		 d->ifindex, sj_dir_name(dir));
	for (i = 0; i < D.nadopt; i++)
		if (D.adopt[i] && !strcmp(D.adopt[i], name))
			return true;
	return false;
}

/* ---- running ourselves ---- */

/* `sojourn [-n NS] VERB DEV ARGS...`; its stderr comes back as our log
 * lines, with the device named. */
static int run(const struct dev *d, const char *verb, const struct sj_args *a)
{
	const struct ns *n = ns_of(d->cookie);
	char *argv[SJ_ARGS_MAX + 8], out[1024];
	int p[2], i = 0, k, status, len = 0;
	struct pollfd pfd;
	sigset_t none;
	pid_t pid;

	argv[i++] = D.exe;
	if (n && n->name[0]) {
		argv[i++] = "-n";
		argv[i++] = (char *)n->name;
	}
	argv[i++] = (char *)verb;
	argv[i++] = (char *)d->name;
	for (k = 0; a && k < a->n; k++)
		argv[i++] = a->v[k];
	argv[i] = NULL;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(null, 0);
		dup2(null, 1);
		dup2(p[1], 2);
		execv(D.exe, argv);
		_exit(127);
	}
	close(p[1]);
	/* its stderr ends when it exits (or the buffer is full); a child
	 * silent for the whole timeout is stuck */
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	for (;;) {
		int ready = poll(&pfd, 1, SJ_CHILD_TIMEOUT_MS);
		ssize_t r;

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0) {
			kill(pid, SIGKILL);
			logd(LOG_ERR, d, "%s: no answer in %d s, killed", verb,
			     SJ_CHILD_TIMEOUT_MS / 1000);
			break;
		}
		r = read(p[0], out + len, sizeof(out) - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += r;
		if (len == sizeof(out) - 1)
			break;
	}
	close(p[0]);
	out[len] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	for (char *s = out, *e; *s; s = e) {
		e = s + strcspn(s, "\n");
		if (*e)
			*e++ = '\0';
		if (!strncmp(s, "sojourn: ", 9))
			s += 9;
		if (*s)
			logd(LOG_WARNING, d, "%s: %s", verb, s);
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void args_text(const struct sj_args *a, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < a->n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? " " : "", a->v[i]);
}

/* ---- what each device should have ---- */

static const struct sj_rule *rule_for(const struct dev *d, int *idx)
{
	const struct ns *n = ns_of(d->cookie);
	int i;

	if (D.only_iface[0] && (n != &D.ns[0] || strcmp(d->name, D.only_iface)))
		return NULL;
	for (i = 0; n && i < D.cfg.nrules; i++)
		if (sj_rule_matches(&D.cfg.rules[i], d->name, d->kind, n->name)) {
			*idx = i;
			return &D.cfg.rules[i];
		}
	return NULL;
}

static void attach_dir(struct dev *d, const struct sj_rule *r, int dir,
		       const char *where)
{
	unsigned int bit = 1u << dir;
	struct sj_args a;
	char text[160];

	sj_rule_args(r, dir, true, &a);
	args_text(&a, text, sizeof(text));
	if (run(d, "attach", &a)) {
		int wait = d->failures < 6 ? 1 << d->failures : SJ_RETRY_MAX_S;

		d->failures++;
		d->retry_at = time(NULL) + wait;
		logd(LOG_ERR, d, "attach %s failed, retry in %d s", sj_dir_name(dir), wait);
		return;
	}
	d->ours |= bit;
	d->failures = 0;
	D.state_dirty = true;
	snprintf(d->applied[dir], sizeof(d->applied[dir]), "%s", text);
	logd(LOG_INFO, d, "attached %s: %s (%s)", sj_dir_name(dir), text, where);
}

static void detach_dir(struct dev *d, int dir, const char *why)
{
	struct sj_args a = { .n = 0 };

	if (dir == SJ_DIR_INGRESS)
		a.v[a.n++] = "ingress";
	a.v[a.n] = NULL;
	if (run(d, "detach", &a) == 0) {
		d->ours &= ~(1u << dir);
		d->applied[dir][0] = '\0';
		D.state_dirty = true;
		logd(LOG_INFO, d, "detached %s (%s)", sj_dir_name(dir), why);
	}
}

static void reconcile(struct dev *d)
{
	char where[SJ_PATH_MAX + 32];
	const struct sj_rule *r;
	int idx = -1, dir;

	d->dirty = false;
	r = rule_for(d, &idx);
	if (r)
		snprintf(where, sizeof(where), "rule at %s:%d", D.cfg.path, r->line);
	for (dir = 0; dir < 2; dir++)
		if (pinned(d->cookie, d->ifindex, dir) && !(d->ours & (1u << dir)) &&
		    !adoptable(d, dir))
			d->manual |= 1u << dir;
	for (dir = 0; dir < 2; dir++) {
		unsigned int bit = 1u << dir;
		bool want = r && (r->dirs & bit), pin = pinned(d->cookie, d->ifindex, dir);

		if (pin && !(d->ours & bit) && adoptable(d, dir)) {
			d->ours |= bit;
			D.state_dirty = true;
			logd(LOG_INFO, d, "adopted %s attachment", sj_dir_name(dir));
		}
		if (!pin && (d->ours & bit)) {
			logd(LOG_NOTICE, d, "%s attachment removed by someone else",
			     sj_dir_name(dir));
			d->ours &= ~bit;
			d->applied[dir][0] = '\0';
			D.state_dirty = true;
		}
		if (pin && !(d->ours & bit)) {
			if (want && !(d->told & bit))
				logd(LOG_NOTICE, d, "%s attached by hand: left alone",
				     sj_dir_name(dir));
			d->told |= bit;
			continue;
		}
		d->manual &= ~bit;
		d->told &= ~bit;
		if (!want) {
			if (pin)
				detach_dir(d, dir, r ? "rule does not ask for this direction" :
					   "no rule matches any more");
			continue;
		}
		if (!pin) {
			/* a device an operator attached by hand is theirs,
			 * every direction of it */
			if (d->manual)
				continue;
			if (d->up && time(NULL) >= d->retry_at)
				attach_dir(d, r, dir, where);
			continue;
		}
		/* replace: in place where it can, detached and attached
		 * again where the mode, hook or table size changed */
		{
			struct sj_args a;
			char text[160];

			sj_rule_args(r, dir, true, &a);
			args_text(&a, text, sizeof(text));
			if (!strcmp(text, d->applied[dir]))
				continue;
			if (run(d, "replace", &a) == 0) {
				snprintf(d->applied[dir], sizeof(d->applied[dir]), "%s", text);
				logd(LOG_INFO, d, "replaced %s (%s)", text, where);
			}
		}
	}
}

/* ---- links ---- */

static struct dev *dev_find(__u64 cookie, __u32 ifindex, bool create)
{
	struct dev *d;
	int i;

	for (i = 0; i < D.ndevs; i++)
		if (D.devs[i].cookie == cookie && D.devs[i].ifindex == ifindex)
			return &D.devs[i];
	if (!create)
		return NULL;
	if (D.ndevs == D.cap) {
		int cap = D.cap ? D.cap * 2 : 64;
		struct dev *n = realloc(D.devs, cap * sizeof(*n));

		if (!n)
			return NULL;
		D.devs = n;
		D.cap = cap;
	}
	d = &D.devs[D.ndevs++];
	memset(d, 0, sizeof(*d));
	d->cookie = cookie;
	d->ifindex = ifindex;
	return d;
}

static void dev_gone(struct dev *d)
{
	int n = remove_pins(d->cookie, d->ifindex);

	if (n || d->ours)
		logd(LOG_INFO, d, "gone: %d pin folder%s removed", n, n == 1 ? "" : "s");
	if (d->ours)
		D.state_dirty = true;
	*d = D.devs[--D.ndevs];
}

static int link_msg(const struct nlmsghdr *nlh, void *data)
{
	const struct ns *n = data;
	struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct sj_link li;
	struct dev *d;

	if (nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK)
		return MNL_CB_OK;
	if (nlh->nlmsg_type == RTM_DELLINK) {
		d = dev_find(n->cookie, ifm->ifi_index, false);
		if (d)
			dev_gone(d);
		else
			remove_pins(n->cookie, ifm->ifi_index);
		return MNL_CB_OK;
	}
	sj_link_parse(nlh, &li);
	if (li.flags & IFF_LOOPBACK)
		return MNL_CB_OK;	/* nothing queues there */
	d = dev_find(n->cookie, li.ifindex, true);
	if (!d)
		return MNL_CB_ERROR;
	if (!li.kind[0] && li.hardware)
		snprintf(li.kind, sizeof(li.kind), "physical");
	if (strcmp(d->name, li.name) || strcmp(d->kind, li.kind) ||
	    d->up != !!(li.flags & IFF_UP))
		d->dirty = true;
	snprintf(d->name, sizeof(d->name), "%s", li.name);
	snprintf(d->kind, sizeof(d->kind), "%s", li.kind);
	d->up = li.flags & IFF_UP;
	d->seen = true;
	return MNL_CB_OK;
}

static void reconcile_dirty(void)
{
	time_t now = time(NULL);
	int i;

	for (i = 0; i < D.ndevs; i++)
		if (D.devs[i].dirty || (D.devs[i].retry_at && now >= D.devs[i].retry_at))
			reconcile(&D.devs[i]);
	if (D.state_dirty)
		state_write();
}

/* Reads what the socket has; 0, or -ENOBUFS when events were lost. */
static int ns_read(struct ns *n, bool wait_done, unsigned int seq)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int ret;

	for (;;) {
		ret = mnl_socket_recvfrom(n->nl, buf, sizeof(buf));
		if (ret < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		ret = mnl_cb_run(buf, ret, seq, 0, link_msg, n);
		if (ret < 0)
			return -errno;
		if (wait_done && ret == MNL_CB_STOP)
			return 0;
	}
}

/* Every link of the namespace, afresh; links not listed are gone. */
static int ns_scan(struct ns *n)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtgenmsg *rt;
	static unsigned int seq = 1;
	int i, ret, fl = fcntl(mnl_socket_get_fd(n->nl), F_GETFL);

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++seq;
	rt = mnl_nlmsg_put_extra_header(nlh, sizeof(*rt));
	rt->rtgen_family = AF_UNSPEC;
	for (i = 0; i < D.ndevs; i++)
		if (D.devs[i].cookie == n->cookie)
			D.devs[i].seen = false;
	if (mnl_socket_sendto(n->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	fcntl(mnl_socket_get_fd(n->nl), F_SETFL, fl & ~O_NONBLOCK);
	ret = ns_read(n, true, 0);
	fcntl(mnl_socket_get_fd(n->nl), F_SETFL, fl);
	if (ret)
		return ret;
	for (i = D.ndevs - 1; i >= 0; i--) {
		if (D.devs[i].cookie != n->cookie)
			continue;
		if (!D.devs[i].seen)
			dev_gone(&D.devs[i]);
		else
			D.devs[i].dirty = true;
	}
	return 0;
}

struct gc_arg {
	struct ns *n;
	int removed;
};

/* Folders of this namespace whose device is gone (a daemon that was not
 * running when it went): checked again under the lock, since an attach
 * may just have made one for a device created after our scan. */
static int gc_one(const char *dir, void *arg)
{
	struct gc_arg *g = arg;
	unsigned long long cookie;
	char name[IFNAMSIZ];
	unsigned int ifindex;
	const char *base = strrchr(dir, '/');
	int lock;

	if (!base || sscanf(base + 1, "%llu-%u-", &cookie, &ifindex) != 2 ||
	    cookie != g->n->cookie || dev_find(cookie, ifindex, false))
		return 0;
	lock = pin_lock();
	if (!ns_enter(g->n)) {
		if (!if_indextoname(ifindex, name) && errno == ENXIO &&
		    sj_pins_remove_dir(dir) == 0)
			g->removed++;
		ns_leave(g->n);
	}
	if (lock >= 0)
		close(lock);
	return 0;
}

static void ns_gc(struct ns *n)
{
	struct gc_arg g = { .n = n };

	sj_pins_foreach(gc_one, &g);
	if (g.removed)
		logd(LOG_INFO, NULL, "removed %d pin folder%s of devices gone from %s",
		     g.removed, g.removed == 1 ? "" : "s",
		     n->name[0] ? n->name : "our namespace");
}

static int ns_open(const char *name, const struct stat *st)
{
	struct ns *n;
	int size = 4 << 20, err;

	if (D.nns == SJ_NS_MAX)
		return sj_err("more than %d namespaces to watch", SJ_NS_MAX);
	n = &D.ns[D.nns];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	if (st) {
		n->st_dev = st->st_dev;
		n->st_ino = st->st_ino;
	}
	err = ns_enter(n);
	if (err)
		return sj_err("cannot enter namespace %s: %s", name, strerror(-err));
	n->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	err = n->nl ? sj_netns_cookie(&n->cookie) : -1;
	ns_leave(n);
	if (!n->nl || err || mnl_socket_bind(n->nl, 1u << (RTNLGRP_LINK - 1),
					     MNL_SOCKET_AUTOPID) < 0) {
		err = errno;
		if (n->nl)
			mnl_socket_close(n->nl);
		return sj_err("cannot watch links%s%s: %s", name[0] ? " in " : "",
			      name, strerror(err));
	}
	/* a burst of pods must not overflow us while a child runs */
	setsockopt(mnl_socket_get_fd(n->nl), SOL_SOCKET, SO_RCVBUFFORCE,
		   &size, sizeof(size));
	n->listed = true;
	D.nns++;
	if (name[0])
		logd(LOG_INFO, NULL, "watching namespace %s", name);
	if (ns_scan(n))
		logd(LOG_WARNING, NULL, "cannot list links%s%s", name[0] ? " of " : "", name);
	ns_gc(n);
	return 0;
}

/* The namespace lost its name: let go of it (our socket would keep it
 * alive) and of what we attached in it, which dies with it. */
static void ns_close(int i)
{
	struct ns *n = &D.ns[i];
	int k;

	for (k = D.ndevs - 1; k >= 0; k--)
		if (D.devs[k].cookie == n->cookie)
			dev_gone(&D.devs[k]);
	logd(LOG_INFO, NULL, "namespace %s gone", n->name);
	mnl_socket_close(n->nl);
	D.ns[i] = D.ns[--D.nns];
}

static bool netns_wanted(const char *name)
{
	int i;

	if (D.only_iface[0])
		return false;	/* its interface is in our own namespace */
	for (i = 0; i < D.cfg.nrules; i++)
		if (D.cfg.rules[i].netns[0] && !fnmatch(D.cfg.rules[i].netns, name, 0))
			return true;
	return false;
}

/* Named namespaces come and go with `ip netns add/del`; a look per tick. */
static void netns_refresh(void)
{
	char path[SJ_PATH_MAX + 16];
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int i;

	for (i = 1; i < D.nns; i++)
		D.ns[i].listed = false;
	dir = opendir("/run/netns");
	while (dir && (de = readdir(dir))) {
		struct ns *n = NULL;

		if (de->d_name[0] == '.' || !netns_wanted(de->d_name))
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", de->d_name);
		if (stat(path, &st))
			continue;
		for (i = 1; i < D.nns; i++)
			if (!strcmp(D.ns[i].name, de->d_name))
				n = &D.ns[i];
		if (n && n->st_dev == st.st_dev && n->st_ino == st.st_ino) {
			n->listed = true;
			continue;
		}
		if (!n)
			ns_open(de->d_name, &st);
	}
	if (dir)
		closedir(dir);
	for (i = D.nns - 1; i >= 1; i--)
		if (!D.ns[i].listed)
			ns_close(i);
}

/* ---- systemd ---- */

static void notify_status(const char *extra)
{
	int i, dir, att = 0, manual = 0, failing = 0;
	static char last[320];
	char msg[320];

	for (i = 0; i < D.ndevs; i++) {
		for (dir = 0; dir < 2; dir++) {
			att += !!(D.devs[i].ours & (1u << dir));
			manual += !!(D.devs[i].manual & (1u << dir));
		}
		failing += D.devs[i].failures > 0;
	}
	snprintf(msg, sizeof(msg),
		 "STATUS=%d attached, %d left alone, %d failing; %d interfaces in %d namespaces",
		 att, manual, failing, D.ndevs, D.nns);
	if (!extra[0] && !strcmp(msg, last))
		return;		/* unchanged: say nothing */
	snprintf(last, sizeof(last), "%s", msg);
	sd_notifyf(0, "%s%s", extra, msg);
}

/* ---- the command ---- */

static volatile sig_atomic_t stop;

static int load_config(const char *path, bool reload)
{
	struct sj_config *c = malloc(sizeof(*c));

	if (!c)
		return sj_err("out of memory");
	if (sj_config_load(path, c)) {
		if (reload)
			logd(LOG_ERR, NULL, "reload refused: keeping the configuration in force");
		free(c);
		return -1;
	}
	if (reload && strcmp(c->state_file, D.cfg.state_file))
		logd(LOG_WARNING, NULL, "StateFile= takes effect at restart");
	if (reload)
		snprintf(c->state_file, sizeof(c->state_file), "%s", D.cfg.state_file);
	D.cfg = *c;
	free(c);
	return 0;
}

static void shutdown_all(bool detach)
{
	int i, dir;

	for (i = 0; detach && i < D.ndevs; i++)
		for (dir = 0; dir < 2; dir++)
			if (D.devs[i].ours & (1u << dir))
				detach_dir(&D.devs[i], dir, "daemon stopping");
	state_write();
	while (D.nns)
		mnl_socket_close(D.ns[--D.nns].nl);
}

/* RELOADING=1 with the time it began, as Type=notify-reload (systemd 253)
 * needs to tell this reload from an earlier one; older systemd ignores
 * MONOTONIC_USEC.  READY=1 follows once the retune is done. */
static void notify_reloading(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
		   (unsigned long long)ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000);
}

#define DAEMON_USAGE "usage: sojourn daemon [--config FILE] [--interface IFACE] " \
		     "[--state-file FILE] [--detach-on-exit] [--check]"

int cmd_daemon(int argc, char **argv)
{
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

			if (!*name || strlen(name) >= IFNAMSIZ || strchr(name, '/') ||
			    strchr(name, ' '))
				return sj_err("bad interface name \"%s\"", name);
			snprintf(D.only_iface, sizeof(D.only_iface), "%s", name);
		} else if (!strcmp(argv[i], "--state-file") && i + 1 < argc) {
			state = argv[++i];
			if (state[0] != '/' || strlen(state) >= sizeof(D.cfg.state_file))
				return sj_err("--state-file needs an absolute path");
		} else if (!strcmp(argv[i], "--detach-on-exit"))
			detach_flag = true;
		else if (!strcmp(argv[i], "--check"))
			check = true;
		else
			return sj_err(DAEMON_USAGE);
	}
	if (load_config(path, false))
		return -1;
	/* over [Daemon] StateFile=: each sojourn@ instance keeps its own list */
	if (state)
		snprintf(D.cfg.state_file, sizeof(D.cfg.state_file), "%s", state);
	if (check)
		return 0;
	if (sj_check_all())
		return -1;
	D.cfg.detach_on_exit |= detach_flag;
	D.journal = getenv("JOURNAL_STREAM") != NULL;
	len = readlink("/proc/self/exe", D.exe, sizeof(D.exe) - 1);
	if (len <= 0)
		return sj_err("cannot find our own binary: %s", strerror(errno));
	D.exe[len] = '\0';
	D.self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (D.self_ns < 0)
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
	if (sd_watchdog_enabled(0, &wd_usec) <= 0)
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

	state_read();
	if (ns_open("", NULL))
		return -1;
	netns_refresh();
	reconcile_dirty();
	for (i = 0; i < D.nadopt; i++)
		free(D.adopt[i]);
	free(D.adopt);
	D.adopt = NULL;
	D.nadopt = 0;
	logd(LOG_INFO, NULL, "ready: %d rule%s from %s%s%s", D.cfg.nrules,
	     D.cfg.nrules == 1 ? "" : "s", D.cfg.path,
	     D.only_iface[0] ? ", for " : "", D.only_iface);
	notify_status("READY=1\n");

	while (!stop) {
		pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = tfd, .events = POLLIN };
		for (i = 0; i < D.nns; i++)
			pfd[i + 2] = (struct pollfd){ .fd = mnl_socket_get_fd(D.ns[i].nl),
						      .events = POLLIN };
		n = D.nns;
		if (poll(pfd, n + 2, -1) < 0 && errno != EINTR)
			break;
		for (i = 0; i < n; i++) {
			if (!(pfd[i + 2].revents & POLLIN))
				continue;
			if (ns_read(&D.ns[i], false, 0) == -ENOBUFS) {
				logd(LOG_WARNING, NULL, "link events lost: scanning again");
				ns_scan(&D.ns[i]);
			}
		}
		if (pfd[1].revents & POLLIN) {
			__u64 ticks;

			if (read(tfd, &ticks, sizeof(ticks)) < 0)
				ticks = 0;
			netns_refresh();
			if (wd_usec)
				sd_notify(0, "WATCHDOG=1");
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo != SIGHUP) {
					stop = 1;
					continue;
				}
				notify_reloading();
				logd(LOG_INFO, NULL, "reloading %s", D.cfg.path);
				if (load_config(D.cfg.path, true) == 0) {
					D.cfg.detach_on_exit |= detach_flag;
					netns_refresh();
					for (i = 0; i < D.nns; i++)
						ns_scan(&D.ns[i]);
				}
				reconcile_dirty();
				notify_status("READY=1\n");
			}
		}
		reconcile_dirty();
		notify_status("");
	}
	sd_notify(0, "STOPPING=1");
	logd(LOG_INFO, NULL, "stopping%s", D.cfg.detach_on_exit ?
	     ": detaching what we attached" : "; attachments stay pinned");
	shutdown_all(D.cfg.detach_on_exit);
	free(D.devs);
	close(D.self_ns);
	close(sfd);
	close(tfd);
	return 0;
}
