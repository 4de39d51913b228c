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
 * Commands per CNI spec 1.1: ADD, DEL (idempotent), CHECK, GC, STATUS,
 * VERSION; errors are the spec's error object on stdout with its codes.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cni.h"

/* The versions whose configuration and result we read: 0.3.0 brought
 * chaining (prevResult), older ones have none.  A later 1.x is read as
 * 1.1.0 (the spec keeps a major version compatible both ways). */
static const char *const supported[] = { "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0" };
#define NEWEST "1.1.0"

/* what errors and results carry: the request's version once it is known good */
static const char *cni_version = NEWEST;

static const char *code_text(int code)
{
	switch (code) {
	case ERR_VERSION:	return "Incompatible CNI version";
	case ERR_ENV:		return "Invalid necessary environment variables";
	case ERR_IO:		return "I/O failure";
	case ERR_DECODE:	return "Failed to decode content";
	case ERR_CONFIG:	return "Invalid network config";
	case ERR_UNAVAILABLE:	return "The plugin is not available";
	case ERR_SOJOURN:	return "The sojourn command failed";
	case ERR_CHECK:		return "The attachment is not as configured";
	case ERR_NO_HOST:	return "No host veth found for the pod's interface";
	}
	return "Error";
}

void fail(int code, const char *details, const char *fmt, ...)
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
	json_object_object_add(o, "details",
			       json_object_new_string(details ? details : code_text(code)));
	printf("%s\n", json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	fprintf(stderr, "sojourn-cni: %s\n", msg);
	exit(1);
}

/* ---- versions ---- */

/* "MAJOR.MINOR.PATCH", digits only; false for anything else */
static bool version_parse(const char *s, int v[3])
{
	const char *p = s;

	for (int i = 0; i < 3; i++) {
		char *end;

		if (!isdigit((unsigned char)*p))
			return false;
		errno = 0;
		v[i] = strtol(p, &end, 10);
		if (errno || v[i] < 0 || *end != (i < 2 ? '.' : '\0'))
			return false;
		p = end + (i < 2);
	}
	return true;
}

static bool version_supported(const char *s)
{
	int v[3];

	if (!s || !version_parse(s, v))
		return false;
	if (v[0] == 1)
		return true;
	for (size_t i = 0; i < sizeof(supported) / sizeof(*supported); i++)
		if (!strcmp(s, supported[i]))
			return true;
	return false;
}

/* s >= want; both already checked */
static bool version_at_least(const char *s, const char *want)
{
	int a[3], b[3];

	version_parse(s, a);
	version_parse(want, b);
	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] > b[i];
	return true;
}

/* ---- the request: environment and configuration ---- */

/* Spec: a container ID starts alphanumeric, then alphanumerics, _ . - */
static bool container_id_valid(const char *id)
{
	if (!isalnum((unsigned char)id[0]))
		return false;
	for (const char *p = id; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
			return false;
	return true;
}

/* What the kernel takes as an interface name */
static bool ifname_valid(const char *n)
{
	if (!*n || strlen(n) >= IF_NAMESIZE || !strcmp(n, ".") || !strcmp(n, ".."))
		return false;
	for (const char *p = n; *p; p++)
		if (*p == '/' || *p == ':' || isspace((unsigned char)*p))
			return false;
	return true;
}

/* The variables the spec makes each command require; all missing ones
 * are named at once. */
static void env_check(const char *cmd)
{
	static const struct { const char *var, *cmds; } required[] = {
		{ "CNI_CONTAINERID",	" ADD CHECK DEL " },
		{ "CNI_NETNS",		" ADD CHECK " },
		{ "CNI_IFNAME",		" ADD CHECK DEL " },
		{ "CNI_PATH",		" GC " },
	};
	char missing[128] = "", key[16];
	const char *v;

	snprintf(key, sizeof(key), " %s ", cmd);
	for (size_t i = 0; i < sizeof(required) / sizeof(*required); i++) {
		v = getenv(required[i].var);
		if (strstr(required[i].cmds, key) && (!v || !*v))
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 "%s%s", missing[0] ? "," : "", required[i].var);
	}
	if (missing[0])
		die(ERR_ENV, "required environment variables missing for %s: %s", cmd, missing);
	v = getenv("CNI_CONTAINERID");
	if (v && *v && !container_id_valid(v))
		die(ERR_ENV, "CNI_CONTAINERID \"%s\": must start with a letter or digit, then letters, digits, _ . -",
		    v);
	v = getenv("CNI_IFNAME");
	if (v && *v && !ifname_valid(v))
		die(ERR_ENV, "CNI_IFNAME \"%s\" is not an interface name", v);
}

