"""Redundancy of tcgen05-insert-sync{strategy=minimal}, judged without the two sync passes.

    python benchmarks/sync/redundancy.py --jobs 2 -o benchmarks/sync/REDUNDANCY.md
    python benchmarks/sync/redundancy.py examples/gemm_bf16_kloop.mlir   # some kernels

For every example and corpus kernel (benchmarks/tmem) that plans: run the planning
pipeline and insert-sync (strategy minimal), then, for each op insert-sync added (the ops
carrying a ``reason``), delete it, lower the mutant to PTX and run it in the simulator
under the late schedule (every asynchronous effect lands as late as the ISA allows). The
deletion is *needed* when the simulator reports a race, a problem at kernel exit, a
deadlock or another simulator error, or when any global buffer differs bit for bit from
the unmutated kernel's on the same inputs; otherwise it is *redundant* (nothing changes
anywhere). Independently, tcgen05-verify-sync is asked whether it accepts the mutant, and
the two verdicts are tabulated side by side.

Inputs: an example runs on its check file's inputs (``tcgen05-sim --check``, seed 0), and
its unmutated run must also match the check file's reference. A corpus kernel has no
reference: every pointer argument is 1 MiB of random bf16 values and every integer
argument is 1 (as benchmarks/sim/strategies.py does), and, for a kernel with integer
arguments, also 0 and then 3 (a flag both ways, a loop run 0 or 3 times; SCALARS); since most corpus kernels never
fill shared memory from global memory, each CTA's shared memory starts with random bytes
in [0x38, 0x40) (finite, of moderate size read as bf16, f16, e4m3, e5m2, e2m1 or a
ue4m3 scale; tiny as a ue8m0 scale), so that the MMAs compute numbers that depend on
the order of the copies and MMAs; where the unmutated kernel cannot run on those (scale
factors must be the same in every lane quarter, sparse metadata meaningful), every byte
is 0x44, else zero (FILLS; the report says which). The simulator shares no code with
the passes.
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tests"))
BUFFER_BYTES = 1 << 20


def kernels() -> list[Path]:
    """Every example and corpus kernel, in a stable order."""
    return sorted((ROOT / "examples").glob("*.mlir")) + \
        sorted((ROOT / "benchmarks" / "tmem").glob("**/*.mlir"))


def kernel_name(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@dataclass
class Deletion:
    """One op insert-sync added, deleted."""

    description: str
    simulator: str | None  # why the simulator tells the mutant apart (None: it cannot)
    verify_accepts: bool


@dataclass
class KernelResult:
    name: str
    skip: str | None = None
    deletions: list = field(default_factory=list)
    seconds: float = 0.0
    fill: str = ""  # how shared memory started (FILLS)
    inputs: str = ""  # the values of the integer arguments, one run each (SCALARS)
    staged: bool = False  # the kernel uses tcgen05.tmem_stage


# ------------------------------------------------------------------------------ planning

def plan(path: Path) -> tuple[str | None, str]:
    """(the kernel after planning and insert-sync, as text; None and the reason when it
    does not plan)."""
    from tcgen05_lower import dialect as d
    from tcgen05_lower.bindings import MLIRError, capture_diagnostics, error_diagnostics
    from tcgen05_lower.parsing import parse_module
    from tcgen05_lower.passes.tcgen05_insert_sync import Tcgen05InsertSync
    from tcgen05_lower.pipeline import before_sync, build_pass_manager, parse_pipeline

    text = path.read_text()
    match = re.search(r"^// PIPELINE: (.*)$", text, re.M)
    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        try:
            module = parse_module(text, str(path))
            build_pass_manager(parse_pipeline(
                before_sync(match.group(1).strip() if match else None))).run(module)
        except MLIRError as error:
            found = list(diagnostics) + error_diagnostics(error)
            return None, "planning rejects it: " + first_error(found)
        if not Tcgen05InsertSync(strategy="minimal").run_on(module):
            return None, "insert-sync: " + first_error(list(diagnostics))
        return module.get_asm(enable_debug_info=True), ""


def first_error(diagnostics) -> str:
    errors = [x.message.splitlines()[0] for x in diagnostics if x.severity == "error"]
    return (errors[0] if errors else "unknown")[:160]


def verify_accepts(text: str, source_name: str) -> bool:
    from tcgen05_lower import dialect as d
    from tcgen05_lower.bindings import capture_diagnostics
    from tcgen05_lower.parsing import parse_module
    from tcgen05_lower.passes.tcgen05_verify_sync import Tcgen05VerifySync

    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        module = parse_module(text, source_name)
        Tcgen05VerifySync().run_on(module)
        return not [x for x in diagnostics if x.severity == "error"]


# ------------------------------------------------------------------------------ simulator

#: How a run's shared memory starts, tried in this order until the unmutated kernel runs
#: clean: random bytes in [0x38, 0x40); every byte 0x44 (scale factors the same in every
#: lane quarter, as the ISA requires, and sparse metadata whose 4-bit indices are all
#: 0b0100, a meaningful value: random bytes give neither); zeros (the simulator's own).
FILLS = ("random", "0x44", "zero")


def shared_memory(fill: str):
    """An ordering-model factory for `simulate` that first fills every CTA's shared
    memory as `fill` says (the same bytes on every run of a kernel)."""
    import numpy as np
    from tcgen05_lower.sim.ordering import OrderingModel

    def factory(ctas, threads, schedule):
        rng = np.random.default_rng(0)
        for cta in ctas:
            if fill == "random":
                cta.smem[:] = rng.integers(0x38, 0x40, size=cta.smem.shape, dtype=np.uint8)
            elif fill == "0x44":
                cta.smem[:] = 0x44
        return OrderingModel(ctas, threads, schedule)
    return factory


#: The values every integer argument of a corpus kernel takes, one run each (a flag both
#: ways, a trip count of 0, 1 and 3); an input set the unmutated kernel does not run
#: clean on is dropped. Examples run on their check file's scalars only.
SCALARS = (1, 0, 3)


def corpus_inputs(manifest: dict, scalar: int = 1, seed: int = 0) -> dict:
    """Random bf16 values in every pointer argument, `scalar` in every integer one."""
    import ml_dtypes
    import numpy as np

    rng = np.random.default_rng(seed)
    args = {}
    for param in manifest["params"]:
        if not param.get("pointer"):
            args[param["name"]] = scalar
            continue
        values = rng.uniform(-1, 1, BUFFER_BYTES // 2).astype(ml_dtypes.bfloat16)
        args[param["name"]] = values.view(np.uint8).copy()
    return args


def with_source_names(printed: str, source: str) -> str:
    """`printed` (a one-kernel module as MLIR prints it: parameters %arg0, %arg1 ...) with
    the kernel's parameters named as in `source`, which the launch manifest and a grid
    attribute (``grid = ["M", ...]``) refer to. Nested regions' block arguments are
    printed with higher numbers, so only the first names change."""
    from tcgen05_lower import dialect as d
    from tcgen05_lower.parsing import parse_module
    from tcgen05_lower.kernel_ir import source_parameter_names

    kernels = re.findall(r"func\.func\s+(?:\w+\s+)?@([\w$.-]+)", printed)
    if len(kernels) != 1:
        return printed
    with d.make_context():
        module = parse_module(source, "<source>")  # kept alive while its ops are read
        parsed = [k for k in d.kernels(module) if d.kernel_info(k).name == kernels[0]]
        if len(parsed) != 1:
            return printed
        names = source_parameter_names(parsed[0], source)
    count = len(names)
    if names == [f"arg{i}" for i in range(count)]:
        return printed
    table = {f"arg{i}": name for i, name in enumerate(names)}
    return re.sub(r"%(arg\d+)\b(?![\w$.-])",
                  lambda m: "%" + table.get(m.group(1), m.group(1)), printed)


class Runner:
    """Runs a planned kernel's text in the simulator on fixed inputs: (outcome, global
    buffers as bytes), the outcome None when the run is clean."""

    def __init__(self, path: Path, planned: str):
        import numpy as np
        from tcgen05_lower.driver import compile_source
        from tcgen05_lower.pipeline import LOWERING

        self.path = path
        self.source = path.read_text()
        self.lowering = ",".join(LOWERING)
        result = compile_source(with_source_names(planned, self.source), str(path),
                                pipeline=self.lowering)
        printed = [p["name"] for p in result.manifest["params"]]
        self.problem = None
        self.more: list = []  # (label, inputs): further input sets (SCALARS)
        if path.parent.name == "examples":
            from tcgen05_lower.cli.sim import prepare
            check = path.with_suffix(".check.py")
            _, manifest, self.problem, inputs = prepare(
                str(path), str(check) if check.exists() else "gemm", 0)
            names = [p["name"] for p in manifest["params"]]
            self.names = dict(zip(printed, names))
            self.inputs = {new: inputs[old] for new, old in self.names.items()}
            self.source_inputs = inputs
        else:
            self.names = dict(zip(printed, printed))
            self.inputs = corpus_inputs(result.manifest)
            if any(not p.get("pointer") for p in result.manifest["params"]):
                self.more = [(f"integer arguments {v}", corpus_inputs(result.manifest, v))
                             for v in SCALARS[1:]]
        self.copy = lambda v: v.copy() if isinstance(v, np.ndarray) else v
        self.fill = FILLS[0]

    def baseline(self, planned: str) -> tuple[str | None, dict]:
        """The unmutated run, under the first fill of FILLS it runs clean with (which
        the mutants then get too)."""
        for fill in FILLS:
            self.fill = fill
            found = self.run(planned)
            if found[0] is None:
                break
        return found

    def run(self, text: str, inputs: dict | None = None) -> tuple[str | None, dict]:
        import numpy as np
        from tcgen05_lower.driver import CompileFailed, compile_source
        from tcgen05_lower.sim.api import simulate
        from tcgen05_lower.sim.state import SimError

        try:
            result = compile_source(with_source_names(text, self.source), str(self.path),
                                    pipeline=self.lowering)
        except CompileFailed as failure:
            return "does not lower: " + first_error(failure.diagnostics), {}
        args = {name: self.copy(value) for name, value in (inputs or self.inputs).items()}
        try:
            run = simulate(result.ptx, result.manifest, args, schedule="late",
                           ordering_factory=shared_memory(self.fill))
        except SimError as error:
            message = error.message.splitlines()[0]
            kind = "deadlock" if "deadlock" in message else "simulator error"
            return f"{kind}: {message[:140]}", {}
        buffers = {name: np.ascontiguousarray(value).view(np.uint8).tobytes()
                   for name, value in run.outputs.items() if isinstance(value, np.ndarray)}
        if run.races:
            return "race: " + run.races[0].message.splitlines()[0][:140], buffers
        if run.problems:
            return "at exit: " + run.problems[0].splitlines()[0][:140], buffers
        return None, buffers

    def check_reference(self, buffers_run) -> str | None:
        """For an example: whether the unmutated run matches the check file."""
        if self.problem is None:
            return None
        import numpy as np
        from tcgen05_lower.driver import compile_source  # noqa: F401
        outputs = buffers_run
        for name, want in self.problem.reference(self.source_inputs).items():
            printed = next(p for p, s in self.names.items() if s == name)
            got = np.frombuffer(outputs[printed], dtype=self.inputs[printed].dtype) \
                .reshape(self.inputs[printed].shape)
            if not self.problem.tolerance(name, got, want, self.source_inputs)[0]:
                return f"the unmutated kernel computes a wrong {name}"
        return None


def measure(path: Path) -> KernelResult:
    """Every deletion of one kernel."""
    start = time.perf_counter()
    name = kernel_name(path)
    planned, why = plan(path)
    if planned is None:
        return KernelResult(name, skip=why)
    try:
        runner = Runner(path, planned)
        base, base_buffers = runner.baseline(planned)
    except Exception as error:  # noqa: BLE001 - a kernel the simulator cannot run
        return KernelResult(name, skip=f"cannot run: {type(error).__name__}: "
                                       f"{str(error).splitlines()[0][:140]}")
    if base is not None:
        return KernelResult(name, skip=f"the unmutated kernel does not run clean: {base}")
    wrong = runner.check_reference(base_buffers)
    if wrong:
        return KernelResult(name, skip=wrong)
    sets = [("", runner.inputs, base_buffers)]
    for label, inputs in runner.more:
        verdict, buffers = runner.run(planned, inputs)
        if verdict is None:
            sets.append((label, inputs, buffers))
    result = KernelResult(name, fill=runner.fill,
                          staged='"tcgen05.tmem_stage"' in path.read_text(),
                          inputs=", ".join(["1"] + [x[0].split()[-1] for x in sets[1:]])
                          if runner.more else "")
    from test_sync_common import deletion_mutants  # tests/: the mutants the tests use

    for description, text in deletion_mutants(planned, str(path)):
        for label, inputs, expected in sets:
            verdict, buffers = runner.run(text, inputs)
            if verdict is None:
                changed = sorted(n for n in expected if buffers.get(n) != expected[n])
                if changed:
                    verdict = "different numbers in " + ", ".join(changed)
            if verdict is not None:
                verdict += f" ({label})" if label else ""
                break
        result.deletions.append(Deletion(description, verdict,
                                         verify_accepts(text, str(path))))
    result.seconds = time.perf_counter() - start
    return result


# ------------------------------------------------------------------------------ report

#: Why the simulator and verify-sync disagree on a deletion, by what the deleted op's
#: reason says (derived by reading the kernels and the PTX ISA; a disagreement that
#: matches none is reported as unexplained).
EXPLANATIONS = (
    ("before tcgen05.ld", "stage",
     "Both passes take a multi-buffered buffer's stages (tcgen05.tmem_stage) as the whole "
     "buffer, every stage on every lane (insert-sync `_leaf_cells`, verify-sync likewise), "
     "so the MMA into this iteration's stage and the load of the other stage look "
     "dependent. The simulator sees the stages' own cells: the load reads the stage the "
     "previous iteration's MMA wrote, and that MMA's completion already reached the "
     "loading warps through the previous iteration's mbarrier wait followed by the "
     "fence::after_thread_sync of the barrier chain that orders the load before the next "
     "MMA. The deletion is redundant for the cells; the two passes are coarser than the "
     "cells for stages (not what issue 19 changed)."),
    ("before tcgen05.mma", "stage",
     "The two MMAs write different stages of one multi-buffered M = 64 accumulator (a "
     "stage on lanes 16-31 and the other buffer on lanes 0-15 of the same columns, or two "
     "stages); both passes count every stage on both lane halves (see above), the "
     "simulator sees disjoint cells, so there is no dependence to order."),
    ("completes its next phase", "",
     "The barrier keeps the tensor core from completing an mbarrier's next phase before "
     "every thread has passed its wait on the current one (a parity wait cannot tell "
     "phase p from p + 2). Under the late schedule an asynchronous op takes effect only "
     "when no thread can run without it, so a commit never overtakes a thread still "
     "waiting: the late schedule cannot show this reordering, which the ISA allows."),
)


def explain(result: "KernelResult", description: str) -> str:
    for reason, needs, text in EXPLANATIONS:
        if reason in description and (needs != "stage" or result.staged):
            return text
    return "UNEXPLAINED"


def category(verdict: str | None) -> str:
    if verdict is None:
        return "redundant"
    return verdict.split(":")[0].split(" in ")[0]


def report(results: list[KernelResult], command: str) -> str:
    lines = [
        "# Redundancy of tcgen05-insert-sync{strategy=minimal}, judged by the simulator",
        "",
        f"Generated by `{command}`.",
        "",
        "For each kernel: the ops insert-sync adds; each is deleted in turn and the mutant "
        "run in the simulator (late schedule). `needed`: the simulator tells the mutant "
        "apart (a race, a deadlock, a simulator error, a problem at exit, or a global "
        "buffer that differs bit for bit from the unmutated kernel's on the same inputs); "
        "`redundant`: nothing changes anywhere. `verify rejects` / `verify accepts`: what "
        "tcgen05-verify-sync says of the same mutants; `agree` counts the deletions where "
        "the simulator's needed/redundant matches verify-sync's reject/accept. The "
        "simulator shares no code with the passes (module docstring: inputs).",
        "",
        "| kernel | added | needed | redundant | race | numbers | deadlock | error / exit "
        "| verify rejects | verify accepts | agree | shared memory | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    totals = [0] * 10
    results_by_name = {r.name: r for r in results}
    skipped, redundant_ops, disagreements = [], [], []
    for r in results:
        if r.skip:
            skipped.append((r.name, r.skip))
            continue
        cats = [category(x.simulator) for x in r.deletions]
        row = [len(r.deletions), sum(c != "redundant" for c in cats),
               cats.count("redundant"), cats.count("race"),
               cats.count("different numbers"), cats.count("deadlock"),
               sum(c in ("simulator error", "at exit", "does not lower") for c in cats),
               sum(not x.verify_accepts for x in r.deletions),
               sum(x.verify_accepts for x in r.deletions),
               sum((x.simulator is None) == x.verify_accepts for x in r.deletions)]
        totals = [a + b for a, b in zip(totals, row)]
        lines.append(f"| {r.name} | " + " | ".join(str(x) for x in row) +
                     f" | {r.fill}{'; integers ' + r.inputs if r.inputs else ''} | "
                     f"{r.seconds:.1f} |")
        for x in r.deletions:
            if x.simulator is None:
                redundant_ops.append((r.name, x))
            if (x.simulator is None) != x.verify_accepts:
                disagreements.append((r.name, x))
    lines.append("| **total** | " + " | ".join(f"**{x}**" for x in totals) + " | | |")
    lines += ["", "## Deletions the simulator finds redundant", ""]
    if redundant_ops:
        lines += [f"- {name}: {x.description}; verify-sync "
                  f"{'accepts' if x.verify_accepts else 'rejects'} the deletion"
                  for name, x in redundant_ops]
    else:
        lines.append("None.")
    lines += ["", "## Disagreements with tcgen05-verify-sync", ""]
    if disagreements:
        for name, x in disagreements:
            lines += [f"- {name}: {x.description}: simulator "
                      f"{x.simulator or 'redundant'}; verify-sync "
                      f"{'accepts' if x.verify_accepts else 'rejects'}.",
                      f"  Why: {explain(results_by_name[name], x.description)}"]
    else:
        lines.append("None.")
    if skipped:
        lines += ["", "## Not measured", ""]
        lines += [f"- {name}: {why}" for name, why in skipped]
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", nargs="*", help="kernel files (default: all)")
    parser.add_argument("-o", dest="output", help="write the report here")
    parser.add_argument("--jobs", type=int, default=1, help="kernels measured at once")
    args = parser.parse_args()
    paths = [Path(k).resolve() for k in args.kernels] or kernels()
    command = "python benchmarks/sync/redundancy.py" + \
        (f" --jobs {args.jobs}" if args.jobs > 1 else "") + \
        (f" -o {args.output}" if args.output else "") + \
        "".join(f" {k}" for k in args.kernels)
    results = {}
    if args.jobs > 1:
        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            for r in pool.imap_unordered(measure, paths):
                results[r.name] = r
                print(f"{r.name}: {r.skip or f'{len(r.deletions)} deletions'}",
                      file=sys.stderr, flush=True)
    else:
        for path in paths:
            r = measure(path)
            results[r.name] = r
            print(f"{r.name}: {r.skip or f'{len(r.deletions)} deletions'}",
                  file=sys.stderr, flush=True)
    text = report([results[kernel_name(p)] for p in paths], command)
    if args.output:
        Path(args.output).write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
