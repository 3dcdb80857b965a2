# SPDX-License-Identifier: GPL-2.0-only
"""No lottery (issue 21): pure tests of the scenarios the labs draw from a
grade's seed: under every seed, every case a check grades is there (the
seed varies placement, order and sizes only; a case missing from one seed
would let a wrong solution score full marks there). Each generator is run
for many seeds with a Context that needs no build (only ctx.rng is used);
process-pagetables checks its linked program's own headers again at grade
time (Program in labs/process-pagetables/checks.py)."""
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "labs"))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))

import grading  # noqa: E402

SEEDS = range(400)
PAGE, LARGE, PAGE_OFFSET = 4096, 2 << 20, 0xC0000000
LOWMEM = PAGE_OFFSET + (128 << 20)      # the graded boots' 128M machine


def checks_of(lab):
    """labs/<lab>/checks.py as a module (its checks unregistered again)."""
    path = os.path.join(ROOT, "labs", lab, "checks.py")
    spec = importlib.util.spec_from_file_location("scenarios_" + lab.replace("-", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    grading.take_registered()
    spec.loader.exec_module(mod)
    grading.take_registered()
    return mod


def contexts():
    for seed in SEEDS:
        yield grading.Context(ROOT, seed)


def test_image_policy_plant_is_a_run_of_free_ram():
    m = checks_of("image-policy")
    for ctx in contexts():
        va, n = m.plant(ctx)
        assert va % PAGE == 0 and 1 <= n <= 32 and PAGE_OFFSET + (16 << 20) <= va, (ctx.seed, va, n)
        assert va + n * PAGE <= LOWMEM, (ctx.seed, va, n)


def test_wx_audit_plants_are_three_separate_runs():
    m = checks_of("wx-audit")
    for ctx in contexts():
        (small, n), (large, pages), (below, k) = m.plants(ctx)
        assert large % LARGE == 0 and pages == 512 and large + LARGE <= LOWMEM, ctx.seed
        assert small % PAGE == 0 and n >= 2 and small + n * PAGE <= LOWMEM, ctx.seed
        # a 4K run that neither touches nor overlaps the 2 MiB page: two runs
        assert small + n * PAGE < large or small > large + LARGE, (ctx.seed, small, n, large)
        assert below + k * PAGE == m.BIOS_BEGIN and 1 <= k <= 8, ctx.seed


def test_cpa_runs_stay_inside_one_large_page_off_its_edges():
    m = checks_of("cpa")
    for ctx in contexts():
        base, k, n = m.set_memory_scenario(ctx)
        assert base % LARGE == 0 and base + LARGE <= LOWMEM, ctx.seed
        # a split is needed (a part only), and neither edge page is in it
        assert n >= 2 and k >= 1 and k + n <= 511, (ctx.seed, k, n)


def test_cpa_other_cpu_runs_take_both_flush_paths():
    m = checks_of("cpa")
    for ctx in contexts():
        runs = m.other_cpu_runs(ctx)
        sizes = [n for _, n, _, _ in runs]
        assert sizes[0] == 1 and 2 <= sizes[1] <= 32 < sizes[2], (ctx.seed, sizes)
        for va, n, page, byte in runs:
            assert PAGE_OFFSET + (64 << 20) <= va and va + n * PAGE <= PAGE_OFFSET + (120 << 20)
            assert va <= page < va + n * PAGE and page % PAGE == 0 and 0 < byte < 128


def test_bios_hole_picks_are_inside_their_regions():
    m = checks_of("bios-hole")
    for ctx in contexts():
        low, hole = m.picks(ctx)
        assert m.LOW < low < m.HOLE_START and low % PAGE == 0, ctx.seed
        assert m.HOLE_START <= hole < m.HOLE_END and hole % PAGE == 0, ctx.seed


def test_text_patching_plant_is_a_run_of_free_ram():
    m = checks_of("text-patching")
    for ctx in contexts():
        va, n = m.plant(ctx)
        assert va % PAGE == 0 and 1 <= n <= 16 and va + n * PAGE <= LOWMEM, ctx.seed


def test_process_pagetables_layout_has_every_case():
    m = checks_of("process-pagetables")
    for ctx in contexts():
        lay = m.Layout(ctx.rng("process-pagetables/layout"))
        missing = set(m.CASES) - lay.cases()
        assert not missing, "seed %d: the layout lacks %s" % (ctx.seed, sorted(missing))
        assert sorted(lay.order) == sorted(m.PARTS), "seed %d: segments %s" % (ctx.seed, lay.order)


def test_process_pagetables_map_fixed_has_every_edge():
    m = checks_of("process-pagetables")
    G, B = m.STACK_GUARD, m.STACK_BOTTOM
    for ctx in contexts():
        ranges = m.map_fixed_ranges(ctx)
        kinds = {(s <= G < e, e == G, s == B, (s, e) == (G, B)) for s, e, _, _ in ranges}
        want = {r[2] for r in ranges if r[1] == G} == {"mapped"} and \
            {r[2] for r in ranges if r[0] == B} == {"mapped"} and \
            all(r[2] == "ENOMEM" for r in ranges if r[0] < B and r[1] > G)
        assert want and len(ranges) == 6 and len(kinds) >= 4, "seed %d: %s" % (ctx.seed, ranges)


def test_pti_every_seed_has_every_way_back():
    m = checks_of("pti")
    for ctx in contexts():
        scn = m.Scenario(ctx.rng("pti/scenario"))
        assert sorted(scn.order) == ["c", "f", "s"] and 2 <= scn.rounds <= 5 and \
            len(set(scn.regs)) == 6 and all(0 <= v < 1 << 32 for v in scn.regs), \
            "seed %d: %s %d %s" % (ctx.seed, scn.order, scn.rounds, scn.regs)
        # linked where eip has bits 29 and 17 set, below the mmap area, page-aligned
        assert scn.base & 0x20020000 == 0x20020000 and scn.base + (1 << 20) <= 0x40000000 \
            and scn.base % 4096 == 0, "seed %d: base %#x" % (ctx.seed, scn.base)


def test_tlb_shootdown_sizes_cover_the_ceiling():
    m = checks_of("tlb-shootdown")
    seen = set()
    for ctx in contexts():
        r = ctx.rng("tlb-shootdown writes")
        sizes = m.request_sizes(r)
        assert any(n <= m.CEILING for n in sizes) and \
            any(n in (m.CEILING, m.CEILING + 1) for n in sizes) and \
            any(n > m.CEILING + 1 for n in sizes), "seed %d: sizes %s" % (ctx.seed, sizes)
        seen.update(n for n in sizes if n <= m.CEILING + 1)
        for n in sizes:
            va = m.free_page_run(r, n)
            pages = m.tried_pages(r, va, n)
            assert va + (n - 1) * m.PAGE in pages and (n == 1 or len(set(pages)) == 2), \
                "seed %d: %d pages at %x, tried %s" % (ctx.seed, n, va, pages)
    assert seen == set(range(1, m.CEILING + 2)), "sizes never drawn: %s" % sorted(
        set(range(1, m.CEILING + 2)) - seen)


def test_signals_every_seed_has_every_case():
    m = checks_of("signals")
    for ctx in contexts():
        s = m.Scenario(ctx.rng("signals/scenario"))
        seed = "seed %d" % ctx.seed
        assert sorted(s.order) == ["a", "f", "k"] and sorted(s.forge) == sorted("crsDEFGevmo"), seed
        assert s.sigk != s.siga and {s.sigk, s.siga} <= set(m.SIGNALS), seed
        # the mask: some of 1-32 and some of 33-64, none of the signals raised
        assert s.mask & 0xFFFFFFFF and s.mask >> 32 and s.mask < 1 << 64, seed
        assert not s.mask & (1 << (s.sigk - 1) | 1 << (s.siga - 1) | 1 << (m.SIGSEGV - 1)), seed
        # seven different registers: one saved into another's place is seen
        assert len(set(s.regs.values())) == 7 and len(set(s.canary)) == 2, seed
        assert s.aoff + s.asize <= 4 * 4096 and s.asize >= 2048 and 0 <= s.foff <= 4092, seed
        assert len(s.deliver_line()) < 200, seed       # the shell's line: 256 characters


TESTS = [(name[len("test_"):], fn) for name, fn in sorted(globals().items())
         if name.startswith("test_") and callable(fn)]

if __name__ == "__main__":
    for name, fn in TESTS:
        fn()
        print("ok", name)


def test_kernel_stacks_every_seed_has_sleepers_in_slots_apart():
    m = checks_of("kernel-stacks")
    firsts = set()
    for ctx in contexts():
        first, sleepers = m.plan(ctx.rng("kernel-stacks tasks"))
        firsts.add(first)
        assert 2 <= len(sleepers) <= 5 and all(0 <= n <= 2 for n in sleepers) and \
            first + len(sleepers) + sum(sleepers) < 64, "seed %d: %s %s" % (ctx.seed, first, sleepers)
        assert 2 <= len(m.plan(ctx.rng("kernel-stacks exit"))[1]), "seed %d" % ctx.seed
    assert len(firsts) > 5, "the first slots never move: %s" % sorted(firsts)
