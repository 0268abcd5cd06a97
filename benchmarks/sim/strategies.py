"""Strategy differential in the simulator (issue 11, point 2): every corpus kernel that
compiles is simulated under every combination of tcgen05-plan-tmem (first-fit, optimal,
no-reuse), tcgen05-select-layouts (max-width, register-budget=32) and tcgen05-insert-sync
(minimal, conservative) strategies, on the same random inputs, under the late schedule
(combinations that compile to the same PTX and manifest are simulated once).
Every combination must run race-free and leave every global buffer bit-identical to the
first combination's (the MMAs and their order do not depend on the strategies; only where
and when data sits and moves does).

    python benchmarks/sim/strategies.py [-o REPORT.md] [KERNEL.mlir ...]

Global buffers are sized generously (1 MiB each, filled with random bf16 values): the
corpus kernels' matrix shapes live in their fills, not in their signatures. Kernels whose
forms the tensor-core model does not cover yet are listed with the reason."""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np

from tcgen05_lower.driver import CompileFailed, compile_source
from tcgen05_lower.pipeline import DEFAULT_PIPELINE
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.state import SimError

ROOT = Path(__file__).resolve().parents[2]
PLAN = ("first-fit", "optimal", "no-reuse")
LAYOUTS = ("max-width", "register-budget=32")
SYNC = ("minimal", "conservative")
COMBOS = list(itertools.product(PLAN, LAYOUTS, SYNC))
BUFFER_BYTES = 1 << 20


def pipeline(plan: str, layouts: str, sync: str) -> str:
    return (DEFAULT_PIPELINE
            .replace("tcgen05-plan-tmem", f"tcgen05-plan-tmem{{strategy={plan}}}")
            .replace("tcgen05-select-layouts", f"tcgen05-select-layouts{{strategy={layouts}}}")
            .replace("tcgen05-insert-sync,", f"tcgen05-insert-sync{{strategy={sync}}},"))


def inputs_for(manifest: dict, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    args = {}
    for param in manifest["params"]:
        if not param.get("pointer"):
            args[param["name"]] = 1   # a flag or a trip count: the smallest that runs
            continue
        values = rng.uniform(-1, 1, BUFFER_BYTES // 2).astype(ml_dtypes.bfloat16)
        args[param["name"]] = values.view(np.uint8).copy()
    return args


def run(text: str, name: str, combo, simulated: dict | None = None) -> dict | str:
    """The global buffers after the run, or why the combination could not run.
    `simulated` maps (PTX, manifest) to an earlier combination's outcome: combinations
    that compile to the same PTX and manifest are simulated once (the inputs are the same
    and the simulator is deterministic, so a second run could only repeat the first)."""
    try:
        result = compile_source(text, name, pipeline=pipeline(*combo))
    except CompileFailed as failure:
        return "does not compile: " + failure.diagnostics[0].message.splitlines()[0][:100]
    if simulated is None:
        return _simulate(result)
    key = (result.ptx, json.dumps(result.manifest, sort_keys=True))
    if key not in simulated:
        simulated[key] = _simulate(result)
    return simulated[key]


def _simulate(result) -> dict | str:
    try:
        run_ = simulate(result.ptx, result.manifest, inputs_for(result.manifest), "late")
    except SimError as error:
        return "simulator: " + error.message.splitlines()[0][:100]
    if run_.races:
        return "RACE: " + run_.races[0].message[:120]
    if run_.problems:
        return "AT EXIT: " + run_.problems[0][:200]
    return run_.outputs


def differential(path: Path) -> tuple[str, str]:
    """(verdict, detail): "same" (all combinations bit-identical and race-free),
    "skipped" (the reference combination cannot run: a form not modelled, data the ISA
    leaves undefined, or planning rejects the kernel) or "DIFFERENT"/"FAILED"."""
    text = path.read_text()
    reference, ran, refused, simulated = None, 0, [], {}
    for combo in COMBOS:
        got = run(text, str(path), combo, simulated)
        if isinstance(got, str):
            if got.startswith("does not compile"):
                refused.append(f"{'/'.join(combo)} ({got})")
                continue  # e.g. first-fit over-subscribes where optimal fits
            if "not modelled yet" in got:
                return "skipped", got   # the same forms in every combination
            if "with undefined behavior" in got or "no tcgen05 operation wrote" in got:
                # the kernel's own data leaves the result undefined (e.g. sparse metadata
                # it never writes, all zero; TMEM it reads before any op wrote it,
                # docs/memory-model.md): nothing to compare in any combination
                return "skipped", got
            return "FAILED", f"{'/'.join(combo)}: {got}"
        ran += 1
        if reference is None:
            reference = got   # the first combination that compiles is the reference
            continue
        for key, want in reference.items():
            if not np.array_equal(got[key], want):
                return "DIFFERENT", f"{'/'.join(combo)}: buffer {key} differs"
    if reference is None:
        return "skipped", refused[0].split(" (", 1)[1].rstrip(")")
    detail = (f"{ran} of {len(COMBOS)} combinations ran, bit-identical ({len(simulated)} "
              f"distinct PTX simulated)")
    if refused:
        detail += "; not compiled: " + "; ".join(refused)[:200]
    return ("same" if ran > 1 else "skipped"), detail


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*")
    parser.add_argument("-o", "--output")
    args = parser.parse_args(argv)
    paths = [Path(k) for k in args.kernels] or \
        sorted((ROOT / "benchmarks" / "tmem" / "corpus").glob("*.mlir"))
    rows, bad = [], 0
    for path in paths:
        start = time.perf_counter()
        verdict, detail = differential(path)
        bad += verdict in ("DIFFERENT", "FAILED")
        rows.append(f"| {path.name} | {verdict} | {detail} | {time.perf_counter() - start:.1f} |")
        print(rows[-1], file=sys.stderr)
    report = ["# Strategy differential in the simulator", "",
              "`python benchmarks/sim/strategies.py -o benchmarks/sim/STRATEGIES.md`: every "
              "combination of plan-tmem x select-layouts x insert-sync strategies "
              f"({len(COMBOS)}), same inputs, late schedule.", "",
              "| kernel | verdict | detail | seconds |", "|---|---|---|---:|", *rows, ""]
    text = "\n".join(report)
    if args.output:
        Path(args.output).write_text(text)
    else:
        print(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
