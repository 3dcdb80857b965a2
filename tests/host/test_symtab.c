// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_symtab.c - EXPORT_SYMBOL() entries, the one-time sort and the
 * bisection lookup.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* symtab.c's strcmp() calls are counted, to see that lookups bisect */
static int comparisons;
int counting_strcmp(const char *a, const char *b)
{
	comparisons++;
	return strcmp(a, b);
}
#define strcmp counting_strcmp
#include "../../modload/symtab.c"
#undef strcmp
#include "check.h"

int answer = 42;
EXPORT_SYMBOL(answer);
int add_one(int x) { return x + 1; }
EXPORT_SYMBOL(add_one);
const char banner[] = "ronx";
EXPORT_SYMBOL(banner);

/* The host linker makes these for a section named like a C identifier. */
extern const struct kernel_symbol __start___ksymtab[], __stop___ksymtab[];

static bool sorted(const struct kernel_symbol *t, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (strcmp(t[i - 1].name, t[i].name) > 0)
			return false;
	return true;
}

TEST(export_symbol_makes_ksymtab_entries)
{
	size_t n = __stop___ksymtab - __start___ksymtab;
	struct kernel_symbol copy[3];
	const struct kernel_symbol *s;

	CHECK_EQ(n, 3);
	if (n != 3)
		return;
	/* the table is read-only on the host; the kernel sorts it before that */
	memcpy(copy, __start___ksymtab, sizeof(copy));
	sort_symbols(copy, copy + 3);
	CHECK(sorted(copy, 3));
	s = lookup_symbol(copy, copy + 3, "answer");
	CHECK(s && s->value == (unsigned long)&answer && *(int *)s->value == 42);
	s = lookup_symbol(copy, copy + 3, "add_one");
	CHECK(s && ((int (*)(int))s->value)(1) == 2);
	s = lookup_symbol(copy, copy + 3, "banner");
	CHECK(s && s->value == (unsigned long)banner);
	CHECK(lookup_symbol(copy, copy + 3, "nonesuch") == NULL);
	CHECK(find_duplicate_symbol(copy, copy + 3) == NULL);
}

static char names[600][12];

/* Tables of every size up to 600, in shuffled order, all found after sorting. */
TEST(sort_then_find_every_name)
{
	static struct kernel_symbol t[600];
	uint32_t seed = 99;
	size_t n, i;

	for (i = 0; i < 600; i++)
		snprintf(names[i], sizeof(names[i]), "sym%05zu", i * 7 % 600);
	for (n = 0; n <= 600; n += (n < 20 ? 1 : 37)) {
		for (i = 0; i < n; i++) {
			t[i].name = names[i];
			t[i].value = i;
		}
		for (i = n; i > 1; i--) {	/* shuffle */
			struct kernel_symbol x = t[i - 1];
			size_t j;

			seed = seed * 1103515245 + 12345;
			j = (seed >> 8) % i;
			t[i - 1] = t[j];
			t[j] = x;
		}
		sort_symbols(t, t + n);
		CHECK(sorted(t, n));
		for (i = 0; i < n; i++) {
			const struct kernel_symbol *s = lookup_symbol(t, t + n, names[i]);

			CHECK(s && s->value == i);
		}
		CHECK(lookup_symbol(t, t + n, "sym") == NULL);
		CHECK(lookup_symbol(t, t + n, "zzz") == NULL);
		CHECK(lookup_symbol(t, t + n, "") == NULL);
		CHECK(find_duplicate_symbol(t, t + n) == NULL);
		if (check_failed) {
			printf("# table of %zu\n", n);
			return;
		}
	}
}

TEST(duplicates_are_found)
{
	struct kernel_symbol t[] = {
		{ 1, "printk" }, { 2, "memcpy" }, { 3, "printk" }, { 4, "abc" },
	};
	const struct kernel_symbol *d;

	sort_symbols(t, t + 4);
	d = find_duplicate_symbol(t, t + 4);
	CHECK(d && strcmp(d->name, "printk") == 0);
	CHECK(lookup_symbol(t, t + 4, "printk") != NULL);
	CHECK(lookup_symbol(t, t, "printk") == NULL);
}

/* Bisection: a lookup in 600 entries compares at most 10 names. */
TEST(lookup_is_logarithmic)
{
	static struct kernel_symbol t[600];
	size_t i;

	for (i = 0; i < 600; i++) {
		t[i].name = names[i];
		t[i].value = i;
	}
	sort_symbols(t, t + 600);
	for (i = 0; i < 600; i++) {
		comparisons = 0;
		CHECK(lookup_symbol(t, t + 600, names[i]) != NULL);
		CHECK(comparisons <= 10);
	}
	comparisons = 0;
	CHECK(lookup_symbol(t, t + 600, "missing") == NULL);
	CHECK(comparisons <= 10);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	RUN(export_symbol_makes_ksymtab_entries);
	RUN(sort_then_find_every_name);
	RUN(duplicates_are_found);
	RUN(lookup_is_logarithmic);
	return check_done();
}
