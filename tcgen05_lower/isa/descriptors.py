"""Bit-exact encoders and decoders for the tcgen05 descriptors (PTX ISA 9.7.16.4).

Three descriptors reach the hardware as plain integers in registers:

* the shared-memory matrix descriptor (Table 40): 64 bits, one per A or B operand that
  lives in shared memory;
* the instruction descriptor (Tables 42, 43, 44): 32 bits, one per ``tcgen05.mma``, whose
  layout depends on the MMA kind;
* the zero-column mask descriptor (Table 45): 64 bits, the optional last operand of
  ``tcgen05.mma.ws``.

This module also gives the canonical LBO/SBO of 9.7.16.3.3, i.e. the strides a
compiler writes into the shared-memory descriptor for the tile layouts it allocates.

Conventions shared by all encoders and decoders:

* Encoders take what a kernel author thinks in (type names, byte offsets, column counts)
  and return an ``int``.  Any value the ISA does not allow raises ``IsaRuleError`` whose
  message names the field and the value and whose ``rule`` names the table or section.
  A wrong Python type (a string where an integer belongs) is a ``TypeError``: that is a
  bug in the caller, not a property of the kernel.
* Decoders accept exactly the words the matching encoder can produce.  They check
  reserved and fixed bits, map codes back to names, then hand the fields back to the
  encoder so that every cross-field rule is applied in one place.  Hence
  ``encode(**decode(word)) == word`` for every word ``decode`` accepts, and
  ``decode(encode(**fields)) == fields`` for every complete set of legal fields.
* Table 39 (which M/N/K a kind supports with a given ``cta_group`` and ``.ws``) is checked
  by a separate module.  Here M and N are only checked against what the bit fields can
  hold.

Nothing here imports MLIR; the lowering calls these functions while building IR.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, Sequence

from .errors import IsaRuleError

__all__ = [
    "SWIZZLE_CODES",
    "canonical_smem_strides",
    "decode_instr_desc",
    "decode_smem_desc",
    "decode_zero_column_mask",
    "encode_instr_desc",
    "encode_smem_desc",
    "encode_zero_column_mask",
    "matrix_descriptor_encode",
    "zero_column_masks",
]


# ---------------------------------------------------------------------------------------
# Bit-field plumbing shared by the three descriptors
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Field:
    """``width`` bits of a descriptor word, starting at bit ``lsb``."""

    lsb: int
    width: int

    @property
    def limit(self) -> int:
        """One past the largest value the field holds."""
        return 1 << self.width

    @property
    def bits(self) -> str:
        """The field's position in the tables' own notation: ``"17-22"`` or ``"52"``."""
        msb = self.lsb + self.width - 1
        return f"{self.lsb}-{msb}" if self.width > 1 else f"{self.lsb}"

    def get(self, word: int) -> int:
        return (word >> self.lsb) & (self.limit - 1)


def _pack(rule: str, layout: Mapping[str, _Field], codes: Mapping[str, int]) -> int:
    """Place each field code of ``codes`` at its position in ``layout``.

    Encoders range-check each field with a message in the user's terms before calling
    this, so the check here is the backstop that keeps a code from spilling into its
    neighbour if one of those checks is ever missed.
    """
    word = 0
    for name, code in codes.items():
        field = layout[name]
        if not 0 <= code < field.limit:
            raise IsaRuleError(rule, f"{name} code {code} does not fit in bits {field.bits}")
        word |= code << field.lsb
    return word


def _unpack(rule: str, word: int, width: int, layout: Mapping[str, _Field],
            fixed: Mapping[str, tuple[_Field, int]]) -> dict[str, int]:
    """Split ``word`` into the codes of ``layout`` after checking its reserved/fixed bits."""
    _require_int(rule, "descriptor", word)
    if not 0 <= word < 1 << width:
        raise IsaRuleError(rule, f"descriptor = {word:#x} is not a {width}-bit value")
    for name, (field, required) in fixed.items():
        found = field.get(word)
        if found != required:
            raise IsaRuleError(rule, f"{name} = {found:#x} but must be {required:#x}")
    return {name: field.get(word) for name, field in layout.items()}


def _assert_tiles(width: int, layout: Mapping[str, _Field],
                  fixed: Mapping[str, tuple[_Field, int]]) -> None:
    """Check at import time that a transcribed table covers every bit exactly once."""
    covered = 0
    for field in [*layout.values(), *(f for f, _ in fixed.values())]:
        mask = (field.limit - 1) << field.lsb
        assert not covered & mask, f"field at bits {field.bits} overlaps another"
        covered |= mask
    unassigned = ~covered & ((1 << width) - 1)
    assert not unassigned, f"fields leave bits {unassigned:#x} unassigned"


def _require_int(rule: str, name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} = {value!r} must be an int ({rule})")
    return value


def _require_flag(rule: str, name: str, value: object) -> bool:
    # Accept 0/1 as well as False/True: hand-written tables spell single-bit fields
    # either way.
    if not isinstance(value, int):
        raise TypeError(f"{name} = {value!r} must be a bool ({rule})")
    if value not in (0, 1):
        raise IsaRuleError(rule, f"{name} = {value} is not 0 or 1")
    return bool(value)


def _check_reencodes(rule: str, reencoded: int, value: int) -> None:
    # Decoders hand their result back to the encoder, which both applies the cross-field
    # rules and proves that no bit was lost on the way.
    if reencoded != value:
        raise AssertionError(f"{rule}: decoding {value:#x} re-encodes as {reencoded:#x}")


def _lookup(rule: str, name: str, value: object, codes: Mapping[str, int], context: str) -> int:
    if value not in codes:
        allowed = ", ".join(map(str, codes))
        raise IsaRuleError(rule, f"{name} = {value!r} is not allowed {context} "
                                 f"(allowed: {allowed})")
    return codes[value]  # type: ignore[index]


def _reverse(rule: str, name: str, code: int, codes: Mapping[str, int], context: str) -> str:
    for type_name, type_code in codes.items():
        if type_code == code:
            return type_name
    raise IsaRuleError(rule, f"{name} code {code} is not defined {context}")


# ---------------------------------------------------------------------------------------
# Instruction descriptor (9.7.16.4.2, Tables 42-44)
# ---------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------
# Shared-memory matrix descriptor (9.7.16.4.1, Table 40)
# ---------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------
# Canonical LBO / SBO (9.7.16.3, Tables 52 and 53, tmem-facts section 4)
# ---------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------
# Zero-column mask descriptor (9.7.16.4.3, Table 45)
# ---------------------------------------------------------------------------------------
#
# Naming.  Table 45 describes bits 40-47 (Skip Span) as the count of columns where B is
# used and bits 48-55 (Use Span) as the count of columns replaced by zeros.  All four of
# its worked examples say the opposite: with Skip Span = 2 and Use Span = 3 the masks
# alternate runs of three 1s (zeroed columns) and four 0s (used columns).  This module
# follows the examples: ``skip_span`` counts the zeroed columns (1 bits) and ``use_span``
# the used columns (0 bits).  Both are given as counts and stored minus one.
#
# Generation, as derived from examples 2-4 (see tests/test_descriptors.py):
#   each sub-mask i is a periodic bit string, LSB first, with period skip_span + use_span;
#   its first span is a run of 1s (skip_span long) when first span fs_i = 1, or a run of
#   0s (use_span long) when fs_i = 0, and the spans alternate from there;
#   start count sc_i drops that many leading bits of the string ("the LSBs that must be
#   skipped"), so bit j of the sub-mask is bit j + sc_i of the string.
# The examples only drop bits inside the first span; dropping past it continues into the
# following spans, which is what a phase offset into a periodic pattern means.
#
# Column shift does not take part in generating the masks (example 4 has shift 2 and
# masks that follow from sc/fs/spans alone).  It moves the window of B columns the MMA
# reads: with N = 128 and shift 2, B columns 2-129 are used, and mask bit j applies to the
# j-th column of that window.

_TABLE45 = "Table 45"

_ZCM_FIELDS = MappingProxyType({
    **{f"start_count_{i}": _Field(8 * i, 8) for i in range(4)},
    **{f"first_span_{i}": _Field(32 + i, 1) for i in range(4)},
    "non_zero_mask": _Field(39, 1),
    "skip_span": _Field(40, 8),
    "use_span": _Field(48, 8),
    "column_shift": _Field(56, 6),
})
_ZCM_RESERVED = MappingProxyType({
    "reserved bits 36-38": (_Field(36, 3), 0),
    "bits 62-63": (_Field(62, 2), 0),  # beyond the last field of Table 45
})

_MAX_COLUMN_SHIFT = 32  # Table 45: 32, or 16 for M = 32 (checked by zero_column_masks)
_MAX_COLUMN_SHIFT_M32 = 16
_SUB_MASKS = MappingProxyType({128: 1, 64: 2, 32: 4})  # Table 45's break-up of the mask by M


def _four(rule: str, name: str, values: object) -> tuple:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or len(values) != 4:
        raise TypeError(f"{name} = {values!r} must be a sequence of four values, "
                        f"index i for sub-mask i ({rule})")
    return tuple(values)


def encode_zero_column_mask(*, start_counts: Sequence[int] = (0, 0, 0, 0),
                            first_spans: Sequence[int] = (0, 0, 0, 0),
                            non_zero_mask: bool = True, skip_span: int, use_span: int,
                            column_shift: int = 0) -> int:
    """Encode the 64-bit zero-column mask descriptor of Table 45.

    ``start_counts[i]`` (sc_i, 0-255) and ``first_spans[i]`` (fs_i, 0 or 1) belong to
    sub-mask i: index 0 is the least significant field, the reverse of the
    ``{sc3, sc2, sc1, sc0}`` order the ISA's examples print.  ``skip_span`` is the number of
    consecutive columns replaced by zeros and ``use_span`` the number of consecutive
    columns used, each 1-256 (stored minus one; the naming follows the ISA's examples, see
    the comment above).  ``column_shift`` is 0-32 (Table 45; M = 32 allows only up to 16,
    which ``zero_column_masks`` checks since M is not known here).  With
    ``non_zero_mask=False`` the hardware ignores the other fields (example 1) but they are
    still encoded as given.
    """
    rule = _TABLE45
    codes: dict[str, int] = {}
    for i, count in enumerate(_four(rule, "start_counts", start_counts)):
        _require_int(rule, f"start_counts[{i}]", count)
        if not 0 <= count <= 255:
            raise IsaRuleError(rule, f"start_counts[{i}] = {count} is outside 0-255")
        codes[f"start_count_{i}"] = count
    for i, first in enumerate(_four(rule, "first_spans", first_spans)):
        codes[f"first_span_{i}"] = int(_require_flag(rule, f"first_spans[{i}]", first))
    codes["non_zero_mask"] = int(_require_flag(rule, "non_zero_mask", non_zero_mask))
    for name, span in (("skip_span", skip_span), ("use_span", use_span)):
        _require_int(rule, name, span)
        if not 1 <= span <= 256:
            raise IsaRuleError(rule, f"{name} = {span} is outside 1-256 columns")
        codes[name] = span - 1
    _require_int(rule, "column_shift", column_shift)
    if not 0 <= column_shift <= _MAX_COLUMN_SHIFT:
        raise IsaRuleError(rule, f"column_shift = {column_shift} is outside "
                                 f"0-{_MAX_COLUMN_SHIFT}")
    codes["column_shift"] = column_shift
    return _pack(rule, _ZCM_FIELDS, codes)


def decode_zero_column_mask(value: int) -> dict:
    """Decode a Table 45 descriptor into ``encode_zero_column_mask``'s keywords.

    ``start_counts`` and ``first_spans`` come back as 4-tuples of ints (index i for
    sub-mask i), ``skip_span``/``use_span`` as column counts.
    """
    rule = _TABLE45
    codes = _unpack(rule, value, 64, _ZCM_FIELDS, _ZCM_RESERVED)
    fields = {
        "start_counts": tuple(codes[f"start_count_{i}"] for i in range(4)),
        "first_spans": tuple(codes[f"first_span_{i}"] for i in range(4)),
        "non_zero_mask": bool(codes["non_zero_mask"]),
        "skip_span": codes["skip_span"] + 1,
        "use_span": codes["use_span"] + 1,
        "column_shift": codes["column_shift"],
    }
    _check_reencodes(rule, encode_zero_column_mask(**fields), value)
    return fields


def zero_column_masks(value: int, *, m: int, n: int) -> list[int]:
    """The sub-masks the hardware generates from a zero-column mask descriptor.

    Returns one N-bit mask for M = 128, two N/2-bit masks for M = 64 and four N/4-bit
    masks for M = 32 (Table 45), mask i covering the i-th slice of the N columns.  Bit j is
    1 where the column is replaced by zeros.  The column shift is not applied: it selects
    which B columns the MMA reads, not which of them are masked.
    """
    rule = _TABLE45
    fields = decode_zero_column_mask(value)
    if m not in _SUB_MASKS:
        raise IsaRuleError(rule, f"m = {m!r} has no zero-column mask break-up "
                                 "(allowed: 128, 64, 32)")
    count = _SUB_MASKS[m]
    _require_int(rule, "n", n)
    if n <= 0 or n % 8:  # a multiple of 8 always splits into 1, 2 or 4 sub-masks
        raise IsaRuleError(rule, f"n = {n} is not a positive multiple of 8")
    if m == 32 and fields["column_shift"] > _MAX_COLUMN_SHIFT_M32:
        raise IsaRuleError(rule, f"column_shift = {fields['column_shift']} exceeds "
                                 f"{_MAX_COLUMN_SHIFT_M32}, the maximum for M = 32")
    if not fields["non_zero_mask"]:
        return [0] * count

    width = n // count
    skip, use = fields["skip_span"], fields["use_span"]
    period = skip + use
    masks = []
    for first, start in zip(fields["first_spans"][:count], fields["start_counts"][:count]):
        # Spans alternate 1s and 0s.  Index the periodic string from the start of its
        # first span; a 1s-first string has the zeroed run in [0, skip), a 0s-first string
        # in [use, period).
        zero_from, zero_to = (0, skip) if first else (use, period)
        mask = 0
        for j in range(width):
            if zero_from <= (start + j) % period < zero_to:
                mask |= 1 << j
        masks.append(mask)
    return masks


# Guard the transcriptions: each table's fields tile its word exactly.
_assert_tiles(32, _TABLE42_FIELDS, _TABLE42_RESERVED)
_assert_tiles(32, _TABLE43_FIELDS, _TABLE43_RESERVED)
_assert_tiles(32, _TABLE44_FIELDS, _TABLE44_RESERVED)
_assert_tiles(64, _SMEM_FIELDS, _SMEM_FIXED)
_assert_tiles(64, _ZCM_FIELDS, _ZCM_RESERVED)
