"""Reference for tcgen05-sim --check: ws_persistent_gemm_bf16.mlir, C (128 x 1024, f32) =
A x B^T, A (128 x 256, bf16) and B (1024 x 256, bf16) row-major (both K-contiguous, as TMA
loads K-major tiles of them), computed by one CTA as four 128 x 256 tiles in three warp
roles. The kernel writes no synchronization (the default pipeline's tcgen05-insert-sync
writes it), and the tensor maps tmA and tmB are bound by the simulator to A and B:

    tcgen05-sim examples/ws_persistent_gemm_bf16.mlir --check examples/ws_persistent_gemm_bf16.check.py
"""

import numpy as np

BUFFERS = {"A": ("bfloat16", (128, 256)), "B": ("bfloat16", (1024, 256)),
           "C": ("float32", (128, 1024))}


def reference(inputs):
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64).T}


def bound(name, inputs):
    # Summing K = 256 exact bf16 x bf16 products in f32 in any order: |error| <= K * 2^-24
    # * (|A| @ |B^T|) (the gamma_K bound of floating-point summation).
    a, b = (np.abs(inputs[x].astype(np.float64)) for x in "AB")
    return 256 * 2.0 ** -24 * (a @ b.T) + 1e-30, "K*2^-24*(|A||B^T|), K = 256"
