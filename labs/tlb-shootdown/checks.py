# SPDX-License-Identifier: GPL-2.0-only
"""Lab 12, tlb-shootdown: set_memory_*() on several CPUs. Each CPU caches
translations in its own TLB, so a page made read-only or NX on one CPU
stays writable or executable on the others until each has flushed it:
an IPI to every other CPU, each flushes (one page or all, by the
ceiling), acknowledges, and the caller waits (Linux: flush_tlb_kernel_range(),
smp_call_function_many()). The graded boots have three CPUs. See
docs/labs/tlb-shootdown.md.

Evidence the student's code cannot fake: at pages the grade picks, every
CPU writes a byte (`cpuwrite`), the shell's CPU makes the pages
read-only (`set_memory ro`), each CPU writes again, and QEMU reads the
byte in memory (`xp`): a write that went through is there. The rest comes from
the teacher's self-tests (`selftest smp`, `pageattr`) and crash demos.

`selftest smp_stress` (shootdowns while other CPUs spin on locks, text
patching while another CPU runs the site) is not graded here: nothing in
this lab's three functions can break it that the checks below do not see
first (the deadlock it looks for is prevented by cpu_relax(), which the
lab leaves alone), and it is the slow half of the SMP tests."""
import re

from grading import CheckFailed, GuestError, check, expect_ktap, step

CPUS = 3
SUITE_TIMEOUT = 300     # selftest smp: seconds under TCG on a loaded machine, not minutes
PAGE, PAGE_OFFSET = 4096, 0xC0000000
CEILING = 32            # TLB_FLUSH_CEILING

SEND = step("smp_call_function_many", "send the call to every other online CPU of mask",
            "first-cpu-only")
WAIT = step("smp_call_function_many", "with wait, until each has acknowledged", "no-wait")
END = step("smp_call_function_many", "end the call (call_function_end)", "call-never-ended")
PAGES = step("do_kernel_range_flush", "invlpg each page of the range", "first-page-only")
ALL = step("do_kernel_range_flush", "past TLB_FLUSH_CEILING pages, the whole TLB",
           "one-page-past-ceiling")
GLOBALS = step("do_kernel_range_flush", "... global entries too", None,
               "QEMU's TCG drops global entries on a CR3 write too, so a flush by CR3 reload "
               "passes every check the grader can run in QEMU (Bochs keeps them: the handout)")
COUNTED = step("do_kernel_range_flush", "count flush_one or flush_all", "flushes-uncounted")
EVERY = step("flush_tlb_kernel_range", "every other online CPU flushes", "local-only")
ITSELF = step("flush_tlb_kernel_range", "this one too", "forgets-itself")
WAITS = step("flush_tlb_kernel_range", "the caller waits for all of them",
             "flush-without-waiting")
OFF = step("flush_tlb_kernel_range", "only this CPU when cpa_shootdown is off",
           "ignores-cpa-shootdown")
SHOOTDOWN = step("flush_tlb_kernel_range", "count a shootdown", "shootdowns-uncounted")


def smp_boot(ctx, cmdline=""):
    """The three-CPU boot, with `selftest smp` run once: a kernel that hangs
    in it (a wait that never ends) costs one timeout, not one per check."""
    key = "tlb_shootdown_failed" + cmdline
    failed = getattr(ctx, key, None)
    if failed:
        raise CheckFailed(failed)
    g = ctx.boot(cmdline=cmdline, smp=CPUS, tag="tlb")
    if cmdline:
        return g
    try:
        g.ktap("smp", timeout=SUITE_TIMEOUT)
    except GuestError as e:
        setattr(ctx, key, "`selftest smp` did not finish in %d s on %d CPUs (a CPU waits for "
                "an acknowledgement that never comes?): %s" % (SUITE_TIMEOUT, CPUS, str(e)[-600:]))
        raise CheckFailed(getattr(ctx, key))
    return g


@check(points=10, name="every CPU answers a call and runs with the boot CPU's registers",
       steps=[SEND, END])
def calls(ctx):
    expect_ktap(smp_boot(ctx), "smp", ["every_online_cpu_answers_a_call",
                                       "every_cpu_runs_with_the_boot_cpus_control_registers"])


@check(points=15, name="set_memory_ro() and set_memory_nx() hold on every other CPU: "
                       "no stale write, no stale call, 2000 times each",
       steps=[SEND, EVERY, WAIT, WAITS])
def no_stale(ctx):
    expect_ktap(smp_boot(ctx), "smp", ["no_stale_write_after_set_memory_ro",
                                       "no_stale_exec_after_set_memory_nx"])


@check(points=10, name="this CPU flushes too: a change is in force here at once",
       steps=[ITSELF])
def local(ctx):
    expect_ktap(smp_boot(ctx), "pageattr", ["ro_takes_effect_at_once", "nx_takes_effect_at_once"])


@check(points=10, name="every page of a request is flushed on every CPU: one by one up to the "
                       "ceiling, everything past it", steps=[PAGES, ALL, ITSELF])
def ceiling(ctx):
    g = smp_boot(ctx)
    expect_ktap(g, "smp", ["every_page_of_a_short_request_is_flushed_on_every_cpu",
                           "a_long_request_is_flushed_whole_on_every_cpu",
                           "the_ceiling_decides_page_by_page_or_everything_on_every_cpu"])
    expect_ktap(g, "pageattr", ["long_request_flushes_everything"])


@check(points=10, name="set_memory_ro() returns only when every CPU has flushed",
       steps=[WAIT, WAITS])
