"""Small text utilities shared by the type accessors and the pipeline parser."""

from __future__ import annotations


def split_top_level(text: str, openers: str, closers: str) -> list[str]:
    """Splits `text` at commas that are not nested inside any of the bracket pairs
    (`openers[i]`, `closers[i]`); parts are stripped. Raises ValueError if the brackets
    do not balance."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in openers:
            depth += 1
        elif ch in closers:
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced '{ch}' in '{text}'")
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if depth != 0:
        raise ValueError(f"unbalanced brackets in '{text}'")
    parts.append(text[start:].strip())
    return parts
