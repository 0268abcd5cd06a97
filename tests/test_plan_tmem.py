"""tcgen05-plan-tmem: placement strategies, lower bounds, liveness, reports, CLI flags.

Expected values are derived by hand in comments next to them (op numbers count the ops of
the kernel in pre-order, the func.func being 0, as tcgen05_lower/planning documents);
placement results are also compared with an exhaustive search written here, and every
planned kernel is checked by tests/tmem_checker.py, which shares no code with the planner.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from hypothesis import given, settings, strategies as st

import tmem_checker
from conftest import EXAMPLES
from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import capture_diagnostics
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.pipeline import parse_pipeline
from tcgen05_lower.planning import placement
from tcgen05_lower.planning.placement import Item

KERNEL = ('attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, '
          'cta_group = 1 : i64}}')


# ----------------------------------------------------------------------------- helpers


def run_planner(text: str, strategy: str = "first-fit", pipeline: str | None = None,
                json_path: str | None = None):
    """Runs `pipeline` (default: select-layouts then plan-tmem) in-process. Returns
    (plans, planned IR text or None, error messages)."""
    pipeline = pipeline or "tcgen05-select-layouts,tcgen05-plan-tmem"
    options = f"strategy={strategy}" + (f" json={json_path}" if json_path else "")
    pipeline = pipeline.replace("tcgen05-plan-tmem", f"tcgen05-plan-tmem{{{options}}}")
    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        module = parse_module(text, "test.mlir")
        plans, ok = None, True
        for step in parse_pipeline(pipeline):
            result = step.tcgen05_pass.run_on(module)
            if step.tcgen05_pass.name == "tcgen05-plan-tmem":
                plans = result.plans
            ok = result.ok
            if not ok:
                break
        errors = [x.message for x in diagnostics if x.severity == "error"]
        return plans, (str(module) if ok else None), errors


def intervals(plan) -> dict:
    return {b.label: (b.start, b.end) for b in plan.buffers}


def columns(plan) -> dict:
    return {b.label: (b.column, b.variant.lane_offset) for b in plan.buffers}


def kernel(body: str, args: str = "%C: !llvm.ptr<1>", aliases: str = "") -> str:
    return f"{aliases}\nfunc.func @k({args}) {KERNEL} {{\n{body}\n  return\n}}\n"


def full(index, start, end, width, label=None):
    return Item(index, label or f"b{index}", start, end,
                placement.item_variants(columns=width, half_lanes=False, stages=1,
                                        lane_offsets=(0,)))


def half(index, start, end, width, tie=-1, offsets=(0, 16), align=1):
    return Item(index, f"h{index}", start, end,
                placement.item_variants(columns=width, half_lanes=True, stages=1,
                                        lane_offsets=offsets), align=align, tie=tie)


# ----------------------------------------------------------------------------- placement


def test_first_fit_fragments_where_optimal_does_not():
    # a [0,10] and c [2,10] live long, b [1,3] dies, d [4,10] starts after it.
    # First fit (by start): a 0-64, b 64-128, c 128-192; at d's start a and c are live,
    # the gap [64,128) is too small, so d goes to 192-320. Hand optimum: c next to a
    # (0-64, 64-128), b at 128-192, then d reuses b's columns 128-256: peak 256, which is
    # also the bound (a + c + d live together = 64 + 64 + 128).
    items = [full(0, 0, 10, 64), full(1, 1, 3, 64), full(2, 2, 10, 64), full(3, 4, 10, 128)]
    ff = placement.first_fit(items)
    assert {i: c for i, (_, c) in ff.spots.items()} == {0: 0, 1: 64, 2: 128, 3: 192}
    assert ff.peak() == 320
    opt = placement.optimal(items)
    assert opt.peak() == 256 and opt.proven
    assert placement.lower_bound(items)[0] == 256


def test_two_half_lane_buffers_share_columns_at_lane_offsets_0_and_16():
    items = [half(0, 0, 5, 128), half(1, 1, 5, 128)]
    ff = placement.first_fit(items)
    # Column-major search: column 0 first, lane offset 0 then 16 (9.7.16.10.5: F/C
    # alignment 0 or 16).
    assert [(c, v.lane_offset) for v, c in (ff.spots[0], ff.spots[1])] == [(0, 0), (0, 16)]
    assert ff.peak() == 128


def test_tied_buffers_share_a_lane_offset():
    # D0/A0 tied (one F MMA), D1/A1 tied. D0 takes lane 0 at column 0, D1 lane 16 at
    # column 0; A0 must then use lane 0 (column 128) and A1 lane 16 (column 128).
    items = [half(0, 0, 9, 128, tie=0), half(1, 1, 9, 128, tie=1),
             half(2, 2, 9, 16, tie=0), half(3, 3, 9, 16, tie=1)]
    for result in (placement.first_fit(items), placement.optimal(items)):
        lanes = {i: v.lane_offset for i, (v, _) in result.spots.items()}
        assert lanes[0] == lanes[2] and lanes[1] == lanes[3] and lanes[0] != lanes[1]
        assert result.peak() == 144


def test_metadata_columns_are_even():
    # A 3-column full buffer, then a metadata granule (align 2) live with it: the first
    # even column after 3 is 4 (tmem-facts section 3: odd metadata columns fault).
    meta = Item(1, "meta", 0, 5, placement.item_variants(
        columns=2, half_lanes=False, stages=1, lane_offsets=(0,)), align=2)
    items = [full(0, 0, 5, 3), meta]
    result = placement.first_fit(items)
    assert result.spots[1][1] == 4


def test_lane_pair_stages_leave_a_half_for_another_buffer():
    # Three M = 64 stages of 128 columns stacked in lane pairs: [0,128) both halves and
    # [128,256) lane half 0; a 128-column half-lane buffer fits in [128,256) lane 16.
    stages = Item(0, "s", 0, 9, placement.item_variants(
        columns=128, half_lanes=True, stages=3, lane_offsets=(0, 16)), stages=3, columns=128)
    assert [v.name for v in stages.variants] == ["lane_pairs", "column_blocks",
                                                 "column_blocks"]
    items = [stages, half(1, 1, 9, 128)]
    result = placement.optimal(items)
    assert result.peak() == 256 and result.proven
    assert result.spots[0][0].name == "lane_pairs"
    assert (result.spots[1][1], result.spots[1][0].lane_offset) == (128, 16)
    # Stage addresses of the lane-pair layout: stage i at lane 16 * (i % 2), column
    # (i // 2) * 128 from the item's first column.
    assert [placement.stage_spot(result.spots[0][0], 0, 128, i) for i in range(3)] == \
        [(0, 0), (16, 0), (0, 128)]


def test_no_reuse_gives_every_buffer_its_own_cells():
    # Full 64, half 128 (lane 0), half 128 (lane 16, same columns), full 32: the full
    # buffer after the halves starts above both halves: 64 + 128 + 32 = 224.
    items = [full(0, 0, 1, 64), half(1, 2, 3, 128), half(2, 4, 5, 128), full(3, 6, 7, 32)]
    result = placement.no_reuse(items)
    assert {i: c for i, (_, c) in result.spots.items()} == {0: 0, 1: 64, 2: 64, 3: 192}
    assert result.peak() == 224


def test_lower_bound_counts_half_lanes_as_half_columns():
    # At point 2: full 64 + half 128 + half 64 -> 64 + (128 + 64) / 2 = 160.
    items = [full(0, 0, 4, 64), half(1, 1, 4, 128), half(2, 2, 4, 64), full(3, 5, 6, 100)]
    assert placement.lower_bound(items) == (160, 2)


def test_next_allocation_is_a_power_of_two_in_32_to_512():
    from tcgen05_lower.passes.tcgen05_plan_tmem import next_allocation
    # 9.7.16.7.1: unit of 32 columns, power of two, at most 512.
    assert [next_allocation(n) for n in (1, 32, 33, 200, 268, 512)] == \
        [32, 32, 64, 256, 512, 512]


def brute_force_peak(items, below: int | None = None) -> int:
    """Smallest peak over every placement (every variant at every column up to the
    sum of the widths), by plain enumeration with collision pruning. With `below`, only
    placements of peak < `below` are looked for (the result is `below` if none exists),
    which keeps the enumeration small without trusting where `below` came from."""
    limit = sum(max(v.width for v in it.variants) for it in items)
    best = [min(limit, below) if below is not None else limit]
    order = sorted(items, key=lambda it: it.index)

    def cells(variant, column):
        for p in variant.parts:
            for h in (1, 2):
                if p.halves & h:
                    for c in range(column + p.column, column + p.column + p.width):
                        yield h, c

    def search(k, used, peak, ties):
        if peak >= best[0]:
            return
        if k == len(order):
            best[0] = peak
            return
        item = order[k]
        for variant in item.variants:
            if item.tie >= 0 and item.tie in ties and ties[item.tie] != variant.lane_offset:
                continue
            for column in range(0, limit - variant.width + 1, item.align):
                mine = set(cells(variant, column))
                if any(not mine.isdisjoint(used[o.index]) for o in order[:k]
                       if o.overlaps(item)):
                    continue
                used[item.index] = mine
                new_ties = dict(ties)
                if item.tie >= 0:
                    new_ties[item.tie] = variant.lane_offset
                search(k + 1, used, max(peak, column + variant.width), new_ties)
                del used[item.index]

    search(0, {}, 0, {})
    return best[0]


def test_optimal_searches_where_heuristics_fall_short_and_falls_back_at_its_limit():
    # An instance (found by random search) where every first-fit order of the heuristics
    # reaches 9 columns but 8 is possible; the lane-aware bound is 7 (at point 6: 3 + 3/2
    # + 2 + 1/2 = 7 columns of the live buffers 0, 2, 4, 5).
    items = [full(0, 5, 7, 3), full(1, 1, 5, 4), half(2, 6, 6, 3), full(3, 1, 2, 3),
             full(4, 6, 7, 2), half(5, 6, 7, 1)]
    assert brute_force_peak(items) == 8
    assert placement.lower_bound(items)[0] == 7
    searched = placement.optimal(items)
    assert searched.peak() == 8 and searched.proven
    # With a node limit of 1 the search gives up at once: the best heuristic placement is
    # kept and the result says it is not proven.
    limited = placement.optimal(items, node_limit=1)
    assert limited.peak() == 9 and not limited.proven
    assert limited.peak() <= placement.first_fit(items).peak()


@st.composite
def small_instances(draw):
    n = draw(st.integers(1, 5))
    items = []
    for i in range(n):
        start = draw(st.integers(0, 6))
        end = start + draw(st.integers(0, 4))
        width = draw(st.sampled_from([1, 2, 3, 4]))
        kind = draw(st.sampled_from(["full", "half", "stages"]))
        if kind == "full":
            items.append(full(i, start, end, width))
        elif kind == "half":
            items.append(half(i, start, end, width, tie=draw(st.sampled_from([-1, 0]))))
        else:
            stages = draw(st.integers(2, 3))
            items.append(Item(i, f"s{i}", start, end, placement.item_variants(
                columns=width, half_lanes=True, stages=stages, lane_offsets=(0, 16)),
                stages=stages, columns=width))
    return items


@settings(max_examples=60, deadline=None)
@given(small_instances())
def test_optimal_equals_exhaustive_search_on_small_instances(items):
    result = placement.optimal(items)
    assert result.proven
    # No placement below optimal's peak exists, and optimal's placement is one (the
    # enumeration finds a placement of that peak when it may go one column higher).
    assert brute_force_peak(items, below=result.peak()) == result.peak()
    assert brute_force_peak(items, below=result.peak() + 1) == result.peak()
    assert result.peak() <= placement.first_fit(items).peak()
    assert result.peak() >= placement.lower_bound(items)[0]


# ----------------------------------------------------------------------------- liveness

ACC = "!acc = !tcgen05.tmem<[128, 128], f32>\n"
TILES = ('!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">\n'
         '!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">\n'
         "!frag = !tcgen05.frag<[128, 32], f32>\n")
SCALED = ('!sa = !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">\n'
          '!sf = !tcgen05.tmem<[128, 4], f8E8M0FNU>\n'
          '!ssf = !tcgen05.smem<[128, 16], i8, "K", "none">\n'
          "!small = !tcgen05.tmem<[128, 8], f32>\n")
PRE = 'role = "d", layout = "D", columns = 128 : i64, half_lanes = false'


def test_scale_factors_live_until_the_mma_reading_them_is_known_complete():
    body = """
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !sa
  %b = "tcgen05.smem_buffer"() : () -> !sa
  %s = "tcgen05.smem_buffer"() : () -> !ssf
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %sfa = "tcgen05.tmem_buffer"() {name = "sfa"} : () -> !sf
  %sfb = "tcgen05.tmem_buffer"() {name = "sfb"} : () -> !sf
  "tcgen05.cp"(%sfa, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.cp"(%sfb, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f, %sfa, %sfb) {kind = "mxf8f6f4", scale_vec = "1X"} : (!acc, !sa, !sa, i1, !sf, !sf) -> ()
  %early = "tcgen05.tmem_buffer"() {name = "early"} : () -> !small
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %late = "tcgen05.tmem_buffer"() {name = "late"} : () -> !small
  %y = "tcgen05.ld"(%late, %c0) : (!small, index) -> !tcgen05.frag<[128, 8], f32>"""
    plans, planned, errors = run_planner(kernel(body, aliases=ACC + TILES + SCALED))
    assert not errors
    spans = intervals(plans[0])
    # Ops: 1 c0, 2 f, 3-5 smem, 6 acc, 7 sfa, 8 sfb, 9-10 cp, 11 mma, 12 early, 13 ld acc,
    # 14 store, 15 late, 16 ld late, 17 return.
    # The MMA reads sfa/sfb; it is known complete at op 13, the load of its accumulator
    # (an mma -> ld pair on one buffer is not pipelined, 9.7.16.6.2). The cp's that wrote
    # them were issued before the MMA, so the same commit covers them (rule 4).
    assert spans["%sfa"] == (7, 13) and spans["%sfb"] == (8, 13)
    # The load completes at its registers' use (op 14, 9.7.16.6.4.5).
    assert spans["%acc"] == (6, 14)
    # early is defined at 12 and never accessed: it occupies its defining op only; late
    # is loaded at 16 and the load is never waited for, so it stays in flight until the
    # return (op 17).
    assert spans["%early"] == (12, 12) and spans["%late"] == (15, 17)
    # So early (live at 12, when the MMA may still read sfa/sfb) cannot reuse their
    # columns; late can.
    cols = columns(plans[0])
    assert cols["%early"][0] >= 136 and cols["%late"][0] < 128 + 8
    assert tmem_checker.check_text(planned) == []


def test_a_load_through_a_select_proves_nothing_about_either_buffer():
    body = f"""
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %x0 = "tcgen05.tmem_buffer"() {{name = "x0", {PRE}}} : () -> !acc
  %x1 = "tcgen05.tmem_buffer"() {{name = "x1", {PRE}}} : () -> !acc
  "tcgen05.mma"(%x0, %a, %b, %f) {{kind = "f16"}} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%x1, %a, %b, %f) {{kind = "f16"}} : (!acc, !ta, !tb, i1) -> ()
  %p = arith.select %flag, %x0, %x1 : !acc
  %v = "tcgen05.ld"(%p, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%v, %C, %c0) {{ld = 128 : i64}} : (!frag, !llvm.ptr<1>, index) -> ()
  %z = "tcgen05.tmem_buffer"() {{name = "z", {PRE}}} : () -> !acc
  %w = "tcgen05.ld"(%z, %c0) : (!acc, index) -> !frag"""
    text = kernel(body, args="%C: !llvm.ptr<1>, %flag: i1", aliases=ACC + TILES)
    plans, planned, errors = run_planner(text, pipeline="tcgen05-plan-tmem")
    assert not errors
    spans = intervals(plans[0])
    # Ops: 5 x0, 6 x1, 7-8 mma, 9 select, 10 ld, 11 store, 12 z, 13 ld z, 14 return.
    # The load of %p may read x0 or x1, so it completes neither MMA: both stay in flight
    # to the return (op 14), and z cannot take their columns.
    assert spans["%x0"] == (5, 14) and spans["%x1"] == (6, 14)
    assert columns(plans[0])["%z"][0] == 256
    assert tmem_checker.check_text(planned) == []


LOOP = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %x = "tcgen05.tmem_buffer"() {name = "x"} : () -> !acc
  "tcgen05.mma"(%x, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  scf.for %i = %c0 to UPPER step %c1 {
    %v = "tcgen05.ld"(%x, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%v, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    %y = "tcgen05.tmem_buffer"() {name = "y"} : () -> !acc
    "tcgen05.mma"(%y, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    %w = "tcgen05.ld"(%y, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%w, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  }
  %z = "tcgen05.tmem_buffer"() {name = "z"} : () -> !acc
  %u = "tcgen05.ld"(%z, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%u, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()"""


