// SPDX-License-Identifier: GPL-2.0-only
/*
 * A small code-patching client: redirect the 5-byte call at patchme's
 * exported patchme_site to a probe in the kernel that counts calls, run
 * the module, then restore the original bytes. Shell: "patch seed" does it
 * seed 003's way, "patch alias" through a temporary alias mapping; both
 * run the W^X audit while the patch is being written. "patch open" and
 * "patch close" hold seed 003's window open between two commands, so that
 * walk, wxcheck or QEMU's info tlb can look at it.
 */
#include <ronx/compiler.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/shell.h>
#include <ronx/ptdump.h>
#include <ronx/module.h>

#define CALL_REL32	0xe8

static unsigned long probe_hits;

static void patch_probe_hit(void)
{
	probe_hits++;
}

struct patch_target {
	unsigned char *site;
	unsigned int *counter;
	unsigned int (*run)(unsigned int n);
};

static int find_target(struct patch_target *t)
{
	struct module *owner;
	const struct kernel_symbol *site = find_symbol("patchme_site", &owner);
	const struct kernel_symbol *counter = find_symbol("patchme_counter", &owner);
	const struct kernel_symbol *run = find_symbol("patchme_run", &owner);

	if (!site || !counter || !run) {
		cprintf("patch: load the patchme module first (insmod patchme)\n");
		return -ENOENT;
	}
	t->site = (unsigned char *)site->value;
	t->counter = (unsigned int *)counter->value;
	t->run = (unsigned int (*)(unsigned int))run->value;
	if (t->site[0] != CALL_REL32) {
		cprintf("patch: patchme_site does not hold a call (already patched?)\n");
		return -EINVAL;
	}
	return 0;
}

/* Write 5 bytes the chosen way; returns the W+X pages seen while writing. */
static unsigned long write_site(unsigned char *site, const unsigned char *bytes, bool alias)
{
	unsigned long wx_seen = 0;
	struct wx_report wx;

	if (alias) {
		text_poke(site, bytes, 5, &wx_seen);
		return wx_seen;
	}
	set_all_modules_text_rw();
	text_poke_write(site, bytes, 5);
	wx = ptdump_check_wx();
	set_all_modules_text_ro();
	return wx.wx_pages;
}

/* Run the call site n times: which code ran, the probe or patchme_hook? */
static void run_and_count(const struct patch_target *t, const char *state, unsigned int n)
{
	unsigned long hits = probe_hits;
	unsigned int count = *t->counter;

	t->run(n);
	cprintf("patch: %s: patchme_run(%u) -> probe hits +%lu, patchme_counter +%u\n",
		state, n, probe_hits - hits, *t->counter - count);
}

/* Seed 003's window, held open: every module's text RW+X until "patch close". */
static int patch_window(bool open)
{
	if (open)
		set_all_modules_text_rw();
	else
		set_all_modules_text_ro();
	cprintf("patch: every module's text is now %s\n", open ?
		"writable and executable (seed 003's window; 'patch close' ends it)" :
		"read-only again");
	return 0;
}

static int cmd_patch(int argc, char **argv)
{
	bool alias = argc == 2 && strcmp(argv[1], "alias") == 0;
	unsigned char orig[5], probe[5];
	struct patch_target t;
	unsigned long wx_patch, wx_restore;
	int rel;

	if (argc == 2 && (strcmp(argv[1], "open") == 0 || strcmp(argv[1], "close") == 0))
		return patch_window(strcmp(argv[1], "open") == 0);
	if (argc != 2 || (!alias && strcmp(argv[1], "seed") != 0)) {
		cprintf("usage: patch seed|alias|open|close\n");
		return -EINVAL;
	}
	if (find_target(&t))
		return -ENOENT;
	memcpy(orig, t.site, 5);
	rel = (int)((unsigned long)patch_probe_hit - (unsigned long)(t.site + 5));
	probe[0] = CALL_REL32;
	memcpy(probe + 1, &rel, 4);

	cprintf("patch: %s\n", alias ? "through a temporary RW+NX alias of the text page" :
		"seed 003's way: set_all_modules_text_rw(), write, set_all_modules_text_ro()");
	wx_patch = write_site(t.site, probe, alias);
	run_and_count(&t, "patched", 3);
	wx_restore = write_site(t.site, orig, alias);
	run_and_count(&t, "restored", 1);
	cprintf("patch: W+X pages while writing: %lu (patch), %lu (restore)\n",
		wx_patch, wx_restore);
	return 0;
}
SHELL_COMMAND("patch", cmd_patch, "patch seed|alias|open|close",
	      "patch a call site in module text: seed 003's W+X window, or an alias mapping");
