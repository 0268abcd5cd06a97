"""The parts of an MMA a run builds once and shares (sim/tc_mma.py ``shared_parts``): an
operand's shared-memory addresses as a pattern per phase of its start in the swizzle's
repeating pattern plus the rest of the start (``tc_descriptors.pattern_phase``), the
unique addresses of both operands from the patterns', and D's cells and mask per shape
and address.

Expected values: a few addresses by hand from Table 40 / 41 (9.7.16.4.1), the canonical
K-major layouts (9.7.16.3.3) and the swizzles' Swizzle<B, 4, 3> (9.7.16.10.6: bits 4..
of the byte address XORed with bits 7..); everything else is differential: the shared
parts against the general computation (``operand_addresses``, ``unique_addresses``, an
MMA built without a cache) on the same input, which is what the fast path must equal.
Each differential test also shows that it fails when the guard it covers is removed."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tcgen05_lower.sim import tc_mma
from tcgen05_lower.sim import tc_descriptors as td
from tcgen05_lower.sim import tensor_core as tc
from tcgen05_lower.sim.state import (Address, CtaMemory, Footprint, SimError,
                                     unique_addresses)
from tcgen05_lower.sim.tmem_index import TmemSummary, tmem_summary

RNG = np.random.default_rng(37)
#: Table 40 bits 61-63 and Table 41's pattern boundary (none: no pattern; Table 40 keeps
#: the start 16-byte aligned).
SWIZZLES = {"none": (0, 16), "32B": (6, 256), "64B": (4, 512), "128B": (2, 1024)}


def smem_descriptor(start, lbo, sbo, swizzle_code, base_offset=0, absolute=False):
    """Table 40 by hand: 14-bit fields of byte values >> 4; bits 46-48 = 0b001."""
    return ((start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (1 << 46)
            | (base_offset << 49) | (int(absolute) << 52) | (swizzle_code << 61))


def descriptor(start, swizzle, lbo=256, sbo=1024, **fields):
    return td.decode_smem_descriptor(smem_descriptor(start, lbo, sbo, SWIZZLES[swizzle][0],
                                                     **fields))


def starts(swizzle):
    """Aligned starts (a multiple of the pattern) and starts at several phases in it."""
    repeat = SWIZZLES[swizzle][1]
    return [3 * repeat, 16 * repeat, 3 * repeat + 16, 3 * repeat + 32, 5 * repeat + 96,
            7 * repeat + 16 * (repeat // 32) + 48, 9 * repeat + repeat - 16]


@pytest.mark.parametrize("swizzle, start, phase", [
    ("128B", 4096, 0), ("128B", 4096 + 32, 32), ("128B", 3 * 1024 + 1008, 1008),
    ("64B", 512 * 7, 0), ("64B", 512 * 7 + 96, 96), ("32B", 256 * 5 + 16, 16),
    ("none", 4096 + 48, 0)])
def test_phase_is_the_start_within_table_41s_pattern(swizzle, start, phase):
    # Table 41: the pattern repeats at 1024-, 512-, 256-byte boundaries for 128B, 64B,
    # 32B swizzling; without a swizzle every start is a plain shift.
    assert td.pattern_phase(descriptor(start, swizzle)) == phase


@pytest.mark.parametrize("desc", [
    descriptor(4096, "none", base_offset=3),
    descriptor(4096, "128B", absolute=True),
    td.decode_smem_descriptor(smem_descriptor(4096, 16, 1024, 1))])   # 128B, 32B atoms
def test_unusual_forms_have_no_phase(desc):
    assert td.pattern_phase(desc) is None


@pytest.mark.parametrize("swizzle", list(SWIZZLES))
@pytest.mark.parametrize("element, mn_major, rows, k, skip", [
    ("bf16", False, 128, 16, 0), ("bf16", False, 64, 16, 8), ("e4m3", False, 256, 32, 0),
    ("tf32", False, 128, 8, 0), ("bf16", True, 128, 16, 0), ("e4m3", True, 64, 32, 16)])
def test_pattern_plus_start_is_the_general_computation(swizzle, element, mn_major, rows, k,
                                                       skip):
    parts = {}
    for start in starts(swizzle):   # the first is aligned: its pattern is made first
        desc = descriptor(start, swizzle)
        general = td.operand_addresses(desc, rows + skip, k, element, mn_major)[skip:]
        addresses, (unique, shift) = tc_mma._operand(desc, rows, k, element, mn_major, parts,
                                                     skip=skip)
        np.testing.assert_array_equal(addresses, general)
        np.testing.assert_array_equal(unique + shift, unique_addresses(general))
    phases = {key[4] for key in parts if key[0] == "operand"}
    assert len(phases) == len({s % SWIZZLES[swizzle][1] for s in starts(swizzle)})


@pytest.mark.parametrize("swizzle", ["32B", "64B", "128B"])
def test_the_phase_matters_a_pattern_from_start_0_is_wrong_when_misaligned(
        swizzle, monkeypatch):
    """The guard of the test above: with the phase taken as 0 (an aligned start assumed,
    the pattern of start 0 shifted by any start) a misaligned start's addresses come out
    wrong, so the differential test would fail."""
    desc = descriptor(starts(swizzle)[2], swizzle)
    general = td.operand_addresses(desc, 128, 16, "bf16", False)
    monkeypatch.setattr(tc_mma, "pattern_phase", lambda d: 0)
    addresses, _ = tc_mma._operand(desc, 128, 16, "bf16", False, {})
    assert not np.array_equal(addresses, general)


def test_swizzled_addresses_by_hand_through_the_pattern():
    parts = {}
    # 128B swizzle, K-major bf16, SBO 1024: row r at (r mod 8) * 128 from the start, then
    # bits 4-6 ^= bits 7-9 of the byte address (Swizzle<3, 4, 3>, 9.7.16.10.6).
    tc_mma._operand(descriptor(1024, "128B"), 16, 16, "bf16", False, parts)   # warm
    at_32, _ = tc_mma._operand(descriptor(1024 + 32, "128B"), 16, 16, "bf16", False, parts)
    # row 1, byte 0: 1056 + 128 = 1184 = 0b100_1010_0000; bits 7-9 = 1 -> bit 4: 1200
    assert at_32[1, 0] == 1200
    at_64, _ = tc_mma._operand(descriptor(2048 + 64, "128B"), 16, 16, "bf16", False, parts)
    # row 5, byte 16: 2112 + 640 + 16 = 2768 = 2048 + 0b10_1101_0000; bits 7-9 = 0b101
    # -> bits 4-6 ^= 0b101: 0b10_1000_0000 = 640: the 16-byte unit 5 of row 5 is unit 0
    assert at_64[5, 16] == 2048 + 640
    # 32B swizzle (Swizzle<1, 4, 3>: bit 7 -> bit 4), rows 32 bytes apart: start 272
    # (phase 16), row 4, byte 0: 272 + 128 = 400 = 0b1_1001_0000 -> bit 4 cleared: 384
    at_16, _ = tc_mma._operand(descriptor(256 + 16, "32B"), 8, 16, "bf16", False, parts)
    assert at_16[4, 0] == 384
    assert at_16[1, 0] == 272 + 32          # bit 7 clear: no XOR


def test_unusual_forms_take_the_general_computation():
    parts = {}
    desc = descriptor(4096 + 48, "none", base_offset=3)    # base offset ignored unswizzled
    addresses, unique = tc_mma._operand(desc, 64, 16, "bf16", False, parts)
    assert unique is None and not parts
    np.testing.assert_array_equal(addresses, td.operand_addresses(desc, 64, 16, "bf16",
                                                                   False))
    for desc, message in [(descriptor(4096, "128B", absolute=True), "absolute"),
                          (descriptor(4096 + 32, "128B", base_offset=1), "base offset"),
                          (td.decode_smem_descriptor(smem_descriptor(4096, 16, 1024, 1)),
                           "32-byte atomicity")]:
        with pytest.raises(SimError, match=message):
            td.operand_addresses(desc, 64, 16, "bf16", False)
        with pytest.raises(SimError, match=message):
            tc_mma._operand(desc, 64, 16, "bf16", False, parts)


def _both(a_start, b_start, swizzle="128B"):
    parts = {}
    a_desc, b_desc = descriptor(a_start, swizzle), descriptor(b_start, swizzle)
    a = tc_mma._operand(a_desc, 128, 16, "bf16", False, parts)
    b = tc_mma._operand(b_desc, 128, 16, "bf16", False, parts)
    return a, b


@pytest.mark.parametrize("a_start, b_start", [
    (2048, 2048 + 16384),          # disjoint, A below B
    (40960 + 32, 2048 + 64),       # disjoint, B below A
    (2048, 2048 + 32),             # the same rows, K 32 bytes on: overlapping ranges
    (2048, 2048),                  # one buffer for both
    (4096, 4096 + 8192)])          # SBO 1024 x 16 groups: B starts inside A's range
def test_unique_of_both_operands_is_unique_addresses_of_both(a_start, b_start):
    (a, a_unique), (b, b_unique) = _both(a_start, b_start)
    want = unique_addresses(np.concatenate([b.reshape(-1), a.reshape(-1)]))
    np.testing.assert_array_equal(tc_mma._smem_reads(b, b_unique, a, a_unique), want)
    np.testing.assert_array_equal(tc_mma._smem_reads(b, b_unique, None, None),
                                  unique_addresses(b))


def test_overlapping_operands_need_the_general_union():
    """The guard of the test above: joining the two unique sets without the range test
    gives duplicates (and an unsorted set) when the operands overlap."""
    (a, (au, ashift)), (b, (bu, bshift)) = _both(2048, 2048 + 32)
    joined = np.concatenate([au + ashift, bu + bshift])
    assert not np.array_equal(joined, unique_addresses(np.concatenate([a, b]).reshape(-1)))


# -- whole MMAs: built with the run's parts and without -------------------------------------

def idesc(m, n, transpose_a=False, transpose_b=False):
    """Table 42: F32 D (bits 4-5 = 1), BF16 A and B (bits 7-9, 10-12 = 1), transposes
    (bits 15, 16), N >> 3 at bits 17-22, M >> 4 at bits 24-28."""
    return (1 << 4 | 1 << 7 | 1 << 10 | int(transpose_a) << 15 | int(transpose_b) << 16
            | (n >> 3) << 17 | (m >> 4) << 24)


def memories(count):
    """CTAs whose shared memory holds bf16 values in [-1, 1] (so any byte pair an operand
    reads is a number) and whose TMEM words hold two of them (a number read as an f32
    D or as a packed A)."""
    ctas = []
    for rank in range(count):
        values = RNG.uniform(-1, 1, 96 * 1024).astype(ml_dtypes.bfloat16)
        cta = CtaMemory(rank, values.view(np.uint8).copy())
        cta.tmem[:] = RNG.uniform(-1, 1, (128, 1024)).astype(ml_dtypes.bfloat16).view(np.uint32)
        ctas.append(cta)
    return ctas


def built(opcode, operands, cluster, cache):
    return tc.issue_async(opcode, operands, 0, cluster, cache=cache)


MMAS = {
    # name: (opcode, cluster, [(d-tmem, A, B, idesc, enable-input-d), ...])
    "128B ring stages, K steps": ("tcgen05.mma.cta_group::1.kind::f16", 1, [
        (Address(0), smem_descriptor(2048 + 16384 * s + 32 * j, 16, 1024, 2),
         smem_descriptor(51200 + 8192 * s + 32 * j, 16, 1024, 2), idesc(128, 64), j > 0)
        for s in range(2) for j in range(4)]),
    "64B, transposed B, two accumulators": ("tcgen05.mma.cta_group::1.kind::f16", 1, [
        (Address(64 * t), smem_descriptor(1024 + 512 * j, 16, 512, 4),
         smem_descriptor(40960 + 96 + 1024 * j, 2048, 512, 4), idesc(128, 32, False, True),
         True) for t in range(2) for j in range(3)]),
    "A in tensor memory, layout F": ("tcgen05.mma.cta_group::1.kind::f16", 1, [
        (Address(16 << 16 | 8), Address(16 << 16 | 200), smem_descriptor(8192 + 32 * j, 16,
                                                                          256, 6),
         idesc(64, 16), bool(j)) for j in range(3)]),
    "a CTA pair, M = 256": ("tcgen05.mma.cta_group::2.kind::f16", 2, [
        (Address(0), smem_descriptor(3072 + 32 * j, 16, 1024, 2),
         smem_descriptor(3072 + 32 * j, 16, 1024, 2), idesc(256, 64), True)
        for j in range(2)]),
    "unswizzled, a base offset": ("tcgen05.mma.cta_group::1.kind::f16", 1, [
        (Address(32), smem_descriptor(4096 + 16 * j, 2048, 128, 0, base_offset=2),
         smem_descriptor(24576, 1024, 128, 0), idesc(128, 16), False) for j in range(2)]),
}


def assert_tmem_summary_of_the_masks(fp):
    """The TMEM summary (tmem_index.TmemSummary) a build gave its footprint, shared by
    the MMAs of one D mask, is the one a fresh footprint of copies of its masks makes."""
    fresh = Footprint(tmem_reads={r: m.copy() for r, m in fp.tmem_reads.items()},
                      tmem_writes={r: m.copy() for r, m in fp.tmem_writes.items()})
    mine, want = tmem_summary(fp), TmemSummary(fresh)
    assert (mine.general, mine.ranks, mine.has_writes, mine.has_reads) == \
        (want.general, want.ranks, want.has_writes, want.has_reads)
    for rank in want.ranks:
        np.testing.assert_array_equal(mine.words[rank], want.words[rank])
        np.testing.assert_array_equal(mine.columns[rank], want.columns[rank])
        assert mine.column_keys[rank] == want.column_keys[rank]
    for which in ("reads", "writes"):
        theirs = getattr(want, which)
        assert getattr(mine, which).keys() == theirs.keys()
        for rank, part in getattr(mine, which).items():
            assert part.mask is getattr(fp, "tmem_" + which)[rank]
            assert part.box == theirs[rank].box
            np.testing.assert_array_equal(part.words, theirs[rank].words)
            np.testing.assert_array_equal(part.block, theirs[rank].block)


@pytest.mark.parametrize("name", list(MMAS))
def test_mmas_built_with_shared_parts_are_those_built_alone(name):
    opcode, cluster, issues = MMAS[name]
    shared_ctas = memories(cluster)
    alone_ctas = [CtaMemory(c.rank, c.smem.copy(), c.tmem.copy()) for c in shared_ctas]
    cache = {}
    for operands in issues:
        mine = built(opcode, list(operands), cluster, cache)
        general = built(opcode, list(operands), cluster, None)
        fp, want = mine.footprint, general.footprint
        for which in ("tmem_reads", "tmem_writes", "smem_reads"):
            assert getattr(fp, which).keys() == getattr(want, which).keys(), which
            for rank, value in getattr(want, which).items():
                np.testing.assert_array_equal(getattr(fp, which)[rank], value)
                assert getattr(fp, which)[rank].dtype == value.dtype
        assert mine.accumulator == general.accumulator
        assert_tmem_summary_of_the_masks(fp)
        mine.perform(shared_ctas)
        general.perform(alone_ctas)
        for a, b in zip(shared_ctas, alone_ctas):
            np.testing.assert_array_equal(a.tmem, b.tmem)
    assert isinstance(cache.get(tc_mma._PARTS), dict)


def test_mmas_of_one_accumulator_share_a_read_only_d_mask():
    opcode, cluster, issues = MMAS["128B ring stages, K steps"]
    cache = {}
    ops = [built(opcode, list(operands), cluster, cache) for operands in issues]
    masks = {id(op.footprint.tmem_writes[0]) for op in ops}
    assert len(masks) == 1
    with pytest.raises(ValueError):
        ops[0].footprint.tmem_writes[0][0, 0] = False
    # one TMEM summary for all (tmem_index.shared_summary): the K steps' D reads too
    accumulating = [op for op, operands in zip(ops, issues) if operands[4]]
    assert len({id(tmem_summary(op.footprint)) for op in accumulating}) == 1
    assert len(accumulating) == 6 and len({id(op.footprint) for op in accumulating}) == 6
    patterns = [key for key in cache[tc_mma._PARTS] if key[0] == "operand"]
    # A (128 rows) and B (64 rows) at the 4 phases of the K steps inside a 128-byte row
    assert len(patterns) == 8


def test_the_parts_dict_stays_bounded():
    cache = {}
    parts = tc_mma.shared_parts(cache)
    for i in range(tc_mma._PARTS_SIZE):
        parts[i] = i
    assert tc_mma.shared_parts(cache) == {}
    assert tc_mma.shared_parts(None) is None


def test_a_start_past_the_pattern_is_shifted_not_rebuilt():
    parts = {}
    first, _ = tc_mma._operand(descriptor(1024 + 32, "128B"), 128, 16, "bf16", False, parts)
    again, _ = tc_mma._operand(descriptor(5 * 1024 + 32, "128B"), 128, 16, "bf16", False,
                               parts)
    # one pattern kept (the other entries are dicts of its chunks and forms)
    assert [key for key in parts if isinstance(key, tuple)] == [
        tc_mma._operand_key(descriptor(32, "128B"), 32, 128, 0, 16, "bf16", False)]
    np.testing.assert_array_equal(again, first + 4 * 1024)


# -- block-scaled MMAs (.kind::mxf8f6f4): the same, and cached per run like the others --------

#: Table 43: atype = btype = E4M3 (0), N >> 3 at bits 17-22, UE8M0 (bit 23 = 1), M >> 7
#: at bits 27-28, scale-factor IDs 0.
SCALED_IDESC = (64 >> 3) << 17 | 1 << 23 | (128 >> 7) << 27
SCALED = "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32"


def scaled_memory():
    """Shared memory of E4M3 bytes without the NaN code (S.1111.111: bytes & 0x77), TMEM
    words of four bytes in 120..126 (finite f32 D, UE8M0 2^-7 .. 2^-1), the scale
    columns alike in the four lane quarters (9.7.16.10.7 duplicates them; entry i of a
    scale vector at lane 32q + i mod 32, column i div 32 on, tmem-facts section 3): A's
    128 at columns 400-403, B's 64 at 404-405."""
    cta = CtaMemory(0, (RNG.integers(0, 256, 96 * 1024) & 0x77).astype(np.uint8))
    cta.tmem[:] = RNG.integers(120, 127, (128, 512 * 4)).astype(np.uint8).view(np.uint32)
    cta.tmem[32:, 400:406] = np.tile(cta.tmem[:32, 400:406], (3, 1))
    return cta


