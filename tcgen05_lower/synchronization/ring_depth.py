"""The depth of the TMA-fed rings (tcgen05-insert-sync's option ``ring-stages``): the
kernel's, a number, or the deepest that fits the dynamic shared memory; the rings are
retyped to it and their stage views take the stage the counters give (rings.py,
``RingPlan``, inherits ``RingDepth``).
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import SmemStageOp
from tcgen05_lower.kernel_ir import MBARRIER_RING_MAX_STAGES
from tcgen05_lower.synchronization.common import SyncError
from tcgen05_lower.synchronization.phases import _op
from tcgen05_lower.synchronization.ring_nests import Nest

#: ``ring-stages`` values: the depth the kernel declares, or the deepest that fits.
KERNEL_STAGES, AUTO_STAGES = "kernel", "auto"


#: What tcgen05-insert-sync's ``ring-stages`` accepts, in words (pass_infra.Option.kind).
RING_STAGES_KIND = (f"kernel, auto or a number of stages from 1 to "
                    f"{MBARRIER_RING_MAX_STAGES}")


def ring_stages_option(text: str) -> str:
    """Parses tcgen05-insert-sync's ``ring-stages``: kernel, auto or a number of stages,
    1 to the most an mbarrier ring has (kernel_ir.MBARRIER_RING_MAX_STAGES); ValueError
    otherwise (pass_infra.parse_option names the option and RING_STAGES_KIND)."""
    if text in (KERNEL_STAGES, AUTO_STAGES) or \
            (text.isdigit() and 1 <= int(text) <= MBARRIER_RING_MAX_STAGES):
        return text
    raise ValueError("")



class RingDepth:
    """``RingPlan``'s choice of the rings' depth and the retyping of the rings to it
    (needs ``ring_stages``, ``kernel``, ``names`` and ``constant`` of the plan)."""

    # -- ring depth (option ring-stages) -----------------------------------------------------

    def choose_depth(self, loaded, depth: int, nest: Nest) -> int:
        """The rings' depth: the kernel's, the option's number, or (auto) the deepest, at
        most the rings' uses, whose tiles and the kernel's other shared-memory tiles fit
        the dynamic shared memory a CTA may use, placed as the lowering places them (in
        program order, each on a TILE_ALIGNMENT boundary, lowering/smem.py)."""
        if self.ring_stages == KERNEL_STAGES:
            return depth
        if self.ring_stages != AUTO_STAGES:
            return int(self.ring_stages)
        from tcgen05_lower.lowering.smem import (MAX_DYNAMIC_SMEM, TILE_ALIGNMENT,
                                                 stage_bytes, tile_bytes)
        from tcgen05_lower.dialect.ops import SmemBufferOp

        tiles = [op for op in d.walk_ops(self.kernel) if SmemBufferOp.matches(op)]

        def needed(stages: int) -> int:
            total = 0
            for op in tiles:
                value = op.results[0]
                t = d.type_info(value.type)
                size = stages * stage_bytes(t) if value in loaded else tile_bytes(t)
                total = -(-total // TILE_ALIGNMENT) * TILE_ALIGNMENT + size
            return total

        per_set = sum(stage_bytes(d.type_info(ring.type)) for ring in loaded)
        best = 0
        most = MAX_DYNAMIC_SMEM // per_set
        for stages in range(1, min(nest.uses if nest.uses is not None else most,
                                   most, MBARRIER_RING_MAX_STAGES) + 1):
            if needed(stages) <= MAX_DYNAMIC_SMEM:
                best = stages
        if best == 0:
            first = next(iter(loaded.values()))[0][0]
            raise SyncError(first, f"tcgen05-insert-sync{{ring-stages=auto}}: not even one "
                                   f"stage of the rings fits the {MAX_DYNAMIC_SMEM} bytes "
                                   f"of dynamic shared memory with the kernel's other "
                                   f"tiles")
        return best

    def retype_rings(self, loaded, stages: int, load_nest, mma_nest, load_block,
                     mma_block) -> None:
        """Makes every loaded ring `stages` deep and gives each of its smem_stage ops the
        stage the counters give (the kernel's index, proven for the declared depth, is
        not the stage of another depth). A stage view outside the block of the loads or
        of the MMAs is refused."""
        nests = {id(load_block): load_nest, id(mma_block): mma_nest}
        blocks = {id(load_block): load_block, id(mma_block): mma_block}
        for ring in loaded:
            t = d.type_info(ring.type)
            ring.set_type(ir.Type.parse(d.SmemType((stages, t.rows, t.k), t.element, t.major,
                                                   t.swizzle).text()))
            for use in list(ring.uses):
                view = use.owner.operation if hasattr(use.owner, "operation") else use.owner
                if not SmemStageOp.matches(view):
                    continue
                key = next((k for k, b in blocks.items() if view.block == b), None)
                if key is None:
                    raise SyncError(view, f"tcgen05-insert-sync{{ring-stages="
                                          f"{self.ring_stages}}}: this stage of "
                                          f"{self.names.get(ring, 'a ring')} is taken outside "
                                          f"the block of its TMA loads and of its MMAs, where "
                                          f"the pass cannot give it the stage of a ring of "
                                          f"{stages}")
                with ir.InsertionPoint(view), view.location:
                    counter = nests[key].counter(self.constant)
                    stage = _op("arith.remui", [counter, self.constant(stages)],
                                ir.IndexType.get()) if stages > 1 else self.constant(0)
                view.operands[1] = stage
