"""tcgen05-select-layouts: the data-path layout (A-G) of every MMA, the TMEM footprint of
every buffer, and the message shape of every warpgroup load.

Decisions written into the IR:

- ``tcgen05.mma``: ``layout`` (9.7.16.10.5, from M, cta_group, sparsity and .ws).
- ``tcgen05.tmem_buffer``: ``layout``, ``columns`` (columns per CTA) and ``half_lanes``
  (true when the layout uses 16 lanes of each 32-lane quarter, so that another such buffer
  may take the other half of the same columns).
- ``tcgen05.ld``: ``shape`` and ``num`` of the tcgen05.ld messages, and ``half_split``
  (immHalfSplitoff) for ``.16x32bx2``. Full-datapath layouts read 32 lanes per warp with
  ``.32x32b``; half-datapath layouts read the 16 lanes a warp owns with ``.16x32bx2``,
  whose two halves cover two column ranges so that every thread holds one row's
  contiguous columns (tmem-facts section 2).

A buffer used by MMAs of different layouts is an error: its cells would mean different
elements to each.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.isa import fragments, layouts
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import defining_op, mma_operands
from tcgen05_lower.pass_infra import ModulePass


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
        chosen: dict = {}  # tmem_buffer op -> (layout, mma op that chose it)
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
        try:
            layout = layouts.select_layout(m=operands.d_type.rows, cta_group=info.cta_group,
                                           sparse=False, ws=False)
        except IsaRuleError as exc:
            self.error(op, str(exc))
            return
        d.set_str(op, "layout", layout)
        owner = defining_op(operands.d)
        if owner is None or d.op_name(owner) != "tmem_buffer":
            self.error(op, "the accumulator must be a tcgen05.tmem_buffer result")
            return
        previous = chosen.get(owner)
        if previous is not None and previous[0] != layout:
            self.error(op, f"accumulator is used with Layout {layout} here but Layout "
                           f"{previous[0]} by an earlier MMA; one buffer has one layout")
            return
        chosen.setdefault(owner, (layout, op))

    def record_footprint(self, buffer, choice) -> None:
        t = d.type_info(buffer.results[0].type)
        layout = choice[0] if choice else default_layout_for_rows(t.rows)
        if layout is None:
            self.error(buffer, f"no MMA writes this {t.rows}-row buffer, so its layout "
                               f"cannot be chosen")
            return
        try:
            footprint = layouts.d_footprint(layout, t.cols)
        except IsaRuleError as exc:
            self.error(buffer, str(exc))
            return
        d.set_str(buffer, "layout", layout)
        d.set_int(buffer, "columns", footprint.columns)
        buffer.attributes["half_lanes"] = d.ir.BoolAttr.get(layouts.LAYOUTS[layout].half_datapath)

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
