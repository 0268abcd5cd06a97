"""Table 39 of the PTX ISA and the other tcgen05.mma rules that depend only on the
instruction's static attributes (kind, cta_group, .sp, .ws, M, N, types, qualifiers).

Everything here is plain data plus small lookup functions:

* ``TABLE_39`` has one ``ShapeRow`` per (kind, .ws, cta_group, sparsity) line of
  Table 39 "Various combinations of .kind and shapes" (section 9.7.16.2.1), including the
  lines the table marks "Invalid".
* ``TYPE_ROWS`` holds the dtype and atype/btype columns of the same table.
* ``explain_mma_shape`` finds the matching row and says why a request does not fit it;
  ``check_mma_shape`` raises that explanation as an ``IsaRuleError``.
* The ``check_*`` functions at the end cover the remaining static rules of section
  9.7.16.10.9 (scale-input-d, disable-output-lane, .ashift, collector usage, maximum
  shift, block-scale types and vector sizes).

Reading Table 39. The table is a markdown rendering of an HTML table with merged cells:
a cell that is empty in the markdown continues the value above it within the same
(kind, .ws, cta_group) block. Each row below records the reconstructed values; where
a row needed a judgement, the comment above it says which merged cell it inherits.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Iterable, Optional

from .errors import IsaRuleError
# Table 39 as data (re-exported: callers read it as shapes.TABLE_39, shapes.KINDS ...).
from .table39 import (BLOCK_SCALED_KINDS, COLLECTOR_BUFFERS_MMA, COLLECTOR_BUFFERS_WS,
                      COLLECTOR_OPS, CTA_GROUPS, F8F6F4_TYPES, KINDS, MAX_SHIFT_VALUES, NSet,
                      SCALE_TYPES, SCALE_VECTOR_SIZES, ShapeRow, TABLE_39, TYPE_ROWS, TypeRow,
                      _MMA, _MMA_WS, _ROWS_BY_KEY, _TABLE)

__all__ = [
    "KINDS",
    "BLOCK_SCALED_KINDS",
    "CTA_GROUPS",
    "F8F6F4_TYPES",
    "SCALE_VECTOR_SIZES",
    "COLLECTOR_OPS",
    "COLLECTOR_BUFFERS_MMA",
    "COLLECTOR_BUFFERS_WS",
    "MAX_SHIFT_VALUES",
    "DISABLE_OUTPUT_LANE_SIZE",
    "NSet",
    "ShapeRow",
    "TypeRow",
    "TABLE_39",
    "TYPE_ROWS",
    "SCALE_TYPES",
    "find_shape_row",
    "mma_k",
    "valid_m",
    "valid_n",
    "allowed_types",
    "explain_mma_shape",
    "check_mma_shape",
    "check_mma_types",
    "check_scale_type",
    "check_scale_vectorsize",
    "scale_factor_columns",
    "scale_vectorsize_aliases",
    "check_scale_input_d",
    "check_disable_output_lane",
    "check_ashift",
    "check_collector_usage",
    "check_max_shift",
]

# --------------------------------------------------------------------------------------
# Lookups
# --------------------------------------------------------------------------------------


def _name(value: Optional[str]) -> Optional[str]:
    """Normalise a type or qualifier name: ".f16", "F16" and "f16" are all "f16"."""
    if value is None:
        return None
    return str(value).strip().lstrip(".").lower()


def _join(values: Iterable[object]) -> str:
    return ", ".join(str(v) for v in values)


def _require_kind(kind: str) -> str:
    name = _name(kind)
    if name not in KINDS:
        raise IsaRuleError(
            "9.7.16.10",
            f"kind::{kind} is not a tcgen05.mma kind (kinds: {_join(KINDS)})",
        )
    return name


def _require_cta_group(cta_group: int) -> int:
    if cta_group not in CTA_GROUPS:
        raise IsaRuleError(
            _MMA, f"cta_group::{cta_group} does not exist (cta_group::1 or cta_group::2)"
        )
    return cta_group


def _context(kind: str, cta_group: int, sparse: bool, ws: bool) -> str:
    """How a diagnostic names a Table 39 combination, e.g. "kind::f16, .ws, sparse,
    cta_group::1"; dense non-.ws requests read simply "kind::f16, cta_group::1"."""
    parts = [f"kind::{kind}"]
    if ws:
        parts.append(".ws")
    if sparse:
        parts.append("sparse")
    parts.append(f"cta_group::{cta_group}")
    return ", ".join(parts)


