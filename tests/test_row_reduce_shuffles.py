"""Issue 39: per-row reductions whose fragment spreads a row over several threads.

A .16x32bx2 message gives threads l and l xor 16 the two column halves of one row
(tmem-facts section 2, 9.7.16.8.3): tcgen05.frag_reduce combines them with a butterfly
shuffle (isa/row_slots.py). Layout F (M = 64) is read only with 16-lane shapes, so its
row statistics (attention at M = 64) need this; Layout D read with .16x32bx2 holds two
rows per thread (one per lane half), reduced and broadcast slot by slot.

Expected values: NumPy softmax (and row maxima) in float64 of the GEMM's inputs; the
simulator runs the emitted shfl.sync and imports nothing of the compiler."""

import re

import pytest

from sim_checks import assert_matches, kernel_head, mma_chain, run, smem_fill


def softmax_kernel(m: int, shape: str | None, loop: bool) -> str:
    """S = A Bt^T (m x 64, f32), then P = softmax(S) / 2 by rows (the 2 from a map of
    the per-row sums), stored; and the row maxima
    of S computed again by a loop over its two 32-column halves that carries the running
    maximum (started from the first half's), stored as S[:, :32] minus it (`loop`: a carried row
    vector is one register per row, so not for Layout D read with .16x32bx2)."""
    d = f"!tcgen05.tmem<[{m}, 64], f32>"
    a = f'!tcgen05.smem<[{m}, 64], bf16, "K", "128B">'
    b = '!tcgen05.smem<[64, 64], bf16, "K", "128B">'
    full = f"!tcgen05.frag<[{m}, 64], f32>"
    half = f"!tcgen05.frag<[{m}, 32], f32>"
    row = f"!tcgen05.frag<[{m}, 1], f32>"
    attr = f' {{shape = "{shape}"}}' if shape else ""
    carried = LOOP.format(d=d, half=half, row=row, attr=attr)
    return f"""
{kernel_head("softmax", ("A", "Bt", "P", "M"))}
  %a = "tcgen05.smem_buffer"() : () -> {a}
  %b = "tcgen05.smem_buffer"() : () -> {b}
  %acc = "tcgen05.tmem_buffer"() : () -> {d}
{smem_fill("A", "a", a)}
{smem_fill("Bt", "b", b)}
{mma_chain("%acc", "%a", "%b", a, b, "f16", 16, d)}
  %x = "tcgen05.ld"(%acc, %c0){attr} : ({d}, index) -> {full}
  %mx = "tcgen05.frag_reduce"(%x) {{kind = "max"}} : ({full}) -> {row}
  %mb = "tcgen05.frag_broadcast"(%mx, %x) : ({row}, {full}) -> {full}
  %e = "tcgen05.frag_map"(%x, %mb) ({{
  ^bb0(%s: f32, %mm: f32, %r: index, %c: index):
    %t = arith.subf %s, %mm : f32
    %y = math.exp %t : f32
    gpu.yield %y : f32
  }}) : ({full}, {full}) -> {full}
  %l = "tcgen05.frag_reduce"(%e) {{kind = "sum"}} : ({full}) -> {row}
  %inv = "tcgen05.frag_map"(%l) ({{
  ^bb0(%s: f32, %r: index, %c: index):
    %two = arith.constant 2.0 : f32
    %y = arith.mulf %two, %s : f32
    gpu.yield %y : f32
  }}) : ({row}) -> {row}
  %ib = "tcgen05.frag_broadcast"(%inv, %e) : ({row}, {full}) -> {full}
  %p = "tcgen05.frag_map"(%e, %ib) ({{
  ^bb0(%s: f32, %i: f32, %r: index, %c: index):
    %y = arith.divf %s, %i : f32
    gpu.yield %y : f32
  }}) : ({full}, {full}) -> {full}
  "tcgen05.store_fragment"(%p, %P, %c0) {{ld = 64 : i64}} : ({full}, !llvm.ptr<1>, index) -> ()
{carried if loop else ""}  return
}}
"""


