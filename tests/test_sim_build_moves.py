"""The in-run builds of tensor ops that move a part the run already made instead of
making it again, against the general code they stand for, on the same input:

- a tcgen05.ld / st whose cells are a block, built from its form's slices
  (tensor_core._built_block: its mask a window of one sheet per block size,
  tensor_core._block_mask; its summary from the block's bounds,
  tmem_index.summary_of_one_block) against the build from the cells
  (tensor_core._built_cells with no cache: _ldst_cells, the mask set by them, the
  summary of the 128 x 512 mask);
- the lean ld's register shape from a block's slices (ldst_lean._shape) against the
  shape of the cells read;
- an MMA's D at another column moved from the first of its shape and lane
  (mma_moves._d_moved), and Layouts D / A from their corner (mma_moves._d_block),
  against d_cells, tmem_block and _mask;
- an operand pattern of fewer rows as the first rows of a wider one
  (mma_moves._prefix_pattern), its unique addresses from its chunks
  (mma_moves._pattern_unique) against operand_addresses, unique_addresses,
  chunk_rows and chunk_form;
- an MMA's reads' chunk form moved from the operands' (mma_moves._reads_chunk_form)
  against chunk_form of the reads.

Expected values are the general code's (differential tests); every guard that sends
something unusual to the general code has a case here that goes wrong without it."""

from __future__ import annotations

import numpy as np
import pytest

from tcgen05_lower.sim import ldst_lean, mma_moves, tc_mma
from tcgen05_lower.sim import tc_descriptors as td
from tcgen05_lower.sim import tensor_core
from tcgen05_lower.sim.smem_chunks import chunk_form
from tcgen05_lower.sim.state import CtaMemory, Footprint, SimError, unique_addresses
from tcgen05_lower.sim.tc_datapath import _mask, d_cells, tmem_block
from tcgen05_lower.sim.tmem_index import (TmemSummary, summary_of_one_block,
                                          tmem_summary)

from test_sim_build_fast_paths import assert_same_summary, block_mask


def same_at(got, want) -> None:
    """Two cell forms (``tmem_block``'s: slices, or index arrays) are the same."""
    assert isinstance(got[0], slice) == isinstance(want[0], slice)
    if isinstance(want[0], slice):
        assert got == want
    else:
        for mine, theirs in zip(got, want):
            np.testing.assert_array_equal(mine, theirs)


# -- tcgen05.ld / st of a block ---------------------------------------------------------------

LDST = [(f"tcgen05.{kind}.sync.aligned.{shape}.x{num}{pack}.b32", imm)
        for kind, pack in (("ld", ""), ("ld", ".pack::16b"), ("st", ""), ("st", ".unpack::16b"))
        for shape, imm in (("32x32b", None), ("16x64b", None), ("16x256b", None),
                           ("16x32bx2", 8))
        for num in (1, 32)]

#: (taddr, warp, rank): every lane quarter, columns at both ends, the pair's second CTA,
#: a lane outside the warp's quarter and a column past 511 (SimErrors).
ADDRESSES = [(0, 4, 0), (32 << 16 | 96, 5, 0), (64 << 16 | 256, 6, 1), (96 << 16 | 480, 7, 0),
             (96 << 16 | 511, 3, 0), (0, 1, 0), (32 << 16 | 500, 1, 1), (0 << 16 | 7, 0, 2)]


@pytest.mark.parametrize("opcode, imm", LDST)
def test_an_ld_or_st_built_from_its_form_is_the_build_from_its_cells(opcode, imm):
    kind = "ld" if ".ld." in opcode else "st"
    build = tensor_core.built_load if kind == "ld" else tensor_core.built_store
    for taddr, warp, rank in ADDRESSES:
        try:
            want = tensor_core._built_cells(kind, opcode, taddr, warp, rank, imm, None)
        except SimError as err:
            with pytest.raises(SimError) as mine:
                build(opcode, taddr, warp, rank, imm, {})
            assert str(mine.value) == str(err)
            continue
        cache = {}
        got = build(opcode, taddr, warp, rank, imm, cache)
        same_at(got[0], want[0])
        assert got[1] == want[1]
        masks = got[2].tmem_reads if kind == "ld" else got[2].tmem_writes
        theirs = want[2].tmem_reads if kind == "ld" else want[2].tmem_writes
        assert masks.keys() == theirs.keys() == {rank}
        assert not (got[2].tmem_reads if kind == "st" else got[2].tmem_writes)
        np.testing.assert_array_equal(masks[rank], theirs[rank])
        assert masks[rank].shape == (128, 512) and masks[rank].dtype == bool
        assert not masks[rank].flags.writeable
        general = TmemSummary(Footprint(tmem_reads=dict(got[2].tmem_reads),
                                        tmem_writes=dict(got[2].tmem_writes)))
        assert_same_summary(tmem_summary(got[2]), general)
        # only the forms whose cells are a block take the fast path
        form = tensor_core._kept_form(opcode, imm, cache)
        fast = tensor_core._built_block(kind, opcode, taddr, warp, rank, imm, cache)
        assert (fast is not None) == form.block
        assert form.block == ("32x32b" in opcode and "pack" not in opcode)


