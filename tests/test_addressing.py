"""The address formulas the lowering emits, checked on integers.

- K-major tile offsets against the swizzle as the ISA defines it (CuTe's Swizzle<B, 4, 3>
  on byte addresses, 9.7.16.3.3), restated here by hand as "16-byte chunk index XOR row
  bits", and against the canonical strides of tmem-facts section 4.
- Warpgroup loads: the lowering's (warp, thread, register) -> (row, column) on values
  derived by hand from tmem-facts sections 1 and 2 (the exhaustive composition with the
  fragment model and the layouts' inverses is tests/test_ldst_coverage.py).
"""

import itertools

import pytest

from tcgen05_lower.isa import addressing, descriptors, fragments

SWIZZLES = ("none", "32B", "64B", "128B")


def hand_swizzled_offset(row: int, kbyte: int, rows: int, swizzle: str) -> int:
    """K-major layout written out by hand from 9.7.16.3.3.

    Without swizzle: core matrices of 8 rows x 16 bytes, 8-row groups 128 bytes apart
    (SBO), 16-byte K columns 16*rows bytes apart (LBO).
    With W-byte swizzle: rows are W bytes apart inside an 8-row atom (SBO = 8W), atoms
    stack along M, K-blocks of W bytes stack after all rows; the 16-byte chunk index c
    inside a row is XORed with address bits 7.. of the row start: for 128B the row's
    index in the atom (r % 8), for 64B (r % 8) // 2, for 32B (r % 8) // 4.
    """
    if swizzle == "none":
        return (kbyte // 16) * 16 * rows + (row // 8) * 128 + (row % 8) * 16 + kbyte % 16
    width = {"32B": 32, "64B": 64, "128B": 128}[swizzle]
    chunk, within = (kbyte % width) // 16, kbyte % 16
    xor = {"128B": row % 8, "64B": (row % 8) // 2, "32B": (row % 8) // 4}[swizzle]
    base = (kbyte // width) * rows * width + (row // 8) * 8 * width + (row % 8) * width
    return base + ((chunk ^ xor) * 16) + within


@pytest.mark.parametrize("swizzle", SWIZZLES)
@pytest.mark.parametrize("rows", [8, 64, 128])
@pytest.mark.parametrize("atoms_along_k", [1, 2])
def test_kmajor_offset_matches_the_hand_layout_and_is_a_bijection(swizzle, rows, atoms_along_k):
    row_bytes = addressing.SWIZZLE_WIDTH[swizzle] * atoms_along_k
    seen = set()
    for row, kbyte in itertools.product(range(rows), range(row_bytes)):
        offset = addressing.kmajor_offset(row, kbyte, rows=rows, swizzle=swizzle)
        assert offset == hand_swizzled_offset(row, kbyte, rows, swizzle)
        seen.add(offset)
    assert seen == set(range(rows * row_bytes))


@pytest.mark.parametrize("swizzle", SWIZZLES)
@pytest.mark.parametrize("rows", [8, 64, 128])
@pytest.mark.parametrize("atoms_along_k", [1, 2, 3])
@pytest.mark.parametrize("chunk_bytes", [2, 4, 16])
def test_kmajor_chunk_offset_is_the_hand_layout_of_the_chunks_first_byte(
        swizzle, rows, atoms_along_k, chunk_bytes):
    """The fill's chunk address (kmajor_chunk_offset, written without divisions for a row
    of one K-block) against the hand layout above of the chunk's row and first byte: chunk
    c is row c // (row_bytes / chunk_bytes), byte (c % ...) * chunk_bytes."""
    row_bytes = addressing.SWIZZLE_WIDTH[swizzle] * atoms_along_k
    per_row = row_bytes // chunk_bytes
    for chunk in range(rows * per_row):
        row, kbyte = chunk // per_row, (chunk % per_row) * chunk_bytes
        assert addressing.kmajor_chunk_offset(
            chunk, chunk_bytes=chunk_bytes, row_bytes=row_bytes, rows=rows,
            swizzle=swizzle) == hand_swizzled_offset(row, kbyte, rows, swizzle)


@pytest.mark.parametrize("swizzle", SWIZZLES)
@pytest.mark.parametrize("count", [4, 8, 16])
def test_kmajor_row_offsets_are_the_hand_layout_of_consecutive_rows(swizzle, count):
    """The transposing fill's offsets of one K byte in `count` consecutive rows
    (kmajor_row_offsets) against the hand layout, for every group of rows of a 64-row tile
    two K-blocks wide."""
    rows, row_bytes = 64, 2 * addressing.SWIZZLE_WIDTH[swizzle]
    for first in range(0, rows, count):
        for kbyte in range(row_bytes):
            assert addressing.kmajor_row_offsets(first, kbyte, count, rows=rows,
                                                 swizzle=swizzle) == \
                [hand_swizzled_offset(first + j, kbyte, rows, swizzle) for j in range(count)]


def test_kmajor_chunk_offset_refuses_chunks_that_straddle_a_k_block():
    with pytest.raises(ValueError, match="do not tile"):
        # 32-byte chunks of an unswizzled tile span two 16-byte core-matrix columns.
        addressing.kmajor_chunk_offset(0, chunk_bytes=32, row_bytes=64, rows=8,
                                       swizzle="none")


@pytest.mark.parametrize("swizzle", SWIZZLES)
def test_kmajor_strides_are_the_canonical_ones(swizzle):
    # 128 rows of 64 bf16: the tile of the GEMM examples (one 128B atom wide).
    tile_k = {"none": 8, "32B": 16, "64B": 32, "128B": 64}[swizzle]
    assert addressing.kmajor_strides(rows=128, swizzle=swizzle) == \
        descriptors.canonical_smem_strides(dtype="bf16", major="K", swizzle=swizzle,
                                           tile_mn=128, tile_k=tile_k)


@pytest.mark.parametrize("swizzle", SWIZZLES)
def test_block_start_is_the_unswizzled_row_zero_address(swizzle):
    width = addressing.SWIZZLE_WIDTH[swizzle]
    for kbyte in range(0, 2 * width, 16):
        start = addressing.kmajor_block_start(kbyte, rows=64, swizzle=swizzle)
        # Row 0 is never permuted by the swizzle (its XOR term is 0).
        assert start == hand_swizzled_offset(0, kbyte, 64, swizzle)


# Warpgroup loads and stores: tests/test_ldst_coverage.py checks every layout, shape and
# N against the fragment model and the layouts' inverses; here are hand-derived values
# of the same formulas, one per statement of tmem-facts section 1.

def access(layout, n, width, shape, num, pack16=False, **kw):
    columns = fragments.columns_per_access(shape, num, pack16=pack16)
    split = columns // 2 if shape == "16x32bx2" else None
    return addressing.WarpgroupAccess.create(layout, n=n, width=width, shape=shape, num=num,
                                             pack16=pack16, half_split=split, **kw)


def test_layout_d_32x32b_by_hand():
    # Warp w addresses lane 32w (its quarter, 9.7.16.8.1) at the slice's column; thread l
    # reads lane 32w + l, which is row 32w + l; register r is column r of the message.
    a = access("D", 256, 32, "32x32b", 32)
    assert addressing.message_address(a, warp=2, message=0, column=64) == (64, 64)
    assert addressing.element(a, warp=2, thread=5, reg=7) == (69, 7)


def test_layout_d_16_lane_shape_uses_two_messages_per_warp():
    # .16x256b.x1: 8 columns, 4 registers; warp 0 needs a message at lane 0 and one at
    # lane 16. Register 2 of the second message (reg 6) of thread 4: dl = 4 div 4 +
    # 8 * ((2 div 2) mod 2) = 9, dc = 2 mod 2 + 2 * (4 mod 4) + 8 * (2 div 4) = 0, so
    # lane 16 + 9 = row 25, column 0.
    a = access("D", 8, 8, "16x256b", 1)
    assert a.messages == 2
    assert addressing.message_address(a, warp=0, message=1, column=0) == (16, 0)
    assert addressing.element(a, warp=0, thread=4, reg=6) == (25, 0)


def test_layout_f_16x32bx2_by_hand():
    # .16x32bx2.x16 with immHalfSplitoff 16: thread l reads lane l mod 16 of the warp's
    # 16 rows (16w ..), threads 16-31 sixteen columns further on.
    a = access("F", 64, 32, "16x32bx2", 16)
    assert addressing.element(a, warp=1, thread=20, reg=3) == (20, 19)
    assert addressing.element(a, warp=3, thread=15, reg=0) == (63, 0)


def test_folded_layouts_by_hand():
    # E: thread l of warp w reads row 32*(w & 1) + l at column (w >> 1) * N/2 + col.
    e = access("E", 256, 256, "32x32b", 128)
    assert addressing.element(e, warp=3, thread=2, reg=5) == (34, 133)
    # G: row l at column w * N/4 + col.
    g = access("G", 256, 256, "32x32b", 64)
    assert addressing.element(g, warp=2, thread=7, reg=1) == (7, 129)
    # B in the odd CTA of the pair: its rows are 64 .. 127.
    b = access("B", 128, 128, "32x32b", 64)
    assert addressing.element(b, warp=1, thread=0, reg=0, cta=1) == (96, 0)


def test_packed_registers_hold_two_columns():
    # .pack::16b: register r holds columns 2r (bits 0-15) and 2r + 1 (bits 16-31).
    a = access("D", 64, 8, "32x32b", 4, pack16=True)
    assert a.registers == 4
    assert addressing.element(a, warp=0, thread=3, reg=2, half=0) == (3, 4)
    assert addressing.element(a, warp=0, thread=3, reg=2, half=1) == (3, 5)
