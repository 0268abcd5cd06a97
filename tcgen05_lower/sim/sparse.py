"""Sparse MMAs (``tcgen05.mma.sp``) in the simulated tensor core, read from the PTX ISA
text alone: 9.7.16.10.8 (Sparse Matrices), 9.7.16.10.9.2 (``tcgen05.mma.sp``), the
sparsity selector and flag of Table 42 (idesc bits 0-1 and 2), and the placement of the
metadata in tensor memory, which the ISA shows only in Figures 262-267 and
``spec/tmem-facts.md`` section 3 transcribes.

What an ``.sp`` MMA does (9.7.16.10.8, 9.7.16.10.9.2): A (M x K) is structured-sparse and
stored compressed as M x K/2; "the metadata specifies the mapping of the K/2 non-zero
elements to the K elements before performing the MMA operation". This module decodes the
metadata of every row from tensor memory and expands the stored A into the dense M x K
matrix the MMA multiplies; ``tc_mma._build_mma`` does the rest as for a dense MMA.

Modelled: ``.kind::tf32`` (1:2), ``.kind::f16``, ``.kind::f8f6f4`` and ``.kind::i8``
(2:4), for cta_group::1 with M = 128 (Layout D) and M = 64 (Layout F), and cta_group::2
with M = 256 (Layout A) and M = 128 (Layout C, read as the PTX text describes it: see
``layout_c_cells``). Not modelled (SimError): ``.ws.sp``, the block-scaled kinds, the
sparsity selector values the sources do not place (2 and 3), and the metadata value
``0b0110`` (below).

Readings, each with its source
------------------------------
- Metadata values (9.7.16.10.8.1, 9.7.16.10.8.2). One 4-bit nibble per chunk of a row:
  2:4 kinds hold "two 2-bit indices" of the non-zero elements in a 4-wide chunk; tf32
  holds a "4-bit index" per 2-wide chunk whose only meaningful values are 0b0100
  (element 0) and 0b1110 (element 1), i.e. the 2:4 indices of the element's two 16-bit
  halves. Read here: the low 2-bit index belongs to the first stored element of the
  chunk, the high one to the second (so 0b0100 puts the stored pair at positions 0 and 1,
  0b1110 at 2 and 3). "The only meaningful values" are listed; any other value "results
  in undefined behavior" and raises SimError. 0b0110 is listed, but its indices (2, 1)
  are descending and the text does not say whether the first stored element goes to
  position 2 (index order) or to position 1 (memory order), so it raises SimError too
  rather than guess.
- Bit order: chunk q of a row's metadata is bits 4q .. 4q+3 of the row's metadata bits
  for the MMA (tmem-facts section 3: "1 bit per dense K element", chunks in K order from
  bit 0). 32 bits per row for f16 (K = 32, 8 chunks of 4) and tf32 (K = 16, 8 chunks of 2
  elements), 64 bits for f8f6f4 and i8 (K = 64, 16 chunks).
- Placement, 8-bit kinds (tmem-facts section 3, "lane = row, 1 bit per dense K element,
  2 columns per MMA"): row m's 64 bits on the lane D's row m uses, bits 0-31 in the
  metadata address's column c and bits 32-63 in column c + 1 (little-endian along
  columns, as A's elements are packed in tensor memory, 9.7.16.10.4).
- Placement, f16 and tf32 (tmem-facts section 3): "rows m and m+8 share a 32-bit cell:
  lane 16*(m >> 4) + (m & 7) + 8*(j & 1), bit offset 16*((m >> 3) & 1), column j >> 1,
  where j counts 16-element K chunks" (16 elements of f16, i.e. 16 bits of metadata:
  j = 0 is bits 0-15 of the row's 32, j = 1 bits 16-31; for tf32 the same 16-bit halves).
  One MMA's metadata therefore fills one column; "the sparsity selector (0 or 1) picks the
  column of the pair", column c + selector.
- Lanes for M = 64 and Layout C: "M=64 uses Layout F's row placement": the lane given
  above for M = 128 is read as a row index of Layout F (row v on lane 32*(v div 16) +
  v mod 16 + a), i.e. the metadata uses the lanes D uses. For all layouts here the
  metadata's lane for "row" v is the lane D's row v uses, shifted from d-tmem's lane field
  to the metadata address's.
- Alignment: "Metadata is addressed in 2-column granules (odd column addresses fault)"
  (tmem-facts 3): an odd column is a SimError. Layouts F and C "must use the same Tensor
  Memory lane alignment across matrices A, D and the sparsity metadata matrix"
  (9.7.16.10.5, 9.7.16.10.8.5): a metadata or A lane field unlike D's is a SimError; for
  Layouts D and A (alignment 0) the metadata's lane field must be 0.
- Selector (9.7.16.10.8.4.5/6): "must be 0 for .kind::i8 and .kind::f8f6f4"; anything
  else is a SimError.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from tcgen05_lower.sim.state import TMEM_COLUMNS, TMEM_LANES, SimError

#: 9.7.16.10.8: sparse granularity per kind, as (non-zeros, chunk width) in elements.
GRANULARITY = MappingProxyType({"tf32": (1, 2), "f16": (2, 4), "f8f6f4": (2, 4), "i8": (2, 4)})
#: Table 39: K of one sparse MMA (the dense K; A stores K/2 per row).
SPARSE_K = MappingProxyType({"tf32": 16, "f16": 32, "f8f6f4": 64, "i8": 64})

#: 9.7.16.10.8.2: the meaningful 2:4 values, as the positions of the first and second
#: stored element (low index, high index). 0b0110 is omitted on purpose (module docstring).
_POSITIONS_2_4 = MappingProxyType({0b0100: (0, 1), 0b1000: (0, 2), 0b1100: (0, 3),
                                   0b1001: (1, 2), 0b1101: (1, 3), 0b1110: (2, 3)})
#: 9.7.16.10.8.1: the meaningful tf32 values, as the position of the stored element.
_POSITIONS_1_2 = MappingProxyType({0b0100: (0,), 0b1110: (1,)})

#: Layout C (M = 128, cta_group::2, sparse A) has two readings (tmem-facts section 1,
#: confidence L). The simulator implements the one the PTX text supports.
LAYOUT_C_READINGS = ("ptx-text", "cutlass-layout-b")


def positions_table(kind: str) -> MappingProxyType:
    """Metadata nibble -> dense positions of the chunk's stored elements, for ``kind``."""
    return _POSITIONS_1_2 if kind == "tf32" else _POSITIONS_2_4