def find_shape_row(kind: str, cta_group: int, *, sparse: bool = False, ws: bool = False) -> ShapeRow:
    """Return the Table 39 row for (kind, cta_group, sparsity, .ws).

    The row is returned even when the table marks it "Invalid" (``row.valid`` is then
    False); an unknown kind or cta_group raises ``IsaRuleError``.
    """
    kind = _require_kind(kind)
    _require_cta_group(cta_group)
    return _ROWS_BY_KEY[(kind, bool(ws), cta_group, bool(sparse))]


def mma_k(kind: str, *, sparse: bool = False, k96: bool = False) -> int:
    """The K of an MMA: implied by the kind and the sparsity (9.7.16.2.2, Table 39).

    ``k96=True`` asks for the alternative K1 = 96 of dense kind::mxf4 / kind::mxf4nvf4;
    whether the rest of the shape allows it (cta_group::2, M = 256) is checked by
    ``check_mma_shape``.
    """
    kind = _require_kind(kind)
    rows = [r for r in TABLE_39 if r.kind == kind and r.sparse == bool(sparse) and r.valid]
    if k96:
        if not any(r.k96_m for r in rows):
            raise IsaRuleError(
                _TABLE,
                f"K1 = 96 is only supported for dense kind::mxf4 and kind::mxf4nvf4 "
                f"(got {'sparse ' if sparse else ''}kind::{kind})",
            )
        return 96
    # Every valid row of one kind and sparsity has the same K; the table states it per
    # line, and tests check that the lines agree.
    return rows[0].k


def valid_m(
    kind: str, cta_group: int, *, sparse: bool = False, ws: bool = False, k96: bool = False
) -> tuple[int, ...]:
    """The M values Table 39 allows for the combination (empty if it is "Invalid")."""
    row = find_shape_row(kind, cta_group, sparse=sparse, ws=ws)
    return row.k96_m if k96 else row.m


def valid_n(kind: str, cta_group: int, *, sparse: bool = False, ws: bool = False) -> tuple[int, ...]:
    """The N values Table 39 allows for the combination (empty if it is "Invalid")."""
    row = find_shape_row(kind, cta_group, sparse=sparse, ws=ws)
    return row.n.values if row.valid else ()


def allowed_types(kind: str) -> dict[str, tuple[str, ...]]:
    """D type -> allowed A/B types for a kind (dtype and atype/btype of Table 39)."""
    kind = _require_kind(kind)
    return {r.d_type: r.ab_types for r in TYPE_ROWS if r.kind == kind}


# --------------------------------------------------------------------------------------
# Table 39 checks
# --------------------------------------------------------------------------------------


def _explain_types(kind: str, d_type: str, a_type: str, b_type: str) -> Optional[IsaRuleError]:
    by_d = allowed_types(kind)
    ab_union: list[str] = []
    for ab in by_d.values():
        ab_union.extend(t for t in ab if t not in ab_union)
    d, a, b = _name(d_type), _name(a_type), _name(b_type)
    for label, t in (("A", a), ("B", b)):
        if t not in ab_union:
            return IsaRuleError(
                _TABLE, f"{label} type {t} is not allowed for kind::{kind} (allowed: {_join(ab_union)})"
            )
    if d not in by_d:
        return IsaRuleError(
            _TABLE, f"D type {d} is not allowed for kind::{kind} (allowed: {_join(by_d)})"
        )
    ab = by_d[d]
    if a not in ab or b not in ab:
        return IsaRuleError(
            _TABLE, f"D type {d} requires A and B of type {' or '.join(ab)} for kind::{kind}"
        )
    return None


def _explain_n(row: ShapeRow, n: int, ctx: str) -> Optional[IsaRuleError]:
    if n in row.n:
        return None
    step = row.n.step
    if step is not None and n > 0 and n % step != 0:
        return IsaRuleError(_TABLE, f"N = {n} is not a multiple of {step} for {ctx}")
    return IsaRuleError(_TABLE, f"N = {n} is not supported for {ctx} ({row.n.hint})")


