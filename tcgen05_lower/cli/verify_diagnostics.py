"""MLIR's ``--verify-diagnostics`` contract for tcgen05-opt.

Annotations in the input say which diagnostics must appear where:
``// expected-error {{text}}`` (this line), ``@+N`` / ``@-N`` (N lines below / above),
``@above`` / ``@below`` (the previous / next line). A diagnostic matches when its severity
and line agree and its message contains the text. Every expected diagnostic must appear,
and every error or warning that appears must be expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANNOTATION = re.compile(
    r"expected-(error|warning|note|remark)\s*(?:@(above|below|[+-]\d+))?\s*\{\{(.*?)\}\}")


@dataclass
class Expectation:
    severity: str
    line: int
    text: str
    annotation_line: int
    matched: bool = False


def parse_expectations(text: str, first_line: int = 1) -> list[Expectation]:
    """Expectations of a buffer whose first line has number `first_line`."""
    found = []
    for offset, line in enumerate(text.splitlines()):
        number = first_line + offset
        for match in _ANNOTATION.finditer(line):
            severity, where, message = match.groups()
            target = number
            if where == "above":
                target = number - 1
            elif where == "below":
                target = number + 1
            elif where:
                target = number + int(where)
            found.append(Expectation(severity, target, message, number))
    return found


def check(expectations: list[Expectation], diagnostics, source_name: str) -> list[str]:
    """Mismatches between expected and emitted diagnostics, as error lines."""
    problems = []
    for diagnostic in diagnostics:
        match = next((e for e in expectations if not e.matched
                      and e.severity == diagnostic.severity and e.line == diagnostic.line
                      and e.text in diagnostic.message), None)
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
