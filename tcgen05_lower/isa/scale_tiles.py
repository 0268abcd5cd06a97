"""The shape of a block-scaled MMA's scale-factor buffers against its block size.

A block-scaled ``tcgen05.mma`` of K elements (Table 39) reads, per row of A (scale_A)
and per column of B (scale_B), ``count = K / block`` consecutive scale factors, where the
block is the number of elements one factor scales: Table 54 gives the count per kind
and ``scale_vec`` (.scale_vec::1X / .block32 for kind::mxf8f6f4: 1 factor per K = 32;
.scale_vec::2X / .block32 for kind::mxf4 and mxf4nvf4: 2 per K = 64; .scale_vec::4X /
.block16 for kind::mxf4nvf4: 4 per K = 64). It reads them from byte ``id`` of the
buffer's cells on (the scale-factor ID, 9.7.16.10.7.2 / 9.7.16.10.7.3), so a scale
buffer ``!tcgen05.tmem<[rows, F], type>`` (F factors per entry) serves that MMA only if

F is a whole number of the MMA's factor groups (F mod count = 0): the buffer is the
factors of a whole number of K blocks of the MMA's K (Table 39). A buffer of 2 factors
per row read by a .block16 MMA (4 per row) would leave the MMA reading two factors the
buffer does not hold, and a tcgen05.cp filling it would copy half the factors the MMA
needs; 3 factors per row for a .block32 kind::mxf4 MMA (2 per row) name no whole K
block. (Which factors of a cell an ID selects, and IDs past a cell's four bytes, are
``kernel_ir.scale_factor_ids``'s rule.) ``scale_buffer_problem`` returns the diagnostic (naming the rule and
the values), or None.
"""

from __future__ import annotations

from tcgen05_lower.isa import shapes
from tcgen05_lower.isa.errors import IsaRuleError

#: Where the ISA states what the rule checks.
RULE = "Table 54; 9.7.16.10.7.2"


def scale_buffer_problem(operand: str, factors: int, scale_id: int, *, kind: str,
                         qualifier: str | None, k: int, k96: bool = False) -> str | None:
    """Why a scale buffer of `factors` factors per entry does not fit the block-scaled
    MMA (kind, scale_vec `qualifier`, K = `k`) that reads it from byte `scale_id`
    (`operand`: "scale_A" or "scale_B"), or None. Raises IsaRuleError for a kind and
    qualifier Table 54 does not pair (the caller reports that rule itself)."""
    count = shapes.scale_factor_columns(kind, qualifier, k96=k96)
    block = k // count
    what = (f"kind::{kind} with {count} scale factor{'s' if count > 1 else ''} per MMA of "
            f"K = {k} (block {block})")
    if factors % count:
        return (f"the {operand} buffer holds {factors} scale factor"
                f"{'s' if factors != 1 else ''} per row, not a multiple of the {count} that "
                f"{what} reads: the buffer's shape does not match the MMA's block size "
                f"({RULE})")
    del scale_id   # which factors of a cell an ID selects: check_scale_factor_ids
    return None


def check_mma_scale_buffers(form, scale_a_type, scale_b_type, ids) -> list[str]:
    """The problems of both scale buffers of a block-scaled MMA (``kernel_ir.MmaForm``
    `form`, the buffers' ``dialect.type_info``, the (scale_A, scale_B) IDs it uses);
    empty when they fit or when Table 54 rejects the kind and size (reported
    elsewhere)."""
    qualifier = shapes.SCALE_VEC_QUALIFIERS.get(form.scale_vec, form.scale_vec)
    out = []
    for operand, t, scale_id in (("scale_A", scale_a_type, ids[0]),
                                 ("scale_B", scale_b_type, ids[1])):
        try:
            problem = scale_buffer_problem(operand, t.cols, scale_id, kind=form.kind,
                                           qualifier=qualifier, k=form.k, k96=form.k96)
        except IsaRuleError:
            return []
        if problem:
            out.append(problem)
    return out

