# SPDX-License-Identifier: GPL-2.0-only
"""Console input belongs to a process (issue 20, item 2). readone reads
one byte of a typed line and exits; the unread rest of that line
("y-secret-password") goes with it. The next process gets nothing of it:
it waits, and reads only what is typed after. The shell never sees the
rest as a command either. At 1 and 2 CPUs; the pages come back."""
import re
import time

from guest import Guest
from userprog import free_pages

SECRET = "my-secret-password"
DONE = r"^\[(\d+)\] readone: exit status 0\n"


def start_readone(g):
    mark = len(g.out)
    g.send(b"run readone\r")
    g.wait_for(r"run readone\n", 30, mark)
    return mark


def finish(g, mark):
    end = g.wait_for(DONE, 30, mark)
    g.wait_for(r"^ronx> ", 10, end.end())
    return g.out[mark:end.end()], int(end.group(1))


def lane(t, smp):
    tag = "[%d CPU%s] " % (smp, "s" if smp > 1 else "")
    with Guest("tty smp%d" % smp, extra=["-smp", str(smp)]) as g:
        g.wait_ready()
        before = free_pages(g)
        start = start_readone(g)
        time.sleep(0.5)
        g.send(SECRET.encode() + b"\r")
        first, pid1 = finish(g, start)
        t.check('readone: read 1 byte: "m"' in first,
                tag + "the first process reads one byte of the typed line", first)

        mark = start_readone(g)
        time.sleep(2)
        waiting = g.out[mark:]
        t.check("readone: read" not in waiting and "exit status" not in waiting,
                tag + "the next process gets none of the rest: it waits for input", waiting)
        g.send(b"new\r")
        second, pid2 = finish(g, mark)
        t.check(pid2 != pid1 and 'readone: read 1 byte: "n"' in second,
                tag + "it reads only what was typed after (pid %d, then pid %d)" % (pid1, pid2),
                second)

        out = g.command("meminfo")
        t.check("PagesFree" in out, tag + "the shell still takes commands", out)
        seen = g.out[start:]
        t.check("unknown command" not in seen and seen.count("secret") == 1,
                tag + "the shell never got the rest as a command (the line appears once: its echo)",
                seen)
        t.check(free_pages(g) == before, tag + "every page back")
        g.poweroff()


def test_tty_line_belongs_to_process(t):
    for smp in (1, 2):
        lane(t, smp)
