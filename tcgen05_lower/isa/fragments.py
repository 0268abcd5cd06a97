"""Register fragments of ``tcgen05.ld`` / ``tcgen05.st`` (PTX ISA 9.7.16.2.3.1, Table 47).

A warp's ``tcgen05.ld.<shape>.x<num>`` (or ``.st``, which uses Table 48 -- identical to
Table 47 -- and the same mapping) moves a block of TMEM cells to or from 32-bit registers
of its 32 threads. How many registers each thread has is Table 47; which cell each
register holds the ISA shows only as Figures 183-187, so that mapping comes from
``tmem-facts.md`` section 2 (rated H there).

Cells are ``(lane, column)`` with absolute lanes (0..127) and absolute columns; ``lane0``
and ``col0`` are the lane and column fields of ``taddr`` (9.7.16.1.1).

``.pack::16b`` (ld) and ``.unpack::16b`` (st), 9.7.16.8.2: the register count is still
Table 47's, but every register holds two 16-bit halves, each the low 16 bits of one TMEM
column, so a message covers twice the columns. The unpacked mapping's column offset ``dc``
within an access becomes columns ``2*dc`` (bits 0-15 of the register) and ``2*dc + 1``
(bits 16-31); the second access of ``.16x32bx2`` still starts ``immHalfSplitoff`` columns
after ``taddr``, since that offset is added to the address (9.7.16.8.3). tmem-facts
section 2 gives "the low 16 bits of two adjacent columns"; which column lands in which
half is not in the text (Figure 193 is an image). Lower column in the low half is the
order of CUTLASS's ``_16b`` copy traits (value bits ``i`` -> TMEM bit
``32*(i div 16) + i mod 16``), rated M here.
"""

from __future__ import annotations

from types import MappingProxyType

from tcgen05_lower.text import did_you_mean

from .errors import IsaRuleError

__all__ = [
    "LD_ST_SHAPES",
    "NUMS",
    "registers_per_thread",
    "valid_nums",
    "lanes_per_access",
    "columns_per_access",
    "fragment_cell",
    "fragment_cells",
]

LD_ST_SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
NUMS = (1, 2, 4, 8, 16, 32, 64, 128)

WARP_SIZE = 32
# 9.7.16.1: 128 lanes x 512 columns per CTA; 9.7.16.8.1: a warp reaches one 32-lane quarter.
TMEM_LANES = 128
TMEM_COLUMNS = 512
LANES_PER_QUARTER = 32

_RULE_TABLE = "Table 47"
_RULE_LD = "9.7.16.8.3"

# Table 47 verbatim: for each .num, the registers per thread for the shape groups
# (.16x32bx2 / .16x64b / .32x32b), (.16x128b), (.16x256b); None where the table says NA.
_TABLE_47_GROUPS = (("16x32bx2", "16x64b", "32x32b"), ("16x128b",), ("16x256b",))
_TABLE_47 = MappingProxyType({
    1: (1, 2, 4),
    2: (2, 4, 8),
    4: (4, 8, 16),
    8: (8, 16, 32),
    16: (16, 32, 64),
    32: (32, 64, 128),
    64: (64, 128, None),
    128: (128, None, None),
})
_GROUP_OF_SHAPE = MappingProxyType({shape: g for g, shapes in enumerate(_TABLE_47_GROUPS)
                                    for shape in shapes})

# Bits of one lane that one repetition (.x1) of the shape moves, i.e. 32-bit columns per
# repetition (9.7.16.2.3: "lane x size"); .16x32bx2 is two .16x32b accesses (9.7.16.8.3).
_COLUMNS_PER_REPEAT = MappingProxyType({"32x32b": 1, "16x64b": 2, "16x128b": 4, "16x256b": 8,
                                        "16x32bx2": 1})


def _check_shape(shape: str) -> None:
    if shape not in LD_ST_SHAPES:
        raise IsaRuleError(
            "9.7.16.2.3", f"{shape!r} is not a tcgen05.ld/st shape; expected one of "
                          f"{', '.join(LD_ST_SHAPES)}" + did_you_mean(shape, LD_ST_SHAPES))


