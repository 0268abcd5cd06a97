"""The 64-bit shared-memory matrix descriptor (9.7.16.4.1, Table 40): its fields, the
swizzle codes, ``matrix-descriptor-encode`` and the encoder and decoder.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from ..errors import IsaRuleError
from .fields import (
    _Field,
    _assert_tiles,
    _check_reencodes,
    _lookup,
    _pack,
    _require_int,
    _reverse,
    _unpack,
)


_TABLE40 = "Table 40"

_SMEM_FIELDS = MappingProxyType({
    "start_address": _Field(0, 14),
    "lbo": _Field(16, 14),
    "sbo": _Field(32, 14),
    "base_offset": _Field(49, 3),
    "lbo_mode": _Field(52, 1),
    "swizzle": _Field(61, 3),
})
_SMEM_FIXED = MappingProxyType({
    # Table 40 leaves bits 14-15 and 30-31 out; they are kept zero.
    "bits 14-15": (_Field(14, 2), 0),
    "bits 30-31": (_Field(30, 2), 0),
    "bits 46-48": (_Field(46, 3), 0b001),  # "Fixed constant value of 0b001"
    # The table prints this constant as "0xb00000000", an evident typo for 0b00000000.
    "bits 53-60": (_Field(53, 8), 0),
})

#: Table 40, bits 61-63.  Codes 3, 5 and 7 are invalid.  "128B_base32B" is the
#: 128-byte swizzle with 32-byte atomicity; "128B" is the usual 16-byte-atomic one.
SWIZZLE_CODES: Mapping[str, int] = MappingProxyType({
    "none": 0,
    "128B_base32B": 1,
    "128B": 2,
    "64B": 4,
    "32B": 6,
})

_LBO_MODE_CODES = MappingProxyType({"relative": 0, "absolute": 1})  # Table 40 bit 52

# matrix-descriptor-encode keeps bits 4-17 of an address or offset.
_SMEM_OFFSET_MASK = 0x3FFFF
_SMEM_OFFSET_MAX = _SMEM_OFFSET_MASK & ~0xF


def matrix_descriptor_encode(x: int) -> int:
    """Table 40's ``matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4``.

    This is the formula itself, without range or alignment checks: the lowering applies
    it at run time to a shared-memory address (in IR) and ORs the result into bits 0-13
    of the constant part built by ``encode_smem_desc(start_address=0, ...)``.
    """
    return (x & _SMEM_OFFSET_MASK) >> 4


def _check_smem_offset(rule: str, name: str, value: object) -> int:
    """Range and alignment of a start address, LBO or SBO in bytes (Table 40)."""
    offset = _require_int(rule, name, value)
    if not 0 <= offset <= _SMEM_OFFSET_MAX:
        raise IsaRuleError(rule, f"{name} = {offset:#x} is outside 0..{_SMEM_OFFSET_MAX:#x}: "
                                 "matrix-descriptor-encode keeps only bits 4-17")
    if offset % 16:
        raise IsaRuleError(rule, f"{name} = {offset:#x} is not 16-byte aligned")
    return offset


def encode_smem_desc(*, start_address: int, lbo: int, sbo: int, swizzle: str,
                     base_offset: int = 0, lbo_mode: str = "relative") -> int:
    """Encode the 64-bit shared-memory matrix descriptor of Table 40.

    ``start_address``, ``lbo`` and ``sbo`` are in bytes and must be 16-byte aligned and
    below 256 KiB (matrix-descriptor-encode keeps bits 4-17).  In ``lbo_mode="absolute"``
    ``lbo`` is the shared-memory address of the second K chunk (9.7.16.3.1.2).
    ``swizzle`` is a key of ``SWIZZLE_CODES``; ``base_offset`` (0-7) is
    ``(pattern start address >> 7) & 7`` when the swizzle pattern does not start on the
    boundary of Table 41, else 0.

    With ``start_address=0`` the result is the descriptor's constant part, into which the
    lowering ORs ``matrix_descriptor_encode(address)`` computed at run time.
    """
    rule = _TABLE40
    codes = {
        "start_address": matrix_descriptor_encode(
            _check_smem_offset(rule, "start_address", start_address)),
        "lbo": matrix_descriptor_encode(_check_smem_offset(rule, "lbo", lbo)),
        "sbo": matrix_descriptor_encode(_check_smem_offset(rule, "sbo", sbo)),
        "swizzle": _lookup(rule, "swizzle", swizzle, SWIZZLE_CODES, "as a swizzling mode"),
        "lbo_mode": _lookup(rule, "lbo_mode", lbo_mode, _LBO_MODE_CODES,
                            "as a leading-dimension stride mode"),
    }
    _require_int(rule, "base_offset", base_offset)
    if not 0 <= base_offset <= 7:
        raise IsaRuleError(rule, f"base_offset = {base_offset} is outside 0-7 (bits 49-51)")
    codes["base_offset"] = base_offset

    # 9.7.16.3.1.2.1: the absolute-address mode exists for 48-byte K chunks under 128-byte
    # swizzling.  Its K-major restriction lives in the instruction descriptor; the two
    # restrictions visible here are checked.
    if lbo_mode == "absolute":
        if swizzle != "128B":
            raise IsaRuleError("9.7.16.3.1.2.1", f"swizzle = {swizzle!r} is not allowed with "
                                                 "lbo_mode = 'absolute': only 128B swizzle "
                                                 "with 16B atomicity is")
        if base_offset:
            raise IsaRuleError("9.7.16.3.1.2.1", f"base_offset = {base_offset} is not allowed "
                                                 "with lbo_mode = 'absolute': it must be 0")

    word = _pack(rule, _SMEM_FIELDS, codes)
    for field, required in _SMEM_FIXED.values():
        word |= required << field.lsb
    return word


def decode_smem_desc(value: int) -> dict:
    """Decode a Table 40 descriptor into ``encode_smem_desc``'s keywords (byte values).

    Raises ``IsaRuleError`` if the fixed bits are wrong, bits outside Table 40 are set, the
    swizzle code is one of the invalid 3, 5, 7, or the absolute-mode restrictions are broken.
    """
    rule = _TABLE40
    codes = _unpack(rule, value, 64, _SMEM_FIELDS, _SMEM_FIXED)
    fields = {
        "start_address": codes["start_address"] << 4,
        "lbo": codes["lbo"] << 4,
        "sbo": codes["sbo"] << 4,
        "swizzle": _reverse(rule, "swizzle", codes["swizzle"], SWIZZLE_CODES,
                            "as a swizzling mode (3, 5 and 7 are invalid)"),
        "base_offset": codes["base_offset"],
        "lbo_mode": _reverse(rule, "lbo_mode", codes["lbo_mode"], _LBO_MODE_CODES,
                             "as a stride mode"),
    }
    _check_reencodes(rule, encode_smem_desc(**fields), value)
    return fields


# Guard the transcription: the fields tile the word exactly.
_assert_tiles(64, _SMEM_FIELDS, _SMEM_FIXED)
