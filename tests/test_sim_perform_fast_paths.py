"""The fast paths of performing an MMA (sim/tc_mma.py ``perform``, sim/tc_datapath.py,
sim/tc_descriptors.py): float elements decoded by viewing their bytes
(``decode_elements`` / ``_viewable``), operand bytes gathered by 16-byte chunks
(``_operand_chunks``, ``gather_bytes``), an f32 D block accumulated in place
(``_accumulate_f32_block``), and, when an op is performed, its TMEM reads found written
inside a block an earlier op wrote whole (sim/ordering_tensor.py ``_in_written_box``).

Every test is differential: the fast path against the general code on the same input
(``_decode_words``; NumPy's byte gather ``smem[addresses]`` with addresses from
``operand_addresses``; ``_accumulate`` given D's cells as index arrays, which the fast
path does not take; an MMA built without the run's cache; the ordering model keeping
no written block), compared bit for bit (NaN payloads too). Each guard has a case the
fast path gets wrong (or fails on) without it. One accumulation and one unwritten-read
report are also checked by hand (IEEE 754 binary32 bits; the cells counted)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tcgen05_lower.sim import tc_datapath as dp
from tcgen05_lower.sim import tc_descriptors as td
from tcgen05_lower.sim import tc_mma
from tcgen05_lower.sim import tensor_core as tc
from tcgen05_lower.sim.state import Address, CtaMemory

RNG = np.random.default_rng(9)
FLOATS = ["f16", "bf16", "e4m3", "e5m2"]


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shapes, dtypes and bytes (so NaNs compare by payload)."""
    return a.shape == b.shape and a.dtype == b.dtype and \
        np.array_equal(np.ascontiguousarray(a).view(np.uint8),
                       np.ascontiguousarray(b).view(np.uint8))


# -- decoding float elements by a view of their bytes -----------------------------------------

@pytest.mark.parametrize("element", FLOATS)
def test_viewed_elements_are_the_assembled_words(element):
    # every byte value, so every code of the 8-bit types and NaNs, infinities, zeros and
    # subnormals among the 16-bit ones
    raw = RNG.permutation(np.tile(np.arange(256, dtype=np.uint8), 32)).reshape(64, 128)
    size = td.ELEMENT_BYTES[element]
    assert td._viewable(raw, size)          # the fast path is what runs
    with np.errstate(invalid="ignore"):
        assert same_bits(td.decode_elements(raw, element),
                         td._decode_words(raw, element, size))


@pytest.mark.parametrize("element", ["f16", "bf16"])
def test_bytes_that_cannot_be_viewed_are_assembled(element):
    raw = RNG.integers(0, 256, (16, 32), dtype=np.uint8)
    # not C-contiguous (the view would fail: its last axis is not contiguous) and bytes
    # held in a wider type (the view would read each uint16 as one element)
    for other in (np.asfortranarray(raw), raw.astype(np.uint16)):
        assert not td._viewable(other, 2)
        with np.errstate(invalid="ignore"):
            assert same_bits(td.decode_elements(other, element),
                             td._decode_words(raw, element, 2))


# -- gathering operand bytes by 16-byte chunks ------------------------------------------------

def smem_descriptor(start, lbo, sbo, swizzle_code):
    """Table 40 by hand: 14-bit fields of byte values >> 4; bits 46-48 = 0b001."""
    return td.decode_smem_descriptor((start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32)
                                     | (1 << 46) | (swizzle_code << 61))


#: (Table 40 swizzle code, LBO, SBO) of K-major operands: 128B, 64B, 32B, none
K_MAJOR = [(2, 16, 1024), (4, 16, 512), (6, 16, 256), (0, 2048, 128)]


@pytest.mark.parametrize("code, lbo, sbo", K_MAJOR)
@pytest.mark.parametrize("element, rows, k, skip", [
    ("bf16", 128, 16, 0), ("bf16", 64, 16, 8), ("e4m3", 256, 32, 0), ("tf32", 128, 8, 0)])
def test_chunks_of_a_k_major_operand_gather_its_bytes(code, lbo, sbo, element, rows, k,
                                                      skip):
    smem = RNG.integers(0, 256, 64 * 1024, dtype=np.uint8)
    shared = {}
    for start in (2048, 2048 + 32, 4096 + 96, 8192 + 16, 3 * 1024 + 1008):
        desc = smem_descriptor(start, lbo, sbo, code)
        addresses, _ = tc_mma._operand(desc, rows, k, element, False, shared, skip=skip)
        chunks = tc_mma._operand_chunks(shared, desc, rows, k, element, False, skip)
        assert chunks is not None           # the chunk copy is what runs
        index, offset, highest = chunks
        # the chunks are the addresses' (each 16 bytes of a row one aligned chunk), from
        # the general computation of the addresses
        general = td.operand_addresses(desc, rows + skip, k, element, False)[skip:]
        np.testing.assert_array_equal(
            ((index + offset)[:, :, None] * 16 + np.arange(16)).reshape(general.shape),
            general)
        assert index.min() >= 0 and highest == index.max()
        assert same_bits(dp.gather_bytes(smem, addresses, chunks), smem[general])


