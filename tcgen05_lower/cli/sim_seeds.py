"""tcgen05-sim --schedule random: one run per schedule seed, a report per seed and a
summary (tcgen05_lower/sim/schedule.py draws the schedules)."""

from __future__ import annotations

import sys
import time

import numpy as np


def schedule_seeds(args) -> list[int]:
    """The schedule seeds of a --schedule random run: --seeds, else --runs seeds from
    --seed on. ValueError for --seeds / --runs without --schedule random, or bad ones."""
    from tcgen05_lower.sim.schedule import parse_seeds

    if args.schedule != "random":
        if args.seeds is not None or args.runs != 1:
            raise ValueError("--seeds and --runs are for --schedule random")
        return []
    if args.runs < 1:
        raise ValueError(f"--runs {args.runs}: at least one run")
    if args.seeds is not None:
        if args.runs != 1:
            raise ValueError("give --seeds or --runs, not both")
        return parse_seeds(args.seeds)
    return list(range(args.seed, args.seed + args.runs))


def run_seeds(args, ptx, manifest, problem, inputs, originals, grid, seeds, report) -> int:
    """Runs the kernel once per schedule seed on the same inputs (--seed's), reports each
    run with `report` (cli/sim.py) and a summary: how many seeds found a race, an error
    (a deadlock, ...), a problem at exit or a mismatch, and the first failing seed. Exit
    status 1 when any seed failed."""
    from tcgen05_lower.sim.api import simulate
    from tcgen05_lower.sim.state import SimError

    failed = {"race": [], "error": [], "at exit": [], "mismatch": []}
    first = None
    for seed in seeds:
        args_copy = {k: (v.copy() if isinstance(v, np.ndarray) else v)
                     for k, v in inputs.items()}
        start = time.perf_counter()
        try:
            result = simulate(ptx, manifest, args_copy, schedule="random", seed=seed,
                              progress_stream=sys.stderr, grid=grid,
                              fences=getattr(args, "fences", "canonical"),
                              max_instructions=args.max_instructions, timeout=args.timeout)
        except SimError as err:
            print(f"tcgen05-sim: schedule random (seed {seed}): {type(err).__name__}: {err}")
            failed["error"].append(seed)
            first = seed if first is None else first
            continue
        status = report(problem, manifest, originals, result, f"random (seed {seed})",
                        time.perf_counter() - start)
        if status == 0:
            continue
        first = seed if first is None else first
        kind = "race" if result.races else "at exit" if result.problems else "mismatch"
        failed[kind].append(seed)
    print(summary(seeds, failed, first))
    return 1 if first is not None else 0


def summary(seeds: list[int], failed: dict, first) -> str:
    """One line: the seeds run, how many failed and how, the first failing seed."""
    span = f"{seeds[0]}-{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1)) \
        else ",".join(map(str, seeds))
    bad = sum(len(v) for v in failed.values())
    if not bad:
        return f"tcgen05-sim: {len(seeds)} random schedules (seeds {span}): all OK"
    kinds = ", ".join(f"{len(v)} {kind}" for kind, v in failed.items() if v)
    return (f"tcgen05-sim: {len(seeds)} random schedules (seeds {span}): {bad} failed "
            f"({kinds}); first failing seed {first}")
