"""The fast paths of tcgen05-sim's in-run builds of tensor ops against the general code
they stand for, on the same input: a TMEM summary made from a block's bounds
(tmem_index.MaskSummary.of_block, TmemSummary.of_one, summary_of_block; a tcgen05.ld /
tcgen05.st footprint, tensor_core.built_load / built_store, and an MMA's D mask,
shared_summary's `block`) against the summary made from the 128 x 512 mask
(TmemSummary(fp), MaskSummary(mask): the general code), and an MMA's D mask set by
tmem_block's slices (tc_mma._d_part) against the mask set cell by cell
(tc_datapath._mask). Each guard that sends something unusual to the general code (cells
that are not a block, a slice of another step, a rank that is not an int >= 0, a
footprint of two masks) has a case that goes wrong without it."""

from __future__ import annotations

import numpy as np
import pytest

from tcgen05_lower.sim import tensor_core
from tcgen05_lower.sim.state import CtaMemory, Footprint
from tcgen05_lower.sim.tc_datapath import _mask, d_cells, tmem_block
from tcgen05_lower.sim.tmem_index import (MaskSummary, TmemSummary, shared_summary,
                                          summary_of_block, tmem_summary)


def assert_same_mask_summary(mine: MaskSummary, want: MaskSummary) -> None:
    assert mine.mask is want.mask and mine.box == want.box
    assert (mine.block is None) == (want.block is None)
    for name in ("words", "columns") + (() if want.block is None else ("block",)):
        np.testing.assert_array_equal(getattr(mine, name), getattr(want, name))
        assert getattr(mine, name).dtype == getattr(want, name).dtype


def assert_same_summary(mine: TmemSummary, want: TmemSummary) -> None:
    """Every field a caller reads, and the answers of pairs / bit_pairs."""
    assert mine.general == want.general
    if want.general:
        return
    assert mine.ranks == want.ranks
    assert (mine.has_writes, mine.has_reads) == (want.has_writes, want.has_reads)
    for name in ("reads", "writes"):
        assert getattr(mine, name).keys() == getattr(want, name).keys()
        for rank, part in getattr(want, name).items():
            assert_same_mask_summary(getattr(mine, name)[rank], part)
    for name in ("words", "columns"):
        assert getattr(mine, name).keys() == getattr(want, name).keys()
        for rank, value in getattr(want, name).items():
            np.testing.assert_array_equal(getattr(mine, name)[rank], value)
            assert getattr(mine, name)[rank].dtype == value.dtype
            assert getattr(mine, name)[rank].shape == value.shape
    assert mine.column_keys == want.column_keys and mine.bits == want.bits
    assert mine.bit_pairs() == want.bit_pairs()
    for (rank, theirs, words), (rank2, theirs2, words2) in zip(mine.pairs(), want.pairs()):
        assert rank == rank2
        np.testing.assert_array_equal(theirs, theirs2)
        np.testing.assert_array_equal(words, words2)


def block_mask(at) -> np.ndarray:
    mask = np.zeros((128, 512), bool)
    mask[at] = True
    return mask


def cells_of(at) -> tuple[np.ndarray, np.ndarray]:
    """The cells (lanes[rows, n], cols[rows, n]) of a block of slices (computed with
    NumPy's index grid, not by the code under test)."""
    lanes, cols = np.mgrid[at]
    return lanes, cols


BLOCKS = [(slice(0, 32), slice(0, 32)), (slice(96, 128), slice(480, 512)),
          (slice(0, 128), slice(0, 512)), (slice(5, 6), slice(511, 512)),
          (slice(64, 96), slice(63, 65)), (slice(17, 100), slice(127, 300))]


