/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Linux's errno values (include/uapi/asm-generic/errno-base.h and
 * errno.h), the ones ronx uses. One list for both sides: the kernel
 * returns them negated and the user library (user/include/ulib.h) names
 * them, so a program built against it reads the same values on Linux.
 */
#ifndef RONX_ERRNO_H
#define RONX_ERRNO_H

#define EPERM		1
#define ENOENT		2
#define ESRCH		3
#define EINTR		4
#define EIO		5
#define ENXIO		6
#define E2BIG		7
#define ENOEXEC		8
#define EBADF		9
#define ECHILD		10
#define EAGAIN		11
#define ENOMEM		12
#define EACCES		13
#define EFAULT		14
#define EBUSY		16
#define EEXIST		17
#define ENODEV		19
#define EINVAL		22
#define ENFILE		23
#define EMFILE		24
#define ENOTTY		25
#define EFBIG		27
#define ESPIPE		29
#define ERANGE		34
#define ENOSYS		38
#define ENOLINK		67
#define EOVERFLOW	75
#define EOPNOTSUPP	95

/* the kernel's own: a sleep a signal ended, never seen by ring 3 (kernel/signal_action.c) */
#define ERESTARTSYS	512

#endif
