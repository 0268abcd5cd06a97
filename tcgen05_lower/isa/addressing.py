"""Address arithmetic shared by the lowering and its tests.

Every function here is written with Python operators only (``+ - * // % << >> & ^``) and
branches only on static arguments (layout names, shapes, swizzle modes). Called with
integers it computes addresses for tests; called with the lowering's symbolic values it
emits the same arithmetic into the kernel. So the formula a test checks is, character for
character, the one the compiler emits.
"""

from __future__ import annotations

#: Swizzle width W in bytes of each mode (Table 40 / Table 53).
SWIZZLE_WIDTH = {"none": 16, "32B": 32, "64B": 64, "128B": 128}
#: The B of CuTe's Swizzle<B, 4, 3> for each mode (9.7.16.3.3): log2(W / 16).
SWIZZLE_BITS = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
#: Bytes per core-matrix row: 16 bytes (one 128-bit element, 9.7.16.3.3's T units).
CORE_ROW_BYTES = 16
#: Rows per core matrix / swizzle atom.
CORE_ROWS = 8


def kmajor_offset(row, kbyte, *, rows: int, swizzle: str):
    """Byte offset of byte `kbyte` (along K) of tile row `row` in a K-major canonical
    tile of `rows` rows (9.7.16.3.3), swizzle applied.

    The tile is a sequence of K-blocks of width W (the swizzle width; 16 bytes without
    swizzle); each K-block holds all rows, 8-row groups one after another. Within a
    swizzled K-block, row r of a group is W bytes after row r-1 (SBO = 8W between groups,
    LBO unused); without swizzle the 8 rows of a core matrix are 16 bytes apart (SBO =
    128 between groups, LBO = 16 * rows between K-blocks) — the canonical strides of
    tmem-facts section 4. The swizzle Swizzle<B, 4, 3> XORs address bits [7, 7+B) into
    bits [4, 4+B); it is a function of the address, so the tile base must be aligned to
    the swizzle pattern (Table 41) for the offset form to be exact.
    """
    width = SWIZZLE_WIDTH[swizzle]
    if swizzle == "none":
        linear = ((kbyte // CORE_ROW_BYTES) * (rows * CORE_ROW_BYTES)
                  + (row // CORE_ROWS) * (CORE_ROWS * CORE_ROW_BYTES)
                  + (row % CORE_ROWS) * CORE_ROW_BYTES + kbyte % CORE_ROW_BYTES)
        return linear
    linear = ((kbyte // width) * (rows * width) + (row // CORE_ROWS) * (CORE_ROWS * width)
              + (row % CORE_ROWS) * width + kbyte % width)
    mask = ((1 << SWIZZLE_BITS[swizzle]) - 1) << 4
    return linear ^ ((linear >> 3) & mask)


def kmajor_block_start(kbyte: int, *, rows: int, swizzle: str) -> int:
    """The (unswizzled) start address offset an MMA descriptor uses for the K block that
    begins at byte `kbyte` of every row: the hardware applies the swizzle itself, so the
    descriptor names row 0's address before swizzling (K-blocks within a swizzle atom are
    selected by advancing the start address)."""
    width = SWIZZLE_WIDTH[swizzle]
    if swizzle == "none":
        return (kbyte // CORE_ROW_BYTES) * (rows * CORE_ROW_BYTES) + kbyte % CORE_ROW_BYTES
    return (kbyte // width) * (rows * width) + kbyte % width


def kmajor_strides(*, rows: int, swizzle: str) -> tuple[int, int]:
    """(LBO, SBO) in bytes of the K-major tiles laid out by :func:`kmajor_offset`."""
    if swizzle == "none":
        return CORE_ROW_BYTES * rows, CORE_ROWS * CORE_ROW_BYTES
    # Swizzled K-major: LBO is not used and is written as 16 bytes (encoded 1), 9.7.16.3.1.
    return CORE_ROW_BYTES, CORE_ROWS * SWIZZLE_WIDTH[swizzle]


# -------------------------------------------------------------------- warpgroup loads

#: The ld message shape each layout family is read with (tcgen05-select-layouts).
LD_SHAPE_OF_LAYOUT = {"D": "32x32b", "A": "32x32b", "F": "16x32bx2", "C": "16x32bx2"}


def ld_warp_lane_base(layout: str, warp):
    """Lane (relative to the buffer's lane offset) at which warp `warp` of the warpgroup
    addresses the buffer: warp w may only access lanes 32w..32w+31 (9.7.16.8.1)."""
    return warp * 32


def ld_element(layout: str, shape: str, num: int, *, warp, thread, reg, half_split=None):
    """(row, column) of the logical D slice that register `reg` of `thread` (0..31) in
    warp `warp` (0..3) holds after the warpgroup's load, relative to the slice start.

    Composes the fragment of the message shape (tmem-facts section 2) with the inverse of
    the data-path layout (tmem-facts section 1):

    - Layouts D and A (rows on lanes) with .32x32b: lane 32w + l is row 32w + l; register
      r is column r.
    - Layouts F and C (16 lanes per quarter) with .16x32bx2 (immHalfSplitoff h = num):
      thread l reads lane 32w + a + l % 16, which is row 16w + l % 16, at column
      r + (l // 16) * h.
    """
    if shape == "32x32b" and layout in ("D", "A"):
        return warp * 32 + thread, reg
    if shape == "16x32bx2" and layout in ("F", "C"):
        return warp * 16 + thread % 16, reg + (thread // 16) * half_split
    raise NotImplementedError(f"loads of Layout {layout} with .{shape} are not supported yet")
