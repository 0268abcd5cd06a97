"""The text-level helpers of the PTX parser (sim/ptx.py): comments blanked out with
offsets kept, integer literals (decimal, hex, octal, binary; a U suffix)
and lists split at the separators outside brackets and braces."""

from __future__ import annotations

import re

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def strip_comments(text: str) -> str:
    """Comments replaced by spaces of the same length, newlines kept (offsets stay valid)."""
    return _COMMENT.sub(_blank, text)


def _blank(m: re.Match) -> str:
    """A comment as spaces, its newlines kept (a ``//`` comment has none)."""
    comment = m.group(0)
    if "\n" not in comment:
        return " " * len(comment)
    return re.sub(r"[^\n]", " ", comment)


_INT = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]+|\d+)U?$")


def parse_int(text: str) -> int | None:
    """The value of an integer literal, else None."""
    t = text.strip()
    if t.isdecimal() and t.isascii() and (t[0] != "0" or len(t) == 1):
        return int(t)   # plain decimal digits, no sign, not octal: as read below
    return _parse_int_general(t)


def _parse_int_general(t: str) -> int | None:
    """``parse_int`` of a stripped text, of any form."""
    if not _INT.match(t):
        return None
    sign = -1 if t.startswith("-") else 1
    t = t.lstrip("+-").rstrip("U")
    if t[:2] in ("0x", "0X"):
        v = int(t[2:], 16)
    elif t[:2] in ("0b", "0B"):
        v = int(t[2:], 2)
    elif len(t) > 1 and t.startswith("0"):
        v = int(t, 8)
    else:
        v = int(t)
    return sign * v


#: The characters that nest (``split_top``).
_NESTING = re.compile(r"[\[\]{}()]")


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside brackets and braces."""
    if len(sep) == 1 and sep not in "[]{}()" and _NESTING.search(text) is None:
        # nothing nests: every sep splits (the general loop's result, at str.split's cost)
        out = text.split(sep)
        if not out[-1].strip():
            out.pop()
        return [x.strip() for x in out]
    if sep == ",":
        if _BRACES_OR_PARENS.search(text) is None:
            return _split_commas_brackets(text)
        return _split_commas_nested(text)
    return _split_top_nested(text, sep)


#: What only ``_split_commas_nested`` reads: braces and parentheses.
_BRACES_OR_PARENS = re.compile(r"[{}()]")


def _split_commas_brackets(text: str) -> list[str]:
    """``_split_commas_nested(text)`` of a text whose only nesting characters are
    brackets (an address operand: ``[%r9], %r10``): when every comma-separated piece
    opens as many brackets as it closes, the depth at each comma is zero, so every comma
    splits, as ``str.split`` does; else the general loop."""
    out = text.split(",")
    for piece in out:
        if piece.count("[") != piece.count("]"):
            return _split_commas_nested(text)
    if not out[-1].strip():
        out.pop()
    return [x.strip() for x in out]


#: What ``_split_commas_nested`` looks at: the characters that nest and the comma.
_NESTING_OR_COMMA = re.compile(r"[\[\]{}(),]")


def _split_commas_nested(text: str) -> list[str]:
    """``_split_top_nested(text, ",")`` visiting only the characters that nest and the
    commas (the others only extend the current item)."""
    out, depth, start = [], 0, 0
    for m in _NESTING_OR_COMMA.finditer(text):
        c = m.group()
        if c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
        elif depth == 0:   # a comma outside brackets and braces
            out.append(text[start:m.start()])
            start = m.end()
    if text[start:].strip():
        out.append(text[start:])
    return [x.strip() for x in out]


def _split_top_nested(text: str, sep: str) -> list[str]:
    """``split_top`` character by character, tracking the depth of nesting."""
    out, depth, cur = [], 0, []
    for c in text:
        if c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
        if c == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        out.append("".join(cur))
    return [x.strip() for x in out]
