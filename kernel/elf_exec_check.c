// SPDX-License-Identifier: GPL-2.0-only
/*
 * elf_exec_check(): is this file a static i386 executable ronx can load,
 * and where does it go? Every field is untrusted; sums are 64-bit so no
 * wrap-around can make a segment look in range. One line names what is
 * wrong, like the module loader's (modload/elf_check.c). Pure: host-tested
 * under ASan and UBSan (tests/host/test_elf_exec.c).
 *
 * Refused: not ELF32 LSB i386, not ET_EXEC (a PIE, a module), dynamically
 * linked (PT_INTERP, PT_DYNAMIC), program headers outside the file, a
 * PT_LOAD whose file bytes do not fit, with p_filesz > p_memsz, below
 * mmap_min_addr (page 0 must stay unmapped so NULL faults), reaching the
 * mmap area, the stack or the kernel half, sharing a page with another
 * PT_LOAD (a page has one permission), asking for W+X; no PT_LOAD; an
 * entry point outside every executable segment.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/exec.h>
#include "elf_check.h"

/* "R_E", "RW_": readelf's way of writing p_flags. */
void elf_flags_name(uint32_t p_flags, char buf[4])
{
	buf[0] = p_flags & PF_R ? 'R' : '_';
	buf[1] = p_flags & PF_W ? 'W' : '_';
	buf[2] = p_flags & PF_X ? 'E' : '_';
	buf[3] = '\0';
}

static int check_ehdr(const Elf32_Ehdr *h, uint32_t size, struct errmsg *e)
{
	if (elf_check_ident(h, e))
		return -1;
	if (h->e_type == ET_DYN)
		return errf(e, "e_type 3 is ET_DYN (a PIE or shared object): ronx runs static ET_EXEC (2) executables only");
	if (h->e_type == ET_REL)
		return errf(e, "e_type 1 is ET_REL (an object file or module: insmod loads those), not ET_EXEC (2)");
	if (h->e_type != ET_EXEC)
		return errf(e, "e_type %u is not ET_EXEC (2, executable)", h->e_type);
	if (h->e_machine != EM_386)
		return errf(e, "e_machine %u is not EM_386 (3, i386)", h->e_machine);
	if (h->e_phentsize != sizeof(Elf32_Phdr))
		return errf(e, "e_phentsize %u is not %u", h->e_phentsize, (unsigned)sizeof(Elf32_Phdr));
	if (h->e_phnum == 0 || h->e_phnum > EXEC_MAX_PHNUM)
		return errf(e, "e_phnum %u: an executable needs 1 to %u program headers", h->e_phnum,
			    EXEC_MAX_PHNUM);
	if (h->e_phoff % 4)
		return errf(e, "e_phoff %x is not 4-byte aligned", h->e_phoff);
	if ((uint64_t)h->e_phoff + (uint64_t)h->e_phnum * sizeof(Elf32_Phdr) > size)
		return errf(e, "program headers at e_phoff %x (%u x 32 bytes) do not fit in the file (%u bytes)",
			    h->e_phoff, h->e_phnum, size);
	return 0;
}

static uint32_t page_start(const struct exec_segment *s)
{
	return s->vaddr & PAGE_MASK;
}

static uint64_t page_end(const struct exec_segment *s)
{
	return ((uint64_t)s->vaddr + s->memsz + PAGE_SIZE - 1) & PAGE_MASK;
}

/* One PT_LOAD: where it goes and what it asks for. */
static int check_load(const struct exec_image *img, const Elf32_Phdr *p, unsigned i,
		      struct errmsg *e)
{
	uint64_t end = (uint64_t)p->p_vaddr + p->p_memsz;
	char fl[4];

	if (p->p_filesz > p->p_memsz)
		return errf(e, "PT_LOAD (program header %u): p_filesz %x is larger than p_memsz %x",
			    i, p->p_filesz, p->p_memsz);
	if ((uint64_t)p->p_offset + p->p_filesz > img->size)
		return errf(e, "PT_LOAD (program header %u): p_offset %x + p_filesz %x does not fit in the file (%u bytes)",
			    i, p->p_offset, p->p_filesz, img->size);
	if (end > TASK_SIZE)
		return errf(e, "PT_LOAD (program header %u): p_vaddr %x + p_memsz %x reaches into the kernel half (%x and up)",
			    i, p->p_vaddr, p->p_memsz, (unsigned)TASK_SIZE);
	if (p->p_vaddr < MMAP_MIN_ADDR)
		return errf(e, "PT_LOAD (program header %u): p_vaddr %x is below mmap_min_addr %x (page 0 stays unmapped so that NULL faults)",
			    i, p->p_vaddr, (unsigned)MMAP_MIN_ADDR);
	if (end > TASK_UNMAPPED_BASE)
		return errf(e, "PT_LOAD (program header %u): p_vaddr %x + p_memsz %x reaches the mmap area and the stack (%x and up)",
			    i, p->p_vaddr, p->p_memsz, (unsigned)TASK_UNMAPPED_BASE);
	if ((p->p_flags & PF_W) && (p->p_flags & PF_X)) {
		elf_flags_name(p->p_flags, fl);
		return errf(e, "PT_LOAD (program header %u) at %x: p_flags %s asks for a writable and executable segment (W^X: refused)",
			    i, p->p_vaddr, fl);
	}
	return 0;
}

