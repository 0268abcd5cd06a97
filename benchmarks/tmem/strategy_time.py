"""Compile time of tcgen05-plan-tmem{strategy=optimal} against first-fit, side by side.

    python benchmarks/tmem/strategy_time.py -o benchmarks/tmem/STRATEGY_TIME.md
    python benchmarks/tmem/strategy_time.py --repeats 3 --sizes 8,16   # quicker look

Every corpus kernel (``corpus/``) and every kernel of the compile benchmark
(``benchmarks/compile/scaling.py``: its three shapes at ``--sizes`` tiles) is compiled
under both strategies: a corpus kernel through its own planning pipeline (see
``run_benchmark.py``) followed by the rest of the default pipeline, a compile-benchmark
kernel through the default pipeline, each pass run on its own with MLIR's verifier off.
The two strategies alternate within each repeat, so background load falls on both alike;
the report gives the median of ``--repeats`` runs of the planning pass alone and of the
whole pipeline, and their ratio optimal / first-fit. A kernel on which a pass reports an
error (a plan that does not fit; a corpus kernel written for planning only, which a later
pass does not take) is timed up to that pass.

Last, ``--random`` seeded random placement problems (8 to 40 buffers of 16 to 96
columns, full or half lanes, random live ranges) go straight to the two placement
functions of ``tcgen05_lower.planning.placement``: the instances the corpus does not
have, where the branch and bound of ``optimal`` runs up to its node limit.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shlex
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "benchmarks" / "compile"))

import scaling  # noqa: E402  (the compile benchmark's kernels)

from tcgen05_lower import dialect as d  # noqa: E402
from tcgen05_lower.bindings import capture_diagnostics  # noqa: E402
from tcgen05_lower.parsing import parse_module  # noqa: E402
from tcgen05_lower.planning import placement  # noqa: E402
from tcgen05_lower.pipeline import (LOWERING, PLANNING, STRUCTURING,  # noqa: E402
                                    build_pass_manager, parse_pipeline)
from run_benchmark import CORPUS, PLAN, kernel_pipeline  # noqa: E402

STRATEGIES = ("first-fit", "optimal")
#: The passes after planning, as the default pipeline runs them.
AFTER_PLAN = PLANNING[PLANNING.index(PLAN) + 1:] + LOWERING
#: Above this ratio optimal / first-fit, the issue's budget for a default is exceeded.
BUDGET = 1.2


def passes_of(pipeline: str) -> list[str]:
    """The pipeline's elements (each a pass name, maybe with options)."""
    return [p.strip() for p in pipeline.split(",") if p.strip()]


def compile_once(text: str, passes: list[str], strategy: str,
                 plan_only: bool = False) -> tuple[float, float, bool]:
    """Runs `passes` (tcgen05-plan-tmem with `strategy`) one at a time on a freshly parsed
    `text`: (seconds in tcgen05-plan-tmem, seconds in every pass, whether every pass
    succeeded). Stops at the first pass that reports an error."""
    plan_seconds = total = 0.0
    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        module = parse_module(text, "kernel.mlir")
        for name in passes:
            if name == PLAN:
                name = f"{PLAN}{{strategy={strategy}}}"
            manager = build_pass_manager(parse_pipeline(name))
            manager.enable_verifier(False)
            start = time.perf_counter()
            try:
                manager.run(module)
                failed = False
            except Exception:  # an MLIRError from a failed pass
                failed = True
            seconds = time.perf_counter() - start
            total += seconds
            if name.startswith(PLAN):
                plan_seconds = seconds
                if plan_only:
                    return plan_seconds, total, not failed
            if failed or any(x.severity == "error" for x in diagnostics):
                return plan_seconds, total, False
    return plan_seconds, total, True


