"""Other compilers' Blackwell GEMM kernels, compiled for sm_100 in the test run without a
GPU, simulated as emitted: Triton's tutorial matmul (tl.dot on 128x128 and 128x256 tiles)
and its warp-specialized TMA matmul (tensor descriptors, ``warp_specialize=True``), and a
blocked tcgen05 matmul in Gluon's Blackwell tutorial style. Expected C: NumPy's matmul of
the inputs (small integers, exact in fp16 and fp32).

Under ``fences="acquire"`` they are race-free; under the canonical reading (the default)
each reports its missing tcgen05.fence::before/after_thread_sync races, once per pair of
PTX lines (docs/memory-model.md).

Needs the ``peer`` extra (``pip install '.[peer]'``, part of ``.[test]``)."""

import os

import numpy as np
import pytest

triton = pytest.importorskip(
    "triton", reason="Triton is not installed: pip install '.[peer]' (the peer extra) to "
                     "compile the peer kernels")
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

from tcgen05_lower.sim.api import simulate  # noqa: E402
from tcgen05_lower.sim.triton_launch import triton_launch  # noqa: E402

TARGET = GPUTarget("cuda", 100, 32)


@pytest.fixture(scope="module", autouse=True)
def triton_cache(tmp_path_factory):
    """Triton's compile cache in a temporary directory (not the user's ~/.triton)."""
    old = {k: os.environ.get(k) for k in ("TRITON_CACHE_DIR", "TRITON_DEFAULT_FP_FUSION")}
    os.environ["TRITON_CACHE_DIR"] = str(tmp_path_factory.mktemp("triton-cache"))
    os.environ["TRITON_DEFAULT_FP_FUSION"] = "1"
    yield
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def compile_for_sm100(fn, signature: dict, constants: dict, **options):
    """(PTX, metadata dict) of `fn` compiled by Triton for sm_100 (no GPU needed)."""
    src = ASTSource(fn, signature, constexprs=constants)
    kernel = triton.compile(src, target=TARGET, options=options)
    return kernel.asm["ptx"], kernel.metadata._asdict()


def small_ints(rng, shape):
    return rng.integers(-3, 4, shape).astype(np.float16)


def check_both_readings(ptx, manifest, args, output, expected):
    """Canonical: C right, races between tcgen05 ops, each pair of lines once; acquire:
    C right, no race (so every canonical race is one a tcgen05 fence pair would remove)."""
    canonical = simulate(ptx, manifest, {k: (v.copy() if isinstance(v, np.ndarray) else v)
                                         for k, v in args.items()})
    assert not canonical.problems, canonical.problems
    assert np.array_equal(canonical.outputs[output].astype(np.float32), expected)
    assert canonical.races, "Triton emits no tcgen05 fences: canonical reports races"
    pairs = [(r.ptx_line, r.other_line) for r in canonical.races]
    assert len(pairs) == len(set(pairs))
    for race in canonical.races:  # each between tcgen05 ops (or their TMEM allocation)
        assert "tcgen05" in race.message, race.message
    acquire = simulate(ptx, manifest, args, fences="acquire")
    assert acquire.ok, (acquire.races[:3], acquire.problems)
    assert np.array_equal(acquire.outputs[output].astype(np.float32), expected)
    return canonical, acquire


# -- Triton's tutorial matmul (python/tutorials/03-matrix-multiplication.py style) ----------
@triton.jit
def tutorial_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                    stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    rows = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        a = tl.load(a_tile, mask=(rows[:, None] < M) & (ks[None, :] < left), other=0.0)
        b = tl.load(b_tile, mask=(ks[:, None] < left) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk
    c_tile = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_tile, acc.to(tl.float16), mask=(rows[:, None] < M) & (cols[None, :] < N))


TUTORIAL_SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32",
                      "N": "i32", "K": "i32", "stride_am": "i32", "stride_ak": "i32",
                      "stride_bk": "i32", "stride_bn": "i32", "stride_cm": "i32",
                      "stride_cn": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
                      "BLOCK_K": "constexpr"}