SCALED_ISSUES = {
    "128B ring stages, K steps": [
        (Address(0), smem_descriptor(2048 + 16384 * s + 32 * j, 16, 1024, 2),
         smem_descriptor(51200 + 8192 * s + 32 * j, 16, 1024, 2), SCALED_IDESC,
         Address(400), Address(404), j > 0) for s in range(2) for j in range(4)] * 2,
    "A in tensor memory": [
        (Address(64), Address(200 + 8 * j), smem_descriptor(4096 + 32 * j, 16, 1024, 2),
         SCALED_IDESC, Address(400), Address(404), bool(j)) for j in range(2)] * 2,
}


@pytest.mark.parametrize("name", list(SCALED_ISSUES))
def test_block_scaled_mmas_built_with_the_cache_are_those_built_alone(name):
    mine_cta = scaled_memory()
    alone_cta = CtaMemory(0, mine_cta.smem.copy(), mine_cta.tmem.copy())
    cache = {}
    ops = []
    for operands in SCALED_ISSUES[name]:
        mine = tc.issue_async(SCALED, list(operands), 0, 1, cache=cache)
        general = tc.issue_async(SCALED, list(operands), 0, 1, cache=None)
        for which in ("tmem_reads", "tmem_writes", "smem_reads"):
            assert getattr(mine.footprint, which).keys() == \
                getattr(general.footprint, which).keys()
            for rank, value in getattr(general.footprint, which).items():
                np.testing.assert_array_equal(getattr(mine.footprint, which)[rank], value)
                assert getattr(mine.footprint, which)[rank].dtype == value.dtype
        mine.perform([mine_cta])
        general.perform([alone_cta])
        np.testing.assert_array_equal(mine_cta.tmem, alone_cta.tmem)
        ops.append(mine)
    # each issue listed twice: the second is the first's build, in a record of its own
    half = len(ops) // 2
    assert all(a.footprint is b.footprint and a is not b
               for a, b in zip(ops[:half], ops[half:]))


