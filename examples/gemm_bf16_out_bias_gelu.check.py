"""Reference for tcgen05-sim --check: gemm_bf16_out_bias_gelu.mlir computes
C = bf16(gelu(A x B + bias)) with the tanh approximation of GELU, all row-major.

Tolerance: C is rounded to bf16 to nearest, which moves a value by at most 2^-8 of
itself (8 significant bits); before that, f32 accumulation of K = 64 exact products of
inputs in [-1, 1) is off by at most 64 * 2^-24 * 64 = 2^-12 (the GEMM bound), the bias
add and GELU evaluated in f32 (ex2.approx.f32 and a correctly rounded division for tanh)
add an absolute error of a few f32 ulps of 1 + tanh(u), and GELU's slope is below 1.13.
So |C - ref| <= 2^-8 |ref| + 2^-11.

That absolute error is not small relative to C where h = A B + bias is well below 0: there
1 + tanh(u) cancels towards 0 and GELU(h) is tiny (and flushes to 0 below about -5). Measured
on the inputs of seed 0 (tests/test_frag_compute.py), 1,881 of the 32,768 outputs (5.7 %)
are one or more bf16 ulps from the correctly rounded bf16 of the exact value, all of them
at h <= -2.7, where |C| <= 0.0083 and the error is at most 3.1e-5; every output at h >= 0
is correctly rounded."""

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
