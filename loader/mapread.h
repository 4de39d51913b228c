/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SOJOURN_MAPREAD_H
#define SOJOURN_MAPREAD_H

#include <stddef.h>

/* One entry: 0 to go on, > 0 to stop there, < 0 (-errno) to fail.  It may
 * delete the entry it is given, and no other. */
typedef int (*sj_map_entry_fn)(const void *key, const void *val, void *ctx);

/* Every entry of hash map fd (keys of key_size bytes, values of val_size)
 * to fn: 0 when all were read or fn stopped, else -errno, fn's own or the
 * kernel's (fn may then have seen some of the entries) */
int sj_map_each(int fd, size_t key_size, size_t val_size, sj_map_entry_fn fn,
		void *ctx);

#endif
