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
