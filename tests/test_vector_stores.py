"""store_fragment's 16-byte vector stores (lowering/ldst.py, vector_runs; issue 26): where
the destination argument promises 16-byte alignment (``llvm.align = 16``), a thread's
32 consecutive f32 columns go out as 8 st.global.v4.b32. The simulator (which refuses a
misaligned vector access, PTX ISA 9.7.9.9) runs the benchmark's straight kernel both
ways on the same input: the results are bit-identical and match NumPy. The PTX text
checks are lit_tests/tcgen05-lower-to-llvm/vector-stores.mlir."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

from conftest import requires_ptxas
from tcgen05_lower import backend
from tcgen05_lower.driver import compile_source
from tcgen05_lower.sim.api import simulate
from test_compile_scaling import scaling

TILES = 3
ALIGNED = '%C: !llvm.ptr<1> {llvm.align = 16 : i64} loc('


def kernels() -> tuple[str, str]:
    """The straight kernel as the benchmark writes it, and with C promised 16-byte
    aligned."""
    plain = scaling.straight_kernel(TILES)
    aligned = plain.replace("%C: !llvm.ptr<1> loc(", ALIGNED, 1)
    assert aligned != plain
    return plain, aligned


@pytest.fixture(scope="module")
def compiled():
    return [compile_source(text, "straight.mlir") for text in kernels()]


def test_stores_by_hand_count(compiled):
    """Per tile, one 32-column fragment a thread: 32 scalar stores, or 8 vector ones."""
    plain, aligned = (r.ptx for r in compiled)
    assert len(re.findall(r"st\.global\.b32\b", plain)) == 32 * TILES
    assert "st.global.v4" not in plain
    assert len(re.findall(r"st\.global\.v4\.b32\b", aligned)) == 8 * TILES
    assert not re.findall(r"st\.global\.b32\b", aligned)


def test_vector_and_scalar_stores_write_the_same_numpy_checked_result(compiled):
    """Each MMA (kind::f16, K = 16, Table 39) computes A[:, :16] @ A[:, :16]^T; columns
    0-31 of it land in C, within the f32-accumulation bound K * 2^-24 * (|A| @ |A|^T)."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((128, 64)).astype(ml_dtypes.bfloat16)
    outputs = []
    for result in compiled:
        args = {"scaling_param_0": a.view(np.uint16).reshape(-1).copy(),
                "scaling_param_1": np.zeros(128 * 128, np.float32)}
        sim = simulate(result.ptx, result.manifest, args)
        assert sim.ok, (sim.races, sim.problems)
        outputs.append(args["scaling_param_1"].reshape(128, 128))
    np.testing.assert_array_equal(outputs[0].view(np.uint32), outputs[1].view(np.uint32))
    a64 = a.astype(np.float64)[:, :16]
    want = (a64 @ a64.T)[:, :32]
    bound = 16 * 2.0 ** -24 * (np.abs(a64) @ np.abs(a64).T)[:, :32]
    assert np.all(np.abs(outputs[1][:, :32] - want) <= bound)
    assert not np.any(outputs[1][:, 32:])


@requires_ptxas
def test_ptxas_accepts_the_vector_stores(compiled):
    result = backend.run_ptxas(compiled[1].ptx, arch="sm_100a")
    assert result.ok, result.stderr
