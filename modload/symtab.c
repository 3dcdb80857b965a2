// SPDX-License-Identifier: GPL-2.0-only
/*
 * symtab.c - sort an export table once, then find names in O(log n).
 */
#include <stddef.h>
#include <ronx/string.h>
#include "symtab.h"

static int cmp(const struct kernel_symbol *a, const struct kernel_symbol *b)
{
	return strcmp(a->name, b->name);
}

static void swap(struct kernel_symbol *a, struct kernel_symbol *b)
{
	struct kernel_symbol t = *a;

	*a = *b;
	*b = t;
}

/* Move t[i] down the max-heap t[0..n) until both children are smaller. */
static void sift_down(struct kernel_symbol *t, size_t i, size_t n)
{
	for (;;) {
		size_t big = i, l = 2 * i + 1, r = l + 1;

		if (l < n && cmp(&t[l], &t[big]) > 0)
			big = l;
		if (r < n && cmp(&t[r], &t[big]) > 0)
			big = r;
		if (big == i)
			return;
		swap(&t[i], &t[big]);
		i = big;
	}
}

void sort_symbols(struct kernel_symbol *start, struct kernel_symbol *stop)
{
	size_t n = stop - start, i;

	for (i = n / 2; i-- > 0;)
		sift_down(start, i, n);
	for (i = n; i-- > 1;) {
		swap(&start[0], &start[i]);
		sift_down(start, 0, i);
	}
}

const struct kernel_symbol *lookup_symbol(const struct kernel_symbol *start,
					  const struct kernel_symbol *stop,
					  const char *name)
{
	size_t lo = 0, hi = stop - start;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, start[mid].name);

		if (c == 0)
			return &start[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const struct kernel_symbol *find_duplicate_symbol(const struct kernel_symbol *start,
						  const struct kernel_symbol *stop)
{
	const struct kernel_symbol *s;

	for (s = start; s + 1 < stop; s++)
		if (cmp(s, s + 1) == 0)
			return s;
	return NULL;
}
