"""Sub-byte element types and block-scaled MMAs of the simulated tensor core, read from the
PTX ISA text (section 9.7.16) and ``spec/tmem-facts.md`` sections 3 and 4 alone.

Element types (``.kind::f8f6f4``, ``.kind::mxf8f6f4``, ``.kind::mxf4``, ``.kind::mxf4nvf4``)
-------------------------------------------------------------------------------------------
E2M1 (FP4), E2M3 and E3M2 (FP6) are decoded with ml_dtypes (float4_e2m1fn, float6_e2m3fn,
float6_e3m2fn: no infinity, no NaN), the scale types with float8_e8m0fnu (UE8M0: 2^(e-127),
0xFF is NaN) and float8_e4m3fn restricted to a clear sign bit (UE4M3: 0x7F is NaN).

Containers (9.7.16.10.4):

- ``.kind::f8f6f4`` / ``.kind::mxf8f6f4`` in shared memory (9.7.16.10.4.4): "contiguously
  packed along with padding" -- in the words of 9.7.16.9.1.1 / 9.7.16.9.1.2, "a contiguous
  set of 16 elements of 4-bits each followed by 8 bytes of padding" and "16 elements of
  6-bits each followed by 4 bytes of padding". Every 16-byte unit of a K-major row holds 16
  elements, so these operands address like 8-bit ones: K = 32 elements are 32 bytes of a
  row, whatever the type (Table 39). The padding bytes are not read as data.
- ``.kind::mxf4`` / ``.kind::mxf4nvf4`` in shared memory (9.7.16.10.4.6): "two 4-bit
  elements in a 8-bit container, with no padding"; A in tensor memory the same
  (9.7.16.10.4.5). K = 64 elements are 32 bytes of a row.
- ``.kind::f8f6f4`` / ``.kind::mxf8f6f4`` A in tensor memory (9.7.16.10.4.3): one 4- or
  6-bit element per 8-bit container, but where in the byte the element sits is drawn only
  in Figures 199-201, which neither the text nor tmem-facts transcribes: raises SimError.

Bit order inside packed data (``PACKED_ORDER``): the text says "contiguously packed" and
"two 4-bit elements in a 8-bit container" but gives no order (Figures 199-204 would).
The model takes element i of a group at bits [w*i, w*i + w) of the group read as one
little-endian integer, element 0 in the low bits of byte 0: the conventional order of
packed sub-byte arrays, stated nowhere in the ISA text or tmem-facts. Confidence L, so it
is one constant here; another order would permute the elements of each group.

Block scaling (9.7.16.10.7)
---------------------------
``D = (A * scale_A) * (B * scale_B) + D``: row m of A is cut into ``scale_vec`` chunks of
K / scale_vec elements, chunk j multiplied by scale_A[m, j]; column n of B likewise with
scale_B[j, n] (Table 54). The vector size comes from the qualifiers (9.7.16.10.9.1,
Table 54): ``.scale_vec::1X/2X/4X``, ``.block32`` (1X for mxf8f6f4, 2X for mxf4/mxf4nvf4 at
K = 64) and ``.block16`` (4X, mxf4nvf4, K = 64); without one, mxf4 defaults to .block32
("For .kind::mxf4 when the qualifier .scale_vectorsize is not specified, then it defaults
to .block32"), mxf4nvf4 is an error ("must be explicitly specified"), and mxf8f6f4 takes
1X, the only size Table 54 allows it (the example of 9.7.16.10.9.1 writes
``tcgen05.mma.cta_group::1.kind::mxf8f6f4`` with neither .block_scale nor a size).
Table 55 fixes the scale type: UE8M0 everywhere, UE4M3 only for mxf4nvf4 with 4X.

Scale factors in tensor memory (tmem-facts section 3, confidence H; the ISA: "Scale factors
for A and B matrices need to be duplicated to all 32 lane partitions"): entry i (row i of
A held by this CTA, or column n of B) sits at lane ``32q + i mod 32`` of every lane quarter
q, column ``base + i div 32``, byte ``SF_ID + j`` for its j-th factor; SF_ID is the
descriptor's Matrix A / B Scale Factor Data ID (Tables 43, 44), a byte offset 0-3 for 1X
(9.7.16.10.7.2.1), a half-word offset 0 or 2 for 2X (9.7.16.10.7.2.2), 0 for 4X
(9.7.16.10.7.2.3). The scale-factor address must name lane 0 (the copies span all four
quarters). The model reads every copy and raises SimError when they differ: which copy the
hardware reads is not stated, so a kernel that does not duplicate them has no defined
result. cta_group::2 (tmem-facts section 3, confidence M): each CTA holds the A scales of
its own rows and the B scales of all N; with Layout B (M = 128) the B scales of n < N/2 are
in quarters 0 and 1 and the others in quarters 2 and 3, at n mod N/2.

Not modelled (SimError): K = 96 (Table 44 bit 31; the block32/block16 K = 96 layouts of
9.7.16.10.7.2.4-5 are figures only), sparse block-scaled MMAs, MN-major operands, .ws (not
valid for these kinds, Table 39), sub-byte A in tensor memory for mxf8f6f4. Collector
usage qualifiers (syntax 4) are accepted and A is read from its memory, as tensor_core's
dense MMAs do (9.7.16.10: the memory must not change while the MMA may use it).

Numerics: each element times its scale factor is exact in float64 (at most 4 + 4
significant bits), each product of two such values too (at most 16 bits, exponents within
2^+-300), and their sum over K is formed in float64 (relative error below K * 2^-53), added
to D and rounded once to f32 (the only D type of these kinds, Table 39). A NaN scale factor
(UE8M0 0xFF, UE4M3 0x7F) makes its chunk NaN.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import ml_dtypes
import numpy as np

from tcgen05_lower.sim.state import TMEM_COLUMNS, TMEM_LANES, SimError

#: The kinds that scale A and B by blocks (9.7.16.10.7).
BLOCK_SCALED_KINDS = frozenset({"mxf8f6f4", "mxf4", "mxf4nvf4"})
#: 4- and 6-bit element types (Tables 42-44) and their width in bits.
SUB_BYTE_BITS = MappingProxyType({"e2m1": 4, "e2m3": 6, "e3m2": 6})
_SUB_BYTE_DTYPES = MappingProxyType({"e2m1": ml_dtypes.float4_e2m1fn,
                                     "e2m3": ml_dtypes.float6_e2m3fn,
                                     "e3m2": ml_dtypes.float6_e3m2fn})
_BYTE_DTYPES = MappingProxyType({"e4m3": ml_dtypes.float8_e4m3fn,
                                 "e5m2": ml_dtypes.float8_e5m2})
#: Bit order of packed sub-byte elements: see the module docstring.
PACKED_ORDER = "little"
#: 9.7.16.9.1: a group of 16 sub-byte elements and its padding fill 16 bytes.
PADDED_GROUP = 16

#: Table 39: K of one dense MMA (K = 96 of mxf4/mxf4nvf4 is selected by idesc bit 31).
SCALED_K = MappingProxyType({"mxf8f6f4": 32, "mxf4": 64, "mxf4nvf4": 64})


# -- Elements ------------------------------------------------------------------------------

def unpack_codes(raw: np.ndarray, bits: int) -> np.ndarray:
    """The ``bits``-wide codes packed contiguously in ``raw[rows, bytes]``:
    ``[rows, bytes * 8 / bits]`` (uint8), element i at bits [bits*i, bits*i + bits) of the
    bytes read as one little-endian integer (``PACKED_ORDER``)."""
    raw = np.ascontiguousarray(raw, np.uint8)
    rows, nbytes = raw.shape
    if (nbytes * 8) % bits:
        raise SimError(f"{nbytes} bytes do not hold a whole number of {bits}-bit elements")
    flat = np.unpackbits(raw, axis=1, bitorder=PACKED_ORDER).reshape(rows, -1, bits)
    weights = (1 << np.arange(bits)).astype(np.uint8)
    return (flat * weights).sum(axis=2).astype(np.uint8)


def code_values(codes: np.ndarray, element: str) -> np.ndarray:
    """float64 values of sub-byte codes (the low ``SUB_BYTE_BITS[element]`` bits)."""
    mask = np.uint8((1 << SUB_BYTE_BITS[element]) - 1)
    return (np.asarray(codes, np.uint8) & mask).view(_SUB_BYTE_DTYPES[element]).astype(
        np.float64)


def decode_padded(raw: np.ndarray, element: str) -> np.ndarray:
    """Values ``[rows, K]`` of a 4- or 6-bit operand of .kind::f8f6f4 / mxf8f6f4 in shared
    memory, ``raw[rows, K]`` being K bytes of each row: every 16-byte unit holds 16 packed
    elements (8 bytes of 4-bit or 12 bytes of 6-bit ones) and then padding (9.7.16.10.4.4,
    9.7.16.9.1)."""
    bits = SUB_BYTE_BITS[element]
    rows, nbytes = raw.shape
    if nbytes % PADDED_GROUP:
        raise SimError(f"{nbytes} bytes of a {element} row are not whole 16-byte groups "
                       "of 16 elements and their padding (9.7.16.9.1)")
    data_bytes = PADDED_GROUP * bits // 8
    groups = np.asarray(raw, np.uint8).reshape(rows * (nbytes // PADDED_GROUP), PADDED_GROUP)
    codes = unpack_codes(groups[:, :data_bytes], bits)            # [rows * groups, 16]
    return code_values(codes.reshape(rows, nbytes), element)


def decode_packed_e2m1(raw: np.ndarray) -> np.ndarray:
    """Values ``[rows, 2 * bytes]`` of E2M1 packed two per byte with no padding (.kind::mxf4
    and mxf4nvf4 in shared memory, 9.7.16.10.4.6, and A in tensor memory, 9.7.16.10.4.5)."""
    return code_values(unpack_codes(raw, 4), "e2m1")


def decode_scale_bytes(raw: np.ndarray, scale_type: str) -> np.ndarray:
    """float64 values of scale-factor bytes: UE8M0 = 2^(e - 127), 0xFF NaN; UE4M3 = E4M3
    without a sign (Tables 43, 44, 55). A UE4M3 byte with bit 7 set has no meaning in an
    unsigned type: SimError."""
    raw = np.asarray(raw, np.uint8)
    if scale_type == "ue8m0":
        return raw.view(ml_dtypes.float8_e8m0fnu).astype(np.float64)
    if scale_type == "ue4m3":
        if (raw & 0x80).any():
            bad = int(raw[(raw & 0x80) != 0].reshape(-1)[0])
            raise SimError(f"UE4M3 scale factor {bad:#04x} has bit 7 set: an unsigned E4M3 "
                           "has no sign bit (Table 44, Table 55)")
        return raw.view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    raise SimError(f"scale type {scale_type} is not UE8M0 or UE4M3")


def decode_operand(raw: np.ndarray, element: str, kind: str, in_tmem: bool) -> np.ndarray:
    """Values ``[rows, K]`` of an A or B operand of a block-scaled or f8f6f4 MMA from the
    bytes of its rows (9.7.16.10.4)."""
    if element in _BYTE_DTYPES:
        return np.ascontiguousarray(raw, np.uint8).view(_BYTE_DTYPES[element]).astype(
            np.float64)
    if kind in ("mxf4", "mxf4nvf4"):
        return decode_packed_e2m1(raw)
    if in_tmem:
        raise sub_byte_a_in_tmem(kind, element)
    return decode_padded(raw, element)


def sub_byte_a_in_tmem(kind: str, element: str) -> SimError:
    return SimError(f"A of {element} in tensor memory for .kind::{kind} is not modelled: "
                    "where a 4- or 6-bit element sits in its 8-bit container is shown only "
                    "in Figures 199-201 of 9.7.16.10.4.3")


def row_bytes(kind: str, k: int) -> int:
    """Bytes of K elements of one row of A or B: K for 8-bit types and the padded 4-/6-bit
    containers of f8f6f4 / mxf8f6f4, K / 2 for the packed E2M1 of mxf4 / mxf4nvf4."""
    return k // 2 if kind in ("mxf4", "mxf4nvf4") else k


# -- Tables 43 and 44: the instruction descriptor of the block-scaled kinds ---------------

@dataclass(frozen=True)
class ScaledInstrDescriptor:
    """A decoded Table 43 / 44 descriptor. The attribute names of tensor_core's
    InstrDescriptor (d_type is always f32, Table 39), and the block-scaling fields."""

    kind: str
    m: int
    n: int
    k: int
    d_type: str
    a_type: str
    b_type: str
    scale_type: str
    scale_a_id: int
    scale_b_id: int
    negate_a: bool
    negate_b: bool
    transpose_a: bool
    transpose_b: bool
    sparse: bool
    saturate: bool = False


_F8F6F4_CODES = MappingProxyType({0: "e4m3", 1: "e5m2", 3: "e2m3", 4: "e3m2", 5: "e2m1"})
_MXF4_CODES = MappingProxyType({1: "e2m1"})
#: Reserved bits that must be 0: Table 43 (0-1, 3, 6, 24-26, 31), Table 44 (0-1, 3, 6, 12,
#: 24-26; bit 31 is the K dimension there).
_RESERVED = MappingProxyType({"mxf8f6f4": (0, 1, 3, 6, 24, 25, 26, 31),
                              "mxf4": (0, 1, 3, 6, 12, 24, 25, 26),
                              "mxf4nvf4": (0, 1, 3, 6, 12, 24, 25, 26)})


def _field(value: int, low: int, width: int) -> int:
    return (value >> low) & ((1 << width) - 1)


def decode_instr_descriptor(idesc: int, kind: str) -> ScaledInstrDescriptor:
    """Table 43 (.kind::mxf8f6f4) and Table 44 (.kind::mxf4, .kind::mxf4nvf4). M is
    ``M >> 7`` at bits 27-28 with 24-26 reserved, as the tables print it (tmem-facts
    section 4)."""
    if kind not in BLOCK_SCALED_KINDS:
        raise SimError(f".kind::{kind} is not a block-scaled kind (9.7.16.10.7)")
    table = "Table 43" if kind == "mxf8f6f4" else "Table 44"
    for bit in _RESERVED[kind]:
        if _field(idesc, bit, 1):
            raise SimError(f"instruction descriptor {idesc:#010x}: reserved bit {bit} is set "
                           f"({table})")
    if kind == "mxf8f6f4":
        codes, a_code, b_code = _F8F6F4_CODES, _field(idesc, 7, 3), _field(idesc, 10, 3)
    else:
        codes, a_code, b_code = _MXF4_CODES, _field(idesc, 7, 3), _field(idesc, 10, 2)
    types = []
    for what, code in (("atype", a_code), ("btype", b_code)):
        if code not in codes:
            raise SimError(f"instruction descriptor {idesc:#010x}: {what} code {code} is not "
                           f"valid for .kind::{kind} ({table})")
        types.append(codes[code])
    scale_bit = _field(idesc, 23, 1)
    if scale_bit == 0 and kind != "mxf4nvf4":
        raise SimError(f"instruction descriptor {idesc:#010x}: scale matrix type 0 (bit 23) "
                       f"is not valid for .kind::{kind}: UE8M0 = 1 is its only type ({table})")
    transpose_a, transpose_b = bool(_field(idesc, 15, 1)), bool(_field(idesc, 16, 1))
    if kind != "mxf8f6f4" and (transpose_a or transpose_b):
        raise SimError(f"instruction descriptor {idesc:#010x}: .kind::{kind} has no "
                       "transpose (Table 44: No Transpose = 0; Table 49)")
    m_field = _field(idesc, 27, 2)
    if m_field == 0:
        raise SimError(f"instruction descriptor {idesc:#010x}: M >> 7 (bits 27-28) is 0 "
                       f"({table})")
    k = SCALED_K[kind]
    if kind != "mxf8f6f4" and _field(idesc, 31, 1):
        k = 96
    return ScaledInstrDescriptor(
        kind=kind, m=m_field << 7, n=_field(idesc, 17, 6) << 3, k=k, d_type="f32",
        a_type=types[0], b_type=types[1], scale_type="ue8m0" if scale_bit else "ue4m3",
        scale_a_id=_field(idesc, 29, 2), scale_b_id=_field(idesc, 4, 2),
        negate_a=bool(_field(idesc, 13, 1)), negate_b=bool(_field(idesc, 14, 1)),
        transpose_a=transpose_a, transpose_b=transpose_b, sparse=bool(_field(idesc, 2, 1)))


# -- The scale vector size (9.7.16.10.9.1, Tables 54 and 55) ------------------------------

#: Table 54 / 9.7.16.10.9.1: scale_vec::NX -> the kinds that take it.
_SCALE_VEC_KINDS = MappingProxyType({1: ("mxf8f6f4",), 2: ("mxf4", "mxf4nvf4"),
                                     4: ("mxf4nvf4",)})
#: Allowed scale-factor IDs per vector size (9.7.16.10.7.2.1-3, 9.7.16.10.7.3.1-3).
SCALE_IDS = MappingProxyType({1: (0, 1, 2, 3), 2: (0, 2), 4: (0,)})


def scale_vector_size(parts: list[str], kind: str, k: int) -> int:
    """Scale factors per row of A (and per column of B) of one MMA: the N of
    ``.scale_vec::NX``, or what ``.block32`` / ``.block16`` alias (9.7.16.10.9.1)."""
    sizes = [p for p in parts if p.startswith("scale_vec::") or p in ("block16", "block32")]
    if len(sizes) > 1:
        raise SimError(f"tcgen05.mma with two scale vector sizes ({', '.join(sizes)})")
    if not sizes:
        if kind == "mxf4nvf4":
            raise SimError(".kind::mxf4nvf4 needs an explicit .scale_vectorsize "
                           "(9.7.16.10.9.1)")
        sizes = ["block32"]      # mxf4: the stated default; mxf8f6f4: Table 54's only size
    size = sizes[0]
    if size.startswith("scale_vec::"):
        vec = int(size.split("::")[1][:-1])
        if kind not in _SCALE_VEC_KINDS[vec]:
            raise SimError(f".scale_vec::{vec}X is not valid for .kind::{kind} (Table 54)")
        if k == 96:
            raise SimError(f".scale_vec::{vec}X with K = 96: Table 54 names .block16 / "
                           ".block32 for K = 96")
        return vec
    block = int(size[5:])
    if block == 16 and kind != "mxf4nvf4":
        raise SimError(f".block16 is not valid for .kind::{kind} (Table 54)")
    return k // block


def check_scale_combination(info: ScaledInstrDescriptor, vec: int) -> None:
    """Table 55 (scale type per kind and size) and the scale-factor IDs a size allows."""
    if info.scale_type == "ue4m3" and vec != 4:
        raise SimError(f"UE4M3 scale factors need .scale_vec::4X / .block16, not {vec} "
                       f"factors per row (Table 55)")
    if vec not in SCALE_IDS:
        raise SimError(f"{vec} scale factors per row (K = 96, 9.7.16.10.7.2.4-5) are not "
                       "modelled yet: their layouts are figures only")
    for which, value in (("A", info.scale_a_id), ("B", info.scale_b_id)):
        if value not in SCALE_IDS[vec]:
            raise SimError(f"scale factor {which} ID {value} is not valid with {vec} factors "
                           f"per row: allowed {SCALE_IDS[vec]} (9.7.16.10.7.2, 9.7.16.10.7.3)")


# -- Scale factors in tensor memory (tmem-facts section 3) --------------------------------

def scale_factor_cells(taddr: int, entries: int, layout_b_split: bool = False):
    """(lanes[copies, entries], columns[entries]) of scale-factor entries 0..entries-1
    (rows of A, or columns n of B) at ``taddr``: lane 32q + i mod 32 of every quarter q,
    column i div 32. With ``layout_b_split`` (B scales of a Layout-B MMA, tmem-facts
    section 3, confidence M) entry n < entries/2 is in quarters 0 and 1 and the others in
    quarters 2 and 3, at n mod entries/2."""
    lane0, col0 = taddr >> 16, taddr & 0xFFFF
    if lane0:
        raise SimError(f"scale-factor address {taddr:#x} names lane {lane0}: the factors are "
                       "duplicated into all four lane quarters (9.7.16.10.7), from lane 0")
    i = np.arange(entries)
    if layout_b_split:
        half = entries // 2
        local = i % half
        upper = (i >= half).astype(int)
        quarters = np.stack([2 * upper, 2 * upper + 1])              # [2, entries]
        lanes = 32 * quarters + local % 32
        cols = col0 + local // 32
    else:
        lanes = 32 * np.arange(4).reshape(4, 1) + i % 32
        cols = col0 + i // 32
    if cols.max() >= TMEM_COLUMNS or lanes.max() >= TMEM_LANES:
        raise SimError(f"scale factors at {taddr:#x} run past tensor memory")
    return lanes, cols


def read_scale_factors(tmem: np.ndarray, cells, sf_id: int, vec: int, scale_type: str,
                       what: str) -> np.ndarray:
    """[entries, vec] float64 scale factors: byte sf_id + j of each entry's cell. Every
    copy must hold the same bytes (9.7.16.10.7: duplicated to all lane partitions)."""
    lanes, cols = cells
    words = tmem[lanes, np.broadcast_to(cols, lanes.shape)]           # [copies, entries]
    shifts = (8 * (sf_id + np.arange(vec))).astype(np.uint32)
    raw = ((words[..., None] >> shifts) & 0xFF).astype(np.uint8)       # [copies, entries, vec]
    differs = (raw != raw[:1]).any(axis=(0, 2))
    if differs.any():
        entry = int(np.flatnonzero(differs)[0])
        found = ", ".join(f"lane {int(lanes[c, entry])}: "
                          f"{bytes(raw[c, entry]).hex()}" for c in range(len(lanes)))
        raise SimError(f"scale_{what} entry {entry} differs between its copies in the lane "
                       f"quarters ({found}): the factors must be duplicated to all lane "
                       "partitions (9.7.16.10.7), and which copy the MMA reads is not stated")
    return decode_scale_bytes(raw[0], scale_type)


def apply_scales(values: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """values[rows, K] * scales[rows, j] for the j-th chunk of K / vec elements
    (9.7.16.10.7: "each chunk of a row is multiplied with the corresponding element")."""
    vec = scales.shape[1]
    return values * np.repeat(scales, values.shape[1] // vec, axis=1)