static char *read_stdin(size_t *n)
{
	size_t cap = 1 << 16;
	char *buf = malloc(cap);
	size_t r;

	*n = 0;
	while (buf && (r = fread(buf + *n, 1, cap - 1 - *n, stdin)) > 0) {
		*n += r;
		if (*n + 1 == cap && !(buf = realloc(buf, cap *= 2)))
			break;
	}
	if (!buf)
		die(ERR_IO, "out of memory reading the network configuration");
	if (ferror(stdin))
		die(ERR_IO, "cannot read the network configuration on stdin: %s", strerror(errno));
	buf[*n] = '\0';
	return buf;
}

/* The configuration as JSON, its cniVersion checked; NULL only for VERSION's
 * optional input (lenient = true). */
static struct json_object *config_parse(bool lenient)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root, *v;
	size_t n;
	char *buf = read_stdin(&n);
	const char *ver;

	const char *why = "not a JSON object";
	size_t end;

	root = json_tokener_parse_ex(tok, buf, n);
	end = json_tokener_get_parse_end(tok);
	if (!root && json_tokener_get_error(tok) == json_tokener_continue)
		why = n ? "the JSON ends before it is complete" : "empty";
	else if (!root && n)
		why = json_tokener_error_desc(json_tokener_get_error(tok));
	else if (!root)
		why = "empty";
	else if (end < n && buf[end + strspn(buf + end, " \t\r\n")]) {
		why = "data after the JSON object";
		root = NULL;
	}
	if (!root || !json_object_is_type(root, json_type_object)) {
		if (lenient)
			return NULL;
		die(ERR_DECODE, "network configuration on stdin: %s", why);
	}
	json_tokener_free(tok);
	free(buf);
	ver = json_object_object_get_ex(root, "cniVersion", &v) &&
	      json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
	if (version_supported(ver))
		cni_version = ver;
	else if (!lenient)
		fail(ERR_VERSION, "supported: 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0 (and later 1.x)",
		     "cniVersion %s%s%s is not supported", ver ? "\"" : "", ver ? ver : "missing",
		     ver ? "\"" : "");
	return root;
}

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

