"""When a compile verifies the module (pipeline.verify_each_default, docs/tools.md,
'Verification'): by default after every tcgen05 pass and after the last pass, with
``verify_each`` (``--verify-each``, TCGEN05_VERIFY_EACH) after every pass as upstream's
PassManager does. The expected PTX and diagnostics are those of the compile that verifies
after every pass (MLIR's own verifier, the independent reference); the expected lists of
verified steps are derived by hand from the rule."""

import pytest

from conftest import EXAMPLES, example_pipeline
from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import MLIRError, capture_diagnostics, ir
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.driver import CompileFailed, compile_source, run_pipeline
from tcgen05_lower.pipeline import (DEFAULT_PIPELINE, LOWERING, PLANNING, STRUCTURING,
                                    VERIFY_EACH_VARIABLE, parse_pipeline, verified_after,
                                    verify_each_default)
from tcgen05_lower.passes import REGISTRY

#: Examples compiled both ways: straight-line, a K-loop, and a hand-synchronized kernel
#: with warp roles (its own pass options).
EXAMPLES_COMPARED = ("gemm_bf16_kloop", "gemm_bf16_out_bias_gelu", "ws_gemm_bf16")


def test_the_tests_verify_after_every_pass():
    # tests/conftest.py sets the variable, so every other test's compile verifies each pass.
    assert verify_each_default()


def test_default_without_the_variable(monkeypatch):
    monkeypatch.delenv(VERIFY_EACH_VARIABLE, raising=False)
    assert not verify_each_default()
    monkeypatch.setenv(VERIFY_EACH_VARIABLE, "0")
    assert not verify_each_default()
    monkeypatch.setenv(VERIFY_EACH_VARIABLE, "1")
    assert verify_each_default()


def test_verified_steps_of_the_default_pipeline():
    names = STRUCTURING + PLANNING + LOWERING
    steps = parse_pipeline(DEFAULT_PIPELINE)
    # By hand: the tcgen05 passes are the five PLANNING passes, tcgen05-lower-to-llvm and
    # tcgen05-finalize-kernels (also the last step); lift-cf-to-scf, cse and the
    # conversions are upstream passes.
    ours = set(PLANNING) | {"tcgen05-lower-to-llvm", "tcgen05-finalize-kernels"}
    assert verified_after(steps, False) == [name in ours for name in names]
    assert verified_after(list(names), False) == [name in ours for name in names]
    assert verified_after(steps, True) == [True] * len(names)
    assert verified_after(["cse", "canonicalize"], False) == [False, True]
    assert verified_after(["tcgen05-verify{}", "cse"], False) == [True, True]


@pytest.mark.parametrize("name", EXAMPLES_COMPARED)
def test_same_ptx_either_way(name):
    path = EXAMPLES / f"{name}.mlir"
    text, pipeline = path.read_text(), example_pipeline(path)
    each = compile_source(text, path.name, pipeline=pipeline, verify_each=True)
    default = compile_source(text, path.name, pipeline=pipeline, verify_each=False)
    assert default.ptx == each.ptx
    assert default.llvm_ir == each.llvm_ir


def _leave_invalid_ir(monkeypatch):
    """tcgen05-finalize-kernels (the last pass) also leaves a func.return in the module
    body, where the func dialect forbids it (its parent must be a func.func)."""
    finalize = REGISTRY["tcgen05-finalize-kernels"]
    original = finalize.apply

    def apply(self, module):
        original(self, module)
        with ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]), module.location:
            ir.Operation.create("func.return")

    monkeypatch.setattr(finalize, "apply", apply)


def _messages(verify_each: bool) -> list[str]:
    path = EXAMPLES / "gemm_bf16_kloop.mlir"
    with pytest.raises(CompileFailed) as failed:
        compile_source(path.read_text(), path.name, verify_each=verify_each)
    return [x.message for x in failed.value.diagnostics if x.severity == "error"]


def test_a_tcgen05_pass_leaving_invalid_ir_fails_either_way(monkeypatch):
    _leave_invalid_ir(monkeypatch)
    each, default = _messages(True), _messages(False)
    assert any("'func.return' op expects parent op 'func.func'" in m for m in each), each
    assert default == each


def test_the_cli_fails_with_a_located_error(monkeypatch, tool, tmp_path):
    _leave_invalid_ir(monkeypatch)
    source = tmp_path / "k.mlir"
    source.write_text((EXAMPLES / "gemm_bf16_kloop.mlir").read_text())
    for flags in ((), ("--verify-each",), ("--no-verify-each",)):
        run = tool("tcgen05-lower", source, *flags)
        assert run.returncode == 1, flags
        assert "'func.return' op expects parent op 'func.func'" in run.stderr, run.stderr
        assert "Traceback" not in run.stderr


def test_the_last_upstream_pass_is_followed_by_verification():
    # A module made invalid before the pipeline: the upstream-only pipeline does not
    # verify after its passes, so run_pipeline's final verification must report it.
    with d.make_context() as context, capture_diagnostics(context):
        module = parse_module("module {\n}\n", "m.mlir")
        with ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]), module.location:
            ir.Operation.create("func.return")
        with pytest.raises(MLIRError) as failed:
            run_pipeline(module, "cse", verify_each=False)
        assert "func.func" in str(failed.value)


def test_opt_without_verify_each_prints_the_same(tool, tmp_path):
    source = tmp_path / "k.mlir"
    source.write_text((EXAMPLES / "gemm_bf16_kloop.mlir").read_text())
    pipeline = "tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,cse"
    each = tool("tcgen05-opt", source, "-p", pipeline)
    default = tool("tcgen05-opt", source, "-p", pipeline, "--no-verify-each")
    assert each.returncode == default.returncode == 0, each.stderr + default.stderr
    assert each.stdout == default.stdout and "tcgen05" in each.stdout