/* Segments share no page: each page of a process gets one permission. */
static int check_overlap(const struct exec_image *img, const struct exec_segment *s,
			 struct errmsg *e)
{
	for (int j = 0; j < img->nseg; j++) {
		const struct exec_segment *o = &img->seg[j];

		if (page_start(s) < page_end(o) && page_start(o) < page_end(s))
			return errf(e, "PT_LOAD (program header %u) at %x-%x overlaps PT_LOAD (program header %u) at %x-%x: they share a page, and a page has one permission",
				    s->index, s->vaddr, (unsigned)(s->vaddr + s->memsz), o->index,
				    o->vaddr, (unsigned)(o->vaddr + o->memsz));
	}
	return 0;
}

static int add_segment(struct exec_image *img, const Elf32_Phdr *p, unsigned i,
		       uint64_t *total, struct errmsg *e)
{
	struct exec_segment s = { p->p_vaddr, p->p_memsz, p->p_offset, p->p_filesz,
				  p->p_flags, i };

	if (check_load(img, p, i, e) || check_overlap(img, &s, e))
		return -1;
	if (img->nseg == EXEC_MAX_SEGMENTS)
		return errf(e, "more than %u PT_LOAD segments", EXEC_MAX_SEGMENTS);
	*total += page_end(&s) - page_start(&s);
	if (*total > EXEC_MAX_IMAGE)
		return errf(e, "the PT_LOAD segments need more than %uK, ronx's limit for one executable",
			    EXEC_MAX_IMAGE >> 10);
	img->seg[img->nseg++] = s;
	if (page_end(&s) > img->brk)
		img->brk = (uint32_t)page_end(&s);
	return 0;
}

static int check_entry_point(const struct exec_image *img, struct errmsg *e)
{
	for (int i = 0; i < img->nseg; i++) {
		const struct exec_segment *s = &img->seg[i];

		if ((s->flags & PF_X) && img->entry >= s->vaddr && img->entry - s->vaddr < s->memsz)
			return 0;
	}
	return errf(e, "e_entry %x is not in an executable (PF_X) PT_LOAD segment", img->entry);
}

int elf_exec_check(struct exec_image *img, const void *data, size_t size, struct errmsg *e)
{
	const Elf32_Ehdr *h = data;
	const Elf32_Phdr *ph;
	uint64_t total = 0;

	*img = (struct exec_image){ .data = data, .size = (uint32_t)size };
	if (size < sizeof(Elf32_Ehdr))
		return errf(e, "file too short for an ELF header (%u bytes, need %u)", (unsigned)size,
			    (unsigned)sizeof(Elf32_Ehdr));
	if (size > 0xffffffffu)
		return errf(e, "file too large");
	if (check_ehdr(h, img->size, e))
		return -1;
	ph = (const Elf32_Phdr *)(img->data + h->e_phoff);
	img->entry = h->e_entry;
	for (unsigned i = 0; i < h->e_phnum; i++) {
		const Elf32_Phdr *p = &ph[i];

		if (p->p_type == PT_INTERP || p->p_type == PT_DYNAMIC)
			return errf(e, "%s (program header %u): dynamically linked; ronx runs static executables only",
				    p->p_type == PT_INTERP ? "PT_INTERP" : "PT_DYNAMIC", i);
		if (p->p_type == PT_GNU_STACK && (p->p_flags & PF_X))
			img->stack_exec_asked = true;
		if (p->p_type == PT_LOAD && p->p_memsz && add_segment(img, p, i, &total, e))
			return -1;
	}
	if (!img->nseg)
		return errf(e, "no PT_LOAD segment with p_memsz > 0: nothing to load");
	return check_entry_point(img, e);
}