def measure(text: str, passes: list[str], repeats: int, plan_repeats: int) -> dict:
    """{strategy: (median plan seconds, median pipeline seconds, compiled)}: the pipeline
    `repeats` times, and the passes up to planning `plan_repeats` times more (the
    planning pass takes a millisecond or so, where one run says little)."""
    runs = {s: [] for s in STRATEGIES}
    plans = {s: [] for s in STRATEGIES}
    for s in STRATEGIES:  # untimed: first-use costs
        compile_once(text, passes, s)
    for _ in range(repeats):
        for s in STRATEGIES:
            runs[s].append(compile_once(text, passes, s))
            plans[s].append(runs[s][-1][0])
    for _ in range(plan_repeats):
        for s in STRATEGIES:
            plans[s].append(compile_once(text, passes, s, plan_only=True)[0])
    return {s: (statistics.median(plans[s]), statistics.median(r[1] for r in runs[s]),
                all(r[2] for r in runs[s])) for s in STRATEGIES}


def kernels(sizes: list[int]):
    """(name, text, passes) of every kernel measured."""
    for path in sorted(CORPUS.glob("*.mlir")):
        text = path.read_text()
        passes = passes_of(kernel_pipeline(text)) + list(AFTER_PLAN)
        yield f"`{path.stem}`", text, passes
    default = list(STRUCTURING + PLANNING + LOWERING)
    for shape, (generate, _) in scaling.SHAPES.items():
        for n in sizes:
            yield f"{shape} N={n}", generate(n), default


def random_items(rng: random.Random) -> list:
    """One random placement problem."""
    items = []
    for i in range(rng.randint(8, 40)):
        start = rng.randint(0, 60)
        end = start + rng.randint(0, 12)
        columns = rng.choice([16, 32, 64, 96])
        half = rng.random() < 0.4
        variants = placement.item_variants(columns=columns, half_lanes=half, stages=1,
                                           lane_offsets=(0, 16) if half else (0,))
        items.append(placement.Item(i, f"b{i}", start, end, variants))
    return items


def measure_random(count: int, seed: int = 1) -> list:
    """(buffers, first-fit seconds, optimal seconds, first-fit peak, optimal peak, search
    nodes, proven) of `count` random placement problems."""
    rng = random.Random(seed)
    rows = []
    for _ in range(count):
        items = random_items(rng)
        start = time.perf_counter()
        ff = placement.first_fit(items)
        ff_seconds = time.perf_counter() - start
        start = time.perf_counter()
        op = placement.optimal(items)
        op_seconds = time.perf_counter() - start
        rows.append((len(items), ff_seconds, op_seconds, ff.peak(), op.peak(), op.nodes,
                     op.proven))
    return rows


def random_section(rows: list) -> list[str]:
    """The report's section on random placement problems."""
    if not rows:
        return []
    ff = sum(r[1] for r in rows)
    op = sum(r[2] for r in rows)
    slow = sorted(rows, key=lambda r: -r[2])[:5]
    lines = ["", "## Random placement problems", "",
             f"{len(rows)} seeded random problems (`--random`), placement functions alone: "
             f"first-fit {ff * 1e3:.1f} ms in all, optimal {op * 1e3:.0f} ms in all "
             f"({ratio(ff, op):.0f}x); optimal lowers the peak on "
             f"{sum(r[4] < r[3] for r in rows)} of them and stops at its node limit "
             f"(not proven) on {sum(not r[6] for r in rows)}; {sum(r[3] <= 512 for r in rows)} of "
             f"them fit in 512 columns under first-fit. The slowest:", "",
             "| buffers | first-fit ms | optimal ms | ratio | peak first-fit | peak optimal "
             "| nodes | proven |", "|---|---|---|---|---|---|---|---|"]
    for n, a, b, pa, pb, nodes, proven in slow:
        lines.append(f"| {n} | {a * 1e3:.2f} | {b * 1e3:.0f} | {ratio(a, b):.0f} | {pa} | {pb} "
                     f"| {nodes} | {'yes' if proven else 'no'} |")
    return lines


def ratio(a: float, b: float) -> float:
    return b / a if a > 0 else float("nan")


