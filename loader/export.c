// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * export: Prometheus text over HTTP (libmicrohttpd: a small, long-lived
 * HTTP server library in Debian, so we parse no HTTP ourselves), or a
 * node_exporter textfile written atomically (temporary file in the same
 * folder, fsync, rename).  Each scrape reads the pins afresh.  By default
 * there are no per-flow series: a node's series are a fixed set per
 * attachment, however many flows come and go (each would be a new series
 * in Prometheus, kept for its retention).  --flows N asks for the N flows
 * of each attachment with the most queueing time, a bounded number.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "dynlib.h"
#include "obs.h"
#include "prom.h"
#include "units.h"

#define EXPORT_USAGE "usage: sojourn export --listen ADDR:PORT [--allow-remote] | --textfile PATH [-i SECONDS] [--flows N] [-n NETNS]"
#define EXPORT_FLOWS_DEFAULT	0
#define EXPORT_FLOWS_MAX	1000

/* sojourn-cni's records of what it attached (cni/cni.h's STATE_DIR):
 * lines "key=value" after the device's name, among them ifindex,
 * netns_cookie, pod_namespace and pod_name */
#define CNI_RECORDS	"/run/sojourn/cni"

struct export_ctx {
	struct obs_filter filter;
	__u32 nflows;
};

static int by_queue_time(const void *x, const void *y)
{
	const struct obs_flow *a = x, *b = y;

	if (a->val.sojourn_sum_ns != b->val.sojourn_sum_ns)
		return a->val.sojourn_sum_ns < b->val.sojourn_sum_ns ? 1 : -1;
	return 0;
}

static int collect_one(const struct obs_att *att, __u32 nflows,
		       struct prom_att *p)
{
	struct obs_flow *flows;
	size_t n;

	memset(p, 0, sizeof(*p));
	p->meta = att->meta;
	/* flows before the device histogram, as obs_split wants */
	if (obs_read_flows(att->dir, &flows, &n))
		return -1;
	p->have_dev = obs_read_dev(att->dir, &p->dev) == 0;
	obs_read_stats(att->dir, &p->st);
	obs_read_settings(att->dir, &p->meta, &p->set);
	obs_read_queues(att->dir, &p->meta, &p->queues, &p->nq);
	p->live_flows = n;
	if (n > 1)
		qsort(flows, n, sizeof(*flows), by_queue_time);
	/* flows that never queued are no "top" of anything */
	while (n > 0 && (n > nflows || !flows[n - 1].val.sojourn_sum_ns))
		n--;
	p->top = flows;
	p->ntop = n;
	return 0;
}

/* The pod of each attachment sojourn-cni made for one: a record whose
 * device (name, ifindex, namespace cookie) is the attachment's.  A record
 * of a pod that is gone names a device that is gone too, or that has
 * another ifindex or cookie: it matches nothing. */
static void pods_of_records(struct prom_att *p, int n)
{
	DIR *d = opendir(CNI_RECORDS);
	char path[sizeof(CNI_RECORDS) + 256], line[512], host[IF_NAMESIZE];
	char ns[sizeof(p->pod_namespace)], pod[sizeof(p->pod_name)];
	unsigned long long cookie;
	struct dirent *de;
	int ifindex, i;
	FILE *f;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || strstr(de->d_name, ".tmp"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", CNI_RECORDS, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;	/* DEL removed it in between */
		host[0] = ns[0] = pod[0] = '\0';
		cookie = 0;
		ifindex = 0;
		if (fgets(line, sizeof(line), f))
			snprintf(host, sizeof(host), "%.*s", (int)strcspn(line, "\n"), line);
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			if (!strncmp(line, "ifindex=", 8))
				ifindex = atoi(line + 8);
			else if (!strncmp(line, "netns_cookie=", 13))
				cookie = strtoull(line + 13, NULL, 10);
			else if (!strncmp(line, "pod_namespace=", 14))
				snprintf(ns, sizeof(ns), "%.*s", (int)sizeof(ns) - 1, line + 14);
			else if (!strncmp(line, "pod_name=", 9))
				snprintf(pod, sizeof(pod), "%.*s", (int)sizeof(pod) - 1, line + 9);
		}
		fclose(f);
		if (!pod[0] || !cookie || ifindex <= 0)
			continue;
		for (i = 0; i < n; i++) {
			if (p[i].meta.ifindex != (__u32)ifindex ||
			    p[i].meta.netns_cookie != cookie ||
			    strncmp(p[i].meta.ifname, host, sizeof(p[i].meta.ifname)))
				continue;
			memcpy(p[i].pod_namespace, ns, sizeof(ns));
			memcpy(p[i].pod_name, pod, sizeof(pod));
		}
	}
	if (d)
		closedir(d);
}

