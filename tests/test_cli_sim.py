"""tcgen05-sim: usage errors exit 1 without a traceback; the trace names warps and PTX
lines; a full run checks the example against NumPy (when the simulator's tensor-core and
ordering models are present)."""

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from sim_standins import EagerOrdering, RecordingTensorCore  # noqa: E402

from tcgen05_lower.cli.sim import prepare  # noqa: E402
from tcgen05_lower.sim.api import simulate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GEMM = str(ROOT / "examples/gemm_bf16_128x256.mlir")


def test_ptx_without_manifest_is_a_usage_error(tmp_path):
    """The installed executables, in child processes: their exit statuses."""
    ptx = tmp_path / "k.ptx"
    subprocess.run(["tcgen05-lower", GEMM, "-o", str(ptx)], check=True)
    proc = subprocess.run(["tcgen05-sim", str(ptx)], capture_output=True, text=True)
    assert proc.returncode == 1 and "needs --manifest" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_gemm_check_needs_a_gemm(tool):
    proc = tool("tcgen05-sim", str(ROOT / "benchmarks/tmem/corpus/13_cta2_m256_kloop.mlir"))
    assert proc.returncode == 1 and "--check gemm needs parameters A, B and C" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_gemm_shapes_come_from_the_kernel():
    _, manifest, problem, inputs = prepare(str(ROOT / "examples/gemm_bf16_kloop.mlir"))
    # the comment of the example: C (128 x 256) = A (128 x 512, bf16) x B (512 x 256)
    assert inputs["A"].shape == (128, 512) and inputs["B"].shape == (512, 256)
    assert inputs["C"].shape == (128, 256) and np.isnan(inputs["C"]).all()
    assert str(inputs["A"].dtype) == "bfloat16" and inputs["C"].dtype == np.float32


def test_a_check_file_takes_its_sizes_from_set():
    dynamic = ROOT / "examples/gemm_bf16_kloop_dynamic.mlir"
    check = str(ROOT / "examples/gemm_bf16_kloop_dynamic.check.py")
    _, _, _, inputs = prepare(str(dynamic), check)
    assert inputs["K"] == 512 and inputs["A"].shape == (128, 512)   # its SCALARS
    _, _, _, inputs = prepare(str(dynamic), check, scalars={"K": 192})
    assert inputs["K"] == 192 and inputs["A"].shape == (128, 192)
    assert inputs["B"].shape == (192, 256) and np.isnan(inputs["C"]).all()


def test_trace_has_one_line_per_warp_and_instruction():
    ptx, manifest, problem, inputs = prepare(GEMM)
    trace = io.StringIO()
    result = simulate(ptx, manifest, inputs, trace=trace, ordering_factory=EagerOrdering,
                      tensor_core=RecordingTensorCore())
    lines = trace.getvalue().splitlines()
    assert len(lines) == result.warp_instructions
    first = lines[0].split("\t")
    assert first[1:3] == ["cta 0", "warp 0"] and first[3].startswith("line ")
    assert "ld.param" in first[4]
    assert {line.split("\t")[2] for line in lines} == {f"warp {w}" for w in range(4)}


def test_full_run_of_the_example(tmp_path, tool):
    proc = tool("tcgen05-sim", GEMM, "--seed", "3", "--trace", str(tmp_path / "t.txt"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ": OK" in proc.stdout and "races: none" in proc.stdout
    assert (tmp_path / "t.txt").read_text().count("\n") > 1000
