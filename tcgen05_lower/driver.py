"""The compile stages as functions: parse, run a pipeline, translate, emit PTX, assemble.

Every stage boundary is text (MLIR, LLVM IR, PTX), so each can be dumped and re-entered.
Failures carry MLIR diagnostics; callers decide how to print them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tcgen05_lower import backend
from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import (Diagnostic, MLIRError, capture_diagnostics,
                                    error_diagnostics, parse_module)
from tcgen05_lower.isa import targets
from tcgen05_lower.pipeline import (DEFAULT_PIPELINE, build_pass_manager, parse_pipeline,
                                   split_top_level, strip_module_anchor)

EMIT_KINDS = ("mlir", "llvm", "ptx", "cubin")


class CompileFailed(Exception):
    """Compilation stopped at bad input; `diagnostics` say where and why."""

    def __init__(self, diagnostics: list[Diagnostic], message: str = ""):
        super().__init__(message or "\n".join(x.format() for x in diagnostics))
        self.diagnostics = diagnostics


@dataclass
class CompileResult:
    mlir: str | None = None
    llvm_ir: str | None = None
    ptx: str | None = None
    cubin: bytes | None = None
    target: str = "sm_100a"
    ptx_version: tuple[int, int] = (8, 6)
    ptx_version_reason: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)


def kernel_features(module_op) -> list[str]:
    """The gated ISA features a module uses (targets.FEATURES keys), for the PTX version."""
    features = {"alloc", "ld", "wait", "fence", "commit"}
    for kernel in d.kernels(module_op):
        for op in d.walk_ops(kernel):
            if d.op_name(op) == "mma":
                features.add("mma")
                features.add("kind::" + d.get_str(op, "kind"))
    return sorted(features)


def module_target(module_op, arch: str | None) -> str:
    """The target: `arch` if given (it overrides the kernels'), else the kernels' own
    (they must agree), else sm_100a."""
    found = {d.kernel_info(k).target for k in d.kernels(module_op)}
    if arch is not None:
        return arch
    if len(found) > 1:
        raise ValueError(f"kernels target different architectures: {', '.join(sorted(found))}")
    return found.pop() if found else "sm_100a"


def planning_prefix(pipeline: str) -> str:
    """The part of a pipeline before tcgen05-lower-to-llvm: what --emit=mlir runs."""
    elements = split_top_level(strip_module_anchor(pipeline))
    names = [e.split("{")[0].strip() for e in elements]
    cut = names.index("tcgen05-lower-to-llvm") if "tcgen05-lower-to-llvm" in names \
        else len(elements)
    return ",".join(elements[:cut])


def run_pipeline(module_op, pipeline: str, *, print_ir_after_all: bool = False,
                 report_stream=None) -> None:
    """Runs a textual pipeline on a parsed module (inside its context)."""
    steps = parse_pipeline(pipeline)
    for step in steps:
        if step.tcgen05_pass is not None and report_stream is not None:
            step.tcgen05_pass.report_stream = report_stream
    pm = build_pass_manager(steps, print_ir_after_all=print_ir_after_all)
    pm.run(module_op)


def compile_source(text: str, source_name: str = "<input>", *, arch: str | None = None,
                   emit: str = "ptx", pipeline: str = DEFAULT_PIPELINE,
                   print_ir_after_all: bool = False, report_stream=None) -> CompileResult:
    """Compiles tcgen05 MLIR text to `emit` ("mlir" stops after planning)."""
    if emit not in EMIT_KINDS:
        raise ValueError(f"--emit must be one of {', '.join(EMIT_KINDS)}")
    context = d.make_context()
    result = CompileResult()
    with context, capture_diagnostics(context) as diagnostics:
        try:
            module = parse_module(text, source_name)
            target = module_target(module, arch)
            targets.check_target(target)
            for kernel in d.kernels(module):
                d.set_kernel_target(kernel, target)
            result.target = target
            if emit == "mlir":
                pipeline = planning_prefix(pipeline)
            features = kernel_features(module)
            run_pipeline(module, pipeline, print_ir_after_all=print_ir_after_all,
                         report_stream=report_stream)
        except MLIRError as error:
            raise CompileFailed(list(diagnostics) + error_diagnostics(error)) from None
        except ValueError as exc:  # bad target or pipeline: no location to point at
            raise CompileFailed([Diagnostic("error", source_name, None, None, str(exc))]) \
                from None
        if any(x.severity == "error" for x in diagnostics):
            raise CompileFailed(list(diagnostics))
        result.diagnostics = list(diagnostics)
        if emit == "mlir":
            result.mlir = str(module)
            return result
        result.ptx_version, result.ptx_version_reason = targets.min_ptx_version(
            target, features)
        result.llvm_ir = backend.translate_to_llvm_ir(module)
    if emit == "llvm":
        return result
    result.ptx = backend.emit_ptx(result.llvm_ir, target=result.target,
                                  ptx_version=result.ptx_version)
    if emit == "cubin":
        assembled = backend.run_ptxas(result.ptx, arch=result.target, want_cubin=True)
        if not assembled.ok:
            raise CompileFailed([Diagnostic("error", source_name, None, None,
                                            "ptxas rejected the PTX:\n" + assembled.stderr)])
        result.cubin = assembled.cubin
    return result
