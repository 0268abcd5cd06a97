"""The scheduler's and the mbarriers' fast paths against their general code (issue 37,
round 6 of the simulator's speed):

* ``RandomSchedule.pick_threads`` (the warps' lowest and highest PCs kept between steps,
  the ready warps and their weights kept until one's runnability changes, a warp alone
  at the chosen PC taken without the join's masks) against ``RandomSchedule.pick``, the
  mask over every thread, on the same seed: the same threads at every step, and the same
  draws (the generators end in the same state);
* ``MachineStepping._note_local`` (after a local step whose threads are all RUN, their
  PCs taken as they are) and ``ops_mbarrier._wait_or_pass`` (a try_wait that every thread
  passes, or every thread fails, moved through a slice) against the masks they replace;
* ``ops_mbarrier._arrive_together`` (the arrivals of a CTA pair's threads on one
  mbarrier, one ``mbarrier_arrive_many`` per source CTA) and
  ``MbarrierOrdering._wait_runs`` (the waits of both CTAs' threads grouped by runs of one
  rank) against the arrivals and waits one by one.

The reference in each case is the general code, run on the same kernel: the runs must
give the same trace, counts, outputs and races, and the ordering model the same mbarrier
phases and clocks. The values the tests also assert (phases, pending counts) are derived
by hand from the PTX ISA's mbarrier rules (9.7.13.15: a phase completes when its pending
count reaches zero; an arrival after that counts towards the next phase).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_sim_cluster_mbarriers import PROLOGUE, WAIT_AND_MARK, pair_kernel  # noqa: E402
from tcgen05_lower.sim import ops_mbarrier  # noqa: E402
from tcgen05_lower.sim.api import simulate  # noqa: E402
from tcgen05_lower.sim.machine_stepping import NOT_RUNNABLE as MACHINE_NOT_RUNNABLE  # noqa: E402
from tcgen05_lower.sim.machine_stepping import MachineStepping  # noqa: E402
from tcgen05_lower.sim.ordering import OrderingModel  # noqa: E402
from tcgen05_lower.sim.ordering_mbarriers import MbarrierOrdering  # noqa: E402
from tcgen05_lower.sim.schedule import ALL, NOT_RUNNABLE, RandomSchedule  # noqa: E402
from tcgen05_lower.sim.state import SimError  # noqa: E402
from tcgen05_lower.sim.words import MBAR, RUN  # noqa: E402


# -- the random schedule's pick ---------------------------------------------------------------

def _step_effect(world, pcs: np.ndarray, threads: np.ndarray, m: int):
    """What a step of ``threads`` (at PC m) does to the PCs, drawn from ``world`` (a
    generator of its own: the schedules' draws stay theirs): moves them on to m + 1 (a
    straight step), changes only theirs (a local step: a branch, a wait that fails or
    passes), or changes other threads too (a step that woke waiters). Returns the
    ``moved`` hint ``pick_threads`` gets for the next pick."""
    kind = world.random()
    if kind < 0.55:
        pcs[threads] = m + 1
        return True
    if kind < 0.9:
        how = world.integers(4)
        if how == 0:      # a uniform branch back
            pcs[threads] = world.integers(0, 8)
        elif how == 1:    # a failed wait: none of them can run
            pcs[threads] = NOT_RUNNABLE
        elif how == 2:    # a successful wait
            pcs[threads] = m + 1
        else:             # a divergent branch
            pcs[threads] = np.where(world.random(threads.size) < 0.5, m + 1,
                                    world.integers(0, 8))
        if (pcs < NOT_RUNNABLE).any():
            return "local"
    # waiters wake (and some threads change PC): the scheduler looks at everything again
    asleep = np.flatnonzero(pcs == NOT_RUNNABLE)
    woken = asleep[world.random(asleep.size) < 0.5]
    pcs[woken] = world.integers(0, 8, woken.size)
    if not (pcs < NOT_RUNNABLE).any():
        pcs[:32] = 0
    return False


@pytest.mark.parametrize("nwarps", [4, 16])
@pytest.mark.parametrize("join", [0.0, 0.25, 1.0])
def test_pick_threads_picks_what_pick_picks_with_the_same_draws(nwarps, join):
    """Seeded alike, ``pick`` (masks over all threads, the reference) and
    ``pick_threads`` (kept PCs, kept ready warps) choose the same threads, PC and warps
    at every step of 3,000, through straight, local and waking steps, divergent warps,
    warps that stop and start being runnable, priorities redrawn every 37 steps and a
    starved warp for steps 100-600; and they draw the same numbers."""
    reference, fast = RandomSchedule(7, nwarps), RandomSchedule(7, nwarps)
    for schedule in (reference, fast):
        schedule.join, schedule.reshuffle = join, 37
        schedule.starve_from, schedule.starve_to = 100, 600
    world = np.random.default_rng(1234)
    warp_of = np.repeat(np.arange(nwarps), 32)
    pcs = world.integers(0, 4, nwarps * 32).astype(np.int64)
    moved, alone, together = False, 0, 0
    for _ in range(3000):
        expected = np.flatnonzero(reference.pick(pcs, warp_of))
        m, idx, width = fast.pick_threads(pcs, warp_of, moved)
        threads = np.arange(pcs.size) if idx is ALL else idx
        assert np.array_equal(threads, expected)
        assert m == int(pcs[expected[0]])
        assert width == np.unique(warp_of[expected]).size
        at_m = int((pcs.reshape(nwarps, 32).min(axis=1) == m).sum())
        alone += at_m == 1
        together += at_m > 1
        moved = _step_effect(world, pcs, threads, m)
    assert reference.rng.bit_generator.state == fast.rng.bit_generator.state
    assert alone > 100 and together > 100   # both kinds of step were compared


# -- local steps and waits: the fast paths against the masks they replace --------------------

def _general_note_local(self, pcs, idx, together=None):
    """``_note_local`` without its shortcuts (the code before them; ``together`` unused)."""
    at = self.contiguous(idx)
    here = self.status[at]
    pcs[at] = np.where((here == RUN) | ((here == MBAR) & (self.wait_epoch[at] < self.epoch)),
                       self.pc[at], MACHINE_NOT_RUNNABLE)
    return bool(pcs.min() < MACHINE_NOT_RUNNABLE)


def _general_wait_or_pass(m, act, threads, ok):
    """``_wait_or_pass`` without its slices (the code before it)."""
    waiting = threads[~ok]
    m.status[waiting] = MBAR
    m.wait_epoch[waiting] = m.epoch
    m.pc[threads[ok]] += 1


# Both CTAs of a pair wait at once on their own mbarrier (count 1), parity 0: CTA 0's
# thread 0 has arrived on CTA 0's, so its threads pass; CTA 1's fail and wait until CTA 0's
# thread 0 arrives on CTA 1's mbarrier (through mapa), after its own wait. Every thread
# then stores 1 to out[rank * 32 + tid].
WAIT_BOTH = """
	mov.b32 	%r9, 1;
	mapa.shared::cluster.u32 	%r8, %r3, %r9;
	@%p2 mbarrier.arrive.release.cta.shared::cta.b64 _, [%r3];
	mov.b32 	%r7, 0;
	{ .reg .pred done; wait: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%r3], %r7; @!done bra wait; }
	@%p2 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r8];
	ld.param.b64 	%rd2, [k_param_0];
	mad.lo.s32 	%r10, %r2, 32, %r1;
	mul.wide.u32 	%rd3, %r10, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.b32 	[%rd4], %r9;
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;
"""

# Every thread of both CTAs arrives on CTA 0's mbarrier (count {count}) through mapa: CTA
# 0's 32 arrivals, then CTA 1's 32. CTA 0 then waits for phase 0 and its thread 0 writes 7
# to out[0].
ARRIVE_BOTH = ("\tmbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r4];\n"
               + WAIT_AND_MARK)

#: Without the cluster barrier after the inits: other threads use the mbarriers before
#: their init is ordered before the use (reported, one by one, in both runs).
UNORDERED = "\tbarrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;\n"


def _kernels():
    wait = PROLOGUE.format(count=1) + WAIT_BOTH
    return {"wait": pair_kernel(wait),
            "wait-unordered": pair_kernel(wait.replace(UNORDERED, "", 1)),
            "arrive-48": pair_kernel(PROLOGUE.format(count=48) + ARRIVE_BOTH),
            "arrive-64": pair_kernel(PROLOGUE.format(count=64) + ARRIVE_BOTH),
            "arrive-unordered": pair_kernel(
                (PROLOGUE.format(count=64) + ARRIVE_BOTH).replace(UNORDERED, "", 1))}


def _run(text: str, schedule: str = "late", seed=None):
    """(what the run reports, the state of its ordering model's mbarriers and clocks)."""
    models = []

    def capture(ctas, threads, schedule_name):
        models.append(OrderingModel(ctas, threads, schedule_name))
        return models[-1]

    out = np.zeros(64, np.uint32)
    trace = io.StringIO()
    args = {"k_param_0": out, "k_param_1": np.zeros(4, np.uint32),
            "k_param_2": np.zeros(4, np.uint32)}
    kw = {"seed": seed} if seed is not None else {}
    try:
        # (the kernels run about 300 warp instructions: a broken fast path that spins
        # stops at the limit, a SimError)
        result = simulate(text, {}, args, schedule=schedule, trace=trace,
                          ordering_factory=capture, max_instructions=5000, **kw)
    except SimError as err:   # an mbarrier used before its init, under some seeds
        return (str(err), trace.getvalue()), _model_state(models[0])
    report = (out.tolist(), trace.getvalue(), sorted(result.counts.items()),
              [(str(r), r.ptx_line, r.other_line, r.count) for r in result.races],
              result.problems)
    return report, _model_state(models[0])


def _model_state(model) -> tuple:
    bars = []
    for key, bar in sorted(model.mbarriers.items()):
        phases = {phase: {source: (g.tolist(), t.tolist()) for source, (g, t) in
                          released.items()} for phase, released in bar.completed.items()}
        bars.append((key, bar.phase, bar.pending, bar.tx, bar.observed, phases,
                     {s: (g.tolist(), t.tolist()) for s, (g, t) in bar.released.items()}))
    return bars, model.known.tolist(), model.tc_known.tolist(), model.pending_tc.tolist()


SCHEDULES = [("late", None)] + [("random", seed) for seed in range(4)]


def _without_uniform_waits(monkeypatch) -> None:
    """Every try_wait through the handler's general code (``_wait_or_pass``,
    ``mbarrier_try_wait_parity_many``), not the uniform waits' path of round 9
    (tests/test_sim_step_fast_paths.py tests that one against this code)."""
    monkeypatch.setattr(ops_mbarrier, "_uniform_wait", lambda *args: None)


@pytest.mark.parametrize("name", ["wait", "wait-unordered", "arrive-48"])
@pytest.mark.parametrize("schedule,seed", SCHEDULES)
def test_local_steps_and_waits_match_the_general_code(monkeypatch, name, schedule, seed):
    """``_note_local`` and ``_wait_or_pass`` against the masks: the same trace, counts,
    outputs, races and model state, under the late schedule and random seeds."""
    text = _kernels()[name]
    _without_uniform_waits(monkeypatch)
    fast = _run(text, schedule, seed)
    monkeypatch.setattr(MachineStepping, "_note_local", _general_note_local)
    monkeypatch.setattr(ops_mbarrier, "_wait_or_pass", _general_wait_or_pass)
    assert _run(text, schedule, seed) == fast


@pytest.mark.parametrize("name", ["wait", "wait-unordered"])
@pytest.mark.parametrize("schedule,seed", SCHEDULES)
def test_waits_of_both_ctas_match_the_waits_one_by_one(monkeypatch, name, schedule, seed):
    """The try_wait of both CTAs' threads (under the late schedule one step of 64 threads
    of ranks 0 and 1) grouped by rank runs against each thread's wait one by one."""
    text = _kernels()[name]
    _without_uniform_waits(monkeypatch)
    fast = _run(text, schedule, seed)
    monkeypatch.setattr(MbarrierOrdering, "_wait_runs", lambda self, *values: None)
    assert _run(text, schedule, seed) == fast


def test_the_waits_of_both_ctas_go_by_rank_runs(monkeypatch):
    """Under the late schedule the 64 threads wait in one step, as two runs (CTA 0's pass,
    CTA 1's wait for the arrival CTA 0's thread 0 makes after its wait), and only CTA 1's
    warp tries again: three warp instructions of the try_wait. Both mbarriers end in
    phase 1, observed by a wait."""
    runs = []
    _without_uniform_waits(monkeypatch)
    original = MbarrierOrdering._wait_runs

    def spy(self, threads, *values):
        groups = original(self, threads, *values)
        runs.append(None if groups is None else [g[1].tolist() for g in groups])
        return groups

    monkeypatch.setattr(MbarrierOrdering, "_wait_runs", spy)
    report, (bars, *_) = _run(_kernels()["wait"])
    assert runs[0] == [list(range(32)), list(range(32, 64))]
    counts = dict(report[2])
    assert counts["mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64"] == 3
    assert [(bar[1], bar[2], bar[4]) for bar in bars] == [(1, 1, 0), (1, 1, 0)]
    assert report[0] == [1] * 64 and not report[3]


@pytest.mark.parametrize("name", ["arrive-48", "arrive-64", "arrive-unordered"])
@pytest.mark.parametrize("schedule,seed", SCHEDULES)
def test_arrivals_of_both_ctas_match_the_arrivals_one_by_one(monkeypatch, name, schedule,
                                                             seed):
    """The shared::cluster arrivals of both CTAs' threads on CTA 0's mbarrier, one
    ``mbarrier_arrive_many`` per source CTA, against every arrival one by one."""
    text = _kernels()[name]
    fast = _run(text, schedule, seed)
    monkeypatch.setattr(ops_mbarrier, "_arrive_together", lambda *a, **k: [])
    assert _run(text, schedule, seed) == fast


@pytest.mark.parametrize("count,single,pending", [(64, 0, 64), (48, 32, 32)])
def test_the_pair_arrives_per_source_cta(monkeypatch, count, single, pending):
    """Under the late schedule the 64 arrivals are one step. Count 64: CTA 0's 32 and CTA
    1's 32 go through ``mbarrier_arrive_many`` (no arrival one by one), phase 0 completes
    with the last and phase 1 waits for 64. Count 48: CTA 1's run would complete phase 0
    before its last arrival (after its 16th), so its 32 threads arrive one by one: phase
    0 completes and its 16 later arrivals count towards phase 1 (48 - 16 = 32 pending)."""
    calls = []
    original = MbarrierOrdering.mbarrier_arrive

    def spy(self, *args, **kwargs):
        calls.append(args[0])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(MbarrierOrdering, "mbarrier_arrive", spy)
    report, (bars, *_) = _run(_kernels()[f"arrive-{count}"])
    assert len(calls) == single and calls == list(range(64 - single, 64))
    cta0 = [bar for bar in bars if bar[0][0] == 0]
    assert [(bar[1], bar[2]) for bar in cta0] == [(1, pending)]
    assert report[0][0] == 7 and not report[3]
