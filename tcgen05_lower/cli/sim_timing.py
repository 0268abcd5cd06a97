"""tcgen05-sim --timing-only: the whole grid's time estimated from cluster (0, 0, 0) and
the first loads of the other clusters (sim/timing/wave.py), without simulating the rest
or checking numerics.
"""

from __future__ import annotations

import sys
import time


class TooManyClusters(Exception):
    """A grid with more clusters than a timing-only estimate walks (refused up front)."""


def estimate_grid(ptx, manifest, inputs, grid=None, timing=True, **options):
    """(result, launch, grid dims, clusters in all, clusters run) of a timing-only run:
    cluster (0, 0, 0) simulated whole and the prefixes of the clusters
    ``timing_only_clusters`` names, the rest replayed (sim/timing/wave.py). `options` go
    to ``simulate`` (schedule, fences, max_instructions, timeout, functional_only,
    progress_stream). SimError for what the simulator refuses; TooManyClusters before
    anything runs for a grid too large."""
    from tcgen05_lower.sim import ptx as P
    from tcgen05_lower.sim.api import grid_of, launch_of, simulate
    from tcgen05_lower.sim.timing import TIMING_ONLY_MAX_CLUSTERS
    from tcgen05_lower.sim.timing.wave import timing_only_clusters

    launch = launch_of(manifest, P.parse(ptx).entry(manifest.get("entry")))
    dims = grid_of(manifest, inputs, launch.cluster_dims, grid)
    gx, gy, gz = (n // c for n, c in zip(dims, launch.cluster_dims))
    total = gx * gy * gz
    if total > TIMING_ONLY_MAX_CLUSTERS:
        raise TooManyClusters(f"--timing-only: the grid {dims} has {total:,} clusters, "
                              f"more than the {TIMING_ONLY_MAX_CLUSTERS:,} a timing-only "
                              f"estimate walks")
    clusters, budget = timing_only_clusters((gx, gy, gz), launch.cluster, timing)
    result = simulate(ptx, manifest, inputs, grid=grid, timing=timing, clusters=clusters,
                      budgets={c: budget for c in clusters[1:]}, **options)
    return result, launch, dims, total, clusters


def run_timing_only(args, ptx, manifest, inputs, grid, timing) -> int:
    """--timing-only: the grid's estimate from cluster (0, 0, 0) and the prefixes of the
    clusters ``timing_only_clusters`` names (every cluster of a one-wave grid, else the
    neighbours along x and y); a grid too large to estimate is refused before anything
    runs."""
    from tcgen05_lower.sim.state import SimError

    start = time.perf_counter()
    try:
        result, launch, dims, total, clusters = estimate_grid(
            ptx, manifest, inputs, grid, timing, schedule=args.schedule,
            progress_stream=sys.stderr, fences=args.fences,
            max_instructions=args.max_instructions, timeout=args.timeout,
            functional_only=args.functional_only)
    except TooManyClusters as exc:
        print(f"tcgen05-sim: error: {exc}", file=sys.stderr)
        return 1
    except SimError as err:
        print(f"tcgen05-sim: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - start
    cluster = launch.cluster
    print(f"tcgen05-sim: {manifest['entry']} ({manifest.get('target', '?')}, "
          f"{manifest['threads']} threads x {total * cluster} CTAs, grid {dims}), timing "
          f"only: {len(clusters)} cluster(s) simulated in {elapsed:.2f} s, numerics not "
          f"checked")
    for race in result.races:
        print(f"  race: {race}")
    for problem_text in result.problems:
        print(f"  at exit: {problem_text}")
    print(result.timing.summary())
    gpu = sum(c.tensor_busy for c in result.timing.clusters) / \
        max(result.timing.cycles * result.timing.sms, 1.0)
    print(f"  the whole GPU's tensor pipes ({result.timing.sms} SMs for the launch's "
          f"{result.timing.cycles:,.0f} cycles): {gpu:.1%} busy")
    if args.timing_trace:
        result.timing.write_chrome_trace(args.timing_trace)
        print(f"  timing trace: {args.timing_trace} (chrome://tracing or "
              "https://ui.perfetto.dev)")
    return 1 if result.races or result.problems else 0
