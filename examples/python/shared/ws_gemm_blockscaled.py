"""The block-scaled warp-specialized GEMM of examples/ws_gemm_mxf8_blockscaled.mlir,
ws_gemm_nvf4_blockscaled.mlir and ws_gemm_mxf4_blockscaled.mlir, built for one of their
formats (:data:`FORMATS`): C (M x N, bf16) = (A * SFA) x (B * SFB)^T, one CTA per
128 x 128 tile of C, K in run-time blocks of 128 elements through 2-stage TMA rings of A,
B and the scale factors, and per stage tcgen05.cp of the scale factors into TMEM scale
rings; the compiler writes the synchronization (tcgen05-insert-sync). With ``pair``, the
CTA-pair variant of examples/ws_gemm_mxf8_blockscaled_2cta.mlir: cta_group 2, a 256 x 128
tile of C per pair (each CTA its 128 rows of A, 64 of B, its rows' A scale factors and all
128 columns' B scale factors), the grid 2 x ceildiv(M, 256) x ceildiv(N, 128).

The twins (examples/python/ws_gemm_*_blockscaled.py) call :func:`build` with their
format; this file sits in a folder of its own because it is no example's twin."""

from dataclasses import dataclass

from tcgen05_lower.builder import KernelBuilder, tensor_map

#: The tile of C a CTA computes (M and N) and the K elements of a block.
TILE, K_BLOCK = 128, 128
#: Ring stages of A, B and the scale factors.
STAGES = 2
#: A [32, 16] byte tile of scale factors: 32 rows of the blocked layout that
#: tcgen05.cp.32x128b.warpx4 copies into a [128, 4] TMEM buffer (tmem-facts section 3).
SF_ROWS, SF_BYTES = 32, 16


@dataclass(frozen=True)
class Format:
    """One block-scaled MMA kind as the examples use it (PTX ISA 9.7.16.10.7, Table 54)."""

    element: str  # of A and B
    swizzle: str  # of the A and B tiles and their tensor maps
    row_bytes: int  # bytes of a K block's row of A or B (the box's and coordinate's unit)
    scale: str  # the scale factors' element type
    buffers: int  # scale buffers per operand: MMA j reads buffer j mod buffers
    mma_k: int  # K of one MMA (Table 39)
    kind: str
    scale_vec: str
    scale_ids: bool  # the MMAs name scale_a_id / scale_b_id 0 (all of a cell)
    numbered: bool  # the scale buffers are named sfa0, sfa1, ... (else sfa, sfb)


FORMATS = {
    # e4m3, one ue8m0 factor per 32 elements: four K = 32 MMAs, MMA j reads factor j.
    "mxf8": Format("f8E4M3FN", "128B", 128, "f8E8M0FNU", 1, 32, "mxf8f6f4", "1X",
                   scale_ids=False, numbered=False),
    # e2m1 packed two per byte, one ue4m3 factor per 16 elements: two K = 64 MMAs, each
    # reading all four factors of a cell of its own buffers.
    "nvf4": Format("f4E2M1FN", "64B", 64, "f8E4M3", 2, 64, "mxf4nvf4", "4X",
                   scale_ids=True, numbered=True),
    # e2m1, one ue8m0 factor per 32 elements: two K = 64 MMAs reading factors 2j, 2j + 1.
    "mxf4": Format("f4E2M1FN", "64B", 64, "f8E8M0FNU", 1, 64, "mxf4", "block32",
                   scale_ids=False, numbered=True),
}


