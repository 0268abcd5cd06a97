"""The TMEM side of the ordering model on arrays (tcgen05_lower/sim/tmem_index.py) against
the general code it replaces, on the same records: the conflict candidates of every issue
(``InflightIndex.candidates``, the test once per pair of summaries, against
``_conflict_candidates_general``, the per-record ``_may_share`` loop, and against
``InflightIndex.candidates_general``, every record's words at once), the ops a commit completes (``InflightIndex.due`` against the walk
of the in-flight list), the never-written and written cells looked up in a mask's block
(against ``mask & ~written`` over all of TMEM, computed here with NumPy) and the test for
ordinary writers of an MMA's operand chunks (against the per-byte lookup). Each guard
that sends something unusual to the general code (a mask that is not bool[128, 512],
records out of sequence order) has a case that goes wrong without it."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_sim_ordering import MBAR, FakeOp, cells, ld, mma, model  # noqa: E402
from tcgen05_lower.sim.ordering_records import InFlight  # noqa: E402
from tcgen05_lower.sim.ordering_tensor import _no_ordinary_writer  # noqa: E402
from tcgen05_lower.sim.smem_chunks import chunk_form  # noqa: E402
from tcgen05_lower.sim.state import CtaMemory, Footprint, SimError  # noqa: E402
from tcgen05_lower.sim.tmem_index import (InflightIndex, MaskSummary,  # noqa: E402
                                          TmemSummary,
                                          shared_summary, tmem_summary)


def random_mask(rng) -> np.ndarray:
    """A block of lanes x columns, or scattered cells (not a rectangle), or nothing."""
    mask = np.zeros((128, 512), bool)
    form = rng.integers(0, 5)
    if form == 0:
        return mask
    if form == 1:
        mask[rng.integers(0, 128, 40), rng.integers(0, 512, 40)] = True
        return mask
    lane, col = rng.integers(0, 128), rng.integers(0, 512)
    mask[lane:lane + rng.integers(1, 64), col:col + rng.integers(1, 96)] = True
    return mask


def random_op(rng, kinds=("mma", "ld", "st", "cp")) -> FakeOp:
    kind = kinds[rng.integers(0, len(kinds))]
    fp = Footprint()
    if kind in ("mma", "st", "cp"):
        fp.tmem_writes[0] = random_mask(rng)
    if kind in ("mma", "ld") and (kind == "ld" or rng.integers(0, 2)):
        fp.tmem_reads[0] = random_mask(rng)
    return FakeOp(kind, fp, (0, int(rng.integers(0, 3)), 128, 64, 1))


@pytest.mark.parametrize("seed", range(6))
def test_the_candidates_are_the_per_record_loops(seed):
    # Threads of four warps issue random ops, some footprints issued again (an op built
    # once); now and then one thread learns completions through a barrier and fences.
    rng = np.random.default_rng(seed)
    m = model()
    built = [random_op(rng) for _ in range(12)]
    compared = 0
    still_in_flight, dropped = m._still_in_flight, []

    def both():
        # barrier's filter, record by record (the code it replaces), and at once
        general = [r for r in m.inflight if not (
            r.performed and (m.tc_known[:, r.agent] >= r.seq).all()
            and (m.known[:, r.agent] >= r.seq).all())]
        before = len(m.inflight)
        fast = still_in_flight()
        assert [id(r) for r in fast] == [id(r) for r in general]
        dropped.append(before - len(fast))
        return fast

    m._still_in_flight = both
    for step in range(150):
        thread = int(rng.choice([0, 32, 64, 96, 1]))
        op = built[rng.integers(0, len(built))] if rng.integers(0, 2) else random_op(rng)
        if op.kind in ("ld", "st"):
            thread -= thread % 32
        fp = op.footprint
        if fp.tmem_reads or fp.tmem_writes:
            index = InflightIndex.of(m)
            fast = index.candidates(m.tc_known[thread], tmem_summary(fp), not fp.tmem_writes)
            assert fast == m._conflict_candidates_general(thread, op), step
            # and the arrays' test of every record's words (the form before the test per
            # pair of summaries)
            assert fast == index.candidates_general(m.tc_known[thread], tmem_summary(fp),
                                                    not fp.tmem_writes), step
            compared += len(fast)
        m.issue(thread, op, 100 + step)
        if step % 11 == 5:   # a commit of this thread's ops, completed
            m.commit(thread, 0, MBAR, 1, 500 + step)
            while m.progress():
                pass
        if step % 13 == 7:   # a warp waits for its lds
            warp = np.arange(32) + 32 * int(rng.integers(0, 4))
            m.wait(warp, "ld", 600 + step)
        if step % 37 == 36:
            everyone = np.arange(128)
            m.fence(everyone, "before_thread_sync", 1000 + step)
            m.barrier(everyone, 1000 + step)   # replaces the in-flight list
            m.fence(everyone, "after_thread_sync", 1000 + step)
    assert compared > 100   # the records did overlap (not only empty lists compared)
    assert len(dropped) == 4 and sum(dropped) > 0


def test_the_candidates_of_the_model_are_the_per_record_loops_in_an_example():
    # The same comparison on every issue of a warp-specialized example (late schedule).
    from tcgen05_lower.cli.sim import prepare
    from tcgen05_lower.sim import ordering_tensor
    from tcgen05_lower.sim.api import simulate

    root = Path(__file__).resolve().parent.parent / "examples"
    ptx, manifest, _, inputs = prepare(str(root / "ws_persistent_gemm_bf16.mlir"),
                                       str(root / "ws_persistent_gemm_bf16.check.py"))
    original = ordering_tensor.TensorOrdering._check_conflicts
    seen = []

    def both(self, thread, op, kind, cp4, line):
        fp = op.footprint
        if fp.tmem_reads or fp.tmem_writes:
            fast = InflightIndex.of(self).candidates(self.tc_known[thread], tmem_summary(fp),
                                                     not fp.tmem_writes)
            seen.append((fast, self._conflict_candidates_general(thread, op)))
        original(self, thread, op, kind, cp4, line)

    mp = pytest.MonkeyPatch()
    mp.setattr(ordering_tensor.TensorOrdering, "_check_conflicts", both)
    try:
        result = simulate(ptx, manifest, inputs, schedule="late")
    finally:
        mp.undo()
    assert not result.races
    assert len(seen) > 100 and sum(len(fast) for fast, _ in seen) > 0
    assert all(fast == general for fast, general in seen)


def uint8_mma(cols=slice(0, 64)) -> FakeOp:
    """An MMA whose mask is 0/1 bytes, not bool: nothing tmem_index summarizes."""
    return FakeOp("mma", Footprint(tmem_writes={0: cells(slice(0, 128), cols).astype(
        np.uint8)}), (0, 0, 128, 64, 1))


@pytest.mark.parametrize("unusual", ["earlier", "later"])
def test_an_unusual_mask_is_a_candidate_always(unusual):
    # 9.7.16.6: an ld of cells an unfinished MMA writes, with no ordering, races; so
    # does the reverse. With the MMA's mask as 0/1 bytes the race is the same (the
    # general code decides; without the guard its words would be zeros and the pair
    # ruled out).
    def run(make):
        m = model()
        if unusual == "earlier":
            m.issue(0, make(), 10)
            m.issue(32, ld(slice(32, 64), slice(0, 32)), 11)
        else:
            m.issue(32, ld(slice(32, 64), slice(0, 32)), 11)
            m.issue(0, make(), 10)
        return [(r.message, r.ptx_line, r.other_line) for r in m.races]

    usual = run(mma)
    assert len(usual) == 1 and "both access TMEM of CTA 0, lanes 32-63" in usual[0][0]
    assert run(uint8_mma) == usual
    assert tmem_summary(uint8_mma().footprint).general


def test_a_commit_completes_records_out_of_sequence_order_too():
    # Records appended by hand out of sequence order (thread 0: seq 3, then seq 2): a
    # commit tracks all prior ops of its thread (9.7.16.6.4.2), so both are performed,
    # as the walk of the list finds them; without the guard the queue would stop at
    # the first and miss the second.
    m = model()
    m.issue(0, mma(cols=slice(0, 64)), 10)
    first = m.inflight[0]
    late, early = mma(cols=slice(64, 128)), mma(cols=slice(128, 192))
    for op, seq in ((late, first.seq + 2), (early, first.seq + 1)):
        m.inflight.append(InFlight(op, "mma", 0, first.agent, first.issue_agent, seq, 12))
    m.seq[first.issue_agent] = first.seq + 2
    index = InflightIndex.of(m)
    general = [r for r in m.inflight if r.issuer == 0 and r.issue_agent >= 0
               and r.seq <= first.seq + 2]
    assert index.due(0, first.seq + 2) == general and len(general) == 3
    m.commit(0, 0, MBAR, 1, 13)
    assert m.progress()
    assert late.performed and early.performed and first.performed


def test_a_commit_completes_its_threads_ops_up_to_its_own_in_order():
    # 9.7.16.6.4.2: a commit tracks the prior async ops of its thread, not later ones,
    # nor another thread's; the order is the issue order.
    m = model()
    ops = [mma(cols=slice(64 * i, 64 * i + 64)) for i in range(4)]
    order = []
    for op in ops:
        op.perform = lambda ctas, op=op: order.append(op)
    m.issue(0, ops[0], 10)
    m.issue(0, ops[1], 11)
    m.issue(1, ops[2], 12)    # another thread's
    m.commit(0, 0, MBAR, 1, 13)
    m.issue(0, ops[3], 14)    # after the commit
    assert m.progress()
    assert order == [ops[0], ops[1]]


@pytest.mark.parametrize("seed", range(4))
def test_unwritten_and_written_cells_are_all_of_tmems(seed):
    # The block lookups against mask & ~written over all of TMEM (NumPy here); a mask
    # of 0/1 bytes takes the general code, with the same answer.
    rng = np.random.default_rng(seed)
    m = model()
    m.tmem_written[0][:] = rng.random((128, 512)) < 0.7
    for step in range(40):
        read, write = random_mask(rng), random_mask(rng)
        fp = Footprint(tmem_reads={0: read}, tmem_writes={0: write})
        if step % 4 == 3:   # 0/1 bytes (the general code): an ld's read alone
            write = np.zeros_like(write)
            fp = Footprint(tmem_reads={0: read.astype(np.uint8)})
            assert tmem_summary(fp).general
        record = InFlight(FakeOp("mma", fp), "mma", 0, 0, 0, 1, 200 + step)
        before = m.tmem_written[0].copy()
        m.unwritten_reads.clear()
        m._perform(record)
        unwritten = read & ~before
        if unwritten.any():
            assert np.array_equal(m.unwritten_reads[(200 + step, "mma", 0)], unwritten)
        else:
            assert not m.unwritten_reads
        assert np.array_equal(m.tmem_written[0], before | write)


@pytest.mark.parametrize("seed", range(4))
def test_written_cells_known_are_the_written_test(seed):
    # Footprints issued again and again (their summaries, and so the kept "all written"
    # answers, reused), columns freed and allocated again now and then (tcgen05.alloc
    # clears them): the unwritten reads and the written cells are those of NumPy over
    # all of TMEM, step by step.
    rng = np.random.default_rng(100 + seed)
    m = model()
    built = [Footprint(tmem_reads={0: random_mask(rng)}, tmem_writes={0: random_mask(rng)})
             for _ in range(6)] + [Footprint(tmem_reads={0: random_mask(rng)})
                                   for _ in range(3)]
    written = np.zeros((128, 512), bool)
    for step in range(60):
        if step % 9 == 8:   # free and allocate again columns 0-255 (the alloc's clear)
            m.dealloc(np.arange(32), 0, 0, 512, 1, line=90)
            m.alloc(np.arange(32), 0, 256, 1, line=91)
            m.alloc(np.arange(32), 0, 256, 1, line=92)
            written[:] = False
        fp = built[rng.integers(0, len(built))]
        record = InFlight(FakeOp("mma", fp), "mma", 0, 0, 0, 1, 300 + step)
        m.unwritten_reads.clear()
        m._perform(record)
        unwritten = fp.tmem_reads[0] & ~written
        if unwritten.any():
            assert np.array_equal(m.unwritten_reads[(300 + step, "mma", 0)], unwritten)
        else:
            assert not m.unwritten_reads
        if 0 in fp.tmem_writes:
            written |= fp.tmem_writes[0]
        assert np.array_equal(m.tmem_written[0], written)


def test_an_alloc_forgets_the_written_cells_known():
    # An MMA writes columns 0-63 and an ld reads them twice (the second answered from
    # the kept answer); the columns are freed and allocated again: the same ld's
    # footprint now reads cells no op wrote since that alloc (9.7.16.7.1), which a kept
    # answer that outlived the alloc would miss.
    m = model()
    write, read = mma(cols=slice(0, 64)), ld(slice(0, 32), slice(0, 32))
    for line, op in ((10, write), (11, read), (12, read)):
        m._perform(InFlight(op, op.kind, 0, 0, 0, 1, line))
    assert not m.unwritten_reads
    m.dealloc(np.arange(32), 0, 0, 512, 1, line=13)
    m.alloc(np.arange(32), 0, 512, 1, line=14)
    m._perform(InFlight(read, "ld", 0, 0, 0, 1, 15))
    assert m.unwritten_reads[(15, "ld", 0)].sum() == 32 * 32


def test_a_shared_summary_is_given_only_to_the_same_masks():
    # tmem_index.shared_summary: a footprint of the same mask objects gets the kept
    # summary; one of equal masks that are other objects (or other ranks) its own
    # (a summary names its masks: the kept one would describe another footprint's).
    mask = cells(slice(0, 128), slice(0, 64))
    kept = {}
    first = Footprint(tmem_writes={0: mask}, tmem_reads={0: mask})
    shared_summary(first, kept, "d")
    again = Footprint(tmem_writes={0: mask}, tmem_reads={0: mask})
    shared_summary(again, kept, "d")
    assert tmem_summary(again) is tmem_summary(first)
    for other in (Footprint(tmem_writes={0: mask.copy()}, tmem_reads={0: mask}),
                  Footprint(tmem_writes={0: mask}),
                  Footprint(tmem_writes={1: mask}, tmem_reads={1: mask})):
        shared_summary(other, kept, "d")
        summary = tmem_summary(other)
        assert summary is not tmem_summary(first)
        assert all(summary.writes[r].mask is other.tmem_writes[r] for r in other.tmem_writes)
        np.testing.assert_array_equal(summary.words[min(summary.ranks)],
                                      TmemSummary(other).words[min(summary.ranks)])


def assert_same_mask_summary(mine, want):
    assert mine.mask is want.mask and mine.box == want.box
    assert (mine.block is None) == (want.block is None)
    for name in ("words", "columns") + (() if want.block is None else ("block",)):
        np.testing.assert_array_equal(getattr(mine, name), getattr(want, name))
        assert getattr(mine, name).dtype == getattr(want, name).dtype


LD_FORMS = [(f"tcgen05.ld.sync.aligned.{shape}.x{num}{pack}.b32", imm)
            for shape, imm in (("32x32b", None), ("16x64b", None), ("16x128b", None),
                               ("16x256b", None), ("16x32bx2", 8), ("16x32bx2", 40))
            for num in (1, 4, 16) for pack in ("", ".pack::16b")]


@pytest.mark.parametrize("opcode, imm", LD_FORMS)
def test_an_lds_summary_from_its_cells_is_its_masks(opcode, imm):
    # tensor_core.load gives its footprint a summary made from the cells
    # (MaskSummary.of_cells): the same as the one made from the 128 x 512 mask, for
    # every shape of 9.7.16.2.3, packed or not, at several addresses and warps.
    from tcgen05_lower.sim import tensor_core
    ctas = [CtaMemory(0, np.zeros(16, np.uint8))]
    for taddr, warp in ((0, 0), (32 << 16 | 100, 1), (96 << 16 | 7, 7)):
        _, _, op = tensor_core.load(opcode, taddr, warp, 0, ctas, imm, cache={})
        fp = op.footprint
        fresh = TmemSummary(Footprint(tmem_reads={0: fp.tmem_reads[0].copy()}))
        mine = tmem_summary(fp)
        assert_same_mask_summary(mine.reads[0], MaskSummary(fp.tmem_reads[0]))
        np.testing.assert_array_equal(mine.words[0], fresh.words[0])
        np.testing.assert_array_equal(mine.columns[0], fresh.columns[0])
        assert mine.column_keys == fresh.column_keys and not mine.writes


@pytest.mark.parametrize("opcode, imm", LD_FORMS)
def test_an_lds_cells_from_its_kept_form_are_its_cells(opcode, imm):
    # tensor_core._kept_ldst_cells (the opcode's cells at address 0, shifted) against
    # _ldst_cells and tmem_block at every lane a warp may use and past it, columns up to
    # and past 511, every warp rank: the same cells, block, and errors word for word.
    from tcgen05_lower.sim import tensor_core
    from tcgen05_lower.sim.tc_datapath import _mask, tmem_block
    cache = {}
    for lane in (0, 5, 16, 31, 32, 40, 64, 96, 112, 127):
        for column in (0, 3, 100, 400, 480, 500, 511):
            for warp in (0, 1, 2, 3, 6):
                taddr = lane << 16 | column
                try:
                    want = tensor_core._ldst_cells(opcode, taddr, warp, imm)
                except SimError as err:
                    with pytest.raises(SimError) as mine:
                        tensor_core._kept_ldst_cells(opcode, taddr, warp, imm, cache)
                    assert str(mine.value) == str(err)
                    continue
                lanes, cols, packed, at = tensor_core._kept_ldst_cells(opcode, taddr, warp,
                                                                       imm, cache)
                for got, expected in ((lanes, want[0]), (cols, want[1])):
                    np.testing.assert_array_equal(got, expected)
                    assert got.dtype == expected.dtype
                assert packed == want[2]
                block = tmem_block(want[0], want[1])
                assert isinstance(at[0], slice) == isinstance(block[0], slice)
                if isinstance(block[0], slice):
                    assert at == block
                mask = np.zeros((128, 512), bool)
                mask[at] = True
                np.testing.assert_array_equal(mask, _mask(want[0], want[1]))


def test_a_summary_of_cells_of_no_cell_or_another_mask_is_the_masks_own():
    # No cells: the mask's own summary (box None); a summary handed over for another
    # mask object (equal or not) is not used for this one.
    empty = np.zeros((128, 512), bool)
    none = np.zeros(0, np.int64)
    assert_same_mask_summary(MaskSummary.of_cells(empty, none, none), MaskSummary(empty))
    lanes, cols = np.arange(32).reshape(32, 1), np.arange(8).reshape(1, 8) + 0 * \
        np.arange(32).reshape(32, 1)
    mask = cells(lanes, cols)
    other = cells(lanes + 32, cols)
    fp = Footprint(tmem_reads={0: mask})
    # (under this mask's id: what an id taken over by a new object would give)
    summary = TmemSummary(fp, {id(mask): MaskSummary.of_cells(other, lanes + 32, cols)})
    assert_same_mask_summary(summary.reads[0], MaskSummary(mask))


def test_allocated_columns_of_kept_masks_are_the_masks_columns():
    # check_tmem_allocated's columns kept per read-only mask (_columns_of_mask) against
    # np.flatnonzero(mask.any(axis=0)); a writable mask changed in place, a read-only
    # view of a writable one and a kept entry under a mask's id that names another
    # object (an id taken over) are computed again.
    rng = np.random.default_rng(7)
    m = model()
    masks = []
    for _ in range(8):
        mask = random_mask(rng)
        mask.flags.writeable = bool(rng.integers(0, 2))
        masks.append(mask)
    for _ in range(40):
        mask = masks[rng.integers(0, len(masks))]
        np.testing.assert_array_equal(m._columns_of_mask(mask),
                                      np.flatnonzero(mask.any(axis=0)))
    writable = cells(slice(0, 32), slice(0, 8))
    m._columns_of_mask(writable)
    writable[:, 100] = True
    assert m._columns_of_mask(writable)[-1] == 100
    base = cells(slice(0, 32), slice(0, 8))
    view = base[:]
    view.flags.writeable = False
    m._columns_of_mask(view)
    base[:, 200] = True
    assert m._columns_of_mask(view)[-1] == 200
    mine = cells(slice(0, 32), slice(0, 8))
    mine.flags.writeable = False
    m._mask_columns[id(mine)] = (masks[0], np.array([300]))
    np.testing.assert_array_equal(m._columns_of_mask(mine), np.arange(8))
    with pytest.raises(SimError, match="columns 32-32 of CTA 0, which are not allocated"):
        m.dealloc(np.arange(32), 0, 0, 512, 1, line=5)
        m.alloc(np.arange(32), 0, 8 * 4, 1, line=6)   # columns 0-31
        big = cells(slice(0, 32), slice(0, 33))
        big.flags.writeable = False
        m.check_tmem_allocated(0, big, 7)


@pytest.mark.parametrize("seed", range(4))
def test_no_ordinary_writer_is_the_per_byte_lookup(seed):
    rng = np.random.default_rng(seed)
    m = model()
    marks = m.chunk_marks[0]
    for _ in range(30):
        m.writer[0][:] = -1
        written = rng.integers(0, 2048, rng.integers(0, 3))
        m.writer[0][written] = rng.integers(0, 128, written.size)
        chunks = np.unique(rng.integers(0, 128, rng.integers(1, 20)))
        if rng.integers(0, 3) == 0:   # one contiguous run of chunks (a span)
            chunks = np.arange(chunks[0], min(chunks[0] + 8, 128))
        addresses = (chunks[:, None] * 16 + np.arange(16)).reshape(-1).astype(np.int64)
        form = chunk_form(addresses)
        assert form is not None
        assert _no_ordinary_writer(marks, form) == (not (m.writer[0][addresses] >= 0).any())


def _dealloc_races_record_by_record(m, thread: int, rank: int, start: int, columns: int):
    """The lines of the in-flight records a dealloc reports, as the dealloc found them
    before ``_unknown_records``: every record's masks tested, then its completion."""
    found = []
    for record in m.inflight:
        masks = [x for x in (record.op.footprint.tmem_reads.get(rank),
                             record.op.footprint.tmem_writes.get(rank)) if x is not None]
        if any(x[:, start:start + columns].any() for x in masks) and \
                m.tc_known[thread, record.agent] < record.seq:
            found.append(record.line)
    return found


