"""The table of 9.7.16.10.5 as data: Tensor Memory's size and quarters, one ``LayoutInfo``
per data-path layout A-G (which MMAs use it, its lane alignment), the readings of Layout
C, ``Footprint`` (the TMEM cells an operand takes), the geometry each layout gives D, and
the checks of a D shape and lane offset against a layout. ``layouts`` selects layouts and
maps operands onto them (and re-exports this module's names).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from .errors import IsaRuleError


# 9.7.16.1: Tensor Memory is 128 lanes x 512 columns of 32-bit cells per CTA.
TMEM_LANES = 128
TMEM_COLUMNS = 512
# 9.7.16.8.1: warp w of a warpgroup may access lanes 32w .. 32w+31 only.
LANES_PER_QUARTER = 32
QUARTERS = TMEM_LANES // LANES_PER_QUARTER
# Half-datapath layouts (F, C) use 16 lanes of every quarter: rows 16q .. 16q+15 of the
# CTA's rows sit in quarter q at the lane offset (tmem-facts section 1).
HALF_LANES = 16

_RULE = "9.7.16.10.5"
_RULE_TMEM = "9.7.16.1"
_RULE_PAIR = "9.7.16.5.1"
_BOTH = frozenset({False, True})


@dataclass(frozen=True)
class LayoutInfo:
    """One row of the 9.7.16.10.5 table plus the geometry tmem-facts section 1 gives it.

    ``rows_per_cta`` is how many rows of D each CTA holds (M, or M/2 for cta_group::2).
    ``half_datapath`` marks the "1/2 datapath utilized" layouts (F, C), whose rows use 16
    lanes of each quarter. ``lane_alignments`` are the lane fields the operand addresses
    may carry (last column of the table). ``organization`` is the table's "Datapath
    organization" text verbatim (the table says "2x3" for E; tmem-facts section 1 notes
    that every implementation treats E as 2x2, which is what the mapping here does).
    ``column_fold`` is the factor by which the layout folds D's N columns into fewer TMEM
    columns by stacking column blocks on otherwise idle lanes (B, E: 2; G: 4; others 1).
    ``sparse`` and ``ws`` are the values of "A is sparse" and "is .ws" the row admits.
    ``confidence`` is tmem-facts' rating of the lane/column mapping.
    """

    name: str
    m: int
    cta_group: int
    rows_per_cta: int
    half_datapath: bool
    lane_alignments: tuple[int, ...]
    description: str
    organization: str
    column_fold: int
    sparse: frozenset[bool]
    ws: frozenset[bool]
    confidence: str


def _layout(name, m, cta_group, organization, sparse, ws, alignments, description,
            confidence="H"):
    rows = m // cta_group
    half = organization.endswith("(1/2 datapath utilized)")
    # Layouts that use all 128 lanes but hold fewer than 128 rows per CTA stack column
    # blocks of D on the idle lanes (tmem-facts section 1: B, E fold by 2, G by 4).
    fold = 1 if half else TMEM_LANES // rows
    return LayoutInfo(name, m, cta_group, rows, half, alignments, description,
                      organization, fold, sparse, ws, confidence)


# Transcription of the 9.7.16.10.5 table. "Either" sparsity/.ws becomes both values; the
# ".ws: N/A" of the cta_group::2 rows means .ws does not exist there (Table 39 marks
# .ws with cta_group 2 invalid), so those rows admit only ws=False.
LAYOUTS: Mapping[str, LayoutInfo] = MappingProxyType({
    info.name: info
    for info in (
        _layout("A", 256, 2, "4x1", _BOTH, frozenset({False}), (0,),
                "M=256, cta_group::2: each CTA holds 128 rows, row r_loc on lane r_loc, "
                "column c on column c."),
        _layout("B", 128, 2, "2x2", frozenset({False}), frozenset({False}), (0,),
                "M=128, cta_group::2, dense A: each CTA holds 64 rows; columns [0, N/2) "
                "on lanes 0-63 and [N/2, N) on lanes 64-127, so D takes N/2 columns."),
        _layout("C", 128, 2, "4x1 (1/2 datapath utilized)", frozenset({True}),
                frozenset({False}), (0, 16),
                "M=128, cta_group::2, sparse A: each CTA holds 64 rows; read as Layout F "
                "(16 rows per lane quarter at the lane offset) by default, or as the "
                "Layout-B atom (layout_c='B').",
                confidence="L"),
        _layout("D", 128, 1, "4x1", _BOTH, _BOTH, (0,),
                "M=128, cta_group::1: row r on lane r, column c on column c."),
        _layout("E", 64, 1, "2x3", _BOTH, frozenset({True}), (0,),
                "M=64, .ws: columns [0, N/2) on lanes 0-63 and [N/2, N) on lanes 64-127, "
                "so D takes N/2 columns."),
        _layout("F", 64, 1, "4x1 (1/2 datapath utilized)", _BOTH, frozenset({False}),
                (0, 16),
                "M=64, not .ws: rows 16q..16q+15 on lanes 32q+a..32q+a+15 (a = lane "
                "offset 0 or 16); the other 16 lanes of each quarter stay free."),
        _layout("G", 32, 1, "1x4", _BOTH, frozenset({True}), (0,),
                "M=32, .ws: column block j = c div N/4 on lanes 32j..32j+31, so D takes "
                "N/4 columns.",
                confidence="H (no hardware test)"),
    )
})

# Readings of the uncertain Layout C (tmem-facts section 1, confidence L).
LAYOUT_C_READINGS = ("F", "B")


@dataclass(frozen=True)
class Footprint:
    """The TMEM region one operand occupies in each CTA.

    ``columns``: the operand uses columns ``[0, columns)`` relative to its address.
    ``lanes``: sorted, disjoint ``(first_lane, count)`` ranges of absolute lanes, e.g.
    ``((0, 128),)`` for all lanes or ``((16, 16), (48, 16), (80, 16), (112, 16))`` for a
    half-datapath operand at lane offset 16. The region is ``lanes x columns``; for D every
    cell of it is used, for scale factors and sparse metadata it is the bounding region.
    ``copies``: how many cells hold each logical element (1 unless the layout duplicates
    the operand across lane blocks, as A does for Layouts B and E and scale factors do
    across the four lane quarters).
    """

    columns: int
    lanes: tuple[tuple[int, int], ...]
    copies: int = 1

    @property
    def num_lanes(self) -> int:
        """Number of lanes the footprint touches."""
        return sum(count for _, count in self.lanes)

    @property
    def num_cells(self) -> int:
        """Number of 32-bit cells in the region (lanes x columns)."""
        return self.num_lanes * self.columns

    def contains(self, lane: int, column: int) -> bool:
        """Whether the cell (lane, column) lies in the region."""
        return 0 <= column < self.columns and any(
            first <= lane < first + count for first, count in self.lanes)


_ALL_LANES = ((0, TMEM_LANES),)


def _half_lanes(lane_offset: int) -> tuple[tuple[int, int], ...]:
    return tuple((LANES_PER_QUARTER * q + lane_offset, HALF_LANES) for q in range(QUARTERS))


# ---------------------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------------------

def _info(layout: str) -> LayoutInfo:
    try:
        return LAYOUTS[layout]
    except (KeyError, TypeError):
        raise IsaRuleError(
            _RULE, f"unknown data-path layout {layout!r}; the layouts are A-G") from None


@dataclass(frozen=True)
class Geometry:
    """The mapping parameters a layout (and, for C, the chosen reading) resolves to.

    ``half``: rows on 16 lanes of each quarter at the lane offset (F, C read as F).
    ``fold``: how many column blocks of D are stacked on the lanes (B, E, C read as B: 2;
    G: 4; else 1). ``rows_per_cta``: rows of D each CTA holds. ``alignments``: the lane
    offsets the layout allows. ``m`` and ``cta_group``: the MMA's M and CTA group.
    """

    half: bool
    fold: int
    rows_per_cta: int
    alignments: tuple[int, ...]
    m: int = 0
    cta_group: int = 1

    def block_columns(self, n: int) -> int:
        """TMEM columns of one column block of an N-column D: N / fold (N when the layout
        does not fold)."""
        return n // self.fold


_Geometry = Geometry


def _geometry(layout: str, layout_c: str) -> Geometry:
    info = _info(layout)
    if layout_c not in LAYOUT_C_READINGS:
        raise ValueError(f"layout_c must be 'F' or 'B', not {layout_c!r}")
    if layout == "C" and layout_c == "B":
        # CUTLASS's reading (tmem-facts section 1, confidence L): Layout C reuses the
        # Layout-B atom. That atom spans all 128 lanes, so only lane offset 0 makes sense.
        b = LAYOUTS["B"]
        return Geometry(False, b.column_fold, b.rows_per_cta, b.lane_alignments,
                        info.m, info.cta_group)
    return Geometry(info.half_datapath, info.column_fold, info.rows_per_cta,
                    info.lane_alignments, info.m, info.cta_group)


def geometry(layout: str, layout_c: str = "F") -> Geometry:
    """The geometry of ``layout`` under the Layout-C reading ``layout_c`` ("F" or "B";
    it matters for Layout C only). Raises ``IsaRuleError`` for an unknown layout."""
    return _geometry(layout, layout_c)


def check_d_shape(layout: str, *, m: int, n: int, cta_group: int,
                  layout_c: str = "F", mma: bool = True) -> Geometry:
    """Checks that an M x N buffer of a cta_group::``cta_group`` kernel can have
    ``layout`` (M is the pair's M for cta_group::2), and returns its geometry.

    The layout's row of the 9.7.16.10.5 table fixes M and the CTA group; N must fold
    into whole column blocks. ``mma``: an MMA's accumulator, whose N Table 39 bounds by
    256; a buffer only tcgen05.ld/st/cp touch (``mma=False``) is bounded by the 512
    columns of Tensor Memory instead (9.7.16.1). Raises ``IsaRuleError`` naming the rule
    otherwise.
    """
    geo = _geometry(layout, layout_c)
    if cta_group != geo.cta_group:
        raise IsaRuleError(
            _RULE, f"Layout {layout} is a layout of cta_group::{geo.cta_group} MMAs; this "
                   f"kernel is cta_group::{cta_group}")
    _check_m(layout, m)
    _check_n(layout, geo, n, mma=mma)
    return geo


def _check_m(layout: str, m: int) -> LayoutInfo:
    info = _info(layout)
    if m != info.m:
        raise IsaRuleError(_RULE, f"Layout {layout} is the layout of M={info.m}, not M={m}")
    return info


def _check_n(layout: str, geo: _Geometry, n: int, *, mma: bool = True) -> None:
    if mma:
        # 256 is the largest N of any .kind (Table 39).
        if not 1 <= n <= 256:
            raise IsaRuleError("Table 39", f"N={n} is outside 1..256")
    elif not 1 <= -(-n // geo.fold) <= TMEM_COLUMNS:
        # A buffer no MMA uses: its footprint must fit the 512 columns of Tensor Memory.
        raise IsaRuleError(_RULE_TMEM, f"N={n} takes {-(-n // geo.fold)} columns, outside "
                                       f"the 1..{TMEM_COLUMNS} columns of Tensor Memory")
    if n % geo.fold:
        raise IsaRuleError(
            _RULE, f"Layout {layout} folds N into N/{geo.fold} columns, so N={n} must be a "
                   f"multiple of {geo.fold}")


def _check_lane_offset(layout: str, geo: _Geometry, lane_offset: int) -> None:
    if lane_offset not in geo.alignments:
        allowed = " or ".join(str(a) for a in geo.alignments)
        raise IsaRuleError(
            _RULE, f"Layout {layout} needs TMEM lane alignment {allowed}, not {lane_offset}")