def test_a_rank_not_an_int_takes_the_build_from_the_cells():
    # a rank of another type (np.int64, bool) or sign: _built_block leaves it to the
    # general code (whose summary rules for such ranks differ: TmemSummary's _regular)
    opcode = "tcgen05.ld.sync.aligned.32x32b.x32.b32"
    for rank in (np.int64(1), True, -1):
        assert tensor_core._built_block("ld", opcode, 0, 4, rank, None, {}) is None
        got = tensor_core.built_load(opcode, 0, 4, rank, None, {})
        want = tensor_core._built_cells("ld", opcode, 0, 4, rank, None, None)
        same_at(got[0], want[0])
        np.testing.assert_array_equal(got[2].tmem_reads[rank], want[2].tmem_reads[rank])
        assert_same_summary(tmem_summary(got[2]),
                            TmemSummary(Footprint(tmem_reads=dict(got[2].tmem_reads))))


def test_no_cache_takes_the_build_from_the_cells():
    opcode = "tcgen05.ld.sync.aligned.32x32b.x32.b32"
    assert tensor_core._built_block("ld", opcode, 0, 4, 0, None, None) is None


BLOCKS = [(slice(0, 32), slice(0, 32)), (slice(96, 128), slice(480, 512)),
          (slice(0, 128), slice(0, 512)), (slice(5, 6), slice(511, 512)),
          (slice(64, 96), slice(63, 65)), (slice(17, 100), slice(127, 300)),
          (slice(0, 1), slice(0, 1)), (slice(127, 128), slice(0, 512))]


def test_a_block_mask_is_a_window_of_one_sheet_with_the_block_alone():
    # the window of the sheet against a mask set by the block's slices: at TMEM's
    # corners and edges, one cell, all of TMEM; the windows of one size share a sheet
    cache = {}
    for at in BLOCKS:
        mask = tensor_core._block_mask(at, cache)
        np.testing.assert_array_equal(mask, block_mask(at))
        assert mask.shape == (128, 512) and mask.dtype == bool and not mask.flags.writeable
    first = tensor_core._block_mask((slice(0, 32), slice(0, 32)), cache)
    second = tensor_core._block_mask((slice(96, 128), slice(480, 512)), cache)
    assert first.base is second.base


@pytest.mark.parametrize("at", BLOCKS)
@pytest.mark.parametrize("writes", [False, True])
def test_a_summary_of_one_block_is_the_masks_own(at, writes):
    for rank in (0, 1, 3):
        mask = block_mask(at)
        fp = Footprint(tmem_writes={rank: mask}) if writes else Footprint(
            tmem_reads={rank: mask})
        summary_of_one_block(fp, rank, mask, at, writes)
        general = TmemSummary(Footprint(tmem_reads=dict(fp.tmem_reads),
                                        tmem_writes=dict(fp.tmem_writes)))
        assert_same_summary(tmem_summary(fp), general)


def test_a_summary_of_slices_that_are_not_a_block_is_the_masks_own():
    # a column slice of step 2 (MaskSummary.of_block would take every column of its run), and
    # one past TMEM's columns: the summary of the footprint's mask (the general code)
    for at in ((slice(32, 64), slice(8, 40, 2)), (slice(0, 32), slice(500, 520))):
        mask = block_mask(at)
        fp = Footprint(tmem_reads={0: mask})
        summary_of_one_block(fp, 0, mask, at, False)
        assert_same_summary(tmem_summary(fp), TmemSummary(Footprint(tmem_reads={0: mask})))


