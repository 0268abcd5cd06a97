"""tcgen05-insert-sync: order every dependence between tcgen05 operations with the
canonical patterns of PTX ISA 9.7.16.6.4.

Runs after tcgen05-plan-tmem, so dependences are found on TMEM *cells* (two buffers that
share cells depend on each other) and on shared-memory tiles. The pass walks each kernel
once in program order, keeping what is still in flight:

- MMAs issued (by one thread) and not yet known complete; their completion is observed
  with ``commit`` -> ``mbarrier_wait`` by every thread, plus
  ``fence::after_thread_sync`` when the consumer is itself an async tcgen05 op
  (9.7.16.6.4.2 example 2, 9.7.16.6.4.4);
- warpgroup loads not yet waited for: ``wait::ld`` before the loaded registers are used
  or the cells are overwritten (9.7.16.6.4.2, 9.7.16.6.4.5), and, when the next access
  is made by another thread, ``fence::before_thread_sync`` -> barrier ->
  ``fence::after_thread_sync`` (9.7.16.6.4.4);
- shared-memory tiles written through the generic proxy: ``fence.proxy.async`` and a
  barrier before an MMA reads them (9.7.16.6.5).

Pipelined pairs need nothing (9.7.16.6.2): consecutive MMAs on the same accumulator and
shape, issued by the same thread.

Loops: an async op in a loop body may still be in flight when the next iteration starts.
The pass enters a body assuming that every async op of the body is in flight from the
previous iteration; a conflict with such an op is resolved at the end of the body (so the
first iteration does not wait for work that was never issued), with the mbarrier phase
computed from the loop's induction variables. Work in flight before a loop that the body
depends on is completed before the loop.

Each inserted op carries a ``reason`` attribute naming the dependence it serves. The walk
visits every op once, plus one summary walk over each loop body.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.kernel_ir import defining_op, mma_operands
from tcgen05_lower.pass_infra import ModulePass, Option

# ------------------------------------------------------------------------------- accesses


@dataclass(frozen=True)
class Cells:
    """A TMEM region: columns [start, end) on the lane halves of ``lanes`` (bit 0: lanes
    0-15 of every quarter, bit 1: lanes 16-31)."""

    start: int
    end: int
    lanes: int

    def overlaps(self, other: "Cells") -> bool:
        return self.start < other.end and other.start < self.end and self.lanes & other.lanes


def buffer_cells(value) -> Cells | None:
    """The cells of a planned TMEM buffer value (None if it is not planned)."""
    op = defining_op(value)
    if op is None or "column_offset" not in op.attributes:
        return None
    start = d.get_int(op, "column_offset")
    if d.get_int(op, "half_lanes", 0):
        lanes = 0b01 if d.get_int(op, "lane_offset") == 0 else 0b10
    else:
        lanes = 0b11
    return Cells(start, start + d.get_int(op, "columns"), lanes)


ALL_CELLS = Cells(0, 1 << 30, 0b11)


@dataclass(frozen=True)
class InFlight:
    """An async op whose effects may not be complete yet."""

    op: object
    kind: str  # "mma", "ld" or "fill"
    reads: tuple = ()  # Cells read
    writes: tuple = ()  # Cells written
    smem_reads: tuple = ()  # shared-memory tiles (values) read
    smem_writes: tuple = ()  # shared-memory tiles written
    accumulator: object = None  # for mma: the D buffer value (pipelining, 9.7.16.6.2)
    fragment: object = None  # for ld: the fragment value
    from_back_edge: bool = False


def describe(op) -> str:
    """``tcgen05.mma at line 12`` for reasons and reports."""
    loc = op.location
    try:
        return f"{op.name} at line {loc.start_line}" if loc.is_a_file() else op.name
    except Exception:  # pragma: no cover - exotic locations
        return op.name


def access_of(op) -> InFlight | None:
    """What an async op reads and writes, or None for ops that are not async."""
    name = d.op_name(op)
    if name == "mma":
        operands = mma_operands(op)
        cells = buffer_cells(operands.d) or ALL_CELLS
        smem = tuple(v for v in (operands.a, operands.b) if d.is_smem(v))
        reads = (cells,) + ((buffer_cells(operands.a) or ALL_CELLS,)
                            if d.is_tmem(operands.a) else ())
        return InFlight(op, "mma", reads=reads, writes=(cells,), smem_reads=smem,
                        accumulator=operands.d)
    if name == "ld":
        cells = buffer_cells(op.operands[0]) or ALL_CELLS
        return InFlight(op, "ld", reads=(cells,), fragment=op.results[0])
    if name == "smem_fill":
        return InFlight(op, "fill", smem_writes=(op.operands[1],))
    return None


def conflicts(earlier: InFlight, later: InFlight) -> bool:
    """Whether `later` must wait for `earlier` (RAW, WAR or WAW on cells or tiles)."""
    for w in earlier.writes:
        if any(w.overlaps(c) for c in later.reads + later.writes):
            return True
    for r in earlier.reads:
        if any(r.overlaps(c) for c in later.writes):
            return True
    # Shared memory: only generic writes against async-proxy reads matter here. Two fills
    # are ordinary generic stores, ordered like any other (and every fill is separated
    # from the next one by the barrier that precedes the MMAs reading it).
    if set(earlier.smem_writes) & set(later.smem_reads):
        return True
    if set(earlier.smem_reads) & set(later.smem_writes):
        return True
    return False


def pipelined(earlier: InFlight, later: InFlight) -> bool:
    """9.7.16.6.2: mma -> mma on the same accumulator (and so the same shape), same
    thread, same cta_group, execute in order."""
    return (earlier.kind == "mma" and later.kind == "mma"
            and earlier.accumulator == later.accumulator)


# ---------------------------------------------------------------------------------- state


@dataclass(frozen=True)
class State:
    in_flight: frozenset = frozenset()
    #: MMAs known complete through an mbarrier wait but not yet followed by
    #: fence::after_thread_sync: an async consumer still needs that fence.
    unfenced: frozenset = frozenset()

    def merge(self, other: "State") -> "State":
        return State(self.in_flight | other.in_flight, self.unfenced | other.unfenced)


@dataclass
class LoopFrame:
    """A loop whose body is being walked."""

    op: object
    #: Completions to insert at the end of the body: kinds "mma", "ld", "fill".
    complete_at_end: set = field(default_factory=set)
    #: Whether an async tcgen05 consumer needs fence::after after the end-of-body wait.
    fence_after: bool = False


STRATEGIES = ("minimal",)


class Tcgen05InsertSync(ModulePass):
    name = "tcgen05-insert-sync"
    description = "Insert the canonical tcgen05 synchronization for every dependence"
    options = (
        Option("strategy", str, "minimal", "sync placement strategy", STRATEGIES),
        Option("report", bool, False, "print the sync ops added, with their reasons"),
    )

    def apply(self, module) -> None:
        for kernel in d.kernels(module):
            self.kernel = kernel
            self.entry = kernel.regions[0].blocks[0]
            self.added: list = []
            self.loops: list[LoopFrame] = []
            self.barrier_count = 0
            self.walk_block(self.entry, State())
            if self.option("report"):
                self.print_report(kernel)

    # ------------------------------------------------------------------ walking

    def walk_block(self, block, state: State) -> State:
        for op in list(block.operations):
            state = self.visit(op.operation, state)
        return state

    def visit(self, op, state: State) -> State:
        name = d.op_name(op)
        if op.name == "scf.for":
            return self.visit_loop(op, state)
        if op.name == "scf.if":
            then_state = self.walk_block(op.regions[0].blocks[0], state)
            else_state = (self.walk_block(op.regions[1].blocks[0], state)
                          if len(op.regions) > 1 and len(op.regions[1].blocks) else state)
            return then_state.merge(else_state)
        if name in ("mma", "ld", "smem_fill"):
            return self.visit_async(op, state)
        if name == "store_fragment":
            return self.visit_fragment_use(op, state)
        if name == "dealloc":
            return self.visit_dealloc(op, state)
        if name == "wait" and d.get_str(op, "kind") == "ld":
            return replace(state, in_flight=frozenset(f for f in state.in_flight
                                                      if f.kind != "ld"))
        for region in op.regions:  # other region ops: walk conservatively
            for block in region.blocks:
                state = self.walk_block(block, state)
        return state

    def visit_async(self, op, state: State) -> State:
        access = access_of(op)
        blocking = [f for f in state.in_flight
                    if conflicts(f, access) and not pipelined(f, access)]
        if access.kind == "mma":
            # Generic-proxy writes to a tile this MMA reads (9.7.16.6.5).
            dirty = [f for f in blocking if f.kind == "fill"]
            if dirty:
                state = self.complete(op, state, "fill", dirty, access)
            blocking = [f for f in blocking if f.kind != "fill"]
        for kind in ("mma", "ld", "fill"):
            of_kind = [f for f in blocking if f.kind == kind]
            if of_kind:
                state = self.complete(op, state, kind, of_kind, access)
        # An async tcgen05 consumer of work completed through an mbarrier wait needs
        # fence::after_thread_sync after that wait (9.7.16.6.3).
        if access.kind in ("mma", "ld"):
            unfenced = [f for f in state.unfenced if conflicts(f, access)]
            if unfenced:
                self.insert(op, "fence", kind="after_thread_sync",
                            reason=self.reason("after the wait for", unfenced, op))
                state = replace(state, unfenced=frozenset())
        return replace(state, in_flight=state.in_flight | {access})

    def visit_fragment_use(self, op, state: State) -> State:
        fragment = op.operands[0]
        pending = [f for f in state.in_flight if f.kind == "ld" and f.fragment == fragment
                   and not f.from_back_edge]
        if pending:
            # 9.7.16.6.4.2 / 9.7.16.8.5: wait::ld before the loaded registers are used.
            return self.complete(op, state, "ld", pending, None)
        return state

    def visit_dealloc(self, op, state: State) -> State:
        everything = InFlight(op, "dealloc", writes=(ALL_CELLS,))
        for kind in ("mma", "ld"):
            pending = [f for f in state.in_flight if f.kind == kind]
            if pending:
                state = self.complete(op, state, kind, pending, everything,
                                      cross_thread=False)
        # The allocating warp frees the columns only after every thread's tcgen05
        # accesses are ordered before it (9.7.16.6.4.4).
        self.insert(op, "fence", kind="before_thread_sync",
                    reason="all tensor-memory accesses before dealloc")
        self.insert(op, "barrier", reason="all tensor-memory accesses before dealloc")
        self.insert(op, "fence", kind="after_thread_sync",
                    reason="all tensor-memory accesses before dealloc")
        return State()

    def visit_loop(self, op, state: State) -> State:
        body = op.regions[0].blocks[0]
        summary = [access_of(inner) for inner in d.walk_ops(op)]
        summary = [a for a in summary if a is not None]
        # Work in flight before the loop that the body depends on: complete it before
        # the loop, once, instead of in every iteration.
        for kind in ("mma", "ld", "fill"):
            pending = [f for f in state.in_flight if f.kind == kind
                       and any(conflicts(f, a) and not pipelined(f, a) for a in summary)]
            if pending:
                consumer = next(a for a in summary
                                if any(conflicts(f, a) for f in pending))
                state = self.complete(op, state, kind, pending, consumer)
        # Likewise a fence::after_thread_sync that an async op of the body needs.
        unfenced = [f for f in state.unfenced
                    if any(a.kind in ("mma", "ld") and conflicts(f, a) for a in summary)]
        if unfenced:
            self.insert(op, "fence", kind="after_thread_sync",
                        reason=self.reason("after the wait for", unfenced, op))
            state = replace(state, unfenced=frozenset())
        back_edge = frozenset(replace(a, from_back_edge=True) for a in summary)
        frame = LoopFrame(op)
        self.loops.append(frame)
        end_state = self.walk_block(body, replace(state, in_flight=state.in_flight | back_edge))
        self.loops.pop()
        if frame.complete_at_end:
            terminator = body.operations[len(body.operations) - 1].operation
            for kind in ("mma", "ld", "fill"):
                if kind in frame.complete_at_end:
                    pending = [f for f in end_state.in_flight if f.kind == kind]
                    end_state = self.complete(terminator, end_state, kind, pending, None,
                                              fence_after=frame.fence_after,
                                              loop_carried=True)
        # After the loop, what is still in flight is real work of the last iteration.
        exit_state = State(frozenset(replace(f, from_back_edge=False)
                                     for f in end_state.in_flight if not f.from_back_edge),
                           end_state.unfenced)
        return exit_state.merge(state)

    # ------------------------------------------------------------------ completion

    def complete(self, before, state: State, kind: str, pending: list, consumer,
                 *, cross_thread: bool | None = None, fence_after: bool | None = None,
                 loop_carried: bool = False) -> State:
        """Inserts, before op `before`, the pattern that completes the in-flight ops of
        `kind` (all of them: commit and wait::ld track everything prior)."""
        if not pending:
            return state
        if pending and all(f.from_back_edge for f in pending) and self.loops \
                and not loop_carried:
            # Only work of the previous iteration is involved: resolve the dependence at
            # the end of the body, so the first iteration waits for nothing.
            frame = self.loops[-1]
            frame.complete_at_end.add(kind)
            if consumer is not None and consumer.kind in ("mma", "ld") and kind == "mma":
                frame.fence_after = True
            if consumer is not None and consumer.kind == "mma" and kind == "ld":
                frame.fence_after = True
            return replace(state, in_flight=frozenset(
                f for f in state.in_flight if not (f.kind == kind and f.from_back_edge)))
        remaining = frozenset(f for f in state.in_flight if f.kind != kind)
        reason = self.reason("completion of", pending, before if consumer is None
                             else consumer.op, loop_carried)
        async_consumer = consumer is not None and consumer.kind in ("mma", "ld", "dealloc")
        if kind == "mma":
            barrier = self.new_mbarrier(before)
            self.insert(before, "commit", operands=[barrier], reason=reason)
            phase = self.phase_value(before)
            self.insert(before, "mbarrier_wait", operands=[barrier, phase], reason=reason)
            needs_fence = fence_after if fence_after is not None else (
                async_consumer and consumer.kind != "dealloc")
            if needs_fence:
                self.insert(before, "fence", kind="after_thread_sync", reason=reason)
                return State(remaining, state.unfenced)
            completed = frozenset(f for f in state.in_flight if f.kind == kind)
            return State(remaining, state.unfenced | completed)
        if kind == "ld":
            self.insert(before, "wait", kind="ld", reason=reason)
            other_thread = cross_thread if cross_thread is not None else (
                consumer is not None and consumer.kind == "mma")
            if fence_after or other_thread:
                self.insert(before, "fence", kind="before_thread_sync", reason=reason)
                self.insert(before, "barrier", reason=reason)
                self.insert(before, "fence", kind="after_thread_sync", reason=reason)
            return State(remaining, state.unfenced)
        # Generic-proxy shared-memory writes -> async-proxy reads (9.7.16.6.5).
        self.insert(before, "fence_proxy_async", reason=reason)
        self.insert(before, "barrier", reason=reason)
        return State(remaining, state.unfenced)

    def reason(self, what: str, pending, consumer, loop_carried: bool = False) -> str:
        producers = sorted({describe(f.op) for f in pending}) if pending else []
        text = f"{what} {', '.join(producers)}"
        if consumer is not None:
            text += f" before {describe(consumer)}"
        if loop_carried:
            text += " (next iteration)"
        return text

    # ------------------------------------------------------------------ building

    def insert(self, before, name: str, *, operands=(), kind: str | None = None,
               reason: str = "") -> object:
        attrs = {"reason": ir.StringAttr.get(reason)}
        if kind is not None:
            attrs["kind"] = ir.StringAttr.get(kind)
        with ir.InsertionPoint(before), before.location:
            new = ir.Operation.create(f"tcgen05.{name}", operands=list(operands),
                                      attributes=attrs)
        self.added.append(new)
        return new

    def new_mbarrier(self, near):
        """A fresh mbarrier (one per completion point keeps phases simple), defined at
        kernel entry."""
        first = self.entry.operations[0]
        with ir.InsertionPoint(first), near.location:
            op = ir.Operation.create("tcgen05.alloc_mbarrier", results=[d.mbarrier_type()],
                                     attributes={"count": ir.IntegerAttr.get(
                                         ir.IntegerType.get_signless(64), 1)})
        self.barrier_count += 1
        return op.results[0]

    def phase_value(self, before):
        """The parity of the phase a wait at `before` waits for: the number of earlier
        completions of its mbarrier, which is the linearized iteration count of the
        enclosing loops (one commit per innermost iteration), modulo 2."""
        loops = []
        parent = before.parent
        while parent is not None and parent != self.kernel:
            if parent.name == "scf.for":
                loops.append(parent)
            elif parent.name in ("scf.while",):
                self.fail(before, "a wait inside scf.while needs phase tracking that is "
                                  "not supported yet")
            parent = parent.parent
        i32 = ir.IntegerType.get_signless(32)
        index = ir.IndexType.get()
        with ir.InsertionPoint(before), before.location:
            if not loops:
                return ir.Operation.create("arith.constant", results=[i32],
                                           attributes={"value": ir.IntegerAttr.get(i32, 0)}
                                           ).results[0]
            linear = None
            for loop in reversed(loops):  # outermost first
                lb, ub, step = (loop.operands[i] for i in range(3))
                iv = loop.regions[0].blocks[0].arguments[0]
                offset = _op("arith.subi", [iv, lb], index)
                iteration = _op("arith.divui", [offset, step], index)
                if linear is None:
                    linear = iteration
                else:
                    span = _op("arith.subi", [ub, lb], index)
                    # ceil((ub - lb) / step): the trip count of this inner loop.
                    step_minus_one = _op("arith.subi", [step, _const(1, index)], index)
                    trips = _op("arith.divui", [_op("arith.addi", [span, step_minus_one],
                                                    index), step], index)
                    linear = _op("arith.addi", [_op("arith.muli", [linear, trips], index),
                                                iteration], index)
            parity = _op("arith.andi", [linear, _const(1, index)], index)
            return _op("arith.index_cast", [parity], i32)

    # ------------------------------------------------------------------ report

    def print_report(self, kernel) -> None:
        info = d.kernel_info(kernel)
        lines = [f"tcgen05-insert-sync: kernel @{info.name} strategy={self.option('strategy')} "
                 f"added {len(self.added)} ops, {self.barrier_count} mbarriers"]
        for op in self.added:
            kind = d.get_str(op, "kind")
            label = op.name + (f"::{kind}" if kind else "")
            lines.append(f"  {label:38} {d.get_str(op, 'reason')}")
        print("\n".join(lines), file=self.report_stream)


def _const(value: int, type_):
    return ir.Operation.create("arith.constant", results=[type_],
                               attributes={"value": ir.IntegerAttr.get(type_, value)}).results[0]


def _op(name: str, operands, result_type):
    return ir.Operation.create(name, results=[result_type], operands=list(operands)).results[0]
