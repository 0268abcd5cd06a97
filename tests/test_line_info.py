"""Line information: with ``line_info`` (tcgen05-lower --line-info) the PTX carries each op's
MLIR location as ``.file`` / ``.loc``, and tcgen05-sim, which compiles a .mlir kernel with
it, reports races, out-of-bounds accesses and problems at exit at those lines (issue 37,
item 5). Without it the PTX has no debugging directive.

Every expected location is read from the test's own input text (the line and column where
the op's text starts), never from the compiler's output; lit_tests/tools/line-info.mlir
checks the same with FileCheck's [[@LINE]]."""

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import requires_ptxas

from tcgen05_lower.backend import run_ptxas
from tcgen05_lower.cli.sim import prepare
from tcgen05_lower.driver import compile_source
from tcgen05_lower.pipeline import LOWERING
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.source_lines import source_locations
from tcgen05_lower.sim.state import SimError

ROOT = Path(__file__).resolve().parent.parent
GEMM = ROOT / "examples" / "gemm_bf16_128x256.mlir"
DEBUG_DIRECTIVE = re.compile(r"^\s*(\.loc|\.file|\.section|\$L__(tmp|func_begin|func_end)\d+:)")


def op_locations(text: str, name: str, source: str) -> list[str]:
    """``source:line:col`` of every op `name` in `text`: where its quoted name starts (the
    generic syntax; MLIR's parser locates an op there, after any ``%x =``)."""
    found = []
    for number, line in enumerate(text.split("\n"), 1):
        column = line.find(f'"{name}"')
        if column >= 0:
            found.append(f"{source}:{number}:{column + 1}")
    return found


def test_without_line_info_the_ptx_has_no_debugging_directive_and_with_it_the_same_code():
    text = GEMM.read_text()
    plain = compile_source(text, str(GEMM)).ptx
    located = compile_source(text, str(GEMM), line_info=True).ptx
    assert not any(DEBUG_DIRECTIVE.match(line) for line in plain.split("\n"))
    assert ".loc" in located and ".file" in located
    # the directives and their labels are all that line info adds: same instructions
    kept = [line for line in located.split("\n") if not DEBUG_DIRECTIVE.match(line)]
    assert [line for line in kept if not line.strip().startswith("//")] == \
        [line for line in plain.split("\n") if not line.strip().startswith("//")]


@requires_ptxas
def test_ptxas_accepts_the_ptx_with_line_info():
    result = compile_source(GEMM.read_text(), str(GEMM), line_info=True)
    assembled = run_ptxas(result.ptx, arch=result.target)
    assert assembled.ok, assembled.stderr


def test_each_mma_and_ld_of_the_example_is_at_its_mlir_line(tool, tmp_path):
    """Through the command line: tcgen05-lower --line-info."""
    out = tmp_path / "g.ptx"
    proc = tool("tcgen05-lower", str(GEMM), "--line-info", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    ptx = out.read_text()
    where = source_locations(ptx)
    text = GEMM.read_text()
    for opcode, op in (("tcgen05.mma", "tcgen05.mma"), ("tcgen05.ld.", "tcgen05.ld")):
        lines = [n for n, line in enumerate(ptx.split("\n"), 1) if opcode in line]
        assert lines
        expected = set(op_locations(text, op, str(GEMM)))
        assert {where[n] for n in lines} == expected


def _without_wait() -> str:
    """The example's planned IR with its one mbarrier wait (the MMAs' completion before
    the loads) deleted: the test's input text."""
    planned = compile_source(GEMM.read_text(), str(GEMM), emit="mlir").mlir
    kept = [line for line in planned.split("\n") if '"tcgen05.mbarrier_wait"' not in line]
    assert len(kept) == len(planned.split("\n")) - 1
    return "\n".join(kept)


def test_a_missing_wait_is_reported_at_the_mlir_lines_of_both_ops():
    text = _without_wait()
    result = compile_source(text, "nowait.mlir", pipeline=",".join(LOWERING), line_info=True)
    _, manifest, _, inputs = prepare(str(GEMM))
    printed = [p["name"] for p in result.manifest["params"]]
    args = dict(zip(printed, (inputs[p["name"]] for p in manifest["params"])))
    run = simulate(result.ptx, result.manifest, args)
    mmas = op_locations(text, "tcgen05.mma", "nowait.mlir")
    (ld,) = op_locations(text, "tcgen05.ld", "nowait.mlir")
    (commit,) = op_locations(text, "tcgen05.commit", "nowait.mlir")
    loads = [r for r in run.races if "tcgen05.ld and tcgen05.mma" in str(r)]
    assert loads, [str(r) for r in run.races]
    for race in loads:
        assert race.source == ld and race.other_source in mmas
        assert f"({ld}): race with PTX line {race.other_line} ({race.other_source})" \
            in str(race)
    # the problems at exit name the source lines too: the commit whose arrival no wait
    # observed, the load of TMEM no MMA had written yet
    assert any(f"({commit})" in p and "tcgen05.commit" in p for p in run.problems)
    assert any(f"({ld})" in p and "no tcgen05 operation wrote" in p for p in run.problems)


def test_an_out_of_bounds_store_is_reported_at_its_mlir_line():
    """tcgen05-sim's loader (prepare) compiles with line info: C given half its rows."""
    ptx, manifest, _, inputs = prepare(str(GEMM))
    inputs["C"] = np.zeros((64, 256), np.float32)
    with pytest.raises(SimError) as caught:
        simulate(ptx, manifest, inputs)
    (store,) = op_locations(GEMM.read_text(), "tcgen05.store_fragment", str(GEMM))
    assert "out-of-bounds global store" in caught.value.message
    assert caught.value.source == store
    assert f"({store}): out-of-bounds" in str(caught.value)


def test_a_kernel_built_in_python_is_located_at_its_python_lines():
    path = ROOT / "examples" / "python" / "gemm_bf16_128x256.py"
    spec = importlib.util.spec_from_file_location("twin_line_info", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ptx = module.build().compile(arch="sm_100a", line_info=True).ptx
    where = source_locations(ptx)
    mma_line = next(n for n, line in enumerate(path.read_text().split("\n"), 1)
                    if "k.mma(" in line)
    mmas = [n for n, line in enumerate(ptx.split("\n"), 1) if "tcgen05.mma" in line]
    assert len(mmas) == 4
    # the builder locates an op at the caller's line, column 1 (builder.KernelBuilder)
    assert {where[n] for n in mmas} == {f"{path}:{mma_line}:1"}


@requires_ptxas
@pytest.mark.parametrize("name", ['a"b.mlir', "é ü.mlir", "dir\\x.mlir"])
def test_odd_file_names_reach_ptxas_and_the_reports_as_they_are(name):
    """LLVM writes a quote in a .file name as \\" (ptxas refuses it: backend writes \\042)
    and non-ASCII bytes as octal escapes (the simulator decodes them)."""
    result = compile_source(GEMM.read_text(), name, line_info=True)
    assembled = run_ptxas(result.ptx, arch=result.target)
    assert assembled.ok, assembled.stderr
    sources = set(source_locations(result.ptx).values())
    assert sources and all(s.rsplit(":", 2)[0] == name for s in sources)
