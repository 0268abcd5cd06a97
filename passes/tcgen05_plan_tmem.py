"""tcgen05-plan-tmem: where every TMEM buffer lives, and the physical allocation.

Liveness (``tcgen05_lower.planning.liveness``): a buffer keeps its cells from its
``tcgen05.tmem_buffer`` to the last op that may access it, along every path through
``scf.for`` / ``scf.if`` / ``scf.while`` / ``cf`` branches, following values through
``arith.select``, block arguments, loop-carried values, region results and
``tcgen05.tmem_stage`` views (a buffer read in a later iteration is live for the whole
loop); and for as long as an asynchronous op that touches it may be in flight. This pass
runs before ``tcgen05-insert-sync``, so an asynchronous op counts as complete only at an
op before which *any* correct synchronization must have completed it: a later op that
certainly conflicts with it on the same buffer (e.g. the ``tcgen05.ld`` of an MMA's
accumulator), a use of the registers a load wrote, an explicit ``tcgen05.wait``, or the
kernel's exit; and then everything of the same completion class issued before it
(commit and wait::ld/st cover all earlier ones). The liveness module's docstring has
the exact rules. Live ranges are indices in one program order, documented in
``tcgen05_lower.planning`` (pre-order, the ``func.func`` is 0).

Placement (``tcgen05_lower.planning.placement``) is two-dimensional: columns x lane
halves. Footprints come from ``tcgen05-select-layouts`` (``columns`` per CTA and
``half_lanes``): Layouts F and C use 16 lanes per quarter at lane offset 0 or 16, so two
of them share columns; A in TMEM, D and the sparse metadata of one Layout F/C MMA take the
same lane offset (9.7.16.10.5, 9.7.16.10.8.5); metadata columns are even (2-column
granules); a multi-buffered ``[stages, rows, cols]`` buffer takes its stages side by
side, or, for half-lane stages, in pairs on the two lane halves.

Strategies (option ``strategy``): ``first-fit`` (program order, lowest column then lane
offset, like Triton's allocator; the default), ``optimal`` (minimum peak column: exact
search with a node limit, then the best of several heuristics; never worse than
first-fit), ``no-reuse`` (every buffer its own cells).

Physical allocation (9.7.16.7.1): one ``tcgen05.alloc`` of the smallest power of two in
[32, 512] columns holding the plan, at kernel entry (issued by one warp, for
cta_group::2 by one warp of each CTA of the pair, as the lowering predicates it), then
``relinquish_alloc_permit``, and a ``tcgen05.dealloc`` before every ``func.return``. A
kernel may also contain hand-written ``tcgen05.alloc`` ops: the planner's allocation comes
first, no permit is relinquished (a later alloc would be illegal), and the column counts
must not increase along any execution path. Every tcgen05 op that names a ``cta_group``
must agree with the kernel's.

A buffer with ``alias`` (``tcgen05_lower.planning.aliases``) is not placed: it gets its
parent's lane offset, column offset + ``alias_column`` and stage layout and stride, and
its accesses keep the parent live.

Errors: tensor memory over-subscribed (at the op where the live footprint, or the chosen
strategy's placement, first passes 512 columns; lists the live buffers and the total),
mixed cta_group, an increasing allocation sequence, an allocation size that is not a power
of two in [32, 512], a buffer without a layout (run tcgen05-select-layouts first).

Reports: ``report=true`` prints a table per kernel; ``json=FILE`` and ``svg=FILE`` write
the JSON report and the SVG picture (``tcgen05-lower --report-json / --report-svg``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import file_location, ir
from tcgen05_lower.dialect.ops import (AllocOp, DeallocOp, MmaOp, RelinquishAllocPermitOp,
                                       TmemBufferOp, TmemStageOp, wrap)
from tcgen05_lower.isa.layouts import TMEM_COLUMNS
from tcgen05_lower.pass_infra import ModulePass, Option, PassResult
from tcgen05_lower.planning import aliases, liveness, placement, report
from tcgen05_lower.planning.program import build_program

#: The unit of allocation is 32 columns; counts are powers of two up to 512 (9.7.16.7.1).
MIN_ALLOC_COLUMNS = 32
STRATEGIES = tuple(placement.STRATEGIES)
#: Layouts whose operands may sit at lane offset 16 (9.7.16.10.5, last column).
HALF_DATAPATH_LAYOUTS = ("F", "C")
#: Roles that follow D's lane alignment in Layouts F and C (9.7.16.10.5).
ALIGNED_ROLES = ("d", "a", "metadata")
#: Sparse metadata is addressed in 2-column granules (tmem-facts section 3).
METADATA_COLUMN_ALIGN = 2


def next_allocation(columns: int) -> int:
    """The smallest legal allocation (a power of two in [32, 512]) holding `columns`."""
    size = MIN_ALLOC_COLUMNS
    while size < columns:
        size *= 2
    return size


def is_legal_allocation(columns: int) -> bool:
    """9.7.16.7.1: a power of two in [32, 512]."""
    return MIN_ALLOC_COLUMNS <= columns <= TMEM_COLUMNS and columns & (columns - 1) == 0


def location_text(location) -> str:
    """``file:line:col`` of a location (``line:col`` when the IR came from a buffer
    without a file name), or its printed form if it has no file position."""
    filename, line, column = file_location(location)
    if line is None:
        return str(location)
    return f"{filename}:{line}:{column}" if filename else f"{line}:{column}"


def _terminator_elsewhere(op, kernel_file) -> bool:
    """Whether `op` is a region's terminator located in another file than its kernel: the
    implicit ``scf.yield`` / ``gpu.yield`` the parser places at the region's closing
    brace of a text nobody wrote (a kernel built from Python, compiled from its printed
    text, whose ops carry the Python lines). The report then names the op before it, in
    the kernel's file, rather than a line of that other text."""
    return op.name in ("scf.yield", "gpu.yield") \
        and file_location(op.location)[0] != kernel_file


