# SPDX-License-Identifier: GPL-2.0-only
"""Job control's stopped state (issue 30 item 7). user/bin/jobctl checks
kill -STOP / -CONT against Linux's wait4 statuses (0x137f, 0xffff, each
reported once), SIGCHLD and SA_NOCLDSTOP, SIGKILL of a stopped child,
a SIGCONT that discards a pending SIGTSTP and a caught SIGTSTP, on 1 and
2 CPUs (on 2 the child spins on the other CPU: only the IPI stops it).
Then sh on the console: a background reader stops with SIGTTIN, reads
nothing typed at sh's prompt and gets the line typed after `fg`; Ctrl-Z
stops the job in front (spin, and cat waiting for a line), `bg`
continues it, `fg` brings it back (cat's read starts again); a job
left stopped when sh exits is hung up (SIGHUP, SIGCONT)."""
import re

from guest import Guest, GuestError
from userprog import check_tap_program, free_pages
from test_sh import CTRL_C, CTRL_D, SH_PROMPT, sh, start_sh

CASES = 12
CTRL_Z = b"\x1a"


def test_jobctl_statuses(t):
    for smp in (1, 2):
        with Guest("jobctl smp%d" % smp, extra=["-smp", str(smp)]) as g:
            g.wait_ready()
            out = g.command("run jobctl", timeout=120)
            check_tap_program(t, out, "jobctl", CASES, "[%d CPU] " % smp)
            out = g.command("ps")
            t.check(not re.search(r"stopped|jobctl", out), "[%d CPU] nothing left stopped" % smp,
                    out)


def sh_until(g, line, pattern, tries=40):
    """line typed at sh's prompt at least once, again until sh's output shows pattern."""
    seen = ""
    for _ in range(tries):
        seen += sh(g, line)
        m = re.search(pattern, seen, re.M)
        if m:
            return m, seen
    return None, seen


def test_jobctl_background_reader(t):
    with Guest("jobctl bg reader") as g:
        g.wait_ready()
        before = free_pages(g)
        start_sh(g)
        out = sh(g, "readone &")
        m = re.search(r"^\[(\d+)\] readone$", out, re.M)
        t.check(m, "readone &: sh prints its pid", out)
        pid = m.group(1) if m else "0"
        stopped = r"^\[%s\] stopped \(tty input\): readone$" % pid
        m, seen = sh_until(g, "echo typed-at-prompt", stopped)
        t.check(re.search(stopped, out + seen, re.M),
                "the background reader stops with SIGTTIN, and sh says so before a prompt",
                out + seen)
        t.check("readone: read" not in g.out and "EIO" not in g.out,
                "it read nothing of the lines typed at sh's prompt", g.out[-800:])
        out = sh(g, "jobs")
        t.check(re.search(r"^\[%s\] stopped: readone$" % pid, out, re.M),
                "jobs shows it stopped", out)
        mark = len(g.out)
        g.send(("fg %s\r" % pid).encode())
        g.wait_for(r"^readone\n", 30, mark)
        g.send(b"zfor-readone\r")
        end = g.wait_for(r"^readone: exit status (\d+)\n", 30, mark)
        out = g.out[mark:end.end()]
        t.check(re.search(r'^readone: read 1 byte: "z"$', out, re.M) and end.group(1) == "0",
                "fg: it gets the terminal and SIGCONT, its read restarts and gets the line typed "
                "after", out)
        g.wait_for(SH_PROMPT, 10, end.end())
        out = sh(g, "jobs")
        t.check(out == "", "no job left", repr(out))
        # sh exits leaving a stopped job: nobody could continue it, so it hangs up
        mark = len(g.out)
        g.send(b"spin\r")
        g.wait_for(r"^spin: pid (\d+) looping$", 30, mark)
        g.send(CTRL_Z)
        g.wait_for(r"stopped \(SIGTSTP\): spin\n\$ ", 30, mark)
        g.send(b"exit\r")
        g.wait_for(r"^ronx> ", 30, mark)
        for _ in range(50):
            ps = g.command("ps")
            if not re.search(r" spin$", ps, re.M):
                break
        t.check(not re.search(r" (spin|sh)$", ps, re.M),
                "sh exits with spin stopped: the orphaned group gets SIGHUP and SIGCONT, spin ends",
                ps)
        t.check(free_pages(g) == before, "every page back")


