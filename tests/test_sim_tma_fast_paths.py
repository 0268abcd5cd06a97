"""The TMA load's fast paths (sim/tma.py): a box lands in shared memory by 16-byte
chunks (``land_box``) where its destinations are whole aligned chunks (``chunk_rows``),
else byte by byte. The reference is NumPy's own byte scatter ``smem[rank, addresses] =
image`` (the general code), on the same input; each guard has a case that the chunk
copy would get wrong (or fail differently) without it."""

from __future__ import annotations

import numpy as np
import pytest

from tcgen05_lower.sim.tma import (TensorMap, box_image, chunk_rows, destination_addresses,
                                   land_box)

SMEM = 4096


def _by_bytes(addresses, image):
    smem = np.zeros((2, SMEM), np.uint8)
    smem[1, addresses.reshape(-1)] = image.reshape(-1)
    return smem


def _landed(addresses, image, chunks):
    smem = np.zeros((2, SMEM), np.uint8)
    land_box(smem, 1, addresses, chunks, image)
    return smem


@pytest.mark.parametrize("swizzle, box, dst", [
    ("none", (8, 4), 0x100), ("32B", (16, 8), 0x80), ("64B", (32, 8), 0x200),
    ("128B", (64, 16), 0x400), ("128B", (64, 8), 0x480)])
