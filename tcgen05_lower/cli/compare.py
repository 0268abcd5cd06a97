"""tcgen05-compare: one kernel under a grid of pass options, one row per combination.

    tcgen05-compare examples/persistent_gemm_bf16.mlir
    tcgen05-compare k.mlir --grid 'tcgen05-plan-tmem.strategy=first-fit,optimal' --format csv
    tcgen05-compare examples/*.mlir --format markdown -o table.md

The default grid is every tcgen05-plan-tmem strategy (first-fit, optimal, no-reuse) x
tcgen05-select-layouts max-width and two register budgets (32, 64) x tcgen05-insert-sync
minimal and conservative: 18 combinations. ``--grid PASS.OPTION=V1,V2`` (repeatable)
replaces the default grid by the given axes.

A kernel that writes its own synchronization (warp roles, ``tcgen05.partitions``, with
synchronization ops, or a hand-written ``tcgen05.mbarrier_arrive``) is compiled as
docs/partitions.md says, with
``tcgen05-insert-sync{strategy=none}`` (and tcgen05-verify-sync checking its roles,
``partitions=check``) whatever the grid gives those passes: its rows vary the other axes
only (the sync column reads ``none``).

Each row: TMEM columns allocated, the sync ops tcgen05-insert-sync added by kind, PTX
instructions, registers and spill bytes from ``ptxas -v``, whether the simulated results
are bit-identical to the reference combination's (the first that runs; it is also checked
against NumPy where the kernel has a check: a ``KERNEL.check.py`` beside it, or ``gemm``
when its shapes say so), and the timing model's estimated cycles and tensor-pipe
utilisation (``tcgen05_lower/sim/timing.py``: for comparing strategies, not absolute
cycles; ``--timing-param NAME=VALUE``, repeatable, overrides a parameter of it, and an
unknown name or a value that is no number is a usage error). A combination that does not compile shows why. Progress goes to stderr;
combinations run in parallel processes (``--jobs``, default: the cores available).

To rank kernels (several files) at a problem size: ``--check FILE.py`` and ``--set
NAME=VALUE`` (repeatable) as tcgen05-sim's, ``--timing-only`` for the whole grid's
estimate as ``tcgen05-sim --timing-only`` makes it (no numerics compared;
``--functional-only``: without race detection, as tcgen05-sim's), ``--rank`` for the rows
by tensor-pipe utilisation, best first:

    tcgen05-compare examples/ws_gemm_bf16_grid_2cta.mlir \\
        benchmarks/strategies/grid_2cta/*.mlir \\
        --grid tcgen05-insert-sync.strategy=minimal \\
        --check examples/ws_gemm_bf16_grid_2cta.check.py \\
        --set M=8192 --set N=8192 --set K=8192 --timing-only --functional-only --rank
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import itertools
import json
import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tcgen05_lower.cli.common import add_version_option, guarded_main

DEFAULT_GRID = (("tcgen05-plan-tmem", "strategy", ("first-fit", "optimal", "no-reuse")),
                ("tcgen05-select-layouts", "strategy",
                 ("max-width", "register-budget=32", "register-budget=64")),
                ("tcgen05-insert-sync", "strategy", ("minimal", "conservative")))
#: The options a kernel that writes its own synchronization needs (docs/partitions.md):
#: tcgen05-insert-sync keeps it and adds nothing; tcgen05-verify-sync checks it, the roles
#: running concurrently.
HAND_SYNCHRONIZED_COMBO = (("tcgen05-insert-sync", "strategy", "none"),
                           ("tcgen05-verify-sync", "partitions", "check"))
_PARTITIONS_OP = re.compile(r'^[^/]*"tcgen05\.partitions"', re.MULTILINE)
_ARRIVE_OP = re.compile(r'^[^/]*"tcgen05\.mbarrier_arrive"', re.MULTILINE)
#: Synchronization a kernel with warp roles writes itself (then insert-sync keeps it).
_ROLE_SYNC_OP = re.compile(r'^[^/]*"tcgen05\.(mbarrier_wait|mbarrier_expect_tx|commit|'
                           r'fence|wait|barrier)"', re.MULTILINE)
SYNC_KINDS = ("commit", "mbarrier_wait", "wait::ld", "wait::st", "fence::before",
              "fence::after", "fence.proxy.async", "barrier", "mbarrier_arrive",
              "mbarrier_expect_tx")


class UsageError(Exception):
    pass


def parse_grid(items: list[str] | None):
    """``["tcgen05-plan-tmem.strategy=first-fit,optimal"]`` -> the grid's axes."""
    if not items:
        return DEFAULT_GRID
    axes = []
    for item in items:
        m = re.fullmatch(r"\s*([\w-]+)\.([\w-]+)=(.+)", item)
        if not m:
            raise UsageError(f"--grid {item!r}: expected PASS.OPTION=VALUE[,VALUE...]")
        values = tuple(v.strip() for v in m.group(3).split(",") if v.strip())
        axes.append((m.group(1), m.group(2), values))
    return tuple(axes)


