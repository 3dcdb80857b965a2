// SPDX-License-Identifier: GPL-2.0-only
/*
 * load_elf_binary(): a new address space holding a static ET_EXEC file
 * (Linux: fs/binfmt_elf.c), checked first by elf_exec_check().
 *
 * Each PT_LOAD becomes an area with the permission its p_flags ask for,
 * for a reason a student can state:
 *   PF_R|PF_X  text     RO+X   code runs, and nothing may rewrite it
 *   PF_R       rodata   RO+NX  constants: neither written nor run
 *   PF_R|PF_W  data     RW+NX  variables: written, never run;
 *              bss      RW+NX  the pages past p_filesz, zeroed
 * then the stack (RW+NX: written, never run; 128K below TASK_SIZE, and
 * the page under it left unmapped, so an overflow faults instead of
 * running into whatever lies below), and brk's heap from the page after
 * the last segment. The file's bytes are copied into fresh pages through
 * the direct map (the process is not running yet); the initrd stays
 * untouched.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/memlayout.h>
#include <ronx/mm.h>
#include <ronx/pgd.h>
#include <ronx/mman.h>
#include <ronx/exec.h>
#include <ronx/process.h>
#include <ronx/mmap_layout.h>

/*
 * One PT_LOAD (Linux: elf_map() and set_brk()'s bss): its pages mapped
 * with the permission its p_flags ask for, and its p_filesz bytes from
 * the file copied in; the rest up to p_memsz reads as zero.
 */
static int load_segment(struct mm_struct *mm, const struct exec_image *img,
			const struct exec_segment *s)
{
	unsigned flags = (s->flags & PF_R ? VM_READ : 0) | (s->flags & PF_W ? VM_WRITE : 0) |
			 (s->flags & PF_X ? VM_EXEC : 0);
	uint32_t start = s->vaddr & PAGE_MASK, end = PFN_ALIGN(s->vaddr + s->memsz);
	uint32_t file_end = PFN_ALIGN(s->vaddr + s->filesz);
	int ret;

	if (s->flags & PF_X) {
		ret = map_area(mm, start, end, flags, VMA_TEXT);
	} else if (!(s->flags & PF_W)) {
		ret = map_area(mm, start, end, flags, VMA_RODATA);
	} else {
		/* data, then the whole pages past the file's bytes: bss */
		if (file_end < start)
			file_end = start;
		ret = file_end > start ? map_area(mm, start, file_end, flags, VMA_DATA) : 0;
		if (!ret && end > file_end)
			ret = map_area(mm, file_end, end, flags, VMA_BSS);
	}
	if (ret)
		return ret;
	return copy_to_mm(mm, s->vaddr, img->data + s->offset, s->filesz);
}

/*
 * The stack (Linux: setup_arg_pages()): USER_STACK_SIZE bytes just below
 * the stack top, randomized here with the mmap base (mm/mmap_layout.c)
 * unless norandmaps; the page under its 8 MiB room (mm_stack_guard())
 * is never mapped, so that a stack that overflows faults instead of
 * running into what lies below.
 */
static int setup_stack(struct mm_struct *mm)
{
	uint32_t top = mm->stack_top;

	return map_area(mm, top - USER_STACK_SIZE, top, VM_READ | VM_WRITE, VMA_STACK);
}

/*
 * What _start finds on the stack, as Linux's ELF ABI hands it over (i386
 * System V ABI, fs/binfmt_elf.c create_elf_tables()), from esp upwards:
 *   argc, argv[0] .. argv[argc-1], NULL, envp[0] .. envp[envc-1], NULL,
 *   auxv: AT_PAGESZ 4096, AT_ENTRY e_entry, AT_NULL 0,
 * then the strings near the top. esp is 16-byte aligned. The shell's
 * `run` passes no environment; execve passes the caller's envp.
 */
#define AT_NULL		0
#define AT_PAGESZ	6
#define AT_ENTRY	9