static void conf_read(struct conf *c, struct json_object *root)
{
	struct json_object *rc = NULL, *bw = NULL, *v;
	static char tbuf[2][32], fbuf[24];
	unsigned long long flows;

	c->root = root;
	if (!json_object_object_get_ex(root, "name", &v) ||
	    !json_object_is_type(v, json_type_string) || !*json_object_get_string(v))
		die(ERR_CONFIG, "the network configuration has no name");
	c->name = json_object_get_string(v);
	if (json_object_object_get_ex(root, "prevResult", &c->prev) &&
	    !json_object_is_type(c->prev, json_type_object))
		die(ERR_CONFIG, "prevResult is not an object");
	/* runtimeConfig wins over the static keys, as with the bandwidth plugin */
	if (json_object_object_get_ex(root, "runtimeConfig", &rc))
		json_object_object_get_ex(rc, "bandwidth", &bw);
	c->in_rate = rate_of(bw, "ingressRate");
	c->eg_rate = rate_of(bw, "egressRate");
	if (!c->in_rate)
		c->in_rate = rate_of(root, "ingressRate");
	if (!c->eg_rate)
		c->eg_rate = rate_of(root, "egressRate");
	/* none: looked for when first run (node.c) */
	if (json_object_object_get_ex(root, "sojourn", &v))
		c->sojourn = json_object_get_string(v);
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "interval" : "target";

		if (!json_object_object_get_ex(root, key, &v))
			continue;
		snprintf(tbuf[i], sizeof(tbuf[i]), "%s", json_object_get_string(v));
		c->extra[c->nextra++] = key;
		c->extra[c->nextra++] = tbuf[i];
	}
	if (json_object_object_get_ex(root, "ecn", &v))
		c->extra[c->nextra++] = json_object_get_boolean(v) ? "ecn" : "noecn";
	/* flow table entries per direction: a pod's veth carries hundreds of
	 * flows where a host NIC carries tens of thousands, and each entry
	 * is preallocated (384 bytes: 24 MiB at the command's 65536) */
	flows = CNI_FLOWS_DEFAULT;
	if (json_object_object_get_ex(root, "flows", &v)) {
		if (!json_object_is_type(v, json_type_int) ||
		    json_object_get_int64(v) <= 0 || json_object_get_int64(v) > UINT32_MAX)
			die(ERR_CONFIG, "flows must be a positive whole number of flow table entries");
		flows = json_object_get_int64(v);
	}
	snprintf(fbuf, sizeof(fbuf), "%llu", flows);
	c->extra[c->nextra++] = "flows";
	c->extra[c->nextra++] = fbuf;
}

/* ---- running sojourn ---- */

/* for an error message: the lines of out joined, "sojourn: " left out */
char *oneline(char *out)
{
	char *s;

	while ((s = strstr(out, "sojourn: ")))
		memmove(s, s + 9, strlen(s + 9) + 1);
	while ((s = strchr(out, '\n')))
		*s = s[1] ? ';' : '\0';
	return out;
}

/* Runs sojourn, with input (may be NULL) on its stdin; what it printed,
 * both streams, in out (the start of it: the rest is read and dropped, so
 * a long answer cannot block it). */
