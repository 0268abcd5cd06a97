"""Per-row values (issue 16): maps of frag_reduce results and of values computed from
the row alone, carried by scf.for loops. The attention examples run them against NumPy
(tests/test_attention.py); here: what the planning passes do with a long chain of them,
and the lowering of a loop that carries one.

Expected values: a hand count of the ops (each map runs once per thread on its row) and
the linear growth the project requires of every pass (the number of values the checks
look at doubles when the chain doubles)."""

from __future__ import annotations


from tcgen05_lower import kernel_ir
from tcgen05_lower.driver import compile_source

HEADER = """func.func @chain(%O: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %acc = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %r0 = "tcgen05.frag_reduce"(%x) {kind = "max"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
"""
MAP = """  %r{j} = "tcgen05.frag_map"(%r{i}, %r0) ({{
  ^bb0(%a: f32, %b: f32, %row: index, %c: index):
    %y = arith.addf %a, %b : f32
    gpu.yield %y : f32
  }}) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
"""
FOOTER = """  %b = "tcgen05.frag_broadcast"(%r{n}, %x) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
  %out = "tcgen05.frag_map"(%x, %b) ({{
  ^bb0(%a: f32, %m: f32, %row: index, %c: index):
    %y = arith.subf %a, %m : f32
    gpu.yield %y : f32
  }}) : (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%out, %O, %c0) {{ld = 32 : i64}} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}}
"""


def chain(n: int) -> str:
    return HEADER + "".join(MAP.format(i=j - 1, j=j) for j in range(1, n + 1)) + \
        FOOTER.format(n=n)


def defining_op_calls(text: str, monkeypatch) -> int:
    calls = [0]
    original = kernel_ir.defining_op

    def counting(value):
        calls[0] += 1
        return original(value)

    monkeypatch.setattr(kernel_ir, "defining_op", counting)
    result = compile_source(text, "chain.mlir", emit="mlir",
                            pipeline="tcgen05-verify,tcgen05-select-layouts")
    monkeypatch.setattr(kernel_ir, "defining_op", original)
    assert result.mlir is not None
    return calls[0]


def test_a_chain_of_per_row_maps_is_checked_in_linear_time(monkeypatch):
    """tcgen05-verify and tcgen05-select-layouts follow each map's first input to the
    per-row result it is held as; each value of the chain is followed once (a memo), so
    twice the chain costs twice the look-ups, not four times."""
    small, large = (defining_op_calls(chain(n), monkeypatch) for n in (100, 200))
    assert large <= 2.2 * small, (small, large)


def test_a_chain_of_per_row_maps_runs_once_per_thread():
    """Each per-row map is one f32 add per thread (its row), not one per column."""
    result = compile_source(chain(8), "chain.mlir")
    assert result.ptx.count("add.rn.f32") == 8 or result.ptx.count("add.f32") == 8, \
        result.ptx
