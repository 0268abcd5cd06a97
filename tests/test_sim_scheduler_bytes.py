"""The scheduler's byte tests against the NumPy code they replace (issue 37, round 11 of
the simulator's speed):

* ``MachineStepping._runnable_pcs`` (which threads can run, each at its PC: every
  thread RUN, or no thread waiting at an mbarrier, told from the int8 statuses' bytes)
  against the masks over every thread;
* ``MachineStepping._note_local`` (after a local step: the PC ``together_after_local``
  found, or every thread RUN, or every thread's try_wait failed in this epoch: all MBAR
  with their wait's epoch the current one) against the masks over the step's threads;
* ``MachineStepping.together_after_local`` (every thread RUN and at one PC, from the
  statuses' and PCs' bytes) against the counts of non-zero statuses and other PCs;
* ``MachineStepping._warps_in`` (a slice's warps by arithmetic) against the warps of its
  threads.

Each test runs the warp-specialized examples (the persistent GEMM, the CTA pair), whose
steps take every one of these paths and the general code after them, under the late
schedule and random seeds. Every call of the fast code is checked against the general
code on the same machine state (a spy that runs both, the general code first, on a copy
where the fast code writes), and each case is asserted to have occurred, the general
code's included, so that a fast path that answered differently, or a fall-back that was
removed, fails. The whole runs are also compared with runs through the general code
only: the same outputs, counts, races and problems. The reference is the code before
round 11, kept here; nothing in it comes from the code under test."""

from __future__ import annotations

import collections
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import example_runs  # noqa: E402
from test_sim_schedule_fast_paths import _kernels  # noqa: E402
from test_sim_schedule_fast_paths import _run as _pair_run  # noqa: E402
from test_sim_step_fast_paths import _idx_cases, _machine  # noqa: E402
from tcgen05_lower.sim.api import simulate  # noqa: E402
from tcgen05_lower.sim.machine_stepping import NOT_RUNNABLE, MachineStepping  # noqa: E402
from tcgen05_lower.sim.words import ALL, BAR, CBAR, EXIT, MBAR, RUN  # noqa: E402

EXAMPLES = ["ws_persistent_gemm_bf16.mlir", "ws_gemm_2cta_bf16.mlir"]
SCHEDULES = [("late", None), ("random", 0), ("random", 3)]


# -- the general code (before round 11) --------------------------------------------------------

def general_runnable_pcs(m, status):
    runnable = (status == RUN) | ((status == MBAR) & (m.wait_epoch < m.epoch))
    if not np.count_nonzero(runnable):
        return None
    return np.where(runnable, m.pc, NOT_RUNNABLE)


def general_note_local(m, pcs, idx, together=None):
    at = m.contiguous(idx)
    here = m.status[at]
    pcs[at] = np.where((here == RUN) | ((here == MBAR) & (m.wait_epoch[at] < m.epoch)),
                       m.pc[at], NOT_RUNNABLE)
    return bool(pcs.min() < NOT_RUNNABLE)


def general_together(m, idx):
    at = m.contiguous(idx)
    pcs = m.pc[at]
    if not pcs.size:
        return None
    first = pcs[0]
    if np.count_nonzero(m.status[at] != RUN) or np.count_nonzero(pcs != first):
        return None
    return int(first)


def general_warps_in(m, idx):
    threads = np.arange(m.nthreads) if idx is ALL else np.asarray(idx)
    return int(np.unique(m.warp_of[threads]).size)


# -- the spies ---------------------------------------------------------------------------------

def _case_of_status(status) -> str:
    if not np.count_nonzero(status):
        return "all RUN"
    return "mbarrier waiters" if np.count_nonzero(status == MBAR) else "no mbarrier waiter"


def spy(monkeypatch) -> collections.Counter:
    """Checks every call of the fast code against the general code; counts the cases."""
    seen = collections.Counter()
    runnable_pcs, note_local = MachineStepping._runnable_pcs, MachineStepping._note_local
    together, warps_in = MachineStepping.together_after_local, MachineStepping._warps_in

    def checked_runnable_pcs(self, status):
        want = general_runnable_pcs(self, status)
        got = runnable_pcs(self, status)
        assert (got is None) == (want is None)
        if want is not None:
            assert got.dtype == want.dtype and np.array_equal(got, want)
        seen["runnable: " + _case_of_status(status)] += 1
        return got

    def checked_note_local(self, pcs, idx, together_pc=None):
        at = self.contiguous(idx)
        here = self.status[at]
        if together_pc is not None:
            case = "note: together"
        elif not np.count_nonzero(here):
            case = "note: all RUN"
        elif np.count_nonzero(here != MBAR) == 0 and \
                np.count_nonzero(self.wait_epoch[at] != self.epoch) == 0:
            case = "note: failed waits"
        else:
            case = "note: general"
        seen[case] += 1
        expected = pcs.copy()
        want = general_note_local(self, expected, idx)
        got = note_local(self, pcs, idx, together_pc)
        assert got == want and np.array_equal(pcs, expected)
        return got

    def checked_together(self, idx):
        want = general_together(self, idx)
        got = together(self, idx)
        assert got == want and type(got) is type(want)
        seen["together: " + ("found" if want is not None else "none")] += 1
        return got

    def checked_warps_in(self, idx):
        want = general_warps_in(self, idx)
        got = warps_in(self, idx)
        assert got == want
        seen["warps: " + ("slice" if type(self.contiguous(idx)) is slice else "ids")] += 1
        return got

    monkeypatch.setattr(MachineStepping, "_runnable_pcs", checked_runnable_pcs)
    monkeypatch.setattr(MachineStepping, "_note_local", checked_note_local)
    monkeypatch.setattr(MachineStepping, "together_after_local", checked_together)
    monkeypatch.setattr(MachineStepping, "_warps_in", checked_warps_in)
    return seen


