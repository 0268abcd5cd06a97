"""A finished simulate() leaves no reference cycle behind: the instruction handlers are
closures over their machine, which holds them, so api.simulate drops them
(Machine.release) once a cluster's results are taken, and the machine, its ordering
model, tensor-core state and parsed PTX are freed by reference counting. Without it
every run left its objects (about 12,000 for the warp-specialized persistent GEMM) to
the cyclic garbage collector, whose full collections then scanned them all."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import example_runs
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.state import SimError


def _cycles_left_by(run) -> int:
    """How many unreachable objects (members of reference cycles, and what only they
    keep) ``run()`` leaves: gc.collect()'s count after it, the collector off meanwhile
    so that none is collected before."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        run()
        return gc.collect()
    finally:
        if enabled:
            gc.enable()


@pytest.mark.parametrize("example, options", [
    ("ws_persistent_gemm_bf16.mlir", {}),                        # one CTA, warp roles
    ("ws_gemm_2cta_bf16.mlir", {}),                              # a CTA pair
    ("ws_persistent_gemm_bf16.mlir", {"timing": True}),          # RecordingMachine
    ("ws_persistent_gemm_bf16.mlir", {"functional_only": True}),
    ("ws_persistent_gemm_bf16.mlir", {"schedule": "random", "seed": 3}),
    ("gemm_bf16_grid.mlir", {}),                                 # several clusters
])
def test_a_finished_run_leaves_no_reference_cycle(example, options):
    ptx, manifest, _problem, inputs = example_runs.prepared(example)

    def run():
        args = {k: (v.copy() if isinstance(v, np.ndarray) else v)
                for k, v in inputs.items()}
        result = simulate(ptx, manifest, args, **options)
        assert result.warp_instructions > 0 and not result.races

    run()   # the first run of a process also makes what lives on (imports, caches)
    assert _cycles_left_by(run) == 0


@pytest.mark.parametrize("options", [
    {"max_instructions": 500},   # LimitExceeded mid-run (a SimError)
    {"timeout": 0.0},            # stopped by the deadline at its first check
])
def test_a_run_stopped_by_an_error_leaves_no_reference_cycle(options):
    """The same for a run that ends in a SimError: the machine is released before the
    error leaves simulate()."""
    ptx, manifest, _problem, inputs = example_runs.prepared("ws_persistent_gemm_bf16.mlir")

    def run():
        args = {k: (v.copy() if isinstance(v, np.ndarray) else v)
                for k, v in inputs.items()}
        try:   # (not pytest.raises: its record of the traceback would be a cycle itself)
            simulate(ptx, manifest, args, **options)
        except SimError as err:
            message = str(err)
        else:
            message = ""
        assert "stopped after" in message

    run()
    assert _cycles_left_by(run) == 0


def _collections_during(run) -> int:
    """How many collections the cyclic collector made while ``run()`` ran (gc.callbacks)."""
    seen = []

    def count(phase, info):
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(count)
    try:
        run()
    finally:
        gc.callbacks.remove(count)
    return len(seen)


def test_the_collector_is_paused_during_a_run_and_restored_after():
    """simulate() pauses the cyclic collector (sim/collector.py): what a run allocates is
    freed by reference counting (the tests above), so a collection would find nothing.
    The same run through the undecorated function (``__wrapped__``) triggers collections:
    that is what the pause saves, and what makes this test fail without it."""
    ptx, manifest, _problem, inputs = example_runs.prepared("ws_persistent_gemm_bf16.mlir")

    def run(function):
        args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
        return lambda: function(ptx, manifest, args)

    assert gc.isenabled()
    assert _collections_during(run(simulate.__wrapped__)) > 0
    assert _collections_during(run(simulate)) == 0
    assert gc.isenabled()


def test_the_collector_state_is_restored_whatever_the_outcome():
    """Off before the call stays off; on before comes back on after a SimError too."""
    ptx, manifest, _problem, inputs = example_runs.prepared("ws_persistent_gemm_bf16.mlir")
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    assert gc.isenabled()
    try:
        simulate(ptx, manifest, args, max_instructions=500)
    except SimError:
        pass
    assert gc.isenabled()
    gc.disable()
    try:
        simulate(ptx, manifest, args, max_instructions=500)
    except SimError:
        pass
    finally:
        was_on = gc.isenabled()
        gc.enable()
    assert not was_on
