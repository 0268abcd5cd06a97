"""Twin of examples/ws_gemm_bf16_grid_2cta.mlir, the flagship: a persistent,
warp-specialized bf16 GEMM on CTA pairs (cta_group 2) in a 2 x 1 cluster, a 4-stage TMA
ring, a double-buffered accumulator, a tile scheduler over run-time M, N and K (the
raster argument chooses M or N first), edge tiles inside M x N; the compiler writes the
synchronization.

``build`` is also the flagship as a function of its parameters (examples/sweep_flagship.py
sweeps them): the tile's N, the ring's depth, the cluster in tiles and 1 or 2 CTAs per
tile. On ``cta_group=1`` a CTA computes 128 x N tiles alone (``tcgen05.mma.cta_group::1``,
M = 128); on 2 a pair computes 256 x N tiles, each CTA loading its 128 rows of A and N / 2
rows of B (docs/cta-pairs.md). ``cluster=(tx, ty)`` puts tx x ty tiles in a cluster of
(tx * cta_group) x ty CTAs, the tiles along y sharing their A rows (A multicast along y)
and those along x their B rows (B multicast along x), as the variants of
benchmarks/strategies/grid_2cta.py do. The defaults give the example."""

from tcgen05_lower.bindings import ir
from tcgen05_lower.builder import KernelBuilder, tensor_map

#: The pair's tile of C (M = N = 256 MMAs), the K block, the ring and accumulator stages.
TILE, K_BLOCK, RING, ACC_STAGES = 256, 64, 4, 2
#: K of one kind::f16 MMA (Table 39) and the columns of one tcgen05.ld.
MMA_K, LD_COLUMNS = 16, 32
#: The A rows (and TMEM lanes) of one CTA: an M = 128 MMA, or its half of an M = 256 one.
CTA_ROWS = 128


def check_parameters(tile_n: int, ring: int, cluster, cta_group: int) -> None:
    """ValueError for parameters the kernel is not written for: 1 or 2 CTAs a tile; an
    N an MMA of M = 128 cta_group * takes (a multiple of 16 from 16 to 256, Table 41, that
    is also a whole number of tcgen05.ld column blocks); at least one ring stage; a
    cluster of positive tile counts."""
    if cta_group not in (1, 2):
        raise ValueError(f"cta_group = {cta_group}: a tile is computed by 1 CTA or a pair")
    if not (LD_COLUMNS <= tile_n <= 256 and tile_n % LD_COLUMNS == 0):
        raise ValueError(f"tile N = {tile_n}: a multiple of {LD_COLUMNS} (the epilogue's "
                         f"tcgen05.ld columns) up to 256 (the largest MMA N)")
    if ring < 1:
        raise ValueError(f"ring = {ring}: at least one stage")
    if len(cluster) != 2 or min(cluster) < 1:
        raise ValueError(f"cluster = {cluster}: two positive tile counts (along M, N)")


