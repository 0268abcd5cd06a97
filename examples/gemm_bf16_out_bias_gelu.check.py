"""Reference for tcgen05-sim --check: gemm_bf16_out_bias_gelu.mlir computes
C = bf16(gelu(A x B + bias)) with the tanh approximation of GELU, all row-major.

Tolerance: C is rounded to bf16 to nearest, which moves a value by at most 2^-8 of
itself (8 significant bits); before that, f32 accumulation of K = 64 exact products of
inputs in [-1, 1) is off by at most 64 * 2^-24 * 64 = 2^-12 (the GEMM bound), the bias
add and GELU evaluated in f32 (ex2.approx.f32 and a correctly rounded division for tanh)
add a few f32 ulps, and GELU's slope is below 1.13. So |C - ref| <= 2^-8 |ref| + 2^-11."""

import numpy as np

BUFFERS = {
    "A": ("bfloat16", (128, 64)),
    "B": ("bfloat16", (64, 256)),
    "bias": ("float32", (256,)),
    "C": ("bfloat16", (128, 256)),
}
TOLERANCE = (2.0 ** -8, 2.0 ** -11)


def gelu_tanh(h):
    return 0.5 * h * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (h + 0.044715 * h ** 3)))


def reference(inputs):
    acc = inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)
    return {"C": gelu_tanh(acc + inputs["bias"].astype(np.float64)[None, :])}
