"""The scale-factor buffers of a block-scaled ``tcgen05.mma`` against its block size: the
op-level side of ``isa.scale_tiles`` (which holds the rule and stays free of MLIR), for
tcgen05-verify."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.isa.scale_tiles import check_mma_scale_buffers
from tcgen05_lower.kernel_ir import mma_form, mma_operands, scale_factor_ids


def mma_scale_buffer_problems(op, cta_group: int) -> list[str]:
    """``check_mma_scale_buffers`` of the block-scaled ``tcgen05.mma`` `op` (its form, its
    scale operands' types and the IDs it uses); empty when the IDs themselves are refused
    (tcgen05-verify reports that rule) or it is not block-scaled."""
    form = mma_form(op, cta_group)
    operands = mma_operands(op)
    if not form.block_scaled or operands.scale_a is None or operands.scale_b is None:
        return []
    try:
        ids = scale_factor_ids(op, form)
    except IsaRuleError:
        return []
    return check_mma_scale_buffers(form, d.type_info(operands.scale_a.type),
                                   d.type_info(operands.scale_b.type), ids)
