# SPDX-License-Identifier: GPL-2.0-only
"""Lab 9, tlb-shootdown: set_memory_*() on several CPUs. Each CPU caches
translations in its own TLB, so a page made read-only or NX on one CPU
stays writable or executable on the others until each has flushed it:
an IPI to every other CPU, each flushes (one page or all, by the
ceiling), acknowledges, and the caller waits (Linux: flush_tlb_kernel_range(),
smp_call_function_many()). The graded boot has three CPUs. See
docs/labs/tlb-shootdown.md.

`selftest smp_stress` (shootdowns while other CPUs spin on locks, text
patching while another CPU runs the site) is not graded here: nothing in
this lab's three functions can break it that the checks below do not see
first (the deadlock it looks for is prevented by cpu_relax(), which the
lab leaves alone), and it is the slow half of the SMP tests."""
import re

from grading import CheckFailed, GuestError, check, expect_ktap

CPUS = 3
SUITE_TIMEOUT = 300     # selftest smp: seconds under TCG on a loaded machine, not minutes


def smp_boot(ctx):
    """The three-CPU boot, with `selftest smp` run once: a kernel that hangs
    in it (a wait that never ends) costs one timeout, not one per check."""
    failed = getattr(ctx, "tlb_shootdown_failed", None)
    if failed:
        raise CheckFailed(failed)
    g = ctx.boot(smp=CPUS, tag="tlb")
    try:
        g.ktap("smp", timeout=SUITE_TIMEOUT)
    except GuestError as e:
        ctx.tlb_shootdown_failed = ("`selftest smp` did not finish in %d s on %d CPUs (a CPU "
                                    "waits for an acknowledgement that never comes?): %s"
                                    % (SUITE_TIMEOUT, CPUS, str(e)[-600:]))
        raise CheckFailed(ctx.tlb_shootdown_failed)
    return g


@check(points=10, name="every CPU answers a call and runs with the boot CPU's registers")
def calls(ctx):
    expect_ktap(smp_boot(ctx), "smp", ["every_online_cpu_answers_a_call",
                                       "every_cpu_runs_with_the_boot_cpus_control_registers"])


@check(points=15, name="set_memory_ro() and set_memory_nx() hold on every other CPU: "
                       "no stale write, no stale call, 2000 times each")
def no_stale(ctx):
    expect_ktap(smp_boot(ctx), "smp", ["no_stale_write_after_set_memory_ro",
                                       "no_stale_exec_after_set_memory_nx"])


@check(points=10, name="this CPU flushes too: a change is in force here at once")
def local(ctx):
    expect_ktap(smp_boot(ctx), "pageattr", ["ro_takes_effect_at_once", "nx_takes_effect_at_once"])


@check(points=10, name="past the ceiling every CPU flushes its whole TLB, global entries too")
def ceiling(ctx):
    g = smp_boot(ctx)
    expect_ktap(g, "smp", ["a_long_request_is_flushed_whole_on_every_cpu"])
    expect_ktap(g, "pageattr", ["long_request_flushes_everything"])


@check(points=10, name="set_memory_ro() returns only when every CPU has flushed")
def waits(ctx):
    expect_ktap(smp_boot(ctx), "smp", ["set_memory_ro_waits_for_every_cpu"])


@check(points=10, name="a process's mprotect reaches the CPU that has its page tables loaded")
def process(ctx):
    expect_ktap(smp_boot(ctx), "smp", ["process_mapping_changes_reach_a_cpu_that_has_it_loaded"])


@check(points=10, name="crash SMP_STALE_WRITE and SMP_STALE_EXEC fault on the other CPU")
def demos(ctx):
    g = smp_boot(ctx)
    for demo, want in (("SMP_STALE_WRITE", "the write faulted on CPU"),
                       ("SMP_STALE_EXEC", "the call faulted on CPU")):
        out = g.sh("crash " + demo)
        if want not in out or "FAIL" in out:
            lines = [l for l in out.splitlines() if l.startswith("lkdtm:")]
            raise CheckFailed("expected `crash %s` to oops on the other CPU (%r), found:\n  %s"
                              % (demo, want, "\n  ".join(lines[-4:]) or out.strip()[-300:]))


ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", re.M)


@check(points=5, name="cpastat: the boot's shootdowns reached every CPU, each counted its flushes")
def counted(ctx):
    out = smp_boot(ctx).sh("cpastat")
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