static int run_sojourn(const struct conf *c, char *out, size_t len,
		       const char **args, const char *input)
{
	const char *argv[32];
	int p[2], in[2] = { -1, -1 }, n = 0, status;
	char sink[4096];
	size_t got = 0;
	ssize_t r;
	const char *path = sojourn_path(c);
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int err;

	argv[n++] = path;
	while (*args && n < 30)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (pipe2(p, O_CLOEXEC) || (input && pipe2(in, O_CLOEXEC)))
		die(ERR_IO, "pipe: %s", strerror(errno));
	/* posix_spawn, not fork: glibc starts the child with CLONE_VM|CLONE_VFORK,
	 * so our page tables are not copied for a child that only execs (the
	 * plugin runs one sojourn per ADD; the dup2s clear O_CLOEXEC) */
	if (posix_spawn_file_actions_init(&fa) ||
	    (input && posix_spawn_file_actions_adddup2(&fa, in[0], 0)) ||
	    posix_spawn_file_actions_adddup2(&fa, p[1], 1) ||
	    posix_spawn_file_actions_adddup2(&fa, p[1], 2))
		die(ERR_IO, "posix_spawn_file_actions: out of memory");
	err = posix_spawn(&pid, path, &fa, NULL, (char **)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		/* as the command's own error would come: in out, and failed */
		snprintf(out, len, "cannot run %s: %s\n", path, strerror(err));
		close(p[0]);
		close(p[1]);
		if (input) {
			close(in[0]);
			close(in[1]);
		}
		return -1;
	}
	close(p[1]);
	if (input) {
		/* a few lines: they fit the pipe, written before any read */
		close(in[0]);
		if (write(in[1], input, strlen(input)) < 0)
			got = 0;	/* the child's error says what went wrong */
		close(in[1]);
	}
	while ((r = got + 1 < len ? read(p[0], out + got, len - 1 - got)
				  : read(p[0], sink, sizeof(sink))) > 0 ||
	       (r < 0 && errno == EINTR))
		if (r > 0 && got + 1 < len)
			got += r;
	out[got] = '\0';
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int sojourn(const struct conf *c, char *out, size_t len, const char **args)
{
	return run_sojourn(c, out, len, args, NULL);
}

/* Several commands in one sojourn (its -batch, one a line): a pod's two
 * directions cost one exec, not two */
int sojourn_batch(const struct conf *c, char *out, size_t len, const char *lines)
{
	const char *args[] = { "-batch", "-", NULL };

	return run_sojourn(c, out, len, args, lines);
}

/* The replace line of one direction, appended to buf */
static void rate_line(const struct conf *c, const char *host, const char *dir,
		      unsigned long long bits, char *buf, size_t len)
{
	size_t n = strlen(buf);
	int i;

	/* replace: attach, or retune in place; the command knows how
	 * attachments are kept, the plugin does not */
	n += snprintf(buf + n, len - n, "replace %s %s rate %llubit", host, dir, bits);
	for (i = 0; i < c->nextra && n < len; i++)
		n += snprintf(buf + n, len - n, " %s", c->extra[i]);
	if (n < len)
		snprintf(buf + n, len - n, "\n");
}

/* must: the device is there, so a failure is a real one */
static void take_off(const struct conf *c, const char *host, const char *dir,
		     bool must)
{
	const char *args[] = { "detach", host, dir, NULL };
	char out[512];

	if (sojourn(c, out, sizeof(out), args) && must)
		die(ERR_SOJOURN, "detach %s %s: %s", host, dir, oneline(out));
}

/* ---- the commands ---- */

/* The result is prevResult as it came, only cniVersion set to ours */
static void print_result(const struct conf *c)
{
	struct json_object *res = c->prev ? c->prev : json_object_new_object();

	json_object_object_add(res, "cniVersion", json_object_new_string(cni_version));
	printf("%s\n", json_object_to_json_string_ext(res,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

static void cmd_add(const struct conf *c, const char *netns, const char *ifname,
		    const char *id)
{
	struct state st = { .egress = c->in_rate, .ingress = c->eg_rate };
	char err[1024], lines[1024];

	if (!c->prev)
		die(ERR_CONFIG, "no prevResult: sojourn-cni runs chained after the main plugin");
	if (c->in_rate || c->eg_rate) {
		if (host_veth(c, netns, ifname, st.host, &st.ifindex))
			die(ERR_NO_HOST, "cannot find %s in %s", ifname, netns);
		snprintf(st.network, sizeof(st.network), "%s", c->name);
		st.netns_cookie = netns_cookie();
		pod_of_args(&st);
		if (bpffs_ensure(err, sizeof(err)))
			die(ERR_SOJOURN, "%s", err);
		/* recorded first: a DEL after a killed ADD still finds it */
		state_save(id, ifname, &st);
		lines[0] = '\0';
		if (c->in_rate)
			rate_line(c, st.host, "egress", c->in_rate, lines, sizeof(lines));
		if (c->eg_rate)
			rate_line(c, st.host, "ingress", c->eg_rate, lines, sizeof(lines));
		if (sojourn_batch(c, err, sizeof(err), lines)) {
			/* the batch stops at its first failing line: with both
			 * directions asked, a failed line 2 left egress on */
			bool second = strstr(err, "line 2: ") != NULL;

			if (second)
				take_off(c, st.host, "egress", false);
			die(ERR_SOJOURN, "%s %s: %s", st.host,
			    second || !c->in_rate ? "ingress" : "egress", oneline(err));
		}
	}
	print_result(c);
}

/* DEL undoes what ADD recorded, and nothing else: no record, nothing of
 * ours to take off (ADD records before it attaches). */
static void cmd_del(const struct conf *c, const char *netns, const char *ifname,
		    const char *id)
{
	char err[1024];
	struct state st;
	int ifindex;

	if (state_load(id, ifname, &st))
		return;
	if (!st.ifindex) {
		/* an older plugin's record, the name alone: both directions,
		 * on the pod's veth if the pod is there, else by that name
		 * unless another device has it now */
		char host[IF_NAMESIZE];

		if (!host_veth(c, netns, ifname, host, &ifindex)) {
			take_off(c, host, "egress", true);
			take_off(c, host, "ingress", true);
		} else if (st.host[0] && !if_nametoindex(st.host)) {
			take_off(c, st.host, "egress", false);
			take_off(c, st.host, "ingress", false);
		}
	} else {
		int r = undo(c, &st, true, err, sizeof(err));

		if (r < 0)
			fail(ERR_SOJOURN, NULL, "%s", err);
		if (r == 1)	/* the pod and its veth are gone: their pins */
			sweep_dead_pins(c, err, sizeof(err));
	}
	state_drop(id, ifname);
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
		/* show -j's rate is bytes per second, as tc -j prints it */
		if (!json_object_object_get_ex(e, "rate", &v) ||
		    !json_object_is_type(v, json_type_int) ||
		    (unsigned long long)json_object_get_int64(v) * 8 != want)
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
	if (host_veth(c, netns, ifname, host, &ifindex))
		die(ERR_CHECK, "cannot find %s in %s", ifname, netns);
	check_dir(c, host, "egress", c->in_rate);
	check_dir(c, host, "ingress", c->eg_rate);
}

/* VERSION: its input (a cniVersion) is optional; echoed when we speak it */
static void cmd_version(void)
{
	struct json_object *o = json_object_new_object(), *list = json_object_new_array();

	if (!isatty(0))
		config_parse(true);
	for (size_t i = 0; i < sizeof(supported) / sizeof(*supported); i++)
		json_object_array_add(list, json_object_new_string(supported[i]));
	json_object_object_add(o, "cniVersion", json_object_new_string(cni_version));
	json_object_object_add(o, "supportedVersions", list);
	printf("%s\n", json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

int main(void)
{
	const char *cmd = getenv("CNI_COMMAND"), *netns = getenv("CNI_NETNS");
	const char *ifname = getenv("CNI_IFNAME"), *id = getenv("CNI_CONTAINERID");
	static const char *const commands[] = { "ADD", "DEL", "CHECK", "GC", "STATUS" };
	struct conf c = {};
	size_t i;

	if (!cmd || !*cmd)
		die(ERR_ENV, "CNI_COMMAND is not set: run by a container runtime");
	if (!strcmp(cmd, "VERSION")) {
		cmd_version();
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(*commands) && strcmp(cmd, commands[i]); i++)
		;
	if (i == sizeof(commands) / sizeof(*commands))
		die(ERR_ENV, "CNI_COMMAND %s is none of ADD, DEL, CHECK, GC, STATUS, VERSION", cmd);
	env_check(cmd);
	conf_read(&c, config_parse(false));
	/* what each command's first spec version allows, as libcni's skel does */
	if (!strcmp(cmd, "CHECK") && !version_at_least(cni_version, "0.4.0"))
		die(ERR_VERSION, "CHECK needs cniVersion 0.4.0 or later, not %s", cni_version);
	if ((!strcmp(cmd, "GC") || !strcmp(cmd, "STATUS")) &&
	    !version_at_least(cni_version, "1.1.0"))
		die(ERR_VERSION, "%s needs cniVersion 1.1.0 or later, not %s", cmd, cni_version);

	if (!strcmp(cmd, "ADD"))
		cmd_add(&c, netns, ifname, id);
	else if (!strcmp(cmd, "DEL"))
		cmd_del(&c, netns, ifname, id);
	else if (!strcmp(cmd, "CHECK"))
		cmd_check(&c, netns, ifname);
	else if (!strcmp(cmd, "GC"))
		cmd_gc(&c);
	else
		cmd_status(&c);
	return 0;
}
