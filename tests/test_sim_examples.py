"""Acceptance (issue 11, point 1): every example runs in the simulator with random inputs
and matches NumPy under both schedules, with no race, no TMEM left allocated and no
out-of-bounds access (an out-of-bounds access is a SimError and fails the test).

Tolerance (tcgen05_lower.cli.sim): bf16 GEMMs with f32 accumulation are checked
element-wise against a float64 NumPy product with the error bound of summing K products
in f32 in any order, |C - A@B| <= K * 2^-24 * (|A| @ |B|); the products of bf16 inputs are
exact in f32, so this is the f32-accumulation level. gemm_m64_pair uses its reference
file's bound (examples/gemm_m64_pair.check.py)."""

from pathlib import Path

import pytest

from example_runs import run
from sim_checks import assert_matches

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("*.mlir"))


@pytest.mark.parametrize("schedule", ["late", "eager"])
@pytest.mark.parametrize("example", EXAMPLES)
def test_example_matches_numpy(example, schedule):
    # prepared once (tcgen05-sim's prepare, the example's pass options, check-file seed 0)
    # and shared with tests/test_sim_functional.py and test_sim_random_schedule.py
    assert_matches(*run(example, schedule))
