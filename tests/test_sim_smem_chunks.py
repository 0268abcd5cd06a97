"""The ordering model's 16-byte chunks of TMA-written and async-read shared memory
(tcgen05_lower/sim/smem_chunks.py): which byte sets are whole chunks (hand-derived), and
that the races the per-byte code reports are reported the same when the bytes go by chunk,
including where a chunk's bytes have several owners (only the per-byte code can tell)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_sim_ordering import mma  # noqa: E402
from tcgen05_lower.sim.ordering import OrderingModel  # noqa: E402
from tcgen05_lower.sim.smem_chunks import MIXED, chunk_form  # noqa: E402
from tcgen05_lower.sim.state import CtaMemory  # noqa: E402

FULL, EMPTY = 1024, 1032   # the mbarriers' addresses (outside the bytes loaded)


def test_whole_aligned_chunks_have_a_chunk_form():
    # bytes 32..63: chunks 2 and 3 (32 // 16, 48 // 16), one contiguous span
    form = chunk_form(np.arange(32, 64, dtype=np.int64))
    assert list(form.index) == [2, 3] and form.span == slice(32, 64)
    assert (form.low, form.high) == (32, 63)
    # chunks 1 and 3 in a swizzled order, one byte twice: a set, not contiguous
    shuffled = np.concatenate([np.arange(48, 64), np.arange(16, 32)[::-1], [20]])
    form = chunk_form(shuffled.astype(np.int64))
    assert list(form.index) == [1, 3] and form.span is None


@pytest.mark.parametrize("addresses", [
    np.arange(8, 24),                                 # 16 bytes, not aligned
    np.arange(0, 24),                                 # one and a half chunks
    np.delete(np.arange(0, 32), 17),                  # a byte of chunk 1 missing
    np.array([], np.int64),                           # nothing
])
def test_other_byte_sets_have_none(addresses):
    assert chunk_form(np.asarray(addresses, np.int64)) is None


def model():
    m = OrderingModel([CtaMemory(0, np.zeros(2048, np.uint8))], 128, "late")
    m.alloc(np.arange(32), 0, 512, 1, line=1)
    m.mbarrier_init(0, 0, FULL, 1, line=2)
    everyone = np.arange(128)
    m.fence(everyone, "before_thread_sync", 3)
    m.barrier(everyone, 4)
    m.fence(everyone, "after_thread_sync", 5)
    return m


def load(m, addresses, line, read_only):
    """A TMA load by thread 32 (the producer warp) of `addresses`: read-only (as tma.py
    passes a box's destinations: by chunk) or writable (byte by byte)."""
    addresses = np.array(addresses, np.int64)
    addresses.setflags(write=not read_only)
    m.mbarrier_expect_tx(32, 0, FULL, addresses.size, line)
    m.mbarrier_arrive(32, 0, FULL, 1, line)   # mbarrier.arrive.expect_tx
    m.tma_load(32, 0, addresses, lambda: None, addresses.size, FULL, line)


def races(m):
    return [(r.ptx_line, r.other_line, r.message) for r in m.races]


@pytest.mark.parametrize("read_only", [True, False])
def test_an_mma_of_tma_bytes_before_the_load_completes_is_a_race(read_only):
    m = model()
    load(m, range(0, 256), 10, read_only)
    m.issue(0, mma(smem=np.arange(0, 256)), 20)   # no wait on FULL: not ordered
    [(line, other, message)] = races(m)
    assert (line, other) == (20, 10) and "byte 0x0" in message and \
        "TMA load (cp.async.bulk.tensor of thread 32)" in message


@pytest.mark.parametrize("read_only", [True, False])
def test_an_mma_after_the_wait_is_not_a_race(read_only):
    m = model()
    load(m, range(0, 256), 10, read_only)
    while not m.mbarrier_try_wait_parity(0, 0, FULL, 0, 11):
        assert m.progress()
    m.issue(0, mma(smem=np.arange(0, 256)), 20)
    assert races(m) == []


def test_a_chunk_a_load_wrote_in_part_goes_byte_by_byte():
    """A load of bytes 0..7 (half of chunk 0: no chunk form, the chunk is marked mixed);
    the MMA of chunk 0 by a thread that did not observe it is a race. Were chunk 0 still
    marked as written by no load, the chunk test would clear the MMA."""
    m = model()
    load(m, range(0, 8), 10, read_only=False)
    assert m.chunk_marks[0].tma_writer[0] == MIXED
    m.issue(0, mma(smem=np.arange(0, 16)), 20)
    [(line, other, message)] = races(m)
    assert (line, other) == (20, 10) and "byte 0x0" in message


def test_a_load_over_bytes_an_mma_reads_in_part_goes_byte_by_byte():
    """An MMA reads bytes 8..15 (half of chunk 0); a TMA load of chunks 0..1 by a thread
    that has not observed the MMA's completion overwrites them: a race."""
    m = model()
    m.issue(0, mma(smem=np.arange(8, 16)), 10)
    assert m.chunk_marks[0].reader[0] == MIXED
    load(m, range(0, 32), 20, read_only=True)
    [(line, other, message)] = races(m)
    assert (line, other) == (20, 10) and "byte 0x8" in message and \
        "still reads" in message


@pytest.mark.parametrize("lean", [True, False])
def test_a_store_to_bytes_an_mma_still_reads_is_a_race(lean):
    """The MMA's readers are kept by chunk (the per-byte arrays written when next
    needed): a st.shared of thread 64, which has not observed the MMA's completion, to
    byte 4 of its operands is a race with it, through the one-warp form and the general
    one alike."""
    m = model()
    m.issue(0, mma(smem=np.arange(0, 64)), 10)
    assert m.chunk_marks[0].stale[0]
    if lean:
        m.smem_access_warp(slice(64, 65), 0, np.array([4], np.int64), 4, True, 20)
    else:
        m.smem_access(np.array([64]), 0, np.array([4], np.int64), 4, True, 20)
    [(line, other, message)] = races(m)
    assert (line, other) == (20, 10) and "byte 0x4" in message and "still reads" in message


def test_owners_seen_reads_only_the_forms_chunks():
    # chunks 1 and 3 owned by TMA load 1 of thread 32, chunk 2 between them by thread 33
    # (load 5): a form of chunks 1 and 3 (no span) is decided by thread 32's load alone,
    # the contiguous form of chunks 1..3 (a span, read as a slice) sees two owners
    from tcgen05_lower.sim.smem_chunks import owners_seen
    m = model()
    mine, other = m._stream(m.TMA + 32), m._stream(m.TMA + 33)   # their columns
    owners = np.full(8, -1, np.int32)
    seqs = np.zeros(8, np.int64)
    owners[[1, 3]], seqs[[1, 3]] = 32, 1
    owners[2], seqs[2] = 33, 5
    apart = chunk_form(np.concatenate([np.arange(48, 64), np.arange(16, 32)]))
    together = chunk_form(np.arange(16, 64, dtype=np.int64))
    assert apart.span is None and together.span == slice(16, 64)
    # thread 0 has observed no TMA load: thread 32's is not seen (decided: False too)
    assert not owners_seen(m, owners, seqs, m.TMA, 0, apart)
    m.known[0, mine] = 1   # now it has (load 1 of thread 32), and thread 33's load 5
    m.known[0, other] = 5
    assert owners_seen(m, owners[:2], seqs[:2], m.TMA, 0, chunk_form(
        np.arange(16, 32, dtype=np.int64)))   # (chunk 1 alone: decided, seen)
    assert owners_seen(m, owners, seqs, m.TMA, 0, apart)
    assert not owners_seen(m, owners, seqs, m.TMA, 0, together)   # two owners: undecided


def _store_between_reads(lean: bool, same_op: bool):
    """Thread 0's MMA reads bytes 0..255 (no ordinary writer: kept as found for its
    footprint's chunks) and completes (commit, wait), thread 0 stores to byte 4 with
    st.shared, then issues an MMA of the same bytes again: the store is not fenced with
    fence.proxy.async (9.7.16.6.5)."""
    m = model()
    first = mma(smem=np.arange(0, 256))
    m.issue(0, first, 10)
    m.commit(0, 0, FULL, 1, 11)
    while not m.mbarrier_try_wait_parity(0, 0, FULL, 0, 12):
        assert m.progress()
    if lean:
        def general(*args):
            raise AssertionError("the one-warp form fell back to smem_access")
        m.smem_access = general   # the store goes through the one-warp form alone
        m.smem_access_warp(slice(0, 1), 0, np.array([4], np.int64), 4, True, 20)
        del m.smem_access
    else:
        m.smem_access(np.array([0]), 0, np.array([4], np.int64), 4, True, 20)
    m.issue(0, first if same_op else mma(smem=np.arange(0, 256)), 30)
    return races(m)


@pytest.mark.parametrize("lean", [True, False])
def test_a_store_after_chunks_were_found_unwritten_is_seen(lean):
    # the same footprint again (its chunks found unwritten at line 10) and a new one
    # (nothing remembered: the general test) report the same races
    reference = _store_between_reads(lean, same_op=False)
    assert any(line == 30 and "fence.proxy.async" in message
               for line, _, message in reference)
    assert _store_between_reads(lean, same_op=True) == reference


@pytest.mark.parametrize("write", [False, True])
def test_a_warps_access_to_bytes_a_load_wrote_by_chunk_is_a_race(write):
    """A TMA load writes bytes 0..255 by chunk (their per-byte writers written when next
    read); before its completion is observed, warp 2 (threads 64..95) reads or writes
    bytes 0..127, 4 each: a race with the load, through the one-warp form as through
    the general one (the reference)."""
    found = []
    for lean in (True, False):
        m = model()
        load(m, range(0, 256), 10, read_only=True)
        addresses = np.arange(0, 128, 4, dtype=np.int64)
        if lean:
            m.smem_access_warp(slice(64, 96), 0, addresses, 4, write, 20)
        else:
            m.smem_access(np.arange(64, 96), 0, addresses, 4, write, 20)
        found.append(races(m))
    assert found[0] == found[1]
    [(line, other, message)] = found[0]
    assert (line, other) == (20, 10) and "byte 0x0" in message and \
        "TMA load (cp.async.bulk.tensor of thread 32)" in message


@pytest.mark.parametrize("seed", range(4))
def test_the_chunk_form_of_chunks_is_the_chunk_form_of_their_bytes(seed):
    # chunk_form_of_chunks(chunks) against chunk_form of the chunks' bytes (16 c .. 16 c
    # + 15 each, in the chunks' order): increasing, shuffled, with repeats, a negative
    # chunk, spread past 2^24 bytes, one chunk, none
    from tcgen05_lower.sim.smem_chunks import chunk_form_of_chunks
    rng = np.random.default_rng(seed)
    cases = [np.array([], np.int64), np.array([5]), np.array([-1, 3]), np.array([-2]),
             np.array([0, (1 << 20) + 1]), np.array([(1 << 20) + 1, 0]),
             np.array([(1 << 20), 1]), np.array([0, 1 << 20])]
    for _ in range(40):
        chunks = rng.integers(0, 64, rng.integers(1, 40))
        form = rng.integers(0, 4)
        if form == 0:
            chunks = np.unique(chunks)                  # increasing
        elif form == 1:
            chunks = np.arange(chunks[0], chunks[0] + chunks.size)   # contiguous
            rng.shuffle(chunks)
        cases.append(chunks)
    compared = 0
    for chunks in cases:
        chunks = np.asarray(chunks, np.int64)
        addresses = (chunks[:, None] * 16 + np.arange(16)).reshape(-1)
        general, fast = chunk_form(addresses), chunk_form_of_chunks(chunks)
        if general is None:
            assert fast is None, chunks
            continue
        compared += 1
        assert np.array_equal(fast.index, general.index) and fast.index.dtype == np.int64
        assert (fast.span, fast.low, fast.high) == (general.span, general.low,
                                                     general.high), chunks
    assert compared > 40


@pytest.mark.parametrize("seed", range(4))
def test_unwritten_operand_chunks_are_the_per_byte_lookup(seed):
    # random TMA loads (by chunk, and byte by byte) and ordinary stores (st.shared of
    # one thread, 4 bytes); after each load of chunks, no byte of them has an ordinary
    # writer; after each step, operand chunk sets tested by _unwritten (which
    # may answer from the chunks a load cleared since the last store, ChunkMarks
    # .cleared_since) against the per-byte lookup: no byte with an ordinary writer
    from tcgen05_lower.sim.ordering_tensor import _unwritten
    rng = np.random.default_rng(seed)
    m = model()
    marks = m.chunk_marks[0]
    m.barrier(np.arange(128), 9)   # thread 32's loads are ordered for everyone
    decided, loaded = 0, None
    for step in range(60):
        what = rng.integers(0, 4)
        first = int(rng.integers(0, 56))
        if what == 0:   # a store of 4 bytes somewhere in chunks 0..63
            byte = np.array([16 * first + 4 * int(rng.integers(0, 4))], np.int64)
            m.smem_access(np.array([0]), 0, byte, 4, True, 100 + step)
        elif what == 3:   # a load byte by byte
            load(m, range(16 * first, 16 * first + 24), 100 + step, read_only=False)
        else:   # a load of whole chunks (a contiguous box, or every other chunk)
            chunks = np.arange(first, first + 8) if what == 1 else \
                np.arange(first, first + 8, 2)
            load(m, (chunks[:, None] * 16 + np.arange(16)).reshape(-1), 100 + step,
                 read_only=True)
            loaded = chunks
            # the load takes every byte's ordinary writer away (also where set_tma
            # skips the write: bytes it cleared with no store since)
            assert (m.writer[0][(chunks[:, None] * 16 + np.arange(16))] == -1).all()
        m.barrier(np.arange(128), 200 + step)   # the loads completed and observed
        while m.progress():
            pass
        for _ in range(3):
            chunks = np.unique(rng.integers(0, 64, rng.integers(1, 12)))
            if rng.integers(0, 2) and loaded is not None:   # some of the last load's
                chunks = np.unique(rng.choice(loaded, rng.integers(1, loaded.size + 1)))
            form = chunk_form((chunks[:, None] * 16 + np.arange(16)).reshape(-1))
            stores = m.__dict__.get("_stores", 0)
            decided += marks.cleared_since(form, stores)
            addresses = (chunks[:, None] * 16 + np.arange(16)).reshape(-1)
            expected = not (m.writer[0][addresses] >= 0).any()
            assert _unwritten(m, marks, form) == expected, step
    assert decided > 10   # the chunks' answer was taken, not only the byte lookup
