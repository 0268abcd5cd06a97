"""What the synchronization tests share: the kernels they run on, and running
tcgen05-insert-sync / tcgen05-verify-sync on them in-process.

The kernels are every example and every kernel of the TMEM planning corpus
(benchmarks/tmem, found at test time: the corpus grows). A corpus kernel may name the
planning pipeline it needs (``// PIPELINE: ...``); a kernel that planning rejects (an
over-subscription test, a form not supported yet) is not a synchronization matter and is
skipped with the planner's diagnostic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import wrap
from tcgen05_lower.bindings import MLIRError, capture_diagnostics, error_diagnostics
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.passes.tcgen05_insert_sync import Tcgen05InsertSync, count_sync_ops
from tcgen05_lower.passes.tcgen05_verify_sync import Tcgen05VerifySync
from tcgen05_lower.pipeline import before_sync, build_pass_manager, parse_pipeline


from conftest import synchronized_by_the_compiler

ROOT = Path(__file__).resolve().parent.parent


def kernel_paths() -> list[Path]:
    """Every example and corpus kernel whose synchronization tcgen05-insert-sync writes,
    in a stable order."""
    return synchronized_by_the_compiler(sorted((ROOT / "examples").glob("*.mlir"))) + \
        sorted((ROOT / "benchmarks" / "tmem").glob("**/*.mlir"))


def kernel_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def planning_pipeline(text: str) -> str:
    """The kernel's planning pipeline, after lift-cf-to-scf (as the default pipeline
    runs it: insert-sync and verify-sync follow scf control flow, not cf branches)."""
    match = re.search(r"^// PIPELINE: (.*)$", text, re.M)
    return before_sync(match.group(1).strip() if match else None)


@dataclass
class Planned:
    """A kernel after insert-sync: its text (with locations) and what the pass added."""

    text: str
    counts: dict  # kernel name -> count_sync_ops(...)
    source_name: str


def plan(path: Path, strategy: str) -> Planned:
    """Runs planning and insert-sync; skips the test when planning rejects the kernel."""
    text = path.read_text()
    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        try:
            module = parse_module(text, str(path))
            build_pass_manager(parse_pipeline(planning_pipeline(text))).run(module)
        except MLIRError as error:
            found = list(diagnostics) + error_diagnostics(error)
            pytest.skip("planning rejects it: " +
                        "; ".join(x.message for x in found if x.severity == "error")[:300])
        result = Tcgen05InsertSync(strategy=strategy).run_on(module)
        ok = result.ok
        errors = [x.format() for x in diagnostics if x.severity == "error"]
        if not ok and all("not supported yet" in e for e in errors):
            pytest.skip("insert-sync does not support it (a located error): " + errors[0])
        assert ok, errors
        counts = {name: count_sync_ops(ops) for name, ops in result.inserted.items()}
        return Planned(module.get_asm(enable_debug_info=True), counts, str(path))


def verify(text: str, source_name: str = "kernel.mlir") -> list[str]:
    """The errors tcgen05-verify-sync reports on `text`."""
    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        module = parse_module(text, source_name)
        Tcgen05VerifySync().run_on(module)
        return [x.format() for x in diagnostics if x.severity == "error"]


def inserted_ops(module) -> list:
    """The ops tcgen05-insert-sync added (each carries a ``reason``), in program order."""
    return [op for kernel in d.kernels(module) for op in d.walk_ops(kernel)
            if "reason" in op.attributes]


def deletions(planned: Planned):
    """For each op insert-sync added: (its description, whether tcgen05-verify-sync
    still accepts the kernel without it)."""
    context = d.make_context()
    with context:
        module = parse_module(planned.text, planned.source_name)
        count = len(inserted_ops(module))
        for index in range(count):
            mutant = module.clone() if hasattr(module, "clone") else module.operation.clone()
            victim = inserted_ops(mutant)[index]
            typed = wrap(victim)
            kind = typed.get("kind") if typed.declares("kind") else None
            description = (f"{victim.name}{'::' + kind if kind else ''} "
                           f"({typed.get('reason')})")
            victim.erase()
            with capture_diagnostics(context):
                accepted = Tcgen05VerifySync().run_on(mutant)
            yield description, accepted


def deletion_mutants(text: str, source_name: str):
    """(description, mutant text) for each op tcgen05-insert-sync added to the planned
    kernel `text`, deleted in turn (printed with locations)."""
    context = d.make_context()
    with context, capture_diagnostics(context):
        module = parse_module(text, source_name)
        for index in range(len(inserted_ops(module))):
            mutant = module.clone() if hasattr(module, "clone") else module.operation.clone()
            victim = inserted_ops(mutant)[index]
            typed = wrap(victim)
            kind = typed.get("kind") if typed.declares("kind") else None
            description = f"{victim.name}{'::' + kind if kind else ''} ({typed.get('reason')})"
            victim.erase()
            yield description, mutant.get_asm(enable_debug_info=True)
