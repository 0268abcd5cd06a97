"""Acceptance (issue 11, point 1): every example runs in the simulator with random inputs
and matches NumPy under both schedules, with no race, no TMEM left allocated and no
out-of-bounds access (an out-of-bounds access is a SimError and fails the test).

Tolerance (tcgen05_lower.cli.sim): bf16 GEMMs with f32 accumulation are checked
element-wise against a float64 NumPy product with the error bound of summing K products
in f32 in any order, |C - A@B| <= K * 2^-24 * (|A| @ |B|); the products of bf16 inputs are
exact in f32, so this is the f32-accumulation level. gemm_m64_pair uses its reference
file's bound (examples/gemm_m64_pair.check.py)."""

from pathlib import Path

import numpy as np
import pytest

from tcgen05_lower.cli.sim import prepare
from tcgen05_lower.sim.api import simulate
from conftest import example_pass_options
from sim_checks import assert_matches

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("*.mlir"))


def check_of(name: str) -> str:
    sidecar = ROOT / "examples" / name.replace(".mlir", ".check.py")
    return str(sidecar) if sidecar.exists() else "gemm"


@pytest.fixture(scope="module")
def prepared():
    return {}


@pytest.mark.parametrize("schedule", ["late", "eager"])
@pytest.mark.parametrize("example", EXAMPLES)
def test_example_matches_numpy(example, schedule, prepared):
    if example not in prepared:
        prepared[example] = prepare(str(ROOT / "examples" / example), check_of(example), 0,
                                    pass_options=example_pass_options(example))
    ptx, manifest, problem, inputs = prepared[example]
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    assert_matches(problem, inputs, simulate(ptx, manifest, args, schedule=schedule))
