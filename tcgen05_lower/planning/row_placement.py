"""Where per-row values live, for tcgen05-select-layouts' checks of the ops that combine
them (tcgen05.frag_broadcast, frag_map of per-row values, rows carried by scf.for).

A per-row value (a frag_reduce or ld_red result, a one-column load) is held in the slots
of the access its fragment was loaded with (``isa.row_slots``): one register per slot,
of the slot's row. Ops that combine per-row values with each other or with a fragment
never move values between threads, so every operand must give each thread the same rows
in the same slots; a row vector carried by a loop is one register, so it has one slot.
"""

from __future__ import annotations

from tcgen05_lower.computed import row_vector_root
from tcgen05_lower.dialect.ops import FragMapOp, FragReduceOp, LdOp, LdRedOp
from tcgen05_lower.isa import row_slots
from tcgen05_lower.isa.addressing import WarpgroupAccess

#: How a frag_map of no input holds its per-row value (lowering.compute: thread l of
#: warp w holds row 32w + l, .32x32b of Layout D).
ROW_MAP_OF_NOTHING = WarpgroupAccess.create("D", n=1, width=1, shape="32x32b", num=1,
                                            op=LdOp.NAME)


def held_as(value, plans: dict, memo: dict) -> WarpgroupAccess | None:
    """The access whose slots hold `value` (a fragment or a per-row value), or None when
    it is not known (a diagnostic elsewhere says why)."""
    value, producer = row_vector_root(value, memo)
    if producer is None:
        return None
    if FragReduceOp.matches(producer):
        return held_as(producer.operands[0], plans, memo)
    if FragMapOp.matches(producer):  # of no input: row_vector_root follows first inputs
        return ROW_MAP_OF_NOTHING
    if LdOp.matches(producer) or LdRedOp.matches(producer):
        plan = plans.get(producer)
        return plan.access if plan is not None else None
    return None


def mismatch(values, plans: dict, memo: dict, *, one_slot: bool = False) -> str | None:
    """Why the operands `values` of one op are not held with the same rows in each
    thread (or, with `one_slot`, not one register per row), or None."""
    # An operand held otherwise has its own diagnostic (row_slots.why_not).
    known = [access for access in (held_as(v, plans, memo) for v in values)
             if access is not None and row_slots.why_not(access) is None]
    for access in known:
        if one_slot and access.lane_halves != 1:
            return (f"one is held as {access.describe()} (Layout {access.layout}), two "
                    f"rows per thread, where a carried row vector is one register")
    for access in known[1:]:
        if not row_slots.same_rows(known[0], access):
            return (f"one is held as {known[0].describe()} (Layout {known[0].layout}) and "
                    f"another as {access.describe()} (Layout {access.layout}), which give "
                    f"a thread different rows; per-row values do not move between threads")
    return None
