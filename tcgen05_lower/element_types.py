"""Element types: how the dialect spells them (MLIR builtin types) and what the ISA calls
them (the type names of Tables 39 and 42-44). Pure strings, no MLIR import.

The unsigned E4M3 scale type of kind::mxf4nvf4 (ue4m3) has no MLIR builtin type of its
own; it is spelled ``f8E4M3`` (same exponent and mantissa widths; the sign bit is unused).
"""

from __future__ import annotations

from types import MappingProxyType

#: MLIR spelling -> ISA type name.
MLIR_TO_ISA = MappingProxyType({
    "f32": "f32", "tf32": "tf32", "f16": "f16", "bf16": "bf16",
    "f8E4M3FN": "e4m3", "f8E5M2": "e5m2", "f6E2M3FN": "e2m3", "f6E3M2FN": "e3m2",
    "f4E2M1FN": "e2m1", "f8E8M0FNU": "ue8m0", "f8E4M3": "ue4m3",
    "i8": "s8", "si8": "s8", "ui8": "u8", "i32": "s32", "si32": "s32",
})

#: Bits of one element as the ISA counts it.
ISA_BITS = MappingProxyType({
    "f32": 32, "tf32": 32, "s32": 32, "f16": 16, "bf16": 16,
    "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "ue8m0": 8, "ue4m3": 8,
    "e2m3": 6, "e3m2": 6, "e2m1": 4,
})


def isa_type(mlir_spelling: str) -> str:
    """The ISA name of an element type spelled as in MLIR (unknown spellings pass
    through, so that a diagnostic can show them)."""
    return MLIR_TO_ISA.get(mlir_spelling, mlir_spelling)


def isa_bits(mlir_spelling: str) -> int:
    """Bits per element; raises KeyError for a type the ISA does not know."""
    return ISA_BITS[isa_type(mlir_spelling)]


def container_bits(mlir_spelling: str, *, kind: str | None = None) -> int:
    """Bits an element occupies in memory: 6-bit types sit in 8-bit containers, and 4-bit
    types too except for kind::mxf4 / mxf4nvf4, which pack two per byte
    (9.7.16.10.4)."""
    bits = isa_bits(mlir_spelling)
    if bits == 6 or (bits == 4 and kind not in ("mxf4", "mxf4nvf4")):
        return 8
    return bits


def element_bits(element: str, *, kind: str | None = None) -> int:
    """Bits an element of `element` (MLIR spelling) occupies in memory, for the
    lowering and layout selection alike; an unknown type is not supported."""
    try:
        return container_bits(element, kind=kind)
    except KeyError:
        raise NotImplementedError(f"element type {element} is not supported") from None
