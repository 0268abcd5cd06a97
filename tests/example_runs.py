"""Each example prepared for the simulator once per test session, and the runs several
test files make of it simulated once: tests/test_sim_examples.py (late and eager),
tests/test_sim_functional.py (the full runs it compares the functional-only runs with),
tests/test_sim_random_schedule.py (late, and random seeds) and the warp-specialized
examples' own tests (tests/test_ws_*.py: their clean runs) prepared the same
examples the same way (tcgen05-sim's prepare: the default pipeline with the example's
pass options, its check file's seed-0 inputs) and ran the same schedules on them. The
simulator is deterministic (tests/test_sim_random_schedule.py checks that a seed gives
the same run), so a second run could only repeat the first."""

from __future__ import annotations

import numpy as np

from conftest import EXAMPLES, example_pass_options
from tcgen05_lower.cli.sim import prepare
from tcgen05_lower.sim.api import simulate

_PREPARED: dict = {}
#: (example, schedule, seed) -> SimResult of the runs kept: those of the examples more
#: than one of the files runs (the warp-specialized examples of the random-schedule fast
#: test, two of which tests/test_sim_functional.py runs too), and not the slow tests'
#: many seeds, which no other test repeats; the others' outputs are not kept in memory.
_RUNS: dict = {}
KEPT = frozenset({"ws_gemm_bf16.mlir", "ws_gemm_bf16_auto.mlir", "ws_persistent_gemm_bf16.mlir",
                  "ws_gemm_2cta_bf16.mlir"})


#: (example, target) -> (compile result, ptxas result) of the example for that target.
_ASSEMBLED: dict = {}


def assembled(example: str, target: str):
    """(compile result, ptxas's result) of examples/`example` (a file name) compiled for
    `target` with its pass options, once per session: tests/test_examples_ptxas.py
    assembles every example for every target, and the examples' own tests assemble
    theirs with assertions of their own on the PTX."""
    from conftest import example_pipeline
    from tcgen05_lower.backend import run_ptxas
    from tcgen05_lower.driver import compile_source

    key = (example, target)
    if key not in _ASSEMBLED:
        result = compile_source((EXAMPLES / example).read_text(), example, arch=target,
                                emit="ptx", pipeline=example_pipeline(example))
        _ASSEMBLED[key] = (result, run_ptxas(result.ptx, arch=target))
    return _ASSEMBLED[key]


def check_of(name: str) -> str:
    """The example's check file, or "gemm" (the plain GEMM check) if it has none."""
    sidecar = EXAMPLES / name.replace(".mlir", ".check.py")
    return str(sidecar) if sidecar.exists() else "gemm"


def prepared(example: str):
    """(PTX, manifest, problem, inputs) of examples/`example` (a file name)."""
    if example not in _PREPARED:
        _PREPARED[example] = prepare(str(EXAMPLES / example), check_of(example), 0,
                                     pass_options=example_pass_options(example))
    return _PREPARED[example]


def fresh_run(example: str, schedule: str, seed: int | None = None):
    """A new simulation of the prepared example, on copies of its inputs."""
    ptx, manifest, _, inputs = prepared(example)
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    return simulate(ptx, manifest, args, schedule=schedule, seed=seed)


def run(example: str, schedule: str, seed: int | None = None, keep: bool = True):
    """(problem, inputs, SimResult) of the example under `schedule` (and `seed`), simulated
    once per session if `keep` and the example is KEPT. The result may be shared: read
    it, do not change it."""
    _, _, problem, inputs = prepared(example)
    key = (example, schedule, seed)
    if key in _RUNS:
        return problem, inputs, _RUNS[key]
    result = fresh_run(example, schedule, seed)
    if keep and example in KEPT:
        _RUNS[key] = result
    return problem, inputs, result
