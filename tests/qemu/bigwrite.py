# SPDX-License-Identifier: GPL-2.0-only
"""A long system call, stopped from outside (issue 20): user/bin/bigwrite
writes N newlines to the console in one write(), and the host sends
Ctrl-C, or types `kill PID`, while it writes. Times are the host's wall
clock, from the moment the bytes go to QEMU's serial port to the line
that says the process ended: what a user at the console waits.

Used by tests/qemu/test_syscall_irq.py (which holds them to 1 s) and
tools/bench_irq.py (which reports them)."""
import re
import time

from guest import GuestError

# "bigwrite: pid 3 on CPU 0 writing 1048576 newlines in one write()"
WRITING = re.compile(r"bigwrite: pid (\d+) on CPU (\d+) writing (\d+) newlines")
# longest a broken kernel is waited for: the write itself takes minutes
GIVE_UP = 30


class Stop:
    """One stopped write: what ended it and how long it took."""

    def __init__(self, pid, cpu, status, seconds, prompt_seconds, newlines):
        self.pid, self.cpu, self.status = pid, cpu, status
        self.seconds, self.prompt_seconds = seconds, prompt_seconds
        self.newlines = newlines    # what reached the console before the end: cut short?


def start(g, nbytes, background=False):
    """run bigwrite N [&]; returns (pid, cpu, offset in g.out after its first line)."""
    mark = len(g.out)
    g.send(b"run bigwrite %d%s\r" % (nbytes, b" &" if background else b""))
    m = g.wait_for(WRITING.pattern, start=mark)
    return int(m.group(1)), int(m.group(2)), m.end()


def ctrl_c(g, nbytes, settle=0.3, give_up=None):
    """A foreground bigwrite, Ctrl-C after settle seconds of writing."""
    give_up = give_up or GIVE_UP
    pid, cpu, after = start(g, nbytes)
    time.sleep(settle)
    t0 = time.monotonic()
    g.send(b"\x03")
    try:
        m = g.wait_for(r"^\[%d\] bigwrite: (killed by SIG\w+|exit status \d+)\n" % pid,
                       timeout=give_up, start=after)
    except GuestError:
        seconds = time.monotonic() - t0
        return Stop(pid, cpu, "no status line %.0f s after Ctrl-C (still writing?)" % seconds,
                    seconds, seconds, g.out.count("\n", after))
    seconds = time.monotonic() - t0
    g.wait_for(r"^ronx> ", timeout=give_up, start=m.end())
    return Stop(pid, cpu, m.group(1), seconds, time.monotonic() - t0,
                g.out.count("\n", after, m.start()))


def kill(g, nbytes, settle=0.3, give_up=None):
    """A background bigwrite, `kill PID` typed after settle seconds; the
    shell reports a background job's end before its next prompt, so an
    empty line is sent every 10 ms until the report comes (the time is
    thus up to 10 ms late)."""
    give_up = give_up or GIVE_UP
    pid, cpu, after = start(g, nbytes, background=True)
    time.sleep(settle)
    t0 = time.monotonic()
    g.send(b"kill %d\r" % pid)
    rx = re.compile(r"^\[%d\] bigwrite: (killed by SIG\w+|exit status \d+)\n" % pid, re.M)
    while True:
        m = rx.search(g.out, after)
        if m or time.monotonic() - t0 > give_up:
            break
        time.sleep(0.01)
        g.send(b"\r")
    seconds = time.monotonic() - t0
    if not m:
        return Stop(pid, cpu, "no status line %.0f s after kill (still writing?)" % seconds,
                    seconds, seconds, g.out.count("\n", after))
    g.wait_for(r"^ronx> ", timeout=give_up, start=m.end())
    return Stop(pid, cpu, m.group(1), seconds, time.monotonic() - t0,
                g.out.count("\n", after, m.start()))


def jiffies(g):
    return int(re.search(r"jiffies (\d+)", g.command("uptime")).group(1))