def registers_per_thread(shape: str, num: int) -> int:
    """32-bit registers per thread of ``tcgen05.ld/st.<shape>.x<num>`` (Table 47/48).

    Raises ``IsaRuleError("Table 47", ...)`` for an unknown shape or .num and for the
    combinations the table marks NA (.16x128b.x128, .16x256b.x64, .16x256b.x128).
    """
    _check_shape(shape)
    if num not in _TABLE_47:
        raise IsaRuleError(_RULE_TABLE, f".num must be one of x{', x'.join(map(str, NUMS))}, "
                                        f"not {num}")
    regs = _TABLE_47[num][_GROUP_OF_SHAPE[shape]]
    if regs is None:
        raise IsaRuleError(_RULE_TABLE, f".{shape}.x{num} is NA")
    return regs


def valid_nums(shape: str) -> tuple[int, ...]:
    """The .num values Table 47 allows for ``shape``, ascending."""
    _check_shape(shape)
    group = _GROUP_OF_SHAPE[shape]
    return tuple(num for num in NUMS if _TABLE_47[num][group] is not None)


def lanes_per_access(shape: str) -> int:
    """TMEM lanes one access covers: 32 for .32x32b, 16 for the .16x* shapes (9.7.16.2.3)."""
    _check_shape(shape)
    return 32 if shape == "32x32b" else 16


def columns_per_access(shape: str, num: int, *, pack16: bool = False) -> int:
    """32-bit TMEM columns one ``tcgen05.ld/st.<shape>.x<num>`` covers in each lane.

    ``num`` repetitions of the shape's width (9.7.16.2.3): .32x32b -> num, .16x64b ->
    2*num, .16x128b -> 4*num, .16x256b -> 8*num. For .16x32bx2 both halves are counted:
    2*num. Its halves occupy ``[col0, col0+num)`` and ``[col0+imm, col0+imm+num)`` where
    ``imm`` is immHalfSplitoff (9.7.16.8.3); they are adjacent when ``imm == num`` and
    overlap when ``imm < num`` (then fewer distinct cells are touched). With ``pack16``
    (.pack::16b / .unpack::16b) every count doubles: each register holds two columns.
    """
    registers_per_thread(shape, num)  # validates the combination against Table 47
    halves = 2 if shape == "16x32bx2" else 1
    return _COLUMNS_PER_REPEAT[shape] * num * halves * (2 if pack16 else 1)


# tmem-facts section 2: register r of thread l holds (lane0 + dl, col0 + dc + a * imm),
# where a is the access (1 for the second .16x32b access of .16x32bx2, else 0); each
# entry returns (dl, dc, a). Integer division throughout.
def _cell_32x32b(l: int, r: int) -> tuple[int, int, int]:
    return l, r, 0


def _cell_16x64b(l: int, r: int) -> tuple[int, int, int]:
    return l // 4 + 8 * (l % 2), (l // 2) % 2 + 2 * r, 0


def _cell_16x128b(l: int, r: int) -> tuple[int, int, int]:
    return l // 4 + 8 * (r % 2), l % 4 + 4 * (r // 2), 0


def _cell_16x256b(l: int, r: int) -> tuple[int, int, int]:
    return l // 4 + 8 * ((r // 2) % 2), r % 2 + 2 * (l % 4) + 8 * (r // 4), 0


def _cell_16x32bx2(l: int, r: int) -> tuple[int, int, int]:
    # Threads 0-15 take the first .16x32b access, threads 16-31 the second one at
    # taddr + immHalfSplitoff.
    return l % 16, r, l // 16


_CELL = MappingProxyType({
    "32x32b": _cell_32x32b,
    "16x64b": _cell_16x64b,
    "16x128b": _cell_16x128b,
    "16x256b": _cell_16x256b,
    "16x32bx2": _cell_16x32bx2,
})


