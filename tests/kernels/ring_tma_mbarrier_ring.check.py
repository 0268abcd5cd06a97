"""Reference for tests/kernels/ring_tma_mbarrier_ring.mlir: C (128 x 256, f32) = A x B^T,
A (128 x 512, bf16) and B (256 x 512, bf16) row-major."""

import numpy as np

BUFFERS = {"A": ("bfloat16", (128, 512)), "B": ("bfloat16", (256, 512)),
           "C": ("float32", (128, 256))}


def reference(inputs):
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64).T}


def bound(name, inputs):
    # Summing K = 512 exact bf16 x bf16 products in f32 in any order: |error| <= K * 2^-24
    # * (|A| @ |B^T|) (the gamma_K bound of floating-point summation).
    a, b = (np.abs(inputs[x].astype(np.float64)) for x in "AB")
    return 512 * 2.0 ** -24 * (a @ b.T) + 1e-30, "K*2^-24*(|A||B^T|), K = 512"