def test_an_mn_major_operand_has_no_chunks():
    # MN-major: consecutive bytes of a row are different K elements, 16n bytes apart
    shared = {}
    desc = smem_descriptor(4096 + 96, 2048, 512, 4)
    addresses, _ = tc_mma._operand(desc, 128, 16, "bf16", True, shared)
    assert tc_mma._operand_chunks(shared, desc, 128, 16, "bf16", True) is None
    smem = RNG.integers(0, 256, 64 * 1024, dtype=np.uint8)
    assert same_bits(dp.gather_bytes(smem, addresses, None), smem[addresses])


def test_no_kept_pattern_no_chunks():
    desc = smem_descriptor(2048, 16, 1024, 2)
    assert tc_mma._operand_chunks(None, desc, 128, 16, "bf16", False) is None
    assert tc_mma._operand_chunks({}, desc, 128, 16, "bf16", False) is None


def test_a_start_off_the_16_byte_grid_has_no_chunks():
    # Table 40 cannot encode it (the start is in units of 16 bytes), but a descriptor made
    # by hand can: unswizzled, its addresses are the pattern plus the whole start, which
    # then does not move whole chunks
    import dataclasses
    desc = dataclasses.replace(smem_descriptor(4096, 2048, 128, 0), start=4096 + 8)
    shared = {}
    addresses, _ = tc_mma._operand(desc, 128, 16, "bf16", False, shared)
    assert tc_mma._operand_chunks(shared, desc, 128, 16, "bf16", False) is None
    np.testing.assert_array_equal(addresses,
                                  td.operand_addresses(desc, 128, 16, "bf16", False))


def chunked_operand(smem_bytes=64 * 1024):
    shared = {}
    desc = smem_descriptor(4096 + 32, 16, 1024, 2)
    addresses, _ = tc_mma._operand(desc, 128, 16, "bf16", False, shared)
    return addresses, tc_mma._operand_chunks(shared, desc, 128, 16, "bf16", False)


def test_chunks_that_do_not_fit_the_memory_take_the_byte_gather():
    addresses, chunks = chunked_operand()
    smem = RNG.integers(0, 256, 128 * 1024, dtype=np.uint16)   # bytes held as uint16
    assert same_bits(dp.gather_bytes(smem, addresses, chunks), smem[addresses])
    strided = RNG.integers(0, 256, 128 * 1024, dtype=np.uint8)[::2]   # not contiguous
    assert same_bits(dp.gather_bytes(strided, addresses, chunks), strided[addresses])
    # chunks of other addresses (another shape): the addresses' own bytes
    fewer = addresses[:64]
    smem = RNG.integers(0, 256, 64 * 1024, dtype=np.uint8)
    assert same_bits(dp.gather_bytes(smem, fewer, chunks), smem[fewer])
    # the same chunks written with a negative offset (a slice would count it from the end)
    index, offset, highest = chunks
    shifted = (index + offset + 1, -1, highest + offset + 1)
    assert same_bits(dp.gather_bytes(smem, addresses, shifted), smem[addresses])


def test_chunks_past_the_memory_fail_as_the_byte_gather():
    addresses, chunks = chunked_operand()
    small = np.zeros(int(addresses.max()), np.uint8)    # its last byte is outside
    with pytest.raises(IndexError) as general:
        small[addresses]
    with pytest.raises(IndexError) as mine:
        dp.gather_bytes(small, addresses, chunks)
    assert str(mine.value) == str(general.value)


# -- accumulating an f32 D block in place -----------------------------------------------------

def info(d_type="f32"):
    return SimpleNamespace(d_type=d_type, saturate=False)


def special_products(rows, n):
    """float64 products with the awkward cases: NaNs with payloads, infinities, signed
    zeros, values past float32's range and below its subnormals, halfway cases."""
    product = RNG.standard_normal((rows, n)) * 2.0 ** RNG.integers(-160, 140, (rows, n))
    specials = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 3.4e38 * 1.0000001, 1e-46,
                         1.0 + 2.0 ** -24, 1.0 + 3 * 2.0 ** -24,
                         np.float64(np.uint64(0x7FF4000000000123).view(np.float64))])
    product.reshape(-1)[:specials.size * 7] = np.tile(specials, 7)
    return product


