"""The operand segments of ``tcgen05.mma``, which users never write.

IRDL binds every value of one variadic group to one type, so the MMA's trailing TMEM
operands are three optional groups of their own (scale_a, scale_b, metadata), and IRDL
then wants an ``operandSegmentSizes`` attribute (``array<i32: ...>``, one entry per
group) on every MMA. The operand count alone says which groups are present, because the
scale factors come in pairs and before the metadata:

====  =====================================
   4  none (d, a, b, enable_input_d)
   5  metadata (a sparse MMA)
   6  scale_a, scale_b (a block-scaled MMA)
   7  scale_a, scale_b, metadata
====  =====================================

So the project supplies the attribute wherever an MMA is made: :func:`supply` adds it to
the text of each ``"tcgen05.mma"(...)`` that lacks it before the MLIR parser sees the text
(``parsing.parse_module``), ``MmaOp.build`` writes it, and :func:`strip` takes it out of
the IR the tools print, so that the text a user writes is the text they get back. Which
attribute asks for which group (``scale_vec`` / the block-scaled kinds, ``sparse``) is
tcgen05-verify's to check, as before.

Inserting text moves the columns after it on its line; :class:`Edits` maps a column of the
edited text back to the user's text, for diagnostics and op locations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType

#: IRDL's name for the attribute (mlir/lib/Dialect/IRDL/IRDLLoading.cpp).
SEGMENT_ATTR = "operandSegmentSizes"

#: The fixed operands of tcgen05.mma (d, a, b, enable_input_d).
MMA_FIXED = 4

#: Operand count -> the segment sizes of (d, a, b, enable_input_d, scale_a, scale_b,
#: metadata).
MMA_SEGMENTS = MappingProxyType({
    4: (1, 1, 1, 1, 0, 0, 0),
    5: (1, 1, 1, 1, 0, 0, 1),
    6: (1, 1, 1, 1, 1, 1, 0),
    7: (1, 1, 1, 1, 1, 1, 1),
})


def mma_segments(count: int) -> tuple[int, ...] | None:
    """The segment sizes of an MMA with `count` operands; None for a count no MMA has."""
    return MMA_SEGMENTS.get(count)


def segments_text(sizes) -> str:
    return f"{SEGMENT_ATTR} = array<i32: {', '.join(map(str, sizes))}>"


@dataclass
class Edits:
    """Text inserted into the user's text, per line: (column, length) pairs in the
    edited text's columns (1-based), in order."""

    by_line: dict[int, list[tuple[int, int]]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.by_line)

    def add(self, line: int, column: int, length: int) -> None:
        self.by_line.setdefault(line, []).append((column, length))

    def original_column(self, line: int | None, column: int | None) -> int | None:
        """The column in the user's text of `column` of the edited text on `line` (a
        column inside inserted text maps to where the insertion is)."""
        if line is None or column is None or line not in self.by_line:
            return column
        shift = 0
        for start, length in self.by_line[line]:
            if column >= start + length:
                shift += length
            elif column >= start:
                return start - shift
        return column - shift


_MMA = re.compile(r'"tcgen05\.mma"\s*\(')
_SEGMENT_WORD = re.compile(r"\b" + SEGMENT_ATTR + r"\b")


def supply(text: str) -> tuple[str, Edits]:
    """`text` with ``operandSegmentSizes`` added to every ``"tcgen05.mma"`` op that has
    between 4 and 7 operands and does not write it, and where the insertions are. Ops it
    cannot read (unbalanced brackets, a count no MMA has) are left as they are: the parser
    or the IRDL verifier reports them."""
    code = _mask(text)
    if '"tcgen05.mma"' not in code:
        return text, Edits()
    insertions = []   # (offset, text)
    for match in _MMA.finditer(code):
        close = _matching(code, match.end() - 1, "(", ")")
        if close is None:
            continue
        inside = code[match.end():close]
        count = inside.count(",") + 1 if inside.strip() else 0
        sizes = mma_segments(count)
        if sizes is None:
            continue
        at = close + 1
        while at < len(code) and code[at].isspace():
            at += 1
        if code.startswith("{", at):
            end = _matching(code, at, "{", "}")
            if end is None or _SEGMENT_WORD.search(code, at, end):
                continue
            entries = code[at + 1:end]
            insertions.append((end, (", " if entries.strip() else "") + segments_text(sizes)))
        elif code.startswith(":", at):
            insertions.append((close + 1, " {" + segments_text(sizes) + "}"))
    if not insertions:
        return text, Edits()
    edits = Edits()
    pieces, last, shift_on_line, current_line = [], 0, 0, None
    for offset, inserted in insertions:
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        if line != current_line:
            current_line, shift_on_line = line, 0
        edits.add(line, column + shift_on_line, len(inserted))
        shift_on_line += len(inserted)
        pieces += [text[last:offset], inserted]
        last = offset
    pieces.append(text[last:])
    return "".join(pieces), edits


_PRINTED = re.compile(r"(, )?" + SEGMENT_ATTR + r" = array<i32(?:: [0-9, ]*)?>(, )?")


def strip(printed: str) -> str:
    """`printed` IR without the ``operandSegmentSizes`` of its ``tcgen05.mma`` ops (those
    the operand count implies, i.e. all that :func:`supply` would add back)."""
    if SEGMENT_ATTR not in printed:
        return printed
    lines = printed.split("\n")
    for i, line in enumerate(lines):
        if '"tcgen05.mma"' in line and SEGMENT_ATTR in line:
            lines[i] = _PRINTED.sub(_drop, line, count=1).replace(" {} :", " :", 1)
    return "\n".join(lines)


def _drop(match: "re.Match") -> str:
    # "{a, X, b}" -> "{a, b}"; "{X, b}" -> "{b}"; "{a, X}" -> "{a}"; "{X}" -> "{}"
    return ", " if match.group(1) and match.group(2) else ""


_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*')


def _mask(text: str) -> str:
    """`text` with comments and the insides of strings blanked (same length and lines),
    except the op names ``"tcgen05.mma"``."""
    def blank(match):
        s = match.group(0)
        if s == '"tcgen05.mma"':
            return s
        if s.startswith("//"):
            return " " * len(s)
        return '"' + re.sub(r"[^\n]", " ", s[1:-1]) + '"'
    return _STRING_OR_COMMENT.sub(blank, text)


def _matching(code: str, start: int, opener: str, closer: str) -> int | None:
    """The offset of the bracket that closes the one at `start` (strings are masked)."""
    depth = 0
    for i in range(start, len(code)):
        ch = code[i]
        if ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return i
    return None
