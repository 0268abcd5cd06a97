"""32-bit loop counters and index arithmetic (tcgen05_lower/lowering/loops.py): which loops
and ops are narrowed, by the ranges derived by hand below; and the K-block loop of the
persistent example counting in 32 bits in its PTX (it counted in 64 before)."""

from __future__ import annotations

import re

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.lowering.loops import narrow_bounds, narrow_index_loops

from conftest import EXAMPLES

#: Loops (lower, upper, step) and whether a 32-bit counter holds every value scf.for gives
#: it, the one past the last included (by hand: upper + step < 2^31, lower >= 0).
LOOPS = """
func.func @k(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %cm1 = arith.constant -1 : index
  %big = arith.constant 2147483647 : index
  %c2pow30 = arith.constant 1073741824 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %it = arith.addi %i, %c5 : index
    %s = arith.remui %it, %c4 : index
    %r = arith.divui %it, %c4 : index
    %first = arith.cmpi ne, %i, %c0 : index
    %huge = arith.muli %i, %c2pow30 : index
    %p = arith.index_cast %r : index to i32
    "test.use"(%s, %first, %huge, %p) : (index, i1, index, i32) -> ()
  }
  scf.for %i = %c0 to %big step %c1 {
    "test.use"(%i) : (index) -> ()
  }
  scf.for %i = %cm1 to %c4 step %c1 {
    "test.use"(%i) : (index) -> ()
  }
  scf.for %i = %c0 to %n step %c1 {
    "test.use"(%i) : (index) -> ()
  }
  %max = arith.constant 9223372036854775807 : index
  %c30 = arith.constant 30 : index
  scf.for %i = %max to %c30 step %c1 {
    "test.use"(%i) : (index) -> ()
  }
  return
}
"""


def parsed():
    context = ir.Context()
    context.allow_unregistered_dialects = True
    with context, ir.Location.unknown():
        module = ir.Module.parse(LOOPS)
    return context, module


def test_which_loops_narrow():
    context, module = parsed()
    with context:
        loops = [op for op in d.walk_ops(module.operation) if op.name == "scf.for"]
        # 0..4 step 1: counter values 0..4; 0..2^31-1: the value past the last is 2^31;
        # -1..4: negative; 0..%n: unknown; 2^63-1..30: a start past 2^31 (no trip; the
        # mutation fuzzer found it as a crash emitting 2^63-1 as an i32 constant).
        assert [narrow_bounds(loop) for loop in loops] == [(0, 4, 1), None, None, None, None]


def test_narrowed_loop_and_arithmetic():
    context, module = parsed()
    with context, ir.Location.unknown():
        func = module.body.operations[0]
        loops = {op for op in d.walk_ops(func) if op.name == "scf.for"}
        assert narrow_index_loops(func, loops) == 1
        assert func.verify()
        text = str(func)
    first = text[text.index("scf.for"):text.index("scf.for", text.index("scf.for") + 1)]
    assert re.search(r"scf\.for %\w+ = %\S+ to %\S+ step %\S+\s+: i32", first)
    # it = i + 5 in [5, 8], it % 4 in [0, 3], it / 4 in [1, 2]: i32; i != 0: an i32
    # compare; i * 2^30 reaches 3 * 2^30 >= 2^31: stays index; the cast of it / 4 to i32
    # is its i32 form itself.
    assert re.search(r"arith\.addi %\S+, %\S+ : i32", first)
    assert re.search(r"arith\.remui %\S+, %\S+ : i32", first)
    assert re.search(r"arith\.divui %\S+, %\S+ : i32", first)
    assert re.search(r"arith\.cmpi ne, %\S+, %\S+ : i32", first)
    assert re.search(r"arith\.muli %\S+, %\S+ : index", first)
    assert "arith.index_cast %" not in first


def test_persistent_example_k_loop_counts_in_32_bits():
    from tcgen05_lower.driver import compile_source
    from conftest import example_pipeline

    path = EXAMPLES / "ws_persistent_gemm_bf16.mlir"
    ptx = compile_source(path.read_text(), str(path), pipeline=example_pipeline(path)).ptx
    # The loops around the TMA loads and the MMAs (tiles 0..4, K blocks 0..4) count in 32
    # bits: four "> 3" exit tests; the epilogue's tile and column loops (0..4, 0..256
    # step 32) hold neither and keep their 64-bit counters
    # (lowering.loops.issuing_loops).
    assert len(re.findall(r"setp\.gt\.s32\s+%p\d+, %r\d+, 3;", ptx)) == 4
    assert re.findall(r"setp\.gt\.s64\s+%p\d+, %rd\d+, (\d+);", ptx) == ["3", "255"]


RING = """
func.func @k() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  scf.for %t = %c0 to %c4 step %c1 {
    %base = arith.muli %t, %c4 : index
    %half = arith.muli %t, %c2 : index
    scf.for %kb = %c0 to %c4 step %c1 {
      %it = arith.addi %base, %kb : index
      %s = arith.remui %it, %c4 : index
      %round = arith.divui %it, %c4 : index
      %odd = arith.addi %half, %kb : index
      %s2 = arith.remui %odd, %c4 : index
      "test.use"(%s, %round, %s2) {name = "ring"} : (index, index, index) -> ()
    }
    scf.for %kb = %c0 to %c5 step %c1 {
      %it = arith.addi %base, %kb : index
      %s = arith.remui %it, %c4 : index
      "test.use"(%s) {name = "five"} : (index) -> ()
    }
  }
  return
}
"""


def test_ring_stage_and_round_fold():
    from tcgen05_lower.lowering.loops import fold_ring_arithmetic

    context = ir.Context()
    context.allow_unregistered_dialects = True
    with context, ir.Location.unknown():
        module = ir.Module.parse(RING)
        func = module.body.operations[0]
        # By hand: (4t + kb) % 4 = kb and (4t + kb) / 4 = t for kb in [0, 3]; (2t + kb)
        # % 4 depends on t (2t is no multiple of 4); kb in [0, 4] may reach 4: neither
        # folds.
        assert fold_ring_arithmetic(func) == 2
        uses = {str(op.attributes["name"]): op for op in d.walk_ops(func)
                if op.name == "test.use"}
        outer, inner = [op for op in d.walk_ops(func) if op.name == "scf.for"][:2]
        t = outer.regions[0].blocks[0].arguments[0]
        kb = inner.regions[0].blocks[0].arguments[0]
        ring = uses['"ring"']
        assert ring.operands[0] == kb and ring.operands[1] == t
        assert ring.operands[2].owner.name == "arith.remui"
        assert uses['"five"'].operands[0].owner.name == "arith.remui"