def explain_mma_shape(
    *,
    kind: str,
    m: int,
    n: int,
    cta_group: int,
    sparse: bool = False,
    ws: bool = False,
    d_type: str,
    a_type: str,
    b_type: str,
    k96: bool = False,
) -> Optional[IsaRuleError]:
    """Find the Table 39 row for the request and say why it does not fit.

    Returns ``None`` when Table 39 allows the shape and types, otherwise the
    ``IsaRuleError`` (not raised) for the first rule the request breaks, checked in the
    order kind, cta_group, .ws / "Invalid" lines, K1 = 96, M, N, types.
    """
    try:
        row = find_shape_row(kind, cta_group, sparse=sparse, ws=ws)
    except IsaRuleError as error:
        return error
    kind = row.kind
    ctx = _context(kind, cta_group, sparse, ws)

    if not row.valid:
        kind_has_ws = any(r.valid for r in TABLE_39 if r.kind == kind and r.ws == row.ws)
        if row.ws and not kind_has_ws:
            return IsaRuleError(_TABLE, f"kind::{kind} does not support .ws")
        if row.ws:
            return IsaRuleError(_TABLE, f".ws is not supported with cta_group::{cta_group}")
        return IsaRuleError(_TABLE, f"{ctx} is not supported")

    if k96:
        if m not in row.k96_m:
            return IsaRuleError(
                _TABLE,
                "K1 = 96 is only supported for dense kind::mxf4 and kind::mxf4nvf4 with "
                f"cta_group::2 and M = 256 (got {ctx}, M = {m})",
            )
    elif m not in row.m:
        return IsaRuleError(_TABLE, f"M = {m} is not supported for {ctx} (supported: {_join(row.m)})")

    error = _explain_n(row, n, ctx)
    if error is not None:
        return error
    return _explain_types(kind, d_type, a_type, b_type)


def check_mma_shape(
    *,
    kind: str,
    m: int,
    n: int,
    cta_group: int,
    sparse: bool = False,
    ws: bool = False,
    d_type: str,
    a_type: str,
    b_type: str,
    k96: bool = False,
) -> None:
    """Raise ``IsaRuleError`` (rule "Table 39") unless Table 39 allows this MMA.

    ``kind`` is one of ``KINDS``; ``sparse`` is ``.sp``; ``ws`` is ``.ws``; ``k96``
    selects the "256xNxK1, K1 = 96" shape of dense kind::mxf4 / kind::mxf4nvf4.
    Types are PTX type names without the dot ("f16", "e4m3", "s8", ...).
    """
    error = explain_mma_shape(
        kind=kind, m=m, n=n, cta_group=cta_group, sparse=sparse, ws=ws,
        d_type=d_type, a_type=a_type, b_type=b_type, k96=k96,
    )
    if error is not None:
        raise error


def check_mma_types(kind: str, d_type: str, a_type: str, b_type: str) -> None:
    """Raise ``IsaRuleError`` unless the dtype and atype/btype columns of Table 39 allow
    (D, A, B) for ``kind``."""
    error = _explain_types(_require_kind(kind), d_type, a_type, b_type)
    if error is not None:
        raise error


# --------------------------------------------------------------------------------------
# Block scaling (Table 39 "X (Scale)" cells, Tables 54 and 55)
# --------------------------------------------------------------------------------------


def check_scale_type(kind: str, scale_type: Optional[str]) -> None:
    """Raise ``IsaRuleError`` unless ``scale_type`` is a scale type of ``kind``.

    Table 39: kind::mxf8f6f4 and kind::mxf4 scale with ue8m0, kind::mxf4nvf4 with ue8m0
    or ue4m3. Kinds without block scaling take no scale type (``None``).
    """
    kind = _require_kind(kind)
    scale = _name(scale_type)
    if kind not in BLOCK_SCALED_KINDS:
        if scale is not None:
            raise IsaRuleError(
                _TABLE,
                f"kind::{kind} has no block scaling, so scale type {scale} is not allowed "
                f"(block-scaled kinds: {_join(BLOCK_SCALED_KINDS)})",
            )
        return
    allowed = SCALE_TYPES[kind]
    if scale not in allowed:
        raise IsaRuleError(
            _TABLE,
            f"scale type {scale} is not allowed for kind::{kind} (allowed: {_join(allowed)})",
        )


