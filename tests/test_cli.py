"""The command-line contract: located diagnostics, exit status 1 on bad input, no Python
traceback, and every stage reachable."""

import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLES

BIN = Path(sys.executable).parent

BAD_N = """\
func.func @k(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[250, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 250], f32>
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!tcgen05.tmem<[128, 250], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[250, 64], bf16, "K", "128B">, i1) -> ()
  return
}
"""


def run(tool, *args, stdin=None):
    return subprocess.run([str(BIN / tool), *args], input=stdin, capture_output=True,
                          text=True)


def test_bad_input_is_a_located_diagnostic_with_status_1(tmp_path):
    source = tmp_path / "bad.mlir"
    source.write_text(BAD_N)
    for tool, args in (("tcgen05-lower", []), ("tcgen05-opt", ["-p", "tcgen05-verify"])):
        proc = run(tool, str(source), *args)
        assert proc.returncode == 1, proc.stderr
        # Line 7, column 3 is the tcgen05.mma op.
        assert f"{source}:7:3: error: N = 250 is not a multiple of 8 for kind::f16, " \
               "cta_group::1 (Table 39)" in proc.stderr
        assert "Traceback" not in proc.stderr
        assert proc.stdout == ""


def test_parse_errors_are_diagnostics_too(tmp_path):
    source = tmp_path / "broken.mlir"
    source.write_text("func.func @k( {\n")
    proc = run("tcgen05-lower", str(source))
    assert proc.returncode == 1
    assert f"{source}:1:" in proc.stderr and "Traceback" not in proc.stderr


def test_every_stage_can_be_printed():
    proc = run("tcgen05-opt", str(EXAMPLES / "gemm_bf16_128x256.mlir"), "-p",
               "tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync",
               "--mlir-print-ir-after-all")
    assert proc.returncode == 0, proc.stderr
    for name in ("tcgen05-verify", "tcgen05-select-layouts", "tcgen05-plan-tmem",
                 "tcgen05-insert-sync"):
        assert f"IR Dump After {name}" in proc.stderr or \
               f"IR Dump After {name.replace('-', '_')}" in proc.stderr, name


def test_each_prefix_of_the_pipeline_runs():
    passes = ["tcgen05-verify", "tcgen05-select-layouts", "tcgen05-plan-tmem",
              "tcgen05-insert-sync", "tcgen05-lower-to-llvm"]
    for i in range(1, len(passes) + 1):
        proc = run("tcgen05-opt", str(EXAMPLES / "gemm_bf16_kloop.mlir"), "-p",
                   ",".join(passes[:i]))
        assert proc.returncode == 0, (passes[:i], proc.stderr)


def test_upstream_passes_mix_with_ours():
    proc = run("tcgen05-opt", str(EXAMPLES / "gemm_bf16_kloop.mlir"), "-p",
               "builtin.module(tcgen05-verify,canonicalize,tcgen05-select-layouts,cse)")
    assert proc.returncode == 0, proc.stderr
    assert 'layout = "D"' in proc.stdout


def test_unknown_option_is_reported():
    proc = run("tcgen05-opt", str(EXAMPLES / "gemm_bf16_kloop.mlir"), "-p",
               "tcgen05-plan-tmem{strategy=bogus}")
    assert proc.returncode == 1
    assert "strategy" in proc.stderr and "Traceback" not in proc.stderr