def combinations(grid) -> list[tuple[tuple[str, str, str], ...]]:
    return [tuple((p, o, v) for (p, o, _), v in zip(grid, values))
            for values in itertools.product(*(vals for _, _, vals in grid))]


def label(combo) -> str:
    """``first-fit / max-width / minimal`` for strategies; other options are named."""
    return " / ".join(v if o == "strategy" else f"{o}={v}" for _, o, v in combo)


def hand_synchronized(path: str) -> bool:
    """Whether the kernel at `path` writes its own synchronization (outside comments): a
    hand-written mbarrier arrive, or warp roles with any synchronization op, which
    tcgen05-insert-sync's minimal and conservative strategies refuse. A kernel with warp
    roles that writes none (examples/ws_persistent_gemm_bf16.mlir) is theirs to
    synchronize."""
    text = Path(path).read_text()
    return bool(_ARRIVE_OP.search(text) or
                (_PARTITIONS_OP.search(text) and _ROLE_SYNC_OP.search(text)))


def hand_synchronized_combo(path: str) -> tuple:
    """HAND_SYNCHRONIZED_COMBO, for a one-CTA kernel as for a CTA pair's (whose roles
    tcgen05-verify-sync checks once per CTA, docs/cta-pairs.md)."""
    return HAND_SYNCHRONIZED_COMBO


def kernel_combinations(path: str, combos) -> list:
    """`combos` as `path` can be compiled: for a hand-synchronized kernel, every
    insert-sync / verify-sync option of a combination replaced by
    hand_synchronized_combo(path), duplicates dropped (first kept)."""
    if not hand_synchronized(path):
        return list(combos)
    hand = hand_synchronized_combo(path)
    fixed = {p for p, _, _ in hand}
    out: list = []
    for combo in combos:
        kept = tuple(c for c in combo if c[0] not in fixed) + hand
        if kept not in out:
            out.append(kept)
    return out


def pipeline_for(combo) -> str:
    """The default pipeline with each pass of `combo` given its options."""
    from tcgen05_lower.pipeline import DEFAULT_PIPELINE, REGISTRY
    options: dict[str, list[str]] = {}
    for pass_name, option, value in combo:
        if pass_name not in REGISTRY:
            raise UsageError(f"--grid: no pass {pass_name} (tcgen05-opt --list-passes)")
        options.setdefault(pass_name, []).append(f"{option}={value}")
    steps = DEFAULT_PIPELINE.split(",")
    for pass_name, opts in options.items():
        if pass_name not in steps:
            raise UsageError(f"--grid: {pass_name} is not in the default pipeline")
        steps[steps.index(pass_name)] = f"{pass_name}{{{' '.join(opts)}}}"
    return ",".join(steps)


