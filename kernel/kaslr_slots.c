// SPDX-License-Identifier: GPL-2.0-only
/*
 * KASLR's choice, as pure logic (include/ronx/kaslr.h): whether the boot
 * line asks for it, and the slots, the aligned bases at which the whole
 * image fits in one RAM entry of the memory map, inside [lo, hi),
 * touching no busy range. Pure, so the host tests it
 * (tests/host/test_kaslr.c) and the boot can call it before CPU setup.
 */
#include <ronx/kaslr.h>

#define ALIGN_UP64(x, a)	(((x) + (a) - 1) / (a) * (a))

/* The end of the first busy range that [b, b + size) overlaps, or 0. */
static uint64_t busy_end(const struct kaslr_mem *m, uint64_t b)
{
	uint64_t end = 0;

	for (int i = 0; i < m->nr_busy; i++)
		if (b < m->busy[i].end && m->busy[i].start < b + m->size && m->busy[i].end > end)
			end = m->busy[i].end;
	return end;
}

/* The lowest busy start above b (or limit): where a free run ends. */
static uint64_t run_end(const struct kaslr_mem *m, uint64_t b, uint64_t limit)
{
	for (int i = 0; i < m->nr_busy; i++)
		if (m->busy[i].start >= b && m->busy[i].start < limit)
			limit = m->busy[i].start;
	return limit;
}

/*
 * The number of slots; when pick is below it, *base gets slot number
 * pick (counted upwards through the map's entries in their order).
 */
uint64_t kaslr_slots(const struct kaslr_mem *m, uint64_t pick, uint64_t *base)
{
	uint64_t count = 0;

	if (!m->size || !m->align)
		return 0;
	for (int i = 0; i < m->nr_map; i++) {
		const struct mmap_entry *e = &m->map[i];
		uint64_t start = e->addr > m->lo ? e->addr : m->lo;
		uint64_t end = e->addr + e->len < m->hi ? e->addr + e->len : m->hi;
		uint64_t b = ALIGN_UP64(start, m->align);

		if (e->type != E820_RAM || e->len > UINT64_MAX - e->addr)
			continue;
		while (b < end && m->size <= end - b) {
			uint64_t skip = busy_end(m, b), last, n;

			if (skip) {
				b = ALIGN_UP64(skip, m->align);
				continue;
			}
			last = run_end(m, b, end) - m->size;	/* the highest base of this run */
			n = (last - b) / m->align + 1;
			if (pick >= count && pick - count < n)
				*base = b + (pick - count) * m->align;
			count += n;
			b += n * m->align;
		}
	}
	return count;
}

static int word_is(const char *w, const char *end, const char *name)
{
	while (w < end && *name && *w == *name)
		w++, name++;
	return w == end && !*name;
}

/* `kaslr` turns it on, `nokaslr` off; the last word wins, as in Linux. */
int cmdline_wants_kaslr(const char *p)
{
	int on = 0;

	while (*p) {
		const char *w = p;

		while (*p && *p != ' ')
			p++;
		if (word_is(w, p, "kaslr"))
			on = 1;
		else if (word_is(w, p, "nokaslr"))
			on = 0;
		while (*p == ' ')
			p++;
	}
	return on;
}
