"""Commit sites share one mbarrier where their phases can be told apart statically
(synchronization/insertion.py, shared_mbarriers; issue 26): on the straight-line kernel of
the compile benchmark (N tiles, each a commit after its MMA and a wait before its
tcgen05.ld, a CTA barrier after each tile's fills), every tile's commit goes to the one
mbarrier and tile i's wait names phase i, parity i mod 2 - derived by hand from the
kernel's structure. The simulator checks the result against NumPy: a wrong parity shows
up there as a race (the load overtakes the MMA) or a wait that never returns."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import capture_diagnostics
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.driver import compile_source
from tcgen05_lower.kernel_ir import constant_int
from tcgen05_lower.pipeline import PLANNING, STRUCTURING, build_pass_manager, parse_pipeline
from tcgen05_lower.sim.api import simulate
from test_compile_scaling import scaling

TILES = 6


def planned(text: str):
    """The module after the planning passes (insert-sync and verify-sync included)."""
    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        module = parse_module(text, "straight.mlir")
        for name in STRUCTURING + PLANNING:
            build_pass_manager(parse_pipeline(name)).run(module)
        assert not [x for x in diagnostics if x.severity == "error"]
        return module, [op for op in d.walk_ops(module)]


def test_every_tile_commits_to_one_mbarrier_with_alternating_parity():
    module, ops = planned(scaling.straight_kernel(TILES))
    with module.context:
        allocs = [op for op in ops if op.name == "tcgen05.alloc_mbarrier"]
        commits = [op for op in ops if op.name == "tcgen05.commit"]
        waits = [op for op in ops if op.name == "tcgen05.mbarrier_wait"]
        assert len(allocs) == 1
        assert len(commits) == len(waits) == TILES
        mbarrier = allocs[0].results[0]
        assert all(op.operands[0] == mbarrier for op in commits + waits)
        assert [constant_int(op.operands[1]) for op in waits] == [i % 2 for i in range(TILES)]


def test_the_shared_mbarrier_kernel_computes_a_times_a_transposed():
    """Both fills of every tile read A (128 x 64 bf16), so each MMA (one tcgen05.mma of
    kind::f16: K = 16, Table 39, the tiles' first K block) computes A[:, :16] @ A[:, :16]^T
    (both operands K-major) into its accumulator, and every tile stores columns 0-31 of it
    to C (128 x 128 f32); the reference is NumPy's, within the f32-accumulation bound
    K * 2^-24 * (|A| @ |A|^T) (bf16 products are exact in f32)."""
    tiles = 3
    result = compile_source(scaling.straight_kernel(tiles), "straight.mlir")
    assert result.ptx.count("mbarrier.init") == 1
    rng = np.random.default_rng(1)
    a = rng.standard_normal((128, 64)).astype(ml_dtypes.bfloat16)
    c = np.zeros(128 * 128, np.float32)
    args = {"scaling_param_0": a.view(np.uint16).reshape(-1).copy(), "scaling_param_1": c}
    sim = simulate(result.ptx, result.manifest, args)
    assert sim.ok, (sim.races, sim.problems)
    got = args["scaling_param_1"].reshape(128, 128)
    a64 = a.astype(np.float64)[:, :16]
    want = (a64 @ a64.T)[:, :32]
    bound = 16 * 2.0 ** -24 * (np.abs(a64) @ np.abs(a64).T)[:, :32]
    assert np.all(np.abs(got[:, :32] - want) <= bound)
    assert not np.any(got[:, 32:])
