"""A sweep of the flagship GEMM (examples/ws_gemm_bf16_grid_2cta.mlir, built by its Python
twin examples/python/ws_gemm_bf16_grid_2cta.py) over tile N x ring depth x cluster shape
x 1 or 2 CTAs a tile:

    tcgen05-sweep examples/sweep_flagship.py --grid N=64,128,256 --grid stages=2,3,4 \\
        --grid cluster=1x1,2x1,1x2 --grid cta_group=1,2 --jobs 2 \\
        -o benchmarks/sweep/FLAGSHIP.md --csv benchmarks/sweep/flagship.csv \\
        --plot benchmarks/sweep/flagship.svg --x stages --series cluster,cta_group \\
        --panel N --metric gpu_utilisation

The parameters: ``N`` the tile's columns (an MMA's N); ``stages`` the TMA ring's depth;
``cluster`` the tiles of a cluster along M x N ("2x1": two tiles along M sharing their B
rows, B multicast along x; "1x2": two along N sharing A rows, A multicast along y), so
that a cluster is (tiles along M x cta_group) x (tiles along N) CTAs; ``cta_group`` 1 (a
CTA computes 128 x N tiles with cta_group::1 MMAs) or 2 (a CTA pair computes 256 x N
tiles with cta_group::2 MMAs, docs/cta-pairs.md). The accumulator is double-buffered at
every point.

Each point runs twice in the simulator:

- the check, at CHECK_SIZE (M, N, K odd multiples of 8 past every tile edge: edge tiles
  in M, N and K), on a persistent grid where each cluster walks up to three tiles (so
  both accumulator stages are reused and every inserted synchronization op is needed),
  with race detection, against the check file's float64 reference;
- the timing estimate, timing-only at TIMING_SIZE (4096 x 4096 x 512) on the
  persistent grid of a whole B200 (148 SMs: 148 CTAs, or 74 pairs, in whole clusters):
  large enough that every SM has work and walks several tiles (at least 3 of the
  largest, 256 x 256, so the accumulator's double buffering shows) and that the K loop
  (8 blocks) is longer than the deepest ring swept (so the ring's depth shows); small
  enough that the simulated cluster runs in seconds (its cost is one cluster's share of
  the product, about 1/74 of it, where the flagship's 8192^3 estimate took 1,047 s,
  docs/timing.md). Every point computes the same product there, so their times
  compare directly; ``gpu_utilisation`` is the tensor pipes' busy share of the whole GPU
  for that time.

A point the compiler refuses for a feature it does not have yet gets the status "not
supported yet" with its diagnostic; shared memory refuses the rings that do not fit a CTA
(227 KiB).
"""

import os
import runpy

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "ws_gemm_bf16_grid_2cta.check.py")

#: The check's problem: odd sizes, every dimension past a tile edge (K: past a K block).
CHECK_SIZE = {"M": 264, "N": 280, "K": 136}
#: The timing estimate's problem (see the module docstring).
TIMING_SIZE = {"M": 4096, "N": 4096, "K": 512}
#: The SMs of a B200 (one CTA each in the persistent grid).
SMS = 148
#: Tiles a cluster walks in the check run at most.
CHECK_TILES_PER_CLUSTER = 3


def _twin():
    # Run by a path relative to the working directory: the builder locates each op at
    # that file's lines, and a failed point's message names them as a command line would.
    path = os.path.relpath(os.path.join(HERE, "python", "ws_gemm_bf16_grid_2cta.py"))
    return runpy.run_path(path, run_name="ws_gemm_bf16_grid_2cta_twin")


def tiles_of(cluster: str) -> tuple:
    """"2x1" -> (2, 1): the cluster's tiles along M and N."""
    tx, _, ty = str(cluster).partition("x")
    return int(tx), int(ty)


def build(N=256, stages=4, cluster="1x1", cta_group=2):
    """The flagship at one point (a KernelBuilder)."""
    tx, ty = tiles_of(cluster)
    name = f"flagship_n{N}_s{stages}_c{tx}x{ty}_g{cta_group}"
    return _twin()["build"](name, tile_n=N, ring=stages, cluster=(tx, ty),
                            cta_group=cta_group)


def ceildiv(a: int, b: int) -> int:
    return -(-a // b)


def cluster_tiles(size: dict, N, cluster, cta_group) -> int:
    """The cluster tiles of a problem of `size`: tiles of (128 cta_group) x N, grouped
    by the cluster's tiles along M and N."""
    tx, ty = tiles_of(cluster)
    return ceildiv(ceildiv(size["M"], 128 * cta_group), tx) * ceildiv(ceildiv(size["N"], N), ty)


def grid_ctas(size: dict, N, cluster, cta_group, most_clusters: int) -> int:
    """The kernel's ``ctas`` for a problem of `size`: whole clusters, as many as there
    are cluster tiles, at most `most_clusters`."""
    tx, ty = tiles_of(cluster)
    clusters = max(1, min(most_clusters, cluster_tiles(size, N, cluster, cta_group)))
    return clusters * tx * cta_group * ty


def check(N=256, stages=4, cluster="1x1", cta_group=2):
    """The check file and its sizes at CHECK_SIZE: each cluster walks up to three tiles."""
    clusters = ceildiv(cluster_tiles(CHECK_SIZE, N, cluster, cta_group),
                       CHECK_TILES_PER_CLUSTER)
    return CHECK, {**CHECK_SIZE, "raster": 0,
                   "ctas": grid_ctas(CHECK_SIZE, N, cluster, cta_group, clusters)}


def timing_sizes(size: dict, N, cluster, cta_group) -> dict:
    """The scalars of a timing-only estimate of a problem of `size` on a whole B200's
    persistent grid (one CTA per SM, whole clusters, no more clusters than cluster
    tiles)."""
    tx, ty = tiles_of(cluster)
    most = SMS // (tx * cta_group * ty)
    return {**size, "raster": 0, "ctas": grid_ctas(size, N, cluster, cta_group, most)}


def timing_only(N=256, stages=4, cluster="1x1", cta_group=2):
    """The sizes of the timing estimate: TIMING_SIZE on a whole B200's persistent grid."""
    return timing_sizes(TIMING_SIZE, N, cluster, cta_group)
