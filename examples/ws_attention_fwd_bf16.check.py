"""Reference for tcgen05-sim --check: ws_attention_fwd_bf16.mlir computes
O = softmax(Q K^T / sqrt(D) + mask) V for 128 * TILES query rows over L keys (a kernel argument;
the mask hides keys >= L and, with causal = 1, keys after the query's row) with online
softmax over KV blocks of 64: at block j, m_j = max(m_{j-1}, rowmax S_j),
P_j = bf16(exp((S_j - m_j) / sqrt(D))) is the A operand of P_j V_j,
O_j = O_{j-1} exp((m_{j-1} - m_j) / sqrt(D)) + P_j V_j, l_j likewise with the f32 row
sums of exp((S_j - m_j) / sqrt(D)), and O = O_last / l_last.

The reference follows the same recurrence in float64 (P_j rounded to bf16 as the kernel's
A operand has it: softmax attention in float64 with p rounded to bf16 relative to the
block's running max); reference_plain is the plain float64 softmax attention, nothing
rounded, for the test's second bound.

Tolerance (bound), element-wise, as examples/attention_fwd_bf16.check.py argues for D =
64, the scale 1/sqrt(D) <= 1/8: S is off by at most D * 2^-24 * D <= 2^-10 absolute (the
f32 sum of D exact products of inputs in [-1, 1)), 2^-13 in the exponent, so p is off by
about 2^-13 relative, which may flip the bf16 rounding of an element (one bf16 ulp,
2^-8 p); alpha's error multiplies O and l once per block (at most 16 blocks here: 2^-9);
the f32 sums and rescales add about 2^-20 relative. So |O - ref| <= 2^-7 (p |V|) / l +
2^-20 with p = exp((S - m) / sqrt(D)) and m the final row max (masked keys have p = 0).
HEAD_DIM and TILES are the lines tests/test_ws_attention.py changes for the other
variants (D = 128; one query tile)."""

import numpy as np

HEAD_DIM = 64
TILES = 2
BLOCK = 64
SCALARS = {"L": 1000, "causal": 0}


def BUFFERS(s):
    rows = 128 * TILES
    return {"Q": ("bfloat16", (rows, HEAD_DIM)), "K": ("bfloat16", (s["L"], HEAD_DIM)),
            "V": ("bfloat16", (s["L"], HEAD_DIM)), "O": ("float32", (rows, HEAD_DIM))}


def bf16_round(x):
    """Round float64 values to bf16 (through float32), to nearest even."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def _scores(inputs):
    """S / sqrt(D) with the mask applied (-inf), over the keys the kernel visits."""
    q, k = (inputs[n].astype(np.float64) for n in ("Q", "K"))
    s = q @ k.T / np.sqrt(HEAD_DIM)
    if int(inputs["causal"]):
        keys = np.arange(s.shape[1])[None, :]
        rows = np.arange(s.shape[0])[:, None]
        s = np.where(keys > rows, -np.inf, s)
    return s


def reference(inputs):
    """The online recurrence in float64, P_j rounded to bf16 as the kernel's A operand."""
    s = _scores(inputs)
    v = inputs["V"].astype(np.float64)
    m = np.full((s.shape[0], 1), -np.inf)
    l = np.zeros((s.shape[0], 1))
    o = np.zeros((s.shape[0], v.shape[1]))
    for j in range(0, s.shape[1], BLOCK):
        sj = s[:, j:j + BLOCK]
        if np.all(np.isneginf(sj)):
            continue  # a block the causal kernel skips contributes nothing
        m_new = np.maximum(m, sj.max(axis=1, keepdims=True))
        alpha = np.exp(m - m_new)
        p = np.exp(sj - m_new)
        l = l * alpha + p.sum(axis=1, keepdims=True)
        o = o * alpha + bf16_round(p) @ v[j:j + BLOCK]
        m = m_new
    return {"O": o / l}


def reference_plain(inputs):
    """softmax(Q K^T / sqrt(D) + mask) V in float64, nothing rounded."""
    s = _scores(inputs)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return p @ inputs["V"].astype(np.float64) / p.sum(axis=1, keepdims=True)


def bound(name, inputs):
    s = _scores(inputs)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    l = p.sum(axis=1, keepdims=True)
    v = np.abs(inputs["V"].astype(np.float64))
    return 2.0 ** -7 * (p @ v) / l + 2.0 ** -20, "2^-7 (p |V|) / l + 2^-20"
