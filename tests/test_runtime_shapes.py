"""Runtime shapes (issue 17): problem sizes, leading dimensions and the grid as kernel
arguments.

- The simulator's grid: %ctaid, %nctaid, %clusterid and %nclusterid of every CTA, with the
  values the PTX ISA's definitions of these special registers give (Special Registers:
  %ctaid is the CTA's index in the grid, %nctaid the CTAs per grid dimension, %clusterid /
  %nclusterid the same for clusters; with clusters of 2 CTAs along x, %ctaid.x =
  2 * %clusterid.x + %cluster_ctarank), derived by hand for each CTA below.
- The grid expressions of the launch manifest (compiler and simulator evaluate them
  independently).
- The whole GEMM of examples/gemm_bf16_grid.mlir for the sizes of the issue, and the
  dynamic-K example for K = 64, 192 and 512, against NumPy (the check files' bounds), with
  the simulator's bounds checks and race detection; the dynamic-K example as it was
  (A's row stride the constant 512) reads past A for K = 64.
"""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from sim_standins import PlainOrdering  # noqa: E402

from tcgen05_lower import launch  # noqa: E402
from tcgen05_lower.cli.sim import prepare  # noqa: E402
from tcgen05_lower.driver import compile_source  # noqa: E402
from tcgen05_lower.sim.api import grid_of, simulate  # noqa: E402
from tcgen05_lower.sim.state import SimError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GRID = ROOT / "examples/gemm_bf16_grid.mlir"
DYNAMIC = ROOT / "examples/gemm_bf16_kloop_dynamic.mlir"

# Each CTA's thread 0 writes its 8 special registers at out[linear CTA index * 8 ..],
# the linear index being %ctaid.x + %nctaid.x * %ctaid.y.
REGISTERS = ["%ctaid.x", "%ctaid.y", "%nctaid.x", "%nctaid.y", "%clusterid.x",
             "%nclusterid.x", "%cluster_ctarank", "%cluster_ctaid.x"]
SPECIALS = """.version 8.6
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 .ptr .global .align 1 k_param_0)
.reqntid 32, 1, 1
{
	.reg .pred %p<2>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<20>;
	ld.param.b64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	setp.ne.b32 	%p1, %r1, 0;
	@%p1 bra 	$DONE;
""" + "".join(f"\tmov.u32 \t%r{10 + i}, {name};\n" for i, name in enumerate(REGISTERS)) + """
	mad.lo.s32 	%r2, %r12, %r11, %r10;
	mul.wide.u32 	%rd2, %r2, 32;
	add.s64 	%rd3, %rd1, %rd2;
""" + "".join(f"\tst.global.b32 \t[%rd3+{4 * i}], %r{10 + i};\n" for i in range(8)) + """
$DONE:
	ret;
}
"""


def run_specials(grid, cluster):
    ctas = grid[0] * grid[1]
    out = np.full(ctas * 8, -1, dtype=np.int32)
    manifest = {"entry": "k", "threads": 32, "cluster": [cluster, 1, 1],
                "grid": [str(g) for g in grid]}
    result = simulate(SPECIALS, manifest, {"k_param_0": out},
                      ordering_factory=PlainOrdering, tensor_core=object())
    assert result.ctas == ctas
    return out.reshape(ctas, 8)


def test_special_registers_of_a_grid_of_single_ctas():
    got = run_specials((3, 2), cluster=1)
    # Hand-derived: CTA (x, y) has ctaid (x, y), nctaid (3, 2); each CTA is its own
    # cluster: clusterid.x = x, nclusterid.x = 3, rank 0.
    expected = [[x, y, 3, 2, x, 3, 0, 0] for y in range(2) for x in range(3)]
    assert got.tolist() == expected


