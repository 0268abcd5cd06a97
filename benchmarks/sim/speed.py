"""Simulation speed: simulated warp instructions per second of tcgen05-sim.

    python benchmarks/sim/speed.py                       # the 128x256x64 example, 5 repeats
    python benchmarks/sim/speed.py examples/gemm_bf16_kloop.mlir --repeats 3
    python benchmarks/sim/speed.py --schedule eager
    python benchmarks/sim/speed.py --warp-specialized --baseline /path/to/other/checkout
    python benchmarks/sim/speed.py --warp-specialized --functional-only

Each kernel is compiled once with the default pipeline and simulated ``--repeats`` times
on the same random inputs (tcgen05_lower.cli.sim.prepare); the report gives the median
wall time of a simulation (parsing the PTX, setting up the machine, running it, the
ordering model's finish), the median CPU time of the process over it (what the run cost
when other processes share the cores: wall time then includes waiting for one) and the
median rate of warp instructions per CPU second (a warp instruction: one instruction
executed by one warp, guarded-off warps included). The result is checked against NumPy
each time, so a fast wrong simulation does not count. A first run, not counted, warms up
imports; each run builds its MMAs anew (the cache of built MMAs belongs to the run's
machine, executor.Machine.issue_kwargs).

``--warp-specialized``: the three warp-specialized TMA kernels (examples/ws_*.mlir with
their check files) and the hand-synchronized ws_gemm_bf16. ``--baseline DIR``: every
repeat also runs with the simulator of the checkout DIR (this script in a subprocess with
DIR first on the path), alternating with this checkout's, so that both see the same load;
the table then has both and the ratio of their median CPU times.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

DEFAULT = "examples/gemm_bf16_128x256.mlir"
#: Kernel -> (check, pass options): the warp-specialized examples (docs/warp-roles.md).
WARP_SPECIALIZED = {
    "examples/ws_persistent_gemm_bf16.mlir": ("examples/ws_persistent_gemm_bf16.check.py", ()),
    "examples/ws_gemm_2cta_bf16.mlir": ("examples/ws_gemm_2cta_bf16.check.py", ()),
    "examples/ws_gemm_bf16_auto.mlir": ("examples/ws_gemm_bf16_auto.check.py", ()),
    "examples/ws_gemm_bf16.mlir": ("examples/ws_gemm_bf16.check.py",
                                   ("tcgen05-insert-sync{strategy=none}",)),
}


def run_once(ptx, manifest, problem, inputs, path, schedule, seed, functional_only) -> dict:
    from tcgen05_lower.sim.api import simulate

    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    options = {"schedule": schedule}
    if seed is not None:
        options["seed"] = seed
    if functional_only:
        options["functional_only"] = True
    start, cpu = time.perf_counter(), time.process_time()
    result = simulate(ptx, manifest, args, **options)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    for name, want in problem.reference(inputs).items():
        ok, *_ = problem.tolerance(name, result.outputs[name], want, inputs)
        if not ok:
            raise SystemExit(f"{path}: {name} does not match NumPy")
    if result.races or result.problems:
        raise SystemExit(f"{path}: races or problems at exit: {result.races} "
                         f"{result.problems}")
    return {"seconds": elapsed, "cpu": cpu, "warp_instructions": result.warp_instructions}


def _prepare(path, check, pass_options):
    from tcgen05_lower.cli.sim import prepare

    return prepare(path, check, pass_options=tuple(pass_options))


def _baseline_once(directory, path, check, pass_options, schedule, seed) -> dict:
    """One run with the simulator of checkout `directory` (this script, --worker)."""
    env = dict(os.environ, PYTHONPATH=str(Path(directory).resolve()))
    command = [sys.executable, __file__, path, "--check", check, "--schedule", schedule,
               "--worker"] + [f"--pass-option={p}" for p in pass_options] + \
        (["--seed", str(seed)] if seed is not None else [])
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"baseline run failed: {out.stderr.strip()}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(path, check, pass_options, repeats, schedule, seed, functional_only,
            baseline=None) -> dict:
    ptx, manifest, problem, inputs = _prepare(path, check, pass_options)
    # a first run, not counted: imports and caches warm up (the baseline's worker too)
    run_once(ptx, manifest, problem, inputs, path, schedule, seed, functional_only)
    mine, theirs = [], []
    for index in range(repeats):
        runs = [lambda: mine.append(run_once(ptx, manifest, problem, inputs, path, schedule,
                                             seed, functional_only))]
        if baseline:
            runs.append(lambda: theirs.append(_baseline_once(baseline, path, check,
                                                             pass_options, schedule, seed)))
        for run in (runs if index % 2 == 0 else runs[::-1]):   # alternate who goes first
            run()
    return {"kernel": path, "mine": _summary(mine), "baseline": _summary(theirs)}


def _summary(runs: list) -> dict | None:
    if not runs:
        return None
    return {"warp_instructions": sorted({r["warp_instructions"] for r in runs}),
            "median_s": statistics.median(r["seconds"] for r in runs),
            "median_cpu": statistics.median(r["cpu"] for r in runs),
            "min_cpu": min(r["cpu"] for r in runs),
            "median_rate": statistics.median(r["warp_instructions"] / r["cpu"]
                                             for r in runs)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", nargs="*")
    parser.add_argument("--check", default="gemm")
    parser.add_argument("--pass-option", action="append", default=[], metavar="PASS{OPTIONS}")
    parser.add_argument("--warp-specialized", action="store_true",
                        help="the warp-specialized examples, each with its check file")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--schedule", default="late", choices=["late", "eager", "random"])
    parser.add_argument("--seed", type=int, default=None,
                        help="the schedule seed of --schedule random")
    parser.add_argument("--functional-only", action="store_true",
                        help="simulate(functional_only=True): no race detection")
    parser.add_argument("--baseline", metavar="DIR",
                        help="also run every repeat with the checkout DIR's simulator")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.schedule == "random" and args.seed is None:
        args.seed = 0
    if args.worker:   # one run for --baseline, as JSON on stdout
        path = args.kernels[0]
        ptx, manifest, problem, inputs = _prepare(path, args.check, args.pass_option)
        run_once(ptx, manifest, problem, inputs, path, args.schedule, args.seed, False)
        print(json.dumps(run_once(ptx, manifest, problem, inputs, path, args.schedule,
                                  args.seed, False)))
        return 0
    jobs = [(k, args.check, args.pass_option) for k in args.kernels]
    if args.warp_specialized:
        jobs += [(k, check, options) for k, (check, options) in WARP_SPECIALIZED.items()]
    jobs = jobs or [(DEFAULT, args.check, args.pass_option)]
    schedule = args.schedule + (f" (seed {args.seed})" if args.schedule == "random" else "")
    print(f"# tcgen05-sim speed ({platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, NumPy {np.__version__}, "
          f"schedule {schedule}{', functional only' if args.functional_only else ''}, "
          f"median of {args.repeats}{', load average %.1f' % os.getloadavg()[0]})")
    if args.baseline:
        print("| kernel | warp instructions | baseline CPU (s) | CPU (s) | speed-up (CPU) | "
              "baseline wall (s) | wall (s) | warp instructions / CPU s |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
    else:
        print("| kernel | warp instructions | median wall (s) | median CPU (s) | min CPU (s) | "
              "warp instructions / CPU s |")
        print("|---|---:|---:|---:|---:|---:|")
    for path, check, options in jobs:
        r = measure(path, check, options, args.repeats, args.schedule, args.seed,
                    args.functional_only, args.baseline)
        mine, base = r["mine"], r["baseline"]
        count = "/".join(map(str, mine["warp_instructions"]))
        if base:
            print(f"| {path} | {count} | {base['median_cpu']:.3f} | {mine['median_cpu']:.3f} | "
                  f"{base['median_cpu'] / mine['median_cpu']:.1f}x | {base['median_s']:.3f} | "
                  f"{mine['median_s']:.3f} | {mine['median_rate']:,.0f} |", flush=True)
        else:
            print(f"| {path} | {count} | {mine['median_s']:.3f} | {mine['median_cpu']:.3f} | "
                  f"{mine['min_cpu']:.3f} | {mine['median_rate']:,.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
