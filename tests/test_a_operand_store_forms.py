"""Issue 39: tcgen05.st into an A operand beyond Layout D's 16-bit A from tcgen05.ld:

- M = 64 (Layout F, 16 lanes of each quarter): P = round(Q K^T) stored from registers
  with .16x32bx2 into the lane half of O, then O = P V with A in tensor memory;
- 8-bit A (e4m3, four per 32-bit column) for M = 128 and M = 64;
- A read from global memory through registers (tcgen05.load_fragment -> tcgen05.st),
  M = 128 and M = 64, bf16 and e4m3.

Expected values come from NumPy (the check files below); the simulator reads A from
tensor memory by the ISA's packing (9.7.16.10.4) and placement (tmem-facts section 1,
Layout F: row r on lane 32 (r div 16) + r mod 16 + a) and imports nothing of the
compiler."""

import re

import numpy as np
import pytest

from sim_checks import assert_matches, kernel_head, mma_chain, run, smem_fill

FP8 = "f8E4M3FN"
#: (element type, kind, K per MMA, smem swizzle of a 64-element row, NumPy dtype)
ELEMENTS = {"bf16": ("bf16", "f16", 16, "128B", "bfloat16"),
            "e4m3": (FP8, "f8f6f4", 32, "64B", "float8_e4m3fn")}


def chain_kernel(m: int, element: str) -> str:
    """S = Q K^T (bf16, M x 64), P = round(S) to `element` stored into an A buffer,
    O = P Vt^T with Vt (64 x 64, N x K) of `element`."""
    p_type, kind, k_step, swizzle, _ = ELEMENTS[element]
    d = f"!tcgen05.tmem<[{m}, 64], f32>"
    pt = f"!tcgen05.tmem<[{m}, 64], {p_type}>"
    q = f'!tcgen05.smem<[{m}, 64], bf16, "K", "128B">'
    k = '!tcgen05.smem<[64, 64], bf16, "K", "128B">'
    v = f'!tcgen05.smem<[64, 64], {p_type}, "K", "{swizzle}">'
    return f"""
{kernel_head("chain", ("Q", "K", "Vt", "O"))}
  %q = "tcgen05.smem_buffer"() : () -> {q}
  %k = "tcgen05.smem_buffer"() : () -> {k}
  %v = "tcgen05.smem_buffer"() : () -> {v}
  %s = "tcgen05.tmem_buffer"() : () -> {d}
  %p = "tcgen05.tmem_buffer"() : () -> {pt}
  %o = "tcgen05.tmem_buffer"() : () -> {d}
{smem_fill("Q", "q", q)}
{smem_fill("K", "k", k)}
{smem_fill("Vt", "v", v)}
{mma_chain("%s", "%q", "%k", q, k, "f16", 16, d)}
  %sf = "tcgen05.ld"(%s, %c0) : ({d}, index) -> !tcgen05.frag<[{m}, 64], f32>
  %pf = "tcgen05.frag_map"(%sf) ({{
  ^bb0(%x: f32, %row: index, %c: index):
    %y = arith.truncf %x : f32 to {p_type}
    gpu.yield %y : {p_type}
  }}) : (!tcgen05.frag<[{m}, 64], f32>) -> !tcgen05.frag<[{m}, 64], {p_type}>
  "tcgen05.st"(%p, %c0, %pf) : ({pt}, index, !tcgen05.frag<[{m}, 64], {p_type}>) -> ()
{mma_chain("%o", "%p", "%v", pt, v, kind, k_step, d)}
  scf.for %col = %c0 to %c64 step %c32 {{
    %of = "tcgen05.ld"(%o, %col) : ({d}, index) -> !tcgen05.frag<[{m}, 32], f32>
    "tcgen05.store_fragment"(%of, %O, %col) {{ld = 64 : i64}} : (!tcgen05.frag<[{m}, 32], f32>, !llvm.ptr<1>, index) -> ()
  }}
  return
}}
"""


def global_kernel(m: int, element: str, width: int) -> str:
    """O = A Bt^T with A (m x 64) read from global memory into registers in
    `width`-element slices, stored into an A buffer, Bt (64 x 64, N x K) in shared
    memory."""
    a_type, kind, k_step, swizzle, _ = ELEMENTS[element]
    d = f"!tcgen05.tmem<[{m}, 64], f32>"
    at = f"!tcgen05.tmem<[{m}, 64], {a_type}>"
    b = f'!tcgen05.smem<[64, 64], {a_type}, "K", "{swizzle}">'
    frag = f"!tcgen05.frag<[{m}, {width}], {a_type}>"
    return f"""
{kernel_head("from_global", ("A", "Bt", "O"), f"  %cw = arith.constant {width} : index")}
  %b = "tcgen05.smem_buffer"() : () -> {b}
  %a = "tcgen05.tmem_buffer"() : () -> {at}
  %o = "tcgen05.tmem_buffer"() : () -> {d}
{smem_fill("Bt", "b", b)}
  scf.for %col = %c0 to %c64 step %cw {{
    %af = "tcgen05.load_fragment"(%A, %col) {{ld = 64 : i64}} : (!llvm.ptr<1>, index) -> {frag}
    "tcgen05.st"(%a, %col, %af) : ({at}, index, {frag}) -> ()
  }}
{mma_chain("%o", "%a", "%b", at, b, kind, k_step, d)}
  scf.for %col = %c0 to %c64 step %c32 {{
    %of = "tcgen05.ld"(%o, %col) : ({d}, index) -> !tcgen05.frag<[{m}, 32], f32>
    "tcgen05.store_fragment"(%of, %O, %col) {{ld = 64 : i64}} : (!tcgen05.frag<[{m}, 32], f32>, !llvm.ptr<1>, index) -> ()
  }}
  return
}}
"""


