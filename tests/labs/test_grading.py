# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of labs/grading.py's own machinery: a check that raises,
crashes or whose boot fails scores 0 with its reason, grading goes on, and
results.json has Gradescope's shape."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "labs"))

import grading  # noqa: E402
from grading import CheckFailed, Context, run_check  # noqa: E402


def test_failed_check_scores_zero_with_its_message():
    def fn(ctx):
        raise CheckFailed("expected RO+X at 0xc0100000, found RW+X")
    o = run_check(None, "lab", "name", 10, fn)
    assert o.score == 0 and "found RW+X" in o.output and o.line().startswith("  FAIL   0/10")


def test_crashing_check_scores_zero_and_says_why():
    o = run_check(None, "lab", "name", 5, lambda ctx: {}["missing"])
    assert o.score == 0 and "crashed: KeyError" in o.output, o.output


def test_passing_check_scores_full():
    o = run_check(None, "lab", "name", 5, lambda ctx: None)
    assert o.score == 5 and o.output == "" and o.line().startswith("  PASS   5/5")


def test_failed_boot_fails_every_check_using_it_once():
    ctx = Context(ROOT)
    try:
        for _ in range(2):
            try:
                ctx.boot(cpu="no-such-cpu")
            except CheckFailed as e:
                assert "did not reach the shell prompt" in str(e), str(e)
            else:
                raise AssertionError("a QEMU that cannot start booted")
        assert len(ctx._boots) == 1 and isinstance(list(ctx._boots.values())[0], str)
    finally:
        ctx.close()


def test_gradescope_shape():
    outs = [run_check(None, "a", "one", 10, lambda ctx: None),
            run_check(None, "a", "two", 5, lambda ctx: {}["x"])]
    res = grading.gradescope(outs, 1.25)
    assert res["score"] == 10 and res["output"] == "Score: 10/15", res
    assert res["execution_time"] == 1 and isinstance(res["execution_time"], int)
    assert [(t["name"], t["score"], t["max_score"], t["status"]) for t in res["tests"]] == \
        [("a: one", 10, 10, "passed"), ("a: two", 0, 5, "failed")]
    assert all(isinstance(t["output"], str) for t in res["tests"])


def test_where_names_the_nearest_symbol():
    ctx = Context(ROOT)
    ctx._syms = {"_text": 0xc0100000, "_etext": 0xc010c000, "_end": 0xc0130000, "EFER": 0x80}
    assert ctx.where(0xc0100010) == "0xc0100010 (_text+0x10)"
    assert ctx.where(0xc00a0000) == "0xc00a0000", "addresses outside the image get no symbol"


TESTS = [(n[len("test_"):], f) for n, f in sorted(globals().items()) if n.startswith("test_")]
