// SPDX-License-Identifier: GPL-2.0-only
/*
 * walkstress ROUNDS: the lifetimes stress (issue 20). Every shell command
 * that looks at another task (walk VA PID, ptdump PID, wxcheck, ps, kill,
 * cpus) runs ROUNDS times against short-lived processes that exit
 * meanwhile on the other CPUs, while pagespray takes the freed pages back
 * and fills them with values that read as page-table entries pointing
 * outside memory. Without the references the commands hold (docs/design.md,
 * "Lifetimes") this oopses: wxcheck follows 0x3f000001 to 0xff000000,
 * walk reads the mm of a process that has just dropped it.
 *
 * The commands run through shell_execute(), each under its recovery, as
 * typed. Their answers stay off the console meanwhile
 * (console_set_quiet()); an oops or a BUG line does not. The summary
 * says what the commands found and how many oopses there were; the test
 * (tests/qemu/test_lifetimes.py) also compares meminfo before and after.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/kstrtox.h>
#include <ronx/shell.h>
#include <ronx/traps.h>
#include <ronx/smp.h>
#include <ronx/process.h>
#include <ronx/x86.h>

#define VICTIMS		2
#define VICTIM_ROUNDS	"2"	/* each victim maps, fills and unmaps twice, then exits */

struct stress {
	struct task *victim[VICTIMS];
	struct task *sprayer;
	unsigned spawned;
	unsigned found[4], gone[4];	/* walk text, ptdump, kill, walk mmap */
	uint64_t cycles[8];		/* TSC cycles in each command of one_round() */
};

/* pagespray -q [ROUNDS] in the background: its parent, the shell, collects it. */
static struct task *spawn_spray(const char *rounds)
{
	char *argv[] = { "pagespray", "-q", (char *)rounds, 0 };

	return spawn_process(argv[0], rounds ? 3 : 2, argv, true);
}

/* Exited victims are collected (their slots back) and new ones started. */
static void refill_victims(struct stress *s)
{
	for (int i = 0; i < VICTIMS; i++) {
		if (s->victim[i] && s->victim[i]->state == TASK_ZOMBIE) {
			wait_task(s->victim[i]);
			s->victim[i] = 0;
		}
		if (!s->victim[i] && (s->victim[i] = spawn_spray(VICTIM_ROUNDS)))
			s->spawned++;
	}
}

/* One command line about pid, as typed; counts whether it found the process. */
static void run_on(struct stress *s, int which, const char *fmt, int pid, int slot)
{
	char line[48];
	uint64_t t0 = rdtsc();
	int ret;

	snprintf(line, sizeof(line), fmt, pid);
	ret = shell_execute(line);
	s->cycles[slot] += rdtsc() - t0;
	if (which < 0)
		return;
	if (ret == -ENOENT)
		s->gone[which]++;
	else if (!ret)
		s->found[which]++;
}

static void one_round(struct stress *s, unsigned r)
{
	struct task *v = s->victim[r % VICTIMS];
	int pid = v ? v->pid : 0;

	run_on(s, 0, "walk 0x08048000 %d", pid, 0);
	run_on(s, 3, "walk 0x40000000 %d", pid, 1);	/* its mmap, unmapped and mapped again */
	run_on(s, 1, "ptdump %d", pid, 2);
	run_on(s, -1, "wxcheck", 0, 3);
	run_on(s, -1, "ps", 0, 4);
	/* cpus waits for every CPU to answer an IPI: slow under TCG, so one round in 16 */
	if (r % 16 == 5)
		run_on(s, -1, "cpus", 0, 5);
	if (r % 8 == 7)
		run_on(s, 2, "kill %d", pid, 6);
}

/* Everything it started is killed and collected: no slot, no page left behind. */
static void stop_all(struct stress *s)
{
	for (int i = 0; i < VICTIMS; i++) {
		if (!s->victim[i])
			continue;
		kill_task(s->victim[i], SIGKILL);
		wait_task(s->victim[i]);
	}
	if (s->sprayer) {
		kill_task(s->sprayer, SIGKILL);
		wait_task(s->sprayer);
	}
}

static int cmd_walkstress(int argc, char **argv)
{
	struct stress s = { 0 };
	unsigned long oopses = oops_count;
	unsigned int rounds;

	if (argc != 2 || kstrtouint_range(argv[1], 1, 1000000, &rounds)) {
		cprintf("usage: walkstress ROUNDS (1-1000000)\n");
		return -EINVAL;
	}
	s.sprayer = spawn_spray(0);
	if (!s.sprayer)
		return -ENOMEM;
	console_set_quiet(true);
	for (unsigned r = 0; r < rounds; r++) {
		uint64_t t0 = rdtsc();

		refill_victims(&s);
		s.cycles[7] += rdtsc() - t0;
		one_round(&s, r);
		cpu_relax();	/* a cross-CPU call sent to this CPU runs now */
	}
	stop_all(&s);
	console_set_quiet(false);
	oopses = oops_count - oopses;
	cprintf("walkstress: %u rounds on %d CPUs, %u processes started and collected\n", rounds,
		num_online_cpus(), s.spawned + 1);
	cprintf("walkstress: walk text %u read, %u gone; walk mmap %u read, %u gone; "
		"ptdump %u read, %u gone; kill %u sent, %u gone\n", s.found[0], s.gone[0],
		s.found[3], s.gone[3], s.found[1], s.gone[1], s.found[2], s.gone[2]);
	cprintf("walkstress: Mcycles in walk %llu %llu, ptdump %llu, wxcheck %llu, ps %llu, cpus %llu, kill %llu, spawn %llu\n",
		s.cycles[0] >> 20, s.cycles[1] >> 20, s.cycles[2] >> 20, s.cycles[3] >> 20,
		s.cycles[4] >> 20, s.cycles[5] >> 20, s.cycles[6] >> 20, s.cycles[7] >> 20);
	cprintf("walkstress: %lu oops%s\n", oopses, oopses == 1 ? "" : "es");
	return oopses ? -EFAULT : 0;
}
SHELL_COMMAND("walkstress", cmd_walkstress, "walkstress ROUNDS",
	      "walk/ptdump PID, wxcheck, ps, kill, cpus ROUNDS times against processes exiting on other CPUs");