def report(rows: list, repeats: int, plan_repeats: int, command: str,
           random_rows: list = ()) -> str:
    """The markdown report."""
    plan_ratios = [ratio(r[1]["first-fit"][0], r[1]["optimal"][0]) for r in rows]
    pipe_ratios = [ratio(r[1]["first-fit"][1], r[1]["optimal"][1]) for r in rows]
    # A pipeline that stops under one strategy only runs different passes: no ratio.
    same = [(x, name) for x, (name, m) in zip(pipe_ratios, rows)
            if m["first-fit"][2] == m["optimal"][2]]
    worst_plan = max(zip(plan_ratios, (r[0] for r in rows)))
    worst_pipe = max(same)
    over_plan = [name for x, (name, _) in zip(plan_ratios, rows) if x > BUDGET]
    over_pipe = [name for x, name in same if x > BUDGET]
    lines = [
        "# Compile time: tcgen05-plan-tmem strategy optimal against first-fit",
        "",
        f"Generated by `{command}` (do not edit by hand), on {platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}.",
        "",
        "Each kernel is compiled under both strategies, alternating within each repeat; "
        f"milliseconds are medians of {repeats} runs ({repeats} + {plan_repeats} for *plan*). "
        "*plan* is the tcgen05-plan-tmem pass alone, *pipeline* every pass from parsing to tcgen05-finalize-kernels (corpus "
        "kernels: their own planning pipeline, then the rest of the default pipeline; "
        "compile-benchmark kernels: the default pipeline), MLIR's verifier off. "
        "*ratio* is optimal / first-fit. *(stops)*: a pass reports an error under that "
        "strategy (a plan that does not fit; a corpus kernel written for planning only, "
        "which a later pass does not take), and the pipeline is timed up to that pass.",
        "",
        "## Summary",
        "",
        f"- plan-tmem: median ratio {statistics.median(plan_ratios):.2f}, worst "
        f"{worst_plan[0]:.2f} ({worst_plan[1]}); above {BUDGET}x on {len(over_plan)} of "
        f"{len(rows)} kernels.",
        f"- whole pipeline (the {len(same)} kernels on which both strategies run the same "
        f"passes): median ratio {statistics.median(x for x, _ in same):.2f}, worst "
        f"{worst_pipe[0]:.2f} ({worst_pipe[1]}); above {BUDGET}x on {len(over_pipe)} of "
        f"them" + (f" ({', '.join(over_pipe)})." if over_pipe else "."),
        "",
        "| kernel | plan first-fit | plan optimal | plan ratio | pipeline first-fit | "
        "pipeline optimal | pipeline ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for (name, m), pr, qr in zip(rows, plan_ratios, pipe_ratios):
        ff, op = m["first-fit"], m["optimal"]

        def mark(x):
            return "" if x[2] else " (stops)"
        lines.append(f"| {name} | {ff[0] * 1e3:.2f}{mark(ff)} | {op[0] * 1e3:.2f}{mark(op)} | "
                     f"{pr:.2f} | {ff[1] * 1e3:.1f} | {op[1] * 1e3:.1f} | {qr:.2f} |")
    lines += random_section(list(random_rows))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", default="8,16,32,64",
                        help="tile counts of the compile-benchmark kernels")
    parser.add_argument("--plan-repeats", type=int, default=20,
                        help="extra runs of the passes up to planning, for the plan times")
    parser.add_argument("--random", type=int, default=20,
                        help="random placement problems to time (0: none)")
    parser.add_argument("-o", "--output", help="write the report here (default: print)")
    args = parser.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",") if x]
    rows = []
    for name, text, passes in kernels(sizes):
        rows.append((name, measure(text, passes, args.repeats, args.plan_repeats)))
        print(f"{name}: {rows[-1][1]}", file=sys.stderr, flush=True)
    random_rows = measure_random(args.random)
    command = "python benchmarks/tmem/strategy_time.py " + shlex.join(
        argv if argv is not None else sys.argv[1:])
    text = report(rows, args.repeats, args.plan_repeats, command.strip(), random_rows)
    if args.output:
        Path(args.output).write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
