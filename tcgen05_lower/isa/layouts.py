"""Data-path layouts of Tensor Memory operands of ``tcgen05.mma`` (PTX ISA 9.7.16.10.5).

Which MMA uses which of the seven layouts A-G, and which TMEM lane alignment each layout
allows, is the table of 9.7.16.10.5. How a layout places ``D[row][col]`` in lanes and
columns the ISA shows only as figures (Figures 205-218); that mapping comes from
``tmem-facts.md`` section 1, and the placement of block-scale factors and sparse metadata
from ``tmem-facts.md`` section 3. Facts that section rates L (inferred or disputed) are
marked ``confidence L`` where they are used and are configurable where the sources differ.

Coordinates used throughout:

* ``lane`` is an absolute TMEM lane, 0..127 (9.7.16.1: 128 lanes per CTA).
* ``column`` is relative to the column field of the operand's TMEM address (``d-tmem``,
  ``a-tmem``, ...), i.e. 0 is the buffer's first column (9.7.16.1.1: an address is
  ``lane << 16 | column``).
* ``lane_offset`` is the lane field of that address. Only the half-datapath layouts F and
  C allow 16; every other layout needs 0 (9.7.16.10.5, last table column).
* ``cta`` is the CTA's position in its CTA pair, ``%cluster_ctarank & 1`` (9.7.16.5.1);
  always 0 for ``cta_group::1``. Both CTAs of a pair use the same TMEM address, so every
  footprint below is per CTA and identical in the two CTAs (tmem-facts section 1).

Nothing here checks Table 39 (which N a given .kind allows); a layout's mapping only needs
N to be divisible by the factor by which the layout folds N into fewer columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from .errors import IsaRuleError
# The 9.7.16.10.5 table as data (re-exported: callers read layouts.LAYOUTS ...).
from .layout_table import (Footprint, Geometry, HALF_LANES, LANES_PER_QUARTER, LAYOUTS,
                           LAYOUT_C_READINGS, LayoutInfo, QUARTERS, TMEM_COLUMNS, TMEM_LANES,
                           _ALL_LANES, _RULE, _RULE_PAIR, _RULE_TMEM, _check_lane_offset,
                           _check_m, _check_n, _geometry, _half_lanes, check_d_shape, geometry)

__all__ = [
    "TMEM_LANES",
    "TMEM_COLUMNS",
    "LayoutInfo",
    "LAYOUTS",
    "LAYOUT_C_READINGS",
    "Geometry",
    "geometry",
    "check_d_shape",
    "Footprint",
    "select_layout",
    "d_footprint",
    "d_to_tmem",
    "tmem_to_d",
    "rows_of_cta",
    "a_row_lanes",
    "a_tmem_footprint",
    "scale_factor_footprint",
    "scale_factor_cells",
    "scale_factor_id_for_k_block",
    "CP_SHAPES",
    "CopyFootprint",
    "cp_footprint",
    "sparse_metadata_footprint",
    "SPARSE_KINDS",
]

# ---------------------------------------------------------------------------------------
# Layout selection
# ---------------------------------------------------------------------------------------

def select_layout(*, m: int, cta_group: int, sparse: bool = False, ws: bool = False) -> str:
    """Return the data-path layout ("A".."G") of an MMA, per the 9.7.16.10.5 table.

    ``m`` is the MMA's M, ``cta_group`` 1 or 2, ``sparse`` whether A is sparse
    (``tcgen05.mma.sp``), ``ws`` whether it is a ``.ws`` MMA. Raises ``IsaRuleError`` for
    combinations the table has no row for (e.g. M=32 without .ws, M=256 with
    cta_group::1, .ws with cta_group::2).
    """
    for info in LAYOUTS.values():
        if (info.m == m and info.cta_group == cta_group
                and bool(sparse) in info.sparse and bool(ws) in info.ws):
            return info.name
    raise IsaRuleError(
        _RULE, f"no data-path layout for M={m}, cta_group::{cta_group}, "
               f"{'sparse' if sparse else 'dense'} A, {'.ws' if ws else 'non-.ws'}")


def rows_of_cta(layout: str, m: int, cta: int) -> range:
    """Logical rows of D (and of A) that CTA ``cta`` of the pair holds.

    For cta_group::2 layouts (A, B, C) the even CTA holds rows ``0 .. M/2-1`` and the odd
    CTA the rest (tmem-facts section 1). For cta_group::1 layouts the only CTA (0) holds
    all M rows.
    """
    info = _check_m(layout, m)
    if cta not in range(info.cta_group):
        raise IsaRuleError(
            _RULE_PAIR, f"cta must be in 0..{info.cta_group - 1} for Layout {layout} "
                        f"(cta_group::{info.cta_group}), not {cta}")
    return range(cta * info.rows_per_cta, (cta + 1) * info.rows_per_cta)


# ---------------------------------------------------------------------------------------
# The D accumulator
# ---------------------------------------------------------------------------------------

def d_footprint(layout: str, n: int, *, lane_offset: int = 0,
                layout_c: str = "F", mma: bool = True) -> Footprint:
    """TMEM region the M x N accumulator D of ``layout`` occupies in each CTA.

    One 32-bit column per element, also for 16-bit D (9.7.16.10.4.1: sub-word D
    elements are not packed). Columns: N, or N/2 for B and E, N/4 for G (tmem-facts
    section 1). Lanes: all 128, except for F (and C read as F): 16 lanes per quarter
    starting at ``lane_offset``. ``mma``: as for :func:`check_d_shape` (Table 39's bound on
    N, or only Tensor Memory's 512 columns for a buffer no MMA uses).
    """
    geo = _geometry(layout, layout_c)
    _check_n(layout, geo, n, mma=mma)
    _check_lane_offset(layout, geo, lane_offset)
    if geo.half:
        return Footprint(n, _half_lanes(lane_offset))
    return Footprint(n // geo.fold, _ALL_LANES)


def d_to_tmem(layout: str, *, m: int, n: int, row: int, col: int, lane_offset: int = 0,
              layout_c: str = "F") -> tuple[int, int, int]:
    """Map the accumulator element ``D[row][col]`` to ``(cta, lane, column)``.

    ``cta`` is the CTA of the pair holding the row (0 for cta_group::1), ``lane`` the
    absolute TMEM lane and ``column`` the column relative to ``d-tmem``. The mapping is
    tmem-facts section 1's table; ``layout_c`` picks the reading of the uncertain Layout C
    ("F": the PTX wording, half datapath like F; "B": CUTLASS's reuse of the Layout-B atom,
    which spans all lanes and so allows only lane offset 0). Raises ``IsaRuleError`` for
    an M that is not the layout's, an N the layout cannot fold, a lane offset the layout
    does not allow, or a row/col outside D.
    """
    geo = _geometry(layout, layout_c)
    _check_m(layout, m)
    _check_n(layout, geo, n)
    _check_lane_offset(layout, geo, lane_offset)
    if not 0 <= row < m:
        raise IsaRuleError(_RULE, f"row {row} is outside D's {m} rows")
    if not 0 <= col < n:
        raise IsaRuleError(_RULE, f"col {col} is outside D's {n} columns")
    cta, r = divmod(row, geo.rows_per_cta)
    if geo.half:
        # F (and C as F): 16 rows per lane quarter, at the lane offset within the quarter.
        quarter, i = divmod(r, HALF_LANES)
        return cta, LANES_PER_QUARTER * quarter + lane_offset + i, col
    # A, B, D, E, G: column block j = col div (N/fold) goes to lanes
    # j*rows_per_cta .. (j+1)*rows_per_cta - 1; A and D have a single block (fold 1).
    width = n // geo.fold
    block, column = divmod(col, width)
    return cta, block * geo.rows_per_cta + r, column


def tmem_to_d(layout: str, *, m: int, n: int, cta: int, lane: int, column: int,
              lane_offset: int = 0, layout_c: str = "F") -> tuple[int, int] | None:
    """Inverse of :func:`d_to_tmem`: the ``(row, col)`` of D held in a TMEM cell.

    Returns ``None`` for cells of the CTA's TMEM that the layout leaves unused (the free
    half of each quarter for F/C, columns past the footprint). Raises ``IsaRuleError`` for
    a ``cta``, ``lane`` or ``column`` outside the TMEM (9.7.16.1) or the CTA pair.
    """
    geo = _geometry(layout, layout_c)
    info = _check_m(layout, m)
    _check_n(layout, geo, n)
    _check_lane_offset(layout, geo, lane_offset)
    if cta not in range(info.cta_group):
        raise IsaRuleError(
            _RULE_PAIR, f"cta must be in 0..{info.cta_group - 1} for Layout {layout}, "
                        f"not {cta}")
    if not 0 <= lane < TMEM_LANES:
        raise IsaRuleError(_RULE_TMEM, f"lane {lane} is outside 0..{TMEM_LANES - 1}")
    if not 0 <= column < TMEM_COLUMNS:
        raise IsaRuleError(_RULE_TMEM, f"column {column} is outside 0..{TMEM_COLUMNS - 1}")
    if geo.half:
        quarter, i = divmod(lane, LANES_PER_QUARTER)
        i -= lane_offset
        if not 0 <= i < HALF_LANES or column >= n:
            return None
        r, col = HALF_LANES * quarter + i, column
    else:
        width = n // geo.fold
        if column >= width:
            return None
        block, r = divmod(lane, geo.rows_per_cta)
        col = block * width + column
    return cta * geo.rows_per_cta + r, col


# ---------------------------------------------------------------------------------------
# A in Tensor Memory
# ---------------------------------------------------------------------------------------

# Container width in TMEM of A's elements, in bits. 6-bit and 4-bit types of
# .kind::mxf8f6f4 sit in 8-bit containers (9.7.16.10.4.3); .kind::mxf4/mxf4nvf4 pack two
# 4-bit values per byte (9.7.16.10.4.5), i.e. 4 bits each; tf32 takes a whole cell.
A_BITS = (4, 8, 16, 32)


def a_row_lanes(layout: str, *, m: int, row: int, lane_offset: int = 0,
                layout_c: str = "F") -> tuple[int, tuple[int, ...]]:
    """Where row ``row`` of an A operand in TMEM must be stored: ``(cta, lanes)``.

    ``lanes`` lists every lane of that CTA that must hold a copy of the row (its
    elements then run along the columns, packed). Per tmem-facts section 1:

    * A, D: the row's own lane, like D. F (and C as F): D's lane at the lane offset.
    * B (and C as B): each CTA's 64 rows are duplicated, row r on lanes r and r+64.
    * E: the MMA reads A from lanes 0-63 for D columns [0, N/2) and from lanes 64-127 for
      [N/2, N), so an ordinary GEMM stores row r on lanes r and r+64.
    * G: by analogy with E, row r on lanes r, r+32, r+64, r+96 (one copy per column
      block of D). tmem-facts does not state this: confidence L.
    """
    geo = _geometry(layout, layout_c)
    _check_m(layout, m)
    _check_lane_offset(layout, geo, lane_offset)
    if not 0 <= row < m:
        raise IsaRuleError(_RULE, f"row {row} is outside A's {m} rows")
    cta, r = divmod(row, geo.rows_per_cta)
    if geo.half:
        quarter, i = divmod(r, HALF_LANES)
        return cta, (LANES_PER_QUARTER * quarter + lane_offset + i,)
    return cta, tuple(r + j * geo.rows_per_cta for j in range(geo.fold))


def a_tmem_footprint(layout: str, *, m: int, k: int, a_bits: int,
                     sparse: bool | None = None, lane_offset: int = 0,
                     layout_c: str = "F") -> Footprint:
    """TMEM region an A operand (``[a-tmem]`` form of tcgen05.mma) occupies per CTA.

    ``k`` is the MMA's K (Table 39). ``a_bits`` is the width of one element's container
    in TMEM: 16 for f16/bf16, 32 for tf32, 8 for 8-bit types and for the 6/4-bit types of
    .kind::mxf8f6f4 (which use 8-bit containers, 9.7.16.10.4.3), 4 for .kind::mxf4 and
    .kind::mxf4nvf4 (two per byte, 9.7.16.10.4.5). A 32-bit column holds 32/a_bits
    elements. With ``sparse`` (default: True for Layout C, which exists only for sparse A,
    False otherwise) A is stored compressed as M x K/2 (9.7.16.10.8).

    Lanes and ``copies`` model the duplication tmem-facts section 1 requires for B and E
    (2 copies over all 128 lanes) and that is inferred for G (4 copies, confidence L);
    see :func:`a_row_lanes`. F and C-as-F use the same lane offset as D (9.7.16.10.5).
    """
    geo = _geometry(layout, layout_c)
    info = _check_m(layout, m)
    _check_lane_offset(layout, geo, lane_offset)
    if sparse is None:
        sparse = layout == "C"
    if bool(sparse) not in info.sparse:
        raise IsaRuleError(
            _RULE, f"Layout {layout} is used only for {'sparse' if not sparse else 'dense'} A")
    if a_bits == 6:
        raise IsaRuleError(
            "9.7.16.10.4.3", "6-bit A elements occupy 8-bit containers in TMEM; pass a_bits=8")
    if a_bits not in A_BITS:
        raise IsaRuleError("9.7.16.10.4", f"a_bits={a_bits} is not one of {A_BITS}")
    if k < 1 or (sparse and k % 2):
        raise IsaRuleError("Table 39", f"K={k} is not a valid {'sparse ' if sparse else ''}K")
    stored_k = k // 2 if sparse else k
    bits = stored_k * a_bits
    if bits % 32:
        raise IsaRuleError(
            "9.7.16.10.4", f"{stored_k} elements of {a_bits} bits do not fill whole 32-bit "
                           f"columns")
    if geo.half:
        return Footprint(bits // 32, _half_lanes(lane_offset))
    return Footprint(bits // 32, _ALL_LANES, copies=geo.fold)


# ---------------------------------------------------------------------------------------
# tcgen05.cp (9.7.16.2.3, 9.7.16.9.2)
# ---------------------------------------------------------------------------------------

#: 9.7.16.2.3: each tcgen05.cp shape as (rows, bits per row); a row goes to one lane, its
#: bits along 32-bit columns.
CP_SHAPES = MappingProxyType({"128x256b": (128, 256), "4x256b": (4, 256),
                               "128x128b": (128, 128), "64x128b": (64, 128),
                               "32x128b": (32, 128)})
#: 9.7.16.9.2: ".64x128b requires .warpx2::02_13 or .warpx2::01_23", ".32x128b requires
#: .warpx4"; the other shapes take no .multicast.
CP_MULTICAST = MappingProxyType({"64x128b": ("warpx2::02_13", "warpx2::01_23"),
                                  "32x128b": ("warpx4",)})
_RULE_CP = "9.7.16.9.2"


@dataclass(frozen=True)
class CopyFootprint:
    """The cells one ``tcgen05.cp`` writes in each CTA it copies into: lanes (sorted,
    disjoint ``(first_lane, count)`` ranges of absolute lanes) x columns
    ``[first_column, first_column + columns)`` relative to the destination's address."""

    lanes: tuple[tuple[int, int], ...]
    first_column: int
    columns: int

    @property
    def end_column(self) -> int:
        """One past the last column written."""
        return self.first_column + self.columns

    def lane_indices(self) -> tuple[int, ...]:
        """All lanes written, ascending."""
        return tuple(lane for first, count in self.lanes
                     for lane in range(first, first + count))

    @property
    def whole_quarters(self) -> bool:
        """Whether every lane of each 32-lane quarter it touches is written."""
        return all(first % LANES_PER_QUARTER == 0 and count % LANES_PER_QUARTER == 0
                   for first, count in self.lanes)


