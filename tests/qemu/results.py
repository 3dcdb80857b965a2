# SPDX-License-Identifier: GPL-2.0-only
"""Collects checks and writes them as KTAP; prints progress as it goes."""
import resource
import sys

from ktap import parse


class Results:
    def __init__(self):
        self.lines = []
        self.count = 0
        self.failed = 0
        self.group = ""

    def _add(self, status, desc, detail=""):
        self.count += 1
        n = self.count
        desc = ("%s: %s" % (self.group, desc)) if self.group else desc
        if status == "skip":
            line = "ok %d %s # SKIP %s" % (n, desc, detail)
        else:
            line = "%s %d %s" % (status, n, desc)
        self.lines.append(line)
        if status == "not ok":
            self.failed += 1
            if detail:
                self.lines.append("# " + detail.replace("\n", "\n# "))
        mark = {"ok": "  ok  ", "not ok": "  FAIL", "skip": "  skip"}[status]
        print("%s %s%s" % (mark, desc, (" -- " + detail.splitlines()[0]) if
                            detail and status != "ok" else ""), flush=True)

    def check(self, cond, desc, detail=""):
        self._add("ok" if cond else "not ok", desc, "" if cond else detail)
        return bool(cond)

    def skip(self, desc, reason):
        self._add("skip", desc, reason)

    def fail(self, desc, detail):
        self._add("not ok", desc, detail)

    def ktap(self, text, prefix="selftest"):
        """Each leaf of the kernel's KTAP becomes one check here."""
        leaves = parse(text)
        if not leaves:
            self.fail(prefix, "no KTAP results in the output:\n" + text[-800:])
        for suite, name, status, detail in leaves:
            self._add(status, "%s %s.%s" % (prefix, suite, name), detail)
        return leaves

    def write(self, path):
        with open(path, "w") as f:
            f.write("KTAP version 1\n1..%d\n" % self.count)
            f.write("\n".join(self.lines) + "\n")


def progress(msg):
    print(msg, file=sys.stdout, flush=True)


def cpu_seconds():
    """User and system CPU seconds of this process and of the children it
    has waited for (QEMUs, makes, graders): where a stage's time goes."""
    return sum(getattr(resource.getrusage(who), f) for who in
               (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) for f in ("ru_utime", "ru_stime"))
