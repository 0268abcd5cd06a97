"""16-byte stores of computed fragments (tcgen05.frag_map results, lowering/compute.py
store_computed; issue 35, item 2) and the epilogue-stores option that turns them off.

examples/gemm_bf16_grid_bias.mlir stores C = bf16(acc + bias) from .32x32b.x32 fragments:
each thread 32 consecutive bf16 columns (64 bytes) of one row. Where the C pointer and
ldc * 2 bytes are multiples of 16 and the fragment's 32 columns lie inside N (a
warp-uniform run-time test; the tile columns n0 + 0, 32, ... are known multiples of 8),
the fragment is 4 st.global.v4.b32 (two bf16 per 32-bit word, the lower column in the
low half) under the thread's row test; a fragment across the column edge, or misaligned
rows, store element by element. Expected values: the check file's NumPy float64 reference
within its bound (examples/gemm_bf16_grid_bias.check.py); columns past N stay NaN.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest

from tcgen05_lower.cli.sim_check_file import file_problem
from tcgen05_lower.cli.sim_problem import make_inputs
from tcgen05_lower.driver import compile_source
from tcgen05_lower.pipeline import DEFAULT_PIPELINE, override_options
from tcgen05_lower.sim.api import simulate
from sim_checks import assert_matches

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
KERNEL = EXAMPLES / "gemm_bf16_grid_bias.mlir"
CHECK = EXAMPLES / "gemm_bf16_grid_bias.check.py"
VECTOR_STORE = re.compile(r"st\.global\.v4\.b32")
SCALAR = override_options(DEFAULT_PIPELINE, ["tcgen05-lower-to-llvm{epilogue-stores=scalar}"])


@pytest.fixture(scope="module")
def compiled():
    return compile_source(KERNEL.read_text(), KERNEL.name)


@pytest.fixture(scope="module")
def compiled_scalar():
    return compile_source(KERNEL.read_text(), KERNEL.name, pipeline=SCALAR)


def run(compiled, sizes: dict, schedule: str = "late"):
    problem = file_problem(str(CHECK), compiled.manifest, sizes)
    inputs = make_inputs(problem, compiled.manifest, ["C"], 0)
    given = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    trace = io.StringIO()
    sim = simulate(compiled.ptx, compiled.manifest, inputs, schedule=schedule, trace=trace)
    return problem, given, inputs, sim, trace.getvalue().splitlines()


def test_the_ptx_has_both_forms_and_packs_two_bf16_per_word(compiled):
    assert len(VECTOR_STORE.findall(compiled.ptx)) == 4    # 64 bytes a thread: 4 x 16
    assert re.search(r"st\.global\.b16", compiled.ptx)
    assert len(re.findall(r"mov\.b32 %r\d+, \{%rs\d+, %rs\d+\};", compiled.ptx)) >= 16


def test_scalar_option_has_no_vector_store(compiled_scalar):
    assert not VECTOR_STORE.search(compiled_scalar.ptx)


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_aligned_ldc_stores_16_bytes_and_scalars_at_the_edge(compiled, schedule):
    # N = ldc = 136: 272-byte rows (a multiple of 16): the first column of CTAs stores
    # vectors; the second holds columns 128-135, a fragment across N: scalars.
    problem, given, inputs, sim, trace = run(compiled, {"M": 200, "N": 136, "K": 64},
                                             schedule)
    assert_matches(problem, given, sim)
    assert any(VECTOR_STORE.search(line) for line in trace)


def test_unaligned_ldc_stores_element_by_element(compiled):
    # N = ldc = 132: 264-byte rows, 8 bytes past a multiple of 16 in every other row.
    problem, given, inputs, sim, trace = run(compiled, {"M": 130, "N": 132, "K": 64})
    assert_matches(problem, given, sim)
    assert not any(VECTOR_STORE.search(line) for line in trace)


def test_scalar_option_gives_the_same_c(compiled, compiled_scalar):
    sizes = {"M": 130, "N": 136, "K": 64}
    *_, vector_c, _, _ = run(compiled, sizes)
    problem, given, scalar_c, sim, trace = run(compiled_scalar, sizes)
    assert_matches(problem, given, sim)
    assert not any(VECTOR_STORE.search(line) for line in trace)
    np.testing.assert_array_equal(vector_c["C"].view(np.uint16), scalar_c["C"].view(np.uint16))


def test_fp8_output_packs_four_bytes_per_word():
    path = EXAMPLES / "gemm_e4m3_out_scaled.mlir"
    ptx = compile_source(path.read_text(), path.name).ptx
    # 32 one-byte columns a thread: 2 x 16 bytes.
    assert len(VECTOR_STORE.findall(ptx)) == 2


def test_timing_model_sees_the_store_width():
    """The timing model moves a warp's global store through the L2 port in 32-byte
    sectors (tcgen05_lower/sim/timing.py, SECTOR_BYTES): by hand, a warp's 2-byte stores
    to 32 rows move 32 sectors for 64 bytes, its 16-byte stores 32 sectors for 512, so
    the scalar epilogue of gemm_bf16_out_bias_gelu (C 128 x 256 bf16: 1024 warp stores
    of 2 bytes a thread vs 128 of 16) moves 8x the sectors, and is estimated slower."""
    from tcgen05_lower.cli.sim import prepare

    path = EXAMPLES / "gemm_bf16_out_bias_gelu.mlir"
    cycles = {}
    for choice in ("vector", "scalar"):
        ptx, manifest, problem, inputs = prepare(
            str(path), str(path.with_suffix(".check.py")), 0,
            pass_options=(f"tcgen05-lower-to-llvm{{epilogue-stores={choice}}}",))
        result = simulate(ptx, manifest, inputs, schedule="late", timing=True)
        assert result.ok
        cycles[choice] = result.timing.cycles
    assert cycles["vector"] < cycles["scalar"], cycles
