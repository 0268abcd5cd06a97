"""The traces of the concurrent model: each role's program (and the kernel's own) run on
its own by ``RoleTracer`` (the one-program model, cta.Run, with its values and loops)
into a sequence of events; views of what a role has seen, arrivals on mbarriers and the
cursors of the programs as they run."""

from __future__ import annotations

from dataclasses import dataclass, field

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import (AllocMbarrierOp, FenceOp, LdOp, SmemStageOp, StOp,
                                       TmemBufferOp, TmemStageOp, WaitOp)
from tcgen05_lower.kernel_ir import (PARTITIONS_OP, defining_op, has_partitions, partition_roles,
                                     role_info)
from tcgen05_lower.sync_check.branches import unknown_branch_problem
from tcgen05_lower.sync_check.cta import Run
from tcgen05_lower.sync_check.runtime_bounds import bind_runtime_bound
from tcgen05_lower.sync_check.model import (ANY_TILE, EXPECT_TX, FULL_LANES, Footprint, LOADS,
                                            SINGLE_THREAD_OPS, TMA_LOAD, TMEM_COLUMNS, Unsupported,
                                            is_placed_buffer, lane_mask)
from tcgen05_lower.tma import BARRIERLESS, load_barrier


#: The two kinds of warpgroup access that tcgen05.wait completes (::ld, ::st).
LD, ST = LdOp.NAME, StOp.NAME

#: Ops that access TMEM or a shared-memory tile (an Instance each).
ACCESSES = SINGLE_THREAD_OPS + LOADS + (ST, "smem_fill", TMA_LOAD)

#: What the kernel's own program may do in a kernel with partitions.
KERNEL_OPS = ("alloc_mbarrier", "mbarrier_stage", "fence", "dealloc", "barrier", "smem_buffer", "tmem_buffer",
              "tmem_stage", "alloc", "relinquish_alloc_permit")

#: The name of the kernel's own program (what precedes and follows the partitions).
KERNEL = "(kernel)"


@dataclass
class Event:
    """One executed op of one role's program."""

    role: int
    index: int
    op: object
    kind: str
    inst: object = None  # the access (model.Instance)
    barrier: object = None
    parity: int = 0


@dataclass
class View:
    """What is ordered before one point of a role's program."""

    vc: dict = field(default_factory=dict)     # role -> events of it ordered before
    know: dict = field(default_factory=dict)   # mbarrier -> phases known complete
    rel: dict = field(default_factory=dict)    # (role, LD|ST) -> released below
    prox: dict = field(default_factory=dict)   # role -> fills proxy-fenced below

    def copy(self) -> "View":
        return View(dict(self.vc), dict(self.know), dict(self.rel), dict(self.prox))

    def join(self, other: "View") -> None:
        for mine, theirs in ((self.vc, other.vc), (self.know, other.know),
                             (self.rel, other.rel), (self.prox, other.prox)):
            for key, value in theirs.items():
                if value > mine.get(key, -1):
                    mine[key] = value


@dataclass
class Arrival:
    """Arrivals on an mbarrier: `count` of them by one event, with what it carries."""

    event: Event
    count: int
    upto: int  # arrivals on the mbarrier up to and including these
    view: View


@dataclass
class Cursor:
    """A role's progress through its trace."""

    name: str
    threads: int
    trace: list
    at: int = 0
    view: View = field(default_factory=View)
    acquired: View = field(default_factory=View)  # the view at its last after_thread_sync
    waited: dict = field(default_factory=lambda: {LD: -1, ST: -1})
    released: dict = field(default_factory=lambda: {LD: -1, ST: -1})
    proxied: int = -1
    commits: list = field(default_factory=list)  # event indices of its commits
    commit_at: list = field(default_factory=list)  # (barrier, phase) of each commit
    open_expect: dict = field(default_factory=dict)  # barrier -> phase of its expect_tx
    blocked: object = None


