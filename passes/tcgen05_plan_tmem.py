"""tcgen05-plan-tmem: where every TMEM buffer lives, and the physical allocation.

Liveness: ops are numbered in one program order (a pre-order walk of the kernel). A
buffer is live from its definition to its last use; a use inside a loop that the buffer
is defined outside of keeps the buffer live for the whole loop (the next iteration uses
it again). Buffers whose live ranges overlap never share a cell; buffers that do share
cells are ordered by tcgen05-insert-sync, which works on cells, not on buffers.

Placement is two-dimensional: columns x lane halves. Half-datapath buffers (Layouts F and
C) take 16 lanes of every 32-lane quarter at lane offset 0 or 16, so two of them can share
the same columns (tmem-facts section 1); full-datapath buffers take all 128 lanes.

Strategy ``first-fit`` (the baseline): buffers in program order, each at the lowest
column, then the lowest lane offset, that is free for its whole live range.

Physical allocation (9.7.16.7.1): one ``tcgen05.alloc`` of the smallest power of two in
[32, 512] columns that covers the plan, by one warp at kernel entry; then
``relinquish_alloc_permit``; a ``tcgen05.dealloc`` before every return. A plan that needs
more than 512 columns is an error at the buffer that pushed it past, listing what is live.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.pass_infra import ModulePass, Option

#: Tensor memory has 512 columns per CTA (9.7.16.1).
TMEM_COLUMNS = 512
#: The unit of allocation is 32 columns; counts are powers of two (9.7.16.7.1).
MIN_ALLOC_COLUMNS = 32
#: Lane halves: bit 0 = lanes 0-15 of each quarter, bit 1 = lanes 16-31.
HALF_MASKS = {0: 0b01, 16: 0b10}
FULL_MASK = 0b11

STRATEGIES = ("first-fit",)


@dataclass
class Buffer:
    """A TMEM buffer being planned."""

    op: object
    label: str
    shape: tuple[int, ...]
    element: str
    layout: str
    columns: int
    half_lanes: bool
    start: int = 0
    end: int = 0
    column_offset: int = -1
    lane_offset: int = 0

    @property
    def lane_mask(self) -> int:
        return HALF_MASKS[self.lane_offset] if self.half_lanes else FULL_MASK

    def overlaps_in_time(self, other: "Buffer") -> bool:
        return self.start <= other.end and other.start <= self.end

    def overlaps_in_space(self, column: int, lane_mask: int, other: "Buffer") -> bool:
        return (column < other.column_offset + other.columns
                and other.column_offset < column + self.columns
                and lane_mask & other.lane_mask != 0)

    def describe(self) -> str:
        shape = "x".join(map(str, self.shape))
        return f"{self.label} {shape}x{self.element} Layout {self.layout} {self.columns} columns"


@dataclass
class Plan:
    kernel: str
    strategy: str
    buffers: list[Buffer] = field(default_factory=list)
    peak_columns: int = 0
    allocation_columns: int = 0


def next_allocation(columns: int) -> int:
    """The smallest legal allocation (a power of two in [32, 512]) holding `columns`."""
    size = MIN_ALLOC_COLUMNS
    while size < columns:
        size *= 2
    return size


def number_ops(kernel) -> tuple[dict, dict]:
    """Program-order index of every op, and for every op with regions the last index
    inside it (so that an op's span is [index, span_end])."""
    index: dict = {}
    span_end: dict = {}
    counter = 0

    def visit(op) -> None:
        nonlocal counter
        index[op] = counter
        counter += 1
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    visit(inner.operation)
        span_end[op] = counter - 1

    visit(kernel)
    return index, span_end


def live_range(buffer_op, index, span_end, kernel) -> tuple[int, int]:
    """[first, last] program-order indices during which the buffer must keep its cells."""
    start = index[buffer_op]
    end = start
    defining_parent = buffer_op.parent
    for use in buffer_op.results[0].uses:
        user = use.owner
        user = user.operation if hasattr(user, "operation") else user
        last = index[user]
        # A use in a loop the buffer was defined outside of: the buffer is needed again in
        # the next iteration, so it stays live to the end of that (outermost such) loop.
        parent = user.parent
        while parent is not None and parent != defining_parent and parent != kernel:
            if parent.name in ("scf.for", "scf.while"):
                last = max(last, span_end[parent])
            parent = parent.parent
        end = max(end, last)
    return start, end


class Tcgen05PlanTmem(ModulePass):
    name = "tcgen05-plan-tmem"
    description = "Assign TMEM lanes and columns to every buffer and allocate tensor memory"
    options = (
        Option("strategy", str, "first-fit", "placement strategy", STRATEGIES),
        Option("report", bool, False, "print the plan of every kernel to stderr"),
    )

    def apply(self, module) -> None:
        self.plans: list[Plan] = []
        for kernel in d.kernels(module):
            plan = self.plan_kernel(kernel)
            if plan is not None:
                self.plans.append(plan)
                if self.option("report"):
                    print(format_report(plan), file=self.report_stream)

    def plan_kernel(self, kernel) -> Plan | None:
        info = d.kernel_info(kernel)
        index, span_end = number_ops(kernel)
        buffers = []
        for op in d.walk_ops(kernel):
            if d.op_name(op) != "tmem_buffer":
                continue
            if "layout" not in op.attributes:
                self.fail(op, "TMEM buffer has no layout: run tcgen05-select-layouts first")
            t = d.type_info(op.results[0].type)
            start, end = live_range(op, index, span_end, kernel)
            buffers.append(Buffer(
                op=op, label=buffer_label(op), shape=t.shape, element=t.element,
                layout=d.get_str(op, "layout"), columns=d.get_int(op, "columns"),
                half_lanes=bool(d.get_int(op, "half_lanes", 0)), start=start, end=end))
        plan = Plan(info.name, self.option("strategy"), buffers)
        if not buffers:
            return plan
        self.place_first_fit(buffers)
        plan.peak_columns = max(b.column_offset + b.columns for b in buffers)
        plan.allocation_columns = next_allocation(plan.peak_columns)
        self.rewrite(kernel, info, plan)
        return plan

    def place_first_fit(self, buffers: list[Buffer]) -> None:
        placed: list[Buffer] = []
        for buffer in sorted(buffers, key=lambda b: b.start):
            live = [other for other in placed if buffer.overlaps_in_time(other)]
            # Candidate columns: 0 and the first column after each live buffer.
            candidates = sorted({0} | {o.column_offset + o.columns for o in live})
            offsets = (0, 16) if buffer.half_lanes else (0,)
            spot = None
            for column in candidates:
                for lane_offset in offsets:
                    mask = HALF_MASKS[lane_offset] if buffer.half_lanes else FULL_MASK
                    if not any(buffer.overlaps_in_space(column, mask, o) for o in live):
                        spot = (column, lane_offset)
                        break
                if spot:
                    break
            buffer.column_offset, buffer.lane_offset = spot
            if buffer.column_offset + buffer.columns > TMEM_COLUMNS:
                needed = max([buffer.column_offset + buffer.columns]
                             + [o.column_offset + o.columns for o in live])
                listing = ", ".join(b.describe() for b in [*live, buffer])
                self.fail(buffer.op, f"tensor memory over-subscribed: needs {needed} columns "
                                     f"of {TMEM_COLUMNS}: {listing} (9.7.16.1)")
            placed.append(buffer)

    def rewrite(self, kernel, info, plan: Plan) -> None:
        entry = kernel.regions[0].blocks[0]
        first = entry.operations[0]
        i64 = ir.IntegerType.get_signless(64)
        i32 = ir.IntegerType.get_signless(32)

        def int_attr(value):
            return ir.IntegerAttr.get(i64, value)

        with ir.InsertionPoint(first), kernel.location:
            alloc = ir.Operation.create(
                "tcgen05.alloc", results=[i32],
                attributes={"columns": int_attr(plan.allocation_columns),
                            "cta_group": int_attr(info.cta_group)})
            ir.Operation.create("tcgen05.relinquish_alloc_permit",
                                attributes={"cta_group": int_attr(info.cta_group)})
        base = alloc.results[0]
        for buffer in plan.buffers:
            old = buffer.op
            attrs = {name: old.attributes[name] for name in old.attributes}
            attrs["lane_offset"] = int_attr(buffer.lane_offset)
            attrs["column_offset"] = int_attr(buffer.column_offset)
            with ir.InsertionPoint(old), old.location:
                new = ir.Operation.create("tcgen05.tmem_buffer", results=[old.results[0].type],
                                          operands=[base], attributes=attrs)
            old.results[0].replace_all_uses_with(new.results[0])
            old.erase()
            buffer.op = new
        for op in list(d.walk_ops(kernel)):
            if op.name == "func.return":
                with ir.InsertionPoint(op), op.location:
                    ir.Operation.create(
                        "tcgen05.dealloc", operands=[base],
                        attributes={"columns": int_attr(plan.allocation_columns),
                                    "cta_group": int_attr(info.cta_group)})


def buffer_label(op) -> str:
    """How reports and diagnostics name a buffer: its ``name`` attribute, else its SSA
    name in the printed IR."""
    name = d.get_str(op, "name")
    if name:
        return "%" + name
    return op.results[0].get_name()


def format_report(plan: Plan) -> str:
    """A text table of a kernel's TMEM plan."""
    lines = [f"tcgen05-plan-tmem: kernel @{plan.kernel} strategy={plan.strategy} "
             f"peak={plan.peak_columns} columns allocation={plan.allocation_columns} columns"]
    header = ("buffer", "shape", "layout", "lanes", "columns", "live")
    rows = []
    for b in plan.buffers:
        lanes = (f"{b.lane_offset}-{b.lane_offset + 15} of each quarter" if b.half_lanes
                 else "0-127")
        rows.append((b.label, "x".join(map(str, b.shape)) + "x" + b.element, b.layout,
                     lanes, f"[{b.column_offset}, {b.column_offset + b.columns})",
                     f"[{b.start}, {b.end}]"))
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        lines.append("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
    return "\n".join(lines)
