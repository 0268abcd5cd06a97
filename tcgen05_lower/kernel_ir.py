"""Read-only views of tcgen05 ops that several passes share.

Passes look at ops through these views instead of indexing operands by position, so an
operand added to an op in the IRDL definition is handled in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

from tcgen05_lower import dialect
from tcgen05_lower.bindings import ir


def defining_op(value: "ir.Value"):
    """The operation that defines `value`, or None for a block argument."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def constant_int(value: "ir.Value") -> int | None:
    """The value of an integer or index ``arith.constant``, else None."""
    op = defining_op(value)
    if op is None or op.name != "arith.constant":
        return None
    try:
        return ir.IntegerAttr(op.attributes["value"]).value
    except ValueError:
        return None


@dataclass(frozen=True)
class MmaOperands:
    """The operands of a ``tcgen05.mma`` and the parameters of their types."""

    d: "ir.Value"
    a: "ir.Value"
    b: "ir.Value"
    enable_input_d: "ir.Value"
    d_type: dialect.TmemType
    a_smem: dialect.SmemType | None
    a_tmem: dialect.TmemType | None
    b_type: dialect.SmemType
    scale_a: "ir.Value | None" = None
    scale_b: "ir.Value | None" = None
    metadata: "ir.Value | None" = None
    #: Trailing operands the attributes do not account for (a verifier error).
    unexpected: tuple = ()

    @property
    def a_type(self):
        return self.a_smem if self.a_smem is not None else self.a_tmem


def mma_operands(op) -> MmaOperands:
    """The operands of the ``tcgen05.mma`` op `op`, with the trailing TMEM operands
    named by role: scale_a and scale_b when ``scale_vec`` is set, then the metadata when
    ``sparse`` is set."""
    dv, av, bv, en = (op.operands[i] for i in range(4))
    aux = [op.operands[i] for i in range(4, len(op.operands))]
    a_info = dialect.type_info(av.type)
    roles = {}
    if "scale_vec" in op.attributes:
        roles["scale_a"] = aux.pop(0) if aux else None
        roles["scale_b"] = aux.pop(0) if aux else None
    if dialect.get_int(op, "sparse", 0):
        roles["metadata"] = aux.pop(0) if aux else None
    return MmaOperands(
        d=dv, a=av, b=bv, enable_input_d=en,
        d_type=dialect.type_info(dv.type),
        a_smem=a_info if isinstance(a_info, dialect.SmemType) else None,
        a_tmem=a_info if isinstance(a_info, dialect.TmemType) else None,
        b_type=dialect.type_info(bv.type),
        unexpected=tuple(aux), **roles,
    )
