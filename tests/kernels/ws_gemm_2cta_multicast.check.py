"""Reference for tcgen05-sim --check: tests/kernels/ws_gemm_2cta_multicast.mlir (cluster
2 x 2 of CTA pairs, A multicast along y), C (256 x 256, f32) = A x B^T with A (256 x 256)
and B (256 x 256) bf16 row-major, K = 256; NumPy computes C in float64."""

import numpy as np

BUFFERS = {"A": ("bfloat16", (256, 256)), "B": ("bfloat16", (256, 256)),
           "C": ("float32", (256, 256))}


def reference(inputs):
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64).T}


def bound(name, inputs):
    # K = 256 exact bf16 x bf16 products summed in f32 in any order: |error| <= K 2^-24
    # (|A| @ |B^T|) (the gamma_K bound of floating-point summation).
    a, b = (np.abs(inputs[x].astype(np.float64)) for x in "AB")
    return 256 * 2.0 ** -24 * (a @ b.T) + 1e-30, "K*2^-24*(|A||B^T|), K = 256"
