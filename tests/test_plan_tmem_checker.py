"""The independent TMEM plan checker (tests/tmem_checker.py) catches broken plans.

Each test takes a sound plan (accepted by the checker), breaks one rule in the planned IR
or the JSON report by hand, and expects the checker to say so; a checker that accepted
everything would fail here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import tmem_checker
from test_plan_tmem import run_planner

CORPUS = Path(__file__).resolve().parent.parent / "benchmarks" / "tmem" / "corpus"


def planned(name: str, strategy: str = "optimal", tmp_path=None):
    text = (CORPUS / name).read_text()
    match = re.search(r"^// PIPELINE: (.*)$", text, re.M)
    json_path = str(tmp_path / "plan.json") if tmp_path else None
    plans, ir, errors = run_planner(text, strategy, pipeline=match.group(1) if match else None,
                                    json_path=json_path)
    assert not errors
    report = json.loads(Path(json_path).read_text()) if json_path else None
    assert tmem_checker.check_text(ir, report) == []
    return ir, report


def set_attr(ir: str, name: str, attr: str, value) -> str:
    """Changes `attr` of the tcgen05.tmem_buffer named `name`."""
    pattern = re.compile(r'("tcgen05\.tmem_buffer"\(%\w+\) \{[^}]*name = "'
                         + name + r'"[^}]*\})')
    match = pattern.search(ir)
    assert match, name
    new = re.sub(rf"{attr} = [^,}}]+", f"{attr} = {value}", match.group(1))
    return ir[:match.start()] + new + ir[match.end():]


def test_overlapping_live_buffers_are_caught():
    ir, _ = planned("24_small_first_fit_fragments.mlir")
    # a and c are live together; put c on a's columns.
    a = re.search(r'column_offset = (\d+) : i64[^}]*name = "a"', ir).group(1)
    broken = set_attr(ir, "c", "column_offset", f"{a} : i64")
    problems = tmem_checker.check_text(broken)
    assert any("a and c share cells" in p for p in problems), problems


def test_a_buffer_past_the_allocation_is_caught():
    ir, _ = planned("21_a_tmem_m128.mlir")
    broken = ir.replace('"tcgen05.alloc"() {columns = 256', '"tcgen05.alloc"() {columns = 128')
    problems = tmem_checker.check_text(broken)
    assert any("past the allocation" in p for p in problems), problems


def test_bad_lane_offsets_are_caught():
    ir, _ = planned("01_kloop_128x256.mlir")
    # A full-lane Layout D buffer at lane offset 16 (9.7.16.10.5: D needs 0).
    problems = tmem_checker.check_text(set_attr(ir, "acc", "lane_offset", "16 : i64"))
    assert any("lane offset 16 not allowed" in p for p in problems), problems
    ir, _ = planned("22_a_tmem_m64_tied.mlir")
    # a0 moved to the other lane half: A and D of one Layout F MMA disagree.
    problems = tmem_checker.check_text(set_attr(ir, "a0", "lane_offset", "16 : i64"))
    assert any("lane offsets differ" in p for p in problems), problems


def test_odd_metadata_columns_are_caught():
    ir, _ = planned("18_sparse_m128_kloop.mlir")
    problems = tmem_checker.check_text(set_attr(ir, "meta1", "column_offset", "131 : i64"))
    assert any("metadata at an odd column" in p for p in problems), problems


def test_a_missing_dealloc_is_caught():
    ir, _ = planned("08_m64_pair.mlir")
    broken = re.sub(r'\s*"tcgen05.dealloc"\([^\n]*', "", ir)
    problems = tmem_checker.check_text(broken)
    assert any("reaches func.return" in p for p in problems), problems


def test_an_allocation_that_is_not_a_power_of_two_is_caught():
    ir, _ = planned("08_m64_pair.mlir")
    broken = ir.replace("columns = 128 : i64, cta_group", "columns = 160 : i64, cta_group")
    problems = tmem_checker.check_text(broken)
    assert any("not a power of two" in p for p in problems), problems


def test_a_live_range_that_is_too_short_in_the_json_is_caught(tmp_path):
    ir, report = planned("37_async_scale_reuse.mlir", tmp_path=tmp_path)
    entry = next(b for b in report["kernels"][0]["buffers"] if b["name"] == "%sfa")
    first, last = entry["live"]
    # Claim the scale factors are free right after the MMA was issued.
    entry["live"] = [first, last - 2]
    problems = tmem_checker.check_text(ir, report)
    assert any("outside its reported live range" in p for p in problems), problems


def test_a_wrong_lower_bound_in_the_json_is_caught(tmp_path):
    ir, report = planned("24_small_first_fit_fragments.mlir", tmp_path=tmp_path)
    report["kernels"][0]["lower_bound_columns"] -= 32
    problems = tmem_checker.check_text(ir, report)
    assert any("lower bound" in p for p in problems), problems


KERNEL = ('attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, '
          'cta_group = 1 : i64}}')
ASYNC = """!acc = !tcgen05.tmem<[128, 128], f32>
!sa = !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
!sf = !tcgen05.tmem<[128, 4], f8E8M0FNU>
!ssf = !tcgen05.smem<[128, 16], i8, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
!frag4 = !tcgen05.frag<[128, 4], f32>
!small = !tcgen05.tmem<[128, 4], f32>
func.func @k(%C: !llvm.ptr<1>) KERNEL {
  %base = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64} : () -> i32
  "tcgen05.relinquish_alloc_permit"() {cta_group = 1 : i64} : () -> ()
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !sa
  %s = "tcgen05.smem_buffer"() : () -> !ssf
  %acc = "tcgen05.tmem_buffer"(%base) {name = "acc", column_offset = 0 : i64, columns = 128 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", role = "d"} : (i32) -> !acc
  %sfa = "tcgen05.tmem_buffer"(%base) {name = "sfa", column_offset = 128 : i64, columns = 4 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", role = "scale_a"} : (i32) -> !sf
  %sfb = "tcgen05.tmem_buffer"(%base) {name = "sfb", column_offset = 132 : i64, columns = 4 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", role = "scale_b"} : (i32) -> !sf
  "tcgen05.cp"(%sfa, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.cp"(%sfb, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.mma"(%acc, %a, %a, %f, %sfa, %sfb) {kind = "mxf8f6f4", scale_vec = "1X", layout = "D"} : (!acc, !sa, !sa, i1, !sf, !sf) -> ()
  EARLY
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  LATE
  "tcgen05.dealloc"(%base) {columns = 256 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}
""".replace("KERNEL", KERNEL)
SMALL = ('%{n} = "tcgen05.tmem_buffer"(%base) {{name = "{n}", column_offset = 128 : i64, '
         'columns = 4 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", '
         'role = "d"}} : (i32) -> !small\n'
         '  %v{n} = "tcgen05.ld"(%{n}, %c0) : (!small, index) -> !frag4\n'
         '  "tcgen05.store_fragment"(%v{n}, %C, %c0) {{ld = 4 : i64}} : '
         '(!frag4, !llvm.ptr<1>, index) -> ()')


def test_reusing_cells_an_mma_may_still_read_is_caught():
    # A hand-made plan: a buffer on the scale factors' columns [128, 132), used while the
    # MMA reading them may still be in flight (before the accumulator's load, which is
    # the first op that must wait for the MMA).
    early = ASYNC.replace("EARLY", SMALL.format(n="early")).replace("LATE", "")
    problems = tmem_checker.check_text(early)
    assert any("early and sfa share cells" in p or "sfa and early share cells" in p
               for p in problems), problems
    # The same buffer after that load is fine.
    late = ASYNC.replace("EARLY", "").replace("LATE", SMALL.format(n="late"))
    assert tmem_checker.check_text(late) == []


def test_a_path_without_dealloc_is_caught():
    text = f"""
!acc = !tcgen05.tmem<[128, 128], f32>
func.func @k(%flag: i1) {KERNEL} {{
  %base = "tcgen05.alloc"() {{columns = 128 : i64, cta_group = 1 : i64}} : () -> i32
  "tcgen05.relinquish_alloc_permit"() {{cta_group = 1 : i64}} : () -> ()
  %acc = "tcgen05.tmem_buffer"(%base) {{name = "acc", column_offset = 0 : i64, columns = 128 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", role = "d"}} : (i32) -> !acc
  cf.cond_br %flag, ^bb1, ^bb2
^bb1:
  "tcgen05.dealloc"(%base) {{columns = 128 : i64, cta_group = 1 : i64}} : (i32) -> ()
  return
^bb2:
  return
}}
"""
    problems = tmem_checker.check_text(text)
    assert any("reaches func.return with the memory ['allocated']" in p
               for p in problems), problems
