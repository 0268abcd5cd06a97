"""The PTX other front ends (Triton, Gluon) emit around tcgen05, on small hand-written
kernels: ldmatrix / stmatrix fragments, brx.idx with .branchtargets, bar.warp.sync,
mbarrier.inval, cvt to f16x2, module-scope DWARF sections, a .loc inside an inline-asm
block, by-value tensor-map parameters read through cvta.param, TMA stores with bulk
async-groups, and grid products. Expected values are hand-derived from the PTX ISA
sections each test names (or NumPy)."""

import numpy as np
import pytest

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.api import LaunchError, grid_of, simulate
from tcgen05_lower.sim.state import SimError

HEADER = """.version 8.7
.target sm_100a
.address_size 64
"""


def kernel(body: str, params=(".u64 .ptr .global .align 1 k_param_0",
                              ".u64 .ptr .global .align 1 k_param_1"),
           threads=32, extra="", tail="") -> str:
    plist = ",\n".join(f"\t.param {p}" for p in params)
    return (HEADER + extra + f".visible .entry k(\n{plist}\n)\n.reqntid {threads}\n{{\n"
            "\t.reg .pred %p<9>;\n\t.reg .b16 %rs<9>;\n\t.reg .b32 %r<60>;\n"
            "\t.reg .b64 %rd<40>;\n" + body + "\n}\n" + tail)


def manifest(names=("src", "out"), threads=32, **extra):
    return {"entry": "k", "threads": threads,
            "params": [{"name": n, "pointer": True} for n in names], **extra}


# -- ldmatrix / stmatrix (PTX ISA 9.7.14.5.15, 9.7.14.5.16) -------------------------------
# Lane t copies row t (16 bytes of src) into shared memory at 32-byte row pitch (rows are
# not contiguous, so the row addresses matter), then the warp runs ldmatrix.x4 with lane
# t giving the address of its row, and each lane stores its 4 registers to out[t, 0..3].
LDMATRIX = """
	.shared .align 16 .b8 rows[1024];
	ld.param.b64 	%rd1, [k_param_0];
	ld.param.b64 	%rd2, [k_param_1];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 16;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.v4.b32 	{%r2, %r3, %r4, %r5}, [%rd4];
	mov.u32 	%r6, rows;
	shl.b32 	%r7, %r1, 5;
	add.s32 	%r8, %r6, %r7;
	st.shared.v4.b32 	[%r8], {%r2, %r3, %r4, %r5};
	bar.sync 	0;
	ldmatrix.sync.aligned.m8n8.x4{TRANS}.shared.b16 {%r10, %r11, %r12, %r13}, [%r8];
	add.s64 	%rd5, %rd2, %rd3;
	st.global.v4.b32 	[%rd5], {%r10, %r11, %r12, %r13};
	ret;
"""


def fragment_expected(src: np.ndarray, trans: bool) -> np.ndarray:
    """out[lane, i] per the ISA's m8n8 fragment figure: lane L holds row L/4, columns
    2*(L%4) and 2*(L%4)+1 of matrix i (lower half first); matrix i's row r is the row
    lane 8i + r addressed; .trans holds the transposed matrix."""
    m = src.reshape(4, 8, 8)  # matrix i, row r, column c
    out = np.zeros((32, 4), np.uint32)
    for lane in range(32):
        for i in range(4):
            row, col = lane // 4, 2 * (lane % 4)
            pick = (lambda r, c: m[i, c, r]) if trans else (lambda r, c: m[i, r, c])
            out[lane, i] = int(pick(row, col)) | int(pick(row, col + 1)) << 16
    return out


@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_x4_fragments(trans):
    src = np.arange(32 * 8, dtype=np.uint16) * 3 + 1
    out = np.zeros((32, 4), np.uint32)
    text = kernel(LDMATRIX.replace("{TRANS}", ".trans" if trans else ""))
    result = simulate(text, manifest(), {"src": src, "out": out})
    assert result.ok
    assert np.array_equal(out, fragment_expected(src, trans))


# stmatrix stores the registers ldmatrix would load: lane t's 4 registers come from
# src[t, 0..3]; the rows land at 32-byte pitch and lane t copies row t back to out.
STMATRIX = """
	.shared .align 16 .b8 rows[1024];
	ld.param.b64 	%rd1, [k_param_0];
	ld.param.b64 	%rd2, [k_param_1];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 16;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.v4.b32 	{%r10, %r11, %r12, %r13}, [%rd4];
	mov.u32 	%r6, rows;
	shl.b32 	%r7, %r1, 5;
	add.s32 	%r8, %r6, %r7;
	stmatrix.sync.aligned.m8n8.x4{TRANS}.shared.b16 [%r8], {%r10, %r11, %r12, %r13};
	bar.sync 	0;
	ld.shared.v4.b32 	{%r2, %r3, %r4, %r5}, [%r8];
	add.s64 	%rd5, %rd2, %rd3;
	st.global.v4.b32 	[%rd5], {%r2, %r3, %r4, %r5};
	ret;
"""


