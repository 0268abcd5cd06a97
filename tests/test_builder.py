"""The kernel builder (tcgen05_lower.builder): the README's example runs as written, gives
the PTX of the same kernel written as MLIR text, and a builder's diagnostics point at the
Python line that built the op."""

import contextlib
import io
import re
import runpy
from pathlib import Path

import pytest

from tcgen05_lower.builder import KernelBuilder
from tcgen05_lower.driver import CompileFailed, compile_source

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "gemm_from_python.py"


def readme_block() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Building kernels from Python", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_shows_the_example_file_as_it_is():
    assert readme_block() == EXAMPLE.read_text()


def test_the_example_runs_and_gives_the_ptx_of_the_mlir_example():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        namespace = runpy.run_path(str(EXAMPLE))
    printed = out.getvalue()
    assert "kernel @gemm_bf16_128x256 strategy=first-fit peak=256 columns" in printed
    assert "%acc    128x256xf32  D       0-127  [0, 256)  [8, 18]  12-18" in printed
    assert printed.endswith("4 MMAs in 236 lines of PTX\n")
    text = (ROOT / "examples" / "gemm_bf16_128x256.mlir").read_text()
    assert namespace["result"].ptx == compile_source(text, "gemm.mlir", arch="sm_100a").ptx
    # the README's printed output is this run's
    readme = (ROOT / "README.md").read_text()
    assert printed.strip() in readme


def test_a_diagnostic_points_at_the_python_line_that_built_the_op():
    k = KernelBuilder("bad", params={"C": "!llvm.ptr<1>"})
    a = k.smem([128, 64], "bf16")
    b = k.smem([250, 64], "bf16")
    acc = k.tmem([128, 250], "f32")
    k.mma(acc, a, b, False, kind="f16"); line = __import__("inspect").currentframe().f_lineno
    with pytest.raises(CompileFailed) as failure:
        k.compile()
    (diagnostic,) = failure.value.diagnostics
    assert (diagnostic.filename, diagnostic.line) == (__file__, line)
    assert "N = 250 is not a multiple of 8 for kind::f16" in diagnostic.message


def test_building_after_finish_is_an_error():
    k = KernelBuilder("k")
    k.finish()
    with pytest.raises(RuntimeError, match="the kernel is finished"):
        k.tmem([128, 32], "f32")