def test_the_lean_lds_register_shape_is_that_of_the_cells_read():
    # ldst_lean._shape from a block's slices against the cells loaded_cells reads, and
    # for what it leaves to loaded_cells: cells as arrays, packed cells, a slice of
    # another step or past TMEM (where indexing clips)
    class Machine:
        ctas = [CtaMemory(0, np.zeros(16, np.uint8))]
        tc = tensor_core
    m = Machine()
    tmem = m.ctas[0].tmem
    lanes, cols = np.mgrid[0:32, 0:8]
    cases = [(at, False) for at in BLOCKS] + [
        ((lanes, cols), False), ((np.stack([lanes] * 2, -1), np.stack([cols, cols + 1], -1)),
                                 True),
        ((slice(0, 32), slice(0, 64, 2)), False), ((slice(0, 32), slice(500, 540)), False),
        ((slice(120, 150), slice(0, 32)), False)]
    for at, packed in cases:
        assert ldst_lean._shape(m, 0, at, packed) == \
            tensor_core.loaded_cells(tmem, at, packed).shape


# -- an MMA's D -------------------------------------------------------------------------------

D_SHAPES = [(128, 256, 1, False), (128, 64, 1, True), (64, 128, 1, False), (64, 64, 1, True),
            (32, 128, 1, True), (256, 256, 2, False), (128, 128, 2, False)]


def d_general(m, n, cta_group, ws, taddr):
    lanes, cols, rows = d_cells(m, n, cta_group, ws, taddr)
    return lanes, cols, rows, _mask(lanes, cols), tmem_block(lanes, cols)


@pytest.mark.parametrize("m, n, cta_group, ws", D_SHAPES)
def test_an_mmas_d_moved_or_from_its_corner_is_d_cells(m, n, cta_group, ws):
    # one run's shared parts: the first D of a lane made, the others moved from it, in
    # an order that moves it left and right and past column 511 (d_cells' SimError),
    # at lane 0 and, where the layout allows it, at lane 16 or 1 (Layout D / A: past
    # lane 127, d_cells' SimError)
    shared = {}
    for lane in (0, 16, 1):
        for column in (256, 0, 32, 384, 511, 8):
            taddr = lane << 16 | column
            try:
                want = d_general(m, n, cta_group, ws, taddr)
            except SimError as err:
                with pytest.raises(SimError) as mine:
                    tc_mma._d_part(m, n, cta_group, ws, taddr, shared)
                assert str(mine.value) == str(err)
                continue
            got = tc_mma._d_part(m, n, cta_group, ws, taddr, shared)
            for mine, theirs in zip(got[:2], want[:2]):
                np.testing.assert_array_equal(mine, theirs)
                assert mine.shape == theirs.shape and mine.dtype == theirs.dtype
            assert got[2] == want[2]
            np.testing.assert_array_equal(got[3], want[3])
            assert not got[3].flags.writeable
            same_at(got[4], want[4])


def test_only_layouts_d_and_a_come_from_their_corner():
    for m, n, cta_group, ws in D_SHAPES:
        block = mma_moves._d_block(m, n, cta_group, 32)
        assert (block is not None) == (m == 128 and cta_group == 1 or m == 256)
    # past tensor memory: d_cells says so
    assert mma_moves._d_block(128, 256, 1, 1 << 16) is None
    assert mma_moves._d_block(128, 256, 1, 300) is None


# -- operand patterns and the reads' chunk form -----------------------------------------------

def descriptor(start, swizzle, lbo=256, sbo=1024):
    codes = {"none": 0, "32B": 6, "64B": 4, "128B": 2}
    return td.decode_smem_descriptor((start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32)
                                     | (1 << 46) | (codes[swizzle] << 61))


#: (swizzle, element, K, MN-major) of the operands: K-major of every swizzle, MN-major
#: 16-bit ones (whose rows are not whole chunks for some layouts).
LAYOUTS = [("128B", "bf16", 16, False), ("64B", "bf16", 16, False), ("32B", "e4m3", 32, False),
           ("none", "bf16", 16, False), ("128B", "bf16", 16, True), ("none", "f16", 16, True),
           ("32B", "f16", 16, True)]


@pytest.mark.parametrize("swizzle, element, k, mn_major", LAYOUTS)
def test_a_pattern_of_fewer_rows_is_the_general_pattern(swizzle, element, k, mn_major):
    # a run's operands at several starts and phases, the widest first and after: each
    # pattern, its unique addresses and chunks against the general computation
    shared = {}
    for rows, start in ((256, 3 * 1024 + 32), (128, 5 * 1024 + 32), (64, 1024 + 32),
                        (128, 2 * 1024), (256, 7 * 1024), (8, 32)):
        desc = descriptor(start, swizzle)
        got, (unique, shift) = tc_mma._operand(desc, rows, k, element, mn_major, shared)
        want = td.operand_addresses(desc, rows, k, element, mn_major)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(unique + shift, unique_addresses(want))
        assert unique.dtype == np.int64
        phase = td.pattern_phase(desc)
        key = tc_mma._operand_key(desc, phase, rows, 0, k, element, mn_major)
        pattern = shared[key][0]
        kept = shared[mma_moves._CHUNKS][key][1]
        direct = mma_moves._pattern_chunks(np.array(pattern))
        assert (kept is None) == (direct is None)
        if direct is not None:
            np.testing.assert_array_equal(kept[0], direct[0])
            assert kept[1] == direct[1]
        form = mma_moves._unique_form(shared, unique)
        general = chunk_form(np.array(unique))
        assert (form is None) == (general is None)
        if general is not None:
            np.testing.assert_array_equal(form.index, general.index)
            assert form.index.dtype == general.index.dtype
            assert (form.span, form.low, form.high) == (general.span, general.low,
                                                        general.high)