@pytest.mark.parametrize("trans", [False, True])
def test_stmatrix_is_the_inverse_of_ldmatrix(trans):
    matrices = np.arange(32 * 8, dtype=np.uint16) * 5 + 2
    registers = fragment_expected(matrices, trans)  # what ldmatrix gives for `matrices`
    out = np.zeros(32 * 8, np.uint16)
    text = kernel(STMATRIX.replace("{TRANS}", ".trans" if trans else ""))
    result = simulate(text, manifest(), {"src": registers, "out": out})
    assert result.ok
    assert np.array_equal(out, matrices)


def test_ldmatrix_needs_the_whole_warp():
    text = kernel(LDMATRIX.replace("{TRANS}", "").replace(
        "\tldmatrix", "\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 ldmatrix"))
    with pytest.raises(SimError, match="guard|every lane"):
        simulate(text, manifest(), {"src": np.zeros(256, np.uint16),
                                    "out": np.zeros((32, 4), np.uint32)})


# -- brx.idx (9.7.12.4) and .branchtargets (11.3.1) ---------------------------------------
BRX = """
TABLE:
	.branchtargets
		$L0,
		$L1,
		$L2;
	ld.param.b64 	%rd2, [k_param_1];
	mov.u32 	%r1, %tid.x;
	rem.u32 	%r2, %r1, 3;
	brx.idx 	%r2, TABLE;
$L0:
	mov.b32 	%r3, 100;
	bra.uni 	$JOIN;
$L1:
	mov.b32 	%r3, 200;
	bra.uni 	$JOIN;
$L2:
	mov.b32 	%r3, 300;
$JOIN:
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd5, %rd2, %rd3;
	st.global.b32 	[%rd5], %r3;
	ret;
"""


def test_brx_idx_jumps_to_the_indexed_target():
    out = np.zeros(32, np.uint32)
    result = simulate(kernel(BRX), manifest(), {"src": np.zeros(1, np.uint8), "out": out})
    assert result.ok
    # hand-derived: thread t takes target t % 3
    assert np.array_equal(out, np.array([100, 200, 300])[np.arange(32) % 3])


def test_brx_idx_index_past_the_list():
    text = kernel(BRX.replace("rem.u32 	%r2, %r1, 3", "rem.u32 	%r2, %r1, 4"))
    with pytest.raises(SimError, match="past the 3 targets of TABLE"):
        simulate(text, manifest(), {"src": np.zeros(1, np.uint8),
                                    "out": np.zeros(32, np.uint32)})


# -- bar.warp.sync (9.7.13.2), cvt.rn.f16x2.f32 (9.7.9.21) ----------------------------------
CVT = """
	ld.param.b64 	%rd1, [k_param_0];
	ld.param.b64 	%rd2, [k_param_1];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 8;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.v2.b32 	{%r2, %r3}, [%rd4];
	bar.warp.sync 	-1;
	cvt.rn.{TYPE}.f32 	%r4, %r2, %r3;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd2, %rd5;
	st.global.b32 	[%rd6], %r4;
	ret;
"""


@pytest.mark.parametrize("kind", ["f16x2", "bf16x2"])
def test_cvt_packs_a_into_the_upper_half(kind):
    import ml_dtypes

    rng = np.random.default_rng(1)
    pairs = (rng.standard_normal((32, 2)) * 100).astype(np.float32)
    out = np.zeros(32, np.uint32)
    simulate(kernel(CVT.replace("{TYPE}", kind)), manifest(), {"src": pairs, "out": out})
    # NumPy / ml_dtypes round to nearest even, as .rn does
    half = np.float16 if kind == "f16x2" else ml_dtypes.bfloat16
    bits = pairs.astype(half).view(np.uint16).astype(np.uint32)
    assert np.array_equal(out, bits[:, 0] << 16 | bits[:, 1])


def test_bar_warp_sync_needs_the_thread_in_its_mask():
    text = kernel(CVT.replace("{TYPE}", "f16x2").replace("bar.warp.sync 	-1",
                                                          "bar.warp.sync 	65535"))
    with pytest.raises(SimError, match="not in its own membermask"):
        simulate(text, manifest(), {"src": np.zeros((32, 2), np.float32),
                                    "out": np.zeros(32, np.uint32)})


