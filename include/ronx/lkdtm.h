/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_LKDTM_H
#define RONX_LKDTM_H

struct crashtype {
	const char *name;
	void (*fn)(void);
	const char *help;
};

/* Crash types defined elsewhere (the module loader's) register themselves. */
#define CRASHTYPE(name_, fn, help_)					\
	static const struct crashtype __crashtype_##fn			\
	__attribute__((used, section(".crashtypes"), aligned(4))) =	\
	{ name_, fn, help_ }

/*
 * kmalloc objects a demo holds: the shell frees them after the demo, also
 * when it oopses half-way (kernel/shell/lkdtm.c), so no demo leaks a slab.
 */
#define LKDTM_OBJECTS	2
extern void *lkdtm_objects[LKDTM_OBJECTS];
#endif
