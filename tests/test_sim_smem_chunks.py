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
