"""A sweep of the warp-specialized persistent GEMM (examples/ws_persistent_gemm_bf16.mlir
on one CTA, examples/ws_gemm_2cta_bf16.mlir on a CTA pair) over its tile N, the depth of
its shared-memory ring and 1 or 2 CTAs:

    tcgen05-sweep examples/sweep_ws_gemm.py --grid N=32,64,128,256 --grid stages=2,3,4 \\
        --grid ctas=1,2 --jobs 2 -o benchmarks/sweep/REPORT.md \\
        --csv benchmarks/sweep/results.csv --plot benchmarks/sweep/plot.svg \\
        --x stages --series N,ctas --metric utilisation

The problem is the examples' own, so their check files are the references: on one CTA
C (128 x 1024) = A (128 x 256) x B^T, on a pair C (256 x 512) (the same 2^25
multiply-adds); K = 256 in four blocks of 64. The kernel is built in Python (``kernel``:
the example's twin, examples/python/ws_persistent_gemm_bf16.py, at N and the CTA count).
A tile is 128 x N on one CTA, 256 x N on a pair (each CTA holding N/2 rows of B,
docs/cta-pairs.md); the tiles are the persistent loop's, so a smaller N means more tiles.
The ring depth is tcgen05-insert-sync's ``ring-stages`` option: the kernel is written for
4 stages and the pass resizes the rings (README, "ring-stages=N"); 6 stages of N = 256 on
one CTA need 288 KiB of shared memory, more than a CTA has, and that point fails to
compile (a row of the table, not an error).
"""

import os
import runpy

HERE = os.path.dirname(os.path.abspath(__file__))

#: The reference of each CTA count (tcgen05-sim --check files).
CHECKS = {1: os.path.join(HERE, "ws_persistent_gemm_bf16.check.py"),
          2: os.path.join(HERE, "ws_gemm_2cta_bf16.check.py")}


def _twin():
    """examples/python/ws_persistent_gemm_bf16.py, the example built from Python, whose
    ``build`` takes the tile's N and the CTA count (its defaults give the example)."""
    # Run by a path relative to the working directory: the builder locates each op at
    # that file's lines, and a failed point's message names them as a command line would.
    path = os.path.relpath(os.path.join(HERE, "python", "ws_persistent_gemm_bf16.py"))
    return runpy.run_path(path, run_name="ws_persistent_gemm_bf16_twin")


def kernel(N: int, ctas: int):
    """The GEMM with tiles of N columns on `ctas` CTAs (1 or 2): a KernelBuilder (its
    4-stage ring resized by the pass option of :func:`build`). C promises 16-byte
    alignment, as in the example: it is a whole buffer (cuMemAlloc, or the simulator's
    arrays), so the epilogue stores 16 bytes at a time."""
    return _twin()["build"](f"ws_gemm_n{N}_ctas{ctas}", tile_n=N, ctas=ctas)


def build(N=256, stages=4, ctas=1):
    """The kernel of one point and its ring depth (tcgen05-insert-sync's option)."""
    return kernel(N, ctas), [f"tcgen05-insert-sync{{ring-stages={stages}}}"]


def check(N=256, stages=4, ctas=1):
    """The reference of one point: the example's check file for its CTA count."""
    return CHECKS[ctas]