@pytest.mark.parametrize("at", BLOCKS)
@pytest.mark.parametrize("writes", [False, True])
def test_a_summary_of_a_block_is_the_masks_own(at, writes):
    # summary_of_block against TmemSummary of the same footprint without summaries (the
    # general code: every mask scanned), for blocks at TMEM's corners and edges,
    # column runs across 64-bit words, a single cell, all of TMEM; read and written.
    for rank in (0, 1, 3):
        mask = block_mask(at)
        fp = Footprint(tmem_writes={rank: mask}) if writes else Footprint(
            tmem_reads={rank: mask})
        lanes, cols = cells_of(at)
        summary_of_block(fp, mask, at, lanes, cols)
        general = TmemSummary(Footprint(tmem_reads=dict(fp.tmem_reads),
                                        tmem_writes=dict(fp.tmem_writes)))
        assert_same_summary(tmem_summary(fp), general)
        assert_same_mask_summary(MaskSummary.of_block(mask, *at), MaskSummary(mask))


def unusual_cases():
    """(footprint, mask, at, lanes, cols) that summary_of_block must leave to
    summary_of_cells; each goes wrong if its guard is removed."""
    at = (slice(32, 64), slice(8, 40))
    lanes, cols = cells_of(at)
    # cells that are not a block (tmem_block gives them back as arrays: a packed ld)
    mask = block_mask(at)
    yield "cells", Footprint(tmem_reads={0: mask}), mask, (lanes, cols), lanes, cols
    # a slice of step 2: of_block would take every column of the run
    stepped = (slice(32, 64), slice(8, 40, 2))
    mask = block_mask(stepped)
    slanes, scols = cells_of(stepped)
    yield "step", Footprint(tmem_reads={0: mask}), mask, stepped, slanes, scols
    # a rank of another type or sign: the general code's rules for it
    for rank in (-1, np.int64(1), True):
        mask = block_mask(at)
        yield f"rank {rank!r}", Footprint(tmem_writes={rank: mask}), mask, at, lanes, cols
    # two masks (an MMA's D read and written): of_one describes one
    mask = block_mask(at)
    yield "two", Footprint(tmem_reads={0: mask}, tmem_writes={0: mask}), mask, at, lanes, \
        cols
    mask = block_mask(at)
    yield "two ranks", Footprint(tmem_reads={0: mask, 1: mask}), mask, at, lanes, cols
    # a mask that is not the footprint's
    mask = block_mask(at)
    yield "other mask", Footprint(tmem_reads={0: block_mask(at)}), mask, at, lanes, cols


@pytest.mark.parametrize("case", list(unusual_cases()), ids=lambda case: case[0])
def test_an_unusual_block_takes_the_general_summary(case):
    _, fp, mask, at, lanes, cols = case
    summary_of_block(fp, mask, at, lanes, cols)
    general = TmemSummary(Footprint(tmem_reads=dict(fp.tmem_reads),
                                    tmem_writes=dict(fp.tmem_writes)))
    assert_same_summary(tmem_summary(fp), general)


LDST_FORMS = [(f"tcgen05.{kind}.sync.aligned.{shape}.x{num}{pack}.b32", imm)
              for kind, pack in (("ld", ""), ("ld", ".pack::16b"), ("st", ""),
                                 ("st", ".unpack::16b"))
              for shape, imm in (("32x32b", None), ("16x64b", None), ("16x256b", None),
                                 ("16x32bx2", 8))
              for num in (1, 16)]


@pytest.mark.parametrize("opcode, imm", LDST_FORMS)
def test_an_ld_or_st_built_has_its_masks_summary(opcode, imm):
    # built_load / built_store (a .32x32b fragment is a block: its summary from the
    # block's bounds; the others' from their cells) against the general summary of the
    # same mask, and the mask against the cells of _ldst_cells set one by one.
    build = tensor_core.built_load if ".ld." in opcode else tensor_core.built_store
    for taddr, warp, rank in ((0, 0, 0), (32 << 16 | 100, 1, 1), (96 << 16 | 7, 7, 0)):
        at, packed, fp = build(opcode, taddr, warp, rank, imm, {})
        masks = fp.tmem_reads if ".ld." in opcode else fp.tmem_writes
        lanes, cols, _ = tensor_core._ldst_cells(opcode, taddr, warp, imm)
        np.testing.assert_array_equal(masks[rank], _mask(lanes, cols))
        general = TmemSummary(Footprint(tmem_reads=dict(fp.tmem_reads),
                                        tmem_writes=dict(fp.tmem_writes)))
        assert_same_summary(tmem_summary(fp), general)