def _check_access(shape: str, num: int, lane0: int, col0: int,
                  half_split: int | None, pack16: bool) -> int:
    """Validate the addressing of one access; return immHalfSplitoff (0 if none)."""
    if shape == "16x32bx2":
        if half_split is None:
            raise IsaRuleError(_RULE_LD, ".16x32bx2 needs immHalfSplitoff (half_split)")
        if half_split < 0:
            raise IsaRuleError(_RULE_LD, f"immHalfSplitoff {half_split} is negative")
        imm = half_split
        half_columns = columns_per_access(shape, num, pack16=pack16) // 2
        span = max(half_columns, imm + half_columns)
    else:
        if half_split is not None:
            raise IsaRuleError(_RULE_LD, f"immHalfSplitoff is only for .16x32bx2, not .{shape}")
        imm = 0
        span = columns_per_access(shape, num, pack16=pack16)
    lanes = lanes_per_access(shape)
    if not 0 <= lane0 < TMEM_LANES:
        raise IsaRuleError("9.7.16.1", f"lane {lane0} is outside 0..{TMEM_LANES - 1}")
    # 9.7.16.8.1: a lane is reachable by a single warp of the warpgroup, so one warp's
    # access cannot cross a 32-lane quarter boundary.
    if lane0 % LANES_PER_QUARTER + lanes > LANES_PER_QUARTER:
        raise IsaRuleError(
            "9.7.16.8.1", f"a .{shape} access from lane {lane0} spans {lanes} lanes and "
                          f"crosses a 32-lane quarter")
    if col0 < 0 or col0 + span > TMEM_COLUMNS:
        raise IsaRuleError(
            "9.7.16.1", f"columns {col0}..{col0 + span - 1} are outside 0..{TMEM_COLUMNS - 1}")
    return imm


def fragment_cell(shape: str, num: int, *, thread: int, reg: int, lane0: int = 0,
                  col0: int = 0, half_split: int | None = None, pack16: bool = False,
                  half: int = 0) -> tuple[int, int]:
    """TMEM cell ``(lane, column)`` that register ``reg`` of ``thread`` loads or stores.

    ``thread`` is the lane within the warp (0..31), ``reg`` the index in the register
    vector (0 .. registers_per_thread-1), ``lane0``/``col0`` the lane and column of
    ``taddr``. ``half_split`` is immHalfSplitoff: required for .16x32bx2, rejected for the
    other shapes. Mapping per tmem-facts section 2. With ``pack16`` (.pack::16b /
    .unpack::16b) ``half`` selects the register's 16-bit half: 0 (bits 0-15) or 1
    (bits 16-31), each the low 16 bits of its own column (module docstring).
    """
    regs = registers_per_thread(shape, num)
    imm = _check_access(shape, num, lane0, col0, half_split, pack16)
    if not 0 <= thread < WARP_SIZE:
        raise IsaRuleError(_RULE_LD, f"thread {thread} is outside the warp (0..31)")
    if not 0 <= reg < regs:
        raise IsaRuleError(_RULE_TABLE, f".{shape}.x{num} has {regs} registers per thread; "
                                        f"reg {reg} is outside 0..{regs - 1}")
    if half not in ((0, 1) if pack16 else (0,)):
        raise IsaRuleError("9.7.16.8.2", f"half {half} of a register: only .pack::16b "
                                         f"registers have two 16-bit halves (0 and 1)")
    dl, dc, access = _CELL[shape](thread, reg)
    if pack16:
        dc = 2 * dc + half
    return lane0 + dl, col0 + dc + access * imm


def fragment_cells(shape: str, num: int, *, pack16: bool = False, **kw) -> dict:
    """Every register of every thread of the warp and the cell it moves.

    Unpacked: ``{(thread, reg): (lane, column)}``. With ``pack16``:
    ``{(thread, reg, half): (lane, column)}``, one entry per 16-bit half. Keyword
    arguments are those of :func:`fragment_cell` other than ``thread``/``reg``/``half``.
    """
    regs = registers_per_thread(shape, num)
    if pack16:
        return {(thread, reg, half): fragment_cell(shape, num, thread=thread, reg=reg,
                                                   pack16=True, half=half, **kw)
                for thread in range(WARP_SIZE) for reg in range(regs) for half in (0, 1)}
    return {(thread, reg): fragment_cell(shape, num, thread=thread, reg=reg, **kw)
            for thread in range(WARP_SIZE) for reg in range(regs)}
