"""Random schedules (issue 37, part 4; tcgen05_lower/sim/schedule.py).

Correct kernels stay correct under every seed: each warp-specialized example runs
race-free, leaves nothing behind and matches NumPy (the check files' references and
tolerances, tests/sim_checks.assert_matches) under FAST_SEEDS random schedules, and its
outputs are bit-identical to the late schedule's (the schedule reorders only what the
program does not order; the MMAs of one thread still run in issue order). The slow test
takes every example further: each kernel with warp roles to ROLE_SEEDS seeds (the four
above only for the seeds the fast test has not run), each uniform kernel (no
tcgen05.partitions: every warp runs the same program) to UNIFORM_SEEDS; with
TCGEN05_ALL_SEEDS=1 in the environment every example to SLOW_SEEDS (docs/simulator.md).

Deleted synchronization: each op tcgen05-insert-sync adds to the persistent example,
deleted in turn (the mutants of tests/test_ws_persistent_gemm.py), is caught by some seed
among the first DELETION_SEEDS (benchmarks/sim/RANDOM_SCHEDULES.md lists which seeds
catch each, from benchmarks/sim/random_deletions.py); slow, since tests/
test_ws_persistent_gemm.py already deletes each op under the late schedule.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import example_runs
from example_runs import check_of, prepared
from sim_checks import assert_matches, judge
from test_ws_persistent_gemm import CHECK, _mutants, compile_after_sync
from tcgen05_lower.cli.sim import run as cli_run
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.ordering import OrderingModel, TmaInFlight
from tcgen05_lower.sim.schedule import NOT_RUNNABLE, RandomSchedule, parse_seeds
from tcgen05_lower.sim.state import CtaMemory

ROOT = Path(__file__).resolve().parent.parent
WS_EXAMPLES = ["ws_gemm_bf16.mlir", "ws_gemm_bf16_auto.mlir", "ws_persistent_gemm_bf16.mlir",
               "ws_gemm_2cta_bf16.mlir"]
ALL_EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("*.mlir"))
#: About 3 s per run of a warp-specialized example: 4 examples x 3 seeds stay under a
#: minute with their late runs.
FAST_SEEDS = 3
SLOW_SEEDS = 8
#: Seeds of a kernel with warp roles in the slow test unless TCGEN05_ALL_SEEDS=1 (then
#: SLOW_SEEDS): one more than the fast test's for the four above. A run of the attention
#: example takes seconds, and eight seeds of each role kernel took about a tenth of the
#: suite's time; each role example still runs race-free and right under four random
#: schedules by default (and the attention example under two more of its own, tests/
#: test_ws_attention.py), and which seeds catch a deleted wait is the deletion test's
#: below (DELETION_SEEDS, on the persistent example's every inserted op).
ROLE_SEEDS = 4
#: Seeds of a uniform kernel in the slow test unless TCGEN05_ALL_SEEDS=1. What a seed
#: varies is the interleaving; races are found from vector clocks whatever the
#: interleaving (docs/simulator.md), and in a uniform kernel every warp waits at the
#: same barriers and mbarriers, so the late and eager schedules (tests/test_sim_examples.py)
#: bound when its asynchronous operations complete. A grid's clusters draw schedules of
#: their own (seeded by seed and cluster id), so a seed is a schedule per CTA there.
#: One seed keeps every uniform example under a random schedule in the default run.
UNIFORM_SEEDS = 1
ALL_SEEDS = os.environ.get("TCGEN05_ALL_SEEDS", "") not in ("", "0")
#: benchmarks/sim/RANDOM_SCHEDULES.md: every mutant is caught by a seed among these.
DELETION_SEEDS = 8


def run(example: str, schedule: str, seed: int | None = None, keep: bool = True):
    """(problem, inputs, SimResult), shared with the other tests of the examples
    (tests/example_runs.py); the slow test's runs are not kept (no other test repeats
    them)."""
    return example_runs.run(example, schedule, seed, keep)


def outputs_of(result, problem, inputs) -> dict:
    return {name: result.outputs[name] for name in problem.reference(inputs)}


@pytest.mark.parametrize("example", WS_EXAMPLES)
def test_warp_specialized_examples_are_race_free_and_exact_under_random_seeds(example):
    problem, inputs, late = run(example, "late")
    assert_matches(problem, inputs, late)
    want = outputs_of(late, problem, inputs)
    for seed in range(FAST_SEEDS):
        problem, inputs, result = run(example, "random", seed, keep=False)
        assert_matches(problem, inputs, result)
        for name, array in outputs_of(result, problem, inputs).items():
            assert np.array_equal(array, want[name]), (example, seed, name)


def has_warp_roles(example: str) -> bool:
    return '"tcgen05.partitions"' in (ROOT / "examples" / example).read_text()


def seed_count(example: str) -> int:
    """How many seeds (from 0) the fast and slow tests run `example` under in all."""
    if ALL_SEEDS:
        return SLOW_SEEDS
    return ROLE_SEEDS if has_warp_roles(example) else UNIFORM_SEEDS


def more_seeds(example: str) -> range:
    """The seeds the slow test runs `example` under (module docstring)."""
    if example in WS_EXAMPLES:   # seeds 0 to FAST_SEEDS - 1: the test above, bit-exact too
        return range(FAST_SEEDS, seed_count(example))
    return range(seed_count(example))


def test_the_slow_seeds_cover_every_example_and_each_role_kernel_fully():
    assert set(WS_EXAMPLES) == example_runs.KEPT   # their late runs are shared
    assert all(has_warp_roles(example) for example in WS_EXAMPLES)
    assert FAST_SEEDS < ROLE_SEEDS <= SLOW_SEEDS and UNIFORM_SEEDS <= ROLE_SEEDS
    for example in ALL_EXAMPLES:
        seeds = set(more_seeds(example))
        if example in WS_EXAMPLES:
            seeds |= set(range(FAST_SEEDS))
        count = SLOW_SEEDS if ALL_SEEDS else \
            ROLE_SEEDS if has_warp_roles(example) else UNIFORM_SEEDS
        assert seeds == set(range(count)), example


@pytest.mark.slow
@pytest.mark.parametrize("example", ALL_EXAMPLES)
def test_every_example_is_race_free_and_correct_under_more_seeds(example):
    for seed in more_seeds(example):
        problem, inputs, result = run(example, "random", seed, keep=False)
        assert_matches(problem, inputs, result)


def test_a_seed_gives_the_same_run_and_seeds_give_different_runs():
    example = "ws_gemm_2cta_bf16.mlir"
    # two separate runs of seed 5 (not one shared result)
    runs = [example_runs.fresh_run(example, "random", seed) for seed in (5, 5, 6, 7)]
    assert runs[0].counts == runs[1].counts
    assert runs[0].warp_instructions == runs[1].warp_instructions
    # the spin loops of mbarrier waits run a different number of times under other
    # interleavings, so the instruction counts differ between seeds
    assert len({r.warp_instructions for r in runs}) > 1


@pytest.mark.slow   # 17 mutants compiled and run: about 40 s of CPU
def test_each_deleted_sync_op_is_caught_by_some_seed():
    mutants = _mutants()
    assert len(mutants) == 17   # as in tests/test_ws_persistent_gemm.py
    missed = []
    for description, text in mutants:
        result = compile_after_sync(text)   # shared with test_ws_persistent_gemm.py
        if not any(judge(result, CHECK, "random", seed=seed, first_race=True) is not None
                   for seed in range(DELETION_SEEDS)):
            missed.append(description)
    assert missed == []


# -- the schedule's choices -----------------------------------------------------------------

def test_the_starved_warp_runs_only_when_no_other_warp_can():
    schedule = RandomSchedule(3, nwarps=4)
    schedule.starve_from, schedule.starve_to = 0, 10_000
    warp_of = np.repeat(np.arange(4), 32)
    pcs = np.zeros(128, np.int64)
    for _ in range(200):
        chosen = schedule.pick(pcs, warp_of)
        assert chosen.any() and not chosen[warp_of == schedule.starved].any()
    alone = np.where(warp_of == schedule.starved, 0, NOT_RUNNABLE)
    assert schedule.pick(alone, warp_of).sum() == 32


def test_a_step_runs_a_warp_at_its_lowest_pc_and_whole():
    """Divergent threads of a warp: the lower PC runs first (the warp reconverges and
    warp-collective instructions see it whole); another warp joins only at its own lowest
    PC."""
    schedule = RandomSchedule(1, nwarps=2)
    schedule.starve_from = schedule.starve_to = 0
    schedule.join = 1.0
    warp_of = np.repeat(np.arange(2), 32)
    pcs = np.full(64, 7, np.int64)
    pcs[40:48] = 3          # warp 1 diverged: 8 threads at PC 3
    for _ in range(50):
        chosen = schedule.pick(pcs, warp_of)
        if chosen[:32].any():
            assert chosen[:32].all() and not chosen[32:].any()   # warp 1 is not at 7 yet
        else:
            assert np.array_equal(np.flatnonzero(chosen), np.arange(40, 48))


def test_commits_of_one_thread_complete_in_issue_order_tma_loads_in_any():
    model = OrderingModel([CtaMemory(0, np.zeros(2048, np.uint8))], 64, "random")
    tma = lambda thread: TmaInFlight(thread, 1, 0, np.arange(4), lambda: None, 4, 1024, 1)
    commit = lambda thread: (thread, 1, 1024, (0,), 1, None, None)
    model.pending_commits = [commit(0), tma(32), commit(0), commit(32), tma(32), commit(32)]
    assert model._allowed_completions() == [0, 1, 3, 4]


def test_parse_seeds():
    assert parse_seeds("0-3") == [0, 1, 2, 3]
    assert parse_seeds("2,5-6") == [2, 5, 6]
    for bad in ("", "a", "3-1", "-2", "1-"):
        with pytest.raises(ValueError):
            parse_seeds(bad)


def test_the_api_wants_a_seed_for_random_only():
    ptx, manifest, _, inputs = prepared("ws_gemm_2cta_bf16.mlir")
    with pytest.raises(ValueError, match="needs seed="):
        simulate(ptx, manifest, dict(inputs), schedule="random")
    with pytest.raises(ValueError, match="random' only"):
        simulate(ptx, manifest, dict(inputs), schedule="late", seed=1)


# -- the command line -----------------------------------------------------------------------

def test_cli_runs_several_seeds_and_summarizes(capsys):
    # the command line's loop over seeds and its summary (the examples' runs under random
    # seeds are the tests above): on the quickest example
    example = ROOT / "examples" / "gemm_bf16_128x256.mlir"
    status = cli_run([str(example), "--check", check_of(example.name), "--schedule", "random",
                      "--seeds", "0-1"])
    out = capsys.readouterr().out
    assert status == 0
    assert "schedule random (seed 0)" in out and "schedule random (seed 1)" in out
    assert "2 random schedules (seeds 0-1): all OK" in out


def test_cli_reports_the_first_failing_seed_of_a_broken_kernel(tmp_path, capsys):
    """The persistent example without its expect_tx (the full_s phase completes at the
    producer's arrive, before the TMA bytes land): every seed reports it."""
    description, text = next((d, t) for d, t in _mutants() if "expect_tx" in d)
    result = compile_after_sync(text)
    ptx, manifest = tmp_path / "k.ptx", tmp_path / "k.json"
    ptx.write_text(result.ptx)
    manifest.write_text(json.dumps(result.manifest))
    status = cli_run([str(ptx), "--manifest", str(manifest), "--check", str(CHECK),
                      "--schedule", "random", "--seed", "2", "--runs", "2"])
    out = capsys.readouterr().out
    assert status == 1
    assert "2 random schedules (seeds 2-3): 2 failed" in out
    assert "first failing seed 2" in out


def test_cli_refuses_seeds_without_the_random_schedule(capsys):
    example = ROOT / "examples" / "ws_gemm_2cta_bf16.mlir"
    assert cli_run([str(example), "--check", check_of(example.name), "--seeds", "0-1"]) == 1
    assert "--seeds and --runs are for --schedule random" in capsys.readouterr().err
