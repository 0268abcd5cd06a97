"""Issue acceptance 4: no input of the test corpus makes the verifier, the lowering or an
encoder raise an uncaught Python exception.

Every ``.mlir`` file under ``lit_tests/`` and ``examples/`` is split at ``// -----`` (as
``--split-input-file`` does) and each part is compiled by the whole default pipeline
(tcgen05-verify, planning, tcgen05-lower-to-llvm, the upstream conversions, translation
and the NVPTX backend) for the target it names. Bad inputs must end in located
diagnostics (``CompileFailed``); an exception inside a pass surfaces as an "internal
error in <pass>" diagnostic, which this test rejects, and any other exception fails it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tcgen05_lower.driver import CompileFailed, compile_source

from conftest import EXAMPLES, ROOT

CORPUS = sorted([*(ROOT / "lit_tests").rglob("*.mlir"), *EXAMPLES.glob("*.mlir")])
CORPUS = [p for p in CORPUS if "Output" not in p.parts]


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


def test_corpus_is_not_empty():
    names = {p.name for p in CORPUS}
    assert {"gemm_bf16_128x256.mlir", "mma-rules.mlir", "mma-kinds.mlir"} <= names


@pytest.mark.parametrize("path", CORPUS, ids=[str(p.relative_to(ROOT)) for p in CORPUS])
def test_no_internal_error(path):
    for text in chunks(path):
        try:
            compile_source(text, str(path), emit="ptx")
        except CompileFailed as failure:
            internal = [x.format() for x in failure.diagnostics if "internal error" in x.message]
            assert not internal, "\n".join(internal)