@dataclass
class Row:
    kernel: str
    combination: str
    compiled: bool = False
    reason: str = ""
    tmem_columns: int | None = None
    sync: dict = field(default_factory=dict)
    ptx_instructions: int | None = None
    registers: int | None = None
    spill_bytes: int | None = None
    same: str = ""            # yes / no / - (not simulated), with why in reason
    cycles: float | None = None
    tensor_pipe: float | None = None
    ptx_hash: str = ""


_INSTRUCTION = re.compile(r"^\s*(@!?%\w+\s+)?[a-z][\w.:]*[\s;{]")
_DIRECTIVE = re.compile(r"^\s*\.")


def count_instructions(ptx: str) -> int:
    """Instruction lines of the PTX (directives, labels, braces and comments aside); an
    inline-asm block { ...; ...; } counts each instruction it holds."""
    count = 0
    for line in ptx.splitlines():
        text = line.split("//")[0].strip()
        if not text or _DIRECTIVE.match(text) or text.endswith(":") or text in "{}":
            continue
        pieces = [p.strip() for p in text.strip("{} ").split(";") if p.strip()]
        count += sum(1 for p in pieces if not p.startswith(".") and not p.endswith(":")
                     and re.match(r"(@!?%?\w+\s+)?[a-z]", p.split(": ")[-1]))
    return count


def ptxas_usage(ptx: str, arch: str) -> tuple[int | None, int | None, str]:
    """(registers, spill bytes (stores + loads), problem) from ``ptxas -v``."""
    from tcgen05_lower.backend import run_ptxas
    try:
        result = run_ptxas(ptx, arch=arch, extra_args=("-v",))
    except FileNotFoundError as exc:
        return None, None, str(exc)
    text = result.stdout + result.stderr
    if not result.ok:
        return None, None, "ptxas rejects the PTX: " + text.strip().splitlines()[-1][:100]
    regs = re.search(r"Used (\d+) registers", text)
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text)
    return (int(regs.group(1)) if regs else None,
            int(spills.group(1)) + int(spills.group(2)) if spills else 0, "")


def compile_combo(path: str, combo) -> tuple[Row, str | None, dict | None]:
    """One combination: the row's static columns, the PTX and the manifest."""
    from tcgen05_lower.driver import CompileFailed, compile_source
    from tcgen05_lower.passes.tcgen05_insert_sync import count_sync_ops
    row = Row(Path(path).name, label(combo))
    try:
        result = compile_source(Path(path).read_text(), path, pipeline=pipeline_for(combo))
    except CompileFailed as failure:
        first = failure.diagnostics[0].message.splitlines()[0] if failure.diagnostics else ""
        row.reason = "does not compile: " + first[:140]
        return row, None, None
    row.compiled = True
    plans = [p for r in result.pass_results if r.name == "tcgen05-plan-tmem" for p in r.plans]
    row.tmem_columns = sum(p.allocation_columns for p in plans)
    inserted = [op for r in result.pass_results if r.name == "tcgen05-insert-sync"
                for ops in r.inserted.values() for op in ops]
    counts = count_sync_ops(inserted)
    row.sync = {k: counts.get(k, 0) for k in SYNC_KINDS if counts.get(k, 0)}
    row.ptx_instructions = count_instructions(result.ptx)
    row.registers, row.spill_bytes, problem = ptxas_usage(result.ptx, result.target)
    if problem:
        row.reason = problem
    row.ptx_hash = hashlib.sha256(result.ptx.encode()).hexdigest()[:16]
    return row, result.ptx, result.manifest