def general_only(monkeypatch) -> None:
    """Every call through the general code."""
    monkeypatch.setattr(MachineStepping, "_runnable_pcs", general_runnable_pcs)
    monkeypatch.setattr(MachineStepping, "_note_local", general_note_local)
    monkeypatch.setattr(MachineStepping, "together_after_local", general_together)
    monkeypatch.setattr(MachineStepping, "_warps_in", general_warps_in)


def _run(example, schedule, seed):
    ptx, manifest, _, inputs = example_runs.prepared(example)
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    result = simulate(ptx, manifest, args, schedule=schedule, seed=seed)
    return ({k: v.view(np.uint8).tolist() for k, v in result.outputs.items()},
            result.warp_instructions, sorted(result.counts.items()),
            [(str(r), r.ptx_line, r.other_line, r.count) for r in result.races],
            result.problems)


def test_every_fast_answer_is_the_general_codes(monkeypatch):
    """Both examples, late and random seeds: every call checked, every case taken."""
    seen = spy(monkeypatch)
    for example in EXAMPLES:
        for schedule, seed in SCHEDULES:
            report = _run(example, schedule, seed)
            assert report[3] == [] and report[4] == []   # (race-free and correct)
    for case in ("runnable: all RUN", "runnable: mbarrier waiters", "note: together",
                 "note: all RUN", "note: failed waits", "together: found",
                 "together: none", "warps: slice", "warps: ids"):
        assert seen[case] > 0, (case, seen)


def test_the_general_code_takes_its_cases_too(monkeypatch):
    """The general code after the shortcuts runs, checked the same way: a local step
    whose threads are neither all RUN nor all in a failed wait (the CTA pair kernels of
    tests/test_sim_schedule_fast_paths.py: under the late schedule one try_wait step of
    both CTAs' threads, CTA 0's passing and CTA 1's failing), and statuses with no
    mbarrier waiter but not all RUN (threads at a barrier or exited)."""
    seen = spy(monkeypatch)
    for name in ("wait", "wait-unordered", "arrive-48"):
        for schedule, seed in [("late", None), ("random", 0), ("random", 1)]:
            _pair_run(_kernels()[name], schedule, seed)
    assert seen["note: general"] > 0 and seen["runnable: no mbarrier waiter"] > 0, seen


@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("schedule,seed", SCHEDULES)
def test_the_runs_are_the_general_codes_runs(monkeypatch, example, schedule, seed):
    fast = _run(example, schedule, seed)
    general_only(monkeypatch)
    assert _run(example, schedule, seed) == fast


# -- machine states the kernels above do not reach ---------------------------------------------

@pytest.mark.parametrize("threads,cluster", [(64, 1), (64, 2), (48, 2), (40, 1)])
def test_drawn_states_get_the_general_answers(threads, cluster):
    """Statuses, wait epochs and PCs drawn per thread, warp-uniform or not (all RUN, all
    MBAR from this epoch or with one thread's wait older, so that a phase may have
    completed for it, mixed with BAR, CBAR and EXIT), on every kind of thread set of
    tests/test_sim_step_fast_paths.py (slices inside and across warps and CTAs, ids),
    with CTAs whose threads are and are not a multiple of 32 (48: consecutive threads
    32-63 are warp 1 of CTA 0 and part of CTA 1's warp 2; their warps are not counted by
    arithmetic): the same answers as the general code."""
    machine = _machine(threads, cluster)
    n = machine.nthreads
    rng = np.random.default_rng(threads * 10 + cluster)
    cases = 0
    for _ in range(300):
        machine.epoch = int(rng.integers(1, 5))
        kind = rng.integers(4)
        if kind == 0:
            machine.status[:] = RUN
        elif kind == 1:
            machine.status[:] = MBAR
        else:
            machine.status[:] = rng.choice([RUN, BAR, MBAR, CBAR, EXIT], n,
                                           p=[0.4, 0.1, 0.3, 0.1, 0.1])
        machine.wait_epoch[:] = machine.epoch
        if rng.random() < 0.5:
            machine.wait_epoch[int(rng.integers(n))] -= 1
        machine.pc[:] = int(rng.integers(0, 9)) if rng.random() < 0.5 else \
            rng.integers(0, 9, n)
        status = machine.status
        want = general_runnable_pcs(machine, status)
        got = machine._runnable_pcs(status)
        assert (got is None) == (want is None) and (got is None or np.array_equal(got, want))
        for idx in _idx_cases(n):
            machine._contiguous_of = None
            pcs = np.where(rng.random(n) < 0.5, NOT_RUNNABLE, rng.integers(0, 9, n))
            expected = pcs.copy()
            assert machine._note_local(pcs, idx) == general_note_local(machine, expected, idx)
            assert np.array_equal(pcs, expected)
            assert machine.together_after_local(idx) == general_together(machine, idx)
            assert machine._warps_in(idx) == general_warps_in(machine, idx)
            cases += 1
    assert cases > 1000
