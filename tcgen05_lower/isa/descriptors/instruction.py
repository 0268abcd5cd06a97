"""The 32-bit instruction descriptor of ``tcgen05.mma`` (9.7.16.4.2, Tables 42, 43, 44):
its layout per MMA kind, the type codes of each kind, and the encoder and decoder.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from ..errors import IsaRuleError
from .fields import (
    _Field,
    _assert_tiles,
    _check_reencodes,
    _lookup,
    _pack,
    _require_flag,
    _require_int,
    _reverse,
    _unpack,
)


# Table 42: .kind::tf32, .kind::f16, .kind::f8f6f4 and .kind::i8.
_TABLE42_FIELDS = MappingProxyType({
    "sparsity_selector": _Field(0, 2),
    "sparse": _Field(2, 1),
    "saturate": _Field(3, 1),
    "d_type": _Field(4, 2),
    "a_type": _Field(7, 3),
    "b_type": _Field(10, 3),
    "negate_a": _Field(13, 1),
    "negate_b": _Field(14, 1),
    "transpose_a": _Field(15, 1),
    "transpose_b": _Field(16, 1),
    "n": _Field(17, 6),  # N >> 3
    "m": _Field(24, 5),  # M >> 4
    "max_shift": _Field(30, 2),
})
_TABLE42_RESERVED = MappingProxyType({
    "reserved bit 6": (_Field(6, 1), 0),
    "reserved bit 23": (_Field(23, 1), 0),
    "reserved bit 29": (_Field(29, 1), 0),
})

# Table 43: .kind::mxf8f6f4.  The sparsity selector, saturate and max-shift fields of
# Table 42 do not exist; the freed bits carry the scale-factor IDs and scale type, and M
# moves to bits 27-28 in units of 128.
_TABLE43_FIELDS = MappingProxyType({
    "sparse": _Field(2, 1),
    "scale_b_id": _Field(4, 2),
    "a_type": _Field(7, 3),
    "b_type": _Field(10, 3),
    "negate_a": _Field(13, 1),
    "negate_b": _Field(14, 1),
    "transpose_a": _Field(15, 1),
    "transpose_b": _Field(16, 1),
    "n": _Field(17, 6),  # N >> 3
    "scale_type": _Field(23, 1),
    "m": _Field(27, 2),  # M >> 7
    "scale_a_id": _Field(29, 2),
})
_TABLE43_RESERVED = MappingProxyType({
    "reserved bits 0-1": (_Field(0, 2), 0),
    "reserved bit 3": (_Field(3, 1), 0),
    "reserved bit 6": (_Field(6, 1), 0),
    "reserved bits 24-26": (_Field(24, 3), 0),
    "reserved bit 31": (_Field(31, 1), 0),
})

# Table 44: .kind::mxf4 and .kind::mxf4nvf4.  As Table 43, except that btype shrinks to
# two bits (bit 12 becomes reserved) and bit 31 selects K = 96.
_TABLE44_FIELDS = MappingProxyType({
    **_TABLE43_FIELDS,
    "b_type": _Field(10, 2),
    "k96": _Field(31, 1),
})
_TABLE44_RESERVED = MappingProxyType({
    **{name: entry for name, entry in _TABLE43_RESERVED.items() if name != "reserved bit 31"},
    "reserved bit 12": (_Field(12, 1), 0),
})

# Type codes of the atype/btype fields.  E2M1 has a different code in the two families:
# 5 in Tables 42/43, 1 in Table 44.
_F8F6F4_CODES = MappingProxyType({"e4m3": 0, "e5m2": 1, "e2m3": 3, "e3m2": 4, "e2m1": 5})

# Bits 15/16 select MN-major (CUTLASS's a_major/b_major = MN) when set; Table 52 allows that
# only for 8-, 16- and 32-bit types, so the 6- and 4-bit types must stay K-major.
_SUB_BYTE_TYPES = frozenset({"e2m3", "e3m2", "e2m1"})

# Table 43/44, bit 23.  The bit means UE8M0 = 1 / UE4M3 = 0 in both tables; which scale
# types a kind may use comes from Tables 39 and 55: only mxf4nvf4 takes UE4M3.
_SCALE_TYPE_CODES = MappingProxyType({"ue8m0": 1, "ue4m3": 0})

# Bits 30-31 of Table 42 hold the maximum B-reuse shift of .ws in columns.
_MAX_SHIFT_CODES = MappingProxyType({0: 0, 8: 1, 16: 2, 32: 3})
_MAX_SHIFT_BY_CODE = MappingProxyType({code: shift for shift, code in _MAX_SHIFT_CODES.items()})

_K96 = 96


@dataclass(frozen=True)
class _KindSpec:
    """What one MMA kind puts in its instruction descriptor."""

    table: str
    fields: Mapping[str, _Field]
    reserved: Mapping[str, tuple[_Field, int]]
    ab_codes: Mapping[str, int]
    d_codes: Mapping[str, int] | None  # None: D is f32 and has no field (block scaling)
    scale_types: tuple[str, ...]  # empty: the kind has no scale factors
    dense_k: int  # Table 39; a sparse MMA doubles it
    transpose: bool  # Table 49
    negate: bool  # Table 49
    saturate: bool  # Table 42 bit 3: integer kinds only

    def __post_init__(self):
        # Read-only all the way down: one table serves every compile of the process.
        for name in ("ab_codes", "d_codes"):
            codes = getattr(self, name)
            if codes is not None and not isinstance(codes, MappingProxyType):
                object.__setattr__(self, name, MappingProxyType(dict(codes)))

    @property
    def block_scaled(self) -> bool:
        return bool(self.scale_types)

    @property
    def m_shift(self) -> int:
        # Table 42 keeps M >> 4; Tables 43/44 keep M >> 7.
        return 7 if self.block_scaled else 4


_KINDS = MappingProxyType({
    "tf32": _KindSpec("Table 42", _TABLE42_FIELDS, _TABLE42_RESERVED,
                      ab_codes={"tf32": 2}, d_codes={"f32": 1}, scale_types=(),
                      dense_k=8, transpose=True, negate=True, saturate=False),
    "f16": _KindSpec("Table 42", _TABLE42_FIELDS, _TABLE42_RESERVED,
                     ab_codes={"f16": 0, "bf16": 1}, d_codes={"f16": 0, "f32": 1},
                     scale_types=(), dense_k=16, transpose=True, negate=True, saturate=False),
    "f8f6f4": _KindSpec("Table 42", _TABLE42_FIELDS, _TABLE42_RESERVED,
                        ab_codes=_F8F6F4_CODES, d_codes={"f16": 0, "f32": 1}, scale_types=(),
                        dense_k=32, transpose=True, negate=True, saturate=False),
    "i8": _KindSpec("Table 42", _TABLE42_FIELDS, _TABLE42_RESERVED,
                    ab_codes={"u8": 0, "s8": 1}, d_codes={"s32": 2}, scale_types=(),
                    dense_k=32, transpose=True, negate=False, saturate=True),
    "mxf8f6f4": _KindSpec("Table 43", _TABLE43_FIELDS, _TABLE43_RESERVED,
                          ab_codes=_F8F6F4_CODES, d_codes=None, scale_types=("ue8m0",),
                          dense_k=32, transpose=True, negate=True, saturate=False),
    "mxf4": _KindSpec("Table 44", _TABLE44_FIELDS, _TABLE44_RESERVED,
                      ab_codes={"e2m1": 1}, d_codes=None, scale_types=("ue8m0",),
                      dense_k=64, transpose=False, negate=True, saturate=False),
    "mxf4nvf4": _KindSpec("Table 44", _TABLE44_FIELDS, _TABLE44_RESERVED,
                          ab_codes={"e2m1": 1}, d_codes=None, scale_types=("ue8m0", "ue4m3"),
                          dense_k=64, transpose=False, negate=True, saturate=False),
})


def _kind_spec(kind: object) -> _KindSpec:
    if kind not in _KINDS:
        raise IsaRuleError("9.7.16.4.2", f"kind = {kind!r} is not an MMA kind "
                                         f"(allowed: {', '.join(_KINDS)})")
    return _KINDS[kind]  # type: ignore[index]


def _scale_ids_allowed(kind: str, k96: bool) -> tuple[int, ...]:
    if kind == "mxf8f6f4":
        return (0, 1, 2, 3)  # Table 43: 0-3
    # Table 44 lists "0 or 2", but the K = 96 block32 layouts (9.7.16.10.7.2.4 and
    # 9.7.16.10.7.3.4) select 4-byte sub-columns with IDs 0, 1, 2 and 3.  Table 44 predates
    # K = 96, so K = 96 takes the wider set.
    return (0, 1, 2, 3) if k96 else (0, 2)


def encode_instr_desc(*, kind: str, a_type: str, b_type: str, d_type: str, m: int, n: int,
                      transpose_a: bool = False, transpose_b: bool = False,
                      negate_a: bool = False, negate_b: bool = False,
                      sparse: bool = False, sparsity_selector: int = 0,
                      saturate: bool = False, max_shift: int = 0,
                      scale_type: str | None = None, scale_a_id: int = 0, scale_b_id: int = 0,
                      k: int | None = None) -> int:
    """Encode the 32-bit instruction descriptor of ``tcgen05.mma`` for ``kind``.

    ``kind`` is one of tf32, f16, f8f6f4, i8 (Table 42), mxf8f6f4 (Table 43), mxf4 and
    mxf4nvf4 (Table 44).  Types use the ISA's names.  ``transpose_a``/``transpose_b`` set
    bits 15/16, meaning MN-major.  ``max_shift`` is the ``.ws`` B-reuse shift in columns
    (0, 8, 16 or 32).  ``k`` may be left ``None``: K follows from kind and sparsity (Table 39)
    and is needed only to select K = 96 for mxf4/mxf4nvf4 (Table 44 bit 31); any other
    value must equal the implied K.

    Block-scaled kinds (mxf8f6f4, mxf4, mxf4nvf4) always accumulate in f32, which their
    tables do not encode, so ``d_type`` must be ``"f32"``; they require ``scale_type`` and
    accept only M = 128 or 256 (bits 27-28 hold ``M >> 7``; tmem-facts section 4).  Fields a
    kind does not have must keep their defaults.

    Raises ``IsaRuleError`` naming the field and value for anything the ISA does not allow.
    """
    spec = _kind_spec(kind)
    rule = spec.table
    of_kind = f"for kind::{kind}"
    codes: dict[str, int] = {}

    # Operand and accumulator types.
    codes["a_type"] = _lookup(rule, "a_type", a_type, spec.ab_codes, of_kind)
    codes["b_type"] = _lookup(rule, "b_type", b_type, spec.ab_codes, of_kind)
    if spec.d_codes is None:
        if d_type != "f32":
            raise IsaRuleError(rule, f"d_type = {d_type!r} is not allowed {of_kind}: "
                                     "block-scaled MMAs accumulate in f32")
    else:
        codes["d_type"] = _lookup(rule, "d_type", d_type, spec.d_codes, of_kind)

    # Shape.  Only what the fields can hold is checked here; Table 39 is checked elsewhere.
    _require_int(rule, "m", m)
    _require_int(rule, "n", n)
    if spec.block_scaled:
        if m not in (128, 256):
            raise IsaRuleError(rule, f"m = {m} is not encodable {of_kind}: bits 27-28 hold "
                                     "M >> 7, and only M = 128 and M = 256 are accepted")
    elif m <= 0 or m % 16:
        raise IsaRuleError(rule, f"m = {m} is not a positive multiple of 16")
    elif m >> 4 >= spec.fields["m"].limit:
        raise IsaRuleError(rule, f"m = {m} does not fit: M >> 4 = {m >> 4} needs more than "
                                 f"the 5 bits {spec.fields['m'].bits}")
    codes["m"] = m >> spec.m_shift
    if n <= 0 or n % 8:
        raise IsaRuleError(rule, f"n = {n} is not a positive multiple of 8")
    if n >> 3 >= spec.fields["n"].limit:
        raise IsaRuleError(rule, f"n = {n} does not fit: N >> 3 = {n >> 3} needs more than "
                                 f"the 6 bits {spec.fields['n'].bits}")
    codes["n"] = n >> 3

    # Transpose (MN-major) and negate: Table 49 per kind, Table 52 per type size.  Two
    # related rules need information this descriptor does not carry and are checked where
    # it is known: kind::tf32 transposes only with 128B swizzle with 32B atomicity (the
    # smem descriptor), and an 8-bit transposed B restricts N per cta_group (Table 50).
    for name, value, operand_type in (("transpose_a", transpose_a, a_type),
                                      ("transpose_b", transpose_b, b_type)):
        flag = _require_flag(rule, name, value)
        if flag and not spec.transpose:
            raise IsaRuleError("Table 49", f"{name} = True is not supported {of_kind}")
        if flag and operand_type in _SUB_BYTE_TYPES:
            raise IsaRuleError("Table 52", f"{name} = True is not supported for the sub-byte "
                                           f"type {operand_type!r}: it must be K-major")
        codes[name] = int(flag)
    for name, value in (("negate_a", negate_a), ("negate_b", negate_b)):
        flag = _require_flag(rule, name, value)
        if flag and not spec.negate:
            raise IsaRuleError("Table 49", f"{name} = True is not supported {of_kind}")
        codes[name] = int(flag)

    # Sparsity.  Only Table 42 has a selector (0-3).  It applies "if Sparsity is enabled";
    # a non-zero selector on a dense MMA is almost certainly a mistake and is rejected.
    # Which selector values a metadata layout can use (tmem-facts section 3: 0 or 1 for
    # f16/tf32) is a property of that layout and is not checked here.
    is_sparse = _require_flag(rule, "sparse", sparse)
    codes["sparse"] = int(is_sparse)
    _require_int(rule, "sparsity_selector", sparsity_selector)
    if sparsity_selector:
        if "sparsity_selector" not in spec.fields:
            raise IsaRuleError(rule, f"sparsity_selector = {sparsity_selector} is not allowed "
                                     f"{of_kind}: bits 0-1 are reserved")
        if not is_sparse:
            raise IsaRuleError(rule, f"sparsity_selector = {sparsity_selector} requires "
                                     "sparse = True")
        if not 0 <= sparsity_selector <= 3:
            raise IsaRuleError(rule, f"sparsity_selector = {sparsity_selector} is outside 0-3")
        codes["sparsity_selector"] = sparsity_selector

    if _require_flag(rule, "saturate", saturate):
        if not spec.saturate:
            raise IsaRuleError(rule, f"saturate = True is not allowed {of_kind}: "
                                     "only integer kinds saturate")
        codes["saturate"] = 1

    _require_int(rule, "max_shift", max_shift)
    if max_shift:
        if "max_shift" not in spec.fields:
            raise IsaRuleError(rule, f"max_shift = {max_shift} is not allowed {of_kind}")
        codes["max_shift"] = _lookup(rule, "max_shift", max_shift, _MAX_SHIFT_CODES,
                                     "as a maximum shift in columns")

    # K: implied by kind and sparsity (Table 39), except that Table 44 bit 31 selects
    # dense K = 96.
    implied_k = spec.dense_k * (2 if is_sparse else 1)
    k96 = k is not None and _require_int(rule, "k", k) != implied_k
    if k96:
        if k != _K96 or "k96" not in spec.fields:
            density = "sparse" if is_sparse else "dense"
            raise IsaRuleError(rule, f"k = {k} is not encodable {of_kind}: a {density} MMA "
                                     f"has K = {implied_k}")
        if is_sparse:
            raise IsaRuleError(rule, f"k = {k} requires a dense MMA (bit 31: Dense K=96)")
        codes["k96"] = 1

    # Block scaling: scale type (bit 23) and the scale-factor IDs (bits 29-30 and 4-5).
    if spec.block_scaled:
        if scale_type is None:
            raise IsaRuleError(rule, f"scale_type is required {of_kind} "
                                     f"(allowed: {', '.join(spec.scale_types)})")
        allowed = {name: _SCALE_TYPE_CODES[name] for name in spec.scale_types}
        codes["scale_type"] = _lookup(rule, "scale_type", scale_type, allowed, of_kind)
        ids = _scale_ids_allowed(kind, k96)
        for name, value in (("scale_a_id", scale_a_id), ("scale_b_id", scale_b_id)):
            _require_int(rule, name, value)
            if value not in ids:
                raise IsaRuleError(rule, f"{name} = {value} is not allowed {of_kind}"
                                         f"{' with K = 96' if k96 else ''} "
                                         f"(allowed: {', '.join(map(str, ids))})")
            codes[name] = value
    else:
        if scale_type is not None:
            raise IsaRuleError(rule, f"scale_type = {scale_type!r} is not allowed {of_kind}: "
                                     "it has no block scaling")
        for name, value in (("scale_a_id", scale_a_id), ("scale_b_id", scale_b_id)):
            if _require_int(rule, name, value):
                raise IsaRuleError(rule, f"{name} = {value} is not allowed {of_kind}: "
                                         "it has no block scaling")

    return _pack(rule, spec.fields, codes)


def decode_instr_desc(value: int, *, kind: str) -> dict:
    """Decode a 32-bit instruction descriptor of ``kind`` into ``encode_instr_desc``'s fields.

    Returns a dict with every keyword of ``encode_instr_desc``.  Fields the kind's table
    does not have come back as the encoder's defaults (``sparsity_selector=0``,
    ``saturate=False``, ``max_shift=0``, ``scale_type=None``, scale IDs 0), and ``d_type``
    is ``"f32"`` for the block-scaled kinds, so the dict can be passed straight back to the
    encoder.  ``k`` is always the actual K (Table 39, or 96 from Table 44 bit 31).

    Raises ``IsaRuleError`` for set reserved bits, undefined codes, and any field
    combination the encoder would reject.
    """
    spec = _kind_spec(kind)
    rule = spec.table
    of_kind = f"for kind::{kind}"
    codes = _unpack(rule, value, 32, spec.fields, spec.reserved)

    sparse = bool(codes["sparse"])
    if codes.get("k96"):
        k = _K96
    else:
        k = spec.dense_k * (2 if sparse else 1)

    fields = {
        "kind": kind,
        "a_type": _reverse(rule, "a_type", codes["a_type"], spec.ab_codes, of_kind),
        "b_type": _reverse(rule, "b_type", codes["b_type"], spec.ab_codes, of_kind),
        "d_type": ("f32" if spec.d_codes is None
                   else _reverse(rule, "d_type", codes["d_type"], spec.d_codes, of_kind)),
        "m": codes["m"] << spec.m_shift,
        "n": codes["n"] << 3,
        "transpose_a": bool(codes["transpose_a"]),
        "transpose_b": bool(codes["transpose_b"]),
        "negate_a": bool(codes["negate_a"]),
        "negate_b": bool(codes["negate_b"]),
        "sparse": sparse,
        "sparsity_selector": codes.get("sparsity_selector", 0),
        "saturate": bool(codes.get("saturate", 0)),
        "max_shift": _MAX_SHIFT_BY_CODE[codes.get("max_shift", 0)],
        "scale_type": None,
        "scale_a_id": codes.get("scale_a_id", 0),
        "scale_b_id": codes.get("scale_b_id", 0),
        "k": k,
    }
    if spec.block_scaled:
        fields["scale_type"] = _reverse(rule, "scale_type", codes["scale_type"],
                                        _SCALE_TYPE_CODES, of_kind)

    _check_reencodes(rule, encode_instr_desc(**fields), value)
    return fields


# Guard the transcriptions: each table's fields tile its word exactly.
_assert_tiles(32, _TABLE42_FIELDS, _TABLE42_RESERVED)
_assert_tiles(32, _TABLE43_FIELDS, _TABLE43_RESERVED)
_assert_tiles(32, _TABLE44_FIELDS, _TABLE44_RESERVED)
