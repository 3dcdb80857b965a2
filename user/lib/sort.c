// SPDX-License-Identifier: GPL-2.0-only
/* Heapsort of 32-bit counts, for the benchmarks' medians: no recursion,
 * no extra memory, n log n even on the 100,000 samples of a run. */
#include <ulib.h>

static void sift_down(uint32_t *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		uint32_t t;

		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

void sort_u32(uint32_t *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n; end > 1; end--) {
		uint32_t t = v[0];

		v[0] = v[end - 1];
		v[end - 1] = t;
		sift_down(v, 0, end - 1);
	}
}