def test_jobctl_ctrl_z(t):
    for smp in (1, 2):
        tag = "[%d CPU] " % smp
        with Guest("jobctl ctrl-z smp%d" % smp, extra=["-smp", str(smp)]) as g:
            g.wait_ready()
            start_sh(g)
            mark = len(g.out)
            g.send(b"spin\r")
            pid = g.wait_for(r"^spin: pid (\d+) looping$", 30, mark).group(1)
            g.send(CTRL_Z)
            m = g.wait_for(r"^\[%s\] stopped \(SIGTSTP\): spin\n" % pid, 30, mark)
            g.wait_for(SH_PROMPT, 10, m.end())
            t.check(True, tag + "Ctrl-Z stops the job in front; sh says so and prompts")
            out = sh(g, "echo sh-reads-again")
            t.check(out == "sh-reads-again\n", tag + "sh has the terminal back", repr(out))
            out = sh(g, "jobs")
            t.check(re.search(r"^\[%s\] stopped: spin$" % pid, out, re.M),
                    tag + "jobs: spin stopped", out)
            out = sh(g, "bg")
            t.check(re.search(r"^\[%s\] spin &$" % pid, out, re.M), tag + "bg continues it", out)
            out = sh(g, "jobs")
            t.check(re.search(r"^\[%s\] running: spin$" % pid, out, re.M),
                    tag + "jobs: spin running", out)
            out = sh(g, "echo prompt-still-sh")
            t.check(out == "prompt-still-sh\n",
                    tag + "spin runs in the background, sh keeps the terminal", repr(out))
            mark = len(g.out)
            g.send(b"fg\r")
            g.wait_for(r"^spin\n", 30, mark)
            g.send(CTRL_C)
            end = g.wait_for(r"^spin: killed by SIGINT \(signal 2\)\n", 30, mark)
            t.check(True, tag + "fg: spin is in front again: Ctrl-C reaches it, not sh")
            g.wait_for(SH_PROMPT, 10, end.end())
            out = sh(g, "jobs")
            t.check(out == "", tag + "no job left", repr(out))
            # a reader waiting for a line stops too, and reads again once in front
            mark = len(g.out)
            g.send(b"cat\r")
            g.wait_for(r"cat\n", 30, mark)
            m = None
            for _ in range(20):     # until cat has the terminal (sh ignores a Ctrl-Z before)
                g.send(CTRL_Z)
                try:
                    m = g.wait_for(r"^\[\d+\] stopped \(SIGTSTP\): cat\n", 3, mark)
                    break
                except GuestError:
                    pass
            t.check(m, tag + "Ctrl-Z stops cat waiting for a line", g.out[-400:])
            g.wait_for(SH_PROMPT, 10, m.end())
            mark = len(g.out)
            g.send(b"fg\r")
            g.wait_for(r"^cat\n", 30, mark)
            g.send(b"line-for-cat\r")
            g.wait_for(r"line-for-cat\n(.|\n)*line-for-cat\n", 30, mark)
            g.send(CTRL_D)
            end = g.wait_for(r"^cat: exit status (\d+)\n", 30, mark)
            t.check(end.group(1) == "0" and g.out[mark:end.start()].count("line-for-cat") == 2,
                    tag + "fg: cat's read starts again and gets the line typed after (echo, copy)",
                    g.out[mark:end.end()])
            g.wait_for(SH_PROMPT, 10, end.end())
            mark = len(g.out)
            g.send(b"exit\r")
            g.wait_for(r"^ronx> ", 30, mark)