# -- mbarrier.inval (9.7.13.15.10) ----------------------------------------------------------
INVAL = """
	.shared .align 8 .b64 bar;
	mov.u32 	%r1, %tid.x;
	setp.eq.u32 	%p1, %r1, 0;
	mov.u32 	%r2, bar;
	@%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
	bar.sync 	0;
	@%p1 mbarrier.inval.shared::cta.b64 [%r2];
	{AFTER}
	ret;
"""


def test_mbarrier_inval_then_use_is_reported():
    after = "@%p1 mbarrier.arrive.shared::cta.b64 %rd1, [%r2];"
    text = kernel(INVAL.replace("{AFTER}", after))
    with pytest.raises(SimError, match="before mbarrier.init"):
        simulate(text, manifest(), {"src": np.zeros(1, np.uint8),
                                    "out": np.zeros(1, np.uint8)})


def test_mbarrier_inval_twice_is_reported():
    text = kernel(INVAL.replace("{AFTER}", "@%p1 mbarrier.inval.shared::cta.b64 [%r2];"))
    with pytest.raises(SimError, match="not initialized \\(or already invalidated\\)"):
        simulate(text, manifest(), {"src": np.zeros(1, np.uint8),
                                    "out": np.zeros(1, np.uint8)})


def test_mbarrier_inval_then_init_again_is_fine():
    text = kernel(INVAL.replace("{AFTER}", "@%p1 mbarrier.init.shared::cta.b64 [%r2], 1;"))
    assert simulate(text, manifest(), {"src": np.zeros(1, np.uint8),
                                       "out": np.zeros(1, np.uint8)}).ok


# -- the parser: DWARF sections (11.5.2), .loc inside an inline-asm block ------------------
DWARF = """	.file	1 "k.py"
	.section	.debug_abbrev
	{
.b8 1
.b8 17
	}
	.section	.debug_info
	{
.b32 57
.b8 2
	}
	.section	.debug_macinfo	{	}
"""

LOC_IN_BLOCK = """
	.shared .align 8 .b64 bar;
	mov.u32 	%r1, %tid.x;
	setp.eq.u32 	%p1, %r1, 0;
	mov.u32 	%r2, bar;
	@%p1 mbarrier.init.shared::cta.b64 [%r2], 32;
	bar.sync 	0;
	mbarrier.arrive.shared::cta.b64 %rd1, [%r2];
	mov.b32 	%r3, 0;
	// begin inline asm
	{
	.reg .pred complete;
	.loc	1 19 15
	waitLoop:
	.loc	1 20 15
	mbarrier.try_wait.parity.shared::cta.b64 complete, [%r2], %r3;
	@!complete bra.uni waitLoop;
	}
	// end inline asm
	ret;
"""


def test_dwarf_sections_and_loc_before_a_block_label():
    text = kernel(LOC_IN_BLOCK, tail=DWARF)
    entry = P.parse(text).entry("k")
    # the label after the .loc is the block's own (renamed), at the try_wait
    (label,) = [name for name in entry.labels if name.startswith("waitLoop")]
    assert entry.instructions[entry.labels[label]].opcode.startswith("mbarrier.try_wait")
    assert simulate(text, manifest(), {"src": np.zeros(1, np.uint8),
                                       "out": np.zeros(1, np.uint8)}).ok


def test_by_value_parameter_is_parsed():
    text = kernel("\tret;", params=(".align 64 .b8 k_param_0[128]", ".u32 k_param_1"))
    p0, p1 = P.parse(text).entry("k").params
    assert (p0.name, p0.size, p1.name, p1.size) == ("k_param_0", 128, "k_param_1", None)


# -- TMA store through a by-value tensor map (9.7.9.25.5.1, 9.7.9.25.6) -------------------
# Every thread writes 8 bytes of a 16 x 32 fp16 box (64-byte rows, no swizzle), fences the
# async proxy, a barrier, then thread 0 stores the box at coordinates (16, 8) of a
# 32 x 64 tensor through the by-value map, commits and waits.
TMA_STORE = """
	.shared .align 128 .b8 box[1024];
	mov.b32 	%r20, k_param_0;
	cvt.u64.u32 	%rd20, %r20;
	cvta.param.u64 	%rd21, %rd20;
	ld.param.b64 	%rd1, [k_param_1];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 8;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.v2.b32 	{%r2, %r3}, [%rd4];
	mov.u32 	%r6, box;
	shl.b32 	%r7, %r1, 3;
	add.s32 	%r8, %r6, %r7;
	st.shared.v2.b32 	[%r8], {%r2, %r3};
	{FENCE}
	bar.sync 	0;
	setp.eq.u32 	%p1, %r1, 0;
	mov.b32 	%r10, 16;
	mov.b32 	%r11, 8;
	@%p1 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd21, {%r10, %r11}], [%r6];
	{WAIT}
	ret;
"""
FENCE = "fence.proxy.async.shared::cta;"
WAIT = "cp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 	0;"