def waits(ctx):
    expect_ktap(smp_boot(ctx), "smp", ["set_memory_ro_waits_for_every_cpu"])


@check(points=10, name="a process's mprotect reaches the CPU that has its page tables loaded",
       steps=[SEND, WAIT])
def process(ctx):
    expect_ktap(smp_boot(ctx), "smp", ["process_mapping_changes_reach_a_cpu_that_has_it_loaded"])


def xp_byte(g, va):
    out = g.monitor("xp /1bx 0x%x" % (va - PAGE_OFFSET))
    m = re.search(r":\s*0x([0-9a-f]+)", out)
    if not m:
        raise CheckFailed("expected QEMU's xp to read 0x%08x, found: %r" % (va, out))
    return int(m.group(1), 16)


def cpuwrite(g, cpu, va, byte):
    out = g.sh("cpuwrite %d %x %d" % (cpu, va, byte))
    if "cpuwrite: CPU %d" % cpu not in out:
        raise CheckFailed("expected `cpuwrite %d %x %d` to report, found: %s"
                          % (cpu, va, byte, out.strip()))
    return out


def set_memory(g, how, va, n):
    out = g.sh("set_memory %s %x %d" % (how, va, n))
    if not re.search(r"set_memory_%s\(0x%08x, %d\) = 0" % (how, va, n), out):
        raise CheckFailed("expected `set_memory %s %x %d` to succeed, found: %s"
                          % (how, va, n, out.strip()))


@check(points=15, name="pages picked at grade time: after set_memory ro here, no other CPU's "
                       "write reaches memory (QEMU reads it)",
       steps=[SEND, EVERY, PAGES, ALL])
def writes_seen_by_qemu(ctx):
    g = smp_boot(ctx)
    r = ctx.rng("tlb-shootdown writes")
    bad = []
    for n in (1, r.randrange(2, CEILING + 1), r.randrange(CEILING + 1, 4 * CEILING)):
        # free RAM of the 128M machine, away from what boot and the self-tests use
        va = PAGE_OFFSET + r.randrange((64 << 20) // PAGE, ((120 << 20) // PAGE) - n) * PAGE
        page = va + r.choice(sorted({0, n // 2, n - 1})) * PAGE
        before = r.randrange(1, 128)
        # every CPU: the shell may run set_memory on any of them, the others are "other"
        for cpu in range(CPUS):
            cpuwrite(g, cpu, page, before)      # its TLB now holds the page, writable
        set_memory(g, "ro", va, n)
        for cpu in range(CPUS):
            out = cpuwrite(g, cpu, page, 128 + cpu)
            found = xp_byte(g, page)
            if found != before:
                bad.append("0x%08x (page %d of set_memory ro 0x%08x %d): CPU %d's write "
                           "reached memory: QEMU reads %#x, expected %#x (%s)"
                           % (page, (page - va) // PAGE, va, n, cpu, found, before, out.strip()))
        set_memory(g, "rw", va, n)
    if bad:
        raise CheckFailed("\n".join(bad))


@check(points=10, name="crash SMP_STALE_WRITE and SMP_STALE_EXEC fault on the other CPU",
       steps=[EVERY])
def demos(ctx):
    g = smp_boot(ctx)
    for demo, want in (("SMP_STALE_WRITE", "the write faulted on CPU"),
                       ("SMP_STALE_EXEC", "the call faulted on CPU")):
        out = g.sh("crash " + demo)
        if want not in out or "FAIL" in out:
            lines = [l for l in out.splitlines() if l.startswith("lkdtm:")]
            raise CheckFailed("expected `crash %s` to oops on the other CPU (%r), found:\n  %s"
                              % (demo, want, "\n  ".join(lines[-4:]) or out.strip()[-300:]))


@check(points=5, name="cpa_shootdown=off: only this CPU flushes, and the stale entry shows",
       steps=[OFF])
def shootdown_off(ctx):
    out = smp_boot(ctx, "cpa_shootdown=off").sh("crash SMP_STALE_WRITE")
    if "write went through on CPU" not in out:
        lines = [l for l in out.splitlines() if l.startswith("lkdtm:")]
        raise CheckFailed("expected, with cpa_shootdown=off, `crash SMP_STALE_WRITE` to say the "
                          "write went through on the other CPU, found:\n  %s"
                          % ("\n  ".join(lines[-4:]) or out.strip()[-300:]))


ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", re.M)


@check(points=5, name="cpastat: the boot's shootdowns reached every CPU, each counted its flushes",
       steps=[COUNTED, SHOOTDOWN])
def counted(ctx):
    # a boot of its own: nothing but the boot's own set_memory_*() counted yet
    out = ctx.boot(smp=CPUS, tag="tlb-count").sh("cpastat")
    rows = {int(m.group(1)): [int(x) for x in m.groups()[1:]] for m in ROW.finditer(out)}
    if sorted(rows) != list(range(CPUS)):
        raise CheckFailed("expected one cpastat row per CPU (0-%d), found:\n%s" % (CPUS - 1, out))
    bad = []
    if not rows[0][0]:
        bad.append("CPU 0 counted no shootdown (set_memory_*() ran at boot with %d CPUs up)" % CPUS)
    for cpu, (shoot, sent, run, spinning, one, full) in sorted(rows.items()):
        if cpu and not run:
            bad.append("CPU %d ran no call for another CPU" % cpu)
        if not one + full:
            bad.append("CPU %d counted no flush (invlpg or full)" % cpu)
    if bad:
        raise CheckFailed("\n".join(bad) + "\ncpastat said:\n" + out.strip())
