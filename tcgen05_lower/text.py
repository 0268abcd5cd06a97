"""Small text utilities shared by the type accessors, the pipeline parser and every
message that suggests a known name for a misspelled one."""

from __future__ import annotations

import difflib


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


#: How alike a misspelling and a known name must be (difflib's ratio, 0 to 1) for
#: did_you_mean to suggest it: 0.6 is difflib's own default, which finds one dropped,
#: added, swapped or changed character in names of three or more characters
#: ("f61" -> "f16", "sm100a" -> "sm_100a") without pairing unrelated short names.
SUGGESTION_CUTOFF = 0.6


def closest(word: str, candidates) -> str | None:
    """The candidate most like `word` (difflib.get_close_matches, ignoring case), or None
    when none is close enough (SUGGESTION_CUTOFF) or `word` is itself a candidate. Of
    equally close candidates the first listed wins, so the order of `candidates` (the
    order the message lists them in) decides ties: ``sm_100`` suggests ``sm_100a``."""
    names = [str(c) for c in candidates]
    folded = {}
    for name in names:
        folded.setdefault(name.casefold(), name)
    word = str(word)
    if not names or word in names:
        return None  # nothing to suggest, or nothing misspelled
    matches = difflib.get_close_matches(word.casefold(), list(folded), n=len(folded),
                                        cutoff=SUGGESTION_CUTOFF)
    if not matches:
        return None
    # get_close_matches breaks ties by the larger string; the listed order reads better.
    best = difflib.SequenceMatcher(None, word.casefold(), matches[0]).ratio()
    tied = {m for m in matches
            if difflib.SequenceMatcher(None, word.casefold(), m).ratio() == best}
    return next(folded[f] for f in folded if f in tied)


def did_you_mean(word: str, candidates) -> str:
    """``"; did you mean 'X'?"`` for the candidate closest to `word` (see closest), to
    append to a message that refuses `word`; "" when nothing is close. The one source of
    every did-you-mean suggestion (pass options and their values, targets, kernel
    dictionary entries, attribute names and values)."""
    match = closest(word, candidates)
    return f"; did you mean '{match}'?" if match is not None else ""
