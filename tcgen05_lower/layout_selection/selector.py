"""The driver of the decisions: one walk over each kernel collects its buffers,
accesses, fragments and copies and decides, in order, the layout of every MMA, the
footprint of every buffer, the copies' fit, the messages of every access, the fragment
checks and the splits under a register budget."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.computed import is_row_vector
from tcgen05_lower.dialect.ops import (CpOp, FragBroadcastOp, FragMapOp, FragReduceOp, LdOp,
                                       LdRedOp, LoadFragmentOp, MmaOp, ShiftOp, StOp,
                                       StoreFragmentOp, TmemBufferOp, wrap)
from tcgen05_lower.kernel_ir import OpMap
from tcgen05_lower.layout_selection.common import line_text
from tcgen05_lower.layout_selection.fragment_checks import FragmentDecisions
from tcgen05_lower.layout_selection.messages import MessageDecisions
from tcgen05_lower.layout_selection.mma_layouts import MmaLayoutDecisions
from tcgen05_lower.layout_selection.results import AccessMessages, BufferLayout, KernelLayouts
from tcgen05_lower.layout_selection.splits import BudgetSplits


class LayoutSelector(MmaLayoutDecisions, MessageDecisions, FragmentDecisions,
                     BudgetSplits):
    """Every decision of the package, mixed into the pass's run (which supplies error(),
    failed, option(), result and report_stream, and sets strategy and layout_c before
    select_in_kernel)."""

    def select_in_kernel(self, kernel) -> None:
        info = d.kernel_info(kernel)
        chosen: dict = {}  # tmem_buffer op -> Use (role, layout, footprint, mma op)
        buffers, accesses, load_fragments, store_fragments, copies = [], [], [], [], []
        row_ops = []  # frag_reduce, frag_broadcast: check_rows_per_thread
        #: value -> how it is held (computed.row_vector_root), shared by the checks.
        self.row_memo: dict = {}
        for op in d.walk_ops(kernel):
            typed = wrap(op)
            if isinstance(typed, TmemBufferOp):
                buffers.append(op)
            elif isinstance(typed, (LdOp, LdRedOp, StOp)):
                accesses.append(op)
            elif isinstance(typed, LoadFragmentOp):
                load_fragments.append(op)
            elif isinstance(typed, StoreFragmentOp):
                store_fragments.append(op)
            elif isinstance(typed, (CpOp, ShiftOp)):
                copies.append(op)
            elif isinstance(typed, MmaOp):
                self.select_for_mma(op, info, chosen)
            elif isinstance(typed, (FragReduceOp, FragBroadcastOp)):
                row_ops.append(op)
            elif isinstance(typed, FragMapOp) and any(
                    is_row_vector(value, self.row_memo) for value in op.operands):
                row_ops.append(op)  # a map of per-row values
            elif op.name == "scf.for" and any(
                    isinstance(d.type_info(r.type), d.FragType) for r in op.results):
                row_ops.append(op)  # carries row vectors
        self.buffers = OpMap()   # not a dict: an op's hash changes with its attributes
        for buffer in buffers:
            self.record_footprint(buffer, chosen.get(buffer), info)
        for op in copies:
            if CpOp.matches(op):
                self.fit_copy(op)
            else:
                self.fit_shift(op)
        self.plans: dict = {}
        self.split_notes: list[str] = []
        for op in accesses:
            self.plan_access(op)
        for op in load_fragments:
            self.plan_load_fragment(op)
        for op in accesses:
            if StOp.matches(op):
                self.check_stored_fragment(op)
        for op in store_fragments:
            self.check_global_store(op)
        for op in row_ops:
            self.check_rows_per_thread(op)
        if not self.failed:
            self.split_for_budget(kernel, accesses, load_fragments)
        decided = self.kernel_layouts(info, buffers)
        self.result.layouts[info.name] = decided
        if self.option("report"):
            print("\n".join(decided.lines()), file=self.report_stream)

    def kernel_layouts(self, info, buffers) -> KernelLayouts:
        """What this kernel's selection decided, as plain data."""
        chosen = []
        for buffer in buffers:
            binfo = self.buffers.get(buffer)
            if binfo is None:
                continue
            typed = TmemBufferOp(buffer)
            chosen.append(BufferLayout(
                typed.name or "tmem_buffer", binfo.rows, binfo.cols,
                binfo.element, binfo.layout, binfo.layout_c, binfo.role,
                typed.columns, bool(typed.half_lanes),
                d.type_info(typed.buffer.type).stages))
        accesses = tuple(AccessMessages(d.op_name(op), line_text(op), plan.access.width,
                                        plan.access.describe(), plan.note)
                         for op, plan in self.plans.items())
        return KernelLayouts(info.name, self.strategy.text(), self.layout_c, tuple(chosen),
                             accesses, tuple(self.split_notes))