def test_loops_with_known_and_unknown_trip_counts():
    # Ops: 1 c0, 2 c1, 3 f, (4 c4 when constant), then a, b, x, mma, for, body ...
    constant = kernel(LOOP.replace("UPPER", "%c4").replace(
        '%c1 = arith.constant 1 : index', '%c1 = arith.constant 1 : index\n'
        '  %c4 = arith.constant 4 : index'), aliases=ACC + TILES)
    plans, planned, errors = run_planner(constant)
    assert not errors
    spans = intervals(plans[0])
    # 4 c4, 5 a, 6 b, 7 x, 8 mma, 9 for, 10 ld x, 11 store, 12 y, 13 mma y, 14 ld y,
    # 15 store, 16 yield, 17 z, 18 ld z, 19 store, 20 return.
    # x is read in every iteration: live through the loop's last op (16). The loop runs
    # at least once (0 < 4), so the load at 10 certainly completes the MMA of op 8.
    assert spans["%x"] == (7, 16)
    # y is a new buffer each iteration, complete by its store: 12..15.
    assert spans["%y"] == (12, 15)
    assert columns(plans[0])["%z"][0] == 0  # reuses x's columns
    assert tmem_checker.check_text(planned) == []
    dynamic = kernel(LOOP.replace("UPPER", "%n"), args="%C: !llvm.ptr<1>, %n: index",
                     aliases=ACC + TILES)
    plans, planned, errors = run_planner(dynamic)
    assert not errors
    spans = intervals(plans[0])
    # Numbers shift down by one (no c4). The loop may run zero times: then nothing waits
    # for the MMA of op 7 before the return (op 19), so x stays in flight to the end and
    # z cannot reuse its columns [0, 128); it takes y's, [128, 256).
    assert spans["%x"] == (6, 19)
    assert columns(plans[0])["%z"][0] == 128
    assert tmem_checker.check_text(planned) == []