@pytest.mark.parametrize("seed", range(4))
def test_a_deallocs_races_are_the_record_by_record_loops(seed):
    # random ops in flight, some completed and waited for; a dealloc of a random range of
    # columns by one of the warps reports the records the per-record loop finds, in order
    rng = np.random.default_rng(seed)
    for _ in range(12):
        m = model()
        for step in range(int(rng.integers(0, 30))):
            thread = int(rng.choice([0, 32, 64, 96]))
            m.issue(thread, random_op(rng), 100 + step)
            if rng.integers(0, 5) == 0:
                m.commit(thread, 0, MBAR, 1, 500 + step)
                while m.progress():
                    pass
            if rng.integers(0, 6) == 0:
                m.wait(np.arange(32) + 32 * int(rng.integers(0, 4)), "ld", 600 + step)
        thread = int(rng.choice([0, 32, 64, 96]))
        start = 32 * int(rng.integers(0, 8))
        columns = 32 * int(rng.integers(1, 16 - start // 32 + 1)) if start < 512 else 32
        columns = min(columns, 512 - start)
        expected = _dealloc_races_record_by_record(m, thread, 0, start, columns)
        before = len(m.races)
        m.dealloc(np.arange(32) + thread, 0, start, columns, 1, 900)
        got = [race.other_line for race in m.races[before:]]
        # _race reports a pair of lines once: the first of each line, in order
        assert got == list(dict.fromkeys(expected))


def test_allocated_masks_are_checked_again_after_a_dealloc():
    # a read-only mask found allocated is not looked at again until a dealloc: then it
    # is, and columns freed are reported; a kept entry under the mask's id that holds
    # another object is not taken for the mask's
    m = model()
    mask = cells(slice(0, 32), slice(0, 64))
    mask.flags.writeable = False
    m.check_tmem_allocated(0, mask, 6)
    m.check_tmem_allocated(0, mask, 6)   # kept
    m.dealloc(np.arange(32), 0, 0, 512, 1, 7)
    with pytest.raises(SimError, match="columns 0-63 of CTA 0, which are not allocated"):
        m.check_tmem_allocated(0, mask, 8)
    m.alloc(np.arange(32), 0, 32, 1, line=9)   # columns 0-31
    other = cells(slice(0, 32), slice(0, 64))
    other.flags.writeable = False
    m._allocated_masks[1][id(other), 0] = mask   # another object under its id
    with pytest.raises(SimError, match="columns 32-63 of CTA 0, which are not allocated"):
        m.check_tmem_allocated(0, other, 10)
    writable = cells(slice(0, 32), slice(0, 16))   # never kept: checked every time
    m.check_tmem_allocated(0, writable, 11)
    writable[:, 40] = True
    with pytest.raises(SimError, match="columns 40-40 of CTA 0"):
        m.check_tmem_allocated(0, writable, 12)


@pytest.mark.parametrize("seed", range(3))
def test_allocations_found_ordered_are_the_general_checks(seed):
    # the same random allocs, deallocs, barriers and issues in two models: one keeps
    # the (thread, columns) whose allocations it found ordered until the next alloc
    # (_ordered_allocations), the other checks every issue (the general code); they
    # report the same races, the same number of times
    from tcgen05_lower.sim import ordering_tensor
    from tcgen05_lower.sim.ordering import OrderingModel
    rng = np.random.default_rng(seed)
    models = [OrderingModel([CtaMemory(0, np.zeros(2048, np.uint8))], 128, "late")
              for _ in range(2)]
    general = models[1]
    general_check = ordering_tensor._ordered_allocations
    built = [random_op(rng, kinds=("mma", "ld")) for _ in range(6)]
    allocated, kept_answers = [], 0
    for step in range(150):
        what, warp = int(rng.integers(0, 10)), int(rng.integers(0, 4))
        if what == 0 and len(allocated) < 2:
            starts = {m.alloc(np.arange(32) + 32 * warp, 0, 256, 1, line=step)
                      for m in models}
            assert len(starts) == 1
            allocated.append((warp, starts.pop()))
        elif what == 1 and allocated:
            owner, start = allocated.pop(0)
            for m in models:
                m.dealloc(np.arange(32) + 32 * owner, 0, start, 256, 1, line=step)
        elif what == 2:
            everyone = np.arange(128)
            for m in models:
                m.fence(everyone, "before_thread_sync", step)
                m.barrier(everyone, step)
                m.fence(everyone, "after_thread_sync", step)
        elif what >= 3:
            op = built[int(rng.integers(0, len(built)))]
            models[0]._check_allocation_ordered(32 * warp, op, 1000 + step)
            ordering_tensor._ordered_allocations = lambda *args: (None, None)
            try:
                general._check_allocation_ordered(32 * warp, op, 1000 + step)
            finally:
                ordering_tensor._ordered_allocations = general_check
        kept = models[0].__dict__.get("_ordered_allocations")
        kept_answers = max(kept_answers, 0 if kept is None else len(kept[1]))
        assert [(r.message, r.ptx_line, r.other_line, r.count) for r in models[0].races] \
            == [(r.message, r.ptx_line, r.other_line, r.count) for r in general.races]
    assert kept_answers > 0 and models[0].races   # both paths taken
