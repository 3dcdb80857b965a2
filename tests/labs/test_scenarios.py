# SPDX-License-Identifier: GPL-2.0-only
"""No lottery: for many seeds, the scenario a lab draws from the seed has
every case a check grades (issue 21). The seed varies placement, order
and sizes; a case missing from one seed would let a wrong solution score
full marks there. Pure: nothing is built or booted (the linked program's
own headers are checked again at grade time, Program in
labs/process-pagetables/checks.py)."""
import importlib.util
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "labs"))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))

import grading  # noqa: E402

SEEDS = range(1, 401)


class FakeCtx:
    """What a scenario needs of a grade's Context: its rng()."""

    def __init__(self, seed):
        self.seed = seed

    def rng(self, key):
        return grading.Context(ROOT, self.seed).rng(key)


def load(lab):
    path = os.path.join(ROOT, "labs", lab, "checks.py")
    spec = importlib.util.spec_from_file_location("scen_" + lab.replace("-", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    grading.take_registered()       # its checks are not being graded here
    return mod


def test_process_pagetables_layout_has_every_case():
    m = load("process-pagetables")
    for seed in SEEDS:
        lay = m.Layout(FakeCtx(seed).rng("process-pagetables/layout"))
        missing = set(m.CASES) - lay.cases()
        assert not missing, "seed %d: the layout lacks %s" % (seed, sorted(missing))
        assert sorted(lay.order) == sorted(m.PARTS), "seed %d: segments %s" % (seed, lay.order)


def test_process_pagetables_map_fixed_has_every_edge():
    m = load("process-pagetables")
    G, B = m.STACK_GUARD, m.STACK_BOTTOM
    for seed in SEEDS:
        ranges = m.map_fixed_ranges(FakeCtx(seed))
        kinds = {(s <= G < e, e == G, s == B, (s, e) == (G, B)) for s, e, _, _ in ranges}
        want = {r[2] for r in ranges if r[1] == G} == {"mapped"} and \
            {r[2] for r in ranges if r[0] == B} == {"mapped"} and \
            all(r[2] == "ENOMEM" for r in ranges if r[0] < B and r[1] > G)
        assert want and len(ranges) == 6 and len(kinds) >= 4, "seed %d: %s" % (seed, ranges)


def test_tlb_shootdown_sizes_cover_the_ceiling():
    m = load("tlb-shootdown")
    seen = set()
    for seed in SEEDS:
        r = FakeCtx(seed).rng("tlb-shootdown writes")
        sizes = m.request_sizes(r)
        assert any(n <= m.CEILING for n in sizes) and \
            any(n in (m.CEILING, m.CEILING + 1) for n in sizes) and \
            any(n > m.CEILING + 1 for n in sizes), "seed %d: sizes %s" % (seed, sizes)
        seen.update(n for n in sizes if n <= m.CEILING + 1)
        for n in sizes:
            va = m.free_page_run(r, n)
            pages = m.tried_pages(r, va, n)
            assert va + (n - 1) * m.PAGE in pages and (n == 1 or len(set(pages)) == 2), \
                "seed %d: %d pages at %x, tried %s" % (seed, n, va, pages)
    assert seen == set(range(1, m.CEILING + 2)), "sizes never drawn: %s" % sorted(
        set(range(1, m.CEILING + 2)) - seen)


TESTS = [(n[len("test_"):], f) for n, f in sorted(globals().items()) if n.startswith("test_")]
