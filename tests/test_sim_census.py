"""Opcode census: every instruction the pipeline emits for any example, corpus kernel or
lit input that compiles is one the simulator executes (tcgen05_lower.sim.ops.known).
A new opcode or modifier in the emitted PTX fails here until the simulator implements it;
an unknown one is never run as a silent no-op."""

from pathlib import Path

import pytest

from corpus_compiles import chunks, compile_part
from tcgen05_lower.sim import ops, ptx

ROOT = Path(__file__).resolve().parent.parent


def sources():
    """(file#part, part, path) of every example, corpus kernel and lit input, cut as
    --split-input-file cuts them (tests/corpus_compiles.py, whose compiles
    tests/test_verify_corpus.py shares)."""
    files = sorted(ROOT.glob("examples/*.mlir")) + \
        sorted(ROOT.glob("benchmarks/tmem/corpus/*.mlir")) + \
        sorted(p for p in ROOT.glob("lit_tests/**/*.mlir") if "Output" not in p.parts)
    for path in files:
        for i, chunk in enumerate(chunks(path)):
            yield f"{path.relative_to(ROOT)}#{i}", chunk, path


@pytest.fixture(scope="module")
def census():
    """opcode -> first 'file#chunk:line' that emits it."""
    seen, compiled = {}, 0
    for name, text, path in sources():
        emitted, error = compile_part(text, str(path))
        if error is not None:  # expected-error inputs and non-kernels
            continue
        compiled += 1
        for entry in ptx.parse(emitted).entries:
            for ins in entry.instructions:
                seen.setdefault(ins.opcode, f"{name}:{ins.line}")
    return seen, compiled


def test_every_emitted_opcode_is_known(census):
    seen, compiled = census
    # the census covers the examples, the corpus and the compiling lit inputs
    assert compiled >= 100, compiled
    assert any(op.startswith("tcgen05.mma") for op in seen)
    unknown = {op: where for op, where in seen.items() if not ops.known(op)}
    assert not unknown, "the simulator does not implement: " + ", ".join(
        f"{op} (first emitted by {where})" for op, where in sorted(unknown.items()))


def test_known_rejects_what_the_isa_does_not_define():
    for opcode in ("popc.b32", "add.sat.s32", "tcgen05.mma.cta_group::3.kind::f16",
                   "tcgen05.ld.sync.aligned.32x32b.x3.b32", "tcgen05.cp.cta_group::1.8x8b",
                   "mbarrier.test_wait.shared::cta.b64", "ld.local.b32"):
        assert not ops.known(opcode), opcode
