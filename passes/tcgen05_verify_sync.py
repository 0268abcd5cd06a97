"""tcgen05-verify-sync: checks that every dependence between tcgen05 operations of a
planned kernel is ordered, and names what is missing where it is not.

This pass shares no code with tcgen05-insert-sync and works differently: instead of
summarizing loops, it *runs* the kernel's control skeleton. Loop bounds, ``scf.if``
conditions, column operands and mbarrier parities are evaluated from the arith ops that
compute them; every execution of an asynchronous op is one instance with its own
progress, and every sync op advances the instances it applies to. An mbarrier is modeled
the way ``mbarrier.try_wait.parity`` behaves: a wait returns at once when the parity it
names is not that of the phase the thread believes is current, so a wait with the wrong
parity, or one that skips a phase, completes nothing.

Who runs what (Table 46, and the lowering): mma, cp, shift and commit are issued by one
thread; ld, ld_red, st and wait by each warp of the warpgroup on its own lane quarter
(9.7.16.8.1), so two of them touching one cell are issued by the same warp; smem_fill,
fences, barriers and mbarrier waits by every thread.

What a later op needs from an earlier op it conflicts with (the same TMEM cells, at least
one writing; a shared-memory tile written through the generic proxy and read by mma/cp,
either way round):

- single-thread op -> single-thread op: nothing for the pipelined pairs of 9.7.16.6.2
  (mma -> mma on the same accumulator with the same shape, cp -> mma, shift -> mma,
  mma -> shift, shift -> cp.4x256b); otherwise completion observed through an mbarrier
  wait on a commit issued after it, then tcgen05.fence::after_thread_sync (9.7.16.6.4.2);
- single-thread op -> warpgroup op: the same (9.7.16.6.4.4);
- single-thread op -> smem_fill of a tile it reads: completion (9.7.16.6.5);
- warpgroup op -> warpgroup op: tcgen05.wait::ld / ::st (9.7.16.6.4.2);
- warpgroup op -> single-thread op: wait, then fence::before_thread_sync, a barrier and
  fence::after_thread_sync, in that order (9.7.16.6.4.4);
- smem_fill -> mma/cp reading the tile: fence.proxy.async, then a barrier (9.7.16.6.5);
- tcgen05.ld executed again: its earlier execution completed (wait::ld) or its registers
  read since (9.7.16.6.4.5);
- tcgen05.dealloc: every TMEM access before it ordered as for a single-thread consumer.

And the mbarrier protocol: a wait must name a phase that a commit issued before it
completes (otherwise it never returns), and a barrier must separate a wait from the next
commit to the same mbarrier (otherwise the commit may complete the phase after the one a
slower thread still waits for, and that thread then waits for a phase that never comes).

Every problem is one error at the later op, naming the earlier op's location (line and
column in the same file) and the missing mechanism, e.g. ``tcgen05.ld reads TMEM columns
[0, 32) that tcgen05.mma at line 20:3 writes, without ordering: missing tcgen05.commit ->
mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)``.

Branches on values that do not evaluate run both ways from the same state and keep the
weaker result; an mbarrier whose phase then differs between the two is an error where it
is used next. Loops of more than 8 iterations run 4 or 5 of them (the same parity, so
every mbarrier phase wraps as in the full run, and the first iteration, the steady state
and the last are all seen); an upper bound that does not evaluate is taken as three
iterations. Limits (reported as errors): ``scf.while`` and other region ops around tcgen05
ops, kernels with several blocks (cf branches), lower bounds, steps and phase parities
that do not evaluate, and kernels that would run more than 2,000,000 ops.

Apart from the dialect's accessors, this module uses no code of tcgen05-insert-sync.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import file_location, ir
from tcgen05_lower.kernel_ir import defining_op, mma_operands
from tcgen05_lower.pass_infra import ModulePass, Option

#: Lanes of the CTA's tensor memory; lane sets are 128-bit masks.
LANES = 128
FULL_LANES = (1 << LANES) - 1
#: Columns of tensor memory (9.7.16.1).
TMEM_COLUMNS = 512
SINGLE_THREAD_OPS = ("mma", "cp", "shift")
WARPGROUP_OPS = ("ld", "ld_red", "st")
#: Loops run in full up to this many iterations; longer ones run 4 or 5 (same parity).
FULL_RUN_ITERATIONS = 8
STEP_BUDGET = 2_000_000
#: An upper bound the pass cannot evaluate is taken as this many iterations.
UNKNOWN_TRIPS = 3

#: 9.7.16.6.2, the pipelined pairs (earlier, later), with the extra condition each needs.
PIPELINED_PAIRS = {
    ("mma", "mma"): "same accumulator and shape",
    ("cp", "mma"): None,
    ("shift", "mma"): None,
    ("shift", "cp"): "cp.4x256b",
    ("mma", "shift"): None,
}


def _lanes(lane_offset: int, half: bool) -> int:
    """The lane mask of a buffer: all 128 lanes, or 16 of each 32-lane quarter."""
    if not half:
        return FULL_LANES
    mask = 0
    for quarter in range(4):
        mask |= ((1 << 16) - 1) << (quarter * 32 + lane_offset)
    return mask


def _where(op) -> str:
    """``line 12:3`` (the kernel's file is the one the diagnostic names)."""
    _, line, col = file_location(op.location)
    return f"line {line}:{col}" if line is not None else "an unknown location"


def _lane_text(mask: int) -> str:
    if mask == FULL_LANES:
        return ""
    low = mask & ((1 << 16) - 1)
    return ", lanes 0-15 of each quarter" if low else ", lanes 16-31 of each quarter"


@dataclass
class Footprint:
    """TMEM cells: columns [lo, hi) on the lanes of `lanes`."""

    lo: int
    hi: int
    lanes: int

    def meets(self, other: "Footprint") -> bool:
        """Whether the two share a cell."""
        return self.lo < other.hi and other.lo < self.hi and bool(self.lanes & other.lanes)

    def text(self) -> str:
        """The cells as messages name them."""
        return f"TMEM columns [{self.lo}, {self.hi}){_lane_text(self.lanes)}"


@dataclass
class Instance:
    """One execution of an asynchronous op and how far it is ordered."""

    op: object
    name: str
    tmem_reads: list
    tmem_writes: list
    tiles_read: list
    tiles_written: list
    shape_key: tuple = ()
    first_commit: dict = field(default_factory=dict)  # mbarrier -> commit index
    complete: bool = False
    released: bool = False
    proxied: bool = False
    synced: bool = False
    acquired: bool = False
    registers_read: bool = False

    @property
    def single_thread(self) -> bool:
        """Issued by one thread and completed through commit and an mbarrier."""
        return self.name in SINGLE_THREAD_OPS

    @property
    def warpgroup(self) -> bool:
        """Issued by the warps of the warpgroup and completed through tcgen05.wait."""
        return self.name in WARPGROUP_OPS

    def finished(self) -> bool:
        """Nothing a later op could still need from it."""
        return self.synced if self.name == "smem_fill" else self.acquired


@dataclass
class MbarrierState:
    """What every thread can rely on about one mbarrier."""

    arrivals: int  # arrivals per phase (the alloc_mbarrier count)
    commits: int = 0  # commits issued so far (each one arrival)
    seen: int = 0  # phases the threads know to be complete
    commit_ops: dict = field(default_factory=dict)  # commit index -> op
    last_wait: object = None  # a wait not yet separated by a barrier from a commit
    unknown_after: object = None  # an scf.if whose branches left different phases


class Unsupported(Exception):
    def __init__(self, op, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


class Evaluator:
    """Integer values of index/integer SSA values under the current loop iterations."""

    BINARY = {
        "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
        "arith.muli": lambda a, b: a * b,
        "arith.divui": lambda a, b: a // b if b else None,
        "arith.divsi": lambda a, b: int(a / b) if b else None,
        "arith.remui": lambda a, b: a % b if b else None,
        "arith.remsi": lambda a, b: a - b * int(a / b) if b else None,
        "arith.ceildivsi": lambda a, b: -(-a // b) if b else None,
        "arith.floordivsi": lambda a, b: a // b if b else None,
        "arith.andi": lambda a, b: a & b, "arith.ori": lambda a, b: a | b,
        "arith.xori": lambda a, b: a ^ b, "arith.maxsi": max, "arith.minsi": min,
        "arith.maxui": max, "arith.minui": min,
        "arith.shli": lambda a, b: a << b, "arith.shrui": lambda a, b: a >> b,
        "arith.shrsi": lambda a, b: a >> b,
    }
    #: arith.cmpi predicates by their enum value.
    COMPARE = {0: lambda a, b: a == b, 1: lambda a, b: a != b, 2: lambda a, b: a < b,
               3: lambda a, b: a <= b, 4: lambda a, b: a > b, 5: lambda a, b: a >= b,
               6: lambda a, b: a < b, 7: lambda a, b: a <= b, 8: lambda a, b: a > b,
               9: lambda a, b: a >= b}
    UNARY = ("arith.index_cast", "arith.index_castui", "arith.extui", "arith.extsi",
             "arith.trunci")

    def __init__(self):
        self.bound: dict = {}

    def value(self, v, depth: int = 0):
        """The integer value of `v` now, or None when it does not evaluate."""
        if v in self.bound:
            return self.bound[v]
        owner = v.owner
        if isinstance(owner, ir.Block) or depth > 200:
            return None
        op = owner.operation if hasattr(owner, "operation") else owner
        name = op.name
        if name == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(attr, ir.BoolAttr):
                return int(ir.BoolAttr(attr).value)
            if isinstance(attr, ir.IntegerAttr):
                return ir.IntegerAttr(attr).value
            return None
        if name in self.BINARY:
            a = self.value(op.operands[0], depth + 1)
            b = self.value(op.operands[1], depth + 1)
            return None if a is None or b is None else self.BINARY[name](a, b)
        if name in self.UNARY:
            return self.value(op.operands[0], depth + 1)
        if name == "arith.cmpi":
            a = self.value(op.operands[0], depth + 1)
            b = self.value(op.operands[1], depth + 1)
            predicate = ir.IntegerAttr(op.attributes["predicate"]).value
            return None if a is None or b is None else int(self.COMPARE[predicate](a, b))
        if name == "arith.select":
            c = self.value(op.operands[0], depth + 1)
            if c is None:
                return None
            return self.value(op.operands[1 if c else 2], depth + 1)
        return None


class Run:
    """One simulated run of a kernel."""

    def __init__(self, pass_: "Tcgen05VerifySync", kernel):
        self.pass_ = pass_
        self.kernel = kernel
        self.eval = Evaluator()
        self.live: list[Instance] = []
        self.mbarriers: dict = {}
        self.problems: dict = {}  # (op, key) -> (op, message), first occurrence first
        self.steps = 0
        self.checked = 0
        self.truncated = False
        self.block_ops: dict = {}
        self.loads_read: dict = {}  # op -> the tcgen05.ld ops whose registers it reads
        self.static: dict = {}  # op -> what instance() needs that does not change

    # ---------------------------------------------------------------- driver

    def run(self) -> None:
        """Runs the kernel's body."""
        if len(self.kernel.regions[0].blocks) > 1:
            raise Unsupported(self.kernel, "tcgen05-verify-sync cannot check a kernel with "
                                           "several blocks (cf branches) yet")
        self.block(self.kernel.regions[0].blocks[0])

    def block(self, block) -> None:
        """Runs the ops of `block` in order."""
        # The same blocks run many times: their op lists are built once (making the
        # Python views of MLIR ops is the costly part of a run).
        ops = self.block_ops.get(block)
        if ops is None:
            ops = self.block_ops[block] = [op.operation for op in block.operations]
        for op in ops:
            self.execute(op)

    def execute(self, op) -> None:
        """Runs one op."""
        self.steps += 1
        if self.steps > STEP_BUDGET:
            raise Unsupported(self.kernel, f"the kernel runs more than {STEP_BUDGET} ops; "
                                           f"tcgen05-verify-sync cannot check it")
        if op.name == "scf.for":
            self.loop(op)
        elif op.name == "scf.if":
            self.branch(op)
        elif len(op.regions):
            if any(d.op_name(inner) is not None for inner in d.walk_ops(op)):
                raise Unsupported(op, f"tcgen05-verify-sync cannot check tcgen05 ops inside "
                                      f"'{op.name}' yet")
        else:
            self.tcgen05(op)
            self.register_reads(op)

    def loop(self, op) -> None:
        """Runs an scf.for (see the module docstring for long and unknown loops)."""
        lb, ub, step = (self.eval.value(op.operands[i]) for i in range(3))
        if lb is None or step is None or step <= 0:
            raise Unsupported(op, "tcgen05-verify-sync cannot evaluate this loop's lower "
                                  "bound and step")
        if ub is None:
            ub = lb + UNKNOWN_TRIPS * step
            self.eval.bound[op.operands[1]] = ub
        trips = max(0, -(-(ub - lb) // step))
        if trips > FULL_RUN_ITERATIONS and op.operands[1] not in self.eval.bound:
            trips = 4 + trips % 2
            self.eval.bound[op.operands[1]] = lb + trips * step
            self.truncated = True
        iv = op.regions[0].blocks[0].arguments[0]
        for i in range(trips):
            self.eval.bound[iv] = lb + i * step
            self.block(op.regions[0].blocks[0])
        self.eval.bound.pop(iv, None)

    def branch(self, op) -> None:
        """Runs the branch an scf.if takes, or both from the same state and keeps the weaker result."""
        condition = self.eval.value(op.operands[0])
        has_else = len(op.regions) > 1 and len(op.regions[1].blocks) > 0
        if condition is not None:
            if condition:
                self.block(op.regions[0].blocks[0])
            elif has_else:
                self.block(op.regions[1].blocks[0])
            return
        # Unknown condition: run both ways from the same state, keep the weaker result.
        saved = ([replace(i, first_commit=dict(i.first_commit)) for i in self.live],
                 {b: replace(s, commit_ops=dict(s.commit_ops))
                  for b, s in self.mbarriers.items()})
        self.block(op.regions[0].blocks[0])
        then_live, then_bars = self.live, self.mbarriers
        self.live, self.mbarriers = saved
        if has_else:
            self.block(op.regions[1].blocks[0])
        self.merge(op, then_live, then_bars)

    def merge(self, op, other_live: list, other_bars: dict) -> None:
        """Joins the state of the other branch of `op` into this one."""
        by_op = {}
        for inst in self.live:
            by_op.setdefault(inst.op, []).append(inst)
        for inst in other_live:
            twins = by_op.get(inst.op)
            if not twins:
                self.live.append(inst)
                continue
            twin = twins[-1]
            for flag in ("complete", "released", "proxied", "synced", "acquired",
                         "registers_read"):
                setattr(twin, flag, getattr(twin, flag) and getattr(inst, flag))
            twin.first_commit = {b: max(i, twin.first_commit[b])
                                 for b, i in inst.first_commit.items()
                                 if b in twin.first_commit}
        for barrier, state in other_bars.items():
            mine = self.mbarriers.get(barrier)
            if mine is None:
                self.mbarriers[barrier] = state
                continue
            if mine.commits != state.commits or mine.seen != state.seen:
                # Harmless unless the mbarrier is used again (checked there).
                mine.unknown_after = op
                mine.commits = max(mine.commits, state.commits)
                mine.commit_ops = {**state.commit_ops, **mine.commit_ops}
            mine.unknown_after = mine.unknown_after or state.unknown_after
            mine.seen = min(mine.seen, state.seen)
            mine.last_wait = mine.last_wait or state.last_wait

    # ---------------------------------------------------------------- tcgen05 ops

    def tcgen05(self, op) -> None:
        """What a tcgen05 op checks and changes."""
        name = d.op_name(op)
        if name is None:
            return
        if name in SINGLE_THREAD_OPS or name in WARPGROUP_OPS or name == "smem_fill":
            instance = self.instance(op, name)
            self.check(op, instance)
            self.live.append(instance)
        elif name == "dealloc":
            self.check_dealloc(op)
        elif name == "alloc_mbarrier":
            self.mbarriers[op.results[0]] = MbarrierState(d.get_int(op, "count", 1))
        elif name == "commit":
            self.commit(op)
        elif name == "mbarrier_wait":
            self.wait_phase(op)
        elif name == "wait":
            kind = d.get_str(op, "kind")
            names = ("st",) if kind == "st" else ("ld", "ld_red")
            for inst in self.live:
                if inst.name in names:
                    inst.complete = True
        elif name == "fence":
            if d.get_str(op, "kind") == "before_thread_sync":
                for inst in self.live:
                    if inst.warpgroup and inst.complete:
                        inst.released = True
            else:
                for inst in self.live:
                    if (inst.single_thread and inst.complete) or \
                            (inst.warpgroup and inst.synced):
                        inst.acquired = True
        elif name == "fence_proxy_async":
            for inst in self.live:
                if inst.name == "smem_fill":
                    inst.proxied = True
        elif name == "barrier":
            for inst in self.live:
                if inst.released or inst.proxied:
                    inst.synced = True
            for state in self.mbarriers.values():
                state.last_wait = None
        self.live = [inst for inst in self.live if not inst.finished()]

    def commit(self, op) -> None:
        """tcgen05.commit: the mbarrier's next arrival comes when every earlier single-thread op completes."""
        state = self.mbarrier(op)
        if state.last_wait is not None:
            self.problem(op, ("phase", state.last_wait),
                         f"tcgen05.commit to the mbarrier that the wait at "
                         f"{_where(state.last_wait)} waits on, with no barrier between "
                         f"them: a thread still in that wait could see this commit "
                         f"complete the next phase too and then wait for a phase that "
                         f"never completes")
        index = state.commits
        state.commits += 1
        state.commit_ops[index] = op
        for inst in self.live:
            if inst.single_thread and not inst.complete:
                inst.first_commit.setdefault(op.operands[0], index)

    def wait_phase(self, op) -> None:
        """mbarrier_wait, as try_wait.parity behaves (see the module docstring)."""
        barrier = op.operands[0]
        state = self.mbarrier(op)
        parity = self.eval.value(op.operands[1])
        if parity is None:
            raise Unsupported(op, "tcgen05-verify-sync cannot evaluate the phase parity of "
                                  "this wait")
        if (state.seen & 1) == (parity & 1):
            # try_wait.parity blocks until the phase the thread considers current ends.
            possible = state.commits // state.arrivals
            if state.seen + 1 > possible:
                self.problem(op, ("deadlock",),
                             f"this wait for parity {parity & 1} of the mbarrier needs "
                             f"phase {state.seen} to complete, but only {state.commits} "
                             f"tcgen05.commit ops were issued to it before: it never "
                             f"returns")
            else:
                state.seen += 1
        state.last_wait = op
        for inst in self.live:
            index = inst.first_commit.get(barrier)
            if index is not None and index // state.arrivals < state.seen:
                inst.complete = True

    def mbarrier(self, op) -> MbarrierState:
        """The state of the mbarrier `op` names."""
        barrier = op.operands[0]
        state = self.mbarriers.get(barrier)
        if state is None:
            raise Unsupported(op, "the mbarrier of this op is not a tcgen05.alloc_mbarrier "
                                  "of the kernel")
        if state.unknown_after is not None:
            raise Unsupported(op, f"the phase of this op's mbarrier is unknown here: the "
                                  f"branches of the scf.if at {_where(state.unknown_after)} "
                                  f"commit to it a different number of times")
        return state

    def register_reads(self, op) -> None:
        """Marks the loads whose registers `op` reads."""
        loads = self.loads_read.get(op)
        if loads is None:
            loads = []
            for operand in op.operands:
                owner = defining_op(operand)
                if owner is not None and d.op_name(owner) in ("ld", "ld_red"):
                    loads.append(owner)
            self.loads_read[op] = loads
        for owner in loads:
            for inst in self.live:
                if inst.op == owner:
                    inst.registers_read = True

    # ---------------------------------------------------------------- footprints

    def cells(self, value) -> tuple[Footprint, bool]:
        """The cells of the buffer `value` names, and whether column c of the buffer is
        TMEM column (first column + c)."""
        op = defining_op(value)
        while op is not None and d.op_name(op) == "tmem_stage" and \
                "column_offset" not in op.attributes:
            op = defining_op(op.operands[0])
        if op is None or "column_offset" not in op.attributes:
            return Footprint(0, TMEM_COLUMNS, FULL_LANES), False
        first = d.get_int(op, "column_offset")
        columns = d.get_int(op, "columns", 0)
        half = bool(d.get_int(op, "half_lanes", 0))
        lanes = _lanes(d.get_int(op, "lane_offset", 0), half)
        stages = d.type_info(op.results[0].type).shape
        if len(stages) == 3:
            # `columns` is one stage's footprint; where each stage sits (side by side, or
            # paired on lane halves) is the planner's: take all of them on every lane.
            return Footprint(first, first + columns * stages[0], FULL_LANES), False
        shape = d.type_info(value.type).shape
        linear = not half and len(shape) == 2 and columns == shape[-1]
        return Footprint(first, first + columns, lanes), linear

    def instance(self, op, name: str) -> Instance:
        """A new execution of `op`: its cells (a load's or store's slice from the column
        its operand has now), the rest computed once per op."""
        fixed = self.static.get(op)
        if fixed is None:
            fixed = self.static[op] = self.fixed_instance(op, name)
        if name not in ("ld", "ld_red", "st"):
            return Instance(op, name, list(fixed.tmem_reads), list(fixed.tmem_writes),
                            fixed.tiles_read, fixed.tiles_written, fixed.shape_key)
        whole, linear, column, width = fixed
        cells = whole
        start = self.eval.value(column) if linear else None
        if start is not None:
            cells = Footprint(whole.lo + start, whole.lo + start + width, whole.lanes)
        if name == "st":
            return Instance(op, name, [], [cells], [], [])
        return Instance(op, name, [cells], [], [], [])

    def fixed_instance(self, op, name: str):
        """The parts of an instance of `op` that are the same in every execution."""
        if name in ("ld", "ld_red", "st"):
            frag = op.results[0] if name != "st" else op.operands[2]
            width = d.type_info(frag.type).shape[1]
            whole, linear = self.cells(op.operands[0])
            return whole, linear, op.operands[1], width
        if name == "mma":
            operands = mma_operands(op)
            accumulator, _ = self.cells(operands.d)
            reads = [self.cells(v)[0] for v in (operands.a, operands.scale_a,
                                                operands.scale_b, operands.metadata)
                     if v is not None and d.is_tmem(v)]
            shape = (operands.d_type.rows, operands.d_type.cols, d.get_str(op, "kind"),
                     d.get_int(op, "sparse", 0), d.get_int(op, "k", 0))
            return Instance(op, name, reads + [accumulator], [accumulator],
                            [v for v in (operands.a, operands.b) if d.is_smem(v)], [],
                            (accumulator.lo, accumulator.hi, accumulator.lanes, shape))
        if name == "cp":
            return Instance(op, name, [], [self.cells(op.operands[0])[0]], [op.operands[1]],
                            [], (d.get_str(op, "shape"),))
        if name == "shift":
            cells = self.cells(op.operands[0])[0]
            return Instance(op, name, [cells], [cells], [], [])
        return Instance(op, name, [], [], [], [op.operands[1]])  # smem_fill

    # ---------------------------------------------------------------- checks

    def check(self, op, later: Instance) -> None:
        """Reports every earlier instance `later` depends on without the ordering it needs."""
        for earlier in self.live:
            self.checked += 1
            if earlier.op == op and later.name in ("ld", "ld_red"):
                if not earlier.complete and not earlier.registers_read:
                    self.problem(op, ("registers",),
                                 f"{op.name} writes its destination registers again while "
                                 f"its previous execution may still be writing them, "
                                 f"without ordering: missing tcgen05.wait::ld (9.7.16.6.4.5)")
                continue
            conflict = self.overlap(earlier, later)
            if conflict is None:
                continue
            what, verb = conflict
            need, section = self.need(earlier, later)
            if need is None:
                continue
            missing = self.missing(earlier, need)
            if missing is not None:
                self.problem(op, (earlier.op, missing),
                             f"{op.name} {what} that {earlier.op.name} at "
                             f"{_where(earlier.op)} {verb}, without ordering: missing "
                             f"{missing} ({section})")

    def check_dealloc(self, op) -> None:
        """Reports every TMEM access not ordered before this dealloc."""
        for earlier in self.live:
            self.checked += 1
            if earlier.name == "smem_fill":
                continue
            missing = self.missing(earlier, "acquired")
            if missing is not None:
                cells = (earlier.tmem_writes or earlier.tmem_reads)[0].text()
                self.problem(op, (earlier.op, missing),
                             f"tcgen05.dealloc frees {cells} that {earlier.op.name} at "
                             f"{_where(earlier.op)} accesses, without ordering: missing "
                             f"{missing} (9.7.16.6.4.4)")

    def overlap(self, earlier: Instance, later: Instance):
        """(what `later` does, what `earlier` does) when they conflict, else None."""
        for mine in later.tmem_reads:
            if any(mine.meets(theirs) for theirs in earlier.tmem_writes):
                return f"reads {mine.text()}", "writes"
        for mine in later.tmem_writes:
            if any(mine.meets(theirs) for theirs in earlier.tmem_writes):
                return f"writes {mine.text()}", "also writes"
            if any(mine.meets(theirs) for theirs in earlier.tmem_reads):
                return f"writes {mine.text()}", "reads"
        if any(tile in later.tiles_read for tile in earlier.tiles_written):
            return "reads a shared-memory tile", "writes through the generic proxy"
        if any(tile in later.tiles_written for tile in earlier.tiles_read):
            return "overwrites a shared-memory tile", "reads through the async proxy"
        return None

    def need(self, earlier: Instance, later: Instance) -> tuple:
        """(what `earlier` must have reached, the ISA section) for a conflicting pair."""
        if earlier.single_thread:
            if later.single_thread:
                if self.pipelined(earlier, later):
                    return None, None
                return "acquired", "9.7.16.6.4.2"
            if later.warpgroup:
                return "acquired", "9.7.16.6.4.4"
            return "complete", "9.7.16.6.5"
        if earlier.warpgroup:
            if later.warpgroup:
                return "complete", "9.7.16.6.4.2"
            if later.single_thread:
                return "acquired", "9.7.16.6.4.4"
            return None, None
        if later.single_thread:
            return "synced", "9.7.16.6.5"
        return None, None

    def pipelined(self, earlier: Instance, later: Instance) -> bool:
        """9.7.16.6.2: whether the pair executes in issue order."""
        pair = (earlier.name, later.name)
        if pair not in PIPELINED_PAIRS:
            return False
        condition = PIPELINED_PAIRS[pair]
        if condition == "same accumulator and shape":
            return earlier.shape_key == later.shape_key
        if condition == "cp.4x256b":
            return later.shape_key == ("4x256b",)
        return True

    def missing(self, earlier: Instance, need: str) -> str | None:
        """The mechanism still missing for `earlier` to reach `need`, or None."""
        if earlier.name == "smem_fill":
            if earlier.synced:
                return None
            return "a barrier after fence.proxy.async" if earlier.proxied else \
                "fence.proxy.async -> barrier"
        if need == "complete" and (earlier.complete or earlier.acquired):
            return None
        if need != "complete" and earlier.acquired:
            return None
        if earlier.single_thread:
            if not earlier.complete:
                if not earlier.first_commit:
                    chain = "tcgen05.commit -> mbarrier wait"
                else:
                    barrier, index = next(iter(earlier.first_commit.items()))
                    commit = self.mbarriers[barrier].commit_ops[index]
                    chain = (f"an mbarrier wait for the phase that the tcgen05.commit at "
                             f"{_where(commit)} completes")
                return chain if need == "complete" else \
                    chain + " -> tcgen05.fence::after_thread_sync"
            return "tcgen05.fence::after_thread_sync after the mbarrier wait"
        steps = ["tcgen05.wait::st" if earlier.name == "st" else "tcgen05.wait::ld"]
        done = [earlier.complete]
        if need == "acquired":
            steps += ["tcgen05.fence::before_thread_sync", "barrier",
                      "tcgen05.fence::after_thread_sync"]
            done += [earlier.released, earlier.synced, earlier.acquired]
        first = done.index(False)
        return " -> ".join(steps[first:])

    def problem(self, op, key: tuple, message: str) -> None:
        """Records a problem once per (op, key)."""
        self.problems.setdefault((op, key), (op, message))


class Tcgen05VerifySync(ModulePass):
    name = "tcgen05-verify-sync"
    description = "Check that every dependence between tcgen05 operations is ordered"
    options = (
        Option("report", bool, False, "print per kernel how many ops ran, how many pairs "
               "were checked, and the verdict"),
    )

    def apply(self, module) -> None:
        """Runs every kernel of `module` and reports what is unordered."""
        for kernel in d.kernels(module):
            run = Run(self, kernel)
            try:
                run.run()
            except Unsupported as exc:
                self.error(exc.op, exc.message)
                continue
            for op, message in run.problems.values():
                self.error(op, message)
            if self.option("report"):
                info = d.kernel_info(kernel)
                verdict = "ordered" if not run.problems else \
                    f"{len(run.problems)} unordered"
                note = " (long loops shortened)" if run.truncated else ""
                print(f"tcgen05-verify-sync: kernel @{info.name}: {run.steps} ops run, "
                      f"{run.checked} pairs checked{note}: {verdict}",
                      file=self.report_stream)