def tma_store_launch():
    ptx_params = (".align 64 .b8 k_param_0[128]", ".u64 .ptr .global .align 1 k_param_1")
    man = {"entry": "k", "threads": 128, "grid": ["1"], "params": [
        {"name": "c_map", "pointer": False,
         "tensor_map": {"tensor": "c", "box": [32, 16], "swizzle": "none"}},
        {"name": "src", "pointer": True}]}
    src = np.arange(16 * 32, dtype=np.float16)
    c = np.full((32, 64), -1, np.float16)
    return ptx_params, man, src, c


def test_tma_store_through_a_by_value_map():
    params, man, src, c = tma_store_launch()
    text = kernel(TMA_STORE.replace("{FENCE}", FENCE).replace("{WAIT}", WAIT), params,
                  threads=128)
    result = simulate(text, man, {"src": src, "c": c})
    assert result.ok, (result.races, result.problems)
    expected = np.full((32, 64), -1, np.float16)
    expected[8:24, 16:48] = src.reshape(16, 32)  # rows c1.., columns c0..
    assert np.array_equal(c, expected)
    assert np.array_equal(result.outputs["c"], expected)


def test_tma_store_without_proxy_fence_races():
    params, man, src, c = tma_store_launch()
    text = kernel(TMA_STORE.replace("{FENCE}", "").replace("{WAIT}", WAIT), params,
                  threads=128)
    result = simulate(text, man, {"src": src, "c": c})
    assert result.races and "no fence.proxy.async" in str(result.races[0])


def test_tma_store_not_waited_is_reported():
    params, man, src, c = tma_store_launch()
    text = kernel(TMA_STORE.replace("{FENCE}", FENCE).replace("{WAIT}", ""), params,
                  threads=128)
    result = simulate(text, man, {"src": src, "c": c})
    assert any("is not waited for" in p for p in result.problems)


def test_tma_store_source_overwritten_before_the_wait_races():
    params, man, src, c = tma_store_launch()
    overwrite = "@%p1 st.shared.b32 [%r6], %r1;\n\t" + WAIT
    text = kernel(TMA_STORE.replace("{FENCE}", FENCE).replace("{WAIT}", overwrite), params,
                  threads=128)
    result = simulate(text, man, {"src": src + 1, "c": c})
    assert any("overwritten before cp.async.bulk.wait_group.read" in str(r)
               for r in result.races)


def test_by_value_parameter_needs_a_tensor_map():
    params, man, src, c = tma_store_launch()
    text = kernel(TMA_STORE.replace("{FENCE}", FENCE).replace("{WAIT}", WAIT), params,
                  threads=128)
    man["params"][0] = {"name": "c_map", "pointer": False}
    with pytest.raises(LaunchError, match="by-value array of 128 bytes"):
        simulate(text, man, {"src": src, "c_map": 5})


def test_cvta_param_of_a_pointer_parameter_is_reported():
    text = kernel("\tmov.b32 	%r20, k_param_0;\n\tcvt.u64.u32 	%rd20, %r20;\n"
                  "\tcvta.param.u64 	%rd21, %rd20;\n\tret;")
    with pytest.raises(SimError, match="unknown symbol src"):
        simulate(text, manifest(), {"src": np.zeros(1, np.uint8),
                                    "out": np.zeros(1, np.uint8)})


# -- grid products ---------------------------------------------------------------------------
def test_grid_products():
    args = {"M": 300, "N": 129}
    grid = grid_of({"grid": ["ceildiv(M, 128) * ceildiv(N, 128)", "2 * 3"]}, args, 1)
    assert grid == (3 * 2, 6, 1)  # hand-derived: ceil(300/128) = 3, ceil(129/128) = 2
    with pytest.raises(SimError, match="is not a product"):
        grid_of({"grid": ["M + N"]}, args, 1)


