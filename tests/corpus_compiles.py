"""One compile of each part of every corpus file, shared by the tests that compile them
all: tests/test_sim_census.py (the opcodes of the PTX) and tests/test_verify_corpus.py (no
internal error). Both ran the same default pipeline on the same parts for the target each
part names; the second compile of a part could only repeat the first."""

from __future__ import annotations

from pathlib import Path

from tcgen05_lower.driver import CompileFailed, compile_source

#: (source name, text) -> (PTX or None, the exception the compile raised or None).
_OUTCOMES: dict = {}


def chunks(path: Path) -> list[str]:
    """The parts of a file as --split-input-file cuts it; each keeps its line numbers."""
    parts, current, first = [], [], 1
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.strip() == "// -----":
            parts.append("\n" * (first - 1) + "\n".join(current))
            current, first = [], number + 1
        else:
            current.append(line)
    parts.append("\n" * (first - 1) + "\n".join(current))
    return parts


def compile_part(text: str, source_name: str) -> tuple[str | None, Exception | None]:
    """(PTX, None) when `text` compiles through the default pipeline, else (None, the
    exception: a CompileFailed for bad input, anything else is a crash), once per test
    session."""
    key = (source_name, text)
    if key not in _OUTCOMES:
        try:
            _OUTCOMES[key] = (compile_source(text, source_name, emit="ptx").ptx, None)
        except CompileFailed as failure:
            # kept without its traceback, whose frames would keep the compile's MLIR
            # context alive (tests/test_process_hygiene.py); its diagnostics are data
            failure.__traceback__ = failure.__context__ = failure.__cause__ = None
            _OUTCOMES[key] = (None, failure)
        except Exception as error:  # noqa: BLE001 - test_verify_corpus re-raises it
            _OUTCOMES[key] = (None, error)
    return _OUTCOMES[key]
