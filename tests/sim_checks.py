"""What the simulator tests check of a run against a check file's reference."""

from __future__ import annotations


def assert_matches(problem, inputs, sim) -> None:
    """The run `sim` is race-free, leaves nothing behind at exit, and every output is
    within the check file's tolerance of its NumPy reference."""
    assert not sim.races, sim.races
    assert not sim.problems, sim.problems  # TMEM leak, ops never waited for
    for output, want in problem.reference(inputs).items():
        ok, max_abs, max_rel, bound = problem.tolerance(output, sim.outputs[output], want,
                                                        inputs)
        assert ok, f"{output}: max abs error {max_abs}, max rel error {max_rel} ({bound})"
