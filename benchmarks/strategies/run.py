"""Regenerates benchmarks/strategies/REPORT.md: tcgen05-compare's default grid over every
example, the warp-specialized TMA pipeline of tests/kernels and every TMEM-corpus kernel.

    python benchmarks/strategies/run.py -o benchmarks/strategies/REPORT.md [--jobs N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from tcgen05_lower.cli.compare import (DEFAULT_GRID, combinations, compare, format_rows)
from tcgen05_lower.sim.timing import PARAMETERS

ROOT = Path(__file__).resolve().parents[2]
#: The 4-stage warp-specialized TMA pipeline (tests/test_timing_ws.py ranks it).
WS_PIPELINE = ROOT / "tests" / "kernels" / "ws_gemm_bf16_tma_4stage.mlir"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    args = parser.parse_args(argv)
    kernels = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").glob("*.mlir")) + \
        [str(WS_PIPELINE.relative_to(ROOT))] + sorted(str(p.relative_to(ROOT)) for p in
               (ROOT / "benchmarks" / "tmem" / "corpus").glob("*.mlir"))
    os.chdir(ROOT)
    start = time.perf_counter()
    rows = compare(kernels, DEFAULT_GRID, args.jobs)
    seconds = time.perf_counter() - start
    grid = ", ".join(f"{p} {o} in {{{', '.join(v)}}}" for p, o, v in DEFAULT_GRID)
    head = [
        "# Strategies compared: TMEM, sync ops, registers and estimated cycles", "",
        "Regenerate with `python benchmarks/strategies/run.py -o "
        "benchmarks/strategies/REPORT.md` (the default grid of `tcgen05-compare`, over "
        "every example, the warp-specialized TMA pipeline of tests/kernels and every "
        "TMEM-corpus kernel; kernels that write their own synchronization are compiled "
        "with insert-sync `none` and verify-sync checking their roles, `partitions=check`).", "",
        f"Grid: {grid} ({len(combinations(DEFAULT_GRID))} combinations; "
        "a combination reads plan-tmem / select-layouts / insert-sync).", "",
        "Columns: TMEM columns allocated; the sync ops tcgen05-insert-sync added, by kind; "
        "PTX instructions; registers and spill bytes (`ptxas -v`); whether the simulated "
        "outputs are bit-identical to the first combination that ran (which is also checked "
        "against NumPy where the kernel has a check); the timing model's estimated cycles "
        f"(at {PARAMETERS['clock_ghz'].value} GHz) and tensor-pipe busy fraction. The "
        "timing model (`tcgen05_lower/sim/timing.py`, docs/strategies.md) is "
        "for ranking strategies of one kernel, not for absolute cycles. Corpus kernels "
        "have no NumPy check: they run on random 1 MiB buffers with integer arguments 1; "
        "kernels the simulator cannot run (sparse metadata never written, forms not "
        "modelled) show why in the note.", "",
        f"{len(rows)} rows in {seconds:.0f} s with {args.jobs} processes.", ""]
    text = "\n".join(head) + "\n" + format_rows(rows, "markdown")
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
