// SPDX-License-Identifier: GPL-2.0-only
/*
 * uname(2) and sethostname(2) (Linux: kernel/sys.c, struct new_utsname):
 * the system's names. ronx has no network; the host name is only a name
 * a process may set and read back. sethostname() takes len bytes with
 * copy_from_user(), NULs and all, as Linux does: it is not a string.
 * uts_lock (Linux: uts_sem) keeps a uname() on one CPU from reading a
 * name half written by a sethostname() on another; the user copy runs
 * outside it, on a copy of the names.
 */
#include <ronx/compiler.h>
#include <ronx/spinlock.h>
#include <ronx/string.h>
#include <ronx/uaccess.h>
#include <ronx/syscall.h>

#define __NEW_UTS_LEN	64

struct new_utsname {
	char sysname[__NEW_UTS_LEN + 1];
	char nodename[__NEW_UTS_LEN + 1];
	char release[__NEW_UTS_LEN + 1];
	char version[__NEW_UTS_LEN + 1];
	char machine[__NEW_UTS_LEN + 1];
	char domainname[__NEW_UTS_LEN + 1];
};

static DEFINE_SPINLOCK(uts_lock);
static struct new_utsname utsname = {
	.sysname = "ronx",
	.nodename = "(none)",		/* Linux's name before anyone sets one */
	.release = "0",
	.version = "#1",
	.machine = "i686",
	.domainname = "(none)",
};

long sys_newuname(uint32_t name)
{
	struct new_utsname copy;
	unsigned long flags;

	spin_lock_irqsave(&uts_lock, flags);
	copy = utsname;
	spin_unlock_irqrestore(&uts_lock, flags);
	return copy_to_user((void __user *)name, &copy, sizeof(copy)) ? -EFAULT : 0;
}

long sys_sethostname(uint32_t name, uint32_t len)
{
	char tmp[__NEW_UTS_LEN];
	unsigned long flags;

	if (len > __NEW_UTS_LEN)
		return -EINVAL;
	if (copy_from_user(tmp, (const void __user *)name, len))
		return -EFAULT;
	spin_lock_irqsave(&uts_lock, flags);
	memcpy(utsname.nodename, tmp, len);
	memset(utsname.nodename + len, 0, sizeof(utsname.nodename) - len);
	spin_unlock_irqrestore(&uts_lock, flags);
	return 0;
}