def check_form(kind: str, ws: bool, cta_group: int, m: int) -> None:
    """The sparse forms modelled here (module docstring); anything else raises."""
    if ws:
        raise SimError("tcgen05.mma.ws.sp is not modelled yet")
    if kind not in GRANULARITY:
        raise SimError(f"tcgen05.mma.sp with .kind::{kind} is not modelled yet")
    if (cta_group, m) not in ((1, 128), (1, 64), (2, 256), (2, 128)):
        raise SimError(f"tcgen05.mma.sp with M = {m}, cta_group::{cta_group} has no "
                       "data-path layout (9.7.16.10.5)")


def layout_c_cells(n: int, taddr: int, reading: str = "ptx-text"):
    """(lanes[64, N], columns[64, N], 64): the D rows one CTA holds in Layout C
    (M = 128, cta_group::2, sparse A; 9.7.16.10.5.3, whose figure is missing).

    Reading "ptx-text" (implemented): the layout table of 9.7.16.10.5 describes Layout C
    exactly as Layout F, "4x1 (1/2 datapath utilized)" with lane alignment "0 or 16", so
    each CTA's 64 rows sit as in Layout F: row r on lane 32*(r div 16) + r mod 16 + a, all
    N columns (tmem-facts section 1's row for C). Reading "cutlass-layout-b" (CUTLASS's
    Layout-B atom, untested on hardware there): not modelled, SimError."""
    if reading == "cutlass-layout-b":
        raise SimError("Layout C read as CUTLASS's Layout-B atom is not modelled: the PTX "
                       "text (9.7.16.10.5: \"4x1 (1/2 datapath utilized)\", lane alignment "
                       "0 or 16) describes Layout C as Layout F, which is the reading the "
                       "simulator implements (tmem-facts section 1, confidence L)")
    if reading != "ptx-text":
        raise ValueError(f"Layout C reading must be one of {LAYOUT_C_READINGS}")
    lane0, col0 = taddr >> 16, taddr & 0xFFFF
    if lane0 not in (0, 16):
        raise SimError(f"Layout C (M = 128, cta_group::2, sparse): d-tmem lane {lane0} must "
                       "be 0 or 16 (9.7.16.10.5)")
    r = np.arange(64).reshape(64, 1)
    c = np.arange(n).reshape(1, n)
    lanes = np.broadcast_to(32 * (r // 16) + r % 16 + lane0, (64, n))
    cols = np.broadcast_to(col0 + c, (64, n))
    if cols.max() >= TMEM_COLUMNS:
        raise SimError(f"D of N = {n} at TMEM address {taddr:#x} runs past tensor memory")
    return lanes, cols, 64


def half_datapath(cta_group: int, m: int) -> bool:
    """Layouts F and C use half the data path (9.7.16.10.5)."""
    return (cta_group, m) in ((1, 64), (2, 128))


class Metadata:
    """The sparsity metadata of one ``.sp`` MMA in one CTA's tensor memory: which cells
    it occupies (``lanes``, ``columns``: [rows, 2], the two cells each row's bits come
    from) and how the stored A is expanded.

    ``row_lanes[v]`` is the lane D's row v uses in this CTA (the ``rows`` rows the CTA
    holds); ``d_lane_field`` the lane field of d-tmem."""

    def __init__(self, kind: str, idesc: int, meta_taddr: int, row_lanes: np.ndarray,
                 d_lane_field: int, half: bool):
        rows = len(row_lanes)
        self.kind, self.rows = kind, rows
        self.nonzeros, self.width = GRANULARITY[kind]
        self.k = SPARSE_K[kind]
        self.chunks = self.k // self.width
        selector = idesc & 0b11                      # Table 42, bits 0-1
        lane_field, col0 = meta_taddr >> 16, meta_taddr & 0xFFFF
        if col0 % 2:
            raise SimError(f"sparse metadata at column {col0}: metadata is addressed in "
                           "2-column granules, an odd column faults (tmem-facts section 3)")
        if half and lane_field != d_lane_field:
            raise SimError(f"sparse metadata at lane {lane_field} but D at lane "
                           f"{d_lane_field}: Layouts F and C must use the same lane "
                           "alignment across A, D and the sparsity metadata (9.7.16.10.8.5)")
        if not half and lane_field != 0:
            raise SimError(f"sparse metadata at lane {lane_field}: for M = 128 / 256 the "
                           "metadata covers lanes 0-127 from lane 0 (tmem-facts section 3)")
        lanes_of_row = row_lanes - d_lane_field + lane_field
        m = np.arange(rows)
        if kind in ("f16", "tf32"):
            if selector not in (0, 1):
                raise SimError(f"sparsity selector {selector} for .kind::{kind} is not "
                               "modelled yet: tmem-facts section 3 places only 0 and 1 (the "
                               "column of the 2-column granule)")
            if rows % 16:
                raise SimError(f"{rows} rows: f16 / tf32 metadata pairs rows m and m+8 "
                               "within 16-row groups (tmem-facts section 3)")
            # [rows, 2]: half j of row m's 32 bits.
            virtual = (16 * (m >> 4) + (m & 7)).reshape(rows, 1) + 8 * np.arange(2)
            self.lanes = lanes_of_row[virtual]
            self.columns = np.full((rows, 2), col0 + selector)
            self.shift = np.broadcast_to((16 * ((m >> 3) & 1)).reshape(rows, 1), (rows, 2))
            self.field_bits = 16
        else:
            if selector != 0:
                raise SimError(f"sparsity selector {selector}: it must be 0 for .kind::"
                               f"{kind} (9.7.16.10.8.4.5, 9.7.16.10.8.4.6)")
            # [rows, 2]: bits 0-31 in column c, bits 32-63 in column c + 1.
            self.lanes = np.broadcast_to(lanes_of_row.reshape(rows, 1), (rows, 2))
            self.columns = np.broadcast_to(col0 + np.arange(2), (rows, 2))
            self.shift = np.zeros((rows, 2), int)
            self.field_bits = 32
        if self.lanes.min() < 0 or self.lanes.max() >= TMEM_LANES \
                or self.columns.max() >= TMEM_COLUMNS:
            raise SimError(f"sparse metadata at TMEM address {meta_taddr:#x} runs past "
                           "tensor memory")

    def cells(self) -> tuple[np.ndarray, np.ndarray]:
        """(lanes, columns) of every cell the MMA reads metadata from."""
        return self.lanes.reshape(-1), self.columns.reshape(-1)

    def row_bits(self, tmem: np.ndarray) -> np.ndarray:
        """The metadata bits of every row for this MMA: uint64[rows]."""
        words = tmem[self.lanes, self.columns].astype(np.uint64)          # [rows, 2]
        fields = (words >> self.shift.astype(np.uint64)) & np.uint64((1 << self.field_bits) - 1)
        return fields[:, 0] | (fields[:, 1] << np.uint64(self.field_bits))

    def positions(self, tmem: np.ndarray) -> np.ndarray:
        """Dense position (0 .. K-1) of every stored element: int[rows, K/2]."""
        return positions_of(self.kind, self.row_bits(tmem), self.chunks)

    def expand(self, tmem: np.ndarray, stored: np.ndarray) -> np.ndarray:
        """The dense A [rows, K] of the stored A [rows, K/2] (9.7.16.10.8): every stored
        element at its position, zeros elsewhere."""
        return expand(stored, self.positions(tmem), self.k)


def positions_of(kind: str, row_bits: np.ndarray, chunks: int) -> np.ndarray:
    """Dense positions int[rows, chunks * non-zeros] of the stored elements of rows whose
    metadata bits are ``row_bits`` (chunk q in bits 4q .. 4q+3). Raises SimError for a
    value the ISA leaves undefined."""
    table = positions_table(kind)
    nonzeros, width = GRANULARITY[kind]
    rows = len(row_bits)
    nibbles = (np.asarray(row_bits, np.uint64).reshape(rows, 1)
               >> (np.uint64(4) * np.arange(chunks, dtype=np.uint64))) & np.uint64(0xF)
    nibbles = nibbles.astype(np.int64)
    lookup = np.full((16, nonzeros), -1, np.int64)
    for value, where in table.items():
        lookup[value] = where
    placed = lookup[nibbles]                                     # [rows, chunks, nonzeros]
    bad = placed[..., 0] < 0
    if bad.any():
        row, chunk = map(int, np.argwhere(bad)[0])
        value = int(nibbles[row, chunk])
        section = "9.7.16.10.8.1" if kind == "tf32" else "9.7.16.10.8.2"
        if value == 0b0110 and kind != "tf32":
            raise SimError(f"sparse metadata value 0b0110 is not modelled yet (row {row}, "
                           f"chunk {chunk}, .kind::{kind}): its two indices are descending "
                           "and the text does not say which stored element goes to which "
                           f"position ({section})")
        raise SimError(f"sparse metadata with undefined behavior: row {row}, chunk {chunk} "
                       f"(.kind::{kind}) is {value:#06b}, none of the meaningful values "
                       f"({section}: \"Rest of the values result in undefined behavior\")")
    base = (width * np.arange(chunks)).reshape(1, chunks, 1)
    return (placed + base).reshape(rows, chunks * nonzeros)


def expand(stored: np.ndarray, positions: np.ndarray, k: int) -> np.ndarray:
    """Dense [rows, k] with ``stored[r, i]`` at column ``positions[r, i]``, zeros elsewhere."""
    rows = stored.shape[0]
    dense = np.zeros((rows, k), stored.dtype)
    dense[np.arange(rows).reshape(rows, 1), positions] = stored
    return dense


def check_a_tmem_alignment(a_taddr: int, d_taddr: int, cta_group: int, m: int) -> None:
    """9.7.16.10.8.5: with Layouts F and C, A in tensor memory uses D's lane alignment."""
    if half_datapath(cta_group, m) and a_taddr >> 16 != d_taddr >> 16:
        raise SimError(f"A in tensor memory at lane {a_taddr >> 16} but D at lane "
                       f"{d_taddr >> 16}: Layouts F and C must use the same lane alignment "
                       "across A, D and the sparsity metadata (9.7.16.10.8.5)")
