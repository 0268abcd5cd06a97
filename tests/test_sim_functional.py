"""The functional-only mode (issue 37, part 6; tcgen05_lower/sim/functional.py):
``simulate(functional_only=True)`` / ``tcgen05-sim --functional-only`` runs without race
detection and must change nothing else. The expected values are the full run's, which
the same test computes: outputs bit-identical, the same warp instructions per opcode, the
same problems at exit and the same timing estimate, under the late, eager and random
schedules; a mutant whose full run reports races reports none here (and still matches
the full run's numbers); an error (the first mutant that raises one) is still raised."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import example_runs
from test_ws_persistent_gemm import CHECK, _mutants, compile_after_sync
from tcgen05_lower.cli.sim_check_file import file_problem
from tcgen05_lower.cli.sim_problem import make_inputs, output_names
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.ordering import OrderingModel
from tcgen05_lower.sim.state import SimError

ROOT = Path(__file__).resolve().parent.parent


def prepared(name: str):
    """examples/NAME.mlir prepared once per session (tests/example_runs.py)."""
    return example_runs.prepared(f"{name}.mlir")


def run(ptx, manifest, inputs, **options):
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    return simulate(ptx, manifest, args, **options)


def assert_same_run(full, functional):
    assert set(full.outputs) == set(functional.outputs)
    for name, array in full.outputs.items():
        assert np.array_equal(array.view(np.uint8), functional.outputs[name].view(np.uint8)), name
    assert functional.warp_instructions == full.warp_instructions
    assert functional.counts == full.counts
    assert functional.problems == full.problems
    assert functional.races == [] and not functional.races_checked and full.races_checked


@pytest.mark.parametrize("name", ["ws_persistent_gemm_bf16", "ws_gemm_2cta_bf16"])
@pytest.mark.parametrize("options", [{"schedule": "late"}, {"schedule": "eager"},
                                     {"schedule": "random", "seed": 1}],
                         ids=["late", "eager", "random-1"])
def test_the_functional_run_is_the_full_run_without_races(name, options):
    ptx, manifest, _, inputs = prepared(name)
    # the full run of tests/test_sim_examples.py and test_sim_random_schedule.py, shared
    full = example_runs.run(f"{name}.mlir", options["schedule"], options.get("seed"))[2]
    assert full.races == [] and full.problems == []
    assert_same_run(full, run(ptx, manifest, inputs, functional_only=True, **options))


def test_the_timing_estimate_is_the_same():
    ptx, manifest, _, inputs = prepared("ws_persistent_gemm_bf16")
    full = run(ptx, manifest, inputs, timing=True)
    functional = run(ptx, manifest, inputs, timing=True, functional_only=True)
    assert_same_run(full, functional)
    assert functional.timing.cycles == full.timing.cycles
    assert functional.timing.stalls == full.timing.stalls


def _mutant_runs():
    """(full run, functional run), or (the SimError of each), of the first deletion
    mutants of the persistent example that report races and that raise an error."""
    seen = {"races": None, "error": None}
    for _, text in _mutants():
        result = compile_after_sync(text)   # shared with test_ws_persistent_gemm.py
        problem = file_problem(str(CHECK), result.manifest)
        inputs = make_inputs(problem, result.manifest,
                             output_names(problem, result.manifest, 0), 0)
        try:
            full = run(result.ptx, result.manifest, inputs)
        except SimError as error:
            if seen["error"] is None:
                with pytest.raises(SimError) as functional:
                    run(result.ptx, result.manifest, inputs, functional_only=True)
                seen["error"] = (error, functional.value)
            continue
        if full.races and seen["races"] is None:
            seen["races"] = (full, run(result.ptx, result.manifest, inputs,
                                       functional_only=True))
        if all(seen.values()):
            return seen
    return seen


def test_races_are_not_looked_for_and_errors_still_are():
    seen = _mutant_runs()
    full, functional = seen["races"]
    assert_same_run(full, functional)          # the full run's races, none here
    error, functional_error = seen["error"]
    assert functional_error.message == error.message   # e.g. an over-arrival


def test_functional_only_takes_no_other_ordering_model():
    ptx, manifest, _, inputs = prepared("ws_persistent_gemm_bf16")
    with pytest.raises(ValueError, match="functional_only"):
        run(ptx, manifest, inputs, functional_only=True, ordering_factory=OrderingModel)


def test_the_command_line_says_races_were_not_looked_for(tool):
    name = "ws_persistent_gemm_bf16"
    proc = tool("tcgen05-sim", str(ROOT / "examples" / f"{name}.mlir"), "--check",
                str(ROOT / "examples" / f"{name}.check.py"), "--functional-only")
    assert proc.returncode == 0, proc.stderr
    assert "races: not looked for (--functional-only)" in proc.stdout
    assert "C (128x1024 float32)" in proc.stdout and ": OK" in proc.stdout
