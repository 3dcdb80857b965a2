/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_SHELL_H
#define RONX_SHELL_H

/* A shell command; fn returns 0 on success. Registered by SHELL_COMMAND(). */
struct shell_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *help;
};

#define SHELL_COMMAND(name_, fn, usage_, help_)				\
	static const struct shell_cmd __shell_cmd_##fn			\
	__attribute__((used, section(".shell_cmds"), aligned(4))) =	\
	{ name_, fn, usage_, help_ }

#define SHELL_MAX_ARGS	16
int split_words(char *line, char **argv, int max);
void shell_run(void) __attribute__((noreturn));
void reap_background(void);	/* kernel/shell/process_cmds.c */
int shell_execute(char *line);
/* An emit callback for pure printers (ptdump, walk): one line to the console. */
void shell_print_line(void *ctx, const char *line);
#endif