def test_block_arguments_and_branches():
    body = f"""
  %c0 = arith.constant 0 : index
  %x0 = "tcgen05.tmem_buffer"() {{name = "x0", {PRE}}} : () -> !acc
  %x1 = "tcgen05.tmem_buffer"() {{name = "x1", {PRE}}} : () -> !acc
  cf.cond_br %flag, ^bb1, ^bb2
^bb1:
  %t = "tcgen05.tmem_buffer"() {{name = "t", {PRE}}} : () -> !acc
  %v = "tcgen05.ld"(%t, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%v, %C, %c0) {{ld = 128 : i64}} : (!frag, !llvm.ptr<1>, index) -> ()
  cf.br ^bb3(%x0 : !acc)
^bb2:
  cf.br ^bb3(%x1 : !acc)
^bb3(%p: !acc):
  %w = "tcgen05.ld"(%p, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%w, %C, %c0) {{ld = 128 : i64}} : (!frag, !llvm.ptr<1>, index) -> ()"""
    text = kernel(body, args="%C: !llvm.ptr<1>, %flag: i1", aliases=ACC + TILES)
    plans, planned, errors = run_planner(text, pipeline="tcgen05-plan-tmem")
    assert not errors
    spans = intervals(plans[0])
    # Ops: 1 c0, 2 x0, 3 x1, 4 cond_br, 5 t, 6 ld, 7 store, 8 br, 9 br, 10 ld %p,
    # 11 store, 12 return. Both x0 and x1 reach the load of the block argument (10),
    # complete at its store (11); t lives in ^bb1 only, but blocks are numbered in
    # order so its range 5..7 lies inside theirs.
    assert spans["%x0"] == (2, 11) and spans["%x1"] == (3, 11)
    assert spans["%t"] == (5, 7)
    assert plans[0].peak_columns == 384
    assert tmem_checker.check_text(planned) == []


