"""Address arithmetic shared by the lowering and its tests.

Every function here is written with Python operators only (``+ - * // % << >> & ^``) and
branches only on static arguments (layout names, shapes, swizzle modes). Called with
integers it computes addresses for tests; called with the lowering's symbolic values it
emits the same arithmetic into the kernel. So the formula a test checks is, character for
character, the one the compiler emits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from . import fragments, layouts
from .errors import IsaRuleError

#: Swizzle width W in bytes of each mode (Table 40 / Table 53).
SWIZZLE_WIDTH = MappingProxyType({"none": 16, "32B": 32, "64B": 64, "128B": 128})
#: The B of CuTe's Swizzle<B, 4, 3> for each mode (9.7.16.3.3): log2(W / 16).
SWIZZLE_BITS = MappingProxyType({"none": 0, "32B": 1, "64B": 2, "128B": 3})
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
    # Row r sits at (r // 8) * 8W + (r % 8) * W = r * W inside its K-block: written as the
    # one product, which is fewer operations for the lowering to emit (the same number).
    linear = (kbyte // width) * (rows * width) + row * width + kbyte % width
    return _swizzled(linear, swizzle)


def _swizzled(linear, swizzle: str):
    """Swizzle<B, 4, 3> of a linear offset within its pattern: address bits [7, 7+B) XORed
    into bits [4, 4+B) (9.7.16.3.3); the identity without swizzle."""
    if swizzle == "none":
        return linear
    mask = ((1 << SWIZZLE_BITS[swizzle]) - 1) << 4
    return linear ^ ((linear >> 3) & mask)


def kmajor_row_offsets(first_row, kbyte, count: int, *, rows: int, swizzle: str) -> list:
    """kmajor_offset of byte `kbyte` of the `count` tile rows first_row, first_row + 1,
    ...: the unswizzled offsets are W bytes apart (row r at r * W in its K-block), so the
    K-block term is computed once and each row adds j * W before its swizzle."""
    width = SWIZZLE_WIDTH[swizzle]
    linear = (kbyte // width) * (rows * width) + first_row * width + kbyte % width
    return [_swizzled(linear + j * width, swizzle) for j in range(count)]


def kmajor_chunk_offset(chunk, *, chunk_bytes: int, row_bytes: int, rows: int, swizzle: str):
    """kmajor_offset of chunk number `chunk` of a K-major tile whose rows of `row_bytes`
    bytes are cut into `chunk_bytes`-byte chunks numbered row by row (row
    ``chunk // (row_bytes // chunk_bytes)``, byte ``(chunk % ...) * chunk_bytes`` of it):
    the cooperative fill's address, with as few operations as the layout allows.

    `chunk_bytes` divides the swizzle width W (16 bytes without swizzle). When a row is
    exactly one K-block (``row_bytes == W``), row r's byte b is at r * W + b, which is
    ``chunk * chunk_bytes`` before the swizzle: no division at all. Otherwise the K-block
    of the chunk's byte selects a block of ``rows * W`` bytes as in kmajor_offset."""
    width = SWIZZLE_WIDTH[swizzle]
    if width % chunk_bytes or row_bytes % chunk_bytes:
        raise ValueError(f"chunks of {chunk_bytes} bytes do not tile rows of {row_bytes} "
                         f"bytes in {width}-byte K-blocks")
    if row_bytes == width:
        return _swizzled(chunk * chunk_bytes, swizzle)
    per_row = row_bytes // chunk_bytes
    per_block = width // chunk_bytes
    row, kchunk = chunk // per_row, chunk % per_row
    linear = ((kchunk // per_block) * (rows * width) + row * width
              + (kchunk % per_block) * chunk_bytes)
    return _swizzled(linear, swizzle)


def mnmajor_offset(mnbyte, k, *, mn_bytes: int, swizzle: str):
    """Byte offset of byte `mnbyte` (along M or N) of K row `k` in an MN-major canonical
    tile whose MN extent is `mn_bytes` bytes (9.7.16.3.3, the canonical MN-major layouts,
    T = 16 bytes), swizzle applied.

    Without swizzle, ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)): MN runs in 16-byte units SBO =
    128 bytes apart, each of the 8 K rows of a core matrix 16 bytes on, 8-row groups of K
    LBO = 8 * mn_bytes apart. With a W-byte swizzle (W = 32, 64, 128),
    ((T,W/16,m),(8,k)):((1,T,LBO),(W/16 T,SBO)): MN runs along a W-byte swizzle row, the
    next W bytes of MN LBO = 8W on, each of the 8 K rows W bytes on, 8-row groups of K
    SBO = 8 * mn_bytes apart; then Swizzle<B, 4, 3> as for K-major tiles. These are the
    strides ``descriptors.canonical_smem_strides(major="MN")`` gives the MMA's
    descriptor. The 4-row atom of 128B with 32B atomicity is not covered."""
    if swizzle == "none":
        return ((mnbyte // CORE_ROW_BYTES) * (CORE_ROWS * CORE_ROW_BYTES)
                + (k % CORE_ROWS) * CORE_ROW_BYTES + (k // CORE_ROWS) * (CORE_ROWS * mn_bytes)
                + mnbyte % CORE_ROW_BYTES)
    width = SWIZZLE_WIDTH[swizzle]
    linear = ((mnbyte // width) * (CORE_ROWS * width) + (k % CORE_ROWS) * width
              + (k // CORE_ROWS) * (CORE_ROWS * mn_bytes) + mnbyte % width)
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


# -------------------------------------------------------------- warpgroup loads and stores
#
# A warpgroup load (tcgen05.ld, tcgen05.ld.red) or store (tcgen05.st) of columns
# [column, column + width) of an M x N buffer that holds D-like data (one 32-bit column
# per element, 9.7.16.10.4.1), in one of the layouts A-G. Warp w of the warpgroup may only
# reach lanes 32w .. 32w+31 (9.7.16.8.1), so what a warp does follows from which rows of D
# the layout puts on those lanes (tmem-facts section 1):
#
# - Full-datapath layouts (A, B, D, E, G; C read as B) put R = rows-per-CTA rows on lanes
#   0 .. R-1 and stack the `fold` column blocks of D (N / fold TMEM columns each) on the
#   lanes above: block j on lanes jR .. jR+R-1. Warp w therefore holds column block
#   j = w div (R/32), rows 32*(w mod R/32) .. +31 of it. A slice inside one block is read
#   by the R/32 warps of that block only (B, E: 2 warps, G: 1); a slice of whole blocks by
#   the warps of those blocks. A .32x32b message covers the warp's 32 lanes; a 16-lane
#   shape needs two messages per warp, at lanes 32w and 32w+16.
# - Half-datapath layouts (F; C read as F) put rows 16w .. 16w+15 on lanes 32w+a ..
#   32w+a+15 (a = the buffer's lane offset): every warp takes part, with 16-lane shapes
#   only (a 32-lane message would also move the other lane half, another buffer's cells).
#
# Every message of a warp has the same shape and .num; a warp's messages run over its
# columns (and lane halves) in order, and the fragment's registers are the messages'
# registers, concatenated. For .16x32bx2 the two halves are adjacent: immHalfSplitoff is
# half the message's columns, so threads 0-15 hold a row's first columns and threads
# 16-31 the next ones.

#: The shapes a warpgroup access may use, by datapath kind and instruction.
ACCESS_SHAPES = MappingProxyType({
    ("full", "ld"): ("32x32b", "16x32bx2", "16x64b", "16x128b", "16x256b"),
    ("full", "st"): ("32x32b", "16x32bx2", "16x64b", "16x128b", "16x256b"),
    ("half", "ld"): ("16x32bx2", "16x64b", "16x128b", "16x256b"),
    ("half", "st"): ("16x32bx2", "16x64b", "16x128b", "16x256b"),
    # 9.7.16.8.3: tcgen05.ld.red has .shape3 = .32x32b and .shape4 = .16x32bx2 only.
    ("full", "ld_red"): ("32x32b", "16x32bx2"),
    ("half", "ld_red"): ("16x32bx2",),
})
WARPS = 4
LANES_PER_WARP = 32


@dataclass(frozen=True)
class WarpgroupAccess:
    """A warpgroup load or store of ``width`` columns of an N-column buffer of ``layout``,
    with messages ``.<shape>.x<num>`` (``pack16``: .pack::16b / .unpack::16b).

    Built with :meth:`create`, which checks that the messages tile the slice; the derived
    fields say how: ``block`` (TMEM columns of one column block), ``blocks`` (blocks the
    slice spans), ``warp_columns`` (columns each taking-part warp moves), ``lane_halves``
    (messages per column step: 2 for a 16-lane shape on a full-datapath layout),
    ``message_columns``, ``messages`` (per warp), ``message_registers`` and
    ``registers`` (per thread).
    """

    layout: str
    n: int
    width: int
    shape: str
    num: int
    pack16: bool = False
    half_split: int | None = None
    layout_c: str = "F"
    op: str = "ld"
    geometry: layouts.Geometry = field(default=None, compare=False, repr=False)
    block: int = 0
    blocks: int = 1
    warps_per_block: int = WARPS
    warp_columns: int = 0
    lane_halves: int = 1
    message_columns: int = 0
    message_registers: int = 0
    messages: int = 0
    registers: int = 0

    @classmethod
    def create(cls, layout: str, *, n: int, width: int, shape: str, num: int,
               pack16: bool = False, half_split: int | None = None, layout_c: str = "F",
               op: str = "ld") -> "WarpgroupAccess":
        """The access, or ``IsaRuleError`` if these messages cannot move the slice."""
        geo = layouts.geometry(layout, layout_c)
        kind = "half" if geo.half else "full"
        if (kind, op) not in ACCESS_SHAPES:
            raise ValueError(f"op must be ld, st or ld_red, not {op!r}")
        if shape not in ACCESS_SHAPES[(kind, op)]:
            why = ("a 32-lane message would also move the other 16 lanes of each quarter"
                   if kind == "half" and shape == "32x32b" else
                   "tcgen05.ld.red has only .32x32b and .16x32bx2 (9.7.16.8.3)")
            raise IsaRuleError("9.7.16.8.1" if shape == "32x32b" else "9.7.16.8.3",
                               f"Layout {layout} cannot be {_verb(op)} with .{shape}: {why}")
        if pack16 and op == "ld_red":
            raise IsaRuleError("9.7.16.8.3", "tcgen05.ld.red has no .pack::16b")
        if op == "ld_red" and geo.fold > 1 and width > geo.block_columns(n):
            raise IsaRuleError(
                "9.7.16.8.3", f"tcgen05.ld.red reduces the columns of each lane; Layout "
                              f"{layout} puts the columns of a row beyond the first "
                              f"{geo.block_columns(n)} on other lanes (another warp's), so a "
                              f"reduced slice must lie inside one block of "
                              f"{geo.block_columns(n)} columns, not span {width}")
        if op == "ld_red" and num < 2:
            raise IsaRuleError("9.7.16.8.3", f"with .red, .num must be at least .x2, not "
                                             f".x{num}")
        message_columns = fragments.columns_per_access(shape, num, pack16=pack16)
        message_registers = fragments.registers_per_thread(shape, num)
        if shape == "16x32bx2" and half_split != message_columns // 2:
            raise IsaRuleError(
                "9.7.16.8.3", f"immHalfSplitoff must be {message_columns // 2} (the columns "
                              f"of one .16x32b half) so that the halves are adjacent, not "
                              f"{half_split}")
        if shape != "16x32bx2" and half_split is not None:
            raise IsaRuleError("9.7.16.8.3", "immHalfSplitoff is only for .16x32bx2")
        if not 1 <= width <= n:
            raise IsaRuleError("9.7.16.8.3", f"a {width}-column slice of a {n}-column "
                                             f"buffer")
        block = geo.block_columns(n)
        if geo.fold > 1 and width <= block and block % width:
            raise IsaRuleError(
                "9.7.16.10.5", f"Layout {layout} keeps columns [j*{block}, (j+1)*{block}) "
                               f"of D on separate lanes; a {width}-column slice must divide "
                               f"{block} so that it lies in one block")
        if geo.fold > 1 and width > block and width % block:
            raise IsaRuleError(
                "9.7.16.10.5", f"Layout {layout} keeps columns [j*{block}, (j+1)*{block}) "
                               f"of D on separate lanes; a slice wider than {block} "
                               f"columns must consist of whole blocks, not {width} columns")
        warp_columns = min(width, block)
        if warp_columns % message_columns:
            raise IsaRuleError(
                "Table 47", f".{shape}.x{num}{'.pack::16b' if pack16 else ''} moves "
                            f"{message_columns} columns, which does not divide the "
                            f"{warp_columns} columns each warp moves")
        lane_halves = 2 if not geo.half and fragments.lanes_per_access(shape) == 16 else 1
        messages = warp_columns // message_columns * lane_halves
        return cls(layout, n, width, shape, num, pack16, half_split, layout_c, op, geo,
                   block=block, blocks=max(1, width // block) if geo.fold > 1 else 1,
                   warps_per_block=(geo.rows_per_cta // LANES_PER_WARP if not geo.half
                                    else WARPS),
                   warp_columns=warp_columns, lane_halves=lane_halves,
                   message_columns=message_columns, message_registers=message_registers,
                   messages=messages, registers=messages * message_registers)

    @property
    def fold(self) -> int:
        """Column blocks of D stacked on the lanes (1 when the layout does not fold)."""
        return self.geometry.fold

    @property
    def rows_per_cta(self) -> int:
        return self.geometry.rows_per_cta

    @property
    def partial(self) -> bool:
        """Whether only some warps take part (the slice misses a column block)."""
        return self.blocks < self.fold

    @property
    def taking_part(self) -> int:
        """How many warps of the warpgroup take part."""
        return self.blocks * self.warps_per_block if self.fold > 1 else WARPS

    def describe(self) -> str:
        """``.32x32b.x32, 1 message x 4 warps, 32 registers per thread``."""
        pack = (".unpack::16b" if self.op == "st" else ".pack::16b") if self.pack16 else ""
        return (f".{self.shape}.x{self.num}{pack}, {self.messages} "
                f"message{'s' if self.messages != 1 else ''} x {self.taking_part} "
                f"warp{'s' if self.taking_part != 1 else ''}, {self.registers} "
                f"register{'s' if self.registers != 1 else ''} per thread")


def _verb(op: str) -> str:
    return {"ld": "loaded", "st": "stored", "ld_red": "loaded with a reduction"}[op]


# The fragment of each shape (tmem-facts section 2), as (dl, dc, access): register r of
# thread l holds lane taddr.lane + dl, column taddr.column + dc + access * immHalfSplitoff.
# `l` may be symbolic, `r` is always an int.
_OFFSETS = MappingProxyType({
    "32x32b": lambda l, r: (l, r, 0),
    "16x64b": lambda l, r: (l // 4 + 8 * (l % 2), (l // 2) % 2 + 2 * r, 0),
    "16x128b": lambda l, r: (l // 4 + 8 * (r % 2), l % 4 + 4 * (r // 2), 0),
    "16x256b": lambda l, r: (l // 4 + 8 * ((r // 2) % 2), r % 2 + 2 * (l % 4) + 8 * (r // 4), 0),
    "16x32bx2": lambda l, r: (l % 16, r, l // 16),
})


def warp_block(access: WarpgroupAccess, warp):
    """The column block of D on the lanes warp `warp` reaches (0 unless the layout
    folds): block j sits on lanes jR .. jR+R-1, R = rows per CTA."""
    if access.fold == 1:
        return 0
    return warp // access.warps_per_block


def first_block(access: WarpgroupAccess, column):
    """The column block in which the slice starting at logical column `column` begins."""
    if access.fold == 1:
        return 0
    return column // access.block


def block_offset(access: WarpgroupAccess, warp, column):
    """Which of the slice's column blocks warp `warp` holds: the warp takes part iff
    0 <= block_offset < access.blocks (as an unsigned number: a negative offset wraps)."""
    return warp_block(access, warp) - first_block(access, column)


def message_address(access: WarpgroupAccess, *, warp, message: int, column):
    """(lane, column) of message `message` of warp `warp`, relative to the buffer's TMEM
    address (whose lane field already carries the buffer's lane offset): the lane
    quarter of the warp (9.7.16.8.1), plus 16 for the upper lane half of a 16-lane shape
    on a full-datapath layout; the slice's first TMEM column in the warp's block plus
    the columns of the earlier messages."""
    half, step = message % access.lane_halves, message // access.lane_halves
    lane = warp * LANES_PER_WARP + 16 * half
    first = column % access.block if access.fold > 1 else column
    return lane, first + step * access.message_columns


def element(access: WarpgroupAccess, *, warp, thread, reg: int, half: int = 0, cta=0,
            column=0):
    """(row, column) of the logical slice that register `reg` (16-bit half `half` when
    packed) of `thread` in warp `warp` moves: the row of D (cta * R + the row within the
    CTA, for the CTA `cta` of a cta_group::2 pair) and the column relative to the slice's
    first column `column`.

    The fragment of the message shape (tmem-facts section 2) gives the cell relative to
    the message's taddr; the layout's inverse (tmem-facts section 1) turns the cell back
    into D's row and column. `column` matters only for folded layouts, where it decides
    which block the warp's columns belong to.
    """
    message, r = divmod(reg, access.message_registers)
    lane_half, step = message % access.lane_halves, message // access.lane_halves
    dl, dc, second = _OFFSETS[access.shape](thread, r)
    if access.pack16:
        dc = 2 * dc + half
    tcol = step * access.message_columns + dc
    if access.shape == "16x32bx2":
        tcol = tcol + second * access.half_split
    rows = access.rows_per_cta
    if access.geometry.half:
        # F, C as F: rows 16w .. 16w+15 of the CTA on the warp's 16 lanes at the offset.
        return cta * rows + warp * 16 + dl, tcol
    per_block = access.warps_per_block
    if per_block == WARPS:
        lane = warp * LANES_PER_WARP
    elif per_block == 1:
        lane = 0
    else:
        lane = (warp % per_block) * LANES_PER_WARP
    row = cta * rows + lane + 16 * lane_half + dl
    if access.fold == 1:
        return row, tcol
    return row, block_offset(access, warp, column) * access.block + tcol


def reduced_slots(access: WarpgroupAccess) -> int:
    """Rows of D each thread holds after tcgen05.ld.red: one per lane half of a warp."""
    return access.lane_halves


def reduced_row(access: WarpgroupAccess, *, warp, thread, slot: int, cta=0):
    """The row whose reduction slot `slot` of `thread` holds. The row of a register
    depends only on its lane half for the two ld.red shapes (.32x32b: lane l;
    .16x32bx2: lane l mod 16), so it is the row of the slot's first register."""
    return element(access, warp=warp, thread=thread, reg=slot * access.message_registers,
                   cta=cta)[0]


def reduced_copy(access: WarpgroupAccess, thread):
    """0 for the thread that owns its rows' reductions, 1 for a second holder of the
    same row (.16x32bx2: threads l and l + 16 both read lane l mod 16)."""
    if access.shape == "16x32bx2":
        return thread // 16
    return 0
