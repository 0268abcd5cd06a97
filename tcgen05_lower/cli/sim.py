"""tcgen05-sim: run a kernel in the functional simulator and compare it with NumPy.

    tcgen05-sim examples/gemm_bf16_128x256.mlir --check gemm
    tcgen05-sim kernel.mlir --check kernel_check.py --schedule eager --trace trace.txt
    tcgen05-sim examples/ws_gemm_bf16_auto.mlir --check examples/ws_gemm_bf16_auto.check.py \
        --schedule random --seeds 0-15
    tcgen05-sim kernel.ptx --manifest kernel.json --check kernel_check.py
    tcgen05-sim kernel.mlir --timing-only --set M=8192 --set N=8192 --set K=8192

A .mlir kernel is compiled with the default pipeline; a .ptx kernel needs its launch
manifest (tcgen05-lower --manifest). Inputs are random (--seed). ``--check gemm`` checks
C = A x B, with M, N, K and the element types read from the kernel's shared-memory fills
and stores; ``--check FILE.py`` takes a Python file defining ``BUFFERS`` ({name: (dtype,
shape)}, or a function of the scalars returning it), optionally ``SCALARS`` ({name:
int}, the integer arguments; ``--set NAME=VALUE`` overrides them, and a function
``derived(scalars)`` may return more of them, e.g. leading dimensions from sizes),
``TOLERANCE`` ((rtol, atol)) or ``bound(name, inputs) -> (array, text)`` (the largest
error allowed per element), ``INPUT_RANGES`` ({name: (low, high)}, the range of an integer
input's random values, default [-8, 8)), ``STRUCTS`` ({parameter name: [field, ...]},
or a function of the scalars returning it: the bytes of by-value struct parameters, as a
manifest's "fields"; docs/simulator.md), and ``reference(inputs) -> {output name:
expected array}`` (``inputs`` holds the kernel's scalar arguments too). The grid is the
manifest's, computed from the scalars (``--grid X[,Y[,Z]]`` overrides it), and every CTA
of it runs.

``--schedule random`` draws the warp order, the warps' priorities, a warp starved for a
stretch and when (and in which allowed order) commits and TMA loads complete from a seed
(tcgen05_lower/sim/schedule.py): ``--seed N`` (it seeds the inputs too), or ``--seeds
0-15`` / ``--runs 16`` for one run per seed on the same inputs, a report per seed and a
summary naming the first failing seed.

Every run is bounded (``--max-instructions``, ``--timeout``; a grid that cannot fit them
is refused before it runs) and so is the memory of its arrays (``--max-memory``).

``--timing`` adds the timing model's estimate (docs/timing.md; ``--timing-param
NAME=VALUE`` overrides a parameter); ``--timing-only`` estimates the whole grid from
cluster (0, 0, 0) and the first loads of its neighbours without simulating the rest and
without checking numerics. A bad ``--timing-param`` or a grid too large for
``--timing-only`` is a usage error (exit status 1).

Exit status: 0 when every output matches; 1 on a mismatch, a race, a problem at kernel
exit (TMEM still allocated ...), a simulator error, bad input (kernel, manifest, check
file, --set, --grid, --timing-param; an error in the check file is reported at its
file:line) or a limit reached; 2 on a malformed command line or an internal error of the
tool.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

from tcgen05_lower.cli.common import add_version_option, guarded_main, print_diagnostics
from tcgen05_lower.cli.sim_check_file import file_problem
from tcgen05_lower.cli.sim_gemm import gemm_problem
from tcgen05_lower.cli.sim_problem import (UsageError, _read_text, check_memory, make_inputs,
                                           output_names, with_structs)
from tcgen05_lower.cli.sim_report import report
from tcgen05_lower.cli.sim_timing import run_timing_only


#: The default of --max-memory: the bytes the kernel's arrays may take (1 GiB; the
#: largest shipped example needs less than 1 MiB).
DEFAULT_MAX_MEMORY = 1 << 30


def parse_bytes(text: str) -> int:
    """``"1G"`` -> 2**30; ``"512M"``, ``"64K"``, ``"1000"`` (bytes)."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)i?B?\s*", text, re.I)
    if not m:
        raise argparse.ArgumentTypeError(f"{text!r} is not a byte count (e.g. 2G, 512M)")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2).upper()]