# Table 54 "Valid combinations of scale_vectorsize and shapes": for each
# (.scale_vectorsize, kind), the number of scale_A columns (= scale_B rows) for K other
# than 96, and for K = 96 (None where the table has no K = 96 line).
# fmt: off
_TABLE_54 = MappingProxyType({
    ("scale_vec::1X", "mxf8f6f4"): (1, 1),   # "All supported values of K | M x 1"
    ("scale_vec::2X", "mxf4"):     (2, 2),   # "All supported values of K | M x 2"
    ("scale_vec::2X", "mxf4nvf4"): (2, 2),
    ("scale_vec::4X", "mxf4nvf4"): (4, 4),   # "All supported values of K | M x 4"
    ("block16", "mxf4nvf4"):       (4, 6),   # "K = 96 | M x 6", else "M x 4"
    ("block32", "mxf4"):           (2, 3),   # "K = 96 | M x 3", else "M x 2"
    ("block32", "mxf4nvf4"):       (2, 3),
    ("block32", "mxf8f6f4"):       (1, None),  # "All supported values of K | M x 1"
})
# Table 55: with scale type UE4M3, kind::mxf4nvf4 allows only ".scale_vec::4X / .block16".
_TABLE_55_UE4M3 = ("scale_vec::4X", "block16")
# fmt: on


def _scale_vectorsize_name(value: Optional[str]) -> Optional[str]:
    if value is None:
        return None
    text = str(value).strip().lstrip(".")
    lowered = text.lower()
    if lowered.startswith("scale_vec::"):
        return "scale_vec::" + lowered[len("scale_vec::"):].upper()
    return lowered


def _default_scale_vectorsize(kind: str) -> Optional[str]:
    # 9.7.16.10.9.1: "For .kind::mxf4 when the qualifier .scale_vectorsize is not
    # specified, then it defaults to .block32. For .kind::mxf4nvf4, the qualifier
    # .scale_vectorsize must be explicitly specified." The section states no default for
    # kind::mxf8f6f4; its only valid size is scale_vec::1X, alias .block32 (Table 55),
    # so leaving it out is read as that size.
    return {"mxf4": "block32", "mxf8f6f4": "block32"}.get(kind)


def check_scale_vectorsize(
    kind: str,
    scale_vectorsize: Optional[str],
    *,
    scale_type: Optional[str] = None,
    k96: bool = False,
) -> None:
    """Raise ``IsaRuleError`` unless ``.scale_vectorsize`` fits the kind (Table 54), the
    scale type (Table 55) and the K (K = 96 lines of Table 54).

    ``scale_vectorsize`` is one of ``SCALE_VECTOR_SIZES`` or ``None`` when the qualifier
    is left out.
    """
    kind = _require_kind(kind)
    size = _scale_vectorsize_name(scale_vectorsize)
    if kind not in BLOCK_SCALED_KINDS:
        if size is not None:
            raise IsaRuleError(
                _MMA, f".{size} needs .block_scale, which kind::{kind} does not take"
            )
        return
    if size is None:
        size = _default_scale_vectorsize(kind)
        if size is None:
            raise IsaRuleError(
                _MMA, f"kind::{kind} needs an explicit .scale_vectorsize "
                f"(one of {_join('.' + s for s in SCALE_VECTOR_SIZES)})",
            )
    if size not in SCALE_VECTOR_SIZES:
        raise IsaRuleError(
            _MMA, f".{size} is not a .scale_vectorsize (one of {_join(SCALE_VECTOR_SIZES)})"
        )
    entry = _TABLE_54.get((size, kind))
    if entry is None:
        allowed = [s for (s, k) in _TABLE_54 if k == kind]
        raise IsaRuleError(
            "Table 54", f".{size} is not valid for kind::{kind} (valid: {_join(allowed)})"
        )
    if k96 and entry[1] is None:
        raise IsaRuleError("Table 54", f".{size} with kind::{kind} has no K = 96 form")
    if _name(scale_type) == "ue4m3" and size not in _TABLE_55_UE4M3:
        raise IsaRuleError(
            "Table 55",
            f"scale type ue4m3 with kind::{kind} requires .scale_vec::4X or .block16 "
            f"(got .{size})",
        )


#: The ``scale_vec`` attribute values of the dialect's mma and the .scale_vectorsize
#: qualifier each names (9.7.16.10.9.1).
SCALE_VEC_QUALIFIERS = MappingProxyType({"1X": "scale_vec::1X", "2X": "scale_vec::2X",
                                         "4X": "scale_vec::4X", "block16": "block16",
                                         "block32": "block32"})

