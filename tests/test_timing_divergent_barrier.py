"""The timing replay of a warp that reaches barrier.sync in several steps: its threads
diverged (in an edge tile's fill, some threads skip a load that others make) and arrive
at the same barrier instance apart. The recorder used to count each step as the warp's
next instance, so the replay waited for an instance the other warps never reach ("no
warp can proceed"). examples/gemm_bf16_grid.mlir at N = 264 (the second column tile
holds 8 of its 256 rows of B) is such a run; it must replay, with the functional result
of the run unchanged (checked against NumPy)."""

from pathlib import Path

import numpy as np

from tcgen05_lower.cli.sim_check_file import file_problem
from tcgen05_lower.cli.sim_problem import make_inputs, output_names
from tcgen05_lower.driver import compile_source
from tcgen05_lower.sim.api import simulate
from sim_checks import assert_matches

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_edge_tile_with_diverged_barrier_arrivals_replays():
    kernel = EXAMPLES / "gemm_bf16_grid.mlir"
    result = compile_source(kernel.read_text(), kernel.name)
    problem = file_problem(str(EXAMPLES / "gemm_bf16_grid.check.py"), result.manifest,
                           {"M": 128, "N": 264, "K": 128})
    inputs = make_inputs(problem, result.manifest,
                         output_names(problem, result.manifest, 0), 0)
    originals = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    run = simulate(result.ptx, result.manifest, inputs, timing=True)  # raised before
    assert_matches(problem, originals, run)
    assert run.timing is not None and run.timing.cycles > 0
