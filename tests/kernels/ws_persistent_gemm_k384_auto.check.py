"""Reference for tests/kernels/ws_persistent_gemm_k384_auto.mlir: C (128 x 768, f32) =
A x B^T, A (128 x 384, bf16) and B (768 x 384, bf16) row-major, three 128 x 256 tiles."""

import numpy as np

BUFFERS = {"A": ("bfloat16", (128, 384)), "B": ("bfloat16", (768, 384)),
           "C": ("float32", (128, 768))}


def reference(inputs):
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64).T}


def bound(name, inputs):
    # Summing K = 384 exact bf16 x bf16 products in f32 in any order: |error| <= K * 2^-24
    # * (|A| @ |B^T|) (the gamma_K bound of floating-point summation).
    a, b = (np.abs(inputs[x].astype(np.float64)) for x in "AB")
    return 384 * 2.0 ** -24 * (a @ b.T) + 1e-30, "K*2^-24*(|A||B^T|), K = 384"
