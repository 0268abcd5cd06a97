"""The compile-scaling benchmark (benchmarks/compile/scaling.py) still runs: its kernel
generators produce kernels the full default pipeline compiles to PTX, and the report is
built on tiny sizes. Timings are the benchmark's business; nothing here looks at them."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from conftest import ROOT
from tcgen05_lower.driver import compile_source


def load_script():
    """benchmarks/compile/scaling.py as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "compile_scaling", ROOT / "benchmarks" / "compile" / "scaling.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


scaling = load_script()


@pytest.mark.parametrize("shape", list(scaling.SHAPES))
def test_generated_kernel_compiles(shape):
    generate = scaling.SHAPES[shape][0]
    result = compile_source(generate(3), f"{shape}.mlir")
    assert result.ptx is not None and ".entry scaling" in result.ptx
    assert result.ptx.count("tcgen05.mma") >= 3


def test_report_on_tiny_sizes(tmp_path):
    output = tmp_path / "REPORT.md"
    scaling.main(["--sizes", "1,2", "--repeats", "1", "-o", str(output)])
    text = output.read_text()
    assert text.startswith("# Compile time against kernel size")
    assert "--sizes 1,2 --repeats 1" in text
    for shape in scaling.SHAPES:
        assert f"## {shape}" in text
    for step in scaling.STEPS + tuple(scaling.TOTALS):
        assert f"| {step} |" in text or f"| **{step}** |" in text


def test_growth_per_doubling():
    assert scaling.growth([(8, 1.0), (16, 2.0)]) == pytest.approx(2.0)
    assert scaling.growth([(16, 1.0), (64, 16.0)]) == pytest.approx(4.0)
    assert scaling.growth([(8, 1.0)]) is None
    assert scaling.verdict(4.0, 1.0) == "too small to tell"
    assert scaling.verdict(2.7, 50.0) == "superlinear"
    assert scaling.verdict(2.1, 50.0) == "linear"


def test_sizes_must_increase():
    with pytest.raises(SystemExit):
        scaling.main(["--sizes", "8,4"])


def test_fills_ask_for_a_tiles_stored_k_once(monkeypatch):
    """kernel_ir.stored_k walks every use of a tile; the fills' lowering asks once per
    tile, not once per fill (which grows with the square of the kernel): the straight
    kernel of 6 tiles has two tiles and 12 fills."""
    from tcgen05_lower import kernel_ir
    from tcgen05_lower.lowering import smem

    calls = []
    real = kernel_ir.stored_k
    monkeypatch.setattr(smem, "stored_k", lambda tile: calls.append(tile) or real(tile))
    result = compile_source(scaling.straight_kernel(6), "straight.mlir")
    assert result.ptx is not None
    assert len(calls) == 2
