"""The 64-bit zero-column mask descriptor of ``tcgen05.mma.ws`` (9.7.16.4.3, Table 45):
its fields, the encoder and decoder, and the per-M masks a descriptor generates.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Sequence

from ..errors import IsaRuleError
from .fields import (
    _Field,
    _assert_tiles,
    _check_reencodes,
    _pack,
    _require_flag,
    _require_int,
    _unpack,
)


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


# Guard the transcription: the fields tile the word exactly.
_assert_tiles(64, _ZCM_FIELDS, _ZCM_RESERVED)