static void free_atts(struct prom_att *p, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(p[i].queues);
		free(p[i].top);
	}
	free(p);
}

/* The whole exposition, malloc'ed; NULL on failure */
static char *render(const struct export_ctx *c, size_t *len)
{
	struct prom_att *p = NULL;
	struct obs_att *atts;
	char *buf = NULL;
	int n, i, got = 0, foreign;
	FILE *f;

	/* another version's attachments: one line each on stderr (once),
	 * and their number in the exposition, so a dashboard sees them */
	if (obs_list(&c->filter, &atts, &n, &foreign))
		return NULL;
	if (n) {
		p = calloc(n, sizeof(*p));
		if (!p)
			goto out;
	}
	for (i = 0; i < n; i++)
		if (collect_one(&atts[i], c->nflows, &p[got]) == 0)
			got++;	/* detached in between: left out */
	pods_of_records(p, got);
	f = open_memstream(&buf, len);
	if (!f)
		goto out;
	prom_render(f, p, got);
	prom_render_foreign(f, foreign);
	if (fclose(f)) {
		free(buf);
		buf = NULL;
	}
out:
	free_atts(p, got);
	free(atts);
	return buf;
}

/* libmicrohttpd, opened by serve() (dynlib.h) */
static const struct sj_mhd *mhd;

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status,
			     const char *text)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = mhd->create_response_from_buffer(strlen(text), (void *)text,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
	ret = mhd->queue_response(conn, status, r);
	mhd->destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_size, void **req_cls)
{
	const struct export_ctx *c = cls;
	struct MHD_Response *r;
	enum MHD_Result ret;
	size_t len;
	char *body;

	(void)version;
	(void)upload_data;
	(void)upload_size;
	(void)req_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only\n");
	if (strcmp(url, "/metrics"))
		return reply(conn, MHD_HTTP_NOT_FOUND, "sojourn: metrics at /metrics\n");
	body = render(c, &len);
	if (!body)
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
			     "sojourn: cannot read the pins\n");
	r = mhd->create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, PROM_CONTENT_TYPE);
	ret = mhd->queue_response(conn, MHD_HTTP_OK, r);
	mhd->destroy_response(r);
	return ret;
}

/* ADDR:PORT with ADDR an IPv4 literal, [IPv6] or localhost */
static int parse_listen(const char *s, struct sockaddr_storage *ss,
			bool *loopback)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	const char *colon = strrchr(s, ':');
	char host[64];
	__u32 port;

	memset(ss, 0, sizeof(*ss));
	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(host) ||
	    sj_parse_u32(colon + 1, &port) || port == 0 || port > 65535)
		return sj_err("bad listen address \"%s\" (ADDR:PORT, e.g. 127.0.0.1:9101 or [::1]:9101)", s);
	snprintf(host, sizeof(host), "%.*s", (int)(colon - s), s);
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		host[strlen(host) - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) != 1)
			return sj_err("bad IPv6 address in \"%s\"", s);
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*loopback = IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
		return 0;
	}
	if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
		return sj_err("bad IPv4 address in \"%s\" (IPv6 goes in brackets)", s);
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	*loopback = (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
	return 0;
}

