// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the daemon keeps: the pins, which are the attachments themselves,
 * and one small file naming those it made, so that a restarted daemon
 * adopts them and leaves alone what an operator attached by hand.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "daemon.h"

bool pinned(__u64 cookie, __u32 ifindex, int dir)
{
	struct sj_pins p;

	sj_pins_for(&p, cookie, ifindex, dir);
	return sj_pins_exist(&p);
}

int pin_lock(void)
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
int remove_pins(__u64 cookie, __u32 ifindex)
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

void state_write(struct daemon *dm)
{
	char tmp[SJ_PATH_MAX + 8], *slash, path[SJ_PATH_MAX];
	FILE *f;
	int i, dir;

	snprintf(path, sizeof(path), "%s", dm->cfg.state_file);
	slash = strrchr(path, '/');
	if (slash && slash != path) {
		*slash = '\0';
		mkdir(path, 0755);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", dm->cfg.state_file);
	f = fopen(tmp, "we");
	if (!f) {
		logd(dm, LOG_ERR, NULL, "cannot write %s: %s", tmp, strerror(errno));
		return;
	}
	fprintf(f, "# attachments sojourn daemon made: netns cookie-ifindex-direction\n");
	for (i = 0; i < dm->ndevs; i++)
		for (dir = 0; dir < 2; dir++)
			if (dm->devs[i].ours & (1u << dir))
				fprintf(f, "%llu-%u-%s\n",
					(unsigned long long)dm->devs[i].cookie,
					dm->devs[i].ifindex, sj_dir_name(dir));
	if (fclose(f) || rename(tmp, dm->cfg.state_file))
		logd(dm, LOG_ERR, NULL, "cannot write %s: %s", dm->cfg.state_file,
		     strerror(errno));
	dm->state_dirty = false;
}

void state_read(struct daemon *dm)
{
	char line[128];
	FILE *f = fopen(dm->cfg.state_file, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char **a;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		a = realloc(dm->adopt, (dm->nadopt + 1) * sizeof(*a));
		if (!a)
			break;
		dm->adopt = a;
		dm->adopt[dm->nadopt++] = strdup(line);
	}
	fclose(f);
}

/* the state file named it: a previous daemon attached it */
bool adoptable(const struct daemon *dm, const struct dev *d, int dir)
{
	char name[64];
	int i;

	snprintf(name, sizeof(name), "%llu-%u-%s", (unsigned long long)d->cookie,
		 d->ifindex, sj_dir_name(dir));
	for (i = 0; i < dm->nadopt; i++)
		if (dm->adopt[i] && !strcmp(dm->adopt[i], name))
			return true;
	return false;
}
