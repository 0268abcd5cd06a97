"""How a CTA pair splits a shared-memory tile of scale factors (docs/cta-pairs.md, "Scale
factors in a CTA pair").

In a ``cta_group = 2`` kernel each CTA's shared-memory tile is its slice of the pair's MMA
operand, and its TMA load reads rows ``rank * R ..`` of the pair's box (lowering/tma.py).
A tile that no MMA reads as A or B but that ``tcgen05.cp`` copies into tensor memory has
no such split of its own; its split follows from what the copy's destination is:

- ``tcgen05.cp.cta_group::2`` writes the tensor memory of both CTAs of the pair
  (9.7.16.9.2), each CTA's from its own shared memory at the descriptor's offsets (how
  the simulator reads the sentence, as the pair's MMA reads its operands; CUTLASS's sm100
  block-scaled collective relies on it: each CTA holds its own tile of A scale factors
  and the leader's 2-CTA copy fills both CTAs' tensor memory);
- the pair's block-scaled MMA reads, in each CTA, the A scale factors of that CTA's rows
  and the B scale factors of all N columns (tmem-facts section 3).

So a tile copied only into MMAs' scale_A buffers is the CTA's slice (rows ``rank * R``,
like A), and a tile copied only into scale_B buffers is whole in each CTA (both CTAs load
the same box). Any other copied tile (into both, or into a buffer no MMA reads as a
scale) has no defined split: ``tile_split`` says which, and tcgen05-verify refuses the
rest. Stage views are looked through: a ring is one tile for this purpose (its load
role's and MMA role's views are different values).
"""

from __future__ import annotations

from tcgen05_lower.dialect.ops import CpOp, MmaOp, SmemStageOp, TmemStageOp
from tcgen05_lower.kernel_ir import defining_op, mma_operands

#: ``tile_split`` answers.
SLICE, WHOLE = "slice", "whole"


def _owner(use):
    return use.owner.operation if hasattr(use.owner, "operation") else use.owner


def _views(value, stage_op) -> list:
    """`value`'s buffer (through a stage view) and every stage view of it."""
    view = defining_op(value)
    buffer = view.operands[0] if view is not None and stage_op.matches(view) else value
    found = [buffer]
    for use in buffer.uses:
        owner = _owner(use)
        if stage_op.matches(owner) and use.operand_number == 0:
            found.append(owner.results[0])
    return found


def _scale_roles(tmem_value) -> set:
    """Which scale operands ("scale_a", "scale_b") of MMAs read the TMEM buffer of
    `tmem_value` (any stage of it); "other" for any other reader."""
    roles = set()
    for value in _views(tmem_value, TmemStageOp):
        for use in value.uses:
            owner = _owner(use)
            if CpOp.matches(owner) or TmemStageOp.matches(owner):
                continue
            if not MmaOp.matches(owner):
                roles.add("other")
                continue
            operands = mma_operands(owner)
            for role in ("scale_a", "scale_b"):
                if getattr(operands, role) == value:
                    roles.add(role)
            if value in (operands.d, operands.a):
                roles.add("other")
    return roles


def tile_split(tile) -> str | None:
    """How a pair splits the shared-memory tile `tile` that only tcgen05.cp reads:
    SLICE (copied only into scale_A buffers), WHOLE (only into scale_B buffers), or None
    (not copied, or no defined split: module docstring)."""
    roles = set()
    for value in _views(tile, SmemStageOp):
        for use in value.uses:
            owner = _owner(use)
            if CpOp.matches(owner) and CpOp(owner).source == value:
                roles |= _scale_roles(CpOp(owner).dest) or {"other"}
    if roles == {"scale_a"}:
        return SLICE
    if roles == {"scale_b"}:
        return WHOLE
    return None