def test_a_swizzled_box_lands_by_chunks_as_by_bytes(swizzle, box, dst):
    # a bf16 tensor of random bytes; the box's destinations from the swizzle model
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 256, 64 * 64 * 2, dtype=np.uint8)
    tmap = TensorMap("a", (64, 64), (128,), box, swizzle)
    addresses = destination_addresses(tmap, dst, 2).reshape(-1)
    image = box_image(tmap, raw, 2, 0, 8)
    chunks = chunk_rows(addresses)
    assert chunks is not None   # the chunk copy is what runs
    # 16 image bytes per chunk, to the chunk of their first destination
    assert np.array_equal(chunks, addresses[::16] // 16)
    assert np.array_equal(_landed(addresses, image, chunks), _by_bytes(addresses, image))


def test_unaligned_or_scattered_destinations_are_not_chunks():
    image = np.arange(32, dtype=np.uint8)
    unaligned = np.arange(8, 40, dtype=np.int64)            # 16 in a row, not aligned
    reversed_in_chunk = np.concatenate([np.arange(15, -1, -1), np.arange(16, 32)])
    negative = np.arange(-16, 16, dtype=np.int64)
    for addresses in (unaligned, reversed_in_chunk, negative, np.arange(24)):
        assert chunk_rows(addresses) is None, addresses
    for addresses in (unaligned, reversed_in_chunk):
        assert np.array_equal(_landed(addresses, image[:addresses.size], None),
                              _by_bytes(addresses, image[:addresses.size]))


def test_a_box_past_the_shared_memory_fails_as_by_bytes():
    # chunks past the end: the byte scatter's IndexError, not a chunk copy's
    addresses = np.arange(SMEM - 16, SMEM + 16, dtype=np.int64)
    chunks = chunk_rows(addresses)
    assert chunks is not None
    with pytest.raises(IndexError) as by_bytes:
        _by_bytes(addresses, np.ones(32, np.uint8))
    with pytest.raises(IndexError) as landed:
        _landed(addresses, np.ones(32, np.uint8), chunks)
    assert str(landed.value) == str(by_bytes.value)


def test_an_image_of_wider_items_is_cast_as_by_bytes():
    # an image that is not bytes: the byte scatter casts each value; a chunk copy
    # would move its raw bytes
    addresses = np.arange(32, 64, dtype=np.int64)
    image = np.arange(32, dtype=np.int32) + 250
    assert np.array_equal(_landed(addresses, image, chunk_rows(addresses)),
                          _by_bytes(addresses, image))


def _machine():
    """What ops_support._shared_target reads of a machine: a cluster of 2 CTAs of 64
    threads each, shared memory up to 0x8000."""
    from types import SimpleNamespace
    return SimpleNamespace(rank=np.repeat(np.arange(2), 64), smem_end=0x8000,
                           launch=SimpleNamespace(cluster=2),
                           threads_of=lambda idx: np.asarray(idx))


def _general(m, thread, address, size, what):
    from tcgen05_lower.sim.ops_support import _shared_target
    rank, local = _shared_target(m, "shared::cluster", np.array([thread]),
                                 np.uint64(address), size, what, None)
    return int(np.asarray(rank).reshape(-1)[0]), int(np.asarray(local).reshape(-1)[0])


def test_a_loads_shared_memory_target_kept_for_the_run_is_the_general_one():
    # the same calls through _target (kept by own CTA, address, size and what) and
    # through ops_support._shared_target: the same (rank, local) or the same SimError
    from tcgen05_lower.sim.ops_support import CLUSTER_RANK_SHIFT, SMEM_BASE
    from tcgen05_lower.sim.state import SimError
    from tcgen05_lower.sim.tma import _target
    m = _machine()
    peer1 = 2 << CLUSTER_RANK_SHIFT   # shared::cluster address of CTA 1 (rank + 1)
    end = m.smem_end
    calls = [(0, SMEM_BASE + 0x400, 8), (64, SMEM_BASE + 0x400, 8),   # own CTA 0, 1
             (0, peer1 | (SMEM_BASE + 0x400), 8),                     # CTA 1 by address
             (0, end - 8, 8), (0, end - 8, 16),                       # fits, then not
             (0, (3 << CLUSTER_RANK_SHIFT) | SMEM_BASE, 8)]           # outside the cluster
    for thread, address, size in calls * 2:   # twice: the second time from the kept ones
        try:
            expected = _general(m, thread, address, size, "w")
        except SimError as err:
            with pytest.raises(SimError) as kept:
                _target(m, thread, address, size, "w", None)
            assert str(kept.value) == str(err)
            continue
        assert _target(m, thread, address, size, "w", None) == expected
    assert _target(m, 64, SMEM_BASE + 0x400, 8, "w", None)[0] == 1   # thread 64: CTA 1


@pytest.mark.parametrize("swizzle", ["none", "32B", "64B", "128B"])
@pytest.mark.parametrize("box, itemsize", [((8, 4), 2), ((16, 8), 2), ((64, 16), 2),
                                           ((64, 128), 2), ((32, 3), 4), ((16, 1), 1)])
@pytest.mark.parametrize("dst", [0, 0x80, 0x480, 0x10000, 0x12340])
def test_destination_chunks_are_the_byte_addresses_and_their_chunks(swizzle, box, itemsize,
                                                                    dst):
    # destination_chunks against the general code on the same map: destination_addresses
    # (the swizzle applied to every byte), chunk_rows of those bytes and their chunk_form
    from tcgen05_lower.sim.smem_chunks import chunk_form, chunk_form_of_chunks
    from tcgen05_lower.sim.tma import destination_chunks
    tmap = TensorMap("a", (256, 256), (1024,), box, swizzle)
    addresses = destination_addresses(tmap, dst, itemsize).reshape(-1)
    made = destination_chunks(tmap, dst, itemsize)
    assert made is not None
    assert made[0].dtype == addresses.dtype and np.array_equal(made[0], addresses)
    expected = chunk_rows(addresses)
    assert made[1].dtype == expected.dtype and np.array_equal(made[1], expected)
    assert not made[0].flags.writeable and not made[1].flags.writeable
    form, general = chunk_form_of_chunks(made[1]), chunk_form(addresses)
    assert np.array_equal(form.index, general.index) and form.index.dtype == np.int64
    assert (form.span, form.low, form.high) == (general.span, general.low, general.high)


def test_destinations_not_in_whole_chunks_take_the_general_code():
    # a destination that is not 16-byte aligned, or a box of 8 bytes: no chunks (the
    # handler refuses such a destination; _destinations gives the general answer)
    from tcgen05_lower.sim.tma import _destinations, destination_chunks
    cases = [(TensorMap("a", (64, 64), (128,), (8, 4), "none"), 0x108, 2),
             (TensorMap("a", (64, 64), (128,), (4, 2), "none"), 0x100, 1)]

    class Machine:   # the run's cache lives on the machine; no ordering model here
        ordering = None
    for tmap, dst, itemsize in cases:
        assert destination_chunks(tmap, dst, itemsize) is None
        addresses, chunks = _destinations(Machine(), tmap, dst, itemsize)
        assert np.array_equal(addresses,
                              destination_addresses(tmap, dst, itemsize).reshape(-1))
        assert chunks is None and not addresses.flags.writeable


def test_a_boxs_chunk_form_is_given_to_the_ordering_model():
    # the form _destinations gives (from the chunks) is the one _form_of would make
    from tcgen05_lower.sim.ordering import OrderingModel
    from tcgen05_lower.sim.smem_chunks import chunk_form
    from tcgen05_lower.sim.state import CtaMemory
    from tcgen05_lower.sim.tma import _destinations

    class Machine:
        ordering = OrderingModel([CtaMemory(0, np.zeros(0x10000, np.uint8))], 128, "late")
    m = Machine()
    tmap = TensorMap("a", (64, 256), (128,), (64, 128), "128B")
    addresses, _ = _destinations(m, tmap, 0x4000, 2)
    given = m.ordering._form_of(addresses)
    assert m.ordering._chunk_forms[id(addresses)][0] is addresses
    general = chunk_form(np.array(addresses))
    assert np.array_equal(given.index, general.index) and given.span == general.span