def _seed(text: str) -> int:
    """An argparse type: NumPy's generators take non-negative seeds."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def _limit(kind):
    """An argparse type: a non-negative number, 0 meaning no limit (None)."""
    def convert(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"{text} is negative (0: no limit)")
        return value or None
    return convert


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tcgen05-sim", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version_option(parser)
    parser.add_argument("input", help="kernel: .mlir (compiled with the default pipeline) "
                                      "or .ptx (with --manifest)")
    parser.add_argument("--arch", default=None, help="target for a .mlir kernel")
    parser.add_argument("--pass-option", action="append", default=[], metavar="PASS{OPTIONS}",
                        help="compile a .mlir kernel with this pass of the default pipeline "
                             "replaced, options and all, as tcgen05-lower --pass-option "
                             "(repeatable)")
    parser.add_argument("--manifest", default=None, metavar="FILE",
                        help="launch manifest (JSON from tcgen05-lower --manifest)")
    parser.add_argument("--inputs", default="random", choices=["random"],
                        help="how inputs are filled (random: uniform in [-1, 1), rounded "
                             "to the element type)")
    parser.add_argument("--seed", type=_seed, default=0,
                        help="the random inputs' seed (a non-negative integer)")
    parser.add_argument("--check", default=None, metavar="gemm|FILE.py",
                        help="the reference: gemm (C = A x B) or a Python file (default: "
                             "the kernel's KERNEL.check.py beside it if there is one, "
                             "else gemm)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="an integer kernel argument (overrides the check file's "
                             "SCALARS)")
    parser.add_argument("--grid", default=None, metavar="X[,Y[,Z]]",
                        help="the grid in CTAs (default: the manifest's)")
    parser.add_argument("--schedule", default="late", choices=["late", "eager", "random"],
                        help="when asynchronous tcgen05 operations take effect: late (the "
                             "latest moment, lowest PC first), eager (at issue), or random: "
                             "warp order, priorities, a starved warp and the completion of "
                             "commits and TMA loads drawn from --seed (which also seeds the "
                             "inputs), the same for the same seed")
    parser.add_argument("--fences", default="canonical", choices=["canonical", "acquire"],
                        help="what orders tcgen05 operations across threads: canonical (the "
                             "ISA's tcgen05.fence::before/after_thread_sync patterns around a "
                             "barrier or mbarrier, 9.7.16.6) or acquire (also a barrier or an "
                             "acquire mbarrier wait alone); docs/memory-model.md")
    parser.add_argument("--seeds", default=None, metavar="A-B[,C..]",
                        help="with --schedule random: one run per schedule seed (e.g. 0-15), "
                             "on the inputs of --seed; a report per seed, then a summary "
                             "(failed seeds, the first); exit status 1 if any failed")
    parser.add_argument("--runs", type=int, default=1, metavar="N",
                        help="with --schedule random: N runs, schedule seeds --seed to "
                             "--seed + N - 1")
    parser.add_argument("--trace", default=None, metavar="FILE",
                        help="write a per-warp instruction trace")
    parser.add_argument("--timing", action="store_true",
                        help="also estimate the run's cycles with the timing model "
                             "(tcgen05_lower/sim/timing.py; for comparing strategies, not "
                             "absolute cycles): cycles, utilisation, stalls per warp")
    parser.add_argument("--timing-trace", default=None, metavar="FILE.json",
                        help="with --timing: write a Chrome trace-event JSON (Perfetto), one "
                             "track per warp and per hardware unit")
    parser.add_argument("--timing-param", action="append", default=[], metavar="NAME=VALUE",
                        help="with --timing: a timing-model parameter (docs/timing.md), "
                             "repeatable")
    parser.add_argument("--timing-only", action="store_true",
                        help="estimate the whole grid's time without simulating every CTA: "
                             "cluster (0, 0, 0) runs, and the first instructions of its "
                             "neighbours (1, 0, 0) and (0, 1, 0) to see which tiles they "
                             "share; the rest is replayed from them in waves over the SMs "
                             "(docs/timing.md); numerics are not checked")
    from tcgen05_lower.sim.api import DEFAULT_MAX_INSTRUCTIONS, DEFAULT_TIMEOUT

    parser.add_argument("--max-instructions", type=_limit(int),
                        default=DEFAULT_MAX_INSTRUCTIONS, metavar="N",
                        help="stop after N warp instructions over the whole grid, and "
                             "refuse up front a grid that cannot fit them (default "
                             f"{DEFAULT_MAX_INSTRUCTIONS:,}; 0: no limit)")
    parser.add_argument("--timeout", type=_limit(float), default=DEFAULT_TIMEOUT,
                        metavar="SECONDS",
                        help=f"stop after this long (default {DEFAULT_TIMEOUT:g} s; 0: no "
                             "limit)")
    parser.add_argument("--max-memory", type=parse_bytes, default=DEFAULT_MAX_MEMORY,
                        metavar="BYTES",
                        help="refuse, before allocating them, arrays that take more than "
                             "this (default 1G; K, M, G suffixes)")
    parser.add_argument("--functional-only", action="store_true",
                        help="no race detection: the same run, outputs, errors, problems at "
                             "exit and timing, several times faster, for sweeps of a kernel "
                             "a full run has checked (docs/simulator.md)")
    parser.add_argument("--backend", default="sim", choices=["sim", "cuda"],
                        help="where the kernel runs: the simulator, or a Blackwell GPU "
                             "through the CUDA driver API (the 'cuda' extra; never run here, "
                             "see tcgen05_lower/gpu.py)")
    return parser


# -- the kernel ---------------------------------------------------------------------------------
def prepare(path: str, check: str = "gemm", seed: int = 0, arch: str | None = None,
            manifest_path: str | None = None, scalars: dict | None = None,
            pass_options: list | tuple = (), max_memory: int | None = DEFAULT_MAX_MEMORY,
            probe_outputs: bool = True):
    """(PTX, manifest, Problem, inputs) for a kernel file and a --check argument;
    `scalars` override the check file's, `pass_options` replace passes of the default
    pipeline (tcgen05-lower --pass-option). UsageError (a CheckFileError for the check
    file's own) or a LaunchError for bad input; `max_memory` bytes at most for the
    arrays, checked before any is allocated. `probe_outputs` False (a timing-only run,
    which checks no numbers) skips calling the reference to learn its outputs (at
    8192^3 a minute of NumPy): every buffer then gets random values."""
    from tcgen05_lower.sim.api import check_launch, launch_of

    ptx, manifest, mlir_text = load_kernel(path, arch, manifest_path, pass_options)
    # a check file may give the fields of by-value structs (STRUCTS): checked once added
    entry = check_launch(ptx, manifest, structs_later=check != "gemm")
    if check == "gemm" and scalars:
        raise UsageError(f"--set {', '.join(scalars)}: --check gemm reads the sizes from the "
                         f"kernel; --set gives the integer arguments of a --check FILE.py")
    if check == "gemm":
        problem = gemm_problem(mlir_text, manifest, entry)
    else:
        problem = file_problem(check, manifest, scalars, entry)
        manifest = with_structs(manifest, problem.structs)
        launch_of(manifest, entry)
    check_memory(problem, manifest, max_memory)
    outputs = output_names(problem, manifest, seed) if probe_outputs else set()
    return ptx, manifest, problem, make_inputs(problem, manifest, outputs, seed)


def load_kernel(path: str, arch: str | None = None, manifest_path: str | None = None,
                pass_options: list | tuple = ()) -> tuple[str, dict, str | None]:
    """(PTX text, manifest, MLIR text or None)."""
    text = _read_text(path, "kernel")
    if path.endswith(".ptx"):
        if not manifest_path:
            raise UsageError("a .ptx kernel needs --manifest FILE (tcgen05-lower --manifest)")
        return text, read_manifest(manifest_path), None
    from tcgen05_lower.driver import CompileFailed, compile_source

    from tcgen05_lower.pipeline import DEFAULT_PIPELINE, PipelineError, override_options

    try:
        pipeline = override_options(DEFAULT_PIPELINE, list(pass_options))
    except PipelineError as exc:
        raise UsageError(str(exc)) from None
    try:
        # line_info: the PTX carries each op's .mlir line (.loc), where races and bad
        # accesses are reported (sim.source_lines); its instructions are those
        # of a compile without it
        result = compile_source(text, path, arch=arch, pipeline=pipeline, line_info=True)
    except CompileFailed as failure:
        print_diagnostics(failure.diagnostics)
        raise UsageError("the kernel does not compile") from None
    manifest = read_manifest(manifest_path) if manifest_path else result.manifest
    return result.ptx, manifest, text


def read_manifest(path: str) -> dict:
    """The launch manifest of one kernel from a JSON file (a file of several, {entry:
    manifest}, must hold one); UsageError naming the file, line and column of bad JSON
    or what is missing. Its agreement with the PTX is api.check_launch's."""
    text = _read_text(path, "manifest")
    try:
        manifest = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") \
            from None
    if not isinstance(manifest, dict):
        raise UsageError(f"{path}: a manifest is a JSON object, not {type(manifest).__name__}")
    if "entry" not in manifest:  # several kernels: {entry: manifest}
        if len(manifest) != 1:
            raise UsageError(f"{path} describes several kernels; the simulator runs one")
        manifest = next(iter(manifest.values()))
        if not isinstance(manifest, dict):
            raise UsageError(f"{path}: a kernel's manifest is a JSON object, not "
                             f"{type(manifest).__name__}")
    missing = [key for key in ("entry", "params") if key not in manifest]
    if missing:
        raise UsageError(f"{path}: the manifest has no {' and no '.join(missing)} "
                         f"(tcgen05-lower --manifest writes them)")
    return manifest


# -- the run ------------------------------------------------------------------------------------
def run(argv=None) -> int:
    args = build_parser().parse_args(argv)
    from tcgen05_lower.sim.state import SimError

    try:
        return _run(args)
    except (UsageError, OSError) as exc:
        print(f"tcgen05-sim: error: {exc}", file=sys.stderr)
        return 1
    except SimError as err:
        print(f"tcgen05-sim: {type(err).__name__}: {err}", file=sys.stderr)
        return 1


def default_check(kernel: str) -> str:
    """The reference of a run without --check: the kernel's sidecar KERNEL.check.py (as
    the examples ship theirs), else gemm."""
    sidecar = Path(kernel).with_suffix(".check.py") if kernel.endswith(".mlir") else None
    return str(sidecar) if sidecar is not None and sidecar.exists() else "gemm"


def _run(args) -> int:
    from tcgen05_lower.sim.api import simulate
    from tcgen05_lower.sim.timing import parse_timing_params

    scalars = parse_settings(args.set)
    grid = parse_grid(args.grid)
    try:
        timing_params = parse_timing_params(args.timing_param)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.check is None:
        args.check = default_check(args.input)
    ptx, manifest, problem, inputs = prepare(args.input, args.check, args.seed, args.arch,
                                             args.manifest, scalars, args.pass_option,
                                             args.max_memory,
                                             probe_outputs=not args.timing_only)
    originals = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    seeds = _schedule_seeds(args)
    if seeds and args.backend == "sim":
        from tcgen05_lower.cli.sim_seeds import run_seeds
        return run_seeds(args, ptx, manifest, problem, inputs, originals, grid, seeds, report)
    if args.backend == "cuda":
        return run_on_gpu(ptx, manifest, problem, inputs, originals)
    timing = (timing_params or True) if (args.timing or args.timing_trace or
                                         args.timing_only) else None
    if args.timing_only:
        return run_timing_only(args, ptx, manifest, inputs, grid, timing)
    trace = open(args.trace, "w") if args.trace else None
    start = time.perf_counter()
    try:
        result = simulate(ptx, manifest, inputs, schedule=args.schedule, trace=trace,
                          progress_stream=sys.stderr, grid=grid, timing=timing,
                          fences=args.fences,
                          max_instructions=args.max_instructions, timeout=args.timeout,
                          functional_only=args.functional_only)
    finally:
        if trace:
            trace.close()
    elapsed = time.perf_counter() - start
    status = report(problem, manifest, originals, result, args.schedule, elapsed)
    if result.timing is not None:
        print(result.timing.summary())
        if args.timing_trace:
            result.timing.write_chrome_trace(args.timing_trace)
            print(f"  timing trace: {args.timing_trace} (chrome://tracing or "
                  "https://ui.perfetto.dev)")
    return status


def _schedule_seeds(args) -> list:
    """The schedule seeds of --schedule random (cli/sim_seeds.py), [] for the other
    schedules; UsageError for --seeds / --runs that do not fit."""
    from tcgen05_lower.cli.sim_seeds import schedule_seeds

    try:
        seeds = schedule_seeds(args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if seeds and (args.timing or args.timing_only or args.timing_trace or args.trace):
        raise UsageError("--schedule random runs without --timing, --timing-only, "
                         "--timing-trace and --trace")
    return seeds


def parse_settings(items) -> dict:
    """``["M=256", "K=64"]`` -> {"M": 256, "K": 64}."""
    settings = {}
    for item in items:
        name, _, value = item.partition("=")
        try:
            settings[name.strip()] = int(value, 0)
        except ValueError:
            raise UsageError(f"--set {item}: expected NAME=INTEGER") from None
    return settings


def parse_grid(text: str | None):
    """``"2,3"`` -> ["2", "3"]; None stays None (the manifest's grid)."""
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise UsageError(f"--grid {text}: expected X[,Y[,Z]], positive integers")
    return parts


def run_on_gpu(ptx, manifest, problem, inputs, originals) -> int:
    """The same inputs and check on a GPU (tcgen05_lower.gpu)."""
    from tcgen05_lower import gpu
    from tcgen05_lower.sim.api import SimResult

    try:
        ran = gpu.launch(ptx, manifest, inputs)
    except gpu.GpuUnavailable as exc:
        print(f"tcgen05-sim: error: {exc}", file=sys.stderr)
        return 1
    result = SimResult(outputs=ran["outputs"], seconds=ran["seconds"])
    return report(problem, manifest, originals, result, "cuda", ran["seconds"])


def main() -> None:
    """The console-script entry point."""
    sys.exit(guarded_main("tcgen05-sim", run))


def main_run() -> None:
    """``tcgen05-run``: the same tool, on the GPU by default (``--backend sim`` for the
    simulator)."""
    argv = sys.argv[1:]
    if not any(a == "--backend" or a.startswith("--backend=") for a in argv):
        argv = [*argv, "--backend", "cuda"]
    sys.exit(guarded_main("tcgen05-run", lambda: run(argv)))


if __name__ == "__main__":
    main()
