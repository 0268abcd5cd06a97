"""store_fragment's 16-byte stores at run-time leading dimensions and extents (issue 35,
item 2; lowering/ldst.py, _edge_vector_stores): examples/gemm_bf16_grid.mlir stores C
(f32, ldc and the extents M, N kernel arguments) from layout D .32x32b fragments, each
thread 32 consecutive columns of one row. Where the C pointer and ldc * 4 bytes are
multiples of 16 and the fragment's 32 columns lie inside N (a warp-uniform run-time
test; the tile columns n0 + 0, 32, ... are known multiples of 4), the fragment is 8
st.global.v4.b32 under the thread's row test; a fragment across the column edge, or
misaligned rows, store element by element. The
expected C is NumPy's float64 product (within the f32 summation bound K * 2^-24 * |A||B|),
and columns past N stay as they were (NaN)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest

from tcgen05_lower.cli.sim import file_problem, make_inputs
from tcgen05_lower.driver import compile_source
from tcgen05_lower.sim.api import simulate
from sim_checks import assert_matches

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
KERNEL = EXAMPLES / "gemm_bf16_grid.mlir"
CHECK = EXAMPLES / "gemm_bf16_grid.check.py"
VECTOR_STORE = re.compile(r"st\.global\.v4\.b32")


@pytest.fixture(scope="module")
def compiled():
    return compile_source(KERNEL.read_text(), KERNEL.name)


def run(compiled, sizes: dict, schedule: str):
    problem = file_problem(str(CHECK), compiled.manifest, sizes)
    inputs = make_inputs(problem, compiled.manifest, ["C"], 0)
    originals = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    trace = io.StringIO()
    sim = simulate(compiled.ptx, compiled.manifest, inputs, schedule=schedule, trace=trace)
    return problem, originals, inputs, sim, trace.getvalue().splitlines()


def test_the_ptx_has_both_forms(compiled):
    assert VECTOR_STORE.search(compiled.ptx)
    assert re.search(r"st\.global\.b32", compiled.ptx)


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_aligned_ldc_with_a_group_across_the_edge(compiled, schedule):
    # N = 70, ldc = 72 (288-byte rows): columns 0-63 in vectors, 64-69 (a fragment
    # across N) in scalars, 70-71 (past N) untouched; M = 130: rows 128-129 of the
    # second row of CTAs, the rest of its 128 rows outside the extents.
    sizes = {"M": 130, "N": 70, "K": 64, "ldc": 72}
    problem, given, inputs, sim, trace = run(compiled, sizes, schedule)
    assert sim.ok, (sim.races, sim.problems)
    assert any(VECTOR_STORE.search(line) for line in trace)
    c = inputs["C"].reshape(130, 72)
    a = given["A"].reshape(130, 64).astype(np.float64)
    b = given["B"].reshape(64, 70).astype(np.float64)
    bound = 64 * 2.0 ** -24 * (np.abs(a) @ np.abs(b))
    assert np.all(np.abs(c[:, :70] - a @ b) <= bound)
    assert np.isnan(c[:, 70:]).all() and np.isnan(given["C"]).all()


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_unaligned_ldc_stores_element_by_element(compiled, schedule):
    # ldc = N = 70: 280-byte rows, 8 bytes past a multiple of 16 in every other row.
    problem, given, inputs, sim, trace = run(compiled, {"M": 130, "N": 70, "K": 64},
                                             schedule)
    assert_matches(problem, given, sim)
    assert not any(VECTOR_STORE.search(line) for line in trace)
