"""Reference for tcgen05-sim --check: ws_gemm_nvf4_blockscaled.mlir, the NVFP4 GEMM
C (M x N, bf16) = (A * SFA) x (B * SFB)^T with A (M x K) and B (N x K) e2m1, row-major (K
contiguous) and packed two per byte (element 2j of a row in the low nibble of byte j,
9.7.16.10.4.6), and one ue4m3 scale factor per 16 consecutive K elements of a row
(kind::mxf4nvf4, scale_vec::4X = block 16). Sizes from SCALARS or the command line:

    tcgen05-sim examples/ws_gemm_nvf4_blockscaled.mlir \\
        --check examples/ws_gemm_nvf4_blockscaled.check.py --set M=200 --set N=136 --set K=352

The scale factors are in the blocked layout of the kernel (documented there): for row r
of tile t = r // 128, element k of K block kb = k // 128 and its half h = (k % 128) // 64,
the 16 bytes of row ((t * ceildiv(K, 128) + kb) * 2 + h) * 32 + r % 32 hold, at byte
4 ((r % 128) // 32) + j, the factor of elements 128 kb + 64 h + 16 j .. + 15. The
reference reads that layout back into one factor per (row, 16-element block) and
decodes elements and factors with ml_dtypes (float4_e2m1fn from each nibble; ue4m3 as
float8_e4m3fn with the sign bit clear), independently of the compiler and the
simulator. K must be a multiple of 32 (the TMA row stride of A and B, K / 2 bytes, is a
multiple of 16).

Tolerance: the simulator sums each MMA's products exactly and rounds to f32 once per MMA
(K / 64 roundings, fewer than K), then the epilogue rounds to bf16 (unit roundoff 2^-8):
|C - ref| <= 2^-8 |ref| + (1 + 2^-8) K 2^-24 (|A * SFA| @ |B * SFB|^T).
"""

import ml_dtypes
import numpy as np

#: One CTA (M, N < 128) and three K blocks (the last one 96 wide), so the 2-stage ring
#: wraps; none of the sizes is a multiple of the tile.
SCALARS = {"M": 100, "N": 120, "K": 352}
TILE, KBLOCK, BLOCK = 128, 128, 16
#: Packed e2m1 bytes: every nibble is a value (E2M1 has no Inf or NaN). ue4m3 codes
#: 0x20..0x47: factors 2^-3 .. 3.75, sign bit clear (ue4m3 has none) and not the NaN 0x7F.
INPUT_RANGES = {"A": (0, 256), "B": (0, 256), "SFA": (0x20, 0x48), "SFB": (0x20, 0x48)}


def _cdiv(a, b):
    return -(-a // b)


def BUFFERS(s):
    m, n, k = s["M"], s["N"], s["K"]
    kb = _cdiv(k, KBLOCK)
    return {"A": ("uint8", (m, k // 2)), "B": ("uint8", (n, k // 2)),
            "SFA": ("uint8", (_cdiv(m, TILE) * kb * 64, 16)),
            "SFB": ("uint8", (_cdiv(n, TILE) * kb * 64, 16)),
            "C": ("bfloat16", (m, n))}


def elements(packed):
    """(rows x K) values of packed e2m1 bytes, decoded with ml_dtypes."""
    codes = np.empty((packed.shape[0], 2 * packed.shape[1]), np.uint8)
    codes[:, 0::2] = packed & 0x0F
    codes[:, 1::2] = packed >> 4
    return codes.view(ml_dtypes.float4_e2m1fn).astype(np.float64)


def factors(blocked, rows, k):
    """The (rows x K) factor of every element from the blocked layout (module docstring),
    decoded as ue4m3 (float8_e4m3fn with the sign bit clear) with ml_dtypes."""
    r = np.arange(rows)[:, None]
    kk = np.arange(k)[None, :]
    kblocks = _cdiv(k, KBLOCK)
    line = (((r // TILE) * kblocks + kk // KBLOCK) * 2 + (kk % KBLOCK) // 64) * 32 + r % 32
    byte = 4 * ((r % TILE) // 32) + (kk % 64) // BLOCK
    codes = np.ascontiguousarray(blocked[line, byte]).astype(np.uint8)
    assert not (codes & 0x80).any()
    return codes.view(ml_dtypes.float8_e4m3fn).astype(np.float64)


def _scaled(inputs):
    m, n, k = inputs["M"], inputs["N"], inputs["K"]
    a = elements(inputs["A"]) * factors(inputs["SFA"], m, k)
    b = elements(inputs["B"]) * factors(inputs["SFB"], n, k)
    return a, b


def reference(inputs):
    a, b = _scaled(inputs)
    return {"C": a @ b.T}


def bound(name, inputs):
    a, b = _scaled(inputs)
    k = inputs["K"]
    ref = np.abs(a @ b.T)
    return (2.0 ** -8 * ref + (1 + 2.0 ** -8) * k * 2.0 ** -24 * (np.abs(a) @ np.abs(b).T)
            + 1e-30, f"2^-8|ref| + (1+2^-8) K 2^-24 (|A SFA||B SFB|^T), K = {k}")