def test_special_registers_of_a_grid_of_cta_pairs():
    got = run_specials((4, 1), cluster=2)
    # Hand-derived: clusters of 2 CTAs along x: ctaid.x = 2 * clusterid.x + rank,
    # nclusterid.x = 4 / 2, cluster_ctaid.x = rank.
    expected = [[x, 0, 4, 1, x // 2, 2, x % 2, x % 2] for x in range(4)]
    assert got.tolist() == expected


def test_without_a_grid_a_launch_is_one_cluster():
    # The manifests written before grids existed: %nctaid.x is the cluster's size.
    out = np.full(8, -1, dtype=np.int32)
    simulate(SPECIALS, {"entry": "k", "threads": 32}, {"k_param_0": out},
             ordering_factory=PlainOrdering, tensor_core=object())
    assert out.tolist() == [0, 0, 1, 1, 0, 1, 0, 0]


@pytest.mark.parametrize("grid, args, expected", [
    (["ceildiv(N, 256)", "ceildiv(M, 128)"], {"M": 200, "N": 300}, (2, 2, 1)),
    (["ceildiv(N, 256)", "ceildiv(M, 128)"], {"M": 384, "N": 256}, (1, 3, 1)),
    (["tiles", "1", "3"], {"tiles": 5}, (5, 1, 3)),
    (["ceildiv(7, 2)"], {}, (4, 1, 1)),
])
def test_grid_expressions(grid, args, expected):
    # Hand-derived: ceildiv(300, 256) = 2, ceildiv(200, 128) = 2, ceildiv(7, 2) = 4.
    assert launch.evaluate(grid, args) == expected
    assert grid_of({"grid": grid}, args, cluster=1) == expected


def test_grid_evaluated_past_cuda_limits_is_refused():
    # CUDA's maximum grid: 2^31 - 1 CTAs along x, 65535 along y and z (CUDA C++
    # Programming Guide); ceildiv(8388608, 128) = 65536 (by hand).
    assert launch.evaluate(["ceildiv(N, 1)", "ceildiv(M, 128)"],
                           {"N": 2**31 - 1, "M": 65535 * 128}) == (2**31 - 1, 65535, 1)
    with pytest.raises(launch.GridError, match="65536 CTAs along y, past CUDA's limit "
                                               "of 65535"):
        launch.evaluate(["1", "ceildiv(M, 128)"], {"M": 8388608})
    with pytest.raises(launch.GridError, match="along x, past CUDA's limit of 2147483647"):
        launch.evaluate(["tiles"], {"tiles": 2**31})


@pytest.mark.parametrize("grid, message", [
    (["M / 128"], "is not an integer, an argument name or ceildiv"),
    (["1", "1", "1", "1"], "at most three"),
    (["ceildiv(M, 0)"], "the divisor must be positive"),
    (["0"], "must be positive"),
])
def test_malformed_grids(grid, message):
    with pytest.raises(launch.GridError, match=message.replace("(", r"\(")):
        launch.grid_arguments(grid)


def test_grid_names_must_be_integer_arguments():
    with pytest.raises(launch.GridError, match="A is not an integer argument"):
        launch.grid_arguments(["ceildiv(A, 2)"], {"M", "N"})
    assert launch.grid_arguments(["ceildiv(N, 256)", "M"], {"M", "N"}) == {"M", "N"}


def test_simulator_grid_errors():
    with pytest.raises(SimError, match="not a multiple of the cluster"):
        grid_of({"grid": ["3"]}, {}, cluster=2)
    with pytest.raises(SimError, match="not an integer argument given"):
        grid_of({"grid": ["ceildiv(M, 128)"]}, {}, cluster=1)


def test_manifest_carries_the_grid_and_integer_arguments():
    manifest = compile_source(GRID.read_text(), str(GRID)).manifest
    assert manifest["grid"] == ["ceildiv(N, 256)", "ceildiv(M, 128)"]
    scalars = [(p["name"], p["mlir_type"], p["ptx_type"], p["pointer"])
               for p in manifest["params"] if not p["pointer"]]
    assert scalars == [(n, "i32", ".u32", False) for n in ("M", "N", "K", "lda", "ldb", "ldc")]
    json.dumps(manifest)
    # Without a grid entry the manifest gives one cluster.
    single = compile_source((ROOT / "examples/gemm_bf16_128x256.mlir").read_text()).manifest
    assert single["grid"] == ["1"]


def run_check(kernel, check, **scalars):
    ptx, manifest, problem, inputs = prepare(str(kernel), str(check), seed=3,
                                             scalars=scalars)
    originals = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    result = simulate(ptx, manifest, inputs)
    assert result.races == [] and result.problems == []
    for name, want in problem.reference(originals).items():
        ok, max_abs, _, bound = problem.tolerance(name, result.outputs[name], want, originals)
        assert ok, (name, max_abs, bound)
    return result


@pytest.mark.parametrize("m, n, k", [(256, 512, 128), (384, 256, 320), (200, 300, 72)])
def test_whole_grid_gemm_matches_numpy(m, n, k):
    result = run_check(GRID, ROOT / "examples/gemm_bf16_grid.check.py", M=m, N=n, K=k)
    assert result.ctas == -(-n // 256) * -(-m // 128)


def test_grid_gemm_with_leading_dimensions_wider_than_the_matrix():
    # Columns K.. of A and N.. of B are random data that no element of C may include.
    run_check(GRID, ROOT / "examples/gemm_bf16_grid.check.py", M=130, N=260, K=24,
              lda=40, ldb=264)


@pytest.mark.parametrize("k", [64, 192, 512])
def test_dynamic_k_example_matches_numpy(k):
    run_check(DYNAMIC, ROOT / "examples/gemm_bf16_kloop_dynamic.check.py", K=k)


def test_dynamic_k_example_with_a_constant_stride_reads_past_a():
    # The example as it was: A's row stride the constant 512, right only for K = 512.
    text = DYNAMIC.read_text().replace(
        '"tcgen05.smem_fill"(%A, %a, %k, %K, %K) {src_layout = "mn_k", dims = ["src_ld", '
        '"k_size"]}\n      : (!gptr, !smem_128x64xbf16, index, index, index) -> ()',
        '"tcgen05.smem_fill"(%A, %a, %k) {src_layout = "mn_k", src_ld = 512 : i64}\n'
        '      : (!gptr, !smem_128x64xbf16, index) -> ()')
    assert "src_ld = 512" in text
    compiled = compile_source(text)
    ptx, manifest, problem, inputs = prepare(str(DYNAMIC), str(
        ROOT / "examples/gemm_bf16_kloop_dynamic.check.py"), scalars={"K": 64})
    with pytest.raises(SimError, match="out-of-bounds global"):
        simulate(compiled.ptx, compiled.manifest, inputs)


def test_set_names_an_integer_argument(tool):
    proc = tool("tcgen05-sim", str(GRID), "--check", str(ROOT / "examples/gemm_bf16_grid.check.py"),
                "--set", "X=4")
    assert proc.returncode == 1 and "--set X: not an integer argument" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_check_gemm_refuses_runtime_strides(tool):
    proc = tool("tcgen05-sim", str(DYNAMIC), "--check", "gemm")
    assert proc.returncode == 1 and "use --check FILE.py" in proc.stderr
