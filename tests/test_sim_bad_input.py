"""tcgen05-sim fed bad input (issue 34): every case gives a clear error or a run that
stops with a message, exit status 1, never the tool's "internal error" (status 2) and
never a traceback; a run never goes on for ever.

The expected numbers are derived by hand in the comments (bytes of the arrays from the
check file's shapes, CUDA's grid limits from cudaDeviceProp::maxGridSize, the ranges of
PTX integer types from PTX ISA 5.2.2); the PTX kernels below are written by hand."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from tcgen05_lower.sim.api import DEFAULT_MAX_INSTRUCTIONS, simulate
from tcgen05_lower.sim.state import LimitExceeded

ROOT = Path(__file__).resolve().parent.parent
GEMM = str(ROOT / "examples/gemm_bf16_128x256.mlir")       # C 128x256 f32 = A 128x64 bf16 x B
GRID = str(ROOT / "examples/gemm_bf16_grid.mlir")
GRID_CHECK = str(ROOT / "examples/gemm_bf16_grid.check.py")

#: A check file for GEMM (gemm_bf16_128x256: A 128x64, B 64x256, C 128x256).
GOOD_CHECK = '''\
import numpy as np
BUFFERS = {"A": ("bfloat16", (128, 64)), "B": ("bfloat16", (64, 256)),
           "C": ("float32", (128, 256))}
TOLERANCE = (1e-2, 1e-2)
def reference(inputs):
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)}
'''


def clean_error(proc, *needles):
    """Exit 1, the needles in stderr, no traceback and no internal error."""
    text = proc.stderr
    assert proc.returncode == 1, (proc.returncode, proc.stdout, text)
    assert "Traceback" not in text and "internal error" not in text, text
    for needle in needles:
        assert needle in text, (needle, text)
    return text


def check_file(tmp_path, text: str, name: str = "bad.check.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


# -- the check file ------------------------------------------------------------------------
def test_a_check_file_that_raises_is_its_error_at_its_line(tmp_path, tool):
    path = check_file(tmp_path, GOOD_CHECK.replace(
        "    return {", "    scale = 1 / 0\n    return {"))
    # line 6 of the file is "scale = 1 / 0"
    clean_error(tool("tcgen05-sim", GEMM, "--check", path),
                f"{path}:6: in reference(): ZeroDivisionError")


def test_a_check_file_with_a_syntax_error(tmp_path, tool):
    path = check_file(tmp_path, GOOD_CHECK.replace("TOLERANCE = (1e-2, 1e-2)",
                                                   "TOLERANCE = (1e-2, 1e-2"))
    clean_error(tool("tcgen05-sim", GEMM, "--check", path), f"{path}:", "SyntaxError")


def test_a_check_file_that_imports_something_missing(tmp_path, tool):
    path = check_file(tmp_path, "import numpy_that_does_not_exist\n" + GOOD_CHECK)
    clean_error(tool("tcgen05-sim", GEMM, "--check", path),
                f"{path}:1: while it is loaded: ModuleNotFoundError")


def test_a_check_file_with_an_unknown_dtype(tmp_path, tool):
    path = check_file(tmp_path, GOOD_CHECK.replace('("bfloat16", (128, 64))',
                                                   '("bfloat17", (128, 64))'))
    # BUFFERS is defined at line 2
    clean_error(tool("tcgen05-sim", GEMM, "--check", path),
                f"{path}:2: BUFFERS['A']: unknown element type 'bfloat17'")


def test_a_reference_of_the_wrong_shape(tmp_path, tool):
    path = check_file(tmp_path, GOOD_CHECK.replace(
        'return {"C": inputs["A"]', 'return {"C": inputs["A"][:64]'))
    # def reference is line 5; A[:64] @ B is 64 x 256, C is 128 x 256
    text = clean_error(tool("tcgen05-sim", GEMM, "--check", path),
                       f"{path}:5: reference(inputs)['C'] has the shape (64, 256), its "
                       "buffer (128, 256)")
    assert "executed" not in text   # refused before the kernel ran


def test_a_reference_output_that_is_not_a_parameter(tmp_path, tool):
    path = check_file(tmp_path, GOOD_CHECK.replace('return {"C":', 'return {"D":'))
    clean_error(tool("tcgen05-sim", GEMM, "--check", path),
                f"{path}:5: reference(inputs) returns 'D', which is not an array parameter "
                "of the kernel (A, B, C)")


def test_a_bound_that_does_not_fit_the_output(tmp_path, tool):
    path = check_file(tmp_path, GOOD_CHECK + "def bound(name, inputs):\n"
                                             "    return [1.0, 2.0, 3.0], 'three'\n")
    clean_error(tool("tcgen05-sim", GEMM, "--check", path, "--max-instructions", "100000"),
                f"{path}:7: bound('C', inputs) returns no bound for an output of shape "
                "(128, 256)")


def test_buffers_that_is_not_a_dict_and_derived_that_raises(tmp_path, tool):
    path = check_file(tmp_path, GOOD_CHECK.replace("BUFFERS = {", "BUFFERS = [{")
                      .replace('(128, 256))}', '(128, 256))}]'))
    clean_error(tool("tcgen05-sim", GEMM, "--check", path),
                f"{path}:2: BUFFERS must be a dict")
    grid_check = Path(GRID_CHECK).read_text().replace(
        'return {"lda": scalars["K"]', 'return {"lda": scalars["KK"]')
    path = check_file(tmp_path, grid_check, "grid.check.py")
    line = grid_check.splitlines().index('    return {"lda": scalars["KK"], "ldb": '
                                         'scalars["N"], "ldc": scalars["N"]}') + 1
    clean_error(tool("tcgen05-sim", GRID, "--check", path),
                f"{path}:{line}: in derived(): KeyError: 'KK'")


# -- --set, sizes and memory ---------------------------------------------------------------
def test_a_negative_size_does_not_fit_the_u32_parameter(tool):
    # M is `.param .u32` in the PTX: 0 to 2^32 - 1 (PTX ISA 5.2.2, unsigned integers)
    clean_error(tool("tcgen05-sim", GRID, "--check", GRID_CHECK, "--set", "M=-128"),
                "LaunchError", "M = -128 does not fit the kernel's .u32 parameter "
                "(0 to 4294967295)")


def test_a_size_past_the_memory_limit_is_refused_before_allocation(tool):
    # M = 2^31, K = 128, N = 512 (the check file's SCALARS), lda = K, ldb = ldc = N:
    # A 2^31 x 128 bf16 = 549,755,813,888 B; B 128 x 512 bf16 = 131,072 B;
    # C 2^31 x 512 f32 = 4,398,046,511,104 B; in all 4,947,802,456,064 B (4.5 TiB).
    text = clean_error(tool("tcgen05-sim", GRID, "--check", GRID_CHECK,
                            "--set", "M=2147483648"),
                       "the kernel's arrays need 4,947,802,456,064 bytes (4.5 TiB), more "
                       "than the limit of 1,073,741,824 (1.0 GiB, --max-memory)",
                       "A 2147483648x128 bfloat16: 549,755,813,888 B")
    assert "executed" not in text


def test_a_k_loop_to_two_to_the_31_is_refused_by_its_memory(tool):
    # K = 2^31 - 1: A alone is 128 x K bf16 = 549,755,813,632 B
    dynamic = str(ROOT / "examples/gemm_bf16_kloop_dynamic.mlir")
    check = str(ROOT / "examples/gemm_bf16_kloop_dynamic.check.py")
    clean_error(tool("tcgen05-sim", dynamic, "--check", check, "--set", "K=2147483647"),
                "A 128x2147483647 bfloat16: 549,755,813,632 B", "--max-memory")


def test_a_set_that_is_not_an_integer_or_not_a_parameter(tool):
    clean_error(tool("tcgen05-sim", GRID, "--check", GRID_CHECK, "--set", "M=abc"),
                "--set M=abc: expected NAME=INTEGER")
    clean_error(tool("tcgen05-sim", GRID, "--check", GRID_CHECK, "--set", "Q=3"),
                "--set Q: not an integer argument of the kernel")


# -- manifests -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """The PTX and manifest of gemm_bf16_128x256 (tcgen05-lower --manifest)."""
    from tcgen05_lower.driver import compile_source

    result = compile_source(Path(GEMM).read_text(), GEMM)
    where = tmp_path_factory.mktemp("gemm")
    (where / "k.ptx").write_text(result.ptx)
    (where / "check.py").write_text(GOOD_CHECK)
    return where, result.manifest


def with_manifest(compiled, tool, manifest_text: str, *extra):
    where, _ = compiled
    (where / "m.json").write_text(manifest_text)
    return tool("tcgen05-sim", str(where / "k.ptx"), "--manifest", str(where / "m.json"),
                "--check", str(where / "check.py"), *extra)


def test_a_malformed_manifest_is_located(compiled, tool):
    text = json.dumps(compiled[1], indent=1)
    broken = text.replace('"threads": 128,', '"threads": 128,,')
    line = broken.splitlines().index(' "threads": 128,,') + 1
    # ' "threads": 128,,': the second comma is column 17
    clean_error(with_manifest(compiled, tool, broken),
                f"m.json:{line}:17: not valid JSON: Expecting property name")
    clean_error(with_manifest(compiled, tool, "[1, 2]"), "a manifest is a JSON object")
    clean_error(with_manifest(compiled, tool, '{"entry": "x"}'), "the manifest has no params")


def test_a_manifest_whose_parameters_do_not_match_the_ptx(compiled, tool):
    manifest = compiled[1]
    fewer = dict(manifest, params=manifest["params"][:2])
    clean_error(with_manifest(compiled, tool, json.dumps(fewer)), "LaunchError",
                "the manifest lists 2 parameters, the PTX entry gemm_bf16_128x256 has 3")
    renamed = json.loads(json.dumps(manifest))
    renamed["params"][2]["name"] = "D"   # the check file then names no buffer D
    clean_error(with_manifest(compiled, tool, json.dumps(renamed)),
                "no shape for buffer parameter D")
    scalar = json.loads(json.dumps(manifest))
    scalar["params"][0]["pointer"] = "yes"
    clean_error(with_manifest(compiled, tool, json.dumps(scalar)),
                "does not say whether it is a pointer")
    typed = json.loads(json.dumps(manifest))
    typed["params"][1]["ptx_type"] = ".u32"
    clean_error(with_manifest(compiled, tool, json.dumps(typed)),
                "the manifest's parameter B has type .u32, the PTX's "
                "gemm_bf16_128x256_param_1 is .u64")


def test_a_thread_count_against_reqntid_is_refused(compiled, tool):
    # the PTX says `.reqntid 128, 1, 1`; a launch of 64 threads fails (PTX ISA 11.4.3)
    assert ".reqntid 128, 1, 1" in (compiled[0] / "k.ptx").read_text()
    clean_error(with_manifest(compiled, tool, json.dumps(dict(compiled[1], threads=64))),
                "LaunchError", "the manifest launches 64 threads per CTA, the PTX entry "
                "gemm_bf16_128x256 requires 128 (.reqntid 128, 1, 1)")
    clean_error(with_manifest(compiled, tool, json.dumps(dict(compiled[1], threads="x"))),
                "is not a CTA size")


def test_a_cluster_against_reqnctapercluster_is_refused(tool, tmp_path):
    from tcgen05_lower.driver import compile_source

    pair = ROOT / "examples/gemm_bf16_pair_m256.mlir"
    result = compile_source(pair.read_text(), str(pair))
    (tmp_path / "k.ptx").write_text(result.ptx)
    (tmp_path / "m.json").write_text(json.dumps(dict(result.manifest, cluster=[1, 1, 1])))
    assert ".reqnctapercluster 2, 1, 1" in result.ptx
    clean_error(tool("tcgen05-sim", str(tmp_path / "k.ptx"), "--manifest",
                     str(tmp_path / "m.json"), "--check",
                     str(ROOT / "examples/gemm_bf16_pair_m256.check.py")),
                "the manifest's cluster [1, 1, 1] has 1 CTAs, the PTX entry "
                "gemm_bf16_pair_m256 requires 2 (.reqnctapercluster 2, 1, 1)")


# -- unbounded runs ------------------------------------------------------------------------
def spin_ptx(condition: str = "") -> str:
    """One warp that stores a counter to X[0] in a loop: for ever, or while `condition`
    (a setp on %r1) holds."""
    loop_end = (f"\tsetp.{condition};\n\t@%p1 bra.uni \t$L__loop;\n\tret;\n"
                if condition else "\tbra.uni \t$L__loop;\n")
    return (".version 8.6\n.target sm_100a\n.address_size 64\n\n"
            ".visible .entry spin(\n\t.param .u64 .ptr .global .align 1 spin_param_0\n)\n"
            ".reqntid 32, 1, 1\n{\n\t.reg .pred \t%p<2>;\n\t.reg .b32 \t%r<4>;\n"
            "\t.reg .b64 \t%rd<4>;\n\n\tld.param.u64 \t%rd1, [spin_param_0];\n"
            "\tmov.u32 \t%r1, 0;\n$L__loop:\n"
            "\tadd.s32 \t%r1, %r1, 1;\n\tst.global.u32 \t[%rd1], %r1;\n" + loop_end + "}\n")


SPIN_MANIFEST = {"entry": "spin", "threads": 32,
                 "params": [{"name": "X", "pointer": True, "ptx_type": ".u64"}]}
SPIN_CHECK = ('import numpy as np\nBUFFERS = {"X": ("int32", (1,))}\n'
              'def reference(inputs):\n    return {"X": np.zeros(1)}\n')


def spin(tmp_path, tool, condition: str = "", *extra):
    (tmp_path / "spin.ptx").write_text(spin_ptx(condition))
    (tmp_path / "spin.json").write_text(json.dumps(SPIN_MANIFEST))
    (tmp_path / "spin.check.py").write_text(SPIN_CHECK)
    return tool("tcgen05-sim", str(tmp_path / "spin.ptx"), "--manifest",
                str(tmp_path / "spin.json"), "--check", str(tmp_path / "spin.check.py"),
                *extra)


def test_an_infinite_loop_with_a_side_effect_stops_at_the_instruction_limit(tmp_path, tool):
    # one warp: 2 instructions, then 3 per iteration; the limit is passed at the
    # 20,001st warp instruction
    text = clean_error(spin(tmp_path, tool, "", "--max-instructions", "20000"),
                       "LimitExceeded", "stopped after 20,001 warp instructions: the limit "
                       "is 20,000 warp instructions (--max-instructions)")
    assert re.search(r"PTX line \d+", text)


def test_an_infinite_loop_stops_at_the_time_limit(tmp_path, tool):
    text = clean_error(spin(tmp_path, tool, "", "--max-instructions", "0", "--timeout",
                            "0.5"),
                       "LimitExceeded", "the limit is 0.5 s (--timeout)")
    done = int(re.search(r"stopped after ([\d,]+)", text).group(1).replace(",", ""))
    assert done > 3


def test_a_loop_to_two_to_the_31_stops_at_the_default_limit(tmp_path):
    """The default budget (the API's and the command line's) stops it: 2^31 iterations of
    3 warp instructions are far more than DEFAULT_MAX_INSTRUCTIONS. Run through the API
    with a smaller budget, the same code path, so the test stays short."""
    import numpy as np

    assert 3 * 2**31 > DEFAULT_MAX_INSTRUCTIONS
    x = np.zeros(1, np.int32)
    with pytest.raises(LimitExceeded, match="stopped after 30,001 warp instructions"):
        simulate(spin_ptx("lt.u32 \t%p1, %r1, 2147483648"), SPIN_MANIFEST, {"X": x},
                 max_instructions=30_000)
    # 2 set-up instructions, then 4 per iteration (add, st, setp, bra): instruction
    # 30,001 = 2 + 4 * 7,499 + 3 is the setp of iteration 7,500, stopped before it runs,
    # after that iteration's store
    assert x[0] == 7_500
    # a loop that ends well within the budget runs to the end
    simulate(spin_ptx("lt.u32 \t%p1, %r1, 100"), SPIN_MANIFEST, {"X": x},
             max_instructions=30_000)
    assert x[0] == 100


def test_an_empty_statement_is_a_located_parse_error(tmp_path, tool):
    # ptxas 13 rejects `;;` ("Parsing error near ';': syntax error"); the loop's store
    # line ends with a second ';', line 18 of spin_ptx's text (counted by hand:
    # 9 lines to the brace, 3 declarations, a blank, ld, mov, the label, add, st)
    text = spin_ptx().replace("[%rd1], %r1;", "[%rd1], %r1;;")
    assert text.splitlines()[17].endswith(";;")
    (tmp_path / "spin.ptx").write_text(text)
    (tmp_path / "spin.json").write_text(json.dumps(SPIN_MANIFEST))
    (tmp_path / "spin.check.py").write_text(SPIN_CHECK)
    clean_error(tool("tcgen05-sim", str(tmp_path / "spin.ptx"), "--manifest",
                     str(tmp_path / "spin.json"), "--check", str(tmp_path / "spin.check.py")),
                "an empty statement", "line 18")


def test_grid_100000_is_refused_after_the_first_cta(tool):
    text = clean_error(tool("tcgen05-sim", GEMM, "--grid", "100000"), "LimitExceeded",
                       "stopped after the first of 100,000 clusters")
    per_cta = int(re.search(r"it executed ([\d,]+) warp", text).group(1).replace(",", ""))
    assert f"needs about {100_000 * per_cta:,}" in text
    assert f"the limit is {DEFAULT_MAX_INSTRUCTIONS:,} warp instructions" in text


def test_a_grid_past_cudas_limits_is_refused(compiled, tool):
    # cudaDeviceProp::maxGridSize = (2^31 - 1, 65535, 65535)
    manifest = dict(compiled[1], grid=["100000", "100000", "100000"])
    clean_error(with_manifest(compiled, tool, json.dumps(manifest)), "LaunchError",
                "the grid (100000, 100000, 100000) has 100000 CTAs along y; CUDA launches "
                "at most 65535")


def test_a_huge_grid_is_refused_before_anything_runs(compiled, tool):
    # 2^31 - 1 CTAs x 4 warps x at least one instruction each > 5 x 10^7
    manifest = dict(compiled[1], grid=["2147483647", "65535"])
    text = clean_error(with_manifest(compiled, tool, json.dumps(manifest)),
                       "LimitExceeded", "not run: the grid (2147483647, 65535, 1) of "
                       "140,735,340,806,145 CTAs executes at least")
    assert "executed" not in text


def test_a_million_rows_is_refused_after_the_first_cta(tool):
    # ceildiv(10^6, 128) = 7,813 CTAs along y, ceildiv(8, 256) = 1 along x
    clean_error(tool("tcgen05-sim", GRID, "--check", GRID_CHECK, "--set", "M=1000000",
                     "--set", "N=8", "--set", "K=16"),
                "LimitExceeded", "stopped after the first of 7,813 clusters")


def test_bad_limits_are_command_line_errors(tool):
    proc = tool("tcgen05-sim", GEMM, "--max-instructions", "-5")
    assert proc.returncode == 2 and "negative" in proc.stderr
    proc = tool("tcgen05-sim", GEMM, "--max-memory", "lots")
    assert proc.returncode == 2 and "not a byte count" in proc.stderr


def test_set_with_the_gemm_check_is_refused(tool):
    # --check gemm reads M, N, K from the kernel: a --set would be silently ignored
    clean_error(tool("tcgen05-sim", GEMM, "--set", "M=64"),
                "--set M: --check gemm reads the sizes from the kernel")


def test_gemm_check_of_a_pair_whose_manifest_omits_the_cluster(tmp_path, tool):
    """The launch then takes the PTX's .reqnctapercluster 2, 1, 1, and so does M."""
    from tcgen05_lower.driver import compile_source

    pair = ROOT / "examples/gemm_bf16_pair_m256.mlir"
    result = compile_source(pair.read_text(), str(pair))
    manifest = {k: v for k, v in result.manifest.items() if k != "cluster"}
    (tmp_path / "m.json").write_text(json.dumps(manifest))
    proc = tool("tcgen05-sim", str(pair), "--manifest", str(tmp_path / "m.json"),
                "--check", "gemm")   # not the example's own check file
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "gemm M=256 N=128 K=64" in proc.stdout   # the example's comment: C 256 x 128


def test_a_tensor_map_entry_of_the_wrong_kind(tmp_path, tool):
    from tcgen05_lower.driver import compile_source

    tma = ROOT / "examples/gemm_bf16_tma.mlir"
    result = compile_source(tma.read_text(), str(tma))
    manifest = json.loads(json.dumps(result.manifest))
    assert manifest["params"][3]["name"] == "tmA"
    manifest["params"][3]["tensor_map"] = "x"
    (tmp_path / "k.ptx").write_text(result.ptx)
    (tmp_path / "m.json").write_text(json.dumps(manifest))
    clean_error(tool("tcgen05-sim", str(tmp_path / "k.ptx"), "--manifest",
                     str(tmp_path / "m.json"), "--check",
                     str(ROOT / "examples/gemm_bf16_tma.check.py")),
                "LaunchError", "the manifest's parameter tmA has the tensor_map 'x'")