def tmem_with_old_values():
    """Random words (NaNs with payloads, signalling ones too), and special ones."""
    tmem = RNG.integers(0, 2**32, (128, 512), dtype=np.uint64).astype(np.uint32)
    tmem[0, :8] = [0x7FC00001, 0x7F800001, 0xFF800000, 0x80000000, 0x00000001, 0x7F7FFFFF,
                   0x3F800000, 0xFFFFFFFF]
    return tmem


def cells(lanes: slice, cols: slice):
    """The cells of a block as index arrays (which the fast path does not take)."""
    lane = np.arange(lanes.start, lanes.stop).reshape(-1, 1)
    col = np.arange(cols.start, cols.stop).reshape(1, -1)
    return np.broadcast_to(lane, (lane.size, col.size)), np.broadcast_to(col, (lane.size,
                                                                               col.size))


@pytest.mark.parametrize("enable_input_d", [False, True])
@pytest.mark.parametrize("scale_input_d", [0, 1, 15])
def test_an_f32_block_accumulates_in_place_as_the_general_code(enable_input_d,
                                                               scale_input_d):
    block = (slice(0, 128), slice(64, 320))
    product = special_products(128, 256)
    fast = CtaMemory(0, np.zeros(16, np.uint8), tmem_with_old_values())
    general = CtaMemory(0, fast.smem, fast.tmem.copy())
    with np.errstate(all="ignore"):
        assert dp._accumulate_f32_block(fast.tmem.copy(), *block, product.copy(),
                                        enable_input_d, scale_input_d)   # it runs
        dp._accumulate(fast, *block, product.copy(), info(), enable_input_d,
                       scale_input_d, None)
        dp._accumulate(general, *cells(*block), product.copy(), info(), enable_input_d,
                       scale_input_d, None)
    assert same_bits(fast.tmem, general.tmem)


def test_an_f32_accumulation_by_hand():
    # IEEE 754 binary32: 1.5 = 0x3FC00000, 2.25 + 1.5 = 3.75 = 0x40700000; with
    # scale-input-d 1: 2.25 + 1.5 / 2 = 3.0 = 0x40400000
    for scale, want in ((0, 0x40700000), (1, 0x40400000)):
        cta = CtaMemory(0, np.zeros(16, np.uint8))
        cta.tmem[:, :] = 0x3FC00000
        dp._accumulate(cta, slice(0, 128), slice(0, 4), np.full((128, 4), 2.25), info(),
                       True, scale, None)
        assert (cta.tmem[:, :4] == want).all() and (cta.tmem[:, 4:] == 0x3FC00000).all()


def test_what_the_block_path_does_not_take_is_the_general_codes():
    block = (slice(0, 64), slice(0, 32))
    product = special_products(64, 32)
    keep = np.arange(64).reshape(64, 1) % 3 == 0
    for d_type, keep_lanes in (("f16", None), ("f32", keep)):
        fast = CtaMemory(0, np.zeros(16, np.uint8), tmem_with_old_values())
        general = CtaMemory(0, fast.smem, fast.tmem.copy())
        with np.errstate(all="ignore"):
            dp._accumulate(fast, *block, product, info(d_type), True, 0, keep_lanes)
            dp._accumulate(general, *cells(*block), product, info(d_type), True, 0,
                           keep_lanes)
        assert same_bits(fast.tmem, general.tmem), d_type
    # D's cells as index arrays: not a view of tensor memory, so not done in place
    assert not dp._accumulate_f32_block(np.zeros((128, 512), np.uint32), *cells(*block),
                                        product, True, 0)


# -- whole MMAs: the run's cache (chunks) against one built alone (the byte gather) --------

def idesc(m, n, a_type=1, b_type=1):
    """Table 42 by hand: D f32 (bits 4-5 = 1), A / B type (bits 7-9, 10-12: BF16 = 1
    for .kind::f16), N >> 3 at bits 17-22, M >> 4 at bits 24-28."""
    return 1 << 4 | a_type << 7 | b_type << 10 | (n >> 3) << 17 | (m >> 4) << 24


