"""tcgen05-select-layouts: the data-path layout (A-G) of every MMA, the TMEM footprint of
every buffer, and the message shape of every warpgroup load.

Decisions written into the IR:

- ``tcgen05.mma``: ``layout`` (9.7.16.10.5, from M, cta_group, sparsity and .ws).
- ``tcgen05.tmem_buffer``: ``role`` (what the MMA uses it as: "d", "a", "scale_a",
  "scale_b", "metadata"), ``layout`` (of the MMA that uses it), ``columns`` (columns per
  CTA) and ``half_lanes`` (true when the buffer uses 16 lanes of each 32-lane quarter, so
  that another such buffer may take the other half of the same columns). Footprints come
  from ``tcgen05_lower.isa.layouts``: D (B, E and G fold N), A in TMEM (packed elements,
  duplicated rows for B and E), scale factors (all four lane quarters), sparse metadata
  (2-column granules).
- ``tcgen05.ld``: ``shape`` and ``num`` of the tcgen05.ld messages, and ``half_split``
  (immHalfSplitoff) for ``.16x32bx2``. Full-datapath layouts read 32 lanes per warp with
  ``.32x32b``; half-datapath layouts read the 16 lanes a warp owns with ``.16x32bx2``,
  whose two halves cover two column ranges so that every thread holds one row's
  contiguous columns (tmem-facts section 2).

A buffer used by MMAs of different layouts is an error: its cells would mean different
elements to each.
"""

from __future__ import annotations

from dataclasses import dataclass

from tcgen05_lower import dialect as d
from tcgen05_lower.isa import fragments, layouts
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import defining_op, mma_operands
from tcgen05_lower.lowering.smem import element_bits
from tcgen05_lower.pass_infra import ModulePass


#: Scale factors per row per MMA for each .scale_vectorsize (Table 54; the blockN aliases
#: are resolved per kind by tcgen05-verify, here the footprint is the same bounding region).
SCALE_VEC_COUNT = {"1X": 1, "2X": 2, "4X": 4, "block32": 1, "block16": 4}


@dataclass(frozen=True)
class Use:
    """How an MMA uses a TMEM buffer."""

    role: str
    layout: str
    footprint: layouts.Footprint
    mma: object


def default_layout_for_rows(rows: int) -> str | None:
    """The layout of a buffer that no MMA writes: rows on lanes one-to-one (Layout D) for
    128 rows; anything else needs an MMA to say how its rows are placed."""
    return "D" if rows == 128 else None


class Tcgen05SelectLayouts(ModulePass):
    name = "tcgen05-select-layouts"
    description = "Choose the data-path layout of each MMA and the footprint of each TMEM buffer"

    def apply(self, module) -> None:
        for kernel in d.kernels(module):
            self.select_in_kernel(kernel)

    def select_in_kernel(self, kernel) -> None:
        info = d.kernel_info(kernel)
        chosen: dict = {}  # tmem_buffer op -> Use (role, layout, footprint, mma op)
        buffers = []
        loads = []
        for op in d.walk_ops(kernel):
            name = d.op_name(op)
            if name == "tmem_buffer":
                buffers.append(op)
            elif name == "ld":
                loads.append(op)
            elif name == "mma":
                self.select_for_mma(op, info, chosen)
        for buffer in buffers:
            self.record_footprint(buffer, chosen.get(buffer))
        for load in loads:
            self.select_ld_shape(load)

    def select_for_mma(self, op, info, chosen) -> None:
        operands = mma_operands(op)
        kind = d.get_str(op, "kind")
        sparse = bool(d.get_int(op, "sparse", 0))
        ws = bool(d.get_int(op, "ws", 0))
        m, n = operands.d_type.rows, operands.d_type.cols
        try:
            layout = layouts.select_layout(m=m, cta_group=info.cta_group, sparse=sparse, ws=ws)
        except IsaRuleError as exc:
            self.error(op, str(exc))
            return
        d.set_str(op, "layout", layout)
        uses = [("d", operands.d, lambda: layouts.d_footprint(layout, n))]
        if operands.a_tmem is not None:
            a = operands.a_tmem
            uses.append(("a", operands.a, lambda: layouts.a_tmem_footprint(
                layout, m=m, k=a.cols, a_bits=element_bits(a.element), sparse=sparse)))
        scale_vec = SCALE_VEC_COUNT.get(d.get_str(op, "scale_vec", ""), None)
        if operands.scale_a is not None and scale_vec is not None:
            uses.append(("scale_a", operands.scale_a, lambda: layouts.scale_factor_footprint(
                rows=m // info.cta_group, scale_vec=scale_vec, operand="A", layout=layout)))
        if operands.scale_b is not None and scale_vec is not None:
            uses.append(("scale_b", operands.scale_b, lambda: layouts.scale_factor_footprint(
                rows=n, scale_vec=scale_vec, operand="B", layout=layout)))
        if operands.metadata is not None:
            uses.append(("metadata", operands.metadata,
                         lambda: layouts.sparse_metadata_footprint(layout, m=m, kind=kind)))
        for role, value, footprint in uses:
            owner = defining_op(value)
            if owner is None or d.op_name(owner) != "tmem_buffer":
                self.error(op, f"the MMA's {role} operand must be a tcgen05.tmem_buffer result")
                continue
            try:
                use = Use(role, layout, footprint(), op)
            except (IsaRuleError, NotImplementedError) as exc:
                self.error(op, f"{role} operand: {exc}")
                continue
            previous = chosen.get(owner)
            if previous is not None and (previous.role, previous.layout) != (role, layout):
                self.error(op, f"this buffer is used as {role} with Layout {layout} here but "
                               f"as {previous.role} with Layout {previous.layout} by an "
                               f"earlier MMA; one buffer has one role and layout")
                continue
            chosen.setdefault(owner, use)

    def record_footprint(self, buffer, use) -> None:
        t = d.type_info(buffer.results[0].type)
        if use is None:
            layout = default_layout_for_rows(t.rows)
            if layout is None:
                self.error(buffer, f"no MMA uses this {t.rows}-row buffer, so its layout "
                                   f"cannot be chosen")
                return
            try:
                use = Use("d", layout, layouts.d_footprint(layout, t.cols), None)
            except IsaRuleError as exc:
                self.error(buffer, str(exc))
                return
        d.set_str(buffer, "role", use.role)
        d.set_str(buffer, "layout", use.layout)
        d.set_int(buffer, "columns", use.footprint.columns)
        buffer.attributes["half_lanes"] = d.ir.BoolAttr.get(
            all(count == layouts.HALF_LANES for _, count in use.footprint.lanes))

    def select_ld_shape(self, load) -> None:
        source = defining_op(load.operands[0])
        layout = d.get_str(source, "layout") if source is not None else None
        if layout is None:
            return  # the buffer's own diagnostic was already reported
        width = d.type_info(load.results[0].type).shape[1]
        if layouts.LAYOUTS[layout].half_datapath:
            shape, num = "16x32bx2", width // 2
            if width % 2:
                self.error(load, f"a Layout {layout} load reads columns in two halves "
                                 f"(.16x32bx2); {width} columns is odd")
                return
        else:
            shape, num = "32x32b", width
        if num not in fragments.valid_nums(shape):
            self.error(load, f".{shape} cannot load {width} columns in one message: .num "
                             f"= {num} is not one of "
                             f"{', '.join('x' + str(n) for n in fragments.valid_nums(shape))}"
                             f" (Table 47)")
            return
        d.set_str(load, "shape", shape)
        d.set_int(load, "num", num)
        if shape == "16x32bx2":
            d.set_int(load, "half_split", num)
