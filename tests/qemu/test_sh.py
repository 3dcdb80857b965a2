# SPDX-License-Identifier: GPL-2.0-only
"""bin/sh, the shell that is itself a process (issue 22 item 6), typed at
on ronx's console: `run sh` starts it; at its `$ ` prompt a program runs
(fork, execve, wait4), one runs in the background (its pid printed, `wait`
reaps it), a missing one gets one clear line, a child reads the console
(cat), and `exit N` goes back to the kernel's `ronx> ` prompt with N as
sh's status and every page returned. Ctrl-C kills sh's whole process group
(sh and its foreground child), as ronx's tty does for any foreground job."""
import re
import time

from guest import PROMPT, Guest
from userprog import free_pages

SH_PROMPT = r"^\$ "
CTRL_C, CTRL_D = b"\x03", b"\x04"


def start_sh(g):
    mark = len(g.out)
    g.send(b"run sh\r")
    g.wait_for(SH_PROMPT, 30, mark)


def sh(g, line, timeout=60):
    """One line typed at sh's prompt; what came before sh's next prompt."""
    mark = len(g.out)
    g.send(line.encode() + b"\r")
    echo = g.wait_for(re.escape(line) + r"\n", timeout, mark)
    end = g.wait_for(SH_PROMPT, timeout, echo.end())
    return g.out[echo.end():end.start()]


def test_sh_runs_programs(t):
    with Guest("sh") as g:
        g.wait_ready()
        before = free_pages(g)
        start_sh(g)
        out = sh(g, "pid")
        m = re.search(r"^sh: pid (\d+), parent (\d+)$", out, re.M)
        t.check(m, "sh's pid built-in answers from a process", out)
        pid = int(m.group(1)) if m else -1

        out = sh(g, "cowtest", timeout=120)
        t.check(re.search(r"^cowtest: (\d+) of \1 checks passed$", out, re.M) and
                re.search(r"^cowtest: exit status 0$", out, re.M),
                "cowtest typed at sh's prompt: every check passes, sh reports exit status 0",
                out[-600:])

        out = sh(g, "nosuchprog one")
        t.check(out == "sh: nosuchprog: command not found (no /bin/nosuchprog)\n",
                "a missing program: one line naming it and the path tried", repr(out))

        out = sh(g, "nullread")
        t.check(re.search(r"^nullread: killed by SIGSEGV \(signal 11\)$", out, re.M),
                "a child killed by a signal: sh names it", out)

        out = sh(g, "hello bg &")
        m = re.search(r"^\[(\d+)\] hello$", out, re.M)
        t.check(m, "PROG &: sh prints the background child's pid at once", out)
        bg = m.group(1) if m else "?"
        # its lines may follow sh's next prompt on the same line
        g.wait_for(r"hello from user space, pid %s\n" % bg, 30)
        out = sh(g, "wait")
        t.check(re.search(r"hello from user space, pid %s$" % bg, g.out, re.M) and
                re.search(r"^\[%s\] done: hello: exit status 0$" % bg, g.out, re.M),
                "the background child ran, and was reaped with its status", g.out[-600:])

        # the child reads the console: sh's line is used up, cat gets the next one
        mark = len(g.out)
        g.send(b"cat\r")
        g.wait_for(r"cat\n", 30, mark)
        time.sleep(0.3)
        g.send(b"typed to cat\r")
        time.sleep(0.5)
        g.send(CTRL_D)
        end = g.wait_for(r"^cat: exit status \d+\n\$ ", 30, mark)
        out = g.out[mark:end.end()]
        t.check("\ntyped to cat\ntyped to cat\ncat: exit status 0\n" in out,
                "a child of sh reads the console: cat copies the line typed to it (the tty's "
                "echo, then cat's copy), Ctrl-D ends it", out)

        mark = len(g.out)
        g.send(b"exit 7\r")
        m = g.wait_for(r"^\[(\d+)\] sh: exit status (\d+)\n", 30, mark)
        g.wait_for("^" + re.escape(PROMPT), 10, m.end())
        t.check(int(m.group(1)) == pid and m.group(2) == "7",
                "exit 7: back at the ronx> prompt, sh's status 7", m.group(0))
        after = free_pages(g)
        t.check(after == before, "every page returned after sh and its children (%d free "
                "before, %d after)" % (before, after))


def test_sh_ctrl_c(t):
    with Guest("sh ctrl-c") as g:
        g.wait_ready()
        before = free_pages(g)
        start_sh(g)
        mark = len(g.out)
        g.send(b"spin\r")
        g.wait_for(r"^spin: pid (\d+) looping$", 30, mark)
        g.send(CTRL_C)
        m = g.wait_for(r"^\[\d+\] sh: killed by SIGINT\n", 30, mark)
        g.wait_for("^" + re.escape(PROMPT), 10, m.end())
        out = g.command("ps")
        t.check(not re.search(r" (spin|sh)$", out, re.M),
                "Ctrl-C kills sh and its foreground child (one process group)", out)
        after = free_pages(g)
        t.check(after == before, "every page returned (%d free before, %d after)" % (before, after))
