"""Simulation speed: simulated warp instructions per second of tcgen05-sim.

    python benchmarks/sim/speed.py                       # the 128x256x64 example, 5 repeats
    python benchmarks/sim/speed.py examples/gemm_bf16_kloop.mlir --repeats 3
    python benchmarks/sim/speed.py --schedule eager

Each kernel is compiled once with the default pipeline and simulated ``--repeats`` times
on the same random inputs (tcgen05_lower.cli.sim.prepare); the report gives the median
wall time of a simulation (parsing the PTX, setting up the machine, running it, the
ordering model's finish) and the median rate of warp instructions per second (a warp
instruction: one instruction executed by one warp, guarded-off warps included). The
result is checked against NumPy each time, so a fast wrong simulation does not count.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

import numpy as np

from tcgen05_lower.cli.sim import prepare
from tcgen05_lower.sim.api import simulate

DEFAULT = "examples/gemm_bf16_128x256.mlir"


def measure(path: str, check: str, repeats: int, schedule: str) -> dict:
    ptx, manifest, problem, inputs = prepare(path, check)
    times, rates, counts = [], [], set()
    for _ in range(repeats):
        args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
        start = time.perf_counter()
        result = simulate(ptx, manifest, args, schedule=schedule)
        elapsed = time.perf_counter() - start
        for name, want in problem.reference(inputs).items():
            ok, *_ = problem.tolerance(name, result.outputs[name], want, inputs)
            if not ok:
                raise SystemExit(f"{path}: {name} does not match NumPy")
        if result.races or result.problems:
            raise SystemExit(f"{path}: races or problems at exit: {result.races} "
                             f"{result.problems}")
        times.append(elapsed)
        rates.append(result.warp_instructions / elapsed)
        counts.add(result.warp_instructions)
    return {"kernel": path, "warp_instructions": sorted(counts), "median_s": statistics.median(times),
            "min_s": min(times), "median_rate": statistics.median(rates)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", nargs="*", default=[DEFAULT])
    parser.add_argument("--check", default="gemm")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--schedule", default="late", choices=["late", "eager"])
    args = parser.parse_args(argv)
    print(f"# tcgen05-sim speed ({platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, NumPy {np.__version__}, "
          f"schedule {args.schedule}, median of {args.repeats})")
    print("| kernel | warp instructions | median time (s) | min time (s) | "
          "warp instructions / s |")
    print("|---|---:|---:|---:|---:|")
    for path in args.kernels:
        r = measure(path, args.check, args.repeats, args.schedule)
        print(f"| {r['kernel']} | {'/'.join(map(str, r['warp_instructions']))} | "
              f"{r['median_s']:.3f} | {r['min_s']:.3f} | {r['median_rate']:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