def test_an_explicit_wait_ld_completes_loads():
    body = f"""
  %c0 = arith.constant 0 : index
  %x = "tcgen05.tmem_buffer"() {{name = "x", {PRE}}} : () -> !acc
  %v = "tcgen05.ld"(%x, %c0) : (!acc, index) -> !frag
  "tcgen05.wait"() {{kind = "ld"}} : () -> ()
  %y = "tcgen05.tmem_buffer"() {{name = "y", {PRE}}} : () -> !acc
  %w = "tcgen05.ld"(%y, %c0) : (!acc, index) -> !frag"""
    plans, planned, errors = run_planner(kernel(body, aliases=ACC + TILES),
                                         pipeline="tcgen05-plan-tmem")
    assert not errors
    # Ops: 1 c0, 2 x, 3 ld, 4 wait::ld (completes every earlier load, 9.7.16.8.5), 5 y,
    # 6 ld y, 7 return: x is free after 4, y reuses its columns.
    assert intervals(plans[0]) == {"%x": (2, 4), "%y": (5, 7)}
    assert columns(plans[0])["%y"][0] == 0


# ----------------------------------------------------------------------------- reports


def test_json_report_has_exactly_the_documented_schema(tmp_path):
    text = (EXAMPLES / "gemm_m64_pair.mlir").read_text()
    path = tmp_path / "plan.json"
    plans, planned, errors = run_planner(text, "optimal", json_path=str(path))
    assert not errors
    report = json.loads(path.read_text())
    assert list(report) == ["schema_version", "kernels"] and report["schema_version"] == 1
    (k,) = report["kernels"]
    assert list(k) == ["name", "strategy", "allocation_columns", "peak_columns",
                       "lower_bound_columns", "buffers"]
    assert (k["name"], k["strategy"], k["allocation_columns"], k["peak_columns"],
            k["lower_bound_columns"]) == ("gemm_m64_pair", "optimal", 128, 128, 128)
    for b in k["buffers"]:
        assert list(b) == ["name", "loc", "shape", "element_type", "layout", "lane_offset",
                           "lanes", "columns", "live", "live_locs"]
    acc0, acc1 = k["buffers"]
    # Two 64 x 128 Layout F accumulators on the two lane halves of columns [0, 128).
    assert (acc0["name"], acc0["shape"], acc0["element_type"], acc0["layout"],
            acc0["columns"]) == ("%acc0", [64, 128], "f32", "F", [0, 128])
    assert acc0["lanes"] == [[0, 16], [32, 48], [64, 80], [96, 112]]
    assert acc1["lanes"] == [[16, 32], [48, 64], [80, 96], [112, 128]]
    assert acc0["lane_offset"] == 0 and acc1["lane_offset"] == 16
    # loc: line and column of the op's name (MLIR's location of a generic op).
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith("  %acc0 ="))
    column = text.splitlines()[line - 1].index('"tcgen05.tmem_buffer"') + 1
    assert acc0["loc"].endswith(f":{line}:{column}")
    assert tmem_checker.check_text(planned, report) == []


