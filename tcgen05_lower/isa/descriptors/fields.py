"""The bit-field plumbing the descriptors share (PTX ISA 9.7.16.4): a field's place in its
word, packing and unpacking a word from named fields with its reserved and fixed bits, the
type checks of the encoders' arguments and the name <-> code tables.  Internal to the
package: the encoders and decoders of its other modules are the public interface.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..errors import IsaRuleError


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
