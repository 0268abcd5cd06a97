"""The launch manifest: what the compiler knows about launching a kernel that the PTX does
not say (dynamic shared memory, parameter names and MLIR types, cluster shape)."""

import json
import re
from pathlib import Path

from tcgen05_lower.driver import compile_source

ROOT = Path(__file__).resolve().parent.parent


def compile_file(rel):
    return compile_source((ROOT / rel).read_text(), rel)


def test_manifest_of_the_single_tile_gemm():
    result = compile_file("examples/gemm_bf16_128x256.mlir")
    m = result.manifest
    assert m["entry"] == "gemm_bf16_128x256"
    assert [p["name"] for p in m["params"]] == ["A", "B", "C"]
    assert all(p["mlir_type"] == "!llvm.ptr<1>" and p["pointer"] for p in m["params"])
    # the PTX entry's own parameter list, in order
    ptx_params = re.findall(r"\.param \.u64 \.ptr \.global \.align 1 (\w+)", result.ptx)
    assert [p["ptx_name"] for p in m["params"]] == ptx_params
    assert {p["ptx_type"] for p in m["params"]} == {".u64"}
    assert m["threads"] == 128 and m["cluster"] == [1, 1, 1]
    # hand-derived: A tile 128 x 64 bf16 (16 KB) + B tile 256 x 64 bf16 (32 KB)
    assert m["dynamic_smem_bytes"] == 128 * 64 * 2 + 256 * 64 * 2
    assert m["target"] == "sm_100a" and m["ptx_version"] == result.ptx.split(
        ".version ")[1].split()[0]


def test_manifest_of_a_scalar_parameter_and_a_cta_pair():
    m = compile_file("examples/gemm_bf16_kloop_dynamic.mlir").manifest
    k = m["params"][3]
    assert (k["name"], k["mlir_type"], k["pointer"]) == ("K", "index", False)
    assert k["ptx_type"] == ".u64"
    pair = compile_file("benchmarks/tmem/corpus/13_cta2_m256_kloop.mlir")
    assert pair.manifest["cluster"] == [2, 1, 1]
    assert ".reqnctapercluster 2, 1, 1" in pair.ptx


def test_cli_writes_the_manifest(tmp_path, tool):
    out = tmp_path / "gemm.json"
    assert tool("tcgen05-lower", ROOT / "examples/gemm_bf16_128x256.mlir", "--manifest", out,
                "-o", tmp_path / "gemm.ptx").returncode == 0
    written = json.loads(out.read_text())
    assert written == compile_file("examples/gemm_bf16_128x256.mlir").manifest


def test_cli_manifest_needs_ptx(tmp_path, tool):
    proc = tool("tcgen05-lower", ROOT / "examples/gemm_bf16_128x256.mlir", "--emit=mlir",
                "--manifest", tmp_path / "m.json")
    assert proc.returncode == 1 and "--manifest needs --emit=ptx" in proc.stderr
    assert "Traceback" not in proc.stderr
