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


import pytest

from tcgen05_lower.driver import CompileFailed

from conftest import EXAMPLES, ROOT
from corpus_compiles import chunks, compile_part

CORPUS = sorted([*(ROOT / "lit_tests").rglob("*.mlir"), *EXAMPLES.glob("*.mlir")])
CORPUS = [p for p in CORPUS if "Output" not in p.parts]


def test_corpus_is_not_empty():
    names = {p.name for p in CORPUS}
    assert {"gemm_bf16_128x256.mlir", "mma-rules.mlir", "mma-kinds.mlir"} <= names


@pytest.mark.parametrize("path", CORPUS, ids=[str(p.relative_to(ROOT)) for p in CORPUS])
def test_no_internal_error(path):
    for text in chunks(path):
        _, error = compile_part(text, str(path))
        if error is not None and not isinstance(error, CompileFailed):
            raise error
        if error is not None:
            internal = [x.format() for x in error.diagnostics if "internal error" in x.message]
            assert not internal, "\n".join(internal)
