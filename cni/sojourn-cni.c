// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sojourn-cni: a chained CNI plugin, placed after the main plugin (bridge,
 * ptp, ...) the way the bandwidth plugin is.  It reads the rates the
 * runtime passes as runtimeConfig.bandwidth (Kubernetes' bandwidth
 * annotations, bits per second) and puts sojourn's rate mode on the host
 * side of the pod's veth:
 *
 *   ingressRate (the pod's downloads) -> egress of the host veth
 *   egressRate  (the pod's uploads)   -> ingress of the host veth
 *
 * It runs the sojourn command for the work, so the rules of attach (pin
 * lock, one attachment per direction) are the command's alone.
 * Commands per the CNI spec: ADD, DEL (idempotent), CHECK, VERSION.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <json-c/json.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

#define PIN_ROOT	"/sys/fs/bpf/sojourn"
#define STATE_DIR	"/run/sojourn/cni"
#define SUPPORTED	"[\"0.3.0\",\"0.3.1\",\"0.4.0\",\"1.0.0\"]"

/* CNI error codes: 4 invalid config, 7 bad environment, 100+ ours */
enum { ERR_ENV = 4, ERR_CONFIG = 7, ERR_IO = 100, ERR_CHECK = 101 };

static const char *cni_version = "1.0.0";

static void __attribute__((noreturn, format(printf, 2, 3)))
die(int code, const char *fmt, ...)
{
	struct json_object *o = json_object_new_object();
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_object_object_add(o, "cniVersion", json_object_new_string(cni_version));
	json_object_object_add(o, "code", json_object_new_int(code));
	json_object_object_add(o, "msg", json_object_new_string(msg));
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	fprintf(stderr, "sojourn-cni: %s\n", msg);
	exit(1);
}

struct conf {
	struct json_object *root, *prev;
	unsigned long long in_rate, eg_rate;	/* bits/s; 0: none */
	const char *sojourn;
	const char *extra[8];			/* target/interval/ecn, passed on */
	int nextra;
};

static unsigned long long rate_of(struct json_object *o, const char *key)
{
	struct json_object *v;
	long long r;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		die(ERR_CONFIG, "%s must be a number of bits per second", key);
	r = json_object_get_int64(v);
	if (r < 0)
		die(ERR_CONFIG, "%s must not be negative", key);
	return r;
}

static void conf_read(struct conf *c)
{
	static char buf[1 << 20];
	struct json_object *rc = NULL, *bw = NULL, *v;
	size_t n = fread(buf, 1, sizeof(buf) - 1, stdin);
	static char tbuf[2][32];

	buf[n] = '\0';
	c->root = json_tokener_parse(buf);
	if (!c->root || !json_object_is_type(c->root, json_type_object))
		die(ERR_CONFIG, "network configuration on stdin is not a JSON object");
	if (json_object_object_get_ex(c->root, "cniVersion", &v))
		cni_version = json_object_get_string(v);
	json_object_object_get_ex(c->root, "prevResult", &c->prev);
	/* runtimeConfig wins over the static keys, as with the bandwidth plugin */
	if (json_object_object_get_ex(c->root, "runtimeConfig", &rc))
		json_object_object_get_ex(rc, "bandwidth", &bw);
	c->in_rate = rate_of(bw, "ingressRate");
	c->eg_rate = rate_of(bw, "egressRate");
	if (!c->in_rate)
		c->in_rate = rate_of(c->root, "ingressRate");
	if (!c->eg_rate)
		c->eg_rate = rate_of(c->root, "egressRate");
	c->sojourn = "/usr/sbin/sojourn";
	if (json_object_object_get_ex(c->root, "sojourn", &v))
		c->sojourn = json_object_get_string(v);
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "interval" : "target";

		if (!json_object_object_get_ex(c->root, key, &v))
			continue;
		snprintf(tbuf[i], sizeof(tbuf[i]), "%s", json_object_get_string(v));
		c->extra[c->nextra++] = key;
		c->extra[c->nextra++] = tbuf[i];
	}
	if (json_object_object_get_ex(c->root, "ecn", &v))
		c->extra[c->nextra++] = json_object_get_boolean(v) ? "ecn" : "noecn";
}

/* ---- the host side of the pod's veth ---- */

struct peer {
	int ifindex;
	int link;		/* IFLA_LINK: the peer's ifindex */
};

static int link_attr(const struct nlattr *a, void *data)
{
	struct peer *p = data;

	if (mnl_attr_get_type(a) == IFLA_LINK)
		p->link = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct peer *p = data;

	p->ifindex = ifm->ifi_index;
	mnl_attr_parse(nlh, sizeof(*ifm), link_attr, p);
	return MNL_CB_OK;
}

static int peer_of(const char *ifname, struct peer *p)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto out;
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = 1;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, ifname);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		goto out;
	ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (ret > 0)
		ret = mnl_cb_run(buf, ret, 1, mnl_socket_get_portid(nl), link_cb, p);
	ret = ret < 0 ? -1 : 0;
