"""Constants and small helpers the rule modules share (ISA table values with their
sources)."""

from __future__ import annotations

from tcgen05_lower.bindings import file_location
from tcgen05_lower.element_types import isa_bits


def line_of(op) -> str:
    _, line, _ = file_location(op.location)
    return "?" if line is None else str(line)


def known_element_bits(element: str) -> int | None:
    """Bits of an element type the ISA knows, else None."""
    try:
        return isa_bits(element)
    except KeyError:
        return None
