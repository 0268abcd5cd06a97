"""Triton's Blackwell tutorials, compiled for sm_100 in the test run without a GPU and
simulated as emitted (the kernels are written here in the tutorials' style; the kernel
code is the test's input):

- its block-scaled matmul (python/tutorials/10-block-scaled-matmul.py: ``tl.dot_scaled``
  of TMA-loaded mxfp8 / mxfp4 / nvfp4 tiles, the scale factors loaded from global memory
  in the 5-D (M / 128, K / VEC / 4, 32, 4, 4) layout and copied to TMEM by tcgen05.cp);
- its persistent TMA matmul (09-persistent-matmul.py: host tensor descriptors, a
  ``tl.range(..., flatten=True)`` over tiles, optionally warp-specialized, with an
  epilogue split in two halves), in fp16 and in fp8 (e4m3 in and out);
- its fused attention forward pass (06-fused-attention.py: ``tl.dot`` of Q K^T and of
  P V with an online softmax, TMA descriptors, causal with warp specialization);
- Gluon's tcgen05_copy (gluon/10-tcgen05-copy.py): f32 through a swizzled shared tile
  into TMEM and back.

Each compares with NumPy (a matmul of the inputs in float64, exact where the element
types make it exact; the attention within a bound of its fp16 P) under both fence
readings: race-free under ``acquire``, the missing tcgen05 fences reported, once per
pair of PTX lines, under ``canonical`` (docs/simulator.md gives the counts). The nvfp4
kernel is refused as emitted: Triton sets bit 24 of its instruction descriptor, reserved
in Table 44.

Needs the ``peer`` extra (Triton). Marked slow: mxfp4, nvfp4 with the ISA's encoding,
the fp16 persistent variants, the causal warp-specialized attention and two of the copy
round trips (together about 13 s on a quiet machine, the attention up to 18 s on a busy
one); the rest takes about 15 s."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_sim_peers import compile_for_sm100, triton_cache  # noqa: E402,F401

import ml_dtypes  # noqa: E402
import triton.language as tl  # noqa: E402
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

from tcgen05_lower.sim.api import simulate  # noqa: E402
from tcgen05_lower.sim.state import SimError  # noqa: E402
from tcgen05_lower.sim.triton_launch import triton_launch  # noqa: E402


def both_readings(ptx, manifest, args, output, check):
    """Canonical: `check(C)` holds, races only between tcgen05 ops, each pair of lines
    once; acquire: `check(C)` holds and no race, no problem at exit. Returns the number
    of pairs of lines racing under canonical."""
    canonical = simulate(ptx, manifest, {k: (v.copy() if isinstance(v, np.ndarray) else v)
                                         for k, v in args.items()})
    assert not canonical.problems, canonical.problems
    check(canonical.outputs[output])
    assert canonical.races, "Triton emits no tcgen05 fences: canonical reports races"
    pairs = [(r.ptx_line, r.other_line) for r in canonical.races]
    assert len(pairs) == len(set(pairs))
    for race in canonical.races:
        assert "tcgen05" in race.message, race.message
    acquire = simulate(ptx, manifest, args, fences="acquire")
    assert acquire.ok, (acquire.races[:3], acquire.problems)
    check(acquire.outputs[output])
    return len(pairs)


# -- block-scaled matmul (10-block-scaled-matmul.py) ------------------------------------
@triton.jit
def block_scaled_matmul(a_desc, a_scale, b_desc, b_scale, c_desc, M: tl.constexpr,
                        N: tl.constexpr, K: tl.constexpr, stride_sk: tl.constexpr,
                        ELEM_PER_BYTE: tl.constexpr, VEC_SIZE: tl.constexpr,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        NUM_STAGES: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    pid_m = pid % num_pid_m
    pid_n = pid // num_pid_m
    offs_am = pid_m * BLOCK_M
    offs_bn = pid_n * BLOCK_N
    offs_k = 0
    offs_sm = (pid_m * (BLOCK_M // 128) + tl.arange(0, BLOCK_M // 128)) % M
    offs_sn = (pid_n * (BLOCK_N // 128) + tl.arange(0, BLOCK_N // 128)) % N
    chunk: tl.constexpr = (BLOCK_K // VEC_SIZE // 4) * 32 * 4 * 4
    offs_inner = tl.arange(0, chunk)
    a_scale_ptr = a_scale + offs_sm[:, None] * stride_sk + offs_inner[None, :]
    b_scale_ptr = b_scale + offs_sn[:, None] * stride_sk + offs_inner[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=NUM_STAGES):
        a = a_desc.load([offs_am, offs_k])
        b = b_desc.load([offs_bn, offs_k])
        scale_a = tl.load(a_scale_ptr).reshape(BLOCK_M // 128, BLOCK_K // VEC_SIZE // 4, 32, 4, 4)
        scale_b = tl.load(b_scale_ptr).reshape(BLOCK_N // 128, BLOCK_K // VEC_SIZE // 4, 32, 4, 4)
        scale_a = scale_a.trans(0, 3, 2, 1, 4).reshape(BLOCK_M, BLOCK_K // VEC_SIZE)
        scale_b = scale_b.trans(0, 3, 2, 1, 4).reshape(BLOCK_N, BLOCK_K // VEC_SIZE)
        if ELEM_PER_BYTE == 2:
            acc = tl.dot_scaled(a, scale_a, "e2m1", b.T, scale_b, "e2m1", acc)
        else:
            acc = tl.dot_scaled(a, scale_a, "e4m3", b.T, scale_b, "e4m3", acc)
        offs_k += BLOCK_K // ELEM_PER_BYTE
        a_scale_ptr += chunk
        b_scale_ptr += chunk
    c_desc.store([offs_am, offs_bn], acc.to(tl.float16))


def compile_block_scaled(fmt, m, n, k):
    block_k = 256 if "fp4" in fmt else 128
    vec = 16 if fmt == "nvfp4" else 32
    per_byte = 2 if "fp4" in fmt else 1
    element = "u8" if per_byte == 2 else "fp8e4nv"
    signature = {"a_desc": f"tensordesc<{element}[128, {block_k // per_byte}]>",
                 "a_scale": "*u8",
                 "b_desc": f"tensordesc<{element}[128, {block_k // per_byte}]>",
                 "b_scale": "*u8", "c_desc": "tensordesc<fp16[128, 128]>"}
    constants = {"M": m, "N": n, "K": k, "stride_sk": (k // vec // 4) * 512,
                 "ELEM_PER_BYTE": per_byte, "VEC_SIZE": vec, "BLOCK_M": 128,
                 "BLOCK_N": 128, "BLOCK_K": block_k, "NUM_STAGES": 2}
    signature.update({name: "constexpr" for name in constants})
    ptx, metadata = compile_for_sm100(block_scaled_matmul, signature, constants, num_warps=4)
    return ptx, metadata, signature, vec, per_byte


def block_scaled_inputs(fmt, m, n, k, vec, per_byte, rng):
    """A, B (as stored) and their values; the scale factors (as stored, 5-D layout) and
    the per-element scale of A and B in float64."""
    if per_byte == 1:
        a_val = rng.integers(-4, 5, (m, k)) / 2.0   # exact in e4m3
        b_val = rng.integers(-4, 5, (n, k)) / 2.0
        a = a_val.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
        b = b_val.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    else:  # every 4-bit code is an e2m1 value; element 2j in the low nibble of byte j
        codes_a, codes_b = (rng.integers(0, 16, s).astype(np.uint8) for s in ((m, k), (n, k)))
        a_val, b_val = (c.view(ml_dtypes.float4_e2m1fn).astype(np.float64)
                        for c in (codes_a, codes_b))
        a, b = ((c[:, 0::2] | (c[:, 1::2] << 4)).astype(np.uint8) for c in (codes_a, codes_b))

    def scales(rows):
        shape = (rows // 128, k // vec // 4, 32, 4, 4)
        if fmt == "nvfp4":  # UE4M3 scales: powers of two, exact in e4m3
            value = rng.choice([0.25, 0.5, 1.0, 2.0], shape)
            stored = value.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
        else:  # UE8M0: 2^(byte - 127)
            stored = rng.integers(125, 130, shape).astype(np.uint8)
            value = np.exp2(stored.astype(np.float64) - 127)
        # [m / 128, k / vec / 4, 32, 4, 4] -> row = 32 * r4 + r32 within a 128-row chunk,
        # scale column = 4 * k-chunk + k4 (cuBLAS's block-scaling layout, which the
        # tutorial's reference unpacks the same way)
        per_row = value.transpose(0, 3, 2, 1, 4).reshape(rows, k // vec)
        return stored.reshape(-1), np.repeat(per_row, vec, axis=1)
    a_scale, a_factor = scales(m)
    b_scale, b_factor = scales(n)
    return a, b, a_scale, b_scale, a_val * a_factor, b_val * b_factor


def run_block_scaled(fmt, patch=None):
    m, n, k = 128, 256, 512
    ptx, metadata, signature, vec, per_byte = compile_block_scaled(fmt, m, n, k)
    if patch:
        ptx = patch(ptx)
    rng = np.random.default_rng(41)
    a, b, a_scale, b_scale, a_ref, b_ref = block_scaled_inputs(fmt, m, n, k, vec, per_byte, rng)
    c = np.zeros((m, n), np.float16)
    manifest, args = triton_launch(metadata, signature, {
        "a_desc": a, "a_scale": a_scale, "b_desc": b, "b_scale": b_scale, "c_desc": c},
        [str((m // 128) * (n // 128))])
    # small values times powers of two: every partial sum is exact in f32, so C is
    # NumPy's float64 product rounded once to fp16
    expected = (a_ref @ b_ref.T).astype(np.float16)

    def check(out):
        assert np.array_equal(out, expected), np.argwhere(out != expected)[:4]
    return ptx, both_readings(ptx, manifest, args, "c_desc.tensor", check)


def test_block_scaled_mxfp8():
    ptx, _ = run_block_scaled("mxfp8")
    assert "kind::mxf8f6f4.block_scale.block32" in ptx and "tcgen05.cp" in ptx


@pytest.mark.slow
def test_block_scaled_mxfp4():
    # its scale tiles' tcgen05.cp descriptors carry a matrix base offset without swizzling
    ptx, _ = run_block_scaled("mxfp4")
    assert "kind::mxf4.block_scale.block32" in ptx


NVFP4_IDESC_BIT_24 = 1 << 24


def test_block_scaled_nvfp4_sets_a_reserved_descriptor_bit():
    m, n, k = 128, 256, 512
    ptx, metadata, signature, vec, per_byte = compile_block_scaled("nvfp4", m, n, k)
    assert "kind::mxf4nvf4.block_scale.block16" in ptx
    rng = np.random.default_rng(41)
    a, b, a_scale, b_scale, _, _ = block_scaled_inputs("nvfp4", m, n, k, vec, per_byte, rng)
    manifest, args = triton_launch(metadata, signature, {
        "a_desc": a, "a_scale": a_scale, "b_desc": b, "b_scale": b_scale,
        "c_desc": np.zeros((m, n), np.float16)}, ["2"])
    # Table 44: bit 23 is the scale type (UE4M3 = 0), bits 24-26 reserved; Triton
    # writes a 2-bit scale kind at 23-24 (2 for UE4M3 with 16-element blocks)
    with pytest.raises(SimError, match="reserved bit 24 is set .Table 44."):
        simulate(ptx, manifest, args, fences="acquire")


def clear_bit_24(ptx: str) -> str:
    """The nvfp4 descriptor constants with bit 24 cleared (bit 23 = 0 already says UE4M3)."""
    def fix(match):
        value = int(match.group(2))
        if value & NVFP4_IDESC_BIT_24 and (value >> 27) & 3 == 1:  # M = 128 at bits 27-28
            value &= ~NVFP4_IDESC_BIT_24
        return f"{match.group(1)}{value};"
    fixed = re.sub(r"(mov\.b32 \t%r\d+, )(\d+);", fix, ptx)
    assert fixed != ptx
    return fixed


@pytest.mark.slow
def test_block_scaled_nvfp4_with_the_isa_encoding_matches_numpy():
    run_block_scaled("nvfp4", patch=clear_bit_24)


# -- persistent TMA matmul (09-persistent-matmul.py) ------------------------------------
@triton.jit
def _tile_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M: tl.constexpr):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def persistent_tma_matmul(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                          GROUP_SIZE_M: tl.constexpr, EPILOGUE_SUBTILE: tl.constexpr,
                          NUM_SMS: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    dtype = c_desc.dtype
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    tile_id_c = start_pid - NUM_SMS
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True,
                            warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _tile_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_M
        offs_bn = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([offs_am, ki * BLOCK_K])
            b = b_desc.load([offs_bn, ki * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        tile_id_c += NUM_SMS
        pid_m, pid_n = _tile_pid(tile_id_c, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_cm = pid_m * BLOCK_M
        offs_cn = pid_n * BLOCK_N
        if EPILOGUE_SUBTILE:
            acc = tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1))
            acc0, acc1 = tl.split(acc)
            c_desc.store([offs_cm, offs_cn], acc0.to(dtype))
            c_desc.store([offs_cm, offs_cn + BLOCK_N // 2], acc1.to(dtype))
        else:
            c_desc.store([offs_cm, offs_cn], acc.to(dtype))


@pytest.mark.parametrize("dtype, warp_specialize, subtile", [
    ("fp8", False, True),
    pytest.param("fp16", False, False, marks=pytest.mark.slow),
    pytest.param("fp16", True, True, marks=pytest.mark.slow),
])
def test_persistent_tma_matmul(dtype, warp_specialize, subtile):
    block_k = 64 if dtype == "fp16" else 128
    element = "fp16" if dtype == "fp16" else "fp8e4nv"
    signature = {"a_desc": f"tensordesc<{element}[128, {block_k}]>",
                 "b_desc": f"tensordesc<{element}[128, {block_k}]>",
                 "c_desc": f"tensordesc<{element}[128, {64 if subtile else 128}]>",
                 "M": "i32", "N": "i32", "K": "i32"}
    constants = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": block_k, "GROUP_SIZE_M": 8,
                 "EPILOGUE_SUBTILE": subtile, "NUM_SMS": 2, "WARP_SPECIALIZE": warp_specialize}
    signature.update({name: "constexpr" for name in constants})
    ptx, metadata = compile_for_sm100(persistent_tma_matmul, signature, constants,
                                      num_warps=4, num_stages=3)
    if dtype == "fp8":
        assert "kind::f8f6f4" in ptx and "prmt.b32" in ptx
    m, n, k = 256, 256, 384  # 4 tiles over 2 persistent programs, 3 or 6 K blocks
    rng = np.random.default_rng(42)
    a_val, b_val = rng.integers(-3, 4, (m, k)), rng.integers(-3, 4, (n, k))
    exact = (a_val @ b_val.T).astype(np.float64)  # NumPy, exact integers
    if dtype == "fp16":
        a, b, c = a_val.astype(np.float16), b_val.astype(np.float16), np.zeros((m, n), np.float16)
        expected = exact.astype(np.float16).view(np.uint16)
    else:
        a, b = (v.astype(ml_dtypes.float8_e4m3fn).view(np.uint8) for v in (a_val, b_val))
        c = np.zeros((m, n), np.uint8)
        # ml_dtypes rounds to nearest even; no |C| reaches e4m3's 448, so satfinite
        # (cvt's clamp) changes nothing
        assert np.abs(exact).max() < 448
        expected = exact.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)

    def check(out):
        got = out.view(np.uint16) if dtype == "fp16" else out
        assert np.array_equal(got, expected), np.argwhere(got != expected)[:4]
    manifest, args = triton_launch(metadata, signature, {"a_desc": a, "b_desc": b,
                                                         "c_desc": c, "M": m, "N": n, "K": k},
                                   ["2"])
    both_readings(ptx, manifest, args, "c_desc.tensor", check)


# -- fused attention, forward (06-fused-attention.py) ------------------------------------
@triton.jit
def _attn_inner(acc, l_i, m_i, q, desc_k, desc_v, offset_y, dtype: tl.constexpr, start_m,
                qk_scale, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr,
                BLOCK_N: tl.constexpr, STAGE: tl.constexpr, offs_m: tl.constexpr,
                offs_n: tl.constexpr, N_CTX: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    offset_kv = offset_y + lo
    for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=WARP_SPECIALIZE):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = desc_k.load([offset_kv, 0]).T
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([offset_kv, 0])
        acc = tl.dot(p.to(dtype), v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
        offset_kv += BLOCK_N
    return acc, l_i, m_i


@triton.jit
def attention_forward(sm_scale, M, Z, H, desc_q, desc_k, desc_v, desc_o, N_CTX,
                      HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      STAGE: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    dtype = tl.float16
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offset_y = off_z * (N_CTX * H) + off_h * N_CTX
    qo_offset_y = offset_y + start_m * BLOCK_M
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1 / ln 2: exp2 below
    q = desc_q.load([qo_offset_y, 0])
    if STAGE & 1:  # off the diagonal (all of it when not causal)
        acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, desc_k, desc_v, offset_y, dtype,
                                    start_m, qk_scale, BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE,
                                    offs_m, offs_n, N_CTX, WARP_SPECIALIZE)
    if STAGE & 2:  # on the diagonal, masked
        acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, desc_k, desc_v, offset_y, dtype,
                                    start_m, qk_scale, BLOCK_M, HEAD_DIM, BLOCK_N, 2,
                                    offs_m, offs_n, N_CTX, WARP_SPECIALIZE)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    desc_o.store([qo_offset_y, 0], acc.to(dtype))


@pytest.mark.parametrize("causal, warp_specialize", [
    (False, False),
    pytest.param(True, True, marks=pytest.mark.slow),
])
def test_fused_attention_forward(causal, warp_specialize):
    d, block_m, block_n, n_ctx, z, h = 64, 128, 64, 256, 1, 2
    signature = {"sm_scale": "fp32", "M": "*fp32", "Z": "i32", "H": "i32",
                 "desc_q": f"tensordesc<fp16[{block_m}, {d}]>",
                 "desc_k": f"tensordesc<fp16[{block_n}, {d}]>",
                 "desc_v": f"tensordesc<fp16[{block_n}, {d}]>",
                 "desc_o": f"tensordesc<fp16[{block_m}, {d}]>", "N_CTX": "i32"}
    constants = {"HEAD_DIM": d, "BLOCK_M": block_m, "BLOCK_N": block_n,
                 "STAGE": 3 if causal else 1, "WARP_SPECIALIZE": warp_specialize}
    signature.update({name: "constexpr" for name in constants})
    ptx, metadata = compile_for_sm100(attention_forward, signature, constants, num_warps=4,
                                      num_stages=3)
    for form in ("add.f32x2", "div.full.f32", "tcgen05.mma"):
        assert form in ptx, form
    rng = np.random.default_rng(43)
    rows, sm_scale = z * h * n_ctx, 0.125
    q, k, v = ((rng.standard_normal((rows, d)) * 0.5).astype(np.float16) for _ in range(3))
    lse = np.zeros(rows, np.float32)
    manifest, args = triton_launch(metadata, signature, {
        "sm_scale": sm_scale, "M": lse, "Z": z, "H": h, "desc_q": q, "desc_k": k,
        "desc_v": v, "desc_o": np.zeros((rows, d), np.float16), "N_CTX": n_ctx},
        [str(n_ctx // block_m), str(z * h)])
    expected = np.zeros((rows, d))
    for head in range(z * h):  # NumPy, float64: softmax(Q K^T * sm_scale) V
        part = slice(head * n_ctx, (head + 1) * n_ctx)
        logits = q[part].astype(np.float64) @ k[part].astype(np.float64).T * sm_scale
        if causal:
            logits = np.where(np.tri(n_ctx, dtype=bool), logits, -np.inf)
        weights = np.exp(logits - logits.max(axis=1, keepdims=True))
        expected[part] = (weights / weights.sum(axis=1, keepdims=True)) @ v[part]

    def check(out):
        # P is rounded to fp16 (relative 2^-11) before P V; |V| < 3, and O to fp16: the
        # error stays far below 2e-3 (measured: 3e-4)
        assert np.abs(out.astype(np.float64) - expected).max() < 2e-3
    both_readings(ptx, manifest, args, "desc_o.tensor", check)


# -- Gluon's tcgen05_copy (python/tutorials/gluon/10-tcgen05-copy.py) --------------------
try:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource
    from triton.experimental.gluon.language.nvidia.blackwell import (
        TensorMemoryLayout, allocate_tensor_memory, fence_async_shared, mbarrier,
        tcgen05_commit, tcgen05_copy, tcgen05_mma)
except ImportError:  # a Triton without Gluon: its test is skipped
    gluon = None

if gluon is not None:
    @gluon.jit
    def gluon_tcgen05_copy(in_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr,
                           smem_layout: gl.constexpr, tmem_layout: gl.constexpr):
        layout: gl.constexpr = gl.BlockedLayout([1, 1], [1, 32], [1, gl.num_warps()], [1, 0])
        offs_m = gl.arange(0, M, gl.SliceLayout(1, layout))
        offs_n = gl.arange(0, N, gl.SliceLayout(0, layout))
        x = gl.load(in_ptr + offs_m[:, None] * N + offs_n[None, :])
        smem = gl.allocate_shared_memory(x.dtype, (M, N), smem_layout)
        tmem = allocate_tensor_memory(x.dtype, (M, N), tmem_layout)
        bar = gl.allocate_shared_memory(gl.int64, [1], gl.constexpr(mbarrier.MBarrierLayout()))
        mbarrier.init(bar, count=1)
        smem.store(x)
        fence_async_shared()
        tcgen05_copy(smem, tmem)
        tcgen05_commit(bar)
        mbarrier.wait(bar, phase=0)
        mbarrier.invalidate(bar)
        y = gl.convert_layout(tmem.load(), layout)
        gl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], y)


@pytest.mark.skipif(gluon is None, reason="this Triton has no Gluon (triton.experimental.gluon)")
@pytest.mark.parametrize("m, n, block_n, swizzle", [
    (256, 128, 64, 128),
    pytest.param(128, 64, 16, 32, marks=pytest.mark.slow),
    pytest.param(128, 32, 1, 64, marks=pytest.mark.slow),
])
def test_gluon_tcgen05_copy_round_trip(m, n, block_n, swizzle):
    """f32 through a swizzled shared tile, tcgen05.cp.128x256b into TMEM and tcgen05.ld
    back: what comes out is what went in (the 51 shapes of the tutorial's test that
    compile all round-trip; three of them here)."""
    signature = {"in_ptr": "*fp32", "out_ptr": "*fp32", "M": "constexpr", "N": "constexpr",
                 "smem_layout": "constexpr", "tmem_layout": "constexpr"}
    constants = {"M": m, "N": n,
                 "smem_layout": gl.NVMMASharedLayout(swizzle_byte_width=swizzle,
                                                     element_bitwidth=32, rank=2),
                 "tmem_layout": TensorMemoryLayout(block=(128, block_n), col_stride=1)}
    kernel = triton.compile(GluonASTSource(gluon_tcgen05_copy, signature, constexprs=constants),
                            target=GPUTarget("cuda", 100, 32), options={"num_warps": 4})
    ptx, metadata = kernel.asm["ptx"], kernel.metadata._asdict()
    assert "tcgen05.cp.cta_group::1.128x256b" in ptx
    x = np.random.default_rng(44).standard_normal((m, n)).astype(np.float32)
    manifest, args = triton_launch(metadata, signature,
                                   {"in_ptr": x, "out_ptr": np.zeros_like(x)}, ["1"])
    result = simulate(ptx, manifest, args, fences="acquire")
    assert result.ok, (result.races[:3], result.problems)
    assert np.array_equal(result.outputs["out_ptr"], x)


if gluon is not None:
    @gluon.jit
    def gluon_copy_after_mma(a_ptr, b_ptr, c0_ptr, c1_ptr, out_ptr, M: gl.constexpr,
                             N: gl.constexpr, K: gl.constexpr):
        layout: gl.constexpr = gl.BlockedLayout([1, 1], [1, 32], [1, gl.num_warps()], [1, 0])
        rows = gl.arange(0, M, gl.SliceLayout(1, layout))
        cols = gl.arange(0, N, gl.SliceLayout(0, layout))
        ks = gl.arange(0, K, gl.SliceLayout(0, layout))
        k_rows = gl.arange(0, K, gl.SliceLayout(1, layout))
        a_s = gl.allocate_shared_memory(gl.float16, (M, K),
                                        gl.NVMMASharedLayout.get_default_for([M, K], gl.float16))
        b_s = gl.allocate_shared_memory(gl.float16, (K, N),
                                        gl.NVMMASharedLayout.get_default_for([K, N], gl.float16))
        c_layout: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=128,
                                                      element_bitwidth=32, rank=2)
        c0_s = gl.allocate_shared_memory(gl.float32, (M, N), c_layout)
        c1_s = gl.allocate_shared_memory(gl.float32, (M, N), c_layout)
        acc = allocate_tensor_memory(gl.float32, (M, N),
                                     TensorMemoryLayout(block=(128, N), col_stride=1))
        bar = gl.allocate_shared_memory(gl.int64, [1], gl.constexpr(mbarrier.MBarrierLayout()))
        mbarrier.init(bar, count=1)
        a_s.store(gl.load(a_ptr + rows[:, None] * K + ks[None, :]))
        b_s.store(gl.load(b_ptr + k_rows[:, None] * N + cols[None, :]))
        c0_s.store(gl.load(c0_ptr + rows[:, None] * N + cols[None, :]))
        c1_s.store(gl.load(c1_ptr + rows[:, None] * N + cols[None, :]))
        fence_async_shared()
        tcgen05_copy(c0_s, acc)
        tcgen05_mma(a_s, b_s, acc, use_acc=True)
        tcgen05_copy(c1_s, acc)   # after the MMA with no wait: "also valid", the tutorial says
        tcgen05_mma(a_s, b_s, acc, use_acc=True)
        tcgen05_commit(bar)
        mbarrier.wait(bar, phase=0)
        mbarrier.invalidate(bar)
        y = gl.convert_layout(acc.load(), layout)
        gl.store(out_ptr + rows[:, None] * N + cols[None, :], y)


@pytest.mark.skipif(gluon is None, reason="this Triton has no Gluon (triton.experimental.gluon)")
def test_gluon_copy_after_mma_relies_on_an_order_the_isa_does_not_list():
    """Gluon's tcgen05_copy tutorial calls a copy into the accumulator right after an MMA
    on it valid ("the second tcgen05_copy will only execute after the preceding
    tcgen05_mma is complete"). 9.7.16.6.2 lists cp -> mma as a pipelined pair, but not
    mma -> cp nor cp -> cp: the simulator reports the second copy against the first copy
    and the MMA under both fence readings (the same thread issues them all, no wait
    between). C is the in-order result, c1 + A B, under both schedules."""
    m, n, k = 128, 64, 64
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c0_ptr": "*fp32", "c1_ptr": "*fp32",
                 "out_ptr": "*fp32", "M": "constexpr", "N": "constexpr", "K": "constexpr"}
    kernel = triton.compile(GluonASTSource(gluon_copy_after_mma, signature,
                                           constexprs={"M": m, "N": n, "K": k}),
                            target=GPUTarget("cuda", 100, 32), options={"num_warps": 4})
    ptx, metadata = kernel.asm["ptx"], kernel.metadata._asdict()
    rng = np.random.default_rng(45)
    a, b = rng.integers(-3, 4, (m, k)).astype(np.float16), rng.integers(-3, 4, (k, n)).astype(np.float16)
    c0, c1 = (rng.integers(-3, 4, (m, n)).astype(np.float32) for _ in range(2))
    expected = c1 + a.astype(np.float32) @ b.astype(np.float32)  # NumPy, exact integers
    manifest, args = triton_launch(metadata, signature, {
        "a_ptr": a, "b_ptr": b, "c0_ptr": c0, "c1_ptr": c1,
        "out_ptr": np.zeros((m, n), np.float32)}, ["1"])
    lines = ptx.splitlines()
    for schedule in ("late", "eager"):
        result = simulate(ptx, manifest, {k: (v.copy() if isinstance(v, np.ndarray) else v)
                                          for k, v in args.items()},
                          fences="acquire", schedule=schedule)
        assert np.array_equal(result.outputs["out_ptr"], expected)
        assert not result.problems
        assert result.races
        for race in result.races:  # the second copy, against the first copy or an MMA
            assert "tcgen05.cp" in lines[race.ptx_line - 1]
            assert re.search(r"tcgen05\.(cp|mma)", lines[race.other_line - 1])
        assert any("tcgen05.mma" in lines[r.other_line - 1] for r in result.races)
