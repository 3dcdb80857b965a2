// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process's file descriptors (Linux: fs/file.c, fs/open.c's close and
 * ftruncate, mm/memfd.c's memfd_create). Descriptors 0, 1 and 2 are the
 * console, always (kernel/read_write.c); 3 to NR_OPEN - 1 may each hold
 * a memfd, ronx's only kind of file. The lowest free one is given out,
 * as Linux does.
 *
 *   fork    the child gets the same memfds under the same numbers, one
 *           more reference each: both processes reach one object.
 *   execve  closes those created with MFD_CLOEXEC, keeps the others.
 *   exit    closes all; mappings of a memfd outlive its descriptors
 *           (they hold its frames, mm/memfd.c).
 *
 * No lock: a process has one thread, and only it (or fork, copying its
 * own table, or its exit) touches its table.
 *
 * Departures from Linux (docs/user-mode.md): close() of 0, 1 or 2
 * succeeds and the console stays; MFD_HUGETLB is EINVAL; a memfd is at
 * most MEMFD_MAX_PAGES pages (EFBIG beyond); read and write do not reach
 * a memfd (EBADF, as for any descriptor above 2): mmap does.
 */
#include <ronx/compiler.h>
#include <ronx/string.h>
#include <ronx/sched.h>
#include <ronx/uaccess.h>
#include <ronx/memfd.h>

/* The memfd open as fd in the calling process, or NULL. */
struct memfd *fget_memfd(int fd)
{
	return fd >= 3 && fd < NR_OPEN ? current->files[fd] : 0;
}

static int get_unused_fd(void)
{
	for (int fd = 3; fd < NR_OPEN; fd++)
		if (!current->files[fd])
			return fd;
	return -EMFILE;
}

static void close_fd(struct task *t, int fd)
{
	struct memfd *m = t->files[fd];

	t->files[fd] = 0;
	t->close_on_exec &= ~(1u << fd);
	if (m)
		memfd_put(m);
}

void files_fork(struct task *child, const struct task *parent)
{
	for (int fd = 3; fd < NR_OPEN; fd++) {
		child->files[fd] = parent->files[fd];
		if (child->files[fd])
			memfd_get(child->files[fd]);
	}
	child->close_on_exec = parent->close_on_exec;
}

void files_exec(struct task *t)
{
	for (int fd = 3; fd < NR_OPEN; fd++)
		if (t->close_on_exec & (1u << fd))
			close_fd(t, fd);
}

/* Called while the process still has its mm: frame_refs[] lives as long as some mm does. */
void files_exit(struct task *t)
{
	for (int fd = 3; fd < NR_OPEN; fd++)
		close_fd(t, fd);
}

#define MFD_HUGETLB	0x0004U
#define MFD_ALL_FLAGS	(MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB)

/*
 * memfd_create(name, flags): a new memfd of size 0 at the lowest free
 * descriptor. Checked in Linux's order: flags (EINVAL), the name (EFAULT;
 * EINVAL past 249 bytes), a descriptor (EMFILE), the object (ENFILE,
 * ENOMEM).
 */
long sys_memfd_create(uint32_t uname, uint32_t flags)
{
	char name[MFD_NAME_MAX_LEN + 1];
	struct memfd *m;
	long n, err = 0;
	int fd;

	if (flags & ~MFD_ALL_FLAGS || flags & MFD_HUGETLB)
		return -EINVAL;	/* ronx has no huge pages */
	n = strncpy_from_user(name, (const char __user *)uname, sizeof(name));
	if (n < 0)
		return -EFAULT;
	if (n == (long)sizeof(name))
		return -EINVAL;	/* no NUL within 249 bytes and one */
	fd = get_unused_fd();
	if (fd < 0)
		return fd;
	m = memfd_alloc(name, &err);
	if (!m)
		return err;
	current->files[fd] = m;
	if (flags & MFD_CLOEXEC)
		current->close_on_exec |= 1u << fd;
	return fd;
}

long sys_close(uint32_t fd)
{
	if (fd <= 2)
		return 0;	/* the console stays open */
	if (!fget_memfd((int)fd))
		return -EBADF;
	close_fd(current, (int)fd);
	return 0;
}

/* Linux's do_sys_ftruncate(): EBADF for no file, EINVAL for the console (not a regular file). */
static long do_ftruncate(uint32_t fd, int64_t length)
{
	struct memfd *m = fget_memfd((int)fd);

	if (length < 0)
		return -EINVAL;
	if (!m)
		return fd <= 2 ? -EINVAL : -EBADF;
	return memfd_resize(m, (uint64_t)length);
}

long sys_ftruncate(uint32_t fd, uint32_t length)
{
	return do_ftruncate(fd, (int32_t)length);	/* off_t: a signed long */
}

/* i386 passes the 64-bit length as two registers, low word first */
long sys_ftruncate64(uint32_t fd, uint32_t lo, uint32_t hi)
{
	return do_ftruncate(fd, (int64_t)(((uint64_t)hi << 32) | lo));
}
