"""Reference for tcgen05-sim --check: gemm_chain_p_tmem.mlir computes
O = bf16(Q K^T) V with Q, K, V row-major, S = Q K^T accumulated in f32 and rounded to
bf16 (P) before the second product, as the kernel does.

Tolerance: the reference rounds S to bf16 itself (NumPy through float32, round to
nearest even, the rounding of cvt.rn.bf16.f32), so P differs from the kernel's only where
the kernel's f32 S (64 exact products of inputs in [-1, 1), summed in f32: off by at most
64 * 2^-24 * 64 = 2^-12) falls on the other side of a bf16 rounding boundary: one bf16
ulp of |S|, at most 2^-8 |S| <= 2^-2. Such a flip is rare but possible; bounding every
element by it, O is off by at most sum_k 2^-8 |S_ik| |V_kj| plus the f32 summation bound
of the second product, 64 * 2^-24 * (|P| |V|) <= 2^-17 (|S| |V|). bound() gives
|O - ref| <= 2^-7 (|S| |V|) element-wise, which covers both with room."""

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


def reference(inputs):
    q, k, v = (inputs[n].astype(np.float64) for n in ("Q", "K", "V"))
    s = bf16_round(q @ k.T)
    return {"O": s @ v}


def bound(name, inputs):
    q, k, v = (inputs[n].astype(np.float64) for n in ("Q", "K", "V"))
    return 2.0 ** -7 * (np.abs(q @ k.T) @ np.abs(v)), "2^-7 (|Q K^T| |V|)"
