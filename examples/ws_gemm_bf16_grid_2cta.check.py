"""Reference for tcgen05-sim --check: ws_gemm_bf16_grid_2cta.mlir, the persistent CTA-pair
GEMM C (M x N, f32) = A x B^T, A (M x K) and B (N x K) bf16 row-major, on a grid of
`ctas` CTAs (a multiple of the cluster's; by default one per two tiles, at most one per
SM) that walk the 256 x 256 tiles in the order `raster` chooses. Sizes from SCALARS (odd on purpose: edge tiles in M, N and K) or the
command line:

    tcgen05-sim examples/ws_gemm_bf16_grid_2cta.mlir --check examples/ws_gemm_bf16_grid_2cta.check.py \\
        --set M=520 --set N=776 --set K=200

K must be a multiple of 8 (TMA's global strides are multiples of 16 bytes). The tensor
maps tmA and tmB are bound by the simulator to A and B (docs/tma.md). C is compared in
full: an element the kernel leaves unwritten stays NaN."""

import numpy as np

SCALARS = {"M": 300, "N": 520, "K": 136, "raster": 0}
#: One CTA per SM of a B200 at most (a persistent grid).
SMS = 148


def derived(s):
    # The persistent grid: a CTA pair per three 256 x 256 tiles (so that a pair walks
    # three tiles and reuses an accumulator stage: every inserted synchronization op is
    # then needed), a multiple of 4 CTAs (whole 2 x 1, 2 x 2 and 4 x 1 clusters), at most
    # one CTA per SM.
    tiles = -(-s["M"] // 256) * -(-s["N"] // 256)
    return {"ctas": min(SMS, 4 * -(-tiles // 6))}


def BUFFERS(s):
    return {"A": ("bfloat16", (s["M"], s["K"])), "B": ("bfloat16", (s["N"], s["K"])),
            "C": ("float32", (s["M"], s["N"]))}


def reference(inputs):
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64).T}


def bound(name, inputs):
    # Summing K exact bf16 x bf16 products in f32 in any order: |error| <= K * 2^-24 *
    # (|A| @ |B^T|) (the gamma_K bound of floating-point summation); the zeros TMA loads
    # past K add nothing.
    a, b = (np.abs(inputs[x].astype(np.float64)) for x in "AB")
    k = inputs["K"]
    return k * 2.0 ** -24 * (a @ b.T) + 1e-30, f"K*2^-24*(|A||B^T|), K = {k}"