def _role(buffer) -> str:
    """A TMEM buffer's role (written by tcgen05-select-layouts; "d" without one)."""
    return buffer.role if buffer.role is not None else "d"


@dataclass
class PlanTmemResult(PassResult):
    """The TMEM plan of every kernel the run planned (those with buffers), in order."""

    plans: list[report.KernelPlan] = field(default_factory=list)


class Tcgen05PlanTmem(ModulePass):
    """The pass (see the module docstring)."""
    name = "tcgen05-plan-tmem"
    description = "Assign TMEM lanes and columns to every buffer and allocate tensor memory"
    options = (
        Option("strategy", str, "first-fit", "placement strategy", STRATEGIES),
        Option("report", bool, False, "print the plan of every kernel to stderr"),
        Option("json", str, "", "write the JSON report of the plans to this file"),
        Option("svg", str, "", "write an SVG picture of the plans to this file"),
        Option("node-limit", int, placement.DEFAULT_NODE_LIMIT,
               "search nodes per component before optimal falls back to heuristics",
               minimum=1),
    )

    result_class = PlanTmemResult

    def apply(self, module) -> None:
        """Plans every kernel of `module`; writes the JSON/SVG reports even if one fails."""
        plans = self.result.plans
        try:
            for kernel in d.kernels(module):
                plan = self.plan_kernel(kernel)
                if plan is not None:
                    plans.append(plan)
                    if self.option("report"):
                        print(report.format_table(plan), file=self.report_stream)
        finally:
            for option, render in (("json", report.format_json), ("svg", report.format_svg)):
                path = self.option(option)
                if not path:
                    continue
                try:
                    Path(path).write_text(render(plans))
                except OSError as exc:   # a missing directory, no permission
                    self.error(module, f"{self.name}: cannot write {option}={path}: "
                                       f"{exc.strerror or exc}")

    # ------------------------------------------------------------------ kernel

    def plan_kernel(self, kernel) -> report.KernelPlan | None:
        """Plans one kernel and rewrites it; None when there is nothing to plan (no
        buffers, or planned already: then only the allocations are checked)."""
        info = d.kernel_info(kernel)
        program = build_program(kernel)
        ops = program.ops[1:]
        self.check_cta_groups(ops, info)
        buffers = [op for op in ops if TmemBufferOp.matches(op)]
        planned = [op for op in buffers if len(op.operands)]
        if planned and len(planned) == len(buffers):
            # Planned already (by an earlier run, or by hand): only check the allocations.
            self.check_allocations(program, None)
            return None
        if planned:
            self.fail(planned[0], "this TMEM buffer is planned (it has a base address) but "
                                  "others in the kernel are not: plan all or none")
        for op in buffers:
            if not TmemBufferOp(op).has(TmemBufferOp.layout) \
                    or not TmemBufferOp(op).has(TmemBufferOp.columns):
                self.fail(op, "TMEM buffer has no layout: run tcgen05-select-layouts first")
        if not buffers:
            self.check_allocations(program, None)
            return None
        alias_parents = aliases.parents(buffers)
        for op, parent in alias_parents.items():
            problem = aliases.footprint_problem(op, parent)
            if problem:
                self.fail(op, problem)
        hand_allocs = [op for op in ops if AllocOp.matches(op)]
        live = liveness.analyze(program)
        items, ties_note = self.build_items(program, live)
        plan = report.KernelPlan(info.name, self.option("strategy"), info.cta_group)
        plan.buffers = [self.planned_buffer(root.op, root.label, live.intervals[root.index],
                                            program)
                        for root in program.roots]
        plan.lower_bound_columns, plan.lower_bound_point = placement.lower_bound(items)
        if ties_note:
            plan.notes.append(ties_note)
        for start, _, mask in live.concurrent or ():
            used = [root.label for root in program.roots if mask >> root.index & 1]
            plan.notes.append(
                f"the roles of the tcgen05.partitions at line "
                f"{file_location(program.ops[start].location)[1] or '?'} "
                f"run concurrently: every buffer a role uses is live across the whole "
                f"partitions op, so buffers of different roles never share columns "
                f"({', '.join(used) or 'no buffer'})")
        for op, parent in alias_parents.items():
            plan.notes.append(aliases.report_note(op, parent))
        if hand_allocs:
            plan.notes.append("the kernel allocates tensor memory itself too: the planner's "
                              "allocation comes first and no permit is relinquished")
        options = {"node_limit": self.option("node-limit")} \
            if self.option("strategy") == "optimal" else {}
        result = placement.place(self.option("strategy"), items, **options)
        for item in items:
            variant, column = result.spots[item.index]
            plan.buffers[item.index].variant = variant
            plan.buffers[item.index].column = column
        plan.peak_columns = result.peak()
        if self.option("strategy") == "optimal":
            plan.proven = result.proven
            if plan.peak_columns > plan.lower_bound_columns:
                self.explain_gap(items, plan)
        if plan.peak_columns > TMEM_COLUMNS:
            self.over_subscribed(program, items, plan)
            return plan
        plan.allocation_columns = next_allocation(plan.peak_columns)
        self.check_allocations(program, plan.allocation_columns)
        alloc = self.insert_allocation(kernel, info, plan.allocation_columns,
                                       relinquish=not hand_allocs)
        self.rewrite_buffers(program, alloc, plan, alias_parents)
        return plan

    # ------------------------------------------------------------------ checks

    def check_cta_groups(self, ops, info) -> None:
        """9.7.16.7.1: all tcgen05 instructions of a kernel use the same .cta_group."""
        for op in ops:
            typed = wrap(op)
            if typed is None or not typed.declares(AllocOp.cta_group) \
                    or not typed.has(AllocOp.cta_group):
                continue
            group = typed.cta_group
            if group != info.cta_group:
                self.fail(op, f"{op.name} uses cta_group::{group} but kernel @{info.name} is "
                              f"cta_group::{info.cta_group}: all tcgen05 instructions of a "
                              f"kernel must use the same .cta_group (9.7.16.7.1)")

    def check_allocations(self, program, planner_columns: int | None) -> None:
        """Every tcgen05.alloc is a power of two in [32, 512] columns, and no allocation
        may be followed (along any path) by a larger one (9.7.16.7.1). The planner's own
        allocation (`planner_columns`, if any) is made at kernel entry, node 0."""
        nodes = program.nodes
        sizes = {0: planner_columns} if planner_columns else {}
        for node in nodes[1:]:
            op = program.ops[node.index]
            if AllocOp.matches(op):
                columns = AllocOp(op).columns
                if not is_legal_allocation(columns):
                    self.fail(op, f"tcgen05.alloc of {columns} columns: the count must be a "
                                  f"power of two in [32, 512] (9.7.16.7.1)")
                sizes[node.index] = columns
        if len(sizes) < 2:
            return
        # Forward: the smallest allocation that may have executed before each op.
        smallest: list = [None] * len(nodes)
        preds: list[list[int]] = [[] for _ in nodes]
        for node in nodes:
            for s in node.succ:
                preds[s].append(node.index)
        changed = True
        while changed:
            changed = False
            for node in nodes:
                incoming = [smallest[p] for p in preds[node.index] if smallest[p] is not None]
                best = min(incoming, default=None)
                if node.index in sizes:
                    mine = (sizes[node.index], node.index)
                    if best is not None and best[0] < mine[0]:
                        earlier = file_location(program.ops[best[1]].location)[1]
                        who = ("the planner's allocation at kernel entry" if best[1] == 0
                               else f"the allocation at line {earlier}")
                        self.fail(program.ops[node.index],
                                  f"tcgen05.alloc of {mine[0]} columns may execute after an "
                                  f"allocation of {best[0]} columns ({who}): the number of "
                                  f"columns allocated must not increase between allocations "
                                  f"in execution order (9.7.16.7.1)")
                    best = mine if best is None or mine[0] <= best[0] else best
                if best != smallest[node.index]:
                    smallest[node.index] = best
                    changed = True

    # ------------------------------------------------------------------ items

    def build_items(self, program, live) -> tuple[list[placement.Item], str]:
        """One placement item per root buffer: its live range, footprint variants, column
        alignment and lane tie group; and a note for the report, if any."""
        roots = program.roots
        # Tie groups: the D, A and metadata buffers of each Layout F/C MMA share a lane
        # offset (9.7.16.10.5); union-find over roots.
        parent = list(range(len(roots)))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        tied = set()
        for node in program.nodes:
            if node.async_kind != "mma":
                continue
            if MmaOp(program.ops[node.index]).layout not in HALF_DATAPATH_LAYOUTS:
                continue
            members = []
            for a in node.accesses:
                if a.role in ALIGNED_ROLES:
                    mask = a.roots
                    while mask:
                        low = mask & -mask
                        members.append(low.bit_length() - 1)
                        mask ^= low
            for m in members[1:]:
                parent[find(m)] = find(members[0])
            if len(set(members)) > 1:
                tied.update(members)
        items = []
        note = ""
        for root in roots:
            buffer = TmemBufferOp(root.op)
            t = d.type_info(buffer.buffer.type)
            half = bool(buffer.half_lanes)
            layout = buffer.layout
            role = _role(buffer)
            offsets = (0, 16) if half and layout in HALF_DATAPATH_LAYOUTS \
                and role in ALIGNED_ROLES else (0,)
            variants = placement.item_variants(columns=buffer.columns,
                                               half_lanes=half, stages=t.stages,
                                               lane_offsets=offsets)
            if t.stages > 1 and root.index in tied:
                # A tied stage buffer needs one lane offset for every stage.
                variants = tuple(v for v in variants if v.name != "lane_pairs")
                note = ("stages of a buffer tied to A/metadata lane offsets stay on one "
                        "lane half")
            first, last = live.intervals[root.index]
            items.append(placement.Item(
                root.index, root.label, first, last, variants,
                align=METADATA_COLUMN_ALIGN if role == "metadata" else 1,
                tie=find(root.index) if root.index in tied else -1,
                columns=buffer.columns, stages=t.stages))
        return items, note

    def planned_buffer(self, op, label, interval, program) -> report.PlannedBuffer:
        """The report's view of a root buffer; its live range also by the source locations
        of the ops that start and end it."""
        buffer = TmemBufferOp(op)
        t = d.type_info(buffer.buffer.type)

        def where(index: int) -> str:
            if not 0 <= index < len(program.ops):
                return ""
            kernel_file = file_location(program.ops[0].location)[0]
            while index > 0 and _terminator_elsewhere(program.ops[index], kernel_file):
                index -= 1
            return location_text(program.ops[index].location)

        return report.PlannedBuffer(
            label=label, loc=location_text(op.location), shape=t.shape, element=t.element,
            layout=buffer.layout, role=_role(buffer),
            columns=buffer.columns, stages=t.stages,
            half_lanes=bool(buffer.half_lanes),
            start=interval[0], end=interval[1],
            start_loc=where(interval[0]), end_loc=where(interval[1]))

    # ------------------------------------------------------------------ diagnostics

    def explain_gap(self, items, plan) -> None:
        """Why ``optimal`` is above the lane-aware bound: the exact packing of the buffers
        live at one point (:func:`placement.point_bound`), when it shows the gap."""
        bound, point, exact = placement.point_bound(items, self.option("node-limit"))
        plan.point_bound_columns = bound if exact else None
        names = ", ".join(plan.buffers[it.index].label
                          for it in placement.live_at(items, point))
        if exact and bound >= plan.peak_columns:
            plan.notes.append(
                f"the lane-aware bound {plan.lower_bound_columns} ignores geometry: the "
                f"buffers live at op {point} ({names}) need {bound} columns however they are "
                f"placed (exact search), so {plan.peak_columns} is the minimum")
        elif plan.proven:
            plan.notes.append(
                f"no placement reaches the lane-aware bound {plan.lower_bound_columns}: the "
                f"search over all placements proved {plan.peak_columns} minimal (the largest "
                f"exact packing at one point is {bound} columns, at op {point})")

    def over_subscribed(self, program, items, plan) -> None:
        """The strategy's placement passes 512 columns (9.7.16.1). Reported at the
        definition of the first buffer (in live-range order) placed past column 512,
        with the buffers live where it starts and what their placement needs there."""

        def end(it):
            return plan.buffers[it.index].column + plan.buffers[it.index].variant.width

        crossing = min((it for it in items if end(it) > TMEM_COLUMNS),
                       key=lambda it: (it.start, it.index))
        live = placement.live_at(items, crossing.start)
        needed = max(end(it) for it in live)
        listing = ", ".join(plan.buffers[it.index].describe() for it in live)
        cells = placement.footprint_at(items, crossing.start)
        static = [placement.Item(it.index, it.label, 0, 0, it.variants, it.align, it.tie,
                                 it.columns, it.stages) for it in live]
        packed = placement.optimal(static, node_limit=self.option("node-limit"))
        if cells > TMEM_COLUMNS:
            why = f"their cells alone fill {cells} columns"
        elif packed.proven and packed.peak() > TMEM_COLUMNS:
            why = (f"their cells fill {cells} columns, but no placement of these buffers "
                   f"takes fewer than {packed.peak()} (a half-lane buffer cannot be split "
                   f"over both lane halves)")
        elif plan.strategy != "optimal":
            why = (f"their cells fill only {cells} columns, so another placement may fit: "
                   f"try strategy=optimal")
        else:
            why = (f"their cells fill {cells} columns, but no placement of the kernel's "
                   f"buffers fits" if plan.proven else
                   f"their cells fill {cells} columns; the search found no placement that "
                   f"fits within its node limit")
        self.error(program.roots[crossing.index].op,
                   f"tensor memory over-subscribed: needs {needed} columns of {TMEM_COLUMNS}: "
                   f"{listing} (9.7.16.1); {why}")

    # ------------------------------------------------------------------ rewriting

    def insert_allocation(self, kernel, info, columns: int, *, relinquish: bool):
        """tcgen05.alloc (+ relinquish) at entry and a dealloc before every return."""
        entry = kernel.regions[0].blocks[0]
        first = entry.operations[0]
        with ir.InsertionPoint(first), kernel.location:
            alloc = AllocOp.build(result_types=[ir.IntegerType.get_signless(32)],
                                  columns=int(columns), cta_group=int(info.cta_group))
            if relinquish:
                RelinquishAllocPermitOp.build(cta_group=int(info.cta_group))
        for block in kernel.regions[0].blocks:
            last = block.operations[len(block.operations) - 1].operation
            if last.name == "func.return":
                with ir.InsertionPoint(last), last.location:
                    DeallocOp.build(address=AllocOp(alloc).address, columns=int(columns),
                                    cta_group=int(info.cta_group))
        return alloc

    def rewrite_buffers(self, program, alloc, plan, alias_parents) -> None:
        """Gives every root buffer its base address and placement, every alias its
        parent's (planning.aliases), and every stage view its buffer's layout and
        footprint."""
        base = AllocOp(alloc).address
        stage_ops = [op for op in program.ops if TmemStageOp.matches(op)]
        # Each alias's parent, as a root index (the parent op is replaced below).
        root_of = {root.op: root.index for root in program.roots}
        alias_roots = [(op, root_of[parent]) for op, parent in alias_parents.items()]
        for root, buffer in zip(program.roots, plan.buffers):
            old = root.op
            attrs = {name: old.attributes[name] for name in old.attributes}
            variant = buffer.variant
            lane, column = placement.stage_spot(variant, buffer.column, buffer.columns, 0)
            staged = buffer.stages > 1 or len(buffer.shape) == 3
            with ir.InsertionPoint(old), old.location:
                new = TmemBufferOp.build(
                    base=base, result_types=[old.results[0].type], attributes=attrs,
                    lane_offset=int(lane), column_offset=int(column),
                    stage_layout=(("lane_pairs" if variant.name == "lane_pairs"
                                   else "column_blocks") if staged else None),
                    stage_stride=int(buffer.columns) if staged else None)
            old.results[0].replace_all_uses_with(new.results[0])
            old.erase()
            root.op = new
        for op, index in alias_roots:
            aliases.rewrite(op, program.roots[index].op, base)
        for op in stage_ops:
            # A view carries its buffer's layout and footprint, so that loads and stores
            # of a stage lower like loads of a buffer (tcgen05_lower.lowering.views).
            view = TmemStageOp(op)
            source = view.buffer.owner
            source = source.operation if hasattr(source, "operation") else source
            if not isinstance(source, ir.Operation) or not TmemBufferOp.matches(source):
                continue
            for attr in (TmemStageOp.layout, TmemStageOp.role, TmemStageOp.columns,
                         TmemStageOp.half_lanes):
                if TmemBufferOp(source).has(attr):
                    view.set(attr, source.attributes[attr.name])   # as it is written