/* Copies n strings to the top of the stack, below *p; their addresses into vec. */
static int push_strings(struct mm_struct *mm, int n, char **strs, uint32_t *vec, uint32_t *p)
{
	for (int i = n - 1; i >= 0; i--) {
		uint32_t len = strlen(strs[i]) + 1;

		*p -= len;
		if (copy_to_mm(mm, *p, strs[i], len))
			return -EFAULT;
		vec[i] = *p;
	}
	return 0;
}

static int create_elf_tables(struct mm_struct *mm, int argc, char **argv, int envc,
			     char **envp, uint32_t *sp)
{
	uint32_t vec[1 + EXEC_MAX_ARGS + 1 + EXEC_MAX_ENV + 1 + 6];
	uint32_t p = mm->stack_top - 4;	/* the top word stays 0 */
	int n = 0;

	vec[n++] = (uint32_t)argc;
	if (push_strings(mm, envc, envp, vec + 1 + argc + 1, &p) ||
	    push_strings(mm, argc, argv, vec + 1, &p))
		return -EFAULT;
	n += argc;
	vec[n++] = 0;			/* end of argv */
	n += envc;
	vec[n++] = 0;			/* end of envp */
	vec[n++] = AT_PAGESZ;
	vec[n++] = PAGE_SIZE;
	vec[n++] = AT_ENTRY;
	vec[n++] = mm->entry;
	vec[n++] = AT_NULL;
	vec[n++] = 0;
	*sp = ((p & ~15u) - n * 4) & ~15u;
	return copy_to_mm(mm, *sp, vec, n * 4);
}

/* The registers a new process starts with: ring 3, interrupts on, at the entry point. */
static void start_thread(struct trap_frame *regs, uint32_t eip, uint32_t esp)
{
	memset(regs, 0, sizeof(*regs));
	regs->cs = USER_CS;
	regs->ds = regs->es = regs->ss = USER_DS;
	regs->fs = regs->gs = 0;		/* as Linux: no TLS segment */
	regs->eflags = X86_EFLAGS_IF | X86_EFLAGS_FIXED;
	regs->eip = eip;
	regs->esp = esp;
}

/*
 * The new mm, or NULL with *err set: -ENOEXEC for a file the checks
 * refuse (the line naming why is printed), -ENOMEM without memory.
 * path is what execve() was given, the process's bytes: printed with %pE.
 */
struct mm_struct *load_elf_binary_err(const char *path, const void *data, size_t size,
				      int argc, char **argv, int envc, char **envp,
				      struct trap_frame *regs, long *err)
{
	struct exec_image img;
	char msg[200];
	struct errmsg e = { msg, sizeof(msg) };
	struct mm_struct *mm;
	uint32_t sp;
	int ret = 0;

	if (elf_exec_check(&img, data, size, &e)) {
		pr_err("exec: %pE: %s\n", path, msg);
		*err = -ENOEXEC;
		return 0;
	}
	if (img.stack_exec_asked)
		pr_info("exec: %pE: PT_GNU_STACK asks for an executable stack; ronx's stack stays RW+NX\n",
			path);
	mm = mm_alloc();
	if (!mm) {
		ret = -ENOMEM;
		goto fail;
	}
	mm->entry = img.entry;
	for (int i = 0; i < img.nseg && !ret; i++)
		ret = load_segment(mm, &img, &img.seg[i]);
	mm->start_brk = mm->brk = img.brk;
	arch_pick_mmap_layout(mm);
	if (!ret)
		ret = setup_stack(mm);
	if (!ret)
		ret = create_elf_tables(mm, argc, argv, envc, envp, &sp);
	if (!ret) {
		start_thread(regs, img.entry, sp);
		return mm;
	}
	mmput(mm);
fail:
	if (ret == -ENOMEM)
		pr_err("exec: %pE: out of memory\n", path);
	else
		pr_err("exec: %pE: cannot map it (error %d)\n", path, ret);
	*err = ret == -ENOMEM ? -ENOMEM : -ENOEXEC;
	return 0;
}

struct mm_struct *load_elf_binary(const char *path, const void *data, size_t size, int argc,
				  char **argv, struct trap_frame *regs)
{
	long err;

	return load_elf_binary_err(path, data, size, argc, argv, 0, 0, regs, &err);
}
