"""Runs the TMEM planning corpus under every strategy and writes REPORT.md.

    python benchmarks/tmem/run_benchmark.py            # writes benchmarks/tmem/REPORT.md
    python benchmarks/tmem/run_benchmark.py --repeats 7 --output /tmp/report.md

For every kernel of ``corpus/`` and every strategy of ``tcgen05-plan-tmem`` it records the
peak column, the allocation (or that the kernel does not fit), the lower bound, whether
``optimal`` proved its result, and the verdict of the independent checker
(``tests/tmem_checker.py``, which reads only the planned IR and the JSON report). It also
times the planning pass alone (median of ``--repeats`` runs, after parsing and
tcgen05-select-layouts, which are not timed) and, on synthetic kernels of growing size,
shows how planning time grows with the kernel.

A kernel runs through ``tcgen05-select-layouts,tcgen05-plan-tmem`` unless its file says
otherwise in a ``// PIPELINE:`` line (e.g. a kernel whose buffers carry hand-written
footprints would name ``tcgen05-plan-tmem`` alone; none of the corpus does now). Whether
``tcgen05-verify`` accepts each kernel is recorded too.

The exit status is 1 if any check fails: the checker finds a problem, ``optimal`` is
worse than ``first-fit``, or ``optimal`` misses the lower bound without the report
proving why.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import tmem_checker  # noqa: E402  (test code: the independent checker)

from tcgen05_lower import dialect as d  # noqa: E402
from tcgen05_lower.bindings import capture_diagnostics  # noqa: E402
from tcgen05_lower.parsing import parse_module  # noqa: E402
from tcgen05_lower.pipeline import parse_pipeline  # noqa: E402

CORPUS = HERE / "corpus"
STRATEGIES = ("first-fit", "optimal", "no-reuse")
DEFAULT_PIPELINE = "tcgen05-select-layouts,tcgen05-plan-tmem"
PLAN = "tcgen05-plan-tmem"
TMEM_COLUMNS = 512


def kernel_pipeline(text: str) -> str:
    """The pipeline a corpus file asks for (``// PIPELINE: ...``), else the default."""
    match = re.search(r"^// PIPELINE: (.*)$", text, re.M)
    return match.group(1).strip() if match else DEFAULT_PIPELINE


def summary(text: str) -> str:
    """The first sentence of a corpus file's header comment."""
    words = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        if not line.startswith(("// PIPELINE", "// EXPECT")):
            words.append(line[2:].strip())
    header = " ".join(words)
    end = header.find(". ")
    return header if end < 0 else header[:end + 1]


@dataclass
class Outcome:
    """One kernel under one strategy."""

    strategy: str
    peak: int = 0
    allocation: int | None = None
    lower_bound: int = 0
    point_bound: int | None = None
    proven: bool | None = None
    notes: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    seconds: list = field(default_factory=list)
    buffers: int = 0


def run_once(text: str, name: str, pipeline: str, strategy: str, json_path: str | None):
    """Parses and runs the pipeline (writing the JSON report to `json_path`, if given);
    returns (the planning pass's result, module text or None, errors, seconds spent in
    the planning pass)."""
    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        module = parse_module(text, name)
        options = f"strategy={strategy}" + (f" json={json_path}" if json_path else "")
        steps = parse_pipeline(pipeline.replace(PLAN, f"{PLAN}{{{options}}}"))
        planner = None
        seconds = 0.0
        ok = True
        for step in steps:
            p = step.tcgen05_pass
            if p.name == PLAN:
                start = time.perf_counter()
                planner = p.run_on(module)
                seconds = time.perf_counter() - start
                ok = planner.ok
            else:
                ok = p.run_on(module).ok
            if not ok:
                break
        errors = [x.format() for x in diagnostics if x.severity == "error"]
        return planner, (str(module) if ok else None), errors, seconds


def verifier_verdict(text: str, name: str) -> str:
    """'accepted', or the verifier's first error message."""
    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        module = parse_module(text, name)
        steps = parse_pipeline("tcgen05-verify")
        steps[0].tcgen05_pass.run_on(module)
        errors = [x.message for x in diagnostics if x.severity == "error"]
    return "accepted" if not errors else errors[0]


def run_kernel(path: Path, repeats: int) -> tuple[dict, str]:
    """Every strategy on one corpus kernel: {strategy: Outcome}, and its pipeline."""
    text = path.read_text()
    pipeline = kernel_pipeline(text)
    outcomes = {}
    with tempfile.TemporaryDirectory() as tmp:
        json_path = str(Path(tmp) / "plan.json")
        for strategy in STRATEGIES:
            out = Outcome(strategy)
            # The first run writes the JSON report the checker reads; the timed ones do not.
            planner, planned, errors, _ = run_once(text, path.name, pipeline, strategy,
                                                   json_path)
            for _ in range(repeats):
                out.seconds.append(run_once(text, path.name, pipeline, strategy, None)[3])
            plan = planner.plans[0] if planner is not None and planner.plans else None
            if plan is not None:
                out.peak = plan.peak_columns
                out.allocation = plan.allocation_columns
                out.lower_bound = plan.lower_bound_columns
                out.point_bound = plan.point_bound_columns
                out.proven = plan.proven
                out.notes = list(plan.notes)
                out.buffers = len(plan.buffers)
            out.errors = errors
            if planned is not None:
                report = json.loads(Path(json_path).read_text())
                out.problems = tmem_checker.check_text(planned, report)
            elif out.peak <= TMEM_COLUMNS:
                out.problems = [f"planning failed: {errors}"]
            outcomes[strategy] = out
    return outcomes, pipeline


# ------------------------------------------------------------------------- synthetic


def synthetic_kernel(tiles: int) -> str:
    """A kernel of `tiles` tiles: tile i defines a 128 x N_i accumulator (N cycling 32,
    64, 128), writes it with an MMA and reads the accumulator of tile i - 2, so three
    are live at once. Buffers carry their Layout D footprint (no select-layouts)."""
    widths = (32, 64, 128)
    lines = ["!ta = !tcgen05.smem<[128, 64], bf16, \"K\", \"128B\">",
             "!frag = !tcgen05.frag<[128, 32], f32>"]
    for n in widths:
        lines.append(f"!n{n} = !tcgen05.tmem<[128, {n}], f32>")
        lines.append(f"!tb{n} = !tcgen05.smem<[{n}, 64], bf16, \"K\", \"128B\">")
    lines.append("func.func @synthetic(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = "
                 "{target = \"sm_100a\", threads = 128 : i64, cta_group = 1 : i64}} {")
    lines.append("  %c0 = arith.constant 0 : index")
    lines.append("  %f = arith.constant false")
    lines.append("  %a = \"tcgen05.smem_buffer\"() : () -> !ta")
    for n in widths:
        lines.append(f"  %b{n} = \"tcgen05.smem_buffer\"() : () -> !tb{n}")

    def read(j):
        n = widths[j % 3]
        return [f"  %x{j} = \"tcgen05.ld\"(%t{j}, %c0) : (!n{n}, index) -> !frag",
                f"  \"tcgen05.store_fragment\"(%x{j}, %C, %c0) {{ld = {n} : i64}} : "
                f"(!frag, !llvm.ptr<1>, index) -> ()"]

    for i in range(tiles):
        n = widths[i % 3]
        lines.append(f"  %t{i} = \"tcgen05.tmem_buffer\"() {{name = \"t{i}\", role = \"d\", "
                     f"layout = \"D\", columns = {n} : i64, half_lanes = false}} : () -> "
                     f"!n{n}")
        lines.append(f"  \"tcgen05.mma\"(%t{i}, %a, %b{n}, %f) {{kind = \"f16\"}} : "
                     f"(!n{n}, !ta, !tb{n}, i1) -> ()")
        if i >= 2:
            lines += read(i - 2)
    for j in range(max(tiles - 2, 0), tiles):
        lines += read(j)
    lines.append("  return\n}")
    return "\n".join(lines) + "\n"


def run_scaling(sizes, repeats: int) -> list:
    """Planning time and peaks of the synthetic kernels of `sizes` tiles."""
    rows = []
    for tiles in sizes:
        text = synthetic_kernel(tiles)
        row = {"tiles": tiles, "ops": text.count("\n  ") + 1}
        for strategy in STRATEGIES:
            times = []
            for _ in range(repeats):
                planner, _, _, seconds = run_once(text, "synthetic", PLAN, strategy, None)
                times.append(seconds)
            plan = planner.plans[0]
            row[strategy] = (statistics.median(times), plan.peak_columns, plan.proven)
        rows.append(row)
    return rows


# ------------------------------------------------------------------------- report


def fmt_alloc(o: Outcome) -> str:
    """``peak / allocation`` (or ``/ over``)."""
    if o.allocation is None:
        return f"{o.peak} / over"
    return f"{o.peak} / {o.allocation}"


def write_report(results: list, scaling: list, repeats: int) -> tuple[str, list]:
    """The markdown report, and the failed checks."""
    failures = []
    lines = ["# TMEM planning: corpus report", "",
             "Written by `python benchmarks/tmem/run_benchmark.py` (do not edit by hand). "
             "Columns are per CTA; *peak* is the highest column any buffer uses, "
             "*allocation* the `tcgen05.alloc` size (the smallest power of two in "
             "[32, 512] holding the peak), *over* means the strategy's placement needs more "
             "than 512 columns and the pass reports an error. The *lower bound* is the "
             "maximum over program points of the lane-aware live footprint (cells of the "
             "buffers live there / 128 lanes, in whole columns). *checker*: the independent "
             "checker (`tests/tmem_checker.py`) on the planned IR and the JSON report: no "
             "two simultaneously live buffers share a cell, everything lies inside the "
             "allocation, lane alignment, every exit path deallocates; `-` where the "
             "strategy does not fit (no IR to check).", "",
             "Live ranges follow the rules in `tcgen05_lower/planning/liveness.py`: a buffer "
             "lives from its `tcgen05.tmem_buffer` to the last op that may access it, and "
             "while an asynchronous op that touches it may still be in flight (until an op "
             "before which any correct synchronization must have completed it).", "",
             "| kernel | buffers | lower bound | first-fit | optimal | no-reuse | "
             "optimal proven | checker | tcgen05-verify |",
             "|---|---|---|---|---|---|---|---|---|"]
    explanations = []
    for name, outcomes, pipeline, verdict, summary in results:
        ff, opt, nr = (outcomes[s] for s in STRATEGIES)
        checks = []
        for o in (ff, opt, nr):
            if o.allocation is None:
                checks.append("-")
            else:
                checks.append("ok" if not o.problems else "FAIL")
                for p in o.problems:
                    failures.append(f"{name} {o.strategy}: {p}")
        if opt.peak > ff.peak:
            failures.append(f"{name}: optimal {opt.peak} is worse than first-fit {ff.peak}")
        bound_note = ""
        if opt.peak != opt.lower_bound:
            if opt.point_bound is not None and opt.point_bound >= opt.peak and opt.proven:
                bound_note = f" (exact point bound {opt.point_bound})"
                explanations.append((name, opt))
            else:
                failures.append(f"{name}: optimal {opt.peak} misses the lower bound "
                                f"{opt.lower_bound} without an explanation")
        verify = "accepted" if verdict == "accepted" else "rejected"
        short = name.removesuffix(".mlir")
        lines.append(f"| `{short}` | {opt.buffers} | {opt.lower_bound}{bound_note} | "
                     f"{fmt_alloc(ff)} | {fmt_alloc(opt)} | {fmt_alloc(nr)} | "
                     f"{'yes' if opt.proven else 'no'} | {' / '.join(checks)} | {verify} |")
    lines += ["", "Cells are *peak / allocation*; checker verdicts are for first-fit / "
              "optimal / no-reuse."]
    lines += ["", "## Where optimal is above the lower bound", ""]
    if not explanations:
        lines.append("Nowhere: optimal meets the lower bound on every kernel.")
    for name, opt in explanations:
        lines.append(f"- `{name.removesuffix('.mlir')}`: " + "; ".join(opt.notes))
    lines += ["", "## What each kernel exercises", "",
              "| kernel | pipeline | what |", "|---|---|---|"]
    for name, outcomes, pipeline, verdict, summary in results:
        lines.append(f"| `{name.removesuffix('.mlir')}` | `{pipeline}` | {summary} |")
    lines += ["", "## tcgen05-verify", "",
              "The corpus runs without `tcgen05-verify` (the planner must handle every kernel "
              "the ISA allows, whatever the verifier supports yet); the verifier's verdict "
              "on each kernel is recorded in the first table.", ""]
    rejected = [(n, v) for n, _, _, v, _ in results if v != "accepted"]
    if not rejected:
        lines.append("It accepts every corpus kernel.")
    else:
        lines.append("It rejects:")
    for name, verdict in rejected:
        lines.append(f"- `{name.removesuffix('.mlir')}`: {verdict}")
    lines += ["", "## Planning time", "",
              f"Median over {repeats} runs of the `tcgen05-plan-tmem` pass alone "
              "(liveness, placement, rewriting), in milliseconds; parsing and "
              "tcgen05-select-layouts are not included.", "",
              "| kernel | first-fit | optimal | no-reuse |", "|---|---|---|---|"]
    for name, outcomes, pipeline, verdict, summary in results:
        cells = [f"{statistics.median(outcomes[s].seconds) * 1e3:.2f}" for s in STRATEGIES]
        lines.append(f"| `{name.removesuffix('.mlir')}` | " + " | ".join(cells) + " |")
    lines += ["", "### Growth with kernel size", "",
              "Synthetic kernels (`synthetic_kernel` in the script): tile i defines a "
              "128 x N accumulator (N = 32, 64, 128 in turn), writes it and reads the one of "
              "tile i - 2, so three are live at once. Milliseconds (median), and the peak "
              "each strategy reaches.", "",
              "| tiles | ops | first-fit ms | optimal ms | no-reuse ms | first-fit peak | "
              "optimal peak (proven) | no-reuse peak |", "|---|---|---|---|---|---|---|---|"]
    for row in scaling:
        ff, opt, nr = (row[s] for s in STRATEGIES)
        lines.append(f"| {row['tiles']} | {row['ops']} | {ff[0] * 1e3:.1f} | "
                     f"{opt[0] * 1e3:.1f} | {nr[0] * 1e3:.1f} | {ff[1]} | {opt[1]} "
                     f"({'yes' if opt[2] else 'no'}) | {nr[1]} |")
    lines += ["", "No-reuse gives every buffer its own cells, so its peak grows with the "
              "kernel and quickly passes 512 columns: it is a baseline, not a plan."]
    if failures:
        lines += ["", "## FAILURES", ""] + [f"- {f}" for f in failures]
    return "\n".join(lines) + "\n", failures


def main(argv=None) -> int:
    """Runs everything and writes the report; 1 if a check failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--output", default=str(HERE / "REPORT.md"))
    parser.add_argument("--sizes", default="25,50,100,200,400,800",
                        help="tile counts of the synthetic kernels")
    args = parser.parse_args(argv)
    results = []
    for path in sorted(CORPUS.glob("*.mlir")):
        text = path.read_text()
        outcomes, pipeline = run_kernel(path, args.repeats)
        results.append((path.name, outcomes, pipeline, verifier_verdict(text, path.name),
                        summary(text)))
        print(f"{path.name}: " + ", ".join(
            f"{s} {fmt_alloc(outcomes[s])}" for s in STRATEGIES), file=sys.stderr)
    sizes = [int(x) for x in args.sizes.split(",") if x]
    scaling = run_scaling(sizes, max(1, min(args.repeats, 3)))
    text, failures = write_report(results, scaling, args.repeats)
    Path(args.output).write_text(text)
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