class RoleTracer(Run):
    """Runs each role's program alone and records its events (values, loops and
    footprints as cta.Run evaluates them)."""

    def __init__(self, pass_, kernel):
        super().__init__(pass_, kernel)
        self.traces: list = []  # per role: [Event]
        self.names: list = []
        self.threads: list = []
        self.current = None
        self.counts: dict = {}  # mbarrier -> arrivals per phase
        self.partitions = None
        self.has_partitions = has_partitions(kernel)
        self.join_at = None

    def per_cta_count(self, commit, barrier) -> None:
        """A commit multicast to n CTAs of a cluster (each of which runs this program
        and commits too) gives each copy n arrivals a round: the count one CTA's program
        sees is the mbarrier's over n (multicast.per_cta_count), once per mbarrier."""
        from tcgen05_lower.dialect.ops import CommitOp
        from tcgen05_lower.multicast import per_cta_count

        scaled = self.__dict__.setdefault("per_cta_scaled", set())
        if barrier in scaled or barrier not in self.counts:
            return
        scaled.add(barrier)
        self.counts[barrier], problem = per_cta_count(self.counts[barrier],
                                                      CommitOp(commit).multicast_mask)
        if problem:
            raise Unsupported(commit, problem)

    def trace(self) -> None:
        if self.pair:
            raise Unsupported(self.kernel, "tcgen05-verify-sync does not check warp roles or "
                                           "hand-written mbarrier arrivals in a cta_group::2 "
                                           "kernel")
        self.start(KERNEL, d.kernel_info(self.kernel).threads)
        self.run()

    def start(self, name: str, threads: int) -> None:
        self.names.append(name)
        self.threads.append(threads)
        self.traces.append([])
        self.current = len(self.traces) - 1

    def execute(self, op) -> None:
        if op.name == PARTITIONS_OP:
            self.fork(op)
            return
        super().execute(op)

    def fork(self, op) -> None:
        """Runs every role's program into a trace of its own."""
        if self.partitions is not None or op.parent.operation != self.kernel.operation:
            raise Unsupported(op, "tcgen05-verify-sync checks one tcgen05.partitions at the "
                                  "top level of a kernel (not inside a loop or branch, not "
                                  "twice)")
        self.partitions = op
        kernel = self.current
        self.join_at = len(self.traces[kernel])
        for index, role_op in enumerate(partition_roles(op)):
            role = role_info(role_op, index)
            self.start(role.name, role.threads)
            self.block(role_op.regions[0].blocks[0])
        self.current = kernel

    def alternatives(self, op, blocks) -> None:
        why = unknown_branch_problem(op, blocks)   # sync_check/branches.py
        if why is not None:
            raise Unsupported(op, "tcgen05-verify-sync follows the roles of a kernel with "
                                  "partitions only through conditions it can evaluate, or "
                                  f"branches it can trace as taken: this condition does not "
                                  f"evaluate and {why}")
        for block in blocks:
            self.region(block)

    def loop(self, op) -> None:
        bound = op.operands[1]
        if self.eval.value(bound) is None and bound not in self.eval.bound \
                and not bind_runtime_bound(self, op):
            # neither a count of this run (runtime_bounds.check_each_count) nor a bound
            # several roles share, run UNKNOWN_TRIPS times in each (runtime_bounds.py)
            raise Unsupported(op, "tcgen05-verify-sync checks the loops of a kernel with "
                                  "partitions only with an upper bound it can evaluate: "
                                  "the phases one role's loop completes must match the "
                                  "waits of another's")
        super().loop(op)

    def while_loop(self, op) -> None:
        self.in_while = op
        super().while_loop(op)

    def snapshot(self):
        raise Unsupported(getattr(self, "in_while", self.kernel),
                          "tcgen05-verify-sync follows the roles of a kernel with partitions "
                          "only through scf.while conditions it can evaluate")

    def register_reads(self, op) -> None:
        """(Not modeled across roles; see the module docstring.)"""

    def varies(self, value) -> bool:
        """A stage of a TMEM ring or of a shared-memory ring is evaluated at each
        execution (its index may follow a loop counter)."""
        op = defining_op(value)
        if op is not None and (TmemStageOp.matches(op) or SmemStageOp.matches(op)):
            return True
        return super().varies(value)

    def tiles(self, value) -> list:
        """Stage i of a shared-memory ring, when i evaluates to a stage of it, is a tile
        of its own: (the ring, i). The lowering places stage i at i times the stage's
        stride from the ring's base, strides that do not overlap (lowering/smem.py), so
        two stages share no byte. An index outside the ring may address any tile; an
        index that does not evaluate names the whole ring, as the one-program verifier
        takes every stage view."""
        op = defining_op(value)
        if op is None or not SmemStageOp.matches(op):
            return super().tiles(value)
        view = SmemStageOp(op)
        index = self.eval.value(view.stage)
        if index is None:
            return super().tiles(value)
        if not 0 <= index < d.type_info(view.tile.type).stages:
            return [ANY_TILE]
        return [ring if ring is ANY_TILE else (ring, index)
                for ring in super().tiles(view.tile)]

    def buffer_cells(self, value) -> list:
        """The cells of stage i of a planned TMEM ring when i evaluates, where the
        planner put it (``stage_layout``, ``stage_stride``: column_blocks, stage i at
        ``i * stride`` columns after stage 0; lane_pairs, stages 2j and 2j + 1 at columns
        ``j * stride`` on lane halves 0 and 16), the address the lowering computes
        (lowering/views.py, 9.7.16.1.1). An index past the last stage may address any
        cell. Otherwise (the index does not evaluate) the whole ring, as the
        one-program verifier takes it."""
        op = defining_op(value)
        if op is None or not TmemStageOp.matches(op):
            return super().buffer_cells(value)
        view = TmemStageOp(op)
        index = self.eval.value(view.stage)
        roots = self.roots(view.buffer)
        owner = defining_op(roots[0]) if len(roots) == 1 else None
        if index is None or not is_placed_buffer(owner) or \
                not TmemBufferOp(owner).has(TmemBufferOp.stage_layout):
            return super().buffer_cells(value)
        buffer = TmemBufferOp(owner)
        stages = d.type_info(buffer.buffer.type).shape[0]
        if not 0 <= index < stages:
            return [(Footprint(0, TMEM_COLUMNS, FULL_LANES, known=False), False)]
        stride, columns = buffer.stage_stride, buffer.columns or 0
        if buffer.stage_layout == "lane_pairs":
            first = buffer.column_offset + (index // 2) * stride
            lanes = lane_mask(16 * (index % 2), True)
        else:
            first = buffer.column_offset + index * stride
            lanes = lane_mask(buffer.lane_offset or 0, bool(buffer.half_lanes))
        return [(Footprint(first, first + columns, lanes), False)]

    def tcgen05(self, op) -> None:
        name = d.op_name(op)
        if name is None:
            return
        role = self.current
        if role == 0 and self.has_partitions and name not in KERNEL_OPS:
            raise Unsupported(op, f"tcgen05-verify-sync does not model tcgen05.{name} outside "
                                  f"the roles of a kernel with partitions")
        events = self.traces[role]
        event = Event(role, len(events), op, name)
        if name in ACCESSES:
            event.inst = self.instance(op, name)
        elif name == "alloc_mbarrier":
            for key in self.mbarrier_keys(op):
                self.counts[key] = AllocMbarrierOp(op).count
            return
        elif name in ("commit", "mbarrier_arrive", EXPECT_TX, "mbarrier_wait"):
            event.barrier = self.known_mbarrier(op, op.operands[0])
            if name == "commit" and not self.pair:
                self.per_cta_count(op, event.barrier)
            if name == "mbarrier_wait":
                if len(op.operands) < 2:
                    raise Unsupported(op, "a wait without a phase operand in a kernel with "
                                          "partitions (docs/partitions.md)")
                parity = self.eval.value(op.operands[1])
                if parity is None:
                    raise Unsupported(op, "tcgen05-verify-sync cannot evaluate the phase "
                                          "parity of this wait")
                event.parity = parity & 1
        if name == TMA_LOAD:
            barrier = load_barrier(op)
            if barrier is None:
                raise Unsupported(op, BARRIERLESS)
            event.barrier = self.known_mbarrier(op, barrier)
        elif name == "wait":
            event.kind = "wait_" + WaitOp(op).kind
        elif name == "fence":
            event.kind = "fence_" + FenceOp(op).kind
        events.append(event)


    def known_mbarrier(self, op, value):
        """The mbarrier `value` names (a stage of a ring whose index evaluates is one of
        its own: Run.mbarrier_name), one the kernel allocates."""
        barrier = self.mbarrier_name(op, value)
        if barrier not in self.counts:
            raise Unsupported(op, "tcgen05-verify-sync cannot tell which "
                                  "tcgen05.alloc_mbarrier this op's mbarrier is")
        return barrier
