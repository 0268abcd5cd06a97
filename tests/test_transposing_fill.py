"""The transposing smem_fill (an MN-contiguous source, src_layout = "k_mn", into a
K-major tile) in 16-byte chunks (lowering/smem.py, _fill_transposing_chunks; issue 26):
where the source argument promises 16-byte alignment (``llvm.align = 16``) and src_ld and
the row offset keep every chunk aligned, each thread loads 8 bf16 of one K index (8
consecutive tile rows) at once and stores them one by one; otherwise element by
element. examples/gemm_bf16_128x256.mlir fills B (K x N row-major, src_ld = 256) that
way: with B promised aligned, the simulated GEMM is bit-identical to the element-wise
fill's and within the f32-accumulation bound of NumPy (sim_checks.assert_matches)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import ROOT, requires_ptxas
from sim_checks import assert_matches
from tcgen05_lower import backend
from tcgen05_lower.cli.sim import prepare
from tcgen05_lower.sim.api import simulate

EXAMPLE = ROOT / "examples" / "gemm_bf16_128x256.mlir"


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    text = EXAMPLE.read_text()
    aligned = text.replace("%B: !gptr", "%B: !gptr {llvm.align = 16 : i64}", 1)   # !llvm.ptr<1>
    assert aligned != text
    path = tmp_path_factory.mktemp("fill") / "gemm_aligned_b.mlir"
    path.write_text(aligned)
    return [prepare(str(p), "gemm", 0) for p in (EXAMPLE, path)]


def test_the_promised_source_is_read_in_16_byte_chunks(prepared):
    """B's tile is 256 x 64 bf16: 16,384 elements, 128 threads. Element by element that
    is one 2-byte load and store per element; in chunks, 2,048 chunks of 8, each one
    16-byte load and 8 2-byte stores (the loop body holds one chunk)."""
    plain, aligned = (p[0] for p in prepared)
    assert re.findall(r"ld\.global(?:\.nc)?\.[bu]16", plain)
    assert not re.findall(r"ld\.global(?:\.nc)?\.[bu]16", aligned)
    assert "ld.global.v4.b32" not in plain
    body = aligned.split("ld.global.v4.b32")
    assert len(body) == 2  # B's fill; A's 16-byte chunks along K load as v2.b64
    assert len(re.findall(r"st\.shared\.b16", body[1].split("bra.uni")[0])) == 8


def test_chunked_and_element_wise_fills_give_the_same_gemm(prepared):
    outputs = []
    for ptx, manifest, problem, inputs in prepared:
        args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
        sim = simulate(ptx, manifest, args)
        assert_matches(problem, inputs, sim)
        outputs.append(sim.outputs)
    for name in outputs[0]:
        np.testing.assert_array_equal(np.asarray(outputs[0][name]).view(np.uint8),
                                      np.asarray(outputs[1][name]).view(np.uint8))


@requires_ptxas
def test_ptxas_accepts_the_chunked_fill(prepared):
    result = backend.run_ptxas(prepared[1][0], arch="sm_100a")
    assert result.ok, result.stderr
