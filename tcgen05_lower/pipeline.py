"""Pass pipelines: the default compile pipeline, and textual pipelines that mix tcgen05
passes with upstream ones.

A textual pipeline is a comma-separated list, optionally wrapped in ``builtin.module(...)``.
Elements whose name is a tcgen05 pass (``tcgen05-plan-tmem{strategy=first-fit}``) are
added as Python passes; anything else (``canonicalize``, ``func.func(cse)``,
``convert-scf-to-cf``) is handed to the upstream pass parser.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from tcgen05_lower.bindings import PassManager, add_python_pass
from tcgen05_lower.pass_infra import ModulePass
from tcgen05_lower.passes import REGISTRY
from tcgen05_lower.text import split_top_level as text_split

#: Before planning: a kernel written with cf branches becomes scf control flow
#: (scf.if / scf.while / scf.index_switch), which every tcgen05 stage follows.
STRUCTURING = ("lift-cf-to-scf",)
#: The tcgen05 stages, in order (each runnable alone; any prefix is a valid pipeline).
PLANNING = ("tcgen05-verify", "tcgen05-select-layouts", "tcgen05-plan-tmem",
            "tcgen05-insert-sync", "tcgen05-verify-sync")
#: From planned tcgen05 IR to the LLVM dialect. cse first: the lowering builds the
#: address arithmetic of every message and fill on its own (constants, thread and warp
#: indices, lane offsets), and merging what is computed twice before the conversions
#: leaves them, and LLVM's NVPTX backend, about a third of the IR for the same PTX
#: (benchmarks/compile). convert-nvvm-to-llvm comes next so that constants feeding inline
#: PTX stay registers (see tcgen05-lower-to-llvm); convert-math-to-llvm lowers the math
#: ops of tcgen05.frag_map bodies (lowering.compute); mem2reg turns the run-time mbarrier
#: phase counters (see lowering.sync) into registers.
LOWERING = ("tcgen05-lower-to-llvm", "cse", "convert-nvvm-to-llvm", "convert-math-to-llvm",
            "convert-scf-to-cf",
            "convert-arith-to-llvm", "convert-index-to-llvm", "convert-ub-to-llvm",
            "convert-func-to-llvm", "convert-cf-to-llvm", "reconcile-unrealized-casts",
            "mem2reg", "tcgen05-finalize-kernels")
DEFAULT_PIPELINE = ",".join(STRUCTURING + PLANNING + LOWERING)

#: Set to anything but "" or "0" in the environment, a compile (driver.compile_source,
#: tcgen05-lower) verifies the module after every pass (``--verify-each``); the tests run
#: so (tests/conftest.py), and tcgen05-opt always does unless told ``--no-verify-each``.
VERIFY_EACH_VARIABLE = "TCGEN05_VERIFY_EACH"


def verify_each_default() -> bool:
    """Whether a compile verifies after every pass when not told (VERIFY_EACH_VARIABLE).

    By default it does not: it verifies the module after every tcgen05 pass (the Python
    passes, whose output MLIR has not seen before) and after the last pass of the
    pipeline, before translation to LLVM IR, so no invalid module goes further. What it
    leaves out is MLIR's verification after each upstream pass (cse and the conversions
    to the LLVM dialect of LOWERING): eleven walks of the whole lowered module, 80 of the
    100 ms of verification in a 1.4 s compile at 1,000 tcgen05 instructions
    (benchmarks/compile), for IR those passes produce from IR just verified. An upstream pass that made invalid IR would be
    reported by the next verification instead of by itself."""
    return os.environ.get(VERIFY_EACH_VARIABLE, "") not in ("", "0")


def verified_after(steps: list, verify_each: bool) -> list[bool]:
    """Per step of a pipeline, whether the module is verified after it: after every step
    with `verify_each`, else after the tcgen05 passes and the last step (see
    verify_each_default). `steps` are Step objects or pass names."""
    def ours(step) -> bool:
        if isinstance(step, str):
            return step.split("{", 1)[0].strip() in REGISTRY
        return step.tcgen05_pass is not None

    return [verify_each or ours(step) or i == len(steps) - 1 for i, step in enumerate(steps)]


def before_sync(planning: str | None = None) -> str:
    """The pipeline tcgen05-insert-sync expects to have run: the structuring passes, then
    `planning` (by default the tcgen05 stages before tcgen05-insert-sync)."""
    if planning is None:
        planning = ",".join(PLANNING[:PLANNING.index("tcgen05-insert-sync")])
    return ",".join(STRUCTURING + (planning,))


class PipelineError(ValueError):
    """A textual pipeline that cannot be parsed."""


def split_top_level(text: str) -> list[str]:
    """Splits a pipeline at commas outside parentheses and braces."""
    try:
        parts = text_split(text, "({", ")}")
    except ValueError as exc:
        raise PipelineError(f"{exc} (pipeline)") from None
    return [p for p in parts if p]


def strip_module_anchor(text: str) -> str:
    text = text.strip()
    if text.startswith("builtin.module(") and text.endswith(")"):
        return text[len("builtin.module("):-1]
    return text


@dataclass
class Step:
    """One element of a pipeline: a tcgen05 pass instance or upstream pipeline text."""

    text: str
    tcgen05_pass: ModulePass | None = None


def parse_pipeline(text: str) -> list[Step]:
    """Parses a textual pipeline into steps; raises PipelineError for unknown options."""
    steps = []
    for element in split_top_level(strip_module_anchor(text)):
        nested = re.match(r"\s*([\w.]+)\((.*)\)\s*$", element, re.S)
        if nested and any(p.split("{", 1)[0].strip() in REGISTRY
                          for p in split_top_level(nested.group(2))):
            raise PipelineError(
                f"'{element}': the tcgen05 passes run on the whole module (kernels and their "
                f"allocations together); write them at the top level of the pipeline, not "
                f"nested in {nested.group(1)}(...)")
        name, _, rest = element.partition("{")
        name = name.strip()
        if name in REGISTRY:
            if rest and not rest.endswith("}"):
                raise PipelineError(f"malformed options in '{element}'")
            try:
                instance = REGISTRY[name].from_text(rest[:-1] if rest else "")
            except ValueError as exc:
                raise PipelineError(str(exc)) from None
            steps.append(Step(element, instance))
        else:
            steps.append(Step(element))
    return steps


@dataclass(frozen=True)
class Instrumentation:
    """mlir-opt's pass-manager flags, as far as the Python bindings reach
    (``PassManager.enable_ir_printing`` / ``enable_timing`` / ``enable_statistics``):
    ``--mlir-print-ir-before-all``, ``--mlir-print-ir-after-all``,
    ``--mlir-print-ir-after-change``, ``--mlir-timing``, ``--mlir-pass-statistics``. The
    bindings print IR before or after every pass, not one pass (``--mlir-print-ir-before=``
    has no equivalent), and write to stderr."""

    print_ir_before_all: bool = False
    print_ir_after_all: bool = False
    print_ir_after_change: bool = False
    timing: bool = False
    statistics: bool = False


def build_pass_manager(steps: list[Step], *, print_ir_after_all: bool = False,
                       report_stream=None, results: list | None = None,
                       instrumentation: Instrumentation | None = None,
                       verify_each: bool = True) -> PassManager:
    """A module-anchored PassManager running `steps` in order (call inside a context).
    The tcgen05 passes print their reports to `report_stream` (default stderr) and append
    the result of every run to `results`, if given. With `verify_each` MLIR verifies the
    module after every pass; without, only the tcgen05 passes verify it after themselves
    (verify_each_default says why; the caller verifies after the last step when it is
    an upstream pass, as driver.run_pipeline does)."""
    pm = PassManager("builtin.module")
    if not verify_each:
        pm.enable_verifier(False)
    for step in steps:
        if step.tcgen05_pass is not None:
            p = step.tcgen05_pass
            add_python_pass(pm, p.as_callable(report_stream, results,
                                              verify_after=not verify_each),
                            name=p.name, argument=p.name, description=p.description)
        else:
            try:
                pm.add(step.text)
            except ValueError as exc:
                raise PipelineError(f"'{step.text}': {exc}") from None
    flags = instrumentation or Instrumentation(print_ir_after_all=print_ir_after_all)
    if print_ir_after_all and not flags.print_ir_after_all:
        flags = Instrumentation(**{**vars(flags), "print_ir_after_all": True})
    if flags.print_ir_before_all or flags.print_ir_after_all or flags.print_ir_after_change:
        pm.enable_ir_printing(print_before_all=flags.print_ir_before_all,
                              print_after_all=flags.print_ir_after_all,
                              print_after_change=flags.print_ir_after_change,
                              print_module_scope=True)
    if flags.timing:
        pm.enable_timing()
    if flags.statistics:
        pm.enable_statistics()
    return pm


def pipeline_text(text: str) -> str:
    """A pipeline as ``--dump-pass-pipeline`` prints it: anchored on builtin.module."""
    return f"builtin.module({','.join(split_top_level(strip_module_anchor(text)))})"


def override_options(pipeline: str, overrides: list[str]) -> str:
    """`pipeline` with each pass named in `overrides` (``name{options}``) replaced by that
    element, the rest kept: ``--pass-option 'tcgen05-plan-tmem{strategy=optimal}'``."""
    elements = split_top_level(strip_module_anchor(pipeline))
    for override in overrides:
        name = override.split("{", 1)[0].strip()
        matches = [i for i, e in enumerate(elements) if e.split("{", 1)[0].strip() == name]
        if not matches:
            raise PipelineError(f"--pass-option '{override}': {name} is not in the pipeline "
                                f"({', '.join(e.split('{', 1)[0] for e in elements)})")
        for i in matches:
            elements[i] = override.strip()
    return ",".join(elements)