LOOP = """  %h0 = "tcgen05.ld"(%acc, %c0){attr} : ({d}, index) -> {half}
  %m0 = "tcgen05.frag_reduce"(%h0) {{kind = "max"}} : ({half}) -> {row}
  %mr = scf.for %col = %c32 to %c64 step %c32 iter_args(%run = %m0) -> ({row}) {{
    %h = "tcgen05.ld"(%acc, %col){attr} : ({d}, index) -> {half}
    %mh = "tcgen05.frag_reduce"(%h) {{kind = "max"}} : ({half}) -> {row}
    %n = "tcgen05.frag_map"(%run, %mh) ({{
    ^bb0(%u: f32, %v: f32, %r: index, %c: index):
      %y = arith.maximumf %u, %v : f32
      gpu.yield %y : f32
    }}) : ({row}, {row}) -> {row}
    scf.yield %n : {row}
  }}
  %mrb = "tcgen05.frag_broadcast"(%mr, %h0) : ({row}, {half}) -> {half}
  %below = "tcgen05.frag_map"(%h0, %mrb) ({{
  ^bb0(%s: f32, %mm: f32, %r: index, %c: index):
    %y = arith.subf %s, %mm : f32
    gpu.yield %y : f32
  }}) : ({half}, {half}) -> {half}
  "tcgen05.store_fragment"(%below, %M, %c0) {{ld = 32 : i64}} : ({half}, !llvm.ptr<1>, index) -> ()
"""


CHECK = '''
import numpy as np
BUFFERS = {{"A": ("bfloat16", ({m}, 64)), "Bt": ("bfloat16", (64, 64)),
           "P": ("float32", ({m}, 64)), "M": ("float32", ({m}, 32))}}
CARRIED = {loop}
# S in f32: 64 exact products of inputs in [-1, 1) summed in f32, off by at most
# 64 * 2^-24 * 64 = 2^-12 absolute, so exp(S - max) is off by a relative 2^-11 at most
# (both terms), ex2.approx adds 2^-22, the sum and the reciprocal a few f32 ulps:
# 2^-9 relative (P <= 1) with 2^-20 absolute covers them. M = S[:, :32] - rowmax(S) is
# a difference of two f32 S values, rounded once: 2^-10 absolute covers it.
def reference(inputs):
    s = inputs["A"].astype(np.float64) @ inputs["Bt"].astype(np.float64).T
    e = np.exp(s - s.max(axis=1, keepdims=True))
    out = {{"P": e / (2 * e.sum(axis=1, keepdims=True)), "M": s[:, :32] - s.max(axis=1, keepdims=True)}}
    return out if CARRIED else {{"P": out["P"]}}
def bound(name, inputs):
    if name == "M":
        return np.full(BUFFERS["M"][1], 2.0 ** -10), "2^-10"
    return 2.0 ** -9 * reference(inputs)["P"] + 2.0 ** -20, "2^-9 P + 2^-20"
'''


@pytest.mark.parametrize("m, shape", [(64, None), (128, "16x32bx2"), (128, None)])
@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_row_softmax_across_threads_matches_numpy(m, shape, schedule, tmp_path):
    check = tmp_path / "softmax.check.py"
    loop = not (m == 128 and shape == "16x32bx2")
    check.write_text(CHECK.format(m=m, loop=loop))
    result, problem, inputs, sim = run(softmax_kernel(m, shape, loop), "softmax", check,
                                       "strategy=max-width", schedule)
    assert_matches(problem, inputs, sim)
    shuffles = len(re.findall(r"shfl\.sync\.bfly\.b32", result.ptx))
    # One butterfly (lane xor 16) per reduction and slot where a .16x32bx2 message
    # splits each row between two threads (Layout F: two frag_reduce ops and two in the
    # loop, whose body is emitted once; Layout D's two lane halves give two slots to each
    # of its two); none for .32x32b.
    assert shuffles == {(64, None): 4, (128, "16x32bx2"): 4, (128, None): 0}[(m, shape)]
