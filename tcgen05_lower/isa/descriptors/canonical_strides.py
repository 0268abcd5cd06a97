"""The canonical LBO / SBO of 9.7.16.3 (Tables 52 and 53, tmem-facts section 4): the
strides a compiler writes into the shared-memory descriptor for the tile layouts it
allocates.
"""

from __future__ import annotations

from types import MappingProxyType

from ..errors import IsaRuleError
from .fields import _lookup, _require_int
from .shared_memory import _SMEM_OFFSET_MAX, _TABLE40, SWIZZLE_CODES


#
# All canonical layouts are written in 16-byte units ("elements normalized to 128 bits").
# A core matrix is 8 of those units by 8 rows = 128 contiguous bytes.  Tiles are assumed
# to be built the way CUTLASS's tile-to-shape does it: swizzle atoms (or core matrices)
# fill the MN direction first and then step along K.  That gives:
#
#   K-major, no swizzle    SBO = 128 (next 8 MN rows = next core matrix)
#                          LBO = 16 * tile_mn (next 16 bytes of K = past all MN core matrices)
#   K-major, swizzle W     SBO = 8 * W (next 8 MN rows = next atom), LBO unused, written 16
#   MN-major, no swizzle   SBO = 128 (next 16 bytes of MN), LBO = 8 * MN bytes (next 8 K rows)
#   MN-major, swizzle W    LBO = W * R (next W bytes of MN = next atom), SBO = R * MN bytes
#                          (next R K rows, past all MN atoms), R = rows of the atom
#
# The MN-direction stride of an MN-major tile that is a single unit wide along MN is never
# followed; it is written as 0, as CUTLASS derives it from a mode of size 1 (tmem-facts:
# bf16 64x128 with 128B swizzle gives LBO 0).
#
# MN-major 32-bit operands must use 128B swizzle with 32B atomicity, whose atom is 128
# bytes of MN by 4 K rows (Table 53: 8x4).  That 4-row atom is CUTLASS C++'s convention and
# the one used here (tf32 128x64 -> 512/2048); CUTLASS's Python DSL builds an 8-row atom
# instead (1024/512 for the same tile).  The two disagree, so a kernel whose shared-memory
# layout was produced by the other convention must pass its own strides.

# MN-major atom rows (Table 53: 8x4); others have 8.
_TABLE53_ROWS = MappingProxyType({"128B_base32B": 4})
_SWIZZLE_WIDTH = MappingProxyType({"128B_base32B": 128, "128B": 128, "64B": 64, "32B": 32})

# Element widths for Table 52's type-size rules.
_TYPE_BITS = MappingProxyType({
    "f32": 32, "tf32": 32, "f16": 16, "bf16": 16,
    "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8,
    "e2m3": 6, "e3m2": 6, "e2m1": 4,
})

# Bits each element takes up in shared-memory addressing.  6-bit types exist only in the
# f8f6f4 kinds, which store them "contiguously packed along with padding" (9.7.16.10.4.4):
# 16 elements in each 16 bytes, so they address like 8-bit types.  E2M1 is taken as packed
# two per byte, the mxf4/mxf4nvf4 format (9.7.16.10.4.6).  An f8f6f4/mxf8f6f4 operand of
# E2M1 is padded like the 6-bit types and should be described with an 8-bit type name.
# Only the tile_k checks depend on this: sub-byte types are K-major only, and K-major
# strides do not depend on the element width.
_SMEM_BITS = MappingProxyType({**_TYPE_BITS, "e2m3": 8, "e3m2": 8})


