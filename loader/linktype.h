/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Where a device's frames begin, from its link type (ARPHRD_*): what the
 * programs' cfg_link_layer says (enum sj_link_layer, include/parse.h). */
#ifndef SJ_LINKTYPE_H
#define SJ_LINKTYPE_H

#include <linux/types.h>

/* enum sj_link_layer for a link type, or -1 for one sojourn cannot parse */
int sj_linktype_layer(unsigned int arphrd);
/* "ether", "none", "ppp", ...; NULL for a type without a name here */
const char *sj_linktype_name(unsigned int arphrd);

/* Asks the kernel for the device's link type (link.c, the current
 * network namespace) and sets *layer; refuses in one line, naming the
 * type, a device whose frames sojourn cannot parse. */
int sj_linktype_get(__u32 ifindex, const char *dev, __u32 *layer);

#endif
