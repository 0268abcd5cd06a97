"""A grid GEMM whose epilogue is a tcgen05.frag_map (per-column bias, bf16 output) stored
with run-time dims (issue 33, point 1): examples/gemm_bf16_grid_bias.mlir, with the
leading dimension of C as a dims operand (as written) and as the ``ld`` attribute (the
same kernel with the store rewritten), at sizes that are and are not multiples of the
128 x 128 tile. Each run must be race-free under both schedules and match the NumPy
reference of examples/gemm_bf16_grid_bias.check.py within its hand-derived bound.

Before the fix the operand form did not compile (the chunked epilogue dropped the
store's dims operands: an internal AttributeError), and the attribute form stored every
CTA's tile where tile (0, 0) goes (the computed-fragment store ignored the offsets and
extents), leaving the other tiles NaN."""

from pathlib import Path

import numpy as np
import pytest

from tcgen05_lower.cli.sim_check_file import file_problem
from tcgen05_lower.cli.sim_problem import make_inputs, output_names
from tcgen05_lower.driver import compile_source
from tcgen05_lower.sim.api import simulate
from sim_checks import assert_matches

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
KERNEL = EXAMPLES / "gemm_bf16_grid_bias.mlir"
CHECK = EXAMPLES / "gemm_bf16_grid_bias.check.py"

OPERAND_STORE = """    "tcgen05.store_fragment"(%out, %C, %col, %c_ld, %m0, %n0, %m, %n)
        {dims = ["ld", "row_offset", "column_offset", "rows", "columns"]}
        : (!frag_128x32xbf16, !gptr, index, index, index, index, index, index) -> ()"""
ATTRIBUTE_STORE = """    "tcgen05.store_fragment"(%out, %C, %col, %m0, %n0, %m, %n)
        {{ld = {ld} : i64, dims = ["row_offset", "column_offset", "rows", "columns"]}}
        : (!frag_128x32xbf16, !gptr, index, index, index, index, index) -> ()"""

SIZES = [(200, 136, 192), (256, 128, 128)]


def kernel_text(ld_form: str, n: int) -> str:
    text = KERNEL.read_text()
    assert OPERAND_STORE in text
    if ld_form == "operand":
        return text
    return text.replace(OPERAND_STORE, ATTRIBUTE_STORE.format(ld=n))


_COMPILED: dict = {}


def compiled(ld_form: str, n: int):
    key = (ld_form, n if ld_form == "attribute" else None)
    if key not in _COMPILED:
        _COMPILED[key] = compile_source(kernel_text(ld_form, n), KERNEL.name)
    return _COMPILED[key]


@pytest.mark.parametrize("schedule", ["late", "eager"])
@pytest.mark.parametrize("m,n,k", SIZES)
@pytest.mark.parametrize("ld_form", ["operand", "attribute"])
def test_grid_gemm_bias_bf16_matches_numpy(ld_form, m, n, k, schedule):
    result = compiled(ld_form, n)
    problem = file_problem(str(CHECK), result.manifest, {"M": m, "N": n, "K": k})
    inputs = make_inputs(problem, result.manifest,
                         output_names(problem, result.manifest, 0), 0)
    originals = {key: (v.copy() if isinstance(v, np.ndarray) else v)
                 for key, v in inputs.items()}
    grid = result.manifest["grid"]
    sim = simulate(result.ptx, result.manifest, inputs, schedule=schedule)
    assert_matches(problem, originals, sim)
    # Every element of C was written (NaN marks an unwritten one, make_inputs).
    assert not np.isnan(sim.outputs["C"].astype(np.float64)).any(), grid


def test_attribute_form_has_no_ld_operand():
    # The rewrite above took effect: the store names four dims and the ld attribute.
    text = kernel_text("attribute", 136)
    assert "ld = 136 : i64" in text and OPERAND_STORE not in text


# A wide load_fragment -> tcgen05.st pair is chunked like the epilogue
# (tcgen05-select-layouts' register budget); each chunk must keep the load's dims
# operands: here the leading dimension and the row offset, read at run time.
ROUND_TRIP = """
!t = !tcgen05.tmem<[128, 256], f32>
!f = !tcgen05.frag<[128, 256], f32>
func.func @round_trip(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>, %ld: i32, %first: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %lda = arith.index_castui %ld : i32 to index
  %row0 = arith.index_castui %first : i32 to index
  %buf = "tcgen05.tmem_buffer"() : () -> !t
  %in = "tcgen05.load_fragment"(%src, %c0, %lda, %row0) {dims = ["ld", "row_offset"]}
      : (!llvm.ptr<1>, index, index, index) -> !f
  "tcgen05.st"(%buf, %c0, %in) : (!t, index, !f) -> ()
  %out = "tcgen05.ld"(%buf, %c0) : (!t, index) -> !f
  "tcgen05.store_fragment"(%out, %dst, %c0) {ld = 256 : i64} : (!f, !llvm.ptr<1>, index) -> ()
  return
}
"""


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_chunked_load_fragment_keeps_its_dims(schedule):
    result = compile_source(ROUND_TRIP, "round_trip.mlir")
    rng = np.random.default_rng(0)
    ld, first = 264, 3  # rows of 264 elements, the tile starting at row 3
    src = rng.uniform(-1, 1, size=(first + 128, ld)).astype(np.float32)
    dst = np.full((128, 256), np.nan, np.float32)
    sim = simulate(result.ptx, result.manifest,
                   {"src": src.copy(), "dst": dst, "ld": ld, "first": first},
                   schedule=schedule)
    assert not sim.races and not sim.problems
    # A copy through tensor memory: exact (NumPy slicing is the reference).
    np.testing.assert_array_equal(sim.outputs["dst"], src[first:first + 128, :256])
