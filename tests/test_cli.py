"""The command-line contract: located diagnostics, exit status 1 on bad input, no Python
traceback, and every stage reachable."""

import subprocess
import sys
from pathlib import Path

import pytest

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
    """The installed console script in a child process: kept for the exit statuses of the
    real executables; the other tests run the tools in-process (conftest.tool)."""
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


def test_every_stage_can_be_printed(tool):
    proc = tool("tcgen05-opt", str(EXAMPLES / "gemm_bf16_128x256.mlir"), "-p",
               "tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync",
               "--mlir-print-ir-after-all")
    assert proc.returncode == 0, proc.stderr
    for name in ("tcgen05-verify", "tcgen05-select-layouts", "tcgen05-plan-tmem",
                 "tcgen05-insert-sync"):
        assert f"IR Dump After {name}" in proc.stderr or \
               f"IR Dump After {name.replace('-', '_')}" in proc.stderr, name


def test_each_prefix_of_the_pipeline_runs(tool):
    passes = ["tcgen05-verify", "tcgen05-select-layouts", "tcgen05-plan-tmem",
              "tcgen05-insert-sync", "tcgen05-lower-to-llvm"]
    for i in range(1, len(passes) + 1):
        proc = tool("tcgen05-opt", str(EXAMPLES / "gemm_bf16_kloop.mlir"), "-p",
                   ",".join(passes[:i]))
        assert proc.returncode == 0, (passes[:i], proc.stderr)


def test_upstream_passes_mix_with_ours(tool):
    proc = tool("tcgen05-opt", str(EXAMPLES / "gemm_bf16_kloop.mlir"), "-p",
               "builtin.module(tcgen05-verify,canonicalize,tcgen05-select-layouts,cse)")
    assert proc.returncode == 0, proc.stderr
    assert 'layout = "D"' in proc.stdout


def test_unknown_option_is_reported(tool):
    proc = tool("tcgen05-opt", str(EXAMPLES / "gemm_bf16_kloop.mlir"), "-p",
               "tcgen05-plan-tmem{strategy=bogus}")
    assert proc.returncode == 1
    assert "strategy" in proc.stderr and "Traceback" not in proc.stderr


# The suggestions are what a reader would pick by eye: the option or value the misspelling
# was made from (one letter dropped, added or doubled).
def test_misspelled_option_name_and_value_get_a_suggestion(tool):
    proc = tool("tcgen05-opt", str(EXAMPLES / "gemm_bf16_kloop.mlir"), "-p",
                "tcgen05-plan-tmem{strategi=optimal}")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert ("pass 'tcgen05-plan-tmem' has no option 'strategi' (options: strategy, report, "
            "json, svg, node-limit); did you mean 'strategy'?") in proc.stderr
    proc = tool("tcgen05-lower", str(EXAMPLES / "gemm_bf16_kloop.mlir"), "--pass-option",
                "tcgen05-plan-tmem{strategy=optimall}", "-o", "-")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert ("option 'strategy' expects one of first-fit, optimal, no-reuse, got "
            "'optimall'; did you mean 'optimal'?") in proc.stderr


# sm_100 is a GPU without tcgen05 (it needs the 'a' or 'f' target); sm100a is no target.
@pytest.mark.parametrize("arch", ["sm_100", "sm100a"])
def test_misspelled_arch_gets_the_tcgen05_target(tool, arch):
    proc = tool("tcgen05-lower", str(EXAMPLES / "gemm_bf16_kloop.mlir"), "--arch", arch,
                "-o", "-")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"--arch {arch}: " in proc.stderr
    assert "did you mean 'sm_100a'?" in proc.stderr


def test_both_spellings_of_ring_stages_give_the_same_ptx(tool):
    outputs = []
    for spelling in ("ring-stages", "ring_stages"):
        proc = tool("tcgen05-lower", str(EXAMPLES / "ws_persistent_gemm_bf16.mlir"),
                    "--pass-option", f"tcgen05-insert-sync{{{spelling}=2}}", "-o", "-")
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1] and ".entry" in outputs[0]


def test_list_passes_shows_kebab_case_options(tool):
    proc = tool("tcgen05-opt", "--list-passes")
    assert "ring-stages=kernel" in proc.stdout and "ring_stages" not in proc.stdout


def test_unknown_pass_name_is_an_error_not_a_crash(tool):
    for name in ("tcgen05-bogus", "no-such-upstream-pass"):
        proc = tool("tcgen05-opt", str(EXAMPLES / "gemm_bf16_kloop.mlir"), "-p", name)
        assert proc.returncode == 1, proc.stderr
        assert f"'{name}' does not refer to a registered pass" in proc.stderr
        assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
        proc = tool("tcgen05-lower", str(EXAMPLES / "gemm_bf16_kloop.mlir"),
                   "--pipeline", f"tcgen05-verify,{name}")
        assert proc.returncode == 1, proc.stderr
        assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr


