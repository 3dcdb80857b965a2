// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_elf_exec.c - elf_exec_check() accepts the minimal executable and
 * refuses each broken twin (tools/mkbroken_exec.py) with its own message;
 * every truncation and every single-byte change of the good file is either
 * accepted or refused, never read outside the buffer (ASan), and an
 * accepted one always satisfies what the loader trusts. Also the VMA list
 * (mm/vma.c). Run from the repository root after the executables are made.
 */
#include <stdarg.h>
#include <string.h>
#include <stdlib.h>
#include "../../modload/errmsg.c"
#include "../../modload/elf_check.c"
#include "../../modload/elf_image.c"
#include "../../kernel/elf_exec_check.c"
#include "../../mm/vma.c"
#include "check.h"
#include "host_file.h"

#define DIR "build/exec/"

static int check_copy(const void *data, size_t size, struct exec_image *img, char *err,
		      size_t errlen)
{
	struct errmsg e = { err, errlen };
	void *copy = malloc(size ? size : 1);
	int ret;

	memcpy(copy, data, size);
	err[0] = '\0';
	ret = elf_exec_check(img, copy, size, &e);
	free(copy);
	return ret;
}

TEST(manifest_refusals)
{
	FILE *f = fopen(DIR "EXPECTED", "r");
	char line[128], path[192], err[256];
	int n = 0;

	CHECK(f != NULL);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t'), *want;
		struct exec_image img;
		size_t size;
		void *data;
		int ret;

		if (!tab)
			continue;
		*tab = '\0';
		want = tab + 1;
		want[strcspn(want, "\n")] = '\0';
		snprintf(path, sizeof(path), DIR "broken/%s", line);
		data = host_read_file(path, &size);
		CHECK(data != NULL);
		if (!data)
			continue;
		ret = check_copy(data, size, &img, err, sizeof(err));
		if (strcmp(want, "ok") == 0 || strncmp(want, "runs: ", 6) == 0) {
			if (ret)
				printf("# %s: refused: %s\n", line, err);
			CHECK(ret == 0);
		} else {
			if (ret == 0 || !strstr(err, want))
				printf("# %s: want '%s', got '%s'\n", line, want, ret ? err : "accepted");
			CHECK(ret != 0 && strstr(err, want) != NULL);
		}
		free(data);
		n++;
	}
	fclose(f);
	CHECK(n >= 15);
}

TEST(good_layout)
{
	struct exec_image img;
	char err[256];
	size_t size;
	void *data = host_read_file(DIR "broken/ok", &size);

	CHECK(data != NULL);
	if (!data)
		return;
	CHECK_EQ(check_copy(data, size, &img, err, sizeof(err)), 0);
	CHECK_EQ(img.nseg, 3);
	CHECK_EQ(img.entry, 0x080480c0);
	CHECK_EQ(img.brk, 0x0804c000);
	CHECK(img.seg[0].flags == (PF_R | PF_X) && img.seg[2].flags == (PF_R | PF_W));
	free(data);
}

/* What the loader relies on, for any file elf_exec_check() accepts. */
static void check_trusted(const struct exec_image *img)
{
	for (int i = 0; i < img->nseg; i++) {
		const struct exec_segment *s = &img->seg[i];

		CHECK(s->filesz <= s->memsz);
		CHECK((uint64_t)s->offset + s->filesz <= img->size);
		CHECK(s->vaddr >= MMAP_MIN_ADDR && (uint64_t)s->vaddr + s->memsz <= TASK_UNMAPPED_BASE);
		CHECK(!((s->flags & PF_W) && (s->flags & PF_X)));
	}
}

TEST(mutations_stay_in_bounds)
{
	struct exec_image img;
	char err[256];
	size_t size;
	uint8_t *data = host_read_file(DIR "broken/ok", &size);
	int accepted = 0, refused = 0;

	CHECK(data != NULL);
	if (!data)
		return;
	for (size_t n = 0; n < 0x140 && n <= size; n++) {	/* every truncation of the headers */
		if (check_copy(data, n, &img, err, sizeof(err)) == 0)
			check_trusted(&img);
	}
	for (size_t at = 0; at < 0xc0; at++) {			/* every header byte, changed */
		static const uint8_t values[] = { 0x00, 0x01, 0x07, 0x80, 0xbf, 0xc0, 0xff };

		for (unsigned v = 0; v < sizeof(values); v++) {
			uint8_t old = data[at];

			data[at] = values[v];
			if (check_copy(data, size, &img, err, sizeof(err)) == 0) {
				check_trusted(&img);
				accepted++;
			} else {
				CHECK(err[0] != '\0');
				refused++;
			}
			data[at] = old;
		}
	}
	CHECK(accepted > 0 && refused > 0);
	free(data);
}

TEST(vma_add_split_merge)
{
	struct vma_list l = { 0 };

	CHECK_EQ(vma_add(&l, 0x1000, 0x5000, VM_READ, VMA_MMAP), 0);
	CHECK_EQ(vma_add(&l, 0x4000, 0x6000, VM_READ, VMA_MMAP), -EEXIST);
	CHECK_EQ(vma_add(&l, 0x8000, 0x9000, VM_READ, VMA_MMAP), 0);
	CHECK(vma_range_covered(&l, 0x1000, 0x5000));
	CHECK(!vma_range_covered(&l, 0x1000, 0x9000));
	CHECK_EQ(vma_split(&l, 0x3000), 0);
	CHECK_EQ(l.nr, 3);
	l.v[1].vm_flags = VM_READ | VM_WRITE;
	vma_merge(&l);
	CHECK_EQ(l.nr, 3);
	l.v[1].vm_flags = VM_READ;
	vma_merge(&l);
	CHECK_EQ(l.nr, 2);
	CHECK_EQ(vma_free_area(&l, 0x2000, 0x1000, 0x10000), 0x5000);
	CHECK_EQ(vma_free_area(&l, 0x4000, 0x1000, 0x10000), 0x9000);
	CHECK_EQ(vma_free_area(&l, 0x8000, 0x1000, 0x10000), 0);
	CHECK_EQ(vma_split(&l, 0x2000), 0);
	CHECK_EQ(vma_split(&l, 0x4000), 0);
	vma_remove(&l, 0x2000, 0x4000);
	CHECK(vma_find(&l, 0x2000) == NULL && vma_find(&l, 0x1fff) != NULL && vma_find(&l, 0x4000) != NULL);
	CHECK(vma_range_free(&l, 0x2000, 0x4000));
}

