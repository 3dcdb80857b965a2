// SPDX-License-Identifier: GPL-2.0-only
/*
 * The serial shell. One command per line; each runs under a loud recovery,
 * so a command that oopses (a crash demo, a bug) prints its oops and
 * brings us back to the prompt instead of taking the kernel down.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/console.h>
#include <ronx/recovery.h>
#include <ronx/shell.h>
#include <ronx/tty.h>

extern const struct shell_cmd __start_shell_cmds[], __stop_shell_cmds[];

static const struct shell_cmd *find_command(const char *name)
{
	for (const struct shell_cmd *c = __start_shell_cmds; c < __stop_shell_cmds; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return 0;
}

/* Kept outside the frame that longjmp returns to, so nothing is clobbered. */
static const struct shell_cmd *running;
static int running_argc;
static char **running_argv;

static int run_guarded(void)
{
	struct recovery r;
	int ret;

	if (catch_faults(&r, false)) {
		cprintf("shell: '%s' was stopped by the oops above; back at the prompt\n",
			running->name);
		return -EFAULT;
	}
	ret = running->fn(running_argc, running_argv);
	recovery_pop(&r);
	return ret;
}

/* One command line; a command may run others (walkstress): what runs is saved around it. */
int shell_execute(char *line)
{
	char *argv[SHELL_MAX_ARGS];
	int argc = split_words(line, argv, SHELL_MAX_ARGS);
	const struct shell_cmd *c, *outer = running;
	char **outer_argv = running_argv;
	int outer_argc = running_argc, ret;

	if (argc == 0)
		return 0;
	if (argc < 0) {
		cprintf("shell: too many words (at most %d)\n", SHELL_MAX_ARGS);
		return -EINVAL;
	}
	c = find_command(argv[0]);
	if (!c) {
		cprintf("shell: unknown command '%s' (type 'help' for the list)\n", argv[0]);
		return -ENOENT;
	}
	running = c;
	running_argc = argc;
	running_argv = argv;
	ret = run_guarded();
	running = outer;
	running_argc = outer_argc;
	running_argv = outer_argv;
	return ret;
}

void shell_run(void)
{
	static char line[256];

	for (;;) {
		reap_background();
		/* a quiet command (walkstress) stopped by an oops leaves the console quiet: not past here */
		console_set_quiet(false);
		cprintf("ronx> ");
		if (tty_read_line(line, sizeof(line)) > 0)
			shell_execute(line);
	}
}

void shell_print_line(void *ctx, const char *line)
{
	(void)ctx;
	cprintf("%s\n", line);
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cprintf("Commands:\n");
	for (const struct shell_cmd *c = __start_shell_cmds; c < __stop_shell_cmds; c++)
		cprintf("  %-22s %s\n", c->usage, c->help);
	return 0;
}
SHELL_COMMAND("help", cmd_help, "help", "list the commands");
