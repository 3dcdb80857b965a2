// SPDX-License-Identifier: GPL-2.0-only
/*
 * ronx_crash: the bugs of ronx's `crash` command that Debian's kernel has
 * a defence for, made on purpose on Linux, so that one table shows both
 * kernels catching (or missing) the same bug. Each is named as LKDTM
 * names it (Debian's 686-pae kernel is built without CONFIG_LKDTM); this
 * module's code is its own.
 *
 *   echo USERCOPY_KERNEL > /sys/kernel/debug/ronx-crash/DIRECT
 *   cat /sys/kernel/debug/ronx-crash/DIRECT        (the names)
 *
 * The hardened usercopy check (CONFIG_HARDENED_USERCOPY=y in Debian's
 * config) ends the writing process with a BUG, so the write never
 * returns; if it does return, the copy went through and the line
 * "ronx-crash: NAME: not caught" says so. CORRUPT_STACK's stack protector
 * (CONFIG_STACKPROTECTOR_STRONG=y) panics the kernel. READ_AFTER_FREE and
 * WRITE_AFTER_FREE are SLUB's poisoning, with slub_debug=FP on the command
 * line: they print what they saw and return. The copies' sizes go through a
 * volatile zero: check_object_size() is skipped for a size the compiler
 * knows.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/uaccess.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>

#define TAG "ronx-crash: "
#define OBJ_SIZE 1024		/* kmalloc-1024 on both kernels */
#define COPY_SIZE 32

static volatile size_t zero;
static struct dentry *dir;

/* A user page of the writing process, for the user side of each copy. */
static unsigned long user_page(void)
{
	unsigned long u = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
				  MAP_ANONYMOUS | MAP_PRIVATE, 0);

	return u < TASK_SIZE ? u : 0;
}

/* Copy n bytes between kern and a fresh user page; true if the copy went through. */
static bool copy_between(void *kern, size_t n, bool to_user)
{
	unsigned long u = user_page();
	bool done;

	if (!u)
		return false;
	if (to_user)
		done = !copy_to_user((void __user *)u, kern, n);
	else
		done = !copy_from_user(kern, (void __user *)u, n);
	vm_munmap(u, PAGE_SIZE);
	return done;
}

/*
 * An object of OBJ_SIZE, copied from 16 bytes in: half of it is a good
 * copy, OBJ_SIZE bytes run 16 bytes into the next object (LKDTM's shape,
 * and ronx's crash does the same, so both lines can be set side by side).
 */
static bool heap_size(bool to_user)
{
	char *obj = kmalloc(OBJ_SIZE, GFP_KERNEL);
	bool done;

	if (!obj)
		return false;
	memset(obj, 'r', OBJ_SIZE);
	pr_info(TAG "good copy of %d bytes from 16 bytes into a %d-byte object\n",
		OBJ_SIZE / 2, OBJ_SIZE);
	if (!copy_between(obj + 16, zero + OBJ_SIZE / 2, to_user))
		pr_info(TAG "the good copy failed\n");
	pr_info(TAG "bad copy of %d bytes from 16 bytes into it\n", OBJ_SIZE);
	done = copy_between(obj + 16, zero + OBJ_SIZE, to_user);
	kfree(obj);
	return done;
}

/* p, through a call the compiler cannot see into (it would return NULL for a local's address). */
static noinline char *escape(char *p)
{
	return p + zero;
}

/* A buffer in a frame that has returned: its address lies below the caller's frame. */
static noinline char *dead_frame_buffer(void)
{
	char buf[4 * COPY_SIZE];

	memset(buf, 'f', sizeof(buf));
	return escape(buf + COPY_SIZE);
}

static bool stack_frame(bool to_user)
{
	char here[COPY_SIZE];

	memset(here, 'h', sizeof(here));
	pr_info(TAG "good copy of a buffer in this frame\n");
	if (!copy_between(here, zero + sizeof(here), to_user))
		pr_info(TAG "the good copy failed\n");
	pr_info(TAG "bad copy of a buffer in a frame that has returned\n");
	return copy_between(dead_frame_buffer(), zero + COPY_SIZE, to_user);
}

static bool stack_frame_to(void)
{
	return stack_frame(true);
}

static bool stack_frame_from(void)
{
	return stack_frame(false);
}

static bool heap_size_to(void)
{
	return heap_size(true);
}

static bool heap_size_from(void)
{
	return heap_size(false);
}

/* COPY_SIZE bytes starting one word below the stack's top: past its end. */
static bool stack_beyond(void)
{
	char *top = (char *)task_stack_page(current) + THREAD_SIZE - sizeof(long);

	pr_info(TAG "bad copy from one word below the stack's top\n");
	return copy_between(top, zero + COPY_SIZE, true);
}

/* The kernel's text, to user space. */
static bool kernel_text(void)
{
	pr_info(TAG "bad copy of kernel text (vm_mmap's first bytes)\n");
	return copy_between((void *)vm_mmap, zero + COPY_SIZE, true);
}