def canonical_smem_strides(*, dtype: str, major: str, swizzle: str, tile_mn: int,
                           tile_k: int) -> tuple[int, int]:
    """Return the canonical ``(lbo, sbo)`` in bytes for a ``tile_mn x tile_k`` operand tile.

    ``dtype`` is an A/B operand type name, ``major`` is ``"K"`` or ``"MN"``, ``swizzle`` a
    key of ``SWIZZLE_CODES``.  ``tile_mn``/``tile_k`` are the tile's extents in elements; the
    tile must be a whole number of core matrices (unswizzled) or swizzle atoms (swizzled).
    Strides follow 9.7.16.3.3 with the tile-to-shape conventions of tmem-facts section 4;
    MN-major 32-bit tiles use the 4-row atom of 128B swizzle with 32B atomicity (Table 53),
    CUTLASS C++'s convention.  Raises ``IsaRuleError`` for combinations that Tables 52/53 do
    not allow or that have no canonical layout.
    """
    rule = "9.7.16.3.3"
    if dtype not in _TYPE_BITS:
        raise IsaRuleError(rule, f"dtype = {dtype!r} is not an A/B operand type "
                                 f"(allowed: {', '.join(_TYPE_BITS)})")
    if major not in ("K", "MN"):
        raise IsaRuleError(rule, f"major = {major!r} is not 'K' or 'MN'")
    _lookup(_TABLE40, "swizzle", swizzle, SWIZZLE_CODES, "as a swizzling mode")
    for name, value in (("tile_mn", tile_mn), ("tile_k", tile_k)):
        if _require_int(rule, name, value) <= 0:
            raise IsaRuleError(rule, f"{name} = {value} is not positive")

    type_bits = _TYPE_BITS[dtype]
    smem_bits = _SMEM_BITS[dtype]

    if major == "K":
        if swizzle == "128B_base32B":
            raise IsaRuleError("Table 53", "swizzle = '128B_base32B' has no K-major atom")
        if tile_mn % 8:
            raise IsaRuleError(rule, f"tile_mn = {tile_mn} is not a multiple of the 8 rows "
                                     "of a K-major core matrix")
        k_bits = tile_k * smem_bits
        if swizzle == "none":
            if k_bits % 128:
                raise IsaRuleError(rule, f"tile_k = {tile_k} {dtype} is not a whole number of "
                                         "16-byte core-matrix rows")
            lbo, sbo = 16 * tile_mn, 128
        else:
            width = _SWIZZLE_WIDTH[swizzle]
            if k_bits % (8 * width):
                raise IsaRuleError(rule, f"tile_k = {tile_k} {dtype} is not a whole number of "
                                         f"{width}-byte swizzle atom rows")
            # The LBO field is unused; 1 (16 bytes) is what the ISA's own example assumes.
            lbo, sbo = 16, 8 * width
    else:
        if type_bits < 8:
            raise IsaRuleError("Table 52", f"dtype = {dtype!r} is {type_bits}-bit and must be "
                                           "K-major")
        if type_bits == 32 and swizzle != "128B_base32B":
            raise IsaRuleError("Table 52", f"swizzle = {swizzle!r} is not allowed for MN-major "
                                           "32-bit types: only '128B_base32B' is")
        if type_bits < 32 and swizzle == "128B_base32B":
            raise IsaRuleError("Table 52", "swizzle = '128B_base32B' is not allowed for MN-major "
                                           f"{type_bits}-bit types")
        mn_bits = tile_mn * smem_bits
        if mn_bits % 128:
            raise IsaRuleError(rule, f"tile_mn = {tile_mn} {dtype} is not a whole number of "
                                     "16-byte units")
        mn_bytes = mn_bits // 8
        if swizzle == "none":
            if tile_k % 8:
                raise IsaRuleError(rule, f"tile_k = {tile_k} is not a multiple of the 8 rows "
                                         "of an MN-major core matrix")
            lbo = 8 * mn_bytes
            sbo = 128 if mn_bytes > 16 else 0
        else:
            width = _SWIZZLE_WIDTH[swizzle]
            rows = _TABLE53_ROWS.get(swizzle, 8)
            if mn_bytes % width:
                raise IsaRuleError(rule, f"tile_mn = {tile_mn} {dtype} is not a whole number of "
                                         f"{width}-byte swizzle atoms")
            if tile_k % rows:
                raise IsaRuleError(rule, f"tile_k = {tile_k} is not a multiple of the {rows} "
                                         "rows of the swizzle atom")
            lbo = width * rows if mn_bytes > width else 0
            sbo = rows * mn_bytes

    for name, stride in (("lbo", lbo), ("sbo", sbo)):
        if stride > _SMEM_OFFSET_MAX:
            raise IsaRuleError(_TABLE40, f"{name} = {stride:#x} for a {tile_mn}x{tile_k} tile "
                                         "does not fit the descriptor's 14-bit field")
    return lbo, sbo
