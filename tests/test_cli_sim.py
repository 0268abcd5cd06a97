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


# -- --check gemm on CTA pairs and tf32 (issue 33, item 6) ------------------------------------
@pytest.mark.parametrize("example, m, n, k", [
    # the examples' own comments and check files: C (256 x 128) = A (256 x 64) x B
    # (64 x 128), and C (128 x 128) = A (128 x 64) x B (64 x 128), one pair of CTAs each
    ("gemm_bf16_pair_m256.mlir", 256, 128, 64),
    ("gemm_bf16_pair_m128.mlir", 128, 128, 64)])
def test_gemm_check_of_a_cta_pair_counts_both_ctas_rows(example, m, n, k, tool):
    _, _, problem, inputs = prepare(str(ROOT / "examples" / example))
    assert inputs["A"].shape == (m, k) and inputs["B"].shape == (k, n)
    assert inputs["C"].shape == (m, n)
    proc = tool("tcgen05-sim", str(ROOT / "examples" / example), "--check", "gemm")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"gemm M={m} N={n} K={k}" in proc.stdout and ": OK" in proc.stdout


def test_gemm_check_of_a_tma_pair_kernel_is_a_clear_refusal(tool):
    # ws_gemm_2cta_bf16 loads A and B through tensor maps and computes A x B^T: its
    # shapes are not in any fill, and examples/ws_gemm_2cta_bf16.check.py checks it
    proc = tool("tcgen05-sim", str(ROOT / "examples/ws_gemm_2cta_bf16.mlir"), "--check",
                "gemm")
    assert proc.returncode == 1 and "TMA" in proc.stderr and "--check FILE.py" in proc.stderr
    assert "Traceback" not in proc.stderr and "SimError" not in proc.stderr


TF32 = str(ROOT / "tests/kernels/gemm_tf32_128x256.mlir")


def test_gemm_check_of_a_tf32_kernel_allows_for_tf32_inputs(tool):
    """A correct .kind::tf32 GEMM (f32 inputs whose low 13 mantissa bits the MMA does not
    read) matches within the bound of tf32 inputs (cli/sim_gemm.py, TF32_INPUT_ERROR_UNIT: a
    relative error of at most 2^-9 + 2^-20 per product, derived there)."""
    proc = tool("tcgen05-sim", TF32, "--check", "gemm")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "gemm M=128 N=256 K=32" in proc.stdout and ": OK" in proc.stdout
    assert "tf32 inputs" in proc.stdout


def test_the_tf32_bound_still_catches_a_wrong_element():
    _, _, problem, inputs = prepare(TF32)
    a, b = (inputs[x].astype(np.float64) for x in "AB")
    exact = a @ b
    scale = np.abs(a) @ np.abs(b)
    # what tf32 truncation of the inputs gives (drop the low 13 bits of each f32):
    # within the bound
    trunc = [(x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)
             .astype(np.float64) for x in (a, b)]
    assert problem.tolerance("C", trunc[0] @ trunc[1], exact, inputs)[0]
    # one element off by 1 % of sum |a||b| (about 5 times the bound's 2^-9 + 32 * 2^-24)
    wrong = exact.copy()
    wrong[5, 7] += 0.01 * scale[5, 7]
    assert not problem.tolerance("C", wrong, exact, inputs)[0]


# -- --fences canonical|acquire (issue 37 item 2; docs/memory-model.md) ------------------------
def test_fences_acquire_on_the_example(tool):
    proc = tool("tcgen05-sim", GEMM, "--seed", "3", "--fences", "acquire")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ": OK" in proc.stdout and "races: none" in proc.stdout
    bad = tool("tcgen05-sim", GEMM, "--fences", "relaxed")
    assert bad.returncode != 0 and "invalid choice: 'relaxed'" in bad.stderr


def test_a_deleted_tcgen05_fence_races_under_canonical_only():
    """The example without its tcgen05.fence lines: under canonical the barriers alone do not
    order its tcgen05 ops across threads (9.7.16.6.3), under acquire they do."""
    ptx, manifest, _, inputs = prepare(GEMM, "gemm", 0)
    fenced = [line for line in ptx.splitlines() if "tcgen05.fence::" in line]
    assert fenced
    unfenced = "\n".join(line if "tcgen05.fence::" not in line else ""
                         for line in ptx.splitlines())
    copy = lambda: {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    canonical = simulate(unfenced, manifest, copy())
    assert canonical.races and all("tcgen05" in r.message for r in canonical.races)
    assert simulate(unfenced, manifest, copy(), fences="acquire").ok
    assert simulate(ptx, manifest, copy()).ok
    with pytest.raises(ValueError, match="fences must be one of canonical, acquire"):
        simulate(ptx, manifest, copy(), fences="release")
