/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_CMDLINE_H
#define RONX_CMDLINE_H

/*
 * A kernel command-line option, Linux style: "name=value" or "name".
 * setup() returns 0, or -EINVAL when it does not understand the value.
 */
struct boot_param {
	const char *name;
	int (*setup)(const char *val);
	const char *values;	/* what it accepts, for the error message */
};

#define BOOT_PARAM(name_, fn, values_)					\
	static const struct boot_param __param_##fn			\
	__attribute__((used, section(".boot_params"), aligned(4))) =	\
	{ name_, fn, values_ }

#include <stdbool.h>

int parse_on_off(const char *val, bool *out);
char *next_arg(char *args, char **param, char **val);
int parse_args(char *args, const struct boot_param *start,
	       const struct boot_param *end,
	       void (*report)(const char *msg));

#define COMMAND_LINE_SIZE 512
extern char boot_command_line[COMMAND_LINE_SIZE];
#endif
