# SPDX-License-Identifier: GPL-2.0-only
"""Process names printed safely (issue 20, item 5). evilname names itself
"\\nronx> \\e[2Jpwn" (PR_SET_NAME): a newline, a fake prompt and the escape
sequence that clears a terminal. Every line the kernel prints with a
name (the shell's status lines, ps, cpus, kill, the segfault and traps
lines, dmesg) must show it escaped as Linux's %pE does, and the console
must carry none of its raw bytes: no ESC at all, no prompt line the
shell did not print. The OOM killer's line and the virtual-8086 line
too (issue 34), and on make run's CPU (+smep,+smap) as well."""
import re

from guest import CPU_SMAP, Guest, GuestError

ESCAPED = r"\nronx> \e[2Jpwn"          # what the kernel must print, as text
RAW = "\nronx> \x1b[2Jpwn"


def raw_free(t, console, typed, lane=""):
    """No ESC byte and no prompt line the shell did not print (typed: the lines the test sent)."""
    t.check("\x1b" not in console and RAW not in console,
            "%sthe console never carried the raw name or an ESC byte" % lane,
            repr(console[console.find("\x1b") - 80:console.find("\x1b") + 20]))
    # every prompt line is the shell's: followed by what the test typed, or the end
    forged = [l for l in console.split("\n") if l.startswith("ronx> ") and
              l[len("ronx> "):] not in typed and not l[len("ronx> "):].startswith("evilname: ")]
    t.check(not forged, "%sno prompt line the shell did not print" % lane, repr(forged[:3]))


def test_names_escaped(t):
    with Guest("names", extra=["-smp", "2"]) as g:
        g.wait_ready()
        boot_end = len(g.out)
        # alive: ps and cpus while it sleeps, then kill
        mark = len(g.out)
        g.send(b"run evilname 60000 &\r")
        pid = g.wait_for(r"\[(\d+)\] evilname\n", start=mark).group(1)
        g.wait_for(r"evilname: named itself", start=mark)
        g.wait_for(r"ronx> ", start=mark)
        ps = g.command("ps")
        # nanosleep() wakes at every tick to check its deadline, so ps on the
        # other CPU may catch it running or runnable as well as sleeping
        t.check(re.search(r"^\s*%s (sleeping|running|runnable) .* %s$" % (pid, re.escape(ESCAPED)),
                          ps, re.M),
                "ps shows the name escaped: %s" % ESCAPED, ps)
        out = g.command("kill %s" % pid)
        t.check("kill: SIGKILL sent to %s[%s]" % (ESCAPED, pid) in out,
                "kill's line names it escaped", out)
        # the shell reports the ended job before a prompt: kill does not wait
        # for it to die on the other CPU, so the next prompt may come first
        reported = False
        for _ in range(10):
            g.send(b"\r")
            try:
                g.wait_for(re.escape("[%s] %s: killed by SIGKILL" % (pid, ESCAPED)), 3, mark)
                reported = True
                break
            except GuestError:
                pass
        t.check(reported, "the shell's status line for the killed job: [%s] %s: killed by SIGKILL"
                % (pid, ESCAPED), g.out[mark:][-400:])
        # the segfault line and the shell's status line
        out = g.command("run evilname")
        m = re.search(r"^%s\[(\d+)\]: segfault at 0 ip [0-9a-f]{8} sp [0-9a-f]{8} error 6"
                      % re.escape(ESCAPED), out, re.M)
        t.check(m, "the segfault line names it escaped", out)
        t.check(m and re.search(r"^\[%s\] %s: killed by SIGSEGV$" % (m.group(1), re.escape(ESCAPED)),
                                out, re.M), "run's status line names it escaped", out)
        # the traps line
        out = g.command("run evilname 0 ud2")
        t.check(re.search(r"^traps: %s\[\d+\] trap invalid opcode ip:" % re.escape(ESCAPED), out, re.M),
                "the traps line names it escaped", out)
        # the OOM killer's line (ronx's 32 MiB per process) and the virtual-8086 line
        out = g.command("run evilname 0 oom", timeout=60)
        m = re.search(r"^Out of memory: Killed process (\d+) \(%s\) total-vm:" % re.escape(ESCAPED),
                      out, re.M)
        t.check(m, "the OOM killer's line names it escaped", out)
        t.check(m and re.search(r"^\[%s\] %s: killed by SIGKILL$" % (m.group(1), re.escape(ESCAPED)),
                                out, re.M), "the OOM-killed job's status line names it escaped", out)
        out = g.command("run evilname 0 vm86", timeout=30)
        m = re.search(r"^traps: %s\[(\d+)\] in virtual-8086 mode ip:" % re.escape(ESCAPED), out, re.M)
        t.check(m, "the virtual-8086 line names it escaped", out)
        t.check(m and re.search(r"^\[%s\] %s: killed by SIGSEGV$" % (m.group(1), re.escape(ESCAPED)),
                                out, re.M), "the vm86-killed job's status line names it escaped", out)
        dmesg = g.command("dmesg")
        t.check(all(re.search(r, dmesg, re.M) for r in (
                    r"^%s\[\d+\]: segfault at 0 " % re.escape(ESCAPED),
                    r"^traps: %s\[\d+\] trap invalid opcode" % re.escape(ESCAPED),
                    r"^Out of memory: Killed process \d+ \(%s\)" % re.escape(ESCAPED),
                    r"^traps: %s\[\d+\] in virtual-8086 mode" % re.escape(ESCAPED))),
                "dmesg keeps the escaped lines", dmesg[-900:])
        raw_free(t, g.out[boot_end:], ("", "ps", "kill %s" % pid, "run evilname", "run evilname 0 ud2",
                                       "dmesg", "run evilname 60000 &", "run evilname 0 oom",
                                       "run evilname 0 vm86"))
        out = g.command("meminfo")
        t.check("Oopses:            0" in out, "no oops", out)
        g.poweroff()


def test_names_escaped_smap(t):
    """On make run's CPU (+smep,+smap): QEMU's TCG faults the iret to
    virtual-8086 mode itself (tests/user/progs.py, SMAP_IRET_CASES), and
    that ends, within a bounded wait, in the segfault line, escaped."""
    with Guest("names smap", cpu=CPU_SMAP) as g:
        g.wait_ready()
        boot_end = len(g.out)
        try:
            out = g.command("run evilname 0 vm86", timeout=20)
        except GuestError:
            t.fail("[smap] run evilname 0 vm86 ends within 20 s",
                   "no prompt after it: the process never ended (a fault served and retried "
                   "forever, issue 34); last output: %r" % g.out[-300:])
            return
        m = re.search(r"^%s\[(\d+)\]: segfault at ([0-9a-f]+) ip [0-9a-f]+ sp ([0-9a-f]+) error 1 "
                      % re.escape(ESCAPED), out, re.M)
        t.check(m and m.group(2) == m.group(3) and "ronx: SMAP refused the CPU's own" in out,
                "[smap] its iret ends in the segfault line at its own sp, error 1, escaped", out)
        t.check(m and re.search(r"^\[%s\] %s: killed by SIGSEGV$" % (m.group(1), re.escape(ESCAPED)),
                                out, re.M), "[smap] its status line names it escaped", out)
        raw_free(t, g.out[boot_end:], ("", "run evilname 0 vm86"), "[smap] ")
        g.poweroff()
