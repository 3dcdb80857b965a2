// SPDX-License-Identifier: GPL-2.0-only
/*
 * execve(2) (Linux: fs/exec.c): the calling process becomes bin/NAME
 * from the initrd. ronx's files are the initrd's, all under the root, so
 * "/bin/true" and "bin/true" name the same file (the working directory
 * is always /).
 *
 * The path and the arguments are copied into one kernel page before
 * anything changes: they live in the old address space, which goes away.
 * The new mm is built whole (load_elf_binary_err(), kernel/exec.c) while
 * the old one still runs; only when it is complete does the process
 * switch to it and drop the old one, so a failed execve returns its error
 * to a process that is as it was. The switch of t->mm is under
 * tasks_lock, as every change of it: a shell command's get_task_mm()
 * then gets the old mm with its reference or the new one, never an mm
 * being dropped. The environment (at most
 * EXEC_MAX_ENV strings) goes to the new program's stack as Linux lays it.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/memlayout.h>
#include <ronx/mm.h>
#include <ronx/pgd.h>
#include <ronx/initrd.h>
#include <ronx/uaccess.h>
#include <ronx/spinlock.h>
#include <ronx/process.h>
#include <ronx/signal.h>
#include <ronx/memfd.h>

#define EXEC_PATH_MAX	64
#define ENAMETOOLONG	36

/* The strings: path first, then each argument, packed in one page. */
struct exec_args {
	char *path;
	int argc, envc;
	char *argv[EXEC_MAX_ARGS + 1];
	char *envp[EXEC_MAX_ENV + 1];
	char *next, *end;
};

/* One user string into the page; -EFAULT, or -E2BIG when the page is full. */
static long copy_string(struct exec_args *a, const char __user *s, char **out, long max)
{
	long room = a->end - a->next, n;

	if (max > room)
		max = room;
	n = strncpy_from_user(a->next, s, max);
	if (n < 0)
		return n;
	if (n == max)
		return -E2BIG;
	*out = a->next;
	a->next += n + 1;
	return 0;
}

/* A NULL-terminated array of user strings (argv or envp), at most max of them. */
static long copy_strings(struct exec_args *a, uint32_t uvec, char **out, int *count, int max)
{
	for (*count = 0; uvec; (*count)++) {
		uint32_t p;
		long ret;

		if (get_user(p, (const uint32_t __user *)uvec + *count))
			return -EFAULT;
		if (!p)
			break;
		if (*count == max)
			return -E2BIG;
		ret = copy_string(a, (const char __user *)p, &out[*count], PAGE_SIZE);
		if (ret)
			return ret;
	}
	return 0;
}

static long copy_args(struct exec_args *a, uint32_t upath, uint32_t uargv, uint32_t uenvp)
{
	long ret = copy_string(a, (const char __user *)upath, &a->path, EXEC_PATH_MAX);

	if (ret == -E2BIG)
		return -ENAMETOOLONG;
	if (!ret)
		ret = copy_strings(a, uargv, a->argv, &a->argc, EXEC_MAX_ARGS);
	if (!ret)
		ret = copy_strings(a, uenvp, a->envp, &a->envc, EXEC_MAX_ENV);
	return ret;
}

/* The initrd's file for path: "/bin/x" and "bin/x" alike. */
static long find_file(const char *path, struct cpio_file *f)
{
	while (*path == '/')
		path++;
	if (!*path || initrd_find(path, f))
		return -ENOENT;
	return 0;
}

static long do_execve(struct exec_args *a)
{
	struct task *t = current;
	struct mm_struct *mm, *old = t->mm;
	struct cpio_file f;
	const char *base;
	unsigned long flags;
	long err = find_file(a->path, &f);

	if (err)
		return err;
	mm = load_elf_binary_err(a->path, f.data, f.size, a->argc, a->argv, a->envc, a->envp,
				 t->regs, &err);
	if (!mm)
		return err;
	/* point of no return: the registers are the new program's already */
	spin_lock_irqsave(&tasks_lock, flags);	/* get_task_mm() reads t->mm under it */
	t->mm = mm;
	spin_unlock_irqrestore(&tasks_lock, flags);
	switch_mm(mm);
	mmput(old);
	base = strrchr(a->path, '/') ? strrchr(a->path, '/') + 1 : a->path;
	memset(t->comm, 0, sizeof(t->comm));
	memcpy(t->comm, base, strlen(base) < TASK_COMM_LEN ? strlen(base) : TASK_COMM_LEN - 1);
	signals_exec(t);
	files_exec(t);
	vfork_child_done(t);
	return 0;
}

long sys_execve(uint32_t upath, uint32_t uargv, uint32_t uenvp)
{
	unsigned long page = alloc_page();
	struct exec_args a = { 0 };
	long ret;

	if (!page)
		return -ENOMEM;
	a.next = __va(page);
	a.end = a.next + PAGE_SIZE;
	ret = copy_args(&a, upath, uargv, uenvp);
	if (!ret)
		ret = do_execve(&a);
	free_page(page);
	return ret;
}