def test_an_lds_built_cells_read_what_the_general_ld_reads():
    # the lds' cells as built_load gives them read the words tensor_core's general
    # cells (_ldst_cells, fancy indexing) read
    tmem = np.arange(128 * 512, dtype=np.uint32).reshape(128, 512)
    ctas = [CtaMemory(0, np.zeros(16, np.uint8))]
    ctas[0].tmem[:] = tmem
    for opcode in ("tcgen05.ld.sync.aligned.32x32b.x32.b32",
                   "tcgen05.ld.sync.aligned.16x256b.x4.b32"):
        at, packed, _ = tensor_core.built_load(opcode, 64 << 16 | 40, 2, 0, None, {})
        lanes, cols, _ = tensor_core._ldst_cells(opcode, 64 << 16 | 40, 2, None)
        np.testing.assert_array_equal(tensor_core.loaded_cells(tmem, at, packed),
                                      tmem[lanes, cols])


D_SHAPES = [(128, 256, 1, False, 0), (128, 64, 1, False, 32), (64, 128, 1, False, 16),
            (64, 64, 1, True, 0), (32, 128, 1, True, 8), (256, 256, 2, False, 256),
            (128, 128, 2, False, 0)]


@pytest.mark.parametrize("m, n, cta_group, ws, taddr", D_SHAPES)
def test_an_mmas_d_mask_and_summary_are_the_cells(m, n, cta_group, ws, taddr):
    # tc_mma._d_part's D mask (set by tmem_block's slices when D is a block: layouts D
    # and A; by the cells for layouts B, E, F, G) against _mask of d_cells' cells, and
    # the summary shared_summary makes with the block against the general one.
    from tcgen05_lower.sim import tc_mma
    lanes, cols, rows = d_cells(m, n, cta_group, ws, taddr)
    got = tc_mma._d_part(m, n, cta_group, ws, taddr, {})
    np.testing.assert_array_equal(got[0], lanes)
    np.testing.assert_array_equal(got[1], cols)
    assert got[2] == rows
    np.testing.assert_array_equal(got[3], _mask(lanes, cols))
    assert not got[3].flags.writeable
    d_at = tmem_block(lanes, cols)
    assert isinstance(got[4][0], slice) == isinstance(d_at[0], slice)
    if isinstance(d_at[0], slice):
        assert got[4] == d_at
    d_mask = got[3]
    for reads in ({}, {0: d_mask}):
        fp = Footprint(tmem_writes={0: d_mask}, tmem_reads=dict(reads))
        shared_summary(fp, {}, "d", block=(d_mask, got[4]))
        general = TmemSummary(Footprint(tmem_reads=dict(fp.tmem_reads),
                                        tmem_writes=dict(fp.tmem_writes)))
        assert_same_summary(tmem_summary(fp), general)


def test_a_shared_summarys_block_of_cells_or_steps_is_not_taken():
    # shared_summary's `block` when it is not slices of step 1 (cells given back by
    # tmem_block, a slice of step 2): the mask's own summary (without the guard, the
    # step-2 block would be summarized as all its run's columns)
    for at in ((slice(0, 32), slice(0, 64, 2)),):
        mask = block_mask(at)
        fp = Footprint(tmem_writes={0: mask})
        shared_summary(fp, {}, "d", block=(mask, at))
        assert_same_summary(tmem_summary(fp), TmemSummary(Footprint(tmem_writes={0: mask})))
    at = (slice(0, 32), slice(0, 64))
    lanes, cols = cells_of(at)
    mask = block_mask(at)
    fp = Footprint(tmem_writes={0: mask})
    shared_summary(fp, {}, "d", block=(mask, (lanes, cols)))
    assert_same_summary(tmem_summary(fp), TmemSummary(Footprint(tmem_writes={0: mask})))
