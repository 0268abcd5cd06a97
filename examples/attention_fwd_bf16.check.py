"""Reference for tcgen05-sim --check: attention_fwd_bf16.mlir computes
O = softmax(Q K^T / 8) V over 256 keys in 4 blocks of 64 with online softmax: at block j,
m_j = max(m_{j-1}, rowmax S_j), P_j = bf16(exp((S_j - m_j) / 8)) is the A operand of
P_j V_j, O_j = O_{j-1} exp((m_{j-1} - m_j) / 8) + P_j V_j, l_j likewise with the f32
row sums of exp((S_j - m_j) / 8), and O = O_3 / l_3.

The reference follows the same recurrence in float64 (the bf16 rounding of P_j included,
as the kernel's A operand has it), which is exactly softmax(Q K^T / 8) V with p = exp((S -
m) / 8) rounded to bf16 relative to the block's running max m_j rather than the final
one (reference_plain gives the plain float64 softmax attention, for the test's second
bound).

Tolerance (bound), element-wise:
- S: the f32 sum of 64 exact products of inputs in [-1, 1), off by at most 64 * 2^-24 *
  64 = 2^-12 absolute; after the 1/8 scale, 2^-15 in the exponent: 2^-15 relative in p.
- exp goes through ex2.approx.f32 after an f32 multiply by log2(e): about 2^-22 relative.
  So p is off by about 2^-15 relative, which flips the bf16 rounding of an element now and
  then: at most one bf16 ulp, 2^-8 p (2^-9 for round to nearest, doubled for the flip).
- alpha = exp((m_{j-1} - m_j) / 8) has the same 2^-15 relative error, and multiplies O
  and l up to 3 times: 3 * 2^-15 relative.
- O = sum_j alpha-products of P_j V_j: the f32 sums of 64 products per block, the f32
  rescales, about 2^-20 relative to (p |V|) per block; l likewise to the row sums.
So |O - ref| <= 2^-7 (p |V|) / l + 2^-20 bounds it with room (2^-8 from the bf16 flips,
the rest for the f32 errors), where p = exp((S - m) / 8) with the final row max m."""

import numpy as np

BLOCK = 64
BUFFERS = {
    "Q": ("bfloat16", (128, 64)),
    "K": ("bfloat16", (256, 64)),
    "V": ("bfloat16", (256, 64)),
    "O": ("float32", (128, 64)),
}


def bf16_round(x):
    """Round float64 values to bf16 (through float32), to nearest even."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def _scores(inputs):
    q, k = (inputs[n].astype(np.float64) for n in ("Q", "K"))
    return q @ k.T


def reference(inputs):
    """The online recurrence in float64, P_j rounded to bf16 as the kernel's A operand."""
    s = _scores(inputs)
    v = inputs["V"].astype(np.float64)
    m = np.full((s.shape[0], 1), -np.inf)
    l = np.zeros((s.shape[0], 1))
    o = np.zeros((s.shape[0], v.shape[1]))
    for j in range(0, s.shape[1], BLOCK):
        sj = s[:, j:j + BLOCK]
        m_new = np.maximum(m, sj.max(axis=1, keepdims=True))
        alpha = np.exp((m - m_new) / 8.0)
        p = np.exp((sj - m_new) / 8.0)
        l = l * alpha + p.sum(axis=1, keepdims=True)
        o = o * alpha + bf16_round(p) @ v[j:j + BLOCK]
        m = m_new
    return {"O": o / l}


def reference_plain(inputs):
    """softmax(Q K^T / 8) V in float64, nothing rounded."""
    s = _scores(inputs)
    p = np.exp((s - s.max(axis=1, keepdims=True)) / 8.0)
    return p @ inputs["V"].astype(np.float64) / p.sum(axis=1, keepdims=True)


def bound(name, inputs):
    s = _scores(inputs)
    p = np.exp((s - s.max(axis=1, keepdims=True)) / 8.0)
    l = p.sum(axis=1, keepdims=True)
    v = np.abs(inputs["V"].astype(np.float64))
    return 2.0 ** -7 * (p @ v) / l + 2.0 ** -20, "2^-7 (p |V|) / l + 2^-20"
