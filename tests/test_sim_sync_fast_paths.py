"""Synchronization's and the TMA path's kept answers and cheaper checks against their
general code (issue 37, round 10 of the simulator's speed):

* ``OrderingModel._views`` (an acquire's and a fence's row views kept for the run by the
  threads' ids, only when every view is a slice) against ``ordering._row_views``, made
  afresh each time;
* ``ops_mbarrier._same_value`` (one bytes comparison) against the elementwise
  comparison it replaces;
* a TMA load's completion released in the clocks' own integer type: what a waiter
  acquires is the load's sequence number in its stream's column, as with 64 bits;
* ``tma._destinations`` kept for the run (on the machine) against
  ``destination_addresses`` and ``chunk_rows`` made afresh;
* ``tma._inner_box`` (a box wholly inside the tensor read as a reshaped slice) against
  the rows picked from the tensor as a 2-D array, at the tensor's end too (where the
  slice would pass the last byte: the strided read then);
* ``Machine.release_barriers``' count check: threads giving different counts to one
  barrier still get the report naming both counts.

Expected values come from the general code run on the same input, or are derived by
hand from the PTX ISA (named in each test).
"""

from __future__ import annotations

import types

import numpy as np
import pytest

from sim_standins import PlainOrdering
from tcgen05_lower.sim import ops_mbarrier, ordering, tma
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.ordering import OrderingModel
from tcgen05_lower.sim.state import CtaMemory, SimError
from test_sim_executor import kernel


def _model(threads: int = 128) -> OrderingModel:
    return OrderingModel([CtaMemory(0, np.zeros(1024, np.uint8))], threads)


