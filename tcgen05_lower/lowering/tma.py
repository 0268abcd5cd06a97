"""TMA loads into shared-memory tiles and the expect_tx arrivals that await them
(tcgen05_lower.tma, docs/tma.md).

Both are issued by one thread (the one that issues mma and commit, Table 46's rule for
single-thread ops applied to them; in a cta_group::2 kernel, a load by one thread of each
CTA and the expect_tx by the even CTA's, see lower_tma_load): each thread that executes ``cp.async.bulk.tensor``
starts its own copy of the whole box (PTX ISA 9.7.9.25.5.1), and one
``mbarrier.arrive.expect_tx`` is the one arrival an mbarrier of count 1 expects per phase.
The tensor map is the kernel's ``!llvm.ptr<1>`` parameter, converted to the generic
address the instruction takes (``cvta.global``).
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import emit, pair_scale_tiles, ptx, tma
from tcgen05_lower.bindings import llvm
from tcgen05_lower.dialect.ops import MbarrierExpectTxOp, TmaLoadOp
from tcgen05_lower.emit import i32
from tcgen05_lower.lowering.core import lowers
from tcgen05_lower.lowering.registers import cta_in_pair
from tcgen05_lower.lowering.sync import even_cta_address, single_thread_predicate


@lowers(TmaLoadOp)
def lower_tma_load(lowering, op) -> None:
    load = TmaLoadOp(op)
    generic = llvm.AddrSpaceCastOp(emit.ptr_type(0), lowering.values.get(
        load.tensor_map, load.tensor_map)).result
    barrier = tma.load_barrier(op)
    if barrier is None:
        lowering.fail(op, tma.BARRIERLESS)
    c0, c1 = (emit.cast(c, i32()) for c in tma.load_coordinates(op)[:2])
    if lowering.info.cta_group == 2:
        # Each CTA loads its own slice, rows r R .. r R + R - 1 of the pair's tile (R the
        # tile's rows, r = %cluster_ctarank & 1; docs/cta-pairs.md): the row coordinate
        # is c1 of a K-major tile, c0 of an MN-major one (innermost first). Both CTAs'
        # loads complete on the even CTA's mbarrier (.cta_group::2, PTX ISA
        # 9.7.9.25.5.1), where the even CTA's expect_tx announced both.
        tile = d.type_info(load.tile.type)
        shift = (cta_in_pair(lowering) * tile.rows).value
        if pair_scale_tiles.tile_split(load.tile) == pair_scale_tiles.WHOLE:
            pass   # B scale factors: all N in each CTA (pair_scale_tiles.py), no shift
        elif tile.major == "K":
            c1 = (emit.Sym(c1) + emit.Sym(shift)).value
        else:
            c0 = (emit.Sym(c0) + emit.Sym(shift)).value
        even_barrier = even_cta_address(lowering, lowering.values[barrier])
        if load.multicast is not None:
            lower_multicast(lowering, load, [lowering.values[load.tile], generic, c0, c1,
                                             even_barrier], lowering.is_leader)
            return
        emit.ptx(ptx.tma_load_2d_pair("$0", "$1", "$2", "$3", "$4"),
                 [lowering.values[load.tile], generic, c0, c1, even_barrier],
                 predicate=lowering.is_leader)
        return
    if load.multicast is not None:
        lower_multicast(lowering, load, [lowering.values[load.tile], generic, c0, c1,
                                         lowering.values[barrier]], lowering.is_leader)
        return
    emit.ptx(ptx.tma_load_2d("$0", "$1", "$2", "$3", "$4"),
             [lowering.values[load.tile], generic, c0, c1, lowering.values[barrier]],
             predicate=single_thread_predicate(lowering))


@lowers(MbarrierExpectTxOp)
def lower_mbarrier_expect_tx(lowering, op) -> None:
    nbytes = tma.written_bytes(op)
    if nbytes is None:
        covered = getattr(lowering, "tma_cover", None)
        if covered is None:
            covered = lowering.tma_cover = tma.cover(lowering.kernel)
        nbytes = covered.expected_bytes(op)
    barrier = op.operands[0]
    emit.ptx(ptx.mbarrier_arrive_expect_tx("$0", "$1"),
             [lowering.values[barrier], emit.constant(nbytes, i32())],
             predicate=single_thread_predicate(lowering))
    counter = lowering.phase_counters.get(barrier)
    if counter is not None:
        # The arrival completes a phase (with the bytes): counted like a commit's.
        emit.store((emit.Sym(emit.load_i32(counter)) + 1).value, counter)


def lower_multicast(lowering, load, operands: list, leader) -> None:
    """A TMA load shared along a dimension of the cluster (``multicast = "x"`` or
    ``"y"``, tcgen05_lower.multicast): issued by the CTAs at the first position along
    that dimension (the first pair along x in a cta_group::2 kernel), with
    ``.multicast::cluster`` and the ctaMask of the CTAs that share the tile
    (multicast.cta_mask_terms); the others issue nothing for it."""
    from tcgen05_lower import multicast
    from tcgen05_lower.bindings import ir, nvvm

    info = lowering.info
    nx, ny, _ = info.cluster_dims
    rank = emit.Sym(nvvm.read_ptx_sreg_cluster_ctarank(i32()))
    x, y = rank % nx, rank // nx
    base, shift_of, first = multicast.cta_mask_terms(load.multicast, nx, ny,
                                                     info.cta_group)
    shift = shift_of(x, y)
    mask = (emit.Sym(emit.constant(base, i32())) << shift).value
    issues = emit.cmp_eq(emit.cast(first(x, y).value, i32()), emit.constant(0, i32()))
    predicate = ir.Operation.create("arith.andi", results=[leader.type],
                                    operands=[leader, issues]).results[0]
    emit.ptx(ptx.tma_load_2d_multicast("$0", "$1", "$2", "$3", "$4", "$5", info.cta_group),
             operands + [emit.cast(mask, ir.IntegerType.get_signless(16))],
             predicate=predicate)
