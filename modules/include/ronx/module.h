/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * module.h - everything a ronx module's source needs (and all it may use).
 *
 * A module is one .c file built with modules/modules.mk into an ELF32
 * relocatable object (build/modules/NAME.ko). It may call only what the
 * kernel or an already loaded module exports with EXPORT_SYMBOL().
 * See docs/modules.md.
 */
#ifndef RONX_MODULE_H
#define RONX_MODULE_H
#include <ronx/export.h>

/* Placement: the loader groups sections by name and flags (layout.h). */
#define __init		__attribute__((section(".init.text"), noinline))
#define __initdata	__attribute__((section(".init.data")))
#define __exit		__attribute__((noinline))
#define __ro_after_init	__attribute__((section(".data..ro_after_init")))

/*
 * The loader calls init_module() after loading (non-zero refuses the load)
 * and cleanup_module() before unloading; these make them aliases of the
 * author's functions, as Linux 2.6 did.
 */
#define module_init(fn)							\
	int init_module(void) __attribute__((alias(#fn)))
#define module_exit(fn)							\
	void cleanup_module(void) __attribute__((alias(#fn)))

/* .modinfo holds "key=value\0" strings, read from the file, never loaded. */
#define __MODINFO_ID2(a, b)	a##b
#define __MODINFO_ID(a, b)	__MODINFO_ID2(a, b)
#define MODULE_INFO(key, value)						\
	static const char __MODINFO_ID(__modinfo_, __LINE__)[]		\
	__attribute__((section(".modinfo"), used, aligned(1))) = #key "=" value

#define MODULE_LICENSE(s)	MODULE_INFO(license, s)
#define MODULE_DESCRIPTION(s)	MODULE_INFO(description, s)
#define MODULE_AUTHOR(s)	MODULE_INFO(author, s)

/* The build passes -DKBUILD_MODNAME=NAME; the kernel reads "name=". */
#ifdef KBUILD_MODNAME
#define __MODNAME_STR2(x)	#x
#define __MODNAME_STR(x)	__MODNAME_STR2(x)
MODULE_INFO(name, __MODNAME_STR(KBUILD_MODNAME));
#endif

/* printk levels, as Linux: printk(KERN_INFO "hello") */
#include <ronx/kern_levels.h>

int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