CHAIN_CHECK = '''
import numpy as np
import ml_dtypes
BUFFERS = {{"Q": ("bfloat16", ({m}, 64)), "K": ("bfloat16", (64, 64)),
           "Vt": ("{dtype}", (64, 64)), "O": ("float32", ({m}, 64))}}
# P is S rounded to the element type by NumPy (ml_dtypes, round to nearest even, as
# cvt.rn[.satfinite]; |S| <= 64 stays below e4m3's 448). The kernel's f32 S (64 exact
# products of inputs in [-1, 1), summed in f32: off by at most 2^-12) may round to the
# neighbour: one ulp of P, 2^-{ulp} |S| (bf16: 2^-8, e4m3: 2^-3). Bounding every element
# by it, |O - ref| <= 2^-{ulp} (|S| |Vt^T|) plus the second product's f32 summation,
# 64 * 2^-24 (|P| |Vt^T|): 2^-{slack} (|S| |Vt^T|) covers both.
def reference(inputs):
    q, k = (inputs[n].astype(np.float64) for n in ("Q", "K"))
    s = q @ k.T
    p = s.astype(np.float32).astype(ml_dtypes.{np_type}).astype(np.float64)
    return {{"O": p @ inputs["Vt"].astype(np.float64).T}}
def bound(name, inputs):
    q, k = (inputs[n].astype(np.float64) for n in ("Q", "K"))
    return 2.0 ** -{slack} * (np.abs(q @ k.T) @ np.abs(inputs["Vt"].astype(np.float64).T)), "2^-{slack} |S||V|"
'''

GLOBAL_CHECK = '''
import numpy as np
BUFFERS = {{"A": ("{dtype}", ({m}, 64)), "Bt": ("{dtype}", (64, 64)),
           "O": ("float32", ({m}, 64))}}
# exact products of the inputs, summed in f32 (K = 64): at most 64 * 2^-24 of the sum of
# magnitudes, inside 2^-17 (|A| |B|)
def reference(inputs):
    return {{"O": inputs["A"].astype(np.float64) @ inputs["Bt"].astype(np.float64).T}}
def bound(name, inputs):
    a, b = (inputs[n].astype(np.float64) for n in ("A", "Bt"))
    return 2.0 ** -17 * (np.abs(a) @ np.abs(b).T), "2^-17 |A||B|"
'''


def _check(tmp_path, text):
    path = tmp_path / "k.check.py"
    path.write_text(text)
    return path


CASES = [(128, "e4m3"), (64, "bf16"), (64, "e4m3")]


@pytest.mark.parametrize("m, element", CASES)
def test_a_stored_from_registers_matches_numpy(m, element, tmp_path):
    _, _, _, _, dtype = ELEMENTS[element]
    ulp = 8 if element == "bf16" else 3
    check = _check(tmp_path, CHAIN_CHECK.format(m=m, dtype=dtype, np_type=dtype,
                                                ulp=ulp, slack=ulp - 1))
    result, problem, inputs, sim = run(chain_kernel(m, element), "chain", check,
                                       "strategy=register-budget=32")
    assert_matches(problem, inputs, sim)
    stores = re.findall(r"tcgen05\.st\.sync\.aligned\.\S+", result.ptx)
    # Layout F: the 16-lane .16x32bx2 with immHalfSplitoff = .num (isa.a_store); Layout
    # D: .32x32b. One message of the packed columns per warp either way.
    packed = 64 // (2 if element == "bf16" else 4)
    want = (f"tcgen05.st.sync.aligned.16x32bx2.x{packed // 2}.b32" if m == 64
            else f"tcgen05.st.sync.aligned.32x32b.x{packed}.b32")
    assert stores == [want]


def test_the_m64_bound_sees_the_lane_half(tmp_path):
    """A reference whose P rows 16-31 and 0-15 of every quarter are swapped is outside
    the bound: the check tells the rows apart."""
    check = _check(tmp_path, CHAIN_CHECK.format(m=64, dtype="bfloat16", np_type="bfloat16",
                                                ulp=8, slack=7))
    _, problem, inputs, sim = run(chain_kernel(64, "bf16"), "chain", check,
                                  "strategy=register-budget=32")
    swapped = dict(inputs, Q=inputs["Q"][np.arange(64) ^ 16])
    want = problem.reference(swapped)["O"]
    ok, *_ = problem.tolerance("O", sim.outputs["O"], want, inputs)
    assert not ok


@pytest.mark.parametrize("m, element, width", [(128, "bf16", 32), (64, "bf16", 64),
                                               (64, "e4m3", 32), (128, "e4m3", 64)])
@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_a_from_global_memory_matches_numpy(m, element, width, schedule, tmp_path):
    dtype = ELEMENTS[element][4]
    check = _check(tmp_path, GLOBAL_CHECK.format(m=m, dtype=dtype))
    _, problem, inputs, sim = run(global_kernel(m, element, width), "from_global", check,
                                  "strategy=register-budget=32", schedule)
    assert_matches(problem, inputs, sim)
