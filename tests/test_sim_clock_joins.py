"""A barrier's clock updates in the ordering model (sim/ordering.py), each short cut
against the general code it stands in for (issue 37, round 12 of the simulator's speed):

* ``OrderingModel._join``: the barrier's threads get the vectors they publish assigned to
  their ``known`` and ``pending_tc`` rows, instead of ``_acquire``'s row-wise maximum
  (the same, since the vectors are the maximum of those rows); a subclass's
  ``_published`` or ``_acquire`` keeps the general merge;
* ``OrderingModel._forget_known_complete``: nothing tested when no in-flight record was
  performed (only performed ones can be dropped);
* ``OrderingModel._known_everywhere``: the minimum of the block of stream columns taken
  once, against the per-record test of each agent's column in every row; any agent
  outside that block (a thread's column, the zero column) is tested per column.

The reference is the model's rule written out with NumPy over copies of the matrices
(the module docstring of sim/ordering.py: an acquire is the row-wise maximum of
``known`` and ``pending_tc`` with the published vectors; a performed op is dropped when
every thread's ``known`` and ``tc_known`` entries of its agent reach its sequence
number), or the general code run on the same input.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_sim_setup_paths import SELECTIONS, clocks, model  # noqa: E402
from tcgen05_lower.sim import ordering  # noqa: E402
from tcgen05_lower.sim.ordering import OrderingModel  # noqa: E402
from tcgen05_lower.sim.ordering_records import InFlight  # noqa: E402
from tcgen05_lower.sim.state import Footprint  # noqa: E402


class _GeneralMerge(OrderingModel):
    """The model with its own ``_acquire`` (the same code): barriers take the general
    merge."""

    def _acquire(self, threads, generic, tc):
        OrderingModel._acquire(self, threads, generic, tc)


def _random_model(cls, seed: int) -> OrderingModel:
    m = model(seed=seed)
    if cls is not OrderingModel:
        m.__class__ = cls
    return m


@pytest.mark.parametrize("name", sorted(SELECTIONS))
def test_barrier_join_is_the_general_merge(name):
    """The same four matrices after a barrier by the join (assignment) and by the
    general merge, for every selection of threads (a warp, a CTA, two runs, an index
    array, out of order, one thread); and the reference rule: each thread's rows of
    ``known`` / ``pending_tc`` become the maximum with what the threads publish."""
    threads = SELECTIONS[name]
    joined, general = _random_model(OrderingModel, 3), _random_model(_GeneralMerge, 3)
    want = clocks(joined)
    calls = []
    joined._join = lambda *a: (calls.append(1), OrderingModel._join(joined, *a))
    for m in (joined, general):
        m.barrier(np.asarray(threads), 10)
    assert calls, "the join was not taken"
    # reference: release, publish, row-wise maximum (sim/ordering.py's docstring)
    t = np.asarray(threads).reshape(-1)
    want["known"][t, t] += 1
    want["tc_known"][t, t] = want["known"][t, t]
    generic = want["known"][t].max(axis=0)
    tc = np.maximum(want["released"][t].max(axis=0), want["pending_tc"][t].max(axis=0))
    tc[t] = np.maximum(tc[t], want["known"][t, t])
    want["known"][t] = np.maximum(want["known"][t], generic)
    want["pending_tc"][t] = np.maximum(want["pending_tc"][t], tc)
    for key in want:
        assert np.array_equal(getattr(joined, key), getattr(general, key)), key
        assert np.array_equal(getattr(joined, key), want[key]), key


class _PublishesNothing(OrderingModel):
    """A subclass whose threads publish zeros: the barrier's merge must leave their rows
    as they are (the maximum with zeros), which an assignment would not."""

    def _published(self, threads):
        return (np.zeros(self.known.shape[1], self.known.dtype),
                np.zeros(self.known.shape[1], self.known.dtype))


def test_a_subclass_publication_takes_the_general_merge():
    m = _random_model(_PublishesNothing, 4)
    threads = np.arange(32, 64)
    m._release(threads)
    before = clocks(m)
    m._release = lambda threads: None   # compare the merge alone
    m.barrier(threads, 10)
    assert np.array_equal(m.known, before["known"])
    assert np.array_equal(m.pending_tc, before["pending_tc"])


class _NoCells:
    """An op that touches no cell (the drop rule looks only at agents and sequences)."""
    footprint = Footprint()


def _records(m: OrderingModel, agents, rng, performed: bool) -> list:
    return [InFlight(_NoCells(), "mma", 0, int(agent), -1, int(rng.integers(1, 60)),
                     10 + i, performed=performed) for i, agent in enumerate(agents)]


def test_nothing_performed_leaves_the_in_flight_list():
    """No record performed: the barrier keeps the very list (none can be dropped), as
    the general filter (``_still_in_flight``) keeps every record."""
    m = model(threads=64, ctas=1, seed=6)
    rng = np.random.default_rng(7)
    m.columns = m.known.shape[1]
    records = _records(m, rng.integers(65, m.columns, 30), rng, performed=False)
    m.inflight = records
    assert m._still_in_flight() == records   # the general code: nothing dropped
    m.inflight = records
    m.barrier(np.arange(64), 20)
    assert m.inflight is records


def _general_known_everywhere(m: OrderingModel, agents, seqs) -> np.ndarray:
    return (m.tc_known[:, agents] >= seqs).all(axis=0) & \
        (m.known[:, agents] >= seqs).all(axis=0)


@pytest.mark.parametrize("seed", range(4))
def test_known_everywhere_by_the_stream_block(seed):
    """Agents in the stream columns (the block path) and mixed with thread columns and
    the zero column (per column): the same answers as the per-record test, which here
    has both outcomes."""
    m = model(threads=64, ctas=1, seed=seed)
    m.columns = m.known.shape[1]   # every spare column in use by a stream
    first = m.nthreads + 1
    rng = np.random.default_rng(seed)
    streams = rng.integers(first, m.columns, 40)
    # raise some columns for every thread so that some records are known everywhere
    for c in streams[:10]:
        m.known[:, c] += 60
        m.tc_known[:, c] += 60
    seqs = rng.integers(0, 80, 40)
    want = _general_known_everywhere(m, streams, seqs)
    assert want.any() and not want.all()
    assert np.array_equal(m._known_everywhere(streams, seqs), want)
    mixed = np.concatenate([streams, [3, m.nthreads, 17]])
    more = np.concatenate([seqs, [0, 0, 1]])
    assert np.array_equal(m._known_everywhere(mixed, more),
                          _general_known_everywhere(m, mixed, more))


def test_known_everywhere_of_a_thread_column_is_tested_per_column():
    """A thread's column (below the stream block) known everywhere while the column the
    block would read in its place (its index less the block's start, counted from the
    end) is not: the per-column test answers True."""
    m = model(threads=64, ctas=1, seed=9)
    m.columns = m.known.shape[1]
    first = m.nthreads + 1
    m.known[:, 3] = m.tc_known[:, 3] = 100
    m.known[:, m.columns + (3 - first)] = 0   # what low[3 - first] would read
    agents, seqs = np.array([3, first]), np.array([50, 0])
    assert m._known_everywhere(agents, seqs).tolist() == [True, True]
    assert np.array_equal(m._known_everywhere(agents, seqs),
                          _general_known_everywhere(m, agents, seqs))


# -- clocks widened in the middle of a run ------------------------------------------------------

_PAIR = Path(__file__).resolve().parent.parent / "examples" / "ws_gemm_2cta_bf16.mlir"


def _simulate(ptx, manifest, inputs):
    from tcgen05_lower.sim.api import simulate

    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    return simulate(ptx, manifest, args, schedule="late")


@pytest.mark.parametrize("mutated", [False, True])
def test_clocks_widened_mid_run_report_the_same(monkeypatch, mutated):
    """The CTA pair example (and, mutated, without its second
    ``tcgen05.fence::after_thread_sync``, the MMA warp's after its wait on a stage:
    races) with 16-bit clocks that must widen as
    soon as an entry passes 7, i.e. early in the run, released vectors of the narrow
    type merged into the wider clocks afterwards: the same outputs, races (with their
    counts) and problems at exit as the run whose clocks never widen."""
    from tcgen05_lower.cli.sim import prepare

    ptx, manifest, _, inputs = prepare(str(_PAIR), str(_PAIR.with_suffix(".check.py")))
    if mutated:
        lines = ptx.splitlines(keepends=True)
        at = [i for i, line in enumerate(lines)
              if "tcgen05.fence::after_thread_sync" in line][1]
        ptx = "".join(lines[:at] + lines[at + 1:])
    want = _simulate(ptx, manifest, inputs)
    assert bool(want.races) == mutated
    widened = []
    real_max, real_widen = ordering._clock_max, OrderingModel._widen_entries

    def widen(self, value):
        widened.append((self.known.dtype, value))
        real_widen(self, value)
    monkeypatch.setattr(ordering, "_clock_max",
                        lambda dtype: 7 if np.dtype(dtype) == np.int16 else real_max(dtype))
    monkeypatch.setattr(OrderingModel, "_widen_entries", widen)
    got = _simulate(ptx, manifest, inputs)
    assert widened and widened[0][0] == np.int16
    assert sorted(got.outputs) == sorted(want.outputs)
    for name in want.outputs:
        assert np.array_equal(got.outputs[name], want.outputs[name]), name
    assert [(str(r), r.count) for r in got.races] == [(str(r), r.count) for r in want.races]
    assert got.problems == want.problems
    assert got.warp_instructions == want.warp_instructions
