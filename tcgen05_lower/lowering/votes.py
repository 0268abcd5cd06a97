"""tcgen05.frag_vote -> vote.sync (PTX ISA, vote): each thread holds one row of the
per-row value (.32x32b: thread l of the warp holding lanes 32 (w % 4) .. holds row
32 (w % 4) + l), votes for when it is not zero (f32: neither +0 nor -0; a NaN votes
for), and every thread of the warp gets the warp's any / all as an i1."""

from __future__ import annotations

from tcgen05_lower import emit
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import FragVoteOp
from tcgen05_lower.emit import i32
from tcgen05_lower.lowering.compute import _create, _float_constant, _per_row_elements, \
    element_scalars
from tcgen05_lower.lowering.core import lowers

#: arith.cmpf "une" / arith.cmpi "ne": their predicate numbers.
_CMPF_UNE, _CMPI_NE = 13, 1


@lowers(FragVoteOp)
def lower_frag_vote(lowering, op) -> None:
    fragment = lowering.values[op.operands[0]]
    access = fragment.access
    held = _per_row_elements(lowering, fragment)
    if held is None or access.lane_halves != 1 or access.shape != "32x32b":
        lowering.fail(op, f"tcgen05.frag_vote: the per-row value is held as "
                          f"{access.describe()}: a warp's vote needs one row per thread "
                          f"(.32x32b), its 32 threads holding the 32 rows of its lanes")
    if fragment.active is not None:
        lowering.fail(op, "tcgen05.frag_vote: only some warps hold the per-row value")
    element = ir.F32Type.get() if fragment.element == "f32" else i32()   # i32, u32, s32
    (value,) = element_scalars(fragment, held, element)
    i1 = ir.IntegerType.get_signless(1)
    if fragment.element == "f32":
        zero = _float_constant(0.0, element)
        votes = _compare("arith.cmpf", _CMPF_UNE, value, zero, i1)
    else:
        zero = _create("arith.constant", element, [],
                       {"value": ir.IntegerAttr.get(element, 0)}).results[0]
        votes = _compare("arith.cmpi", _CMPI_NE, value, zero, i1)
    bit = _create("arith.extui", i32(), [votes]).results[0]
    kind = FragVoteOp(op).kind
    (warp,) = emit.ptx("{ .reg .pred vote_in, vote_out; setp.ne.b32 vote_in, $1, 0; "
                       f"vote.sync.{kind}.pred vote_out, vote_in, 0xffffffff; "
                       "selp.u32 $0, 1, 0, vote_out; }", [bit], [i32()])
    zero32 = _create("arith.constant", i32(), [],
                     {"value": ir.IntegerAttr.get(i32(), 0)}).results[0]
    op.results[0].replace_all_uses_with(_compare("arith.cmpi", _CMPI_NE, warp, zero32, i1))


def _compare(name: str, predicate: int, left, right, i1):
    return ir.Operation.create(name, results=[i1], operands=[left, right], attributes={
        "predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), predicate)}
    ).results[0]