def test_a_pattern_is_a_prefix_only_of_a_wider_one():
    # no kept pattern of the layout, or only a narrower one: the general computation
    shared = {}
    key = tc_mma._operand_key(descriptor(0, "128B"), 0, 128, 0, 16, "bf16", False)
    assert mma_moves._prefix_pattern(shared, key) == (None, None)
    tc_mma._operand(descriptor(0, "128B"), 64, 16, "bf16", False, shared)
    assert mma_moves._prefix_pattern(shared, key) == (None, None)
    tc_mma._operand(descriptor(0, "128B"), 256, 16, "bf16", False, shared)
    pattern, _ = mma_moves._prefix_pattern(shared, key)
    np.testing.assert_array_equal(pattern, td.operand_addresses(descriptor(0, "128B"), 128,
                                                                16, "bf16", False))


def reads_cases():
    """(b_addresses, b_unique, a_addresses, a_unique, shared) as _build_mma gives
    _smem_reads: A above B, below B, overlapping B, in tensor memory, and operands
    without kept patterns (unique None)."""
    for b_start, a_start, swizzle, mn_major in (
            (32 * 1024, 0, "128B", False), (0, 64 * 1024 + 32, "128B", False),
            (1024, 1024 + 64, "128B", False), (4096, None, "64B", False),
            (0, 16 * 1024, "none", True), (8192, 0, "32B", True)):
        shared = {}
        b = tc_mma._operand(descriptor(b_start, swizzle), 256, 16, "bf16", mn_major, shared)
        a = (None, None) if a_start is None else tc_mma._operand(
            descriptor(a_start, swizzle), 128, 16, "bf16", mn_major, shared)
        yield (*b, *a, shared)
    b = td.operand_addresses(descriptor(0, "128B"), 256, 16, "bf16", False)
    yield b, None, None, None, {}


@pytest.mark.parametrize("case", list(reads_cases()))
def test_the_reads_chunk_form_moved_is_chunk_form(case):
    b_addresses, b_unique, a_addresses, a_unique, shared = case
    reads = tc_mma._smem_reads(b_addresses, b_unique, a_addresses, a_unique)
    got = mma_moves._reads_chunk_form(shared, reads, b_unique, a_addresses, a_unique)
    want = chunk_form(reads)
    assert (got is None) == (want is None)
    if want is not None:
        np.testing.assert_array_equal(got.index, want.index)
        assert got.index.dtype == want.index.dtype
        assert (got.span, got.low, got.high) == (want.span, want.low, want.high)


def test_overlapping_operands_take_chunk_form():
    # B and A reading the same bytes: _smem_reads takes their addresses, and so must the
    # form (without the overlap test, the form would count the shared chunks twice)
    shared = {}
    b = tc_mma._operand(descriptor(0, "128B"), 128, 16, "bf16", False, shared)
    a = tc_mma._operand(descriptor(0, "128B"), 128, 16, "bf16", False, shared)
    reads = tc_mma._smem_reads(*b, *a)
    got = mma_moves._reads_chunk_form(shared, reads, b[1], a[0], a[1])
    want = chunk_form(reads)
    np.testing.assert_array_equal(got.index, want.index)
    assert got.index.size == reads.size // 16


def test_reads_moved_by_a_part_of_a_chunk_or_below_zero_take_chunk_form():
    # a shift that is not a multiple of 16 bytes (the reads are then not whole chunks)
    # or that moves them below address 0: chunk_form's None, not a moved form (neither
    # comes from a descriptor, whose starts are 16-byte aligned and past their phase)
    shared = {}
    _, (unique, _) = tc_mma._operand(descriptor(0, "128B"), 256, 16, "bf16", False, shared)
    for shift in (8, -16 * 1024 * 1024):
        reads = tc_mma._smem_reads(None, (unique, shift), None, None)
        assert chunk_form(reads) is None
        assert mma_moves._reads_chunk_form(shared, reads, (unique, shift), None, None) is None
