"""Measures how compile time grows with kernel size, pass by pass.

    python benchmarks/compile/scaling.py                    # print the report
    python benchmarks/compile/scaling.py -o benchmarks/compile/REPORT.md
    python benchmarks/compile/scaling.py --sizes 8,16,32 --repeats 3

Synthetic kernels of N tiles come in three shapes (SHAPES): straight-line tiles, tiles
whose MMA sits in a K-loop, and one loop whose body holds all N tiles; the tiles take
turns on two 128-column accumulators, so TMEM demand stays at 256 of the 512 columns
whatever N is. Each kernel is parsed and run through the default pipeline
(``tcgen05_lower.pipeline``) one pass at a time, each pass timed on its own (with MLIR's
verifier off; the verification the compile does after a pass, after every tcgen05 pass
and the last one unless TCGEN05_VERIFY_EACH asks for every pass
(``pipeline.verified_after``), is timed as a step of its own); then the lowered module is translated to LLVM IR and to PTX the way
``tcgen05-lower`` does, and those two steps are timed too. The whole compile is repeated
``--repeats`` times on a freshly parsed module (the sizes of one shape interleaved, so
that background load falls on all of them alike) and the median of each step is
reported.

For each step the report gives the growth per doubling of N between the two largest
sizes: a pass linear in kernel size gives about 2, a quadratic one about 4.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import shlex
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tcgen05_lower import backend, driver
from tcgen05_lower.builder import KernelBuilder
from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import capture_diagnostics
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.pipeline import (LOWERING, PLANNING, STRUCTURING, build_pass_manager,
                                    parse_pipeline, verified_after, verify_each_default)

PASSES = STRUCTURING + PLANNING + LOWERING
#: The steps after the pipeline, as driver.compile_source runs them for --emit=ptx.
EMISSION = ("translate-to-llvm-ir", "emit-ptx")
#: "verifier": the IR verification the compile runs after passes (pipeline.verified_after),
#: summed over them.
PIPELINE_STEPS = PASSES + ("verifier",)
STEPS = ("parse",) + PIPELINE_STEPS + EMISSION
#: Sums of steps, reported after them (median over runs of each run's sum).
TOTALS = {"pipeline": PIPELINE_STEPS, "parse to PTX": STEPS}
DEFAULT_SIZES = "8,16,32,64,128"
#: Growth per doubling above which a step is called superlinear.
SUPERLINEAR = 2.6
#: Below this many milliseconds at the largest size, noise hides the growth.
TOO_SMALL_MS = 5.0

# ------------------------------------------------------------------------- kernels
# Built with tcgen05_lower.builder (no MLIR text is written here).


def build(n: int, *, kloop: bool = False, one_loop: bool = False) -> str:
    """`n` tiles, each: fill A and B, an MMA into accumulator i % 2 (in a K-loop of 4
    iterations if `kloop`), then load the accumulator and store the fragment; with
    `one_loop` all tiles sit in the body of one scf.for of 4 iterations."""
    k = KernelBuilder("scaling", params={"A": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"})
    a = k.smem([128, 64], "bf16")
    b = k.smem([128, 64], "bf16")
    accs = [k.tmem([128, 128], "f32", name=f"acc{j}", role="d") for j in range(2)]

    def tile(i: int) -> None:
        for x in (a, b):
            k.fill("A", x, src_layout="mn_k", src_ld=64)
        acc = accs[i % 2]
        if kloop:
            with k.loop(0, 4, 1):
                k.mma(acc, a, b, True, kind="f16")
        else:
            k.mma(acc, a, b, False, kind="f16")
        k.store_fragment(k.ld(acc, 0, 32), "C", 0, ld=128)

    if one_loop:
        with k.loop(0, 4, 1):
            for i in range(n):
                tile(i)
    else:
        for i in range(n):
            tile(i)
    return k.text()


def straight_kernel(n: int) -> str:
    """`n` straight-line tiles."""
    return build(n)


def kloop_kernel(n: int) -> str:
    """`n` tiles, each MMA in its own scf.for of 4 iterations."""
    return build(n, kloop=True)


def loop_body_kernel(n: int) -> str:
    """One scf.for of 4 iterations whose body holds `n` straight-line tiles."""
    return build(n, one_loop=True)


#: name: (generator, what it is).
SHAPES = {
    "straight": (straight_kernel, "N straight-line tiles: per tile two smem_fills, an MMA "
                 "into one of two accumulators (alternating), a tcgen05.ld of it and a "
                 "store_fragment."),
    "kloop": (kloop_kernel, "the same tiles, each MMA in an scf.for of 4 iterations."),
    "loop-body": (loop_body_kernel, "one scf.for of 4 iterations whose body holds the N "
                  "straight-line tiles (for passes that walk loop bodies repeatedly)."),
}


# ------------------------------------------------------------------------- measuring


def count_ops(module) -> int:
    """Operations nested in `module` (not counting the module itself)."""
    return sum(1 for _ in d.walk_ops(module))


#: The clock every step is timed with: the CPU time of this process (all steps run in
#: it), which other processes on a shared machine do not inflate as they do wall time.
CLOCK = time.process_time


def llvm_instructions(llvm_ir: str) -> int:
    """Instructions of LLVM IR text: the lines inside function bodies that are not
    labels, braces or comments."""
    count, inside = 0, False
    for line in llvm_ir.splitlines():
        stripped = line.strip()
        if line.startswith("define "):
            inside = True
        elif line.startswith("}"):
            inside = False
        elif inside and stripped and not stripped.endswith(":") \
                and not stripped.startswith(";"):
            count += 1
    return count


def ptx_instructions(ptx: str) -> int:
    """Instructions of PTX text: statements ending in ';' that are not directives
    (lines starting with '.') or comments."""
    return sum(1 for line in ptx.splitlines()
               if line.strip().endswith(";") and not line.strip().startswith((".", "//")))


def compile_steps(text: str) -> tuple[dict[str, float], int, int, str, str]:
    """Compiles `text` to PTX step by step, as ``tcgen05-lower`` does: seconds per step
    (STEPS; the op counts are taken outside them), the op counts of the parsed and of the
    lowered module, the LLVM IR and the PTX. Raises RuntimeError if a step reports an
    error."""
    seconds = {}
    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        start = CLOCK()
        module = parse_module(text, "scaling.mlir")
        seconds["parse"] = CLOCK() - start
        ops_in = count_ops(module)
        target = driver.module_target(module, None)
        ptx_version, _ = driver.ptx_version_for(target, driver.feature_uses(module, target))
        seconds["verifier"] = 0.0
        for name, verify in zip(PASSES, verified_after(list(PASSES), verify_each_default())):
            manager = build_pass_manager(parse_pipeline(name))
            manager.enable_verifier(False)
            start = CLOCK()
            manager.run(module)
            seconds[name] = CLOCK() - start
            if verify:
                start = CLOCK()
                module.verify()
                seconds["verifier"] += CLOCK() - start
        errors = [x.format() for x in diagnostics if x.severity == "error"]
        if errors:
            raise RuntimeError("\n".join(errors))
        ops_out = count_ops(module)
        start = CLOCK()
        llvm_ir = backend.translate_to_llvm_ir(module)
        seconds["translate-to-llvm-ir"] = CLOCK() - start
    start = CLOCK()
    ptx = backend.emit_ptx(llvm_ir, target=target, ptx_version=ptx_version)
    seconds["emit-ptx"] = CLOCK() - start
    return seconds, ops_in, ops_out, llvm_ir, ptx


def compile_once(text: str) -> tuple[dict[str, float], int, int, int, int]:
    """compile_steps, with the instructions of the LLVM IR and of the PTX counted."""
    seconds, ops_in, ops_out, llvm_ir, ptx = compile_steps(text)
    return seconds, ops_in, ops_out, llvm_instructions(llvm_ir), ptx_instructions(ptx)


@dataclass
class Measurement:
    """One kernel size of one shape: the op counts, and the median seconds of every step
    (STEPS) and total (TOTALS)."""

    tiles: int
    ops_in: int
    ops_out: int
    llvm_instructions: int
    ptx_instructions: int
    medians: dict[str, float]


def measure_shape(generate, sizes: list[int], repeats: int) -> list[Measurement]:
    """Compiles the kernel of every size `repeats` times, the sizes interleaved within
    each repeat, after one untimed compile (one-time initialization, such as LLVM's
    targets); one Measurement per size."""
    texts = {n: generate(n) for n in sizes}
    compile_once(texts[sizes[0]])
    runs = {n: [] for n in sizes}
    counts = {}
    for _ in range(repeats):
        for n in sizes:
            seconds, *counted = compile_once(texts[n])
            seconds.update({total: sum(seconds[s] for s in steps)
                            for total, steps in TOTALS.items()})
            runs[n].append(seconds)
            counts[n] = counted
    return [Measurement(n, *counts[n], {key: statistics.median(r[key] for r in runs[n])
                                        for key in runs[n][0]})
            for n in sizes]


# ------------------------------------------------------------------------- report


def growth(rows: list[tuple[int, float]]) -> float | None:
    """Time growth per doubling of N between the last two (tiles, seconds) rows:
    t(N) / t(N/2) when the sizes double; None without two sizes or a zero time."""
    if len(rows) < 2:
        return None
    (n0, t0), (n1, t1) = rows[-2:]
    if t0 <= 0 or t1 <= 0:
        return None
    return (t1 / t0) ** (math.log(2) / math.log(n1 / n0))


def verdict(ratio: float | None, largest_ms: float) -> str:
    """'too small to tell', 'superlinear', 'linear' (or '-' without a ratio)."""
    if largest_ms < TOO_SMALL_MS:
        return "too small to tell"
    if ratio is None:
        return "-"
    return "superlinear" if ratio > SUPERLINEAR else "linear"


def fmt_ratio(ratio: float | None) -> str:
    """A growth ratio for a table cell."""
    return "-" if ratio is None else f"{ratio:.2f}"


def step_row(name: str, rows: list[tuple[int, float]]) -> tuple[str, str]:
    """The table row of one step (milliseconds per size, growth at the last two pairs
    of sizes, verdict), and its verdict."""
    ratio = growth(rows)
    judged = verdict(ratio, rows[-1][1] * 1e3)
    cells = [f"{t * 1e3:.1f}" for _, t in rows]
    cells += [fmt_ratio(growth(rows[:-1])), fmt_ratio(ratio), judged]
    return f"| {name} | " + " | ".join(cells) + " |", judged


def shape_section(shape: str, measurements: list[Measurement]) -> tuple[list[str], list]:
    """The Markdown section of one shape, and its superlinear steps as (step, ratio)."""
    generate, what = SHAPES[shape]
    sizes = [m.tiles for m in measurements]
    pairs = [f"{a}→{b}" for a, b in zip(sizes, sizes[1:])][-2:]
    pairs = ["-"] * (2 - len(pairs)) + pairs
    lines = [f"## {shape}", "", f"`{generate.__name__}`: {what}", "",
             "| N (tiles) | " + " | ".join(str(n) for n in sizes) + " |",
             "|---|" + "---|" * len(sizes),
             "| ops in | " + " | ".join(str(m.ops_in) for m in measurements) + " |",
             "| ops lowered | " + " | ".join(str(m.ops_out) for m in measurements) + " |",
             "| LLVM IR instructions | " + " | ".join(str(m.llvm_instructions)
                                                    for m in measurements) + " |",
             "| PTX instructions | " + " | ".join(str(m.ptx_instructions)
                                                for m in measurements) + " |",
             "| LLVM IR per PTX instruction | " + " | ".join(
                 f"{m.llvm_instructions / max(1, m.ptx_instructions):.2f}"
                 for m in measurements) + " |",
             "| pipeline ms | " + " | ".join(f"{m.medians['pipeline'] * 1e3:.1f}"
                                            for m in measurements) + " |",
             "", "Median milliseconds per step:", "",
             "| step | " + " | ".join(f"N={n}" for n in sizes) +
             f" | growth {pairs[0]} | growth {pairs[1]} | verdict |",
             "|---|" + "---|" * (len(sizes) + 3)]
    superlinear = []
    for step in STEPS + tuple(TOTALS):
        rows = [(m.tiles, m.medians[step]) for m in measurements]
        row, judged = step_row(f"**{step}**" if step in TOTALS else step, rows)
        lines.append(row)
        if judged == "superlinear":
            superlinear.append((step, growth(rows)))
    return lines + [""], superlinear


def machine_note() -> str:
    """The machine the report was measured on."""
    return (f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} "
            f"{platform.release()}, Python {platform.python_version()}")


def introduction(repeats: int) -> str:
    """The paragraph that says what the tables measure."""
    return ("Each kernel is parsed, run through the default pipeline one pass at a time "
            "(`STRUCTURING + PLANNING + LOWERING` of `tcgen05_lower.pipeline`), "
            "translated to LLVM IR and compiled to PTX by LLVM's NVPTX backend, as "
            "`tcgen05-lower` does; each step is timed on its own in CPU time of the "
            "process (`time.process_time`, which other processes on a shared machine do "
            "not inflate as they do wall time), median of "
            f"{repeats} runs on a freshly parsed module. The passes run with MLIR's "
            "verifier off; *verifier* is the verification the compile does after passes "
            "(`Operation.verify()` after every tcgen05 pass and after the last pass, as "
            "`tcgen05-lower` does by default; after every pass with TCGEN05_VERIFY_EACH "
            "set), summed over the passes. *growth* is "
            "the time's growth per doubling of N between two sizes (t(N) / t(N/2) when "
            "the sizes double): about 2 for a step linear in kernel size, about 4 for a "
            "quadratic one. The verdict reads the growth between the two largest sizes: "
            f"*superlinear* above {SUPERLINEAR}, *too small to tell* under "
            f"{TOO_SMALL_MS:g} ms at the largest size. *ops* count every operation nested "
            "in the module, in the input and after lowering. *pipeline* is the passes and "
            "the verifier; *parse to PTX* is every step. One ratio of a single step is "
            "only as steady as the machine: read both growth columns and all three "
            "shapes before calling a step quadratic (steps that merely walk the IR also "
            "slow down per op once the module outgrows the CPU's caches).")


def build_report(results: dict[str, list[Measurement]], repeats: int, command: str) -> str:
    """The Markdown report of every shape's measurements."""
    lines = ["# Compile time against kernel size", "",
             f"Generated by `{command}` (do not edit by hand), on {machine_note()}.", "",
             introduction(repeats), "", "Superlinear steps (growth at the largest size):",
             ""]
    sections = []
    for shape, measurements in results.items():
        section, superlinear = shape_section(shape, measurements)
        sections += section
        found = ", ".join(f"{step} {ratio:.2f}" for step, ratio in superlinear)
        lines.append(f"- {shape}: {found or 'none'}")
    return "\n".join(lines + [""] + sections)


