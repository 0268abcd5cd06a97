"""Twin of examples/ws_gemm_bf16_grid_2cta.mlir, the flagship: a persistent,
warp-specialized bf16 GEMM on CTA pairs (cta_group 2) in a 2 x 1 cluster, a 4-stage TMA
ring, a double-buffered accumulator, a tile scheduler over run-time M, N and K (the
raster argument chooses M or N first), edge tiles inside M x N; the compiler writes the
synchronization."""

from tcgen05_lower.bindings import ir
from tcgen05_lower.builder import KernelBuilder, tensor_map

#: The pair's tile of C (M = N = 256 MMAs), the K block, the ring and accumulator stages.
TILE, K_BLOCK, RING, ACC_STAGES = 256, 64, 4, 2
#: K of one kind::f16 MMA (Table 39) and the columns of one tcgen05.ld.
MMA_K, LD_COLUMNS = 16, 32


def build() -> KernelBuilder:
    params = {p: "!llvm.ptr<1>" for p in ("A", "B", "C")}
    params.update({p: "i32" for p in ("M", "N", "K", "raster", "ctas")})
    params.update({"tmA": tensor_map("A", box=[64, 128], swizzle="128B"),
                   "tmB": tensor_map("B", box=[64, 128], swizzle="128B")})
    k = KernelBuilder("ws_gemm_bf16_grid_2cta", threads=256, cta_group=2, params=params,
                      grid=["ctas", "1"], kernel={"cluster": [2, 1]})
    m, n, k_size = k.size("M"), k.size("N"), k.size("K")
    along_n = k.cmp("ne", k.arg("raster"), 0)

    def gpu(name, dimension):
        """gpu.<name> along `dimension`: the cluster queries the builder has no call for."""
        with k.context:
            attribute = ir.Attribute.parse(f"#gpu<dim {dimension}>")
        return k.op(f"gpu.{name}", attributes={"dimension": attribute},
                    result_types=["index"]).result

    def ceildiv(lhs, rhs):
        return k.op("arith.ceildivui", [lhs, rhs], result_types=["index"]).result

    def select(condition, if_true, if_false):
        return k.op("arith.select", [condition, if_true, if_false],
                    result_types=["index"]).result

    # The cluster's shape and this CTA's place (pairs along x and y, this pair's position,
    # the cluster's id and the number of clusters).
    cx = gpu("cluster_dim_blocks", "x")
    pairs_y = gpu("cluster_dim_blocks", "y")
    pairs_x = k.div(cx, 2)
    pair_x = k.div(gpu("cluster_block_id", "x"), 2)
    pair_y = gpu("cluster_block_id", "y")
    cid = gpu("cluster_id", "x")
    nclusters = gpu("cluster_dim", "x")

    # The tile scheduler's counts: this cluster takes cluster tiles cid, cid + ncl, ..
    m_tiles, n_tiles = ceildiv(m, TILE), ceildiv(n, TILE)
    ctm, ctn = ceildiv(m_tiles, pairs_x), ceildiv(n_tiles, pairs_y)
    cluster_tiles = k.mul(ctm, ctn)
    has_tiles = k.cmp("ult", cid, cluster_tiles)
    share = ceildiv(k.sub(cluster_tiles, cid), nclusters)
    count = select(has_tiles, share, k.constant(0))
    kblocks = ceildiv(k_size, K_BLOCK)

    a = k.smem([128, K_BLOCK], "bf16", swizzle="128B", stages=RING)
    b = k.smem([128, K_BLOCK], "bf16", swizzle="128B", stages=RING)
    acc = k.tmem([TILE, TILE], "f32", name="acc", stages=ACC_STAGES)

    def tile_origin(i):
        """(m0, n0): this pair's tile of cluster tile cid + i ncl, in the raster order."""
        c = k.add(cid, k.mul(i, nclusters))
        c_mod_m, c_div_m = k.rem(c, ctm), k.div(c, ctm)
        c_mod_n, c_div_n = k.rem(c, ctn), k.div(c, ctn)
        cm = select(along_n, c_div_n, c_mod_m)
        cn = select(along_n, c_mod_n, c_div_m)
        tile_m = k.add(k.mul(cm, pairs_x), pair_x)
        tile_n = k.add(k.mul(cn, pairs_y), pair_y)
        return k.mul(tile_m, TILE), k.mul(tile_n, TILE)

    with k.role("load", first_warp=0, warps=1):
        with k.loop(0, count, 1) as i:
            m0, n0 = tile_origin(i)
            base = k.mul(i, kblocks)
            with k.loop(0, kblocks, 1) as kb:
                s = k.rem(k.add(base, kb), RING)
                kk = k.mul(kb, K_BLOCK)
                a_s, b_s = k.stage(a, s), k.stage(b, s)
                k.tma_load("tmA", a_s, [kk, m0])
                k.tma_load("tmB", b_s, [kk, n0])

    with k.role("mma", first_warp=1, warps=1):
        with k.loop(0, count, 1) as i:
            d = k.stage(acc, k.rem(i, ACC_STAGES))
            base = k.mul(i, kblocks)
            with k.loop(0, kblocks, 1) as kb:
                s = k.rem(k.add(base, kb), RING)
                a_s, b_s = k.stage(a, s), k.stage(b, s)
                # The first MMA of a tile overwrites its accumulator stage.
                accumulate = k.cmp("ne", kb, 0)
                for j, k_offset in enumerate(range(0, K_BLOCK, MMA_K)):
                    k.mma(d, a_s, b_s, accumulate if j == 0 else True, kind="f16",
                          k_offset=k_offset)

    with k.role("epilogue", first_warp=4, warps=4):
        with k.loop(0, count, 1) as i:
            m0, n0 = tile_origin(i)
            d = k.stage(acc, k.rem(i, ACC_STAGES))
            with k.loop(0, TILE, LD_COLUMNS) as col:
                frag = k.ld(d, col, LD_COLUMNS)
                k.store_fragment(frag, "C", col, ld=n, row_offset=m0, column_offset=n0,
                                 rows=m, columns=n)
    return k


if __name__ == "__main__":
    print(build().text())