def test_json_report_of_an_over_subscribed_kernel_has_no_allocation(tmp_path):
    aliases = "!big = !tcgen05.tmem<[128, 256], f32>\n!frag = !tcgen05.frag<[128, 32], f32>\n"
    body = "\n".join(
        f'  %x{i} = "tcgen05.tmem_buffer"() {{name = "x{i}"}} : () -> !big' for i in range(3))
    body = "  %c0 = arith.constant 0 : index\n" + body + "\n" + "\n".join(
        f'  %v{i} = "tcgen05.ld"(%x{i}, %c0) : (!big, index) -> !frag' for i in range(3))
    path = tmp_path / "plan.json"
    plans, planned, errors = run_planner(kernel(body, aliases=aliases), json_path=str(path))
    assert planned is None and len(errors) == 1
    assert "needs 768 columns of 512" in errors[0]
    (k,) = json.loads(path.read_text())["kernels"]
    assert k["allocation_columns"] is None and k["peak_columns"] == 768


def test_svg_picture_is_well_formed_with_one_colour_per_buffer(tmp_path):
    text = (Path(__file__).parent.parent / "benchmarks/tmem/corpus/"
            "11_m64_multibuffer_3stage.mlir").read_text()
    svg = tmp_path / "plan.svg"
    pipeline = "tcgen05-plan-tmem"
    context = d.make_context()
    with context:
        module = parse_module(text, "stages.mlir")
        (step,) = parse_pipeline(f"{pipeline}{{strategy=optimal svg={svg}}}")
        assert step.tcgen05_pass.run_on(module)
    root = ET.parse(svg).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    rects = [r for r in root.iter(ns + "rect") if r.find(ns + "title") is not None]
    titles = [r.find(ns + "title").text for r in rects]
    # Stage 0 and the side buffer each use one lane half: four 16-lane rectangles in the
    # cells panel, one bar in that half's timeline.
    assert sum(t.startswith("%stages[0] ") for t in titles) == 5
    assert sum(t.startswith("%side ") for t in titles) == 5
    colours = {r.get("fill") for r in rects if r.find(ns + "title").text.startswith("%side")}
    assert len(colours) == 1


