"""The layout of every MMA and the TMEM footprint of every buffer: the layout from M,
cta_group, sparsity and .ws (9.7.16.10.5), a buffer's role and footprint
(tcgen05_lower.isa.layouts), scale-factor footprints (Table 54), and whether each
tcgen05.cp / tcgen05.shift fits the buffer it writes."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import CpOp, MmaOp, ShiftOp, TmemBufferOp
from tcgen05_lower.element_types import element_bits
from tcgen05_lower.isa import layouts, shapes
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.isa.shapes import SCALE_VEC_QUALIFIERS
from tcgen05_lower.kernel_ir import effective_scale_vec, mma_operands
from tcgen05_lower.layout_selection.common import buffer_label, line_text, traced_buffers
from tcgen05_lower.layout_selection.results import BufferInfo, Use


#: Scale factors per row per MMA for each .scale_vectorsize (Table 54; the blockN aliases
#: are resolved per kind by tcgen05-verify, here the footprint is the same bounding region).
#: Roles whose declared shape is the MMA's logical matrix rather than their cells: their
#: footprint grows to cover what the tcgen05.cp ops filling them write.
GROWN_BY_COPIES = ("scale_a", "scale_b", "metadata")

#: Columns tcgen05.shift moves: its 32-byte elements (9.7.16.9.3, shape .31x256b).
SHIFT_COLUMNS = 8


def _half_lane_copy_message(shape: str, multicast: str | None, info: "BufferInfo") -> str:
    """Why a tcgen05.cp cannot fill an operand held on 16 lanes of each quarter."""
    what = {"a": "A", "metadata": "sparse-metadata", "d": "accumulator"}.get(info.role,
                                                                         info.role)
    qualifier = f".{shape}" + (f".{multicast}" if multicast else "")
    if shape == "4x256b":
        writes = "writes 4 lanes from its taddr, one quarter only"
    else:
        writes = ("writes 32 lanes of every 32-lane quarter (9.7.16.9.2: its rows are "
                  "multicast to the warps' quarters, or go to all 128 lanes)")
    return (f"tcgen05.cp{qualifier} {writes}, but Layout {info.layout} holds this {what} "
            f"operand ({info.rows} rows) on 16 lanes of each quarter (9.7.16.10.5): the copy "
            f"would write the other lane half, which the plan may give to another buffer, "
            f"and no copy shape puts the operand's rows on the lanes the MMA reads. "
            f"Half-lane (M = 64) operands in tensor memory cannot be filled by tcgen05.cp; "
            f"tcgen05.st would be the way, which is not supported yet for MMA operands")


def default_layout_for_rows(rows: int, cta_group: int = 1) -> str | None:
    """The layout of a buffer that no MMA uses and that asks for none: rows on lanes one
    to one (Layout D for 128 rows of a cta_group::1 kernel, Layout A for 256 rows of a
    cta_group::2 kernel). Anything else is ambiguous and needs a ``layout`` request."""
    if cta_group == 1 and rows == 128:
        return "D"
    if cta_group == 2 and rows == 256:
        return "A"
    return None


class MmaLayoutDecisions:
    """Layouts and footprints. Mixed into tcgen05-select-layouts' run
    (selector.LayoutSelector): reports with self.error and reads the per-kernel tables
    select_in_kernel sets up (self.buffers, self.plans, self.row_memo)."""

    @staticmethod
    def scale_factors_per_row(op, kind: str) -> int | None:
        """Scale factors per row of one block-scaled MMA (Table 54; its scale_vec, or the
        default of 9.7.16.10.9.1), or None when there is no valid size (tcgen05-verify
        reports it)."""
        vec = effective_scale_vec(op)
        if vec is None:
            return None
        try:
            return shapes.scale_factor_columns(kind, SCALE_VEC_QUALIFIERS.get(vec, vec),
                                               k96=MmaOp(op).k == 96)
        except IsaRuleError:
            return None

    def select_for_mma(self, op, info, chosen) -> None:
        operands = mma_operands(op)
        mma = MmaOp(op)
        kind = mma.kind
        sparse = bool(mma.sparse)
        ws = bool(mma.ws)
        m, n = operands.d_type.rows, operands.d_type.cols
        lc = self.layout_c
        try:
            layout = layouts.select_layout(m=m, cta_group=info.cta_group, sparse=sparse, ws=ws)
        except IsaRuleError as exc:
            self.error(op, str(exc))
            return
        mma.layout = layout
        uses = [("d", operands.d, lambda: layouts.d_footprint(layout, n, layout_c=lc))]
        if operands.a_tmem is not None:
            a = operands.a_tmem
            uses.append(("a", operands.a, lambda: layouts.a_tmem_footprint(
                layout, m=m, k=a.cols, a_bits=element_bits(a.element), sparse=sparse,
                layout_c=lc)))
        scale_vec = self.scale_factors_per_row(op, kind)
        if operands.scale_a is not None and scale_vec is not None:
            uses.append(("scale_a", operands.scale_a, lambda: layouts.scale_factor_footprint(
                rows=m // info.cta_group, scale_vec=scale_vec, operand="A", layout=layout)))
        if operands.scale_b is not None and scale_vec is not None:
            uses.append(("scale_b", operands.scale_b, lambda: layouts.scale_factor_footprint(
                rows=n, scale_vec=scale_vec, operand="B", layout=layout)))
        if operands.metadata is not None:
            uses.append(("metadata", operands.metadata,
                         lambda: layouts.sparse_metadata_footprint(layout, m=m, kind=kind,
                                                                   layout_c=lc)))
        for role, value, footprint in uses:
            owners = traced_buffers(value)
            if owners is None:
                self.error(op, f"the MMA's {role} operand must be a tcgen05.tmem_buffer result, "
                               f"a tcgen05.tmem_stage of one, or a select, branch or loop "
                               f"value that only such values reach")
                continue
            try:
                use = Use(role, layout, footprint(), op)
            except (IsaRuleError, NotImplementedError) as exc:
                self.error(op, f"{role} operand: {exc}")
                continue
            # A value chosen at run time: every buffer it may name is used this way.
            for owner in owners:
                previous = chosen.get(owner)
                if previous is not None and \
                        (previous.role, previous.layout) != (role, layout):
                    what = "this buffer" if len(owners) == 1 else buffer_label(owner)
                    self.error(op, f"{what} is used as {role} with Layout "
                                   f"{layout} here but as {previous.role} with Layout "
                                   f"{previous.layout} by an earlier MMA; one buffer has one "
                                   f"role and layout")
                    break
                chosen.setdefault(owner, use)

    def record_footprint(self, buffer, use, info) -> None:
        typed = TmemBufferOp(buffer)
        t = d.type_info(typed.buffer.type)
        requested = typed.layout
        if use is not None and requested is not None and requested != use.layout:
            self.error(buffer, f"this buffer asks for Layout {requested} but the MMA at "
                               f"{line_text(use.mma)} uses it with Layout {use.layout}")
            return
        if use is None:
            layout = requested or default_layout_for_rows(t.rows, info.cta_group)
            if layout is None:
                self.error(buffer, f"no MMA uses this {t.rows}-row buffer, so its layout "
                                   f"cannot be chosen: give the tcgen05.tmem_buffer a "
                                   f"layout = \"A\"..\"G\" attribute")
                return
            try:
                # No MMA uses it: Table 39's N <= 256 does not apply, only TMEM's width.
                layouts.check_d_shape(layout, m=t.rows, n=t.cols, cta_group=info.cta_group,
                                      layout_c=self.layout_c, mma=False)
                use = Use("d", layout, layouts.d_footprint(layout, t.cols, mma=False,
                                                           layout_c=self.layout_c), None)
            except IsaRuleError as exc:
                self.error(buffer, f"layout = \"{layout}\": {exc}" if requested else str(exc))
                return
        typed.role = use.role
        typed.layout = use.layout
        if use.layout == "C":
            typed.layout_c = self.layout_c
        typed.columns = int(use.footprint.columns)
        typed.half_lanes = all(count == layouts.HALF_LANES for _, count in use.footprint.lanes)
        self.buffers[buffer] = BufferInfo(buffer, use.role, use.layout, self.layout_c,
                                          t.rows, t.cols, t.element)

    def fit_copy(self, op) -> None:
        """The destination of a tcgen05.cp owns every cell the copy writes
        (``layouts.cp_footprint``): a scale-factor or metadata buffer, whose declared shape
        is the MMA's logical matrix, grows to the copy's columns; a buffer whose shape is
        its cells (an accumulator, A) must hold them. A copy into an operand that the MMA
        reads on 16 lanes of each quarter (Layouts F and C read as F) is an error: every
        copy shape but .4x256b writes whole quarters, and none places the operand's rows
        on the lanes such an MMA reads."""
        cp = CpOp(op)
        shape, multicast = cp.shape, cp.multicast
        # The buffers the destination may be (one reported already has no info).
        owners = [(owner, self.buffers.get(owner))
                  for owner in traced_buffers(cp.dest) or ()]
        owners = [(owner, info) for owner, info in owners if info is not None]
        if not owners:
            return
        try:
            copy = layouts.cp_footprint(shape, multicast, column=cp.column)
        except IsaRuleError as exc:
            self.error(op, str(exc))
            return
        for owner, info in owners:
            if not self.fit_copy_into(op, owner, info, copy, shape, multicast):
                return

    def fit_copy_into(self, op, owner, info, copy, shape, multicast) -> bool:
        """Grows or checks one destination buffer of a copy (see fit_copy); False when
        an error was reported."""
        buffer = TmemBufferOp(owner)
        if buffer.half_lanes:
            self.error(op, _half_lane_copy_message(shape, multicast, info))
            return False
        columns = buffer.columns
        if copy.end_column <= columns:
            return True
        if info.role in GROWN_BY_COPIES:
            buffer.columns = int(copy.end_column)
            return True
        self.error(op, f"tcgen05.cp.{shape} at column {copy.first_column} writes columns "
                       f"[{copy.first_column}, {copy.end_column}) of its destination "
                       f"(9.7.16.2.3: {copy.columns} columns per lane), which has only "
                       f"{columns}: the copy would write cells the plan gives to other "
                       f"buffers")
        return False

    def fit_shift(self, op) -> None:
        """tcgen05.shift moves 32-byte elements down one row within 32 lanes from a lane
        aligned to 32 (9.7.16.2.3 ".31x256b (implicit)", 9.7.16.9.3): it touches 8 columns
        on both lane halves of a quarter, so its buffer must have 8 columns and not be a
        half-lane one (the other half may hold another buffer)."""
        for owner in traced_buffers(ShiftOp(op).buffer) or ():
            info = self.buffers.get(owner)
            if info is not None:  # else a buffer already reported
                self.fit_shift_into(op, owner, info)

    def fit_shift_into(self, op, owner, info) -> None:
        """Checks one buffer a tcgen05.shift may move (see fit_shift)."""
        if TmemBufferOp(owner).half_lanes:
            self.error(op, f"tcgen05.shift shifts the 32 lanes from its 32-aligned taddr "
                           f"(9.7.16.9.3), both halves of a quarter, but Layout "
                           f"{info.layout} holds this buffer on 16 lanes of each quarter "
                           f"(9.7.16.10.5): the shift would move the other half, which the "
                           f"plan may give to another buffer")
            return
        columns = TmemBufferOp(owner).columns
        if columns < SHIFT_COLUMNS:
            self.error(op, f"tcgen05.shift moves {SHIFT_COLUMNS} columns (32-byte elements, "
                           f"9.7.16.9.3) but its buffer has {columns}: it would move cells "
                           f"the plan gives to other buffers")
