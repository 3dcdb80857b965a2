/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Lab scaffolding: `make lab-start` adds this file to a student's tree.
 * A function the lab asks for is a stub that calls lab_todo() and
 * returns a neutral value until the student writes it.
 */
#ifndef RONX_LAB_H
#define RONX_LAB_H
#include <stdbool.h>
#include <ronx/compiler.h>

#if __STDC_HOSTED__
/* The pure code is also built for the host (make host-test, make fuzz). */
#include <stdio.h>
static inline void lab_todo(const char *lab, const char *fn)
{
	fprintf(stderr, "ronx: lab %s: %s() is not written yet - see docs/labs/%s.md\n",
		lab, fn, lab);
}
#else
/* Says, once per function, that fn() of lab is still a stub. */
void lab_todo(const char *lab, const char *fn);
#endif
#endif
