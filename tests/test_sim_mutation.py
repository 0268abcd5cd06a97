"""Issue 11, acceptance point 3: sync mutation, end to end. For every example, deleting
any one op that ``tcgen05-insert-sync{strategy=minimal}`` adds must be flagged twice,
independently: the simulator (running the mutant's PTX under the late schedule) reports a
race, computes wrong numbers or deadlocks, and tcgen05-verify-sync rejects the mutant.
The two share no code; a disagreement is a bug in one of them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tcgen05_lower.cli.sim import prepare
from tcgen05_lower.driver import compile_source
from tcgen05_lower.pipeline import LOWERING
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.state import SimError
from conftest import synchronized_by_the_compiler
from sim_checks import FirstRaceOrdering
from test_sync_common import deletion_mutants, kernel_id, plan, verify

#: Slow (deleting each inserted sync op of every example and simulating):
#: `pytest -m "not slow"` skips it in a quick local run; CI runs everything.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
#: Examples whose own test deletes each op insert-sync{strategy=minimal} adds, in turn, and
#: asserts both verdicts of this test on each (verify-sync rejects it; the simulator, under
#: the late schedule on the check file's seed-0 inputs, reports an error, a race, a
#: problem at exit or a wrong output), with assertions of its own besides (how many ops,
#: what a deleted producer-tail wait produces). Running them here too would simulate the
#: same PTX on the same inputs twice: tcgen05-verify-sync{partitions=skip}, which those
#: tests compile through first, checks nothing in a kernel with warp roles.
DELETED_BY_THEIR_OWN_TESTS = {
    "ws_persistent_gemm_bf16": "test_ws_persistent_gemm",
    "ws_gemm_bf16_auto": "test_ws_gemm_auto",
    "ws_gemm_2cta_bf16": "test_ws_gemm_2cta_auto",
    "ws_gemm_mxf8_blockscaled": "test_ws_gemm_blockscaled",
    "ws_gemm_nvf4_blockscaled": "test_ws_gemm_blockscaled",
    "ws_gemm_mxf4_blockscaled": "test_ws_gemm_blockscaled",
}
DELETION_TEST = "test_deleting_any_inserted_op_is_caught_by_verify_sync_and_the_simulator"
# Examples that write their own synchronization have no inserted op to delete
# (tests/test_ws_gemm.py deletes theirs).
EXAMPLES = [p for p in synchronized_by_the_compiler(sorted((ROOT / "examples").glob("*.mlir")))
            if p.stem not in DELETED_BY_THEIR_OWN_TESTS]


def simulator_verdict(text: str, source_name: str, problem, inputs,
                      names: list[str]) -> str | None:
    """Why the simulator rejects the mutant (None: it runs clean and right). Printed IR
    names the kernel's arguments %arg0...; `names` are the source's, in order."""
    result = compile_source(text, source_name, pipeline=",".join(LOWERING))
    printed = [p["name"] for p in result.manifest["params"]]
    args = {new: (inputs[old].copy() if isinstance(inputs[old], np.ndarray) else inputs[old])
            for new, old in zip(printed, names) if old in inputs}  # not: tensor maps
    try:
        # only whether the mutant is caught: the run stops at its first race
        run = simulate(result.ptx, result.manifest, args, schedule="late",
                       ordering_factory=FirstRaceOrdering)
    except SimError as error:
        return f"error: {error.message.splitlines()[0]}"
    if run.races:
        return f"race: {run.races[0].message}"
    if run.problems:
        return f"at exit: {run.problems[0]}"
    for name, want in problem.reference(inputs).items():
        got = run.outputs[printed[names.index(name)]]
        if not problem.tolerance(name, got, want, inputs)[0]:
            return f"wrong {name}"
    return None


@pytest.mark.parametrize("path", EXAMPLES, ids=[kernel_id(p) for p in EXAMPLES])
def test_every_inserted_op_is_needed_in_the_simulator_and_in_verify_sync(path):
    check = path.with_suffix(".check.py")
    _, manifest, problem, inputs = prepare(str(path), str(check) if check.exists() else "gemm", 0)
    names = [p["name"] for p in manifest["params"]]
    planned = plan(path, "minimal")
    # the unmutated program runs clean, so every verdict below is about its deletion
    assert simulator_verdict(planned.text, planned.source_name, problem, inputs, names) is None
    rows = []
    for description, text in deletion_mutants(planned.text, planned.source_name):
        sim = simulator_verdict(text, planned.source_name, problem, inputs, names)
        rejected = bool(verify(text, planned.source_name))
        rows.append((description, sim, rejected))
    assert rows, "insert-sync added nothing to an example"
    missed = [f"{desc}: simulator {sim or 'clean'}, verify-sync "
              f"{'rejects' if rej else 'accepts'}" for desc, sim, rej in rows
              if sim is None or not rej]
    assert not missed, "\n".join(missed)


def test_the_examples_left_out_are_deleted_by_their_own_tests():
    """Each example left out above has the deletion test named, over that very example
    and check file (so leaving it out here loses nothing)."""
    import importlib

    for stem, module_name in DELETED_BY_THEIR_OWN_TESTS.items():
        path = ROOT / "examples" / f"{stem}.mlir"
        assert path.exists() and path in synchronized_by_the_compiler([path]), stem
        module = importlib.import_module(module_name)
        assert callable(getattr(module, DELETION_TEST, None)), (stem, module_name)
        source = Path(module.__file__).read_text()
        assert f'"{stem}.mlir"' in source and f'"{stem}.check.py"' in source, stem
