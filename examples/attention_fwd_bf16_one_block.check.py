"""Reference for tcgen05-sim --check: attention_fwd_bf16_one_block.mlir computes
O = softmax(Q K^T / 8) V over one block of 64 keys, with P = bf16(exp((S - rowmax S) / 8))
as the A operand of P V and the f32 row sums l dividing O, as the kernel does.

Tolerance (bound): the reference computes S, p and l in float64 and rounds p to bf16 as
the kernel does. The kernel's S is off by at most 64 * 2^-24 * 64 = 2^-12 (f32 sum of exact
products of inputs in [-1, 1)); exp goes through ex2.approx.f32 (relative error about
2^-22) after an f32 multiply, so p is off by about 2^-15 relative, which flips the bf16
rounding of an element now and then: at most one bf16 ulp, 2^-8 p. l is off by a few f32
ulps, O = P V / l by the f32 sum of 64 products (2^-18 relative to (P |V|)). So
|O - ref| <= 2^-7 (p |V|) / l + 2^-20, element-wise."""

import numpy as np

BUFFERS = {
    "Q": ("bfloat16", (128, 64)),
    "K": ("bfloat16", (64, 64)),
    "V": ("bfloat16", (64, 64)),
    "O": ("float32", (128, 64)),
}


def bf16_round(x):
    """Round float64 values to bf16 (through float32), to nearest even."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def _softmax_parts(inputs):
    q, k = (inputs[n].astype(np.float64) for n in ("Q", "K"))
    s = q @ k.T
    p = np.exp((s - s.max(axis=1, keepdims=True)) / 8.0)
    return p, p.sum(axis=1, keepdims=True)


def reference(inputs):
    p, l = _softmax_parts(inputs)
    return {"O": bf16_round(p) @ inputs["V"].astype(np.float64) / l}


def bound(name, inputs):
    p, l = _softmax_parts(inputs)
    v = np.abs(inputs["V"].astype(np.float64))
    return 2.0 ** -7 * (p @ v) / l + 2.0 ** -20, "2^-7 (p |V|) / l + 2^-20"
