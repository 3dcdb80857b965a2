// SPDX-License-Identifier: GPL-2.0-only
/*
 * lab_todo(): the line a stub prints, so that a student sees which lab
 * function is missing before whatever goes wrong without it.
 * Added to a student's tree by `make lab-start`; not part of ronx itself.
 */
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/lab.h>

static const char *told[32];

void lab_todo(const char *lab, const char *fn)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(told) && told[i]; i++)
		if (strcmp(told[i], fn) == 0)
			return;
	if (i < ARRAY_SIZE(told))
		told[i] = fn;
	printk(KERN_ERR "ronx: lab %s: %s() is not written yet - see docs/labs/%s.md\n",
	       lab, fn, lab);
}
