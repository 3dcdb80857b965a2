/* SPDX-License-Identifier: GPL-2.0-only */
/* printk log levels, shared by the kernel and modules (Linux: kern_levels.h). */
#ifndef RONX_KERN_LEVELS_H
#define RONX_KERN_LEVELS_H

/* A level is a prefix byte pair, as in Linux: "\001" then '0'..'7'. */
#define KERN_SOH	"\001"
#define KERN_EMERG	KERN_SOH "0"
#define KERN_ALERT	KERN_SOH "1"
#define KERN_CRIT	KERN_SOH "2"
#define KERN_ERR	KERN_SOH "3"
#define KERN_WARNING	KERN_SOH "4"
#define KERN_NOTICE	KERN_SOH "5"
#define KERN_INFO	KERN_SOH "6"
#define KERN_DEBUG	KERN_SOH "7"
#endif