# 9.7.16.10.9.1 "Aliased .scale_vectorsize variants": .block16 is .scale_vec::4X for
# kind::mxf4nvf4 with K = 64 or 128; .block32 is .scale_vec::1X for kind::mxf8f6f4 (all K)
# and .scale_vec::2X for kind::mxf4 / kind::mxf4nvf4 with K = 64 or 128. With K = 96 the
# .blockN qualifiers have no .scale_vec::NX spelling (Table 54: M x 3 and M x 6).
_ALIASES = MappingProxyType({
    ("mxf8f6f4", "block32"): "scale_vec::1X",
    ("mxf4", "block32"): "scale_vec::2X",
    ("mxf4nvf4", "block32"): "scale_vec::2X",
    ("mxf4nvf4", "block16"): "scale_vec::4X",
})


def scale_vectorsize_aliases(kind: str, scale_vectorsize: Optional[str], *,
                             k96: bool = False) -> tuple[str, ...]:
    """The spellings of ``.scale_vectorsize`` that mean the same as ``scale_vectorsize``
    for ``kind`` and K, the given spelling (or the kind's default) first.

    ``aliases("mxf4", "scale_vec::2X") == ("scale_vec::2X", "block32")``;
    with ``k96=True`` a ``.blockN`` qualifier has no alias. The combination is checked
    first with :func:`check_scale_vectorsize`.
    """
    check_scale_vectorsize(kind, scale_vectorsize, k96=k96)
    kind = _name(kind)
    size = _scale_vectorsize_name(scale_vectorsize) or _default_scale_vectorsize(kind)
    if k96:
        return (size,)
    for (alias_kind, block), vec in _ALIASES.items():
        if alias_kind == kind and size in (block, vec):
            return (size, vec if size == block else block)
    return (size,)


def scale_factor_columns(kind: str, scale_vectorsize: Optional[str], *, k96: bool = False) -> int:
    """Columns of scale_A (= rows of scale_B) per Table 54, after checking the
    combination with ``check_scale_vectorsize``."""
    check_scale_vectorsize(kind, scale_vectorsize, k96=k96)
    kind = _name(kind)
    size = _scale_vectorsize_name(scale_vectorsize) or _default_scale_vectorsize(kind)
    regular, for_k96 = _TABLE_54[(size, kind)]
    return for_k96 if k96 else regular


# --------------------------------------------------------------------------------------
# Other static rules of 9.7.16.10.9
# --------------------------------------------------------------------------------------


def check_scale_input_d(kind: str, scale_input_d: int, *, ws: bool = False) -> None:
    """Raise ``IsaRuleError`` unless ``scale-input-d`` may be given with this MMA.

    9.7.16.10.9.1: "The valid range of values for argument scale-input-d is [0, 15]. The
    argument scale-input-d is only valid for .kind::tf32 and .kind::f16." The .ws forms
    (9.7.16.10.9.3) have no such operand.
    """
    kind = _require_kind(kind)
    if ws:
        raise IsaRuleError(_MMA_WS, "scale-input-d is not an operand of tcgen05.mma.ws")
    if kind not in ("f16", "tf32"):
        raise IsaRuleError(
            _MMA, f"scale-input-d is only valid for kind::f16 and kind::tf32 (got kind::{kind})"
        )
    if not isinstance(scale_input_d, int) or not 0 <= scale_input_d <= 15:
        raise IsaRuleError(_MMA, f"scale-input-d = {scale_input_d} is outside [0, 15]")


#: 9.7.16.10.9.1 table "Size of the vector disable-output-lane": ::1 -> 4, ::2 -> 8.
DISABLE_OUTPUT_LANE_SIZE = MappingProxyType({1: 4, 2: 8})


def check_disable_output_lane(
    cta_group: int, size: int, *, kind: Optional[str] = None, ws: bool = False
) -> None:
    """Raise ``IsaRuleError`` unless a disable-output-lane vector of ``size`` elements
    fits the instruction.

    9.7.16.10.9.1: the vector has 4 elements with cta_group::1 and 8 with cta_group::2.
    The syntax gives the operand only to the forms without block scaling (forms 1, 3, 5
    and 6), and not to tcgen05.mma.ws (9.7.16.10.9.3).
    """
    _require_cta_group(cta_group)
    if ws:
        raise IsaRuleError(_MMA_WS, "disable-output-lane is not an operand of tcgen05.mma.ws")
    if kind is not None and _require_kind(kind) in BLOCK_SCALED_KINDS:
        raise IsaRuleError(
            _MMA, f"disable-output-lane is not an operand of block-scaled kind::{_name(kind)}"
        )
    expected = DISABLE_OUTPUT_LANE_SIZE[cta_group]
    if size != expected:
        raise IsaRuleError(
            _MMA,
            f"disable-output-lane has {expected} elements with cta_group::{cta_group} (got {size})",
        )