# ----------------------------------------------------------------------------- CLI


def test_lower_writes_json_and_svg_reports(tmp_path, tool):
    json_path, svg_path = tmp_path / "p.json", tmp_path / "p.svg"
    proc = tool("tcgen05-lower", str(EXAMPLES / "gemm_m64_pair.mlir"), "--emit=mlir", "--report",
                    "--report-json", str(json_path), "--report-svg", str(svg_path),
                    "--pipeline", "tcgen05-select-layouts,tcgen05-plan-tmem{strategy=optimal}")
    assert proc.returncode == 0, proc.stderr
    assert "tcgen05-plan-tmem: kernel @gemm_m64_pair strategy=optimal peak=128" in proc.stderr
    report = json.loads(json_path.read_text())
    assert report["kernels"][0]["strategy"] == "optimal"
    root = ET.parse(svg_path).getroot()
    assert root.tag.endswith("svg")
    svg = svg_path.read_text()
    assert '>32</text>' in svg and '>128</text>' in svg           # column ticks
    assert "(source " in svg and "live from " in svg              # buffers' source locations
    assert tmem_checker.check_text(proc.stdout, report) == []


def test_lower_report_flags_need_the_planner_in_the_pipeline(tmp_path, tool):
    proc = tool("tcgen05-lower", str(EXAMPLES / "gemm_m64_pair.mlir"), "--emit=mlir", "--pipeline",
                    "tcgen05-verify", "--report-json", str(tmp_path / "p.json"))
    assert proc.returncode == 1
    assert "need tcgen05-plan-tmem in the pipeline" in proc.stderr
    proc = tool("tcgen05-lower", str(EXAMPLES / "gemm_m64_pair.mlir"), "--emit=mlir", "--report-json",
                    str(tmp_path / "a b.json"))
    assert proc.returncode == 1 and "must not contain spaces" in proc.stderr
    assert "Traceback" not in proc.stderr
