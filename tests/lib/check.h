/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one way the C tests check.  CHECK(cond, fmt, ...) is one check: it
 * is counted, and when cond is false so is the failure, whose message is
 * kept for the case under way.
 *
 *   check_case(name)   ends a case: "PASS name", or "FAIL name: why" with
 *                      every failed check's message; 1 when it failed
 *   check_case_quiet() ends a case without a line, for a test that prints
 *                      its own (the corpus, thousands of frames a group):
 *                      1 when it failed, its messages in check_why until
 *                      the next check
 *   check_exit(test)   ends the test: what no case took, then "PASS test
 *                      (n checks)" or "FAIL test: f of n checks failed";
 *                      the exit status, 0 or 1
 */
#ifndef SJ_TEST_CHECK_H
#define SJ_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static long check_count;	/* checks made */
static long check_fails;	/* of them failed */
static char check_why[4096];	/* the failures of the case under way */
static int check_stale;		/* check_why is an ended case's */

__attribute__((format(printf, 1, 2), unused))
static void check_failed(const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (check_stale)
		check_why[0] = 0;
	check_stale = 0;
	n = strlen(check_why);
	check_fails++;
	if (n && n < sizeof(check_why))
		n += snprintf(check_why + n, sizeof(check_why) - n, "; ");
	if (n >= sizeof(check_why))
		return;
	va_start(ap, fmt);
	vsnprintf(check_why + n, sizeof(check_why) - n, fmt, ap);
	va_end(ap);
}

#define CHECK(cond, ...) do {						\
	check_count++;							\
	if (!(cond))							\
		check_failed(__VA_ARGS__);				\
} while (0)

__attribute__((unused))
static int check_case_quiet(void)
{
	int failed = !check_stale && check_why[0];

	check_stale = 1;
	return failed;
}

__attribute__((unused))
static int check_case(const char *name)
{
	int failed = check_case_quiet();

	if (failed)
		printf("FAIL %s: %s\n", name, check_why);
	else
		printf("PASS %s\n", name);
	return failed;
}

__attribute__((unused))
static int check_exit(const char *test)
{
	if (check_case_quiet())
		printf("FAIL %s: %s\n", test, check_why);
	if (check_fails)
		printf("FAIL %s: %ld of %ld checks failed\n", test, check_fails,
		       check_count);
	else
		printf("PASS %s (%ld checks)\n", test, check_count);
	return check_fails ? 1 : 0;
}

#endif