out:
	if (nl)
		mnl_socket_close(nl);
	return ret;
}

/* Enters the pod's namespace, asks its interface for its peer, comes back.
 * -1 when the namespace or the interface is gone. */
static int host_veth(const char *netns, const char *ifname, char *host,
		     int *host_ifindex)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), fd, err;
	struct peer p;

	if (self < 0)
		die(ERR_IO, "cannot open our namespace: %s", strerror(errno));
	fd = netns && *netns ? open(netns, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0) {
		close(self);
		return -1;
	}
	err = setns(fd, CLONE_NEWNET);
	close(fd);
	if (err)
		die(ERR_IO, "cannot enter %s: %s", netns, strerror(errno));
	err = peer_of(ifname, &p);
	if (setns(self, CLONE_NEWNET))
		die(ERR_IO, "cannot come back from %s: %s", netns, strerror(errno));
	close(self);
	if (err || !p.ifindex)
		return -1;
	if (!p.link || p.link == p.ifindex || !if_indextoname(p.link, host))
		die(ERR_CHECK, "%s in %s is not one end of a veth pair whose other end is here",
		    ifname, netns);
	*host_ifindex = p.link;
	return 0;
}

static unsigned long long netns_cookie(void)
{
	unsigned long long c = 0;
	socklen_t len = sizeof(c);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd >= 0) {
		getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &c, &len);
		close(fd);
	}
	return c;
}

static int pinned(int ifindex, const char *dir)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%llu-%d-%s", PIN_ROOT, netns_cookie(),
		 ifindex, dir);
	return stat(path, &st) == 0;
}

/* ---- running sojourn ---- */

/* for an error message: the lines of out joined, "sojourn: " left out */
static char *oneline(char *out)
{
	char *s;

	while ((s = strstr(out, "sojourn: ")))
		memmove(s, s + 9, strlen(s + 9) + 1);
	while ((s = strchr(out, '\n')))
		*s = s[1] ? ';' : '\0';
	return out;
}

