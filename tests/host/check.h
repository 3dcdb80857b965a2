/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check.h - the smallest unit-test harness that prints KTAP.
 *
 * A host test file #includes the kernel .c files it tests (a unity build,
 * so no Makefile list has to know about them), defines TEST()s and calls
 * RUN() for each from main(), then returns check_done().
 */
#ifndef RONX_CHECK_H
#define RONX_CHECK_H
#include <stdio.h>

static int check_failed, check_count, check_any_failed;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: CHECK(%s) failed\n",			\
		       __FILE__, __LINE__, #cond);			\
		check_failed = 1;					\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		printf("# %s:%d: %s == %s failed: %lld != %lld\n",	\
		       __FILE__, __LINE__, #a, #b, _a, _b);		\
		check_failed = 1;					\
	}								\
} while (0)

#define TEST(name) static void name(void)

static void check_run(const char *name, void (*fn)(void))
{
	if (check_count == 0)
		printf("KTAP version 1\n");
	check_failed = 0;
	fn();
	printf("%sok %d %s\n", check_failed ? "not " : "", ++check_count, name);
	check_any_failed |= check_failed;
}
#define RUN(name) check_run(#name, name)

static int check_done(void)
{
	printf("1..%d\n", check_count);
	return check_any_failed;
}
#endif