@pytest.mark.parametrize("block_n, n", [(128, 192), (256, 256)])
def test_triton_tutorial_matmul(block_n, n):
    ptx, metadata = compile_for_sm100(
        tutorial_matmul, TUTORIAL_SIGNATURE,
        {"BLOCK_M": 128, "BLOCK_N": block_n, "BLOCK_K": 64}, num_warps=4, num_stages=2)
    assert "tcgen05.mma" in ptx and ".target sm_100" in ptx
    # M, K not multiples of the tile: the masks matter (K = 96: a half last K block)
    m, k = 128, 96
    rng = np.random.default_rng(37)
    a, b = small_ints(rng, (m, k)), small_ints(rng, (k, n))
    c = np.zeros((m, n), np.float16)
    values = {"a_ptr": a, "b_ptr": b, "c_ptr": c, "M": m, "N": n, "K": k,
              "stride_am": k, "stride_ak": 1, "stride_bk": n, "stride_bn": 1,
              "stride_cm": n, "stride_cn": 1}
    manifest, args = triton_launch(metadata, TUTORIAL_SIGNATURE, values,
                                   [f"ceildiv(M, 128) * ceildiv(N, {block_n})"])
    expected = a.astype(np.float32) @ b.astype(np.float32)  # NumPy
    canonical, _ = check_both_readings(ptx, manifest, args, "c_ptr", expected)
    assert canonical.ctas == -(-n // block_n)


# -- Triton's warp-specialized TMA matmul --------------------------------------------------
@triton.jit
def ws_tma_matmul(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    off_m = (pid // tiles_n) * BLOCK_M
    off_n = (pid % tiles_n) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), warp_specialize=True):
        a = a_desc.load([off_m, k * BLOCK_K])
        b = b_desc.load([off_n, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([off_m, off_n], acc.to(tl.float16))


def test_triton_warp_specialized_tma_matmul():
    bm, bn, bk = 128, 128, 64
    signature = {"a_desc": f"tensordesc<fp16[{bm}, {bk}]>",
                 "b_desc": f"tensordesc<fp16[{bn}, {bk}]>",
                 "c_desc": f"tensordesc<fp16[{bm}, {bn}]>", "M": "i32", "N": "i32",
                 "K": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
                 "BLOCK_K": "constexpr"}
    ptx, metadata = compile_for_sm100(ws_tma_matmul, signature,
                                      {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk},
                                      num_warps=4, num_stages=2)
    # what this kernel brings the simulator: by-value maps, a TMA store, brx.idx
    for form in (".param .align 64 .b8", "cvta.param", "global.shared::cta.bulk_group",
                 "brx.idx", "setmaxnreg", "mbarrier.inval"):
        assert form in ptx, form
    m, n, k = 256, 128, 192
    rng = np.random.default_rng(38)
    a, b = small_ints(rng, (m, k)), small_ints(rng, (n, k))
    c = np.zeros((m, n), np.float16)
    manifest, args = triton_launch(metadata, signature,
                                   {"a_desc": a, "b_desc": b, "c_desc": c,
                                    "M": m, "N": n, "K": k},
                                   ["ceildiv(M, 128) * ceildiv(N, 128)"])
    expected = a.astype(np.float32) @ b.astype(np.float32).T  # NumPy
    check_both_readings(ptx, manifest, args, "c_desc.tensor", expected)
    # the timing model replays it too: a peer's kernel to compare with
    timed = simulate(ptx, manifest, args, fences="acquire", timing=True)
    assert timed.ok and timed.timing.cycles > 0
    assert np.array_equal(timed.outputs["c_desc.tensor"].astype(np.float32), expected)


# -- a blocked tcgen05 matmul in Gluon (the style of Gluon's Blackwell tutorial,
# python/tutorials/gluon/06-tcgen05.py): two TMA stages, tcgen05_mma completing on an
# mbarrier, the accumulator read from TMEM and stored with TMA ----------------------------
try:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource
    from triton.experimental.gluon.language.nvidia.blackwell import (
        TensorMemoryLayout, allocate_tensor_memory, fence_async_shared, mbarrier,
        tcgen05_mma, tma)
except ImportError:  # a Triton without Gluon: its test is skipped
    gluon = None


if gluon is not None:
    @gluon.jit
    def gluon_blocked_matmul(a_desc, b_desc, c_desc, num_warps: gl.constexpr):
        block_m: gl.constexpr = c_desc.block_type.shape[0]
        block_n: gl.constexpr = c_desc.block_type.shape[1]
        block_k: gl.constexpr = a_desc.block_type.shape[1]
        stage_bytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
        a_stages = gl.allocate_shared_memory(a_desc.dtype, [2] + a_desc.block_type.shape,
                                             a_desc.layout)
        b_stages = gl.allocate_shared_memory(b_desc.dtype, [2] + b_desc.block_type.shape,
                                             b_desc.layout)
        full = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        mma_done = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        for stage in gl.static_range(2):
            mbarrier.init(full.index(stage), count=1)
        mbarrier.init(mma_done, count=1)
        off_m = gl.program_id(0) * block_m
        off_n = gl.program_id(1) * block_n
        acc = allocate_tensor_memory(gl.float32, [block_m, block_n],
                                     TensorMemoryLayout([block_m, block_n], col_stride=1))
        steps = gl.cdiv(a_desc.shape[1], block_k)
        mbarrier.expect(full.index(0), stage_bytes)
        tma.async_load(a_desc, [off_m, 0], full.index(0), a_stages.index(0))
        tma.async_load(b_desc, [off_n, 0], full.index(0), b_stages.index(0))
        for step in range(steps):
            if step + 1 < steps:  # prefetch the next K block into the other stage
                nxt = (step + 1) % 2
                mbarrier.expect(full.index(nxt), stage_bytes)
                tma.async_load(a_desc, [off_m, (step + 1) * block_k], full.index(nxt),
                               a_stages.index(nxt))
                tma.async_load(b_desc, [off_n, (step + 1) * block_k], full.index(nxt),
                               b_stages.index(nxt))
            cur = step % 2
            mbarrier.wait(full.index(cur), phase=(step // 2) & 1)
            tcgen05_mma(a_stages.index(cur), b_stages.index(cur).permute((1, 0)), acc,
                        use_acc=step > 0, mbarriers=[mma_done])
            mbarrier.wait(mma_done, phase=step & 1)
        for stage in gl.static_range(2):
            mbarrier.invalidate(full.index(stage))
        mbarrier.invalidate(mma_done)
        c_smem = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_type.shape, c_desc.layout)
        c_smem.store(acc.load().to(c_desc.dtype))
        fence_async_shared()
        tma.async_store(c_desc, [off_m, off_n], c_smem)
        tma.store_wait(pendings=0)


def gluon_descriptor(block):
    layout = gl.NVMMASharedLayout.get_default_for(block, gl.float16)
    return f"tensordesc<fp16[{block[0]}, {block[1]}],{layout!r}>"


@pytest.mark.skipif(gluon is None, reason="this Triton has no Gluon (triton.experimental.gluon)")
def test_gluon_blocked_tcgen05_matmul():
    signature = {"a_desc": gluon_descriptor([128, 64]), "b_desc": gluon_descriptor([128, 64]),
                 "c_desc": gluon_descriptor([128, 128]), "num_warps": "constexpr"}
    src = GluonASTSource(gluon_blocked_matmul, signature, constexprs={"num_warps": 4})
    kernel = triton.compile(src, target=TARGET, options={"num_warps": 4})
    ptx, metadata = kernel.asm["ptx"], kernel.metadata._asdict()
    assert "tcgen05.mma" in ptx and "global.shared::cta.bulk_group" in ptx
    m, n, k = 256, 128, 192  # 2 x 1 programs, 3 K blocks
    rng = np.random.default_rng(39)
    a, b = small_ints(rng, (m, k)), small_ints(rng, (n, k))
    c = np.zeros((m, n), np.float16)
    manifest, args = triton_launch(metadata, signature, {"a_desc": a, "b_desc": b,
                                                         "c_desc": c}, ["2", "1"])
    expected = a.astype(np.float32) @ b.astype(np.float32).T  # NumPy
    check_both_readings(ptx, manifest, args, "c_desc.tensor", expected)