def build(name: str, fmt: str, pair: bool = False) -> KernelBuilder:
    """The kernel `name` for the format `fmt` (a key of :data:`FORMATS`), on CTA pairs
    if `pair`."""
    f = FORMATS[fmt]
    ctas = 2 if pair else 1
    tile_m, b_rows = TILE * ctas, TILE // ctas   # C rows per CTA group, B rows per CTA
    params = {p: "!llvm.ptr<1>" for p in ("A", "B", "SFA", "SFB", "C")}
    params.update({p: "i32" for p in ("M", "N", "K")})
    params.update({
        "tmA": tensor_map("A", box=[f.row_bytes, TILE], swizzle=f.swizzle),
        "tmB": tensor_map("B", box=[f.row_bytes, b_rows], swizzle=f.swizzle),
        "tmSFA": tensor_map("SFA", box=[SF_BYTES, SF_ROWS], swizzle="none"),
        "tmSFB": tensor_map("SFB", box=[SF_BYTES, SF_ROWS], swizzle="none")})
    grid = ["2", f"ceildiv(M, {tile_m})", f"ceildiv(N, {TILE})"] if pair else \
        [f"ceildiv(N, {TILE})", f"ceildiv(M, {TILE})"]
    k = KernelBuilder(name, threads=256, params=params, grid=grid,
                      **({"cta_group": 2} if pair else {}))
    m, n, k_size = k.size("M"), k.size("N"), k.size("K")
    if pair:
        tile_m_id, tile_n = k.block_id("y"), k.block_id("z")
    else:
        tile_n, tile_m_id = k.block_id("x"), k.block_id("y")
    m0, n0 = k.mul(tile_m_id, tile_m), k.mul(tile_n, TILE)
    kblocks = k.div(k.add(k_size, K_BLOCK - 1), K_BLOCK)

    a = k.smem([TILE, K_BLOCK], f.element, swizzle=f.swizzle, stages=STAGES)
    b = k.smem([b_rows, K_BLOCK], f.element, swizzle=f.swizzle, stages=STAGES)
    sf_smem = {op: [k.smem([SF_ROWS, SF_BYTES], "i8", swizzle="none", stages=STAGES)
                    for _ in range(f.buffers)] for op in "ab"}
    acc = k.tmem([tile_m, TILE], "f32", name="acc")
    sf_tmem = {op: [k.tmem([TILE, 4], f.scale, stages=STAGES,
                           name=f"sf{op}{j}" if f.numbered else f"sf{op}")
                    for j in range(f.buffers)] for op in "ab"}

    with k.role("load", first_warp=0, warps=1):
        with k.loop(0, kblocks, 1) as kb:
            s = k.rem(kb, STAGES)
            kk = k.mul(kb, f.row_bytes)  # the maps of A and B count bytes
            a_s, b_s = k.stage(a, s), k.stage(b, s)
            sf_s = {op: [k.stage(ring, s) for ring in sf_smem[op]] for op in "ab"}
            # Scale buffer h of K block kb of tile t: the 32 rows from
            # ((t * kblocks + kb) * buffers + h) * 32 (the examples' blocked layout; in a
            # pair, SFA's K block holds both CTAs' rows, the lowering adds rank * 32).
            rows = {}
            for op, tile, group in (("a", tile_m_id, ctas), ("b", tile_n, 1)):
                first = k.mul(k.add(k.mul(tile, kblocks), kb), SF_ROWS * f.buffers * group)
                rows[op] = [first] + [k.add(first, SF_ROWS * h) for h in range(1, f.buffers)]
            k.tma_load("tmA", a_s, [kk, m0])
            k.tma_load("tmB", b_s, [kk, n0])
            for op in "ab":
                for tile, row in zip(sf_s[op], rows[op]):
                    k.tma_load(f"tmSF{op.upper()}", tile, [0, row])

    with k.role("mma", first_warp=1, warps=1):
        with k.loop(0, kblocks, 1) as kb:
            s = k.rem(kb, STAGES)
            a_s, b_s = k.stage(a, s), k.stage(b, s)
            sf_s = {op: [k.stage(ring, s) for ring in sf_smem[op]] for op in "ab"}
            sf_t = {op: [k.stage(ring, s) for ring in sf_tmem[op]] for op in "ab"}
            for op in "ab":
                for dest, source in zip(sf_t[op], sf_s[op]):
                    k.cp(dest, source, shape="32x128b", multicast="warpx4")
            # The first MMA of the first K block overwrites the accumulator.
            accumulate = k.cmp("ne", kb, 0)
            ids = {"scale_a_id": 0, "scale_b_id": 0} if f.scale_ids else {}
            for j in range(K_BLOCK // f.mma_k):
                h = j % f.buffers
                k.mma(acc, a_s, b_s, accumulate if j == 0 else True, kind=f.kind,
                      scale_a=sf_t["a"][h], scale_b=sf_t["b"][h], scale_vec=f.scale_vec,
                      k_offset=j * f.mma_k, **ids)

    with k.role("epilogue", first_warp=4, warps=4):
        with k.loop(0, TILE, 32) as col:
            out = k.frag_map(lambda x, row, c: k.convert(x, "bf16"), k.ld(acc, col, 32),
                             element="bf16")
            k.store_fragment(out, "C", col, ld=n, row_offset=m0, column_offset=n0, rows=m,
                             columns=n)
    return k