def sd(start, code=2, lbo=16, sbo=1024):
    return ((start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (1 << 46)
            | (code << 61))


MMAS = {
    # name: (opcode, cluster, [(d-tmem, A, B, idesc, enable-input-d), ...])
    "bf16, 128B ring stages, K steps": ("tcgen05.mma.cta_group::1.kind::f16", 1, [
        (Address(0), sd(2048 + 16384 * s + 32 * j), sd(51200 + 8192 * s + 32 * j),
         idesc(128, 64), j > 0) for s in range(2) for j in range(4)]),
    "f16, 64B": ("tcgen05.mma.cta_group::1.kind::f16", 1, [
        (Address(64), sd(1024 + 32 * j, 4, 16, 512), sd(40960 + 32 * j, 4, 16, 512),
         idesc(128, 32, 0, 0), True) for j in range(3)]),
    "e4m3, 32B": ("tcgen05.mma.cta_group::1.kind::f8f6f4", 1, [
        (Address(128), sd(2048 + 32 * j, 6, 16, 256), sd(32768 + 32 * j, 6, 16, 256),
         idesc(128, 48, 0, 0), bool(j)) for j in range(2)]),
    "a CTA pair, M = 256": ("tcgen05.mma.cta_group::2.kind::f16", 2, [
        (Address(0), sd(3072 + 32 * j), sd(3072 + 32 * j), idesc(256, 64), True)
        for j in range(2)]),
}


@pytest.mark.parametrize("name", list(MMAS))
def test_mmas_performed_by_chunks_are_those_performed_byte_by_byte(name):
    opcode, cluster, issues = MMAS[name]
    # bytes of finite values (no exponent of all ones for f16 / bf16 / E4M3's S.1111.111)
    smem = [(RNG.integers(0, 256, 96 * 1024) & 0x3F).astype(np.uint8) for _ in range(cluster)]
    tmem = RNG.integers(0x3E000000, 0x41000000, (cluster, 128, 512)).astype(np.uint32)
    mine = [CtaMemory(r, smem[r].copy(), tmem[r].copy()) for r in range(cluster)]
    alone = [CtaMemory(r, smem[r].copy(), tmem[r].copy()) for r in range(cluster)]
    cache = {}
    for operands in issues:
        op = tc.issue_async(opcode, list(operands), 0, cluster, cache=cache)
        general = tc.issue_async(opcode, list(operands), 0, cluster, cache=None)
        op.perform(mine)
        general.perform(alone)
        for a, b in zip(mine, alone):
            assert same_bits(a.tmem, b.tmem)
    # the chunk copy ran: the cache kept the operands' chunks
    assert any(tc_mma._CHUNKS in parts for parts in cache.values()
               if isinstance(parts, dict))


# -- reads of TMEM inside a block an MMA wrote whole ------------------------------------------

def tmem_mask(lanes: slice, cols: slice, hole=None) -> np.ndarray:
    mask = np.zeros((128, 512), bool)
    mask[lanes, cols] = True
    if hole is not None:
        mask[hole] = False
    return mask


def unwritten_reads(keep_boxes: bool, writes, reads, monkeypatch) -> dict:
    """The ordering model's unwritten-read report (``unwritten_reads``) after performing
    ops that write the masks ``writes`` and then ops that read the masks ``reads``
    (lines 100, 101, ...); ``keep_boxes`` False: no written box is kept, so every read
    takes the general test (``tmem_written`` under its box)."""
    from tcgen05_lower.sim import ordering_tensor
    from tcgen05_lower.sim.ordering import OrderingModel
    from tcgen05_lower.sim.ordering_records import InFlight
    from tcgen05_lower.sim.state import Footprint

    monkeypatch.setattr(ordering_tensor, "_WRITTEN_BOXES", 8 if keep_boxes else 0)
    model = OrderingModel([CtaMemory(0, np.zeros(64, np.uint8))], 128, "late")
    ops = [("mma", Footprint(tmem_writes={0: mask})) for mask in writes] + \
        [("ld", Footprint(tmem_reads={0: mask})) for mask in reads]
    for line, (kind, fp) in enumerate(ops, 100):
        op = SimpleNamespace(kind=kind, footprint=fp, perform=lambda ctas: None)
        model._perform(InFlight(op, kind, 0, 0, -1, 1, line))
    known = model._written_known()
    assert bool(known.get(("boxes", 0))) == keep_boxes   # the fast path is what runs
    return model.unwritten_reads


def test_reads_inside_a_whole_written_block_are_found_as_by_the_general_test(monkeypatch):
    d_block = tmem_mask(slice(0, 128), slice(0, 256))              # an MMA's D
    with_hole = tmem_mask(slice(0, 128), slice(320, 384), hole=(5, 330))
    reads = [tmem_mask(slice(32, 64), slice(32, 64)),           # inside D: written
             tmem_mask(slice(0, 32), slice(240, 272)),          # past D's columns
             tmem_mask(slice(0, 32), slice(320, 352)),          # in the block with a hole
             tmem_mask(slice(0, 32), slice(400, 432))]          # never written
    fast = unwritten_reads(True, [d_block, with_hole], reads, monkeypatch)
    general = unwritten_reads(False, [d_block, with_hole], reads, monkeypatch)
    assert fast.keys() == general.keys()
    for key in general:
        np.testing.assert_array_equal(fast[key], general[key])
    # by hand (writes at lines 100, 101, reads from 102): the read inside D misses
    # nothing; the one past D's columns misses columns 256-271 of lanes 0-31; the one in
    # the block with a hole misses the hole; the last misses all its 32 x 32 cells
    assert {line: int(mask.sum()) for (line, _, _), mask in general.items()} == \
        {103: 32 * 16, 104: 1, 105: 32 * 32}