def kernel_inputs(path: str, manifest: dict, seed: int, run: "RunOptions | None" = None):
    """(inputs, NumPy check or None): ``run.check`` (a check file, as tcgen05-sim --check)
    or the kernel's .check.py, with ``run.scalars`` for its SCALARS, else the gemm check
    when the kernel's shapes give it, else random buffers (1 MiB each, integer arguments
    1). A timing-only run does not call the reference to learn its outputs."""
    from tcgen05_lower.cli import sim as simcli
    run = run or RunOptions()
    check = Path(run.check) if run.check else Path(path).with_suffix(".check.py")
    if run.check or run.scalars:
        # --check / --set: the check file's problem or nothing (no random fallback that
        # would ignore the sizes asked for)
        problem = simcli.file_problem(str(check), manifest, dict(run.scalars))
        outputs = set() if run.timing_only else simcli.output_names(problem, manifest, seed)
        return simcli.make_inputs(problem, manifest, outputs, seed), problem
    try:
        if check.exists():
            problem = simcli.file_problem(str(check), manifest)
        else:
            problem = simcli.gemm_problem(Path(path).read_text(), manifest)
        outputs = simcli.output_names(problem, manifest, seed)
        return simcli.make_inputs(problem, manifest, outputs, seed), problem
    except simcli.UsageError:
        import ml_dtypes
        import numpy as np
        rng = np.random.default_rng(seed)
        args = {}
        for p in manifest["params"]:
            if not p.get("pointer"):
                args[p["name"]] = 1
                continue
            values = rng.uniform(-1, 1, (1 << 20) // 2).astype(ml_dtypes.bfloat16)
            args[p["name"]] = values.view(np.uint8).copy()
        return args, None


@dataclass(frozen=True)
class RunOptions:
    """How each distinct PTX runs: ``check``, a check file for every kernel (else each
    kernel's own); ``scalars``, its integer arguments ((name, value) pairs, as
    tcgen05-sim --set); ``timing_only``, the whole grid estimated as tcgen05-sim
    --timing-only does (no numerics compared); ``functional_only``, no race detection
    (tcgen05-sim --functional-only: the same timing, several times faster)."""
    check: str | None = None
    scalars: tuple = ()
    timing_only: bool = False
    functional_only: bool = False


def simulate_ptx(path: str, ptx: str, manifest: dict, seed: int,
                 timing_params: dict | None = None, run: RunOptions | None = None) -> dict:
    """Runs one PTX with the timing model: outputs' digest, the NumPy check, cycles."""
    import numpy as np

    from tcgen05_lower.cli import sim as simcli
    from tcgen05_lower.sim.api import simulate
    from tcgen05_lower.sim.state import SimError
    run = run or RunOptions()
    try:
        inputs, problem = kernel_inputs(path, manifest, seed, run)
    except (simcli.UsageError, SimError) as err:
        return {"error": "inputs: " + str(err).splitlines()[0][:120]}
    if run.timing_only:
        return _estimate_grid(ptx, manifest, inputs, timing_params, run.functional_only)
    originals = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    try:
        result = simulate(ptx, manifest, inputs, "late", timing=timing_params or True,
                          functional_only=run.functional_only)
    except SimError as err:
        return {"error": "simulator: " + err.message.splitlines()[0][:120]}
    refused = _refusal(result)
    if refused is not None:
        return refused
    digest = hashlib.sha256()
    for name in sorted(result.outputs):
        digest.update(name.encode() + np.ascontiguousarray(result.outputs[name]).tobytes())
    checked = None
    if problem is not None:
        expected = problem.reference(originals)
        checked = all(problem.tolerance(n, result.outputs[n], want, originals)[0]
                      for n, want in expected.items())
    t = result.timing
    return {"digest": digest.hexdigest(), "numpy": checked, "cycles": t.cycles,
            "tensor_pipe": t.utilisation["tensor pipe"]}


def _refusal(result) -> dict | None:
    """The row of a run that raced or left problems at exit (the first one), else None."""
    if result.races:
        return {"error": "race: " + result.races[0].message[:120]}
    if result.problems:
        return {"error": "at exit: " + result.problems[0][:120]}
    return None


def _estimate_grid(ptx: str, manifest: dict, inputs: dict, timing_params,
                   functional_only: bool = False) -> dict:
    """A timing-only run (tcgen05-sim --timing-only's): cycles and utilisation, no
    outputs to compare."""
    from tcgen05_lower.cli.sim_timing import TooManyClusters, estimate_grid
    from tcgen05_lower.sim.state import SimError
    try:
        result = estimate_grid(ptx, manifest, inputs, None, timing_params or True,
                               schedule="late", functional_only=functional_only)[0]
    except TooManyClusters as exc:
        return {"error": str(exc)[:160]}
    except SimError as err:
        return {"error": "simulator: " + err.message.splitlines()[0][:120]}
    refused = _refusal(result)
    if refused is not None:
        return refused
    t = result.timing
    return {"digest": None, "numpy": None, "cycles": t.cycles,
            "tensor_pipe": t.utilisation["tensor pipe"]}


def compare(paths: list[str], grid, jobs: int, seed: int = 0,
            progress="stderr", timing_params: dict | None = None,
            run_options: "RunOptions | None" = None) -> list[Row]:
    """One row per kernel and combination. Progress lines go to `progress` (a stream, the
    process's stderr at call time by default, or None for none). ``timing_params``: the
    timing model's parameters to override (timing.PARAMETERS); ``run_options``: the check file,
    integer arguments and timing-only mode of every simulation (RunOptions)."""
    if progress == "stderr":
        progress = sys.stderr  # looked up now: a stream bound at import may be closed
    combos = combinations(grid)
    tasks = [(p, c) for p in paths for c in kernel_combinations(p, combos)]
    rows: list[Row] = []
    start = time.perf_counter()

    def note(text):
        if progress is not None:
            print(f"tcgen05-compare: [{time.perf_counter() - start:6.1f} s] {text}",
                  file=progress, flush=True)

    pool = ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else None
    try:
        run = pool.map if pool else map
        compiled = []
        for i, (row, ptx, manifest) in enumerate(
                run(compile_combo, [p for p, _ in tasks], [c for _, c in tasks])):
            note(f"compiled {i + 1}/{len(tasks)}: {row.kernel} {row.combination}"
                 + ("" if row.compiled else " (does not compile)"))
            rows.append(row)
            compiled.append((ptx, manifest))
        unique = {}
        for (path, _), row, (ptx, manifest) in zip(tasks, rows, compiled):
            if ptx is not None:
                unique.setdefault((path, row.ptx_hash), (path, ptx, manifest))
        keys = list(unique)
        sims = {}
        for i, (key, out) in enumerate(zip(keys, run(
                simulate_ptx, [unique[k][0] for k in keys], [unique[k][1] for k in keys],
                [unique[k][2] for k in keys], [seed] * len(keys),
                [timing_params] * len(keys), [run_options] * len(keys)))):
            sims[key] = out
            note(f"simulated {i + 1}/{len(keys)} distinct PTX: {Path(key[0]).name}")
    finally:
        if pool:
            pool.shutdown()
    reference: dict[str, dict] = {}
    for (path, _), row in zip(tasks, rows):
        out = sims.get((path, row.ptx_hash))
        if out is None:
            row.same = "-"
            continue
        if "error" in out:
            row.same = "-"
            row.reason = (row.reason + "; " if row.reason else "") + out["error"]
            continue
        row.cycles, row.tensor_pipe = out["cycles"], out["tensor_pipe"]
        if out["digest"] is None:
            row.same = "-"  # timing only: no outputs computed for every CTA
            continue
        ref = reference.setdefault(path, out)
        same = out["digest"] == ref["digest"] and ref["numpy"] is not False
        row.same = "yes" if same else "no"
        if ref["numpy"] is False:
            row.reason = (row.reason + "; " if row.reason else "") + \
                "the reference combination does not match NumPy"
    return rows


# -- output --------------------------------------------------------------------------------------

COLUMNS = ("kernel", "combination", "TMEM cols", "sync ops", "PTX instrs", "regs",
           "spill B", "same results", "est. cycles", "tensor pipe", "note")


def _cells(row: Row) -> list[str]:
    sync = ", ".join(f"{k} {v}" for k, v in row.sync.items()) if row.compiled else ""
    return [row.kernel, row.combination,
            "" if row.tmem_columns is None else str(row.tmem_columns), sync,
            "" if row.ptx_instructions is None else str(row.ptx_instructions),
            "" if row.registers is None else str(row.registers),
            "" if row.spill_bytes is None else str(row.spill_bytes),
            row.same if row.compiled else "",
            "" if row.cycles is None else f"{row.cycles:,.0f}",
            "" if row.tensor_pipe is None else f"{row.tensor_pipe:.1%}", row.reason]


def format_rows(rows: list[Row], fmt: str) -> str:
    if fmt == "json":
        return json.dumps([asdict(r) for r in rows], indent=1)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(COLUMNS)
        for row in rows:
            writer.writerow(_cells(row))
        return out.getvalue()
    lines = ["| " + " | ".join(COLUMNS) + " |",
             "|" + "|".join("---:" if c in ("TMEM cols", "PTX instrs", "regs", "spill B",
                                            "est. cycles", "tensor pipe") else "---"
                            for c in COLUMNS) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in _cells(row)) + " |")
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tcgen05-compare", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version_option(parser)
    parser.add_argument("kernels", nargs="+", metavar="KERNEL.mlir")
    parser.add_argument("--grid", action="append", metavar="PASS.OPTION=V1,V2",
                        help="an axis of the grid (repeatable; replaces the default grid)")
    parser.add_argument("--format", default="markdown", choices=["markdown", "csv", "json"])
    parser.add_argument("--jobs", "-j", type=int, default=len(os.sched_getaffinity(0))
                        if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1),
                        help="parallel processes (default: the cores available)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the table here")
    parser.add_argument("--timing-param", action="append", default=[], metavar="NAME=VALUE",
                        help="a timing-model parameter (docs/timing.md), repeatable")
    parser.add_argument("--check", default=None, metavar="FILE.py",
                        help="the check file of every kernel (as tcgen05-sim --check; "
                             "default: each kernel's KERNEL.check.py)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="an integer kernel argument of every kernel (overrides the "
                             "check file's SCALARS, as tcgen05-sim --set), repeatable")
    parser.add_argument("--timing-only", action="store_true",
                        help="estimate each kernel's whole grid as tcgen05-sim "
                             "--timing-only does (numerics not compared)")
    parser.add_argument("--functional-only", action="store_true",
                        help="no race detection (as tcgen05-sim --functional-only: the "
                             "same results and timing, several times faster)")
    parser.add_argument("--rank", action="store_true",
                        help="rows by modelled tensor-pipe utilisation, best first")
    return parser


def run(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        grid = parse_grid(args.grid)
        timing_params = _timing_params(args.timing_param)
        for combo in combinations(grid):
            pipeline_for(combo)
        for path in args.kernels + ([args.check] if args.check else []):
            if not Path(path).is_file():
                raise UsageError(f"{path}: no such file")
        run_options = _run_options(args)
    except UsageError as exc:
        print(f"tcgen05-compare: error: {exc}", file=sys.stderr)
        return 1
    rows = compare(args.kernels, grid, max(args.jobs, 1), args.seed,
                   timing_params=timing_params, run_options=run_options)
    if args.rank:
        # stable: equal utilisations keep the order given; rows without one go last
        rows.sort(key=lambda r: -(r.tensor_pipe if r.tensor_pipe is not None else -1.0))
    text = format_rows(rows, args.format)
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def _run_options(args) -> RunOptions:
    """--check, --set and --timing-only as RunOptions; UsageError for a --set that is
    no NAME=INTEGER."""
    from tcgen05_lower.cli.sim import UsageError as SimUsageError
    from tcgen05_lower.cli.sim import parse_settings
    try:
        scalars = parse_settings(args.set)
    except SimUsageError as exc:
        raise UsageError(str(exc)) from None
    return RunOptions(args.check, tuple(scalars.items()), args.timing_only,
                      args.functional_only)


def _timing_params(items) -> dict:
    from tcgen05_lower.sim.timing import parse_timing_params
    try:
        return parse_timing_params(items)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def main() -> None:
    """The console-script entry point."""
    sys.exit(guarded_main("tcgen05-compare", run))


if __name__ == "__main__":
    main()