/* A memfd area keeps its memfd and page offset across a split; only a continuing one merges. */
TEST(vma_memfd_pgoff)
{
	struct vma_list l = { 0 };

	CHECK_EQ(vma_add(&l, 0x10000, 0x14000, VM_READ | VM_SHARED, VMA_MEMFD), 0);
	l.v[0].vm_file = 3;
	l.v[0].vm_pgoff = 5;
	CHECK_EQ(vma_split(&l, 0x12000), 0);
	CHECK(l.nr == 2 && l.v[1].vm_file == 3 && l.v[1].vm_pgoff == 7);
	CHECK_EQ(vma_pgoff_at(&l.v[1], 0x13000), 8);
	vma_merge(&l);
	CHECK(l.nr == 1 && l.v[0].vm_end == 0x14000 && l.v[0].vm_pgoff == 5);
	/* the same memfd, adjacent, not the next pages; another memfd: two areas */
	CHECK_EQ(vma_add(&l, 0x14000, 0x15000, VM_READ | VM_SHARED, VMA_MEMFD), 0);
	l.v[1].vm_file = 3;
	l.v[1].vm_pgoff = 5;
	vma_merge(&l);
	CHECK_EQ(l.nr, 2);
	l.v[1].vm_pgoff = 9;
	l.v[1].vm_file = 4;
	vma_merge(&l);
	CHECK_EQ(l.nr, 2);
	l.v[1].vm_file = 3;
	vma_merge(&l);
	CHECK(l.nr == 1 && l.v[0].vm_end == 0x15000);
	/* an offset at or past VM_PGOFF_MAX stays there: past every memfd */
	l.v[0].vm_pgoff = VM_PGOFF_MAX - 1;
	CHECK_EQ(vma_pgoff_at(&l.v[0], 0x14000), VM_PGOFF_MAX);
	CHECK_EQ(vma_split(&l, 0x13000), 0);
	CHECK_EQ(l.v[1].vm_pgoff, VM_PGOFF_MAX);
	/* another kind's split keeps 0 */
	CHECK_EQ(vma_add(&l, 0x20000, 0x22000, VM_READ, VMA_MMAP), 0);
	CHECK_EQ(vma_split(&l, 0x21000), 0);
	CHECK(l.v[l.nr - 1].vm_pgoff == 0 && l.v[l.nr - 1].vm_file == 0);
}

TEST(vma_grow_down_stack)
{
	struct vma_list l = { 0 };
	struct vm_area_struct *v;

	CHECK_EQ(vma_add(&l, 0x40000000, 0x40001000, VM_READ | VM_WRITE, VMA_MMAP), 0);
	CHECK_EQ(vma_add(&l, 0xbffe0000, 0xc0000000, VM_READ | VM_WRITE, VMA_STACK), 0);
	/* below the limit: never */
	CHECK(vma_grow_down(&l, VMA_STACK, 0xbf7fffff, 0xbf800000) == NULL);
	CHECK_EQ(l.v[1].vm_start, 0xbffe0000);
	/* at the limit: down to that page, the whole range in one step */
	v = vma_grow_down(&l, VMA_STACK, 0xbf800123, 0xbf800000);
	CHECK(v && v->vm_start == 0xbf800000 && v->vm_end == 0xc0000000);
	/* inside the area already: nothing to grow */
	CHECK(vma_grow_down(&l, VMA_STACK, 0xbf900000, 0xbf800000) == NULL);
	/* another area in the way: refused, the stack unchanged */
	CHECK_EQ(vma_add(&l, 0xbf700000, 0xbf701000, VM_READ, VMA_MMAP), 0);
	CHECK(vma_grow_down(&l, VMA_STACK, 0xbf6ff000, 0xbf000000) == NULL);
	CHECK_EQ(vma_find(&l, 0xbf900000)->vm_start, 0xbf800000);
	/* no area of the kind: NULL */
	CHECK(vma_grow_down(&l, VMA_HEAP, 0x30000000, 0) == NULL);
}

TEST(vma_table_full_is_enomem)
{
	struct vma_list l = { 0 };

	for (uint32_t i = 0; i < MAX_VMAS; i++)
		CHECK_EQ(vma_add(&l, 0x10000 + i * 0x2000, 0x11000 + i * 0x2000, VM_READ, VMA_MMAP), 0);
	CHECK_EQ(vma_add(&l, 0x900000, 0x901000, VM_READ, VMA_MMAP), -ENOMEM);
	CHECK_EQ(vma_split(&l, 0x10800 & ~0xfffu), 0);	/* a boundary already: nothing to do */
}

int main(void)
{
	RUN(manifest_refusals);
	RUN(good_layout);
	RUN(mutations_stay_in_bounds);
	RUN(vma_add_split_merge);
	RUN(vma_memfd_pgoff);
	RUN(vma_grow_down_stack);
	RUN(vma_table_full_is_enomem);
	return check_done();
}