/*
 * A kmalloc object read after kfree, LKDTM's READ_AFTER_FREE: under
 * slub_debug=FP (Debian's kernel has CONFIG_SLUB_DEBUG, off by default) a
 * freed object is filled with POISON_FREE, so the read sees 0x6b bytes.
 * The word read is in the object's middle: SLUB keeps its free pointer
 * elsewhere.
 */
static bool read_after_free(void)
{
	int *obj = kmalloc(OBJ_SIZE, GFP_KERNEL);
	int mid = OBJ_SIZE / sizeof(int) / 2, saw;

	if (!obj)
		return false;
	obj[mid] = 0x12345678;
	kfree(obj);
	saw = ((volatile int *)obj)[mid];
	if (saw != 0x12345678)
		pr_info(TAG "Memory correctly poisoned (%x)\n", saw);
	else
		pr_info(TAG "Memory was not poisoned\n");
	return false;
}

/*
 * A write into a freed kmalloc object, LKDTM's WRITE_AFTER_FREE: under
 * slub_debug=FP (the poison, and the consistency checks that read it)
 * the next kmalloc of it finds the poison changed and SLUB reports
 * "Poison overwritten" (and repairs it); the writer goes on.
 */
static bool write_after_free(void)
{
	int *obj = kmalloc(OBJ_SIZE, GFP_KERNEL), *again;

	if (!obj)
		return false;
	kfree(obj);
	((volatile int *)obj)[OBJ_SIZE / sizeof(int) / 2] = 0x0abcdef0;
	again = kmalloc(OBJ_SIZE, GFP_KERNEL);
	if (again != obj)
		pr_info(TAG "the next kmalloc gave another object\n");
	kfree(again);
	return false;
}

/* n bytes of 0xff from p, in a function the compiler cannot see into. */
static noinline void overwrite(char *p, size_t n)
{
	memset(p, 0xff, n);
}

/*
 * Eight bytes of stack written with 64: over this frame's canary (the
 * kernel is built with -fstack-protector-strong), so the check on the way
 * out panics: "stack-protector: Kernel stack is corrupted in: ...". A
 * panic ends the boot, so linux/init.sh makes this one last.
 */
static noinline bool corrupt_stack(void)
{
	char data[8] __aligned(sizeof(long));

	pr_info(TAG "overflowing an 8-byte array on the stack with 64 bytes\n");
	overwrite(data, zero + 64);
	return true;
}

static const struct {
	const char *name;
	bool (*fn)(void);
} crashes[] = {
	{ "USERCOPY_HEAP_SIZE_TO", heap_size_to },
	{ "USERCOPY_HEAP_SIZE_FROM", heap_size_from },
	{ "USERCOPY_STACK_FRAME_TO", stack_frame_to },
	{ "USERCOPY_STACK_FRAME_FROM", stack_frame_from },
	{ "USERCOPY_STACK_BEYOND", stack_beyond },
	{ "USERCOPY_KERNEL", kernel_text },
	{ "READ_AFTER_FREE", read_after_free },
	{ "WRITE_AFTER_FREE", write_after_free },
	{ "CORRUPT_STACK", corrupt_stack },	/* last: its panic ends the boot */
};

static ssize_t direct_write(struct file *f, const char __user *ubuf, size_t len, loff_t *off)
{
	char name[40];
	size_t n = min(len, sizeof(name) - 1);
	int i;

	if (copy_from_user(name, ubuf, n))
		return -EFAULT;
	name[n] = '\0';
	strim(name);
	for (i = 0; i < ARRAY_SIZE(crashes); i++) {
		if (strcmp(name, crashes[i].name))
			continue;
		pr_info(TAG "performing %s\n", name);
		if (crashes[i].fn())
			pr_info(TAG "%s: not caught\n", name);
		return len;
	}
	pr_info(TAG "no crash named '%s'\n", name);
	return -EINVAL;
}

/* Reading DIRECT lists the names, one per line (linux/init.sh runs them all). */
static ssize_t direct_read(struct file *f, char __user *ubuf, size_t len, loff_t *off)
{
	char list[ARRAY_SIZE(crashes) * 32];
	size_t n = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(crashes); i++)
		n += scnprintf(list + n, sizeof(list) - n, "%s\n", crashes[i].name);
	return simple_read_from_buffer(ubuf, len, off, list, n);
}

static const struct file_operations direct_fops = {
	.owner = THIS_MODULE,
	.read = direct_read,
	.write = direct_write,
};

static int __init ronx_crash_init(void)
{
	dir = debugfs_create_dir("ronx-crash", NULL);
	debugfs_create_file("DIRECT", 0600, dir, NULL, &direct_fops);
	return 0;
}

static void __exit ronx_crash_exit(void)
{
	debugfs_remove_recursive(dir);
}

module_init(ronx_crash_init);
module_exit(ronx_crash_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Make the bugs of ronx's crash command on Linux, named as LKDTM names them");