# -- decoding operand bytes: a contiguous byte matrix viewed as little-endian words -------

@pytest.mark.parametrize("element", ["f16", "bf16", "tf32", "e4m3", "e5m2", "u8", "s8"])
def test_decoding_a_contiguous_matrix_is_decoding_byte_by_byte(element):
    raw = RNG.integers(0, 256, (16, 32), dtype=np.uint8)
    by_bytes = np.asfortranarray(raw)      # not C-contiguous: assembled byte by byte
    assert not by_bytes.flags.c_contiguous
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(td.decode_elements(raw, element),
                                      td.decode_elements(by_bytes, element))


def test_decoded_values_by_hand():
    # little-endian: bf16 0x3F80 = 1.0, f16 0x3C00 = 1.0, f16 0xC000 = -2.0 (IEEE 754
    # binary16), tf32 keeps the top 19 bits: 0x3F800FFF reads as 0x3F800000 = 1.0,
    # s8 0xFF = -1, u8 0xFF = 255, e4m3 0x38 = 2^(7 - 7) = 1.0
    row = np.array([[0x80, 0x3F]], np.uint8)
    assert td.decode_elements(row, "bf16").tolist() == [[1.0]]
    assert td.decode_elements(np.array([[0x00, 0x3C, 0x00, 0xC0]], np.uint8),
                              "f16").tolist() == [[1.0, -2.0]]
    assert td.decode_elements(np.array([[0xFF, 0x0F, 0x80, 0x3F]], np.uint8),
                              "tf32").tolist() == [[1.0]]
    assert td.decode_elements(np.array([[0xFF, 0x38]], np.uint8), "s8").tolist() == [[-1, 56]]
    assert td.decode_elements(np.array([[0xFF, 0x38]], np.uint8), "u8").tolist() == [[255, 56]]
    assert td.decode_elements(np.array([[0x38]], np.uint8), "e4m3").tolist() == [[1.0]]


def test_footprint_tmem_bits_by_hand_and_kept():
    mask = np.zeros((128, 512), bool)
    mask[2:4, 5] = True                     # lanes 2 and 3, column 5
    fp = Footprint(tmem_writes={0: mask})
    assert fp.tmem_bits("writes", 0) == (0b1100, 1 << 5)
    assert fp.tmem_bits("reads", 0) is None and fp.tmem_bits("writes", 1) is None
    mask[:] = False                         # kept: a footprint is complete when issued
    assert fp.tmem_bits("writes", 0) == (0b1100, 1 << 5)
    assert fp.tmem_bits("reads", 0) is None
