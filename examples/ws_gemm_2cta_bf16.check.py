"""Reference for tcgen05-sim --check: ws_gemm_2cta_bf16.mlir, C (256 x 512, f32) = A x B^T,
A (256 x 256, bf16) and B (512 x 256, bf16) row-major (both K-contiguous, as TMA loads
K-major tiles of them), computed by a CTA pair (a cluster of 2) as four 256 x 128 tiles in
three warp roles per CTA. Each CTA loads, and stores, only its own slice (rows 128 r .. of
A and C, rows 64 r .. of each tile's B rows), so a split that disagreed with the M = 256
MMA's would leave wrong rows or columns of C. The kernel writes no synchronization (the
default pipeline's tcgen05-insert-sync writes it), and the tensor maps tmA and tmB are
bound by the simulator to A and B:

    tcgen05-sim examples/ws_gemm_2cta_bf16.mlir --check examples/ws_gemm_2cta_bf16.check.py

tests/kernels/ws_gemm_2cta_bf16_hand.mlir, the same kernel synchronized by hand, takes it
with --pass-option 'tcgen05-insert-sync{strategy=none}' (docs/cta-pairs.md).
"""

import numpy as np

BUFFERS = {"A": ("bfloat16", (256, 256)), "B": ("bfloat16", (512, 256)),
           "C": ("float32", (256, 512))}


def reference(inputs):
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64).T}


def bound(name, inputs):
    # Each element is a sum of K = 256 bf16 x bf16 products, each exact in f32 (8-bit
    # significands: a 16-bit product), accumulated in f32 in some order: by the standard
    # bound of recursive summation, |error| <= (K - 1) u / (1 - (K - 1) u) * sum |a||b|
    # <= K * 2^-24 * (|A| @ |B^T|) with u = 2^-24 (f32 round to nearest).
    a, b = (np.abs(inputs[x].astype(np.float64)) for x in "AB")
    return 256 * 2.0 ** -24 * (a @ b.T) + 1e-30, "K*2^-24*(|A||B^T|), K = 256"