def build(name: str = "ws_gemm_bf16_grid_2cta", *, tile_n: int = TILE, ring: int = RING,
          cluster=(1, 1), cta_group: int = 2) -> KernelBuilder:
    """The flagship with tiles of (128 cta_group) x tile_n, a ring of `ring` stages and
    clusters of `cluster` = (tiles along M, tiles along N) tiles (see the module
    docstring)."""
    check_parameters(tile_n, ring, cluster, cta_group)
    pair = cta_group == 2
    tile_m, b_rows = CTA_ROWS * cta_group, tile_n // cta_group
    cx, cy = cluster[0] * cta_group, cluster[1]
    params = {p: "!llvm.ptr<1>" for p in ("A", "B", "C")}
    params.update({p: "i32" for p in ("M", "N", "K", "raster", "ctas")})
    params.update({"tmA": tensor_map("A", box=[64, CTA_ROWS], swizzle="128B"),
                   "tmB": tensor_map("B", box=[64, b_rows], swizzle="128B")})
    # ctas CTAs in all, ctas / cy along x (ctas a multiple of the cluster's CTAs).
    grid = ["ctas", "1"] if cy == 1 else [f"ceildiv(ctas, {cy})", str(cy)]
    k = KernelBuilder(name, threads=256, cta_group=cta_group, params=params,
                      grid=grid, kernel={"cluster": [cx, cy]})
    m, n, k_size = k.size("M"), k.size("N"), k.size("K")
    along_n = k.cmp("ne", k.arg("raster"), 0)
    # The loads' multicast: the tiles of a cluster along y share A rows, along x B rows.
    a_cast = {"multicast": "y"} if cluster[1] > 1 else {}
    b_cast = {"multicast": "x"} if cluster[0] > 1 else {}

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

    # The cluster's shape in tiles and this CTA's tile in it (tiles along x and y, this
    # tile's position, the cluster's id and the number of clusters); a pair is 2 CTAs
    # along x.
    cx_ctas = gpu("cluster_dim_blocks", "x")
    pairs_y = gpu("cluster_dim_blocks", "y")
    pairs_x = k.div(cx_ctas, 2) if pair else cx_ctas
    block_x = gpu("cluster_block_id", "x")
    pair_x = k.div(block_x, 2) if pair else block_x
    pair_y = gpu("cluster_block_id", "y")
    cid = gpu("cluster_id", "x")
    nclusters = gpu("cluster_dim", "x")

    # The tile scheduler's counts: this cluster takes cluster tiles cid, cid + ncl, ..
    m_tiles, n_tiles = ceildiv(m, tile_m), ceildiv(n, tile_n)
    ctm, ctn = ceildiv(m_tiles, pairs_x), ceildiv(n_tiles, pairs_y)
    cluster_tiles = k.mul(ctm, ctn)
    has_tiles = k.cmp("ult", cid, cluster_tiles)
    share = ceildiv(k.sub(cluster_tiles, cid), nclusters)
    count = select(has_tiles, share, k.constant(0))
    kblocks = ceildiv(k_size, K_BLOCK)

    a = k.smem([CTA_ROWS, K_BLOCK], "bf16", swizzle="128B", stages=ring)
    b = k.smem([b_rows, K_BLOCK], "bf16", swizzle="128B", stages=ring)
    acc = k.tmem([tile_m, tile_n], "f32", name="acc", stages=ACC_STAGES)

    def tile_origin(i):
        """(m0, n0): this CTA's (pair's) tile of cluster tile cid + i ncl, in the raster
        order."""
        c = k.add(cid, k.mul(i, nclusters))
        c_mod_m, c_div_m = k.rem(c, ctm), k.div(c, ctm)
        c_mod_n, c_div_n = k.rem(c, ctn), k.div(c, ctn)
        cm = select(along_n, c_div_n, c_mod_m)
        cn = select(along_n, c_mod_n, c_div_m)
        tile_row = k.add(k.mul(cm, pairs_x), pair_x)
        tile_column = k.add(k.mul(cn, pairs_y), pair_y)
        return k.mul(tile_row, tile_m), k.mul(tile_column, tile_n)

    with k.role("load", first_warp=0, warps=1):
        with k.loop(0, count, 1) as i:
            m0, n0 = tile_origin(i)
            base = k.mul(i, kblocks)
            with k.loop(0, kblocks, 1) as kb:
                s = k.rem(k.add(base, kb), ring)
                kk = k.mul(kb, K_BLOCK)
                a_s, b_s = k.stage(a, s), k.stage(b, s)
                k.tma_load("tmA", a_s, [kk, m0], **a_cast)
                k.tma_load("tmB", b_s, [kk, n0], **b_cast)

    with k.role("mma", first_warp=1, warps=1):
        with k.loop(0, count, 1) as i:
            d = k.stage(acc, k.rem(i, ACC_STAGES))
            base = k.mul(i, kblocks)
            with k.loop(0, kblocks, 1) as kb:
                s = k.rem(k.add(base, kb), ring)
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
            with k.loop(0, tile_n, LD_COLUMNS) as col:
                frag = k.ld(d, col, LD_COLUMNS)
                k.store_fragment(frag, "C", col, ld=n, row_offset=m0, column_offset=n0,
                                 rows=m, columns=n)
    return k


if __name__ == "__main__":
    print(build().text())
