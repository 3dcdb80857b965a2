// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel command-line parsing with Linux's syntax: space-separated words,
 * each "param" or "param=value", double quotes around anything with spaces.
 * Pure: the host unit tests run it. Unknown options and bad values are
 * reported, never silently ignored.
 */
#include <stdbool.h>
#include <stddef.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/compiler.h>
#include <ronx/cmdline.h>

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static char *skip_spaces(char *s)
{
	while (is_space(*s))
		s++;
	return s;
}

/*
 * Cuts the next word out of args (writing NULs into it) and returns where
 * the rest starts. *val is NULL for a word without '='.
 */
char *next_arg(char *args, char **param, char **val)
{
	bool in_quote = false, quoted = false;
	size_t i, equals = 0;

	if (*args == '"') {
		args++;
		in_quote = quoted = true;
	}
	for (i = 0; args[i]; i++) {
		if (is_space(args[i]) && !in_quote)
			break;
		if (equals == 0 && args[i] == '=')
			equals = i;
		if (args[i] == '"')
			in_quote = !in_quote;
	}
	*param = args;
	if (!equals) {
		*val = NULL;
	} else {
		args[equals] = '\0';
		*val = args + equals + 1;
		if (**val == '"') {
			(*val)++;
			if (i > 0 && args[i - 1] == '"')
				args[i - 1] = '\0';
		}
	}
	if (quoted && i > 0 && args[i - 1] == '"')
		args[i - 1] = '\0';
	if (args[i]) {
		args[i] = '\0';
		return skip_spaces(args + i + 1);
	}
	return args + i;
}

static const struct boot_param *find_param(const char *name,
					   const struct boot_param *start,
					   const struct boot_param *end)
{
	for (const struct boot_param *p = start; p < end; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

/* Returns the number of words that were unknown or had a bad value. */
int parse_args(char *args, const struct boot_param *start,
	       const struct boot_param *end, void (*report)(const char *msg))
{
	char msg[160];
	int errors = 0;

	args = skip_spaces(args);
	while (*args) {
		char *param, *val;
		const struct boot_param *p;

		args = next_arg(args, &param, &val);
		p = find_param(param, start, end);
		if (!p) {
			snprintf(msg, sizeof(msg),
				 "unknown command line option '%s' (ignored)", param);
			report(msg);
			errors++;
		} else if (p->setup(val) != 0) {
			snprintf(msg, sizeof(msg),
				 "bad value '%s' for option '%s' (expected %s)",
				 val ? val : "", param, p->values);
			report(msg);
			errors++;
		}
	}
	return errors;
}

/* The value of an on|off option into *out; -EINVAL for anything else. */
int parse_on_off(const char *val, bool *out)
{
	if (val && strcmp(val, "on") == 0)
		*out = true;
	else if (val && strcmp(val, "off") == 0)
		*out = false;
	else
		return -EINVAL;
	return 0;
}