# -- cp.async (9.7.9.25.3): 16-byte copies with src-size zero fill, groups -----------------
CP_ASYNC = """
	.shared .align 16 .b8 tile[512];
	ld.param.b64 	%rd1, [k_param_0];
	ld.param.b64 	%rd2, [k_param_1];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 16;
	add.s64 	%rd4, %rd1, %rd3;
	mov.u32 	%r6, tile;
	shl.b32 	%r7, %r1, 4;
	add.s32 	%r8, %r6, %r7;
	and.b32 	%r9, %r1, 1;
	shl.b32 	%r10, %r9, 3;
	add.s32 	%r11, %r10, 8;
	cp.async.cg.shared.global 	[%r8], [%rd4], 16, %r11;
	cp.async.commit_group;
	{WAIT}
	bar.sync 	0;
	xor.b32 	%r12, %r1, 31;
	shl.b32 	%r13, %r12, 4;
	add.s32 	%r14, %r6, %r13;
	ld.shared.v4.b32 	{%r2, %r3, %r4, %r5}, [%r14];
	add.s64 	%rd5, %rd2, %rd3;
	st.global.v4.b32 	[%rd5], {%r2, %r3, %r4, %r5};
	ret;
"""


def test_cp_async_copies_with_zero_fill():
    src = np.arange(32 * 16, dtype=np.uint8).reshape(32, 16) + 1
    out = np.zeros((32, 16), np.uint8)
    text = kernel(CP_ASYNC.replace("{WAIT}", "cp.async.wait_group 	0;"))
    result = simulate(text, manifest(), {"src": src, "out": out})
    assert result.ok
    # hand-derived: thread t copied src-size = 8 + 8 * (t % 2) bytes of row t, zeros after;
    # thread t reads row t ^ 31
    rows = src.copy()
    rows[0::2, 8:] = 0
    assert np.array_equal(out, rows[np.arange(32) ^ 31])


def test_cp_async_not_waited_is_reported():
    text = kernel(CP_ASYNC.replace("{WAIT}", ""))
    result = simulate(text, manifest(), {"src": np.zeros((32, 16), np.uint8),
                                         "out": np.zeros((32, 16), np.uint8)})
    assert any("cp.async at PTX line" in p and "not waited for" in p
               for p in result.problems)


# -- the timing model's barrier instances ---------------------------------------------------
# Barrier 0 used with all 128 threads and, in between, by warps 0-1 alone with a count of
# 64 (as Triton's warp-specialized kernels do: bar.sync 0 and bar.sync 0, 128), while warps
# 2-3 work, then meet warps 0-1 (which work after their barrier) at the final barrier 0.
# Each release is one instance: warps 0-1's 64-thread barrier must not wait for warps 2-3's
# arrival at the final one (counting arrivals per barrier number pairs them), so the run
# takes as long as with a barrier number of their own.
MIXED_COUNTS = """
	mov.u32 	%r1, %tid.x;
	mov.b32 	%r5, 0;
	bar.sync 	0;
	setp.lt.u32 	%p1, %r1, 64;
	@%p1 bra 	$FIRST;
$WORK2:
	add.s32 	%r5, %r5, 1;
	setp.lt.u32 	%p2, %r5, 300;
	@%p2 bra 	$WORK2;
	bra.uni 	$JOIN;
$FIRST:
	bar.sync 	{NUMBER}, 64;
$WORK1:
	add.s32 	%r5, %r5, 1;
	setp.lt.u32 	%p2, %r5, 300;
	@%p2 bra 	$WORK1;
$JOIN:
	bar.sync 	0;
	ret;
"""


def test_timing_pairs_each_barrier_release():
    def cycles(number):
        result = simulate(kernel(MIXED_COUNTS.replace("{NUMBER}", number), threads=128),
                          manifest(threads=128),
                          {"src": np.zeros(1, np.uint8), "out": np.zeros(1, np.uint8)},
                          timing=True)
        assert result.ok
        return result.timing.cycles

    assert cycles("0") == cycles("2")


# -- cvt.rn.bf16.f16 (9.7.9.21), which Triton emits for bf16 operands -------------------------
CVT_BF16 = """
	ld.param.b64 	%rd1, [k_param_0];
	ld.param.b64 	%rd2, [k_param_1];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 2;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.b16 	%rs1, [%rd4];
	cvt.rn.bf16.f16 	%rs2, %rs1;
	add.s64 	%rd5, %rd2, %rd3;
	st.global.b16 	[%rd5], %rs2;
	ret;
"""


def test_cvt_bf16_from_f16():
    import ml_dtypes

    rng = np.random.default_rng(2)
    src = (rng.standard_normal(32) * 1000).astype(np.float16)
    src[:3] = [np.inf, -0.0, 65504]
    out = np.zeros(32, np.uint16)
    assert simulate(kernel(CVT_BF16), manifest(), {"src": src, "out": out}).ok
    # f16 is exact in f32; ml_dtypes rounds f32 to bf16 to nearest even, as .rn does
    assert np.array_equal(out, src.astype(np.float32).astype(ml_dtypes.bfloat16)
                          .view(np.uint16))
