/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * In-kernel self-tests that print KTAP (the format of Linux's KUnit).
 *
 *	KTEST(suite, name)
 *	{
 *		KT_EXPECT(t, x == 1, "x is %d", x);
 *		if (!nx_enabled)
 *			return kt_skip(t, "CPU has no NX");
 *	}
 *
 * Shell: "selftest" runs every suite, "selftest SUITE" one of them.
 */
#ifndef RONX_KTEST_H
#define RONX_KTEST_H
#include <stdbool.h>
#include <ronx/compiler.h>

struct kt {
	bool failed;
	const char *skip_reason;
};

struct ktest {
	const char *suite;
	const char *name;
	void (*fn)(struct kt *t);
	const char *file;	/* tests run in source order: file, then line */
	int line;
};

#define KTEST(suite_, name_)						\
	static void kt_##suite_##_##name_(struct kt *t);		\
	static const struct ktest __ktest_##suite_##_##name_		\
	__attribute__((used, section(".ktests"), aligned(4))) =	\
	{ #suite_, #name_, kt_##suite_##_##name_, __FILE__, __LINE__ };	\
	static void kt_##suite_##_##name_(struct kt *t)

void kt_fail(struct kt *t, const char *file, int line, const char *fmt, ...) __printf(4, 5);

#define KT_EXPECT(t, cond, ...) do {					\
	if (!(cond))							\
		kt_fail((t), __FILE__, __LINE__, __VA_ARGS__);		\
} while (0)

static inline void kt_skip(struct kt *t, const char *reason)
{
	t->skip_reason = reason;
}

int ktest_run(const char *suite);
#endif