def test_list_passes_prints_defaults_as_pipeline_text(tool):
    """Every default --list-passes shows must be accepted back as an option value."""
    from tcgen05_lower.pipeline import PLANNING

    proc = tool("tcgen05-opt", "--list-passes")
    assert proc.returncode == 0
    assert "report=false" in proc.stdout and "report=False" not in proc.stdout
    for line in proc.stdout.splitlines():
        if line.startswith("  ") and not line.startswith("      "):
            current = line.split()[0]
        elif "=" in line:
            option = line.split()[0]
            pipeline = [f"{x}{{{option}}}" if x == current else x for x in PLANNING]
            assert current in PLANNING or current == "tcgen05-lower-to-llvm", current
            check = tool("tcgen05-opt", str(EXAMPLES / "gemm_bf16_kloop.mlir"), "-p",
                        ",".join(pipeline))
            assert check.returncode == 0, (current, option, check.stderr)


def test_planned_mlir_is_accepted_back_and_gives_the_same_ptx(tmp_path, tool):
    """--emit=mlir prints an explicit `module {...}`; feeding it back must compile to the
    PTX of the original (the planning passes leave planned IR as it is)."""
    planned = tmp_path / "planned.mlir"
    source = EXAMPLES / "gemm_bf16_128x256.mlir"
    assert tool("tcgen05-lower", str(source), "--emit=mlir", "-o", str(planned)).returncode == 0
    assert planned.read_text().startswith("module")
    first = tool("tcgen05-lower", str(source))
    again = tool("tcgen05-lower", str(planned))
    assert again.returncode == 0, again.stderr
    assert first.stdout == again.stdout


def test_a_diagnostic_without_line_names_only_the_file():
    from tcgen05_lower.bindings import Diagnostic

    assert Diagnostic("error", "k.mlir", None, None, "m").format() == "k.mlir: error: m"
    assert Diagnostic("error", "k.mlir", 3, 5, "m").format() == "k.mlir:3:5: error: m"
    assert Diagnostic("error", None, None, None, "m").format() == "error: m"


def test_version_names_the_package_and_the_tools_it_found(tool):
    """--version on every tool: the installed package's version (importlib.metadata), the
    MLIR bindings, llvmlite's LLVM and the ptxas the project found, then exit 0."""
    from importlib import metadata

    from tcgen05_lower.backend import find_ptxas

    for name in ("tcgen05-lower", "tcgen05-opt", "tcgen05-sim"):
        proc = tool(name, "--version")
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.splitlines()
        assert lines[0] == f"{name} {metadata.version('tcgen05-lower')}"
        assert "xtc-mlir-python-bindings " + metadata.version("xtc-mlir-python-bindings") \
            in proc.stdout
        assert "llvmlite: " + metadata.version("llvmlite") in proc.stdout
        ptxas = find_ptxas()
        assert (f"ptxas: {ptxas} (" if ptxas else "ptxas: not found") in proc.stdout


def test_printed_ir_of_a_grid_kernel_compiles_to_the_same_ptx(tool, tmp_path):
    """tcgen05-opt output fed to tcgen05-lower: the grid names kernel parameters (M, N),
    which printed IR spells %argN, so the names travel as tcgen05.name argument
    attributes; the PTX and the launch manifest equal those compiled from the source.
    (The same run used to abort in the LLVM translation: its C call released the GIL.)"""
    example = Path(__file__).resolve().parent.parent / "examples" / "gemm_bf16_grid.mlir"
    opt = tool("tcgen05-opt", example, "-p", "tcgen05-verify")
    assert opt.returncode == 0, opt.stderr
    assert '{tcgen05.name = "M"}' in opt.stdout
    printed = tmp_path / "printed.mlir"
    printed.write_text(opt.stdout)
    for source, stem in ((example, "source"), (printed, "printed")):
        run_ = tool("tcgen05-lower", source, "-o", tmp_path / f"{stem}.ptx",
                    "--manifest", tmp_path / f"{stem}.json")
        assert run_.returncode == 0, run_.stderr
    assert (tmp_path / "source.json").read_text() == (tmp_path / "printed.json").read_text()
    strip = lambda p: [line for line in p.read_text().splitlines()  # noqa: E731
                       if not line.startswith("//")]
    assert strip(tmp_path / "source.ptx") == strip(tmp_path / "printed.ptx")
