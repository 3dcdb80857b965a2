# SPDX-License-Identifier: GPL-2.0-only
"""Console input belongs to a process (issue 20, item 2). readone reads
one byte of a typed line and exits; the unread rest of that line
("y-secret-password") goes with it. The next process gets nothing of it:
it waits, and reads only what is typed after. The shell never sees the
rest as a command either. At 1 and 2 CPUs; the pages come back."""
import re
import time

from guest import Guest, GuestError
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


# Issue 34 item 1: several read(0) at once. Lines of a known alphabet are
# typed while `redteam readers` has four readers of 8192 bytes each in
# read(0); every read must return exactly one typed line, whole, and each
# typed line must reach exactly one reader. A byte outside the alphabet
# (kernel memory), a count larger than the line, or a line split between
# readers fails.
# not at a line's start: the echo of the next line may come before a report
READ_LINE = re.compile(r'redteam: readers: \[(\d+)\] read (\d+) bytes: "(.*)"( NOT TYPED)?$', re.M)
READERS_DONE = r"redteam: readers: (every byte typed|BYTES NOT TYPED.*)$"
N_LINES, BATCH = 60, 5
CTRL_D = b"\x04"


def typed_lines():
    return ["l%03d-abcdefghijklmnopqrstuvwxyz-0123456789" % i for i in range(N_LINES)]


def readers_lane(t, smp, kaslr=False):
    tag = "[%d CPU%s%s] " % (smp, "s" if smp > 1 else "", ", kaslr" if kaslr else "")
    with Guest("tty readers smp%d%s" % (smp, " kaslr" if kaslr else ""), extra=["-smp", str(smp)],
               cmdline="kaslr" if kaslr else "") as g:
        g.wait_ready()
        g.command("run true")
        before = free_pages(g)
        start = len(g.out)
        g.send(b"run redteam readers\r")
        g.wait_for(r"redteam: readers: 4 readers of 8192 bytes", 30, start)
        time.sleep(0.5)
        lines = typed_lines()
        for i in range(0, len(lines), BATCH):
            part = lines[i:i + BATCH]
            mark = len(g.out)
            g.send("".join(l + "\r" for l in part).encode())
            deadline = time.monotonic() + 30
            # until the readers have reported at least the bytes typed (a bound on
            # the wait, not the verdict: the checks below read what they reported)
            while sum(int(m.group(2)) for m in READ_LINE.finditer(g.out[mark:])) < \
                    sum(len(l) + 1 for l in part) and time.monotonic() < deadline:
                time.sleep(0.05)
            if time.monotonic() >= deadline:
                break                   # bytes went missing: the checks below fail
        for _ in range(4):
            mark = len(g.out)
            g.send(CTRL_D)
            try:
                g.wait_for(r"redteam: readers: \[\d+\] (end of file|E\w+)$", 20, mark)
            except Exception:
                break
        try:
            done = g.wait_for(READERS_DONE, 30, start).group(0)
            status = g.wait_for(r"^\[\d+\] redteam: (.*)\n", 30, start).group(1)
        except GuestError as e:         # the checks below say what went wrong
            done, status = str(e).splitlines()[0], "not ended"
        out = g.out[start:]
        # the bytes as the reader shows them: a typed line, then its newline as \x0a
        got = [(re.sub(r"\\x0a$", "", m.group(3)), int(m.group(2)), bool(m.group(4)))
               for m in READ_LINE.finditer(out)]
        strange = [x for x in got if x[2] or x[0] not in lines or x[1] != len(x[0]) + 1]
        t.check(not strange, tag + "every read(0) returned one typed line, whole: no byte that was "
                "not typed, no count beyond the line (%d reads)" % len(got),
                "; ".join("%d bytes: %s" % (n, text[:120]) for text, n, _ in strange[:4]))
        t.check(sorted(x[0] for x in got) == sorted(lines),
                tag + "each of the %d typed lines reached exactly one reader" % len(lines),
                "missing %s, extra %s" % (sorted(set(lines) - set(x[0] for x in got))[:3],
                                          [x[0][:60] for x in got if x[0] not in lines][:3]))
        t.check(done.endswith("every byte typed") and status == "exit status 0",
                tag + "the readers say every byte was typed, exit status 0", done + " / " + status)
        t.check(free_pages(g) == before, tag + "every page back")
        g.poweroff()


def test_tty_readers(t):
    readers_lane(t, 1)
    readers_lane(t, 2)
    readers_lane(t, 2, kaslr=True)