def _collector_parts(collector: str) -> tuple[str, str]:
    text = str(collector).strip().lstrip(".")
    if text.startswith("collector::"):
        text = text[len("collector::"):]
    parts = text.split("::")
    if len(parts) != 2:
        raise IsaRuleError(
            _MMA, f".collector::{text} is not of the form .collector::buffer::op"
        )
    return parts[0], parts[1]


def check_collector_usage(collector: Optional[str], *, ws: bool = False) -> None:
    """Raise ``IsaRuleError`` unless ``collector`` is a valid ``.collector_usage``.

    Accepted spellings: "a::fill", "collector::a::fill" or ".collector::a::fill"; ``None``
    means the qualifier is left out (it then defaults to ``::discard``).
    tcgen05.mma / .mma.sp use buffer ``a`` (9.7.16.10.9.1); tcgen05.mma.ws / .ws.sp use
    ``b0``-``b3`` (9.7.16.10.9.3); the ops are fill, use, lastuse and discard.
    """
    if collector is None:
        return
    buffer, op = _collector_parts(collector)
    buffers, rule = (COLLECTOR_BUFFERS_WS, _MMA_WS) if ws else (COLLECTOR_BUFFERS_MMA, _MMA)
    if buffer not in buffers:
        which = "tcgen05.mma.ws" if ws else "tcgen05.mma"
        raise IsaRuleError(
            rule,
            f"collector buffer {buffer} is not valid for {which} (buffers: {_join(buffers)})",
        )
    if op not in COLLECTOR_OPS:
        raise IsaRuleError(
            rule, f"collector operation {op} is not valid (operations: {_join(COLLECTOR_OPS)})"
        )


def check_ashift(
    *,
    m: int,
    a_in_tmem: bool,
    collector: Optional[str] = None,
    kind: Optional[str] = None,
    ws: bool = False,
) -> None:
    """Raise ``IsaRuleError`` unless ``.ashift`` may be used with this MMA.

    9.7.16.10.9.1: ".ashift is only allowed with M = 128 or M = 256"; "It is illegal to
    specify either of .collector::a::use or .collector::a::fill along with .ashift".
    The syntax gives .ashift only to the forms with ``[a-tmem]`` (A in Tensor Memory),
    only to kinds without block scaling (forms 3 and 6), and never to .ws.
    """
    if ws:
        raise IsaRuleError(_MMA_WS, ".ashift is not available with tcgen05.mma.ws")
    if kind is not None and _require_kind(kind) in BLOCK_SCALED_KINDS:
        raise IsaRuleError(_MMA, f".ashift is not available with block-scaled kind::{_name(kind)}")
    if not a_in_tmem:
        raise IsaRuleError(_MMA, ".ashift requires matrix A in Tensor Memory ([a-tmem])")
    if m not in (128, 256):
        raise IsaRuleError(_MMA, f".ashift is only allowed with M = 128 or M = 256 (got M = {m})")
    if collector is not None:
        buffer, op = _collector_parts(collector)
        if op in ("fill", "use"):
            raise IsaRuleError(_MMA, f".ashift cannot be combined with .collector::{buffer}::{op}")


def check_max_shift(max_shift: int, *, kind: Optional[str] = None) -> None:
    """Raise ``IsaRuleError`` unless ``max_shift`` is a valid "maximum shift while
    attempting B matrix reuse in .ws" (Table 42, bits 30-31).

    The field holds no shift (0) or a maximum shift of 8, 16 or 32. Only the Table 42
    kinds (tf32, f16, f8f6f4, i8) have the field; in the block-scaled layouts (Tables 43
    and 44) those bits hold other fields, so ``kind`` there allows only 0.
    """
    if max_shift not in MAX_SHIFT_VALUES:
        raise IsaRuleError(
            "Table 42", f"maximum shift {max_shift} is not one of {_join(MAX_SHIFT_VALUES)}"
        )
    if kind is not None and _require_kind(kind) in BLOCK_SCALED_KINDS and max_shift:
        table = "Table 43" if _name(kind) == "mxf8f6f4" else "Table 44"
        raise IsaRuleError(
            table, f"kind::{_name(kind)} has no maximum-shift field (got maximum shift {max_shift})"
        )