def cp_footprint(shape: str, multicast: str | None = None, *, lane_offset: int = 0,
                 column: int = 0) -> CopyFootprint:
    """The lanes and columns ``tcgen05.cp.shape{.multicast} [taddr]`` writes, for a taddr
    at ``lane_offset`` and ``column`` of the destination.

    Columns: a row of ``bits`` is ``bits / 32`` columns from taddr's column (9.7.16.2.3:
    "size indicates the amount of data ... across the columns"): 8 for .128x256b and
    .4x256b, 4 for the 128-bit shapes. Lanes: .128x256b and .128x128b move 128 rows to
    the 128 lanes; .32x128b.warpx4 multicasts its 32 rows "into all 4 warps", i.e. to
    every 32-lane quarter; .64x128b.warpx2 multicasts into warp pairs, "each warp in the
    warp pair receive[s] half of the data", i.e. 32 rows to each of the four quarters
    (9.7.16.9.2). So every shape but .4x256b writes whole quarters, all four of them,
    and needs taddr's lane to be 0. .4x256b writes 4 lanes from taddr's lane.
    """
    if shape not in CP_SHAPES:
        raise IsaRuleError(_RULE_CP, f"tcgen05.cp shape .{shape} is not one of "
                                     f"{', '.join(CP_SHAPES)}")
    allowed = CP_MULTICAST.get(shape, (None,))
    if multicast not in allowed:
        raise IsaRuleError(_RULE_CP, f".{shape} takes "
                                     f"{' or '.join('.' + m for m in allowed if m) or 'no .multicast'}, "
                                     f"not {'.' + multicast if multicast else 'none'}")
    rows, bits = CP_SHAPES[shape]
    if shape == "4x256b":
        if not 0 <= lane_offset <= TMEM_LANES - rows:
            raise IsaRuleError(_RULE_TMEM, f".4x256b at lane {lane_offset} runs past lane "
                                           f"{TMEM_LANES - 1}")
        return CopyFootprint(((lane_offset, rows),), column, bits // 32)
    if lane_offset:
        raise IsaRuleError(_RULE_CP, f".{shape}{'.' + multicast if multicast else ''} writes "
                                     f"all four 32-lane quarters; it needs lane 0, not "
                                     f"{lane_offset}")
    return CopyFootprint(_ALL_LANES, column, bits // 32)


# ---------------------------------------------------------------------------------------
# Block-scale factors (9.7.16.10.7, tmem-facts section 3)
# ---------------------------------------------------------------------------------------

# Allowed scale-factor IDs, as byte offsets within the 32-bit cell: a byte offset for
# scale_vec::1X (9.7.16.10.7.2.1), a half-word offset 0 or 2 for 2X (9.7.16.10.7.2.2),
# 0 for 4X (9.7.16.10.7.2.3).
SF_IDS = MappingProxyType({1: (0, 1, 2, 3), 2: (0, 2), 4: (0,)})


def scale_factor_id_for_k_block(*, k_offset: int, k: int, per_mma: int) -> int:
    """The scale-factor ID of the MMA that reads the K block at `k_offset` (a multiple of
    its K) of tiles whose scale factors a scale buffer holds in K order.

    Each MMA uses ``per_mma`` scale factors per row (Table 54: 1 for scale_vec::1X, 2 for
    2X, 4 for 4X); the ID selects where in the 32-bit cell they start: a byte offset for
    1X, a half-word offset 0 or 2 for 2X, 0 for 4X (9.7.16.10.7.2, 9.7.16.10.7.3). K block
    ``j = k_offset / K`` therefore uses factors ``j * per_mma ..`` of the row, byte
    ``j * per_mma``. Blocks whose factors lie past the cell's four bytes would need the
    next columns, which this ID cannot select: an error.
    """
    first = (k_offset // k) * per_mma
    if first + per_mma > 4:
        raise IsaRuleError(
            "9.7.16.10.7.2", f"the K block at k_offset = {k_offset} (K = {k}) uses scale "
                             f"factors {first}..{first + per_mma - 1} of each row, past the "
                             f"4 bytes of a tensor-memory cell that a scale-factor ID can "
                             f"select")
    return first


def _sf_geometry(rows: int, scale_vec: int, operand: str, layout: str | None):
    """(quarter groups, entries per group) for a scale-factor matrix."""
    if scale_vec in (3, 6):
        # K=96 (sm_103a) layouts exist only as figures (9.7.16.10.7.2.4/.5 and
        # 9.7.16.10.7.3.4/.5) and tmem-facts does not describe them.
        raise NotImplementedError(
            f"scale_vec {scale_vec}X (K=96) scale-factor layouts are not modelled")
    if scale_vec not in SF_IDS:
        raise IsaRuleError("Table 54", f"scale_vec::{scale_vec}X is not 1X, 2X or 4X")
    if operand not in ("A", "B"):
        raise ValueError(f"operand must be 'A' or 'B', not {operand!r}")
    if not 1 <= rows <= 256:
        raise IsaRuleError("Table 39", f"{rows} scale-factor rows is outside 1..256 (M or N)")
    if operand == "B" and layout == "B":
        # tmem-facts section 3 (confidence M): with Layout B the B scales of n < N/2 go to
        # quarters 0 and 1, the rest to quarters 2 and 3, in the same columns -- matching
        # D's column blocks on lanes 0-63 and 64-127.
        if rows % 2:
            raise IsaRuleError(_RULE, f"Layout B splits N in halves; N={rows} is odd")
        return ((0, 1), (2, 3)), rows // 2
    # Otherwise every scale factor is duplicated into all four lane quarters (9.7.16.10.7:
    # "duplicated to all 32 lane partitions"; tmem-facts section 3).
    return (tuple(range(QUARTERS)),), rows


def scale_factor_footprint(*, rows: int, scale_vec: int, operand: str = "A",
                           layout: str | None = None) -> Footprint:
    """TMEM region of a block-scale-factor matrix (scale_A or scale_B) per CTA.

    ``rows`` is the number of A rows this CTA holds (scale_A) or N (scale_B);
    ``scale_vec`` is 1, 2 or 4 (scale factors per row per MMA, Table 54). Row i goes to
    lane ``i mod 32`` of every quarter, column ``i div 32``, bytes ``SF_ID ..
    SF_ID+scale_vec-1`` (tmem-facts section 3), so 128 rows fill 4 columns whatever the
    scale_vec, each element stored 4 times. For ``operand="B"`` with ``layout="B"``
    the halves of N go to quarters 0-1 and 2-3 (2 copies each, confidence M). The
    footprint is the bounding region; the K=96 forms (scale_vec 3 and 6) raise
    ``NotImplementedError``.
    """
    groups, held = _sf_geometry(rows, scale_vec, operand, layout)
    per_quarter = min(held, LANES_PER_QUARTER)
    columns = -(-held // LANES_PER_QUARTER)
    lanes = tuple((LANES_PER_QUARTER * q, per_quarter) for q in range(QUARTERS))
    return Footprint(columns, lanes, copies=len(groups[0]))


def scale_factor_cells(*, index: int, rows: int, scale_vec: int, sf_id: int = 0,
                       operand: str = "A", layout: str | None = None
                       ) -> tuple[tuple[int, int, int], ...]:
    """Every ``(lane, column, byte)`` holding a scale factor of row/column ``index``.

    One entry per copy and per scale factor ``k < scale_vec``: lane ``32q + i mod 32``,
    column ``i div 32`` (relative to the scale-factor address), byte ``sf_id + k``
    (tmem-facts section 3). ``sf_id`` must be 0-3 for 1X, 0 or 2 for 2X, 0 for 4X
    (9.7.16.10.7.2). Parameters otherwise as :func:`scale_factor_footprint`.
    """
    groups, held = _sf_geometry(rows, scale_vec, operand, layout)
    if sf_id not in SF_IDS[scale_vec]:
        raise IsaRuleError(
            "9.7.16.10.7.2", f"scale-factor ID {sf_id} is not allowed with "
                             f"scale_vec::{scale_vec}X (allowed: {SF_IDS[scale_vec]})")
    if not 0 <= index < rows:
        raise IsaRuleError("9.7.16.10.7", f"index {index} is outside 0..{rows - 1}")
    group, i = divmod(index, held)
    column, lane_in_quarter = divmod(i, LANES_PER_QUARTER)
    return tuple((LANES_PER_QUARTER * q + lane_in_quarter, column, sf_id + k)
                 for q in groups[group] for k in range(scale_vec))


# ---------------------------------------------------------------------------------------
# Sparse metadata (9.7.16.10.8.4, tmem-facts section 3)
# ---------------------------------------------------------------------------------------

SPARSE_KINDS = ("tf32", "f16", "f8f6f4", "mxf8f6f4", "i8", "mxf4", "mxf4nvf4")
# Metadata is addressed in 2-column granules (odd column addresses fault).
METADATA_GRANULE_COLUMNS = 2


def _normalize_kind(kind: str) -> str:
    name = kind.lstrip(".")
    if name.startswith("kind::"):
        name = name[len("kind::"):]
    if name not in SPARSE_KINDS:
        raise IsaRuleError("9.7.16.10.8", f"{kind!r} is not a .kind of tcgen05.mma.sp")
    return name


def sparse_metadata_footprint(layout: str, *, m: int, kind: str, lane_offset: int = 0,
                              layout_c: str = "F") -> Footprint:
    """TMEM region of one sparse MMA's metadata per CTA: one 2-column granule.

    Per tmem-facts section 3: for 8-bit kinds (f8f6f4, mxf8f6f4, i8, mxf4, mxf4nvf4)
    lane = row, one bit per dense K element, both columns of the granule. For f16 and tf32
    rows m and m+8 share a cell (16 bits each) and the sparsity selector picks one column
    of the granule; the lanes a 16-row group uses are still that group's 16 lanes. M=64
    uses Layout F's row placement and lane alignment (9.7.16.10.8.5 also requires F and C
    to use D's alignment). For Layouts E and G the metadata is placed like A (see
    :func:`a_row_lanes`), which is an inference (confidence L); Layout C likewise
    (confidence L). Layout B has no sparse form and raises.
    """
    _normalize_kind(kind)
    geo = _geometry(layout, layout_c)
    info = _check_m(layout, m)
    _check_lane_offset(layout, geo, lane_offset)
    if True not in info.sparse:
        raise IsaRuleError(_RULE, f"Layout {layout} is used only for dense A; it has no "
                                  f"sparse metadata")
    if geo.half:
        return Footprint(METADATA_GRANULE_COLUMNS, _half_lanes(lane_offset))
    return Footprint(METADATA_GRANULE_COLUMNS, _ALL_LANES, copies=geo.fold)
