// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process's areas (Linux's VMAs) as a sorted array: find, add, split,
 * remove, merge, and find a free range. What mmap, munmap, mprotect and
 * brk do to the page tables (mm/mmap.c) follows what this list says.
 * Pure: host-tested under ASan and UBSan (tests/host/test_vma.c).
 */
#include <ronx/compiler.h>
#include <ronx/string.h>
#include <ronx/mm_types.h>

const char *vma_kind_name(unsigned kind)
{
	static const char *const names[] = { "text", "rodata", "data", "bss", "heap", "mmap", "stack",
						     "memfd" };

	return kind < ARRAY_SIZE(names) ? names[kind] : "?";
}

struct vm_area_struct *vma_find(struct vma_list *l, uint32_t addr)
{
	for (int i = 0; i < l->nr; i++)
		if (addr >= l->v[i].vm_start && addr < l->v[i].vm_end)
			return &l->v[i];
	return 0;
}

bool vma_range_free(const struct vma_list *l, uint32_t start, uint32_t end)
{
	for (int i = 0; i < l->nr; i++)
		if (l->v[i].vm_start < end && start < l->v[i].vm_end)
			return false;
	return true;
}

/* Is every byte of [start, end) in some area? (The list is sorted.) */
bool vma_range_covered(const struct vma_list *l, uint32_t start, uint32_t end)
{
	uint32_t at = start;

	for (int i = 0; i < l->nr && at < end; i++) {
		if (l->v[i].vm_end <= at)
			continue;
		if (l->v[i].vm_start > at)
			return false;
		at = l->v[i].vm_end;
	}
	return at >= end;
}

static int insert_at(struct vma_list *l, int i, struct vm_area_struct v)
{
	if (l->nr == MAX_VMAS)
		return -ENOMEM;
	memmove(&l->v[i + 1], &l->v[i], (size_t)(l->nr - i) * sizeof(v));
	l->v[i] = v;
	l->nr++;
	return 0;
}

/* Makes addr an area boundary: the area around it becomes two. */
int vma_split(struct vma_list *l, uint32_t addr)
{
	for (int i = 0; i < l->nr; i++) {
		struct vm_area_struct hi = l->v[i];

		if (addr <= hi.vm_start || addr >= hi.vm_end)
			continue;
		hi.vm_start = addr;
		if (hi.kind == VMA_MEMFD)
			hi.vm_pgoff = vma_pgoff_at(&l->v[i], addr) & VM_PGOFF_MAX;
		if (insert_at(l, i + 1, hi))
			return -ENOMEM;
		l->v[i].vm_end = addr;
		return 0;
	}
	return 0;
}

int vma_add(struct vma_list *l, uint32_t start, uint32_t end, unsigned flags, unsigned kind)
{
	struct vm_area_struct v = { start, end, (uint8_t)flags, (uint8_t)kind, 0, 0 };
	int i = 0;

	if (start >= end || !vma_range_free(l, start, end))
		return -EEXIST;
	while (i < l->nr && l->v[i].vm_start < start)
		i++;
	return insert_at(l, i, v);
}

/* Removes the areas inside [start, end); split at both ends first. */
void vma_remove(struct vma_list *l, uint32_t start, uint32_t end)
{
	int out = 0;

	for (int i = 0; i < l->nr; i++)
		if (!(l->v[i].vm_start >= start && l->v[i].vm_end <= end))
			l->v[out++] = l->v[i];
	l->nr = out;
}

/*
 * The memfd page at addr in memfd area v, VM_PGOFF_MAX at most: past the
 * end of any memfd (mm_types.h).
 */
uint32_t vma_pgoff_at(const struct vm_area_struct *v, uint32_t addr)
{
	uint32_t pgoff = v->vm_pgoff + (addr - v->vm_start) / 4096u;

	return pgoff < VM_PGOFF_MAX ? pgoff : VM_PGOFF_MAX;
}

/* Do areas a and b, b just above a, agree in everything but their range? */
static bool vma_continues(const struct vm_area_struct *a, const struct vm_area_struct *b)
{
	return a->vm_end == b->vm_start && a->vm_flags == b->vm_flags && a->kind == b->kind &&
	       a->vm_file == b->vm_file &&
	       (a->kind != VMA_MEMFD || vma_pgoff_at(a, a->vm_end) == b->vm_pgoff);
}

/* Joins neighbours that touch and agree (after a split that changed nothing). */
void vma_merge(struct vma_list *l)
{
	int out = 0;

	for (int i = 0; i < l->nr; i++) {
		struct vm_area_struct *prev = out ? &l->v[out - 1] : 0;

		if (prev && vma_continues(prev, &l->v[i]))
			prev->vm_end = l->v[i].vm_end;
		else
			l->v[out++] = l->v[i];
	}
	l->nr = out;
}

/* The lowest page-aligned a >= lo with [a, a + len) free and below hi; 0 if none. */
uint32_t vma_free_area(const struct vma_list *l, uint32_t len, uint32_t lo, uint32_t hi)
{
	uint64_t a = lo;

	if (!len || lo > hi)
		return 0;
	for (int i = 0; i <= l->nr; i++) {
		uint64_t next = i < l->nr ? l->v[i].vm_start : hi;

		if (i < l->nr && l->v[i].vm_end <= a)
			continue;
		if (next > hi)
			next = hi;
		if (a + len <= next)
			return (uint32_t)a;
		if (i < l->nr && l->v[i].vm_end > a)
			a = l->v[i].vm_end;
		if (a >= hi)
			break;
	}
	return 0;
}

/*
 * Stack growth's decision (mm/memory.c, expand_stack()): the area of
 * this kind that lies above addr grows down to addr's page, if addr is
 * at or above limit and nothing lies between. The grown area, or NULL.
 */
struct vm_area_struct *vma_grow_down(struct vma_list *l, unsigned kind, uint32_t addr,
				     uint32_t limit)
{
	uint32_t start = addr & ~0xfffu;

	if (addr < limit)
		return 0;
	for (int i = 0; i < l->nr; i++) {
		struct vm_area_struct *v = &l->v[i];

		if (v->kind != kind || v->vm_start <= start)
			continue;
		if (!vma_range_free(l, start, v->vm_start))
			return 0;
		v->vm_start = start;
		return v;
	}
	return 0;
}
