/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* CHECK(cond, fmt, ...): count and print a failure, keep going. */
#ifndef SJ_TEST_CHECK_H
#define SJ_TEST_CHECK_H

#include <stdio.h>

static int fails;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fails++;						\
		printf("FAIL %s:%d: ", __func__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

#endif
