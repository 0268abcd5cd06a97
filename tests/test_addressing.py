"""The address formulas the lowering emits, checked on integers.

- K-major tile offsets against the swizzle as the ISA defines it (CuTe's Swizzle<B, 4, 3>
  on byte addresses, 9.7.16.3.3), restated here by hand as "16-byte chunk index XOR row
  bits", and against the canonical strides of tmem-facts section 4.
- Warpgroup loads: the lowering's (warp, thread, register) -> (row, column) against the
  composition of the ld fragment (tmem-facts section 2, `fragments`) with the inverse of
  the data-path layout (tmem-facts section 1, `layouts`): every element of the slice is
  read exactly once.
"""

import itertools

import pytest

from tcgen05_lower.isa import addressing, descriptors, fragments, layouts

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


def covered_elements(layout, shape, num, *, m, lane_offset):
    """Runs the lowering's formula for the whole warpgroup and checks every register
    against the fragment model composed with the layout's inverse."""
    half_split = num if shape == "16x32bx2" else None
    n = 2 * num if shape == "16x32bx2" else num
    elements = []
    for warp in range(4):
        # The lowering's taddr: the buffer's lane offset + 32 * warp, column 0.
        lane0 = lane_offset + addressing.ld_warp_lane_base(layout, warp)
        for thread in range(32):
            for reg in range(fragments.registers_per_thread(shape, num)):
                lane, column = fragments.fragment_cell(shape, num, thread=thread, reg=reg,
                                                       lane0=lane0, col0=0,
                                                       half_split=half_split)
                expected = layouts.tmem_to_d(layout, m=m, n=n, cta=0, lane=lane,
                                             column=column, lane_offset=lane_offset)
                got = addressing.ld_element(layout, shape, num, warp=warp, thread=thread,
                                            reg=reg, half_split=half_split)
                assert got == expected, (warp, thread, reg)
                elements.append(got)
    return elements, m, n


@pytest.mark.parametrize("num", [1, 8, 32, 128])
def test_layout_d_load_reads_every_element_once(num):
    elements, m, n = covered_elements("D", "32x32b", num, m=128, lane_offset=0)
    assert sorted(elements) == sorted(itertools.product(range(m), range(n)))


@pytest.mark.parametrize("lane_offset", [0, 16])
@pytest.mark.parametrize("num", [4, 16, 64])
def test_layout_f_load_reads_every_element_once(num, lane_offset):
    elements, m, n = covered_elements("F", "16x32bx2", num, m=64, lane_offset=lane_offset)
    assert sorted(elements) == sorted(itertools.product(range(m), range(n)))


def test_unsupported_layout_shape_pairs_are_refused():
    with pytest.raises(NotImplementedError):
        addressing.ld_element("B", "32x32b", 8, warp=0, thread=0, reg=0)
