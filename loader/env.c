// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include "common.h"

#define SJ_BTF_VMLINUX "/sys/kernel/btf/vmlinux"

int sj_batch_line;

int sj_err(const char *fmt, ...)
{
	va_list ap;

	fputs("sojourn: ", stderr);
	if (sj_batch_line)
		fprintf(stderr, "line %d: ", sj_batch_line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

void sj_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1U << (cap % 32));
}

/* Loading programs and changing a device's tc hooks need CAP_BPF (or
 * CAP_SYS_ADMIN before 5.8), CAP_NET_ADMIN, and CAP_PERFMON for the
 * tracepoint; CAP_SYS_ADMIN covers all of them. */
int sj_check_privileges(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	bool bpf, perfmon;

	if (syscall(SYS_capget, &hdr, data))
		return sj_err("cannot read capabilities: %s", strerror(errno));
	bpf = has_cap(data, CAP_BPF) || has_cap(data, CAP_SYS_ADMIN);
	perfmon = has_cap(data, CAP_PERFMON) || has_cap(data, CAP_SYS_ADMIN);
	if (!bpf || !perfmon || !has_cap(data, CAP_NET_ADMIN))
		return sj_err("needs CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN (run as root)");
	return 0;
}

int sj_check_bpffs(void)
{
	struct statfs st;

	if (statfs("/sys/fs/bpf", &st) || st.f_type != BPF_FS_MAGIC)
		return sj_err("no BPF filesystem at /sys/fs/bpf (mount it: mount -t bpf bpf /sys/fs/bpf)");
	return 0;
}

int sj_check_btf(void)
{
	if (access(SJ_BTF_VMLINUX, R_OK))
		return sj_err("kernel has no BTF (%s missing): needs CONFIG_DEBUG_INFO_BTF=y",
			      SJ_BTF_VMLINUX);
	return 0;
}

int sj_check_all(void)
{
	if (sj_check_privileges() || sj_check_bpffs() || sj_check_btf())
		return -1;
	return 0;
}
