"""MLIR's ``--verify-diagnostics`` contract for tcgen05-opt.

Annotations in the input say which diagnostics must appear where:
``// expected-error {{text}}`` (this line), ``@+N`` / ``@-N`` (N lines below / above),
``@above`` / ``@below`` (the previous / next line). A diagnostic matches when its severity
and line agree and its message contains the text. ``expected-error-re`` (and the other
``-re`` forms) take literal text with regular expressions in ``{{...}}`` inside it, as in
MLIR: ``// expected-error-re {{N = {{[0-9]+}} is not}}``. Every expected diagnostic must
appear, and every error or warning that appears must be expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANNOTATION = re.compile(
    r"expected-(error|warning|note|remark)(-re)?\s*(?:@(above|below|[+-]\d+))?\s*"
    r"\{\{(.*?)\}\}(?!\})")
_ANNOTATION_RE = re.compile(
    r"expected-(error|warning|note|remark)(-re)\s*(?:@(above|below|[+-]\d+))?\s*"
    r"\{\{(.*)\}\}")


@dataclass
class Expectation:
    severity: str
    line: int
    text: str
    annotation_line: int
    matched: bool = False
    pattern: "re.Pattern | None" = None

    def matches(self, message: str) -> bool:
        if self.pattern is not None:
            return self.pattern.search(message) is not None
        return self.text in message


def _pattern(text: str) -> "re.Pattern":
    """Literal text with {{regex}} parts (MLIR's -re form)."""
    parts, position = [], 0
    for match in re.finditer(r"\{\{(.*?)\}\}", text):
        parts.append(re.escape(text[position:match.start()]))
        parts.append(f"(?:{match.group(1)})")
        position = match.end()
    parts.append(re.escape(text[position:]))
    return re.compile("".join(parts))


def parse_expectations(text: str, first_line: int = 1) -> list[Expectation]:
    """Expectations of a buffer whose first line has number `first_line`."""
    found = []
    for offset, line in enumerate(text.splitlines()):
        number = first_line + offset
        regex_form = _ANNOTATION_RE.search(line)
        for match in [regex_form] if regex_form else _ANNOTATION.finditer(line):
            severity, regex, where, message = match.groups()
            target = number
            if where == "above":
                target = number - 1
            elif where == "below":
                target = number + 1
            elif where:
                target = number + int(where)
            found.append(Expectation(severity, target, message, number,
                                     pattern=_pattern(message) if regex else None))
    return found


def check(expectations: list[Expectation], diagnostics, source_name: str) -> list[str]:
    """Mismatches between expected and emitted diagnostics, as error lines."""
    problems = []
    for diagnostic in diagnostics:
        match = next((e for e in expectations if not e.matched
                      and e.severity == diagnostic.severity and e.line == diagnostic.line
                      and e.matches(diagnostic.message)), None)
        if match is not None:
            match.matched = True
        elif diagnostic.severity in ("error", "warning"):
            problems.append(f"{source_name}:{diagnostic.line}:{diagnostic.col}: error: "
                            f"unexpected {diagnostic.severity}: {diagnostic.message}")
    for e in expectations:
        if not e.matched:
            problems.append(f"{source_name}:{e.annotation_line}: error: expected "
                            f"{e.severity} \"{e.text}\" on line {e.line} was not produced")
    return problems