static int listen_socket(const char *text, const struct sockaddr_storage *ss)
{
	socklen_t len = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
			sizeof(struct sockaddr_in);
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return sj_err("socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, len) || listen(fd, 32)) {
		sj_err("cannot listen on %s: %s", text, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int wait_for_signal(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	return sigwait(&set, &sig);
}

static int serve(struct export_ctx *c, const char *addr, bool allow_remote)
{
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	bool loopback = false;
	sigset_t set;
	int fd;

	if (parse_listen(addr, &ss, &loopback))
		return -1;
	mhd = sj_mhd();
	if (!mhd)
		return -1;
	if (!loopback && !allow_remote)
		return sj_err("%s is not a loopback address: metrics name devices and namespaces (and with --flows, flow addresses); add --allow-remote to listen there anyway", addr);
	/* before any thread exists, so that only sigwait sees them */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	fd = listen_socket(addr, &ss);
	if (fd < 0)
		return -1;
	/* one thread, one scrape at a time: a scrape is a few milliseconds
	 * and this keeps the reads of the maps from piling up */
	d = mhd->start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
			     MHD_USE_ERROR_LOG,
			     0, NULL, NULL, handle, c,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)16,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
			     MHD_OPTION_END);
	if (!d) {
		close(fd);
		return sj_err("cannot start the HTTP server on %s", addr);
	}
	if (!loopback)
		sj_info("sojourn: warning: serving on %s, not loopback: anyone who reaches it can read the metrics%s",
			addr, c->nflows ? ", flow addresses included" : "");
	sj_info("sojourn: serving http://%s/metrics", addr);
	wait_for_signal();
	mhd->stop_daemon(d);
	close(fd);
	return 0;
}

static int write_textfile(const struct export_ctx *c, const char *path)
{
	char tmp[SJ_PATH_MAX * 2];
	size_t len;
	char *body = render(c, &len);
	FILE *f;
	int err = 0;

	if (!body)
		return sj_err("cannot read the pins");
	/* same folder, so rename is atomic: a reader sees old or new, whole */
	snprintf(tmp, sizeof(tmp), "%s.tmp-%d", path, getpid());
	f = fopen(tmp, "w");
	if (!f) {
		free(body);
		return sj_err("cannot write %s: %s", tmp, strerror(errno));
	}
	if (fwrite(body, 1, len, f) != len || fflush(f) || fsync(fileno(f)) ||
	    fchmod(fileno(f), 0644))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno;
	if (!err && rename(tmp, path))
		err = errno;
	free(body);
	if (err) {
		unlink(tmp);
		return sj_err("cannot write %s: %s", path, strerror(err));
	}
	return 0;
}

/*
 * Every every_ns until SIGINT, SIGTERM or SIGHUP.  The signals stay blocked
 * and are taken only between two writes (sigtimedwait is the sleep): one
 * that killed us between fopen and rename left a .tmp-PID file in the
 * collector's folder, where nothing would remove it (export.sh counts
 * them: 1 left in one run of make check, 2026-12-06).
 */
static int textfile_loop(const struct export_ctx *c, const char *path,
			 __u64 every_ns)
{
	struct timespec ts = { every_ns / 1000000000, every_ns % 1000000000 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (every_ns)
		sigprocmask(SIG_BLOCK, &set, NULL);
	for (;;) {
		if (write_textfile(c, path))
			return -1;
		if (!every_ns)
			return 0;
		if (sigtimedwait(&set, NULL, &ts) >= 0)
			return 0;
	}
}

int cmd_export(int argc, char **argv)
{
	struct export_ctx c = { .nflows = EXPORT_FLOWS_DEFAULT };
	const char *listen = NULL, *textfile = NULL;
	bool allow_remote = false;
	__u64 every_ns = 0;
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--allow-remote")) {
			allow_remote = true;
			continue;
		}
		if (!v && (!strcmp(a, "--listen") || !strcmp(a, "--textfile") ||
			   !strcmp(a, "--flows") || !strcmp(a, "-i")))
			return sj_err("%s needs a value; %s", a, EXPORT_USAGE);
		if (!strcmp(a, "--listen")) {
			listen = v;
		} else if (!strcmp(a, "--textfile")) {
			textfile = v;
		} else if (!strcmp(a, "--flows")) {
			if (sj_parse_u32(v, &c.nflows) || c.nflows > EXPORT_FLOWS_MAX)
				return sj_err("--flows takes 0..%d (per-flow series for that many flows of each attachment; default 0, none), not \"%s\"",
					      EXPORT_FLOWS_MAX, v);
		} else if (!strcmp(a, "-i")) {
			if (obs_parse_seconds(v, &every_ns))
				return -1;
		} else {
			return sj_err("unexpected \"%s\"; %s", a, EXPORT_USAGE);
		}
		i++;
	}
	if (!!listen == !!textfile)
		return sj_err("export needs one of --listen ADDR:PORT or --textfile PATH; %s",
			      EXPORT_USAGE);
	if (listen && every_ns)
		return sj_err("-i goes with --textfile: over HTTP each scrape reads afresh");
	if (obs_filter_init(&c.filter, NULL, false))
		return -1;
	if (listen)
		return serve(&c, listen, allow_remote);
	return textfile_loop(&c, textfile, every_ns);
}