def sizes_arg(text: str) -> list[int]:
    """Parses ``--sizes``: increasing positive tile counts, comma-separated."""
    sizes = [int(x) for x in text.split(",") if x.strip()]
    if not sizes or sizes[0] < 1 or sizes != sorted(set(sizes)):
        raise argparse.ArgumentTypeError("sizes must be increasing positive integers")
    return sizes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=sizes_arg, default=DEFAULT_SIZES,
                        help="tile counts N (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="runs per kernel, of which the median is reported "
                             "(default: %(default)s)")
    parser.add_argument("--shapes", default=",".join(SHAPES),
                        help="kernel shapes to measure (default: %(default)s)")
    parser.add_argument("-o", dest="output", help="write the report here")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    shapes = [s for s in args.shapes.split(",") if s]
    unknown = [s for s in shapes if s not in SHAPES]
    if unknown:
        parser.error(f"unknown shape(s) {', '.join(unknown)}; known: {', '.join(SHAPES)}")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    results = {}
    for shape in shapes:
        print(f"{shape}: N = {', '.join(map(str, args.sizes))}", file=sys.stderr)
        results[shape] = measure_shape(SHAPES[shape][0], args.sizes, args.repeats)
    command = "python " + " ".join(shlex.quote(a) for a in
                                   ["benchmarks/compile/scaling.py"] + argv)
    text = build_report(results, args.repeats, command)
    if args.output:
        Path(args.output).write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
