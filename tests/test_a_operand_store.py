"""Issue 16, step 3: tcgen05.st of a computed fragment into a buffer an MMA reads as its A
operand (16-bit A packed two per 32-bit column, 9.7.16.10.4), and of a computed fragment
into an accumulator.

Expected values come from NumPy (the .check.py reference) through the simulator, which
reads A from tensor memory by the ISA's packing and imports nothing of the compiler; the
register counts and spills from ptxas."""

import re
import subprocess

import numpy as np
import pytest

from tcgen05_lower.backend import find_ptxas
from sim_checks import assert_matches, run, run_example

CHAIN = "gemm_chain_p_tmem"
STRATEGIES = ["strategy=register-budget=32", "strategy=max-width"]


def run_chain(select: str, schedule: str = "late"):
    return run_example(CHAIN, select, schedule)


@pytest.mark.parametrize("schedule", ["late", "eager"])
@pytest.mark.parametrize("select", STRATEGIES)
def test_p_through_tensor_memory_matches_numpy(select, schedule):
    _, problem, inputs, sim = run_chain(select, schedule)
    assert_matches(problem, inputs, sim)


def test_strategies_agree_bit_for_bit():
    outputs = [run_chain(select)[3].outputs["O"] for select in STRATEGIES]
    assert np.array_equal(outputs[0].view(np.uint32), outputs[1].view(np.uint32))


def test_the_bound_sees_the_packing():
    """A reference whose P has the two K elements of every column swapped (the other
    half-word order) is outside the bound: the check can tell the packings apart."""
    _, problem, inputs, sim = run_chain(STRATEGIES[0])
    swapped = dict(inputs, V=inputs["V"][np.arange(64) ^ 1])
    want = problem.reference(swapped)["O"]
    ok, *_ = problem.tolerance("O", sim.outputs["O"], want, inputs)
    assert not ok


def test_a_store_is_one_packed_message_per_warp():
    result, *_ = run_chain(STRATEGIES[0])
    stores = re.findall(r"tcgen05\.st\.sync\.aligned\.\S+", result.ptx)
    assert stores == ["tcgen05.st.sync.aligned.32x32b.x32.b32"]
    assert ".unpack::16b" not in result.ptx


@pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")
@pytest.mark.parametrize("select", STRATEGIES)
def test_ptxas_no_spills(select, tmp_path):
    result, *_ = run_chain(select)
    ptx = tmp_path / "k.ptx"
    ptx.write_text(result.ptx)
    out = subprocess.run([find_ptxas(), "-arch=sm_100a", "-v", str(ptx), "-o",
                          str(tmp_path / "k.cubin")], capture_output=True, text=True,
                         check=True).stderr
    assert "0 bytes spill stores, 0 bytes spill loads" in out, out


RESCALE = """
func.func @rescale(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %false = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 16], bf16, "K", "32B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 16], bf16, "K", "32B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 16], bf16, "K", "32B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 64 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[64, 16], bf16, "K", "32B">, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 16], bf16, "K", "32B">, !tcgen05.smem<[64, 16], bf16, "K", "32B">, i1) -> ()
  scf.for %col = %c0 to %c64 step %c32 {
    %x = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    %y = "tcgen05.frag_map"(%x) ({
    ^bb0(%e: f32, %r: index, %c: index):
      // acc * (row + 1) - column: an element the thread holds decides the value
      %n = arith.addi %col, %c : index
      %ri = arith.index_cast %r : index to i32
      %ni = arith.index_cast %n : index to i32
      %rf = arith.sitofp %ri : i32 to f32
      %nf = arith.sitofp %ni : i32 to f32
      %one = arith.constant 1.0 : f32
      %r1 = arith.addf %rf, %one : f32
      %m = arith.mulf %e, %r1 : f32
      %v = arith.subf %m, %nf : f32
      gpu.yield %v : f32
    }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.st"(%acc, %col, %y) : (!tcgen05.tmem<[128, 64], f32>, index, !tcgen05.frag<[128, 32], f32>) -> ()
  }
  scf.for %col = %c0 to %c64 step %c32 {
    %z = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%z, %C, %col) {ld = 64 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  }
  return
}
"""

RESCALE_CHECK = '''
import numpy as np
BUFFERS = {"A": ("bfloat16", (128, 16)), "B": ("bfloat16", (16, 64)),
           "C": ("float32", (128, 64))}
# the products are exact in f64 and summed exactly, then rounded once (the MMA), then
# one f32 multiply and one subtract: a few f32 ulps of the largest magnitude
TOLERANCE = (2.0 ** -20, 2.0 ** -12)
def reference(inputs):
    acc = inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)
    rows = np.arange(128)[:, None] + 1.0
    cols = np.arange(64)[None, :]
    return {"C": acc * rows - cols}
'''


@pytest.mark.parametrize("select", STRATEGIES + ["strategy=register-budget=32 shape=16x256b"])
def test_computed_fragment_stored_into_an_accumulator(select, tmp_path):
    """ld -> frag_map -> st back into the accumulator (the rescaling of O in online
    softmax): under a 16-lane shape too, where a thread holds parts of two rows."""
    check = tmp_path / "rescale.check.py"
    check.write_text(RESCALE_CHECK)
    _, problem, inputs, sim = run(RESCALE, "rescale", check, select)
    assert_matches(problem, inputs, sim)