def _random_clocks(model: OrderingModel, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for name in ("known", "tc_known", "pending_tc", "released"):
        clocks = getattr(model, name)
        clocks[:] = rng.integers(0, 50, clocks.shape, dtype=clocks.dtype)


# -- kept row views ---------------------------------------------------------------------------

@pytest.mark.parametrize("threads", [
    np.arange(32, 64),                                  # a warp: one slice
    np.arange(0, 128),                                  # the CTA
    np.array([0, 1, 2, 40, 41, 42], np.int32),          # two runs: two slices
    np.array([5]),                                      # one thread
    np.array([3, 9, 20, 33, 47, 58, 61, 70, 90, 100]),  # too many runs: an index array
])
def test_kept_views_acquire_and_fence_as_the_views_made_afresh(threads):
    """The same clocks after acquires and fences, twice over the same threads (the
    second time from the kept views), as with ``_row_views`` made each time."""
    kept, fresh = _model(), _model()
    for model in (kept, fresh):
        _random_clocks(model, 1)
    fresh._views = ordering._row_views   # the general code: made afresh every call
    rng = np.random.default_rng(2)
    for _ in range(2):
        generic = rng.integers(0, 60, kept.known.shape[1]).astype(kept.known.dtype)
        tc = rng.integers(0, 60, kept.known.shape[1]).astype(kept.known.dtype)
        for model in (kept, fresh):
            model._acquire(threads.copy(), generic, tc)
            model.fence(threads.copy(), "before_thread_sync", 1)
            model.fence(threads.copy(), "after_thread_sync", 1)
    for name in ("known", "tc_known", "pending_tc", "released"):
        assert np.array_equal(getattr(kept, name), getattr(fresh, name)), name


def test_views_holding_the_callers_index_array_are_not_kept():
    """A group whose views are an index array (more runs than ``_row_views`` takes
    run by run) is the caller's array: kept, a later change of that array by the
    caller would move another group's acquire onto the wrong rows."""
    model = _model()
    spread = np.array([3, 9, 20, 33, 47, 58, 61, 70, 90, 100])
    model._views(spread)
    changed = spread.copy()
    spread[:] = np.arange(10)   # the caller reuses its array
    views = model._views(changed)   # the original ids again
    rows = np.concatenate([np.arange(128)[v] for v in views])
    assert rows.tolist() == changed.tolist()


def test_kept_views_are_those_of_row_views():
    model = _model()
    for threads in (np.arange(32, 64), np.array([0, 1, 40, 41], np.int64),
                    np.array([0, 1, 40, 41], np.int32)):
        first, again = model._views(threads), model._views(threads.copy())
        assert first is again   # kept (all slices)
        assert again == ordering._row_views(threads)


# -- the same value in every thread -----------------------------------------------------------

def _same_value_general(arr, at):
    """The elementwise check ``_same_value`` replaces."""
    if arr is None or arr.dtype != np.uint64:
        return None
    values = arr[at]
    if not values.size or np.count_nonzero(values != values[:1]):
        return None
    return int(values[0])


@pytest.mark.parametrize("case", ["same", "one_differs", "last_differs", "one", "empty",
                                  "ids", "ids_differ", "high_bit", "not_uint64"])
def test_same_value_as_the_elementwise_check(case):
    arr = np.full(64, 0x1234_5678_9ABC_DEF0, np.uint64)
    at = slice(0, 32)
    if case == "one_differs":
        arr[7] ^= np.uint64(1 << 40)   # differs in a high byte only
    elif case == "last_differs":
        arr[31] += np.uint64(1)
    elif case == "one":
        at = slice(5, 6)
    elif case == "empty":
        at = slice(3, 3)
    elif case == "ids":
        at = np.array([1, 9, 40])
    elif case == "ids_differ":
        arr[40] = 0
        at = np.array([1, 9, 40])
    elif case == "high_bit":
        arr[:] = np.uint64(1 << 63)
    elif case == "not_uint64":
        arr = arr.astype(np.int64)
    assert ops_mbarrier._same_value(arr, at) == _same_value_general(arr, at)
    expected_none = case in ("one_differs", "last_differs", "empty", "ids_differ",
                             "not_uint64")
    assert (ops_mbarrier._same_value(arr, at) is None) == expected_none


# -- a TMA load's completion in the clocks' type ----------------------------------------------

def test_tma_completion_releases_its_sequence_number_in_the_clocks_type():
    """A TMA load's complete_tx releases its completion (its sequence number in its
    issuer's TMA stream) to the phase; a thread that waits on the completed phase knows
    it (PTX ISA 9.7.13.15.16: the wait acquires what the phase's arrivals released).
    The phase's released clock is in the clocks' own type, with the same values."""
    model = _model()
    model.mbarrier_init(0, 0, 0x100, 1, line=1)
    model.mbarrier_expect_tx(0, 0, 0x100, 16, line=2)
    addresses = np.arange(0x200, 0x210)
    model.tma_load(0, 0, addresses, lambda: None, 16, 0x100, line=3)
    model.mbarrier_arrive(0, 0, 0x100, 1, line=4)
    model.progress()   # the load lands: complete_tx of its 16 bytes completes phase 0
    column = model.column[model.TMA + 0]
    released = model.mbarriers[(0, 0x100)].completed[0][(0, "cluster")][0]
    assert released.dtype == model.known.dtype
    assert released[column] == 1 and np.count_nonzero(released) == 1
    assert model.mbarrier_try_wait_parity(5, 0, 0x100, 0, line=5)
    assert model.known[5, column] == 1   # thread 5 observed the load's completion


# -- a TMA box's destinations -----------------------------------------------------------------

@pytest.mark.parametrize("swizzle", ["none", "32B", "128B"])
def test_kept_destinations_are_those_made_afresh(swizzle):
    run = types.SimpleNamespace()   # a run's machine: the kept arrays live on it
    tmap = tma.TensorMap("a", (64, 128), (128,), (64, 16), swizzle)
    addresses, chunks = tma._destinations(run, tmap, 0x400, 2)
    fresh = tma.destination_addresses(tmap, 0x400, 2).reshape(-1)
    assert np.array_equal(addresses, fresh)
    assert np.array_equal(chunks, tma.chunk_rows(fresh.copy()))
    assert not addresses.flags.writeable and not chunks.flags.writeable
    other_map = tma.TensorMap("b", (64, 64), (128,), (64, 16), swizzle)
    again = tma._destinations(run, other_map, 0x400, 2)
    assert again[0] is addresses   # the same box at the same place: the kept arrays
    elsewhere = tma._destinations(run, tmap, 0x800, 2)[0]
    assert np.array_equal(elsewhere, tma.destination_addresses(tmap, 0x800, 2).reshape(-1))
    # another run makes its own (nothing is kept across runs)
    assert tma._destinations(types.SimpleNamespace(), tmap, 0x400, 2)[0] is not addresses


@pytest.mark.parametrize("c0, c1, trimmed", [
    (0, 0, False), (64, 8, False), (64, 112, False),   # inside; at the last rows
    (0, 112, True), (32, 112, True), (16, 50, True),   # the last row shorter than stride
])
def test_inner_box_is_the_rows_of_the_tensor(c0, c1, trimmed):
    """The box's rows (b1 rows of b0 elements from (c0, c1)) as NumPy picks them from
    the tensor seen as rows of ``stride`` bytes."""
    rows, stride, itemsize = 128, 256, 2
    rng = np.random.default_rng(c0 + c1)
    raw = rng.integers(0, 256, rows * stride, dtype=np.uint8)
    if trimmed:   # a tensor whose last row is only as long as its elements
        raw = raw[:(rows - 1) * stride + 200]
    tmap = tma.TensorMap("a", (100, rows), (stride,), (16, 16), "none")
    image = tma._inner_box(tmap, raw, itemsize, c0, c1)
    padded = np.zeros(rows * stride, np.uint8)
    padded[:raw.size] = raw
    expected = padded.reshape(rows, stride)[c1:c1 + 16, c0 * itemsize:(c0 + 16) * itemsize]
    assert image is not None and np.array_equal(image, expected)
    assert not np.shares_memory(image, raw)   # a copy, as the strided read gives


# -- barrier counts ---------------------------------------------------------------------------

def test_barrier_with_different_counts_still_names_them():
    """Warp 0 gives barrier 1 the count 64, warp 1 the count 96 (bar, PTX ISA 9.7.13.1:
    b is the number of participating threads, the same for all of them)."""
    body = """
	mov.u32 	%r1, %tid.x;
	setp.lt.u32 	%p1, %r1, 32;
	@%p1 bra 	$LOW;
	bar.sync 	1, 96;
	bra.uni 	$END;
$LOW:
	bar.sync 	1, 64;
$END:
	ret;
"""
    text = kernel(body, threads=64)
    with pytest.raises(SimError, match=r"barrier.sync 1: its threads give different "
                                       r"thread counts \(64, 96,"):
        simulate(text, {}, {"k_param_0": np.zeros(4, np.uint32)},
                 ordering_factory=PlainOrdering, tensor_core=object())


# -- a wait's runs of threads of one CTA ------------------------------------------------------

def _runs_machine(per_cta: int, ctas: int):
    """The parts of a run's machine ``_cta_runs`` reads (the kept runs live on it)."""
    from tcgen05_lower.sim.words import ALL
    m = types.SimpleNamespace(launch=types.SimpleNamespace(threads=per_cta),
                              nthreads=per_cta * ctas)
    m.threads_of = lambda idx: np.arange(m.nthreads) if idx is ALL else np.asarray(idx)
    return m


def _as_lists(found):
    runs, places = found
    return ([(members.tolist(), rank) for members, rank in runs],
            [place if type(place) is slice else place.tolist() for place in places])


@pytest.mark.parametrize("ctas", [1, 2])
def test_kept_cta_runs_are_the_general_ones(ctas):
    """``_cta_runs`` (kept by the threads) against ``cta_runs_general`` on the same
    threads, twice (the second time from the kept answer), for a warp, the same warp
    of each CTA, the whole launch and scattered ids; the caller's id array changed in
    place afterwards does not change a kept answer, and the kept arrays are read-only."""
    from tcgen05_lower.sim.words import ALL
    m = _runs_machine(128, ctas)
    groups = [(ALL, ALL), (np.arange(32, 64), slice(32, 64)),
              (np.array([3, 9, 40]), None), (np.array([3, 9, 40], np.int32), None)]
    if ctas == 2:
        groups += [(np.concatenate([np.arange(32, 64), np.arange(160, 192)]), None),
                   (np.arange(96, 160), slice(96, 160)), (np.array([5, 130]), None)]
    for idx, at in groups * 2:
        at = idx if at is None else at
        expected = _as_lists(ops_mbarrier.cta_runs_general(m, idx, at))
        found = ops_mbarrier._cta_runs(m, idx, at)
        assert _as_lists(found) == expected
        assert all(not members.flags.writeable for members, _ in found[0])
        if type(at) is not slice:   # the caller reuses its array: the kept runs stay
            idx[:] = idx[::-1]
            assert _as_lists(ops_mbarrier._cta_runs(m, idx.copy()[::-1], at)) == expected
            idx[:] = idx[::-1]
    assert len(m._cta_runs_kept) == len(groups)   # one each (ids of two types apart)
