"""Completion and ordering: tcgen05.commit and mbarrier waits (9.7.16.12.1), tcgen05.wait
(9.7.16.8.5), tcgen05.fence (9.7.16.11.1), the proxy fence and CTA barriers."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import emit, ptx
from tcgen05_lower.bindings import ir
from tcgen05_lower.emit import i32
from tcgen05_lower.lowering.core import lowers


@lowers("commit")
def lower_commit(lowering, op) -> None:
    emit.ptx(ptx.commit(lowering.info.cta_group, "$0"), [lowering.values[op.operands[0]]],
             predicate=lowering.is_leader)


@lowers("mbarrier_wait")
def lower_mbarrier_wait(lowering, op) -> None:
    """``while (!try_wait.parity(barrier, phase)) {}`` as an scf.while around one try."""
    barrier, phase = lowering.values[op.operands[0]], op.operands[1]
    loop = ir.Operation.create("scf.while", results=[], operands=[], regions=2)
    before = loop.regions[0].blocks.append()
    with ir.InsertionPoint(before):
        done = emit.ptx(ptx.mbarrier_try_wait_parity("$0", "$1", "$2"), [barrier, phase],
                        [i32()])[0]
        pending = emit.cmp_eq(done, emit.constant(0, i32()))
        ir.Operation.create("scf.condition", operands=[pending])
    after = loop.regions[1].blocks.append()
    with ir.InsertionPoint(after):
        ir.Operation.create("scf.yield")


@lowers("wait")
def lower_wait(lowering, op) -> None:
    emit.ptx(ptx.wait(d.get_str(op, "kind")))


@lowers("fence")
def lower_fence(lowering, op) -> None:
    emit.ptx(ptx.fence(d.get_str(op, "kind")))


@lowers("fence_proxy_async")
def lower_fence_proxy_async(lowering, op) -> None:
    emit.ptx(ptx.fence_proxy_async())


@lowers("barrier")
def lower_barrier(lowering, op) -> None:
    emit.ptx(ptx.barrier_sync())
