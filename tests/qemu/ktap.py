# SPDX-License-Identifier: GPL-2.0-only
"""Parse KTAP (Linux KUnit's output format) into leaf test results."""
import re

RESULT = re.compile(r"^(?P<indent>\s*)(?P<not>not )?ok (?P<num>\d+) (?P<name>.*?)"
                    r"(?:\s+#\s*SKIP\s*(?P<skip>.*))?$")
SUBTEST = re.compile(r"^\s*# Subtest: (?P<suite>\S+)")


def parse(text):
    """Returns [(suite, name, status, detail)]; status is ok, not ok or skip.

    Leaves are results indented deeper than their suite's line; diagnostics
    ("# ...") just before a failed leaf become its detail.
    """
    results, suite, diag = [], None, []
    for line in text.splitlines():
        m = SUBTEST.match(line)
        if m:
            suite, diag = m.group("suite"), []
            continue
        m = RESULT.match(line)
        if not m:
            if line.strip().startswith("#"):
                diag.append(line.strip())
            continue
        if len(m.group("indent")) == 0:
            suite, diag = None, []
            continue
        if m.group("skip") is not None:
            status, detail = "skip", m.group("skip")
        elif m.group("not"):
            status, detail = "not ok", " | ".join(diag)
        else:
            status, detail = "ok", ""
        results.append((suite, m.group("name"), status, detail))
        diag = []
    return results