/* Runs sojourn; what it printed, both streams, in out. */
static int sojourn(const struct conf *c, char *out, size_t len, const char **args)
{
	const char *argv[32];
	int p[2], n = 0, status;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	argv[n++] = c->sojourn;
	while (*args && n < 30)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (pipe2(p, O_CLOEXEC))
		die(ERR_IO, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die(ERR_IO, "fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execv(c->sojourn, (char **)argv);
		fprintf(stderr, "cannot run %s: %s\n", c->sojourn, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	while (got + 1 < len && (r = read(p[0], out + got, len - 1 - got)) > 0)
		got += r;
	out[got] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int put_rate(const struct conf *c, const char *host, int ifindex,
		    const char *dir, unsigned long long bits, char *err, size_t len)
{
	const char *args[24];
	char rate[32];
	int n = 0, i;

	snprintf(rate, sizeof(rate), "%llubit", bits);
	args[n++] = pinned(ifindex, dir) ? "change" : "attach";
	args[n++] = host;
	args[n++] = dir;
	args[n++] = "rate";
	args[n++] = rate;
	for (i = 0; i < c->nextra; i++)
		args[n++] = c->extra[i];
	args[n] = NULL;
	return sojourn(c, err, len, args);
}

/* must: the device is there, so a failure is a real one */
static void take_off(const struct conf *c, const char *host, const char *dir,
		     bool must)
{
	const char *args[] = { "detach", host, dir, NULL };
	char out[512];

	if (sojourn(c, out, sizeof(out), args) && must)
		die(ERR_IO, "detach %s %s: %s", host, dir, oneline(out));
}

/* DEL may come after the namespace is gone: the name is kept until then */
static void state_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s-%s", STATE_DIR, getenv("CNI_CONTAINERID"),
		 getenv("CNI_IFNAME"));
}

static void state_save(const char *host)
{
	char path[PATH_MAX];
	FILE *f;

	mkdir("/run/sojourn", 0755);
	mkdir(STATE_DIR, 0755);
	state_path(path, sizeof(path));
	f = fopen(path, "we");
	if (f) {
		fprintf(f, "%s\n", host);
		fclose(f);
	}
}

static void print_result(const struct conf *c)
{
	struct json_object *res = c->prev ? c->prev : json_object_new_object();

	json_object_object_add(res, "cniVersion", json_object_new_string(cni_version));
	printf("%s\n", json_object_to_json_string_ext(res, JSON_C_TO_STRING_PLAIN));
}

static void cmd_add(const struct conf *c, const char *netns, const char *ifname)
{
	char host[IF_NAMESIZE], err[1024];
	int ifindex;

	if (!c->prev)
		die(ERR_CONFIG, "no prevResult: sojourn-cni runs chained after the main plugin");
	if (c->in_rate || c->eg_rate) {
		if (host_veth(netns, ifname, host, &ifindex))
			die(ERR_IO, "cannot find %s in %s", ifname, netns);
		state_save(host);
		if (c->in_rate &&
		    put_rate(c, host, ifindex, "egress", c->in_rate, err, sizeof(err)))
			die(ERR_IO, "%s egress: %s", host, oneline(err));
		if (c->eg_rate &&
		    put_rate(c, host, ifindex, "ingress", c->eg_rate, err, sizeof(err))) {
			if (c->in_rate)
				take_off(c, host, "egress", false);
			die(ERR_IO, "%s ingress: %s", host, oneline(err));
		}
	}
	print_result(c);
}

static void cmd_del(const struct conf *c, const char *netns, const char *ifname)
{
	char host[IF_NAMESIZE] = "", path[PATH_MAX];
	bool there = true;
	int ifindex;
	FILE *f;

	state_path(path, sizeof(path));
	if (host_veth(netns, ifname, host, &ifindex)) {
		there = false;
		/* the pod is gone: its veth with it; the pins by the name it had */
		f = fopen(path, "re");
		if (f) {
			if (!fgets(host, sizeof(host), f))
				host[0] = '\0';
			host[strcspn(host, "\n")] = '\0';
			fclose(f);
		}
		if (host[0] && if_nametoindex(host))
			host[0] = '\0';	/* the name is someone else's now */
	}
	if (host[0]) {
		take_off(c, host, "egress", there);
		take_off(c, host, "ingress", there);
	}
	unlink(path);
}

static void check_dir(const struct conf *c, const char *host, const char *dir,
		      unsigned long long want)
{
	const char *args[] = { "show", host, "-j", NULL };
	struct json_object *arr, *e, *v;
	char out[16384];
	size_t i;

	if (sojourn(c, out, sizeof(out), args))
		die(ERR_CHECK, "sojourn show %s: %s", host, oneline(out));
	arr = json_tokener_parse(out);
	for (i = 0; arr && i < json_object_array_length(arr); i++) {
		e = json_object_array_get_idx(arr, i);
		if (!json_object_object_get_ex(e, "direction", &v) ||
		    strcmp(json_object_get_string(v), dir))
			continue;
		if (!want)
			die(ERR_CHECK, "%s %s is attached but no rate asks for it", host, dir);
		if (!json_object_object_get_ex(e, "rate_bps", &v) ||
		    (unsigned long long)json_object_get_int64(v) != want)
			die(ERR_CHECK, "%s %s: rate is not %llu bit/s", host, dir, want);
		json_object_put(arr);
		return;
	}
	json_object_put(arr);
	if (want)
		die(ERR_CHECK, "%s %s: not attached (want %llu bit/s)", host, dir, want);
}

static void cmd_check(const struct conf *c, const char *netns, const char *ifname)
{
	char host[IF_NAMESIZE];
	int ifindex;

	if (!c->prev)
		die(ERR_CONFIG, "no prevResult to check");
	if (host_veth(netns, ifname, host, &ifindex))
		die(ERR_CHECK, "cannot find %s in %s", ifname, netns);
	check_dir(c, host, "egress", c->in_rate);
	check_dir(c, host, "ingress", c->eg_rate);
}

int main(void)
{
	const char *cmd = getenv("CNI_COMMAND"), *netns = getenv("CNI_NETNS");
	const char *ifname = getenv("CNI_IFNAME"), *id = getenv("CNI_CONTAINERID");
	struct conf c = {};

	if (!cmd)
		die(ERR_ENV, "CNI_COMMAND is not set: run by a container runtime");
	if (!strcmp(cmd, "VERSION")) {
		printf("{\"cniVersion\":\"1.0.0\",\"supportedVersions\":%s}\n", SUPPORTED);
		return 0;
	}
	if (!ifname || !*ifname || !id || !*id || strchr(id, '/') || strchr(ifname, '/'))
		die(ERR_ENV, "CNI_IFNAME and CNI_CONTAINERID must be set");
	conf_read(&c);
	if (!strcmp(cmd, "ADD"))
		cmd_add(&c, netns, ifname);
	else if (!strcmp(cmd, "DEL"))
		cmd_del(&c, netns, ifname);
	else if (!strcmp(cmd, "CHECK"))
		cmd_check(&c, netns, ifname);
	else
		die(ERR_ENV, "unknown CNI_COMMAND %s", cmd);
	return 0;
}
