"""tcgen05-verify-sync: checks that every dependence between tcgen05 operations of a
planned kernel is ordered, and names what is missing where it is not.

This pass shares no code with tcgen05-insert-sync and works differently: instead of
summarizing loops, it *runs* the kernel's control skeleton. Loop bounds, ``scf.if``
conditions, column operands and mbarrier parities are evaluated from the arith ops that
compute them; every execution of an asynchronous op is one instance with its own
progress, and every sync op advances the instances it applies to. An mbarrier is modeled
the way ``mbarrier.try_wait.parity`` behaves: a wait returns at once when the parity it
names is not that of the phase the thread believes is current, so a wait with the wrong
parity, or one that skips a phase, completes nothing. A stage of an mbarrier ring
(``mbarrier_stage``) is its own mbarrier when its index evaluates (``mbarrier_name``).

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

CTA pairs (cta_group::2): the single-thread ops are issued in the even CTA, everything
else runs in both. A commit arrives at the mbarriers of the CTAs its ``multicast_mask``
names, a plain commit at the issuing CTA's only (9.7.16.12.1), and a wait runs in the
CTAs its mbarrier's commits arrive at (the lowering). So completion seen through a plain
commit orders a later single-thread op but not what the odd CTA runs: a warpgroup op,
smem_fill or dealloc after it needs a commit whose mask names both CTAs (0b11).

TMA loads (``tma_load``, issued by one thread, writing a tile through the async proxy)
complete on their mbarrier: the ``mbarrier_expect_tx`` before them is one arrival (like a
commit) whose phase also waits for their bytes (PTX ISA 9.7.13.15), so a load is complete
once a wait observes the phase of the most recent expect_tx on its mbarrier before it; a
load with no expect_tx in the current phase of its mbarrier (none since the last wait) is
an error. What a TMA load needs, and needs to be after:

- tma_load -> mma/cp reading the tile, smem_fill or another tma_load writing it: an
  mbarrier wait for the phase its expect_tx arrives in (complete_tx, 9.7.9.25.5.1);
- mma/cp reading the tile -> tma_load overwriting it: completion, commit -> mbarrier
  wait (the async-proxy reads end before the async-proxy writes begin);
- an expect_tx follows the barrier rule of a commit below.

And the mbarrier protocol: a wait must name a phase that a commit issued before it
completes (otherwise it never returns), and a barrier must separate a wait from the next
commit to the same mbarrier (otherwise the commit may complete the phase after the one a
slower thread still waits for, and that thread then waits for a phase that never comes).

Every problem is one error at the later op, naming the earlier op's location (line and
column in the same file) and the missing mechanism, e.g. ``tcgen05.ld reads TMEM columns
[0, 32) that tcgen05.mma at line 20:3 writes, without ordering: missing tcgen05.commit ->
mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)``.

Tracked waits: an ``mbarrier_wait`` without a phase operand names the parity of the
phase that the most recent tcgen05.commit to that mbarrier (9.7.16.12.1; in the program
order of this run) completes, (commits so far - 1) mod 2, as the lowering counts it; the
pass knows it without evaluating anything. Before any commit that is parity 1, the phase
before the first, which a fresh mbarrier reports complete at once: no error, but nothing
completes. From that parity on it is a wait like any other; e.g. after two commits with
no wait between, the parity names the phase before the one the thread believes current,
so it returns at once and completes nothing.

Control flow: ``scf.for``, ``scf.if``, ``scf.index_switch`` and ``scf.while`` run as the
kernel would: a branch or case whose condition evaluates is the one taken, an
``scf.while`` whose condition evaluates runs until it is false, and every op inside is
checked on every iteration run. Values flow through region results, iter_args and block
arguments: an integer keeps its value (or becomes unknown), a TMEM buffer, shared-memory
tile, fragment or mbarrier keeps what it names, so a load of an ``scf.if`` result reads
the cells of the buffer that the branch taken yielded. A branch or switch on a value that
does not evaluate runs every way from the same state and keeps the weakest result: an
execution on several ways is as far ordered as on the least ordered one, one on a single
way is kept as it is; a result names every value any way yielded (an op on a buffer that
may be one of several is checked against the cells of each, and two mmas are the
pipelined "same accumulator" only if any choice of their buffers gives one buffer or
disjoint cells), an integer result the ways disagree on is unknown, and
a ``ub.poison`` (what lift-cf-to-scf yields on a way that does not use the value) counts
only when nothing else is possible. An ``scf.while`` whose condition does not evaluate
may exit there: the first such condition and each of the next three are possible exits
(so exits after 0, 1, 2 and 3 runs of the body when none evaluates), the fourth one is
taken, and the weakest of those exits is kept the same way; the loop's results are
every value those exits forward. A condition that evaluates to true after 8 runs of the
body counts as not evaluating from then on (exits after 8, 9, 10 and 11 runs): a long
``scf.while`` is shortened like a long ``scf.for``.

When the ways leave an mbarrier with different numbers of commits or completed phases, a
wait with a phase operand on it is an error (its parity is right on some ways only). A
tracked wait stays exact: it depends only on how far the thread's phase and each op's
commit lie behind the most recent commit, so the ways are aligned on that. The alignment
keeps phase boundaries and parities for one arrival per phase, and otherwise when the
difference in commits is a multiple of the arrivals (of twice the arrivals, when that
number is even); when it is not, any later use of the mbarrier is an error.

Loops of more than 8 iterations run 4 or 5 of them (the same parity, so every mbarrier
phase wraps as in the full run, and the first iteration, the steady state and the last
are all seen; in a kernel with mbarrier rings of S stages, 4 + (trips - 4) mod 2 lcm(S),
so that each stage gets as many uses, modulo 2, as in the full run and a wait after the
loop with a constant parity, a ring's producer tail, names the same phase: Run.shortened); an upper bound that does not evaluate is taken as three iterations. The
results of a loop not run to its real trip count name every value its iter_args took
(integers among them are unknown). Limits (reported as errors): region ops other than
those four (e.g. ``scf.execute_region``) around tcgen05 ops, kernels with several blocks
(cf branches: run ``lift-cf-to-scf`` first, as the default pipeline does), lower bounds,
steps and explicit phase parities that do not evaluate, an op whose mbarrier may be one
of several, and kernels that would run more than 2,000,000 ops (an ``scf.while`` whose
condition stays true runs into that budget).

Kernels with warp roles (``tcgen05.partitions``) or hand-written mbarrier arrivals are not
one program order: with ``partitions=check`` (the default) they are checked as concurrent
programs by ``passes/verify_sync_roles.py`` (its docstring and docs/partitions.md; in a
cta_group::2 kernel once per CTA of the pair, ``passes/verify_sync_pairs.py``);
``partitions=refuse`` refuses them, ``partitions=skip`` passes them on unchecked.

Apart from the dialect's accessors, this module uses no code of tcgen05-insert-sync.
"""

from __future__ import annotations

from types import MappingProxyType

from dataclasses import dataclass, field, replace

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import file_location, int_value, ir
from tcgen05_lower.dialect.ops import (AllocMbarrierOp, MbarrierStageOp, CommitOp, CpOp, FenceOp, FragMapOp,
                                       LdOp, LdRedOp, MmaOp, ShiftOp, SmemStageOp, StOp,
                                       TmemBufferOp, TmemStageOp, WaitOp, wrap)
from tcgen05_lower.kernel_ir import (OpDict, user_synchronized, MBARRIER_MAX_COUNT, defining_op, mbarrier_count_error,
                                     mma_operands, unplanned_buffer)
from tcgen05_lower.pass_infra import CompileError, ModulePass, Option
from tcgen05_lower.tma import BARRIERLESS, load_barrier

#: The TMA ops (module docstring).
TMA_LOAD, EXPECT_TX = "tma_load", "mbarrier_expect_tx"

#: %cluster_ctarank bits (9.7.16.5.1): the even CTA, which issues the single-thread ops
#: of a pair (Table 46), and its peer.
ISSUING_CTA, PEER_CTA = 0b01, 0b10


def _arrival_ctas(commit) -> int:
    """The CTAs whose mbarrier a tcgen05.commit of a pair kernel arrives at: its
    multicast_mask, or the issuing CTA's alone for the plain commit (9.7.16.12.1). An
    mbarrier_expect_tx (which phases count like commits here) is the even CTA's: a
    pair's TMA loads complete there (docs/cta-pairs.md)."""
    if not CommitOp.matches(commit):
        return ISSUING_CTA
    mask = CommitOp(commit).multicast_mask
    return ISSUING_CTA if mask is None else mask


#: Lanes of the CTA's tensor memory; lane sets are 128-bit masks.
LANES = 128
FULL_LANES = (1 << LANES) - 1
#: Columns of tensor memory (9.7.16.1).
TMEM_COLUMNS = 512
SINGLE_THREAD_OPS = (MmaOp.NAME, CpOp.NAME, ShiftOp.NAME)
#: Loads (completed by tcgen05.wait::ld) and the ops issued by the warpgroup.
LOADS = (LdOp.NAME, LdRedOp.NAME)
WARPGROUP_OPS = LOADS + (StOp.NAME,)
#: Loops run in full up to this many iterations; longer ones run 4 or a few more (the
#: same count modulo twice the mbarrier ring depths: Run.shortened).
FULL_RUN_ITERATIONS = 8
STEP_BUDGET = 2_000_000
#: An upper bound the pass cannot evaluate is taken as this many iterations.
UNKNOWN_TRIPS = 3

#: The meaning of an integer ub.poison: no value, and not a possibility in a join.
POISON = "poison"
#: A shared-memory tile operand bound to nothing known: it may be any tile.
ANY_TILE = "any shared-memory tile"

#: Columns one tcgen05.cp writes per lane: its shape's bits / 32 (9.7.16.2.3). Every
#: shape but .4x256b writes all four 32-lane quarters: .128x* all 128 lanes, .32x128b
#: multicast "into all 4 warps", .64x128b "into warp pairs", each warp receiving half of
#: the 64 rows (9.7.16.9.2).
COPY_COLUMNS = MappingProxyType({"128x256b": 8, "4x256b": 8, "128x128b": 4, "64x128b": 4, "32x128b": 4})

#: Bits of one A element's container in tensor memory, per MMA kind (9.7.16.10.4: 16-bit
#: f16/bf16, 32-bit tf32, 8-bit i8 and f8f6f4 types, 6- and 4-bit types of
#: .kind::mxf8f6f4 in 8-bit containers; two 4-bit elements per byte for .kind::mxf4 and
#: .kind::mxf4nvf4).
A_CONTAINER_BITS = MappingProxyType({"f16": 16, "tf32": 32, "f8f6f4": 8, "i8": 8,
                                     "mxf8f6f4": 8, "mxf4": 4, "mxf4nvf4": 4})
#: Bits of A's row one MMA reads: K elements of its container (Table 39: K x bits = 256
#: for every dense kind; a sparse MMA has twice the K and reads A compressed to K/2,
#: 9.7.16.10.8; the K = 96 form of the 4-bit kinds reads 96 x 4 = 384).
A_ROW_BITS = 256
A_ROW_BITS_K96 = 384
#: Layouts whose A rows sit on lanes one to one, in consecutive 32-bit columns from the
#: buffer's address (9.7.16.10.5: D and F, and A of a CTA pair, per CTA); B, E and G
#: duplicate or fold rows, and their A is counted whole.
A_LINEAR_LAYOUTS = ("A", "D", "F")

#: 9.7.16.6.2, the pipelined pairs (earlier, later), with the extra condition each needs.
PIPELINED_PAIRS = MappingProxyType({
    ("mma", "mma"): "same accumulator and shape",
    ("cp", "mma"): None,
    ("shift", "mma"): None,
    ("shift", "cp"): "cp.4x256b",
    ("mma", "shift"): None,
})


def _meeting(mine: list, theirs: list):
    """The first footprint of `mine` that shares a cell with one of `theirs`, or None.
    One that differs from a footprint it meets comes first: with buffers chosen at run
    time, that is the choice that makes two MMAs different accumulators."""
    hits = [m for m in mine if any(m.meets(t) for t in theirs)]
    partial = [m for m in hits if any(m.meets(t) and m != t for t in theirs)]
    return (partial or hits or [None])[0]


def _placed(op) -> bool:
    """Whether `op` (or None) is a tcgen05.tmem_buffer the planner placed: it has its
    column_offset."""
    return op is not None and TmemBufferOp.matches(op) \
        and TmemBufferOp(op).has(TmemBufferOp.column_offset)


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


def _ways(op) -> str:
    """The ways through a region op, as messages name them."""
    what = {"scf.while": "the exits", "scf.index_switch": "the cases"}.get(op.name,
                                                                         "the branches")
    return f"{what} of the {op.name} at {_where(op)}"


def _poison(value) -> bool:
    """Whether `value` is a ub.poison result."""
    op = defining_op(value)
    return op is not None and op.name == "ub.poison"


def _tiles_meet(mine: list, theirs: list) -> bool:
    """Whether two lists of possible tiles may name the same tile."""
    for a in mine:
        for b in theirs:
            if a is ANY_TILE or b is ANY_TILE or a == b:
                return True
    return False


def _lane_text(mask: int) -> str:
    if mask == FULL_LANES:
        return ""
    low = mask & ((1 << 16) - 1)
    return ", lanes 0-15 of each quarter" if low else ", lanes 16-31 of each quarter"


@dataclass
class Footprint:
    """TMEM cells: columns [lo, hi) on the lanes of `lanes`; `known` is False for what
    a value bound to no placed buffer may touch (every cell, of no buffer in
    particular)."""

    lo: int
    hi: int
    lanes: int
    known: bool = True

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
    serial: int = 0  # which execution: copies of one state keep it
    first_commit: dict = field(default_factory=dict)  # mbarrier -> commit index
    complete: bool = False
    released: bool = False
    proxied: bool = False
    synced: bool = False
    acquired: bool = False
    registers_read: bool = False
    #: A single-thread op of a pair kernel: the odd CTA must see its completion too.
    needs_peer: bool = False
    #: Its completion was seen in the odd CTA (a wait on a commit to both CTAs), and
    #: acquired there (tcgen05.fence::after_thread_sync after that wait).
    peer_complete: bool = False
    peer_acquired: bool = False

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
        if self.name == "smem_fill":
            return self.synced
        if self.name == TMA_LOAD:
            return self.complete
        return self.acquired and (self.peer_acquired or not self.needs_peer)


@dataclass
class MbarrierState:
    """What every thread can rely on about one mbarrier."""

    arrivals: int  # arrivals per phase (the alloc_mbarrier count)
    commits: int = 0  # commits issued so far (each one arrival)
    seen: int = 0  # phases the threads know to be complete
    commit_ops: dict = field(default_factory=dict)  # commit index -> op
    # The arrival index of the mbarrier_expect_tx whose phase a tma_load joins (None:
    # no expect_tx since the last wait or commit on the mbarrier).
    open_expect: object = None
    last_wait: object = None  # a wait not yet separated by a barrier from a commit
    # A region op whose ways left different commit counts or phases: a wait with a
    # phase operand is then right on some ways only.
    path_dependent: object = None
    # A region op whose ways cannot be aligned even for tracked waits (see merge).
    unknown_after: object = None


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
                return int_value(attr)
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
            predicate = int_value(op.attributes["predicate"])
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
        # The mbarriers whose last_wait may be set (of self.mbarriers' states): what a
        # barrier clears, without scanning every mbarrier of the kernel at each one.
        self.waited: dict = {}
        self.problems: dict = {}  # (op, key) -> (op, message), first occurrence first
        self.steps = 0
        self.checked = 0
        self.executions = 0  # serial numbers of instances
        self.truncated = False
        self.block_ops: dict = {}
        # op -> (the ld ops whose registers it reads, its operands bound at run time)
        # Tables keyed by ops are OpDicts (kernel_ir: a dict keyed by ops is quadratic).
        self.loads_read = OpDict()
        self.static = OpDict()  # op -> what instance() needs that does not change
        self.varying = OpDict()  # op -> whether an operand is bound at run time
        self.aliases: dict = {}  # region result / block argument -> what it may be now
        self.opaque = OpDict()  # region op not run -> whether tcgen05 ops are inside
        self.kernel_args = set(kernel.regions[0].blocks[0].arguments)
        self.pair = d.kernel_info(kernel).cta_group == 2

    # ---------------------------------------------------------------- driver

    def run(self) -> None:
        """Runs the kernel's body."""
        if len(self.kernel.regions[0].blocks) > 1:
            raise Unsupported(self.kernel, "tcgen05-verify-sync cannot check a kernel with "
                                           "several blocks (cf branches): run "
                                           "lift-cf-to-scf first (the default pipeline runs "
                                           "it before planning)")
        self.block(self.kernel.regions[0].blocks[0])

    def ops(self, block) -> list:
        """The ops of `block`, built once (making the Python views of MLIR ops is the
        costly part of a run, and the same blocks run many times)."""
        ops = self.block_ops.get(block)
        if ops is None:
            ops = self.block_ops[block] = [op.operation for op in block.operations]
        return ops

    def block(self, block) -> None:
        """Runs the ops of `block` in order."""
        for op in self.ops(block):
            self.execute(op)

    def region(self, block) -> list:
        """Runs `block` (None: an absent else region) and returns the meaning of what its
        terminator yields."""
        if block is None:
            return []
        self.block(block)
        return [self.meaning(v) for v in self.ops(block)[-1].operands]

    def execute(self, op) -> None:
        """Runs one op."""
        self.steps += 1
        if self.steps > STEP_BUDGET:
            raise Unsupported(self.kernel, f"the kernel runs more than {STEP_BUDGET} ops; "
                                           f"tcgen05-verify-sync cannot check it")
        name = op.name
        if name == "scf.for":
            self.loop(op)
        elif name == "scf.if":
            self.branch(op)
        elif name == "scf.index_switch":
            self.switch(op)
        elif name == "scf.while":
            self.while_loop(op)
        elif len(op.regions) and not FragMapOp.matches(op):  # frag_map: arithmetic only
            inside = self.opaque.get(op)
            if inside is None:
                inside = self.opaque[op] = any(d.op_name(inner) is not None
                                               for inner in d.walk_ops(op))
            if inside:
                raise Unsupported(op, f"tcgen05-verify-sync cannot check tcgen05 ops inside "
                                      f"'{name}' yet")
        else:
            self.tcgen05(op)
            self.register_reads(op)

    # ---------------------------------------------------------------- values

    def meaning(self, value) -> tuple:
        """What `value` is now: ("int", its value, None or POISON) for integers and
        indices; otherwise ("names", the values it may be), for buffers, tiles,
        fragments and mbarriers."""
        if isinstance(value.type, (ir.IndexType, ir.IntegerType)):
            if _poison(value):
                return ("int", POISON)
            return ("int", self.eval.value(value))
        return ("names", self.roots(value))

    def roots(self, value) -> tuple:
        """The values `value` may be now: itself, or for a region result or block
        argument what the way that ran bound it to."""
        return self.aliases.get(value) or (value,)

    def bind(self, targets, meanings: list) -> None:
        """Binds region results or block arguments to meanings (an unknown integer is
        unbound, so that an earlier run's value does not stay)."""
        for target, (kind, what) in zip(targets, meanings):
            if kind == "names":
                self.aliases[target] = what
            elif what is None or what is POISON:
                self.eval.bound.pop(target, None)
            else:
                self.eval.bound[target] = what

    @staticmethod
    def join_meanings(ways: list) -> list:
        """One meaning per position for values that several ways yield: an integer all
        ways agree on, else unknown; every value any way names. A ub.poison (what
        lift-cf-to-scf yields on a way that does not use the value) counts only when
        nothing else is possible."""
        joined = []
        for position in zip(*ways):
            kind = position[0][0]
            if kind == "int":
                values = {what for _, what in position}
                if len(values) > 1:
                    values.discard(POISON)
                joined.append(("int", values.pop() if len(values) == 1 else None))
                continue
            names = []
            for _, what in position:
                names += [v for v in what if v not in names]
            real = tuple(v for v in names if not _poison(v))
            joined.append(("names", real or tuple(names)))
        return joined

    def varies(self, value) -> bool:
        """Whether what `value` names is bound at run time: a block argument or region
        result, or a stage of one."""
        op = defining_op(value)
        if op is None or len(op.regions):
            return True
        if TmemStageOp.matches(op):   # (the planner places the buffer, not the stage)
            return self.varies(TmemStageOp(op).buffer)
        if SmemStageOp.matches(op):   # (a stage counts as its whole tile)
            return self.varies(SmemStageOp(op).tile)
        return False

    # ---------------------------------------------------------------- control flow

    def loop(self, op) -> None:
        """Runs an scf.for (see the module docstring for long and unknown loops)."""
        lb, ub, step = (self.eval.value(op.operands[i]) for i in range(3))
        if lb is None or step is None or step <= 0:
            raise Unsupported(op, "tcgen05-verify-sync cannot evaluate this loop's lower "
                                  "bound and step")
        exact = True
        if ub is None:
            ub = lb + UNKNOWN_TRIPS * step
            self.eval.bound[op.operands[1]] = ub
            exact = False
        trips = max(0, -(-(ub - lb) // step))
        short = self.shortened(trips)
        if trips > FULL_RUN_ITERATIONS and short < trips and \
                op.operands[1] not in self.eval.bound:
            trips = short
            self.eval.bound[op.operands[1]] = lb + trips * step
            self.truncated = True
            exact = False
        body = op.regions[0].blocks[0]
        iv, carried_args = body.arguments[0], list(body.arguments)[1:]
        carried = [self.meaning(v) for v in op.operands[3:]]
        seen = [carried]
        for i in range(trips):
            self.eval.bound[iv] = lb + i * step
            self.bind(carried_args, carried)
            carried = self.region(body)
            seen.append(carried)
        self.eval.bound.pop(iv, None)
        # A loop not run to its real trip count may end after any of the iterations run:
        # its results are every value the iter_args took.
        self.bind(op.results, carried if exact else self.join_meanings(seen))

    def shortened(self, trips: int) -> int:
        """How many iterations a long loop runs: 4 or more, the same count as `trips`
        modulo the phase period (twice the lcm of the kernel's mbarrier ring depths: 2
        without rings). Each stage of an S-stage ring then gets as many uses, modulo 2,
        as in the real run (a loop nest's uses change by a multiple of 2 S), so a wait
        whose parity is a constant (the producer tail after a ring's loop) names the
        same phase in the shortened run as in the real one."""
        period = getattr(self, "_period", None)
        if period is None:
            from math import lcm

            depths = [AllocMbarrierOp(op).stages or 1 for op in d.walk_ops(self.kernel)
                      if AllocMbarrierOp.matches(op)]
            period = self._period = 2 * lcm(1, *depths)
        return 4 + (trips - 4) % period

    def branch(self, op) -> None:
        """Runs the branch an scf.if takes, or both from the same state and keeps the
        weaker result."""
        condition = self.eval.value(op.operands[0])
        then = op.regions[0].blocks[0]
        other = op.regions[1].blocks[0] if len(op.regions) > 1 and \
            len(op.regions[1].blocks) > 0 else None
        if condition is not None:
            self.bind(op.results, self.region(then if condition else other))
            return
        self.alternatives(op, [then, other])

    def switch(self, op) -> None:
        """Runs the case an scf.index_switch takes, or every case and the default from
        the same state and keeps the weakest result."""
        index = self.eval.value(op.operands[0])
        # Region 0 is the default, region i + 1 the case cases[i].
        blocks = [region.blocks[0] for region in op.regions]
        if index is not None:
            cases = list(ir.DenseI64ArrayAttr(op.attributes["cases"]))
            chosen = blocks[1 + cases.index(index)] if index in cases else blocks[0]
            self.bind(op.results, self.region(chosen))
            return
        self.alternatives(op, blocks[1:] + blocks[:1])

    def while_loop(self, op) -> None:
        """Runs an scf.while: the before region, then the after region while the
        condition holds. A condition that does not evaluate may end the loop there: each
        such exit (after 0, 1, .., UNKNOWN_TRIPS runs of the body) is kept, and the
        weakest of them is the state after the loop."""
        before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
        carried = [self.meaning(v) for v in op.operands]
        exits = []  # (live, mbarriers, forwarded) at each condition that does not evaluate
        runs = 0
        while True:
            self.bind(before.arguments, carried)
            self.block(before)
            condition = self.ops(before)[-1]  # scf.condition(%c) args...
            flag = self.eval.value(condition.operands[0])
            forwarded = [self.meaning(v) for v in list(condition.operands)[1:]]
            if flag is not None and not flag:
                break
            if flag and runs >= FULL_RUN_ITERATIONS:
                # A long loop: from here on its condition counts as not evaluating, so
                # that the exits after the next runs stand for the real one (like a long
                # scf.for, which runs 4 or a few more iterations).
                flag = None
                self.truncated = True
            runs += 1
            if flag is None:
                if len(exits) == UNKNOWN_TRIPS:
                    break  # the last exit considered: the state as it is
                exits.append(self.snapshot() + (forwarded,))
            self.bind(after.arguments, forwarded)
            carried = self.region(after)
        self.join(op, exits + [(self.live, self.mbarriers, forwarded)])

    def alternatives(self, op, blocks: list) -> None:
        """Runs each of `blocks` (None: a region that does nothing) from the state
        before `op` and keeps the weakest result."""
        saved = self.snapshot()
        ways = []
        for index, block in enumerate(blocks):
            if index:
                # Each way starts from its own copy (running one changes instances).
                last = index == len(blocks) - 1
                self.live, self.mbarriers = saved if last else self.copy(saved)
                self.find_waited()
            yielded = self.region(block)
            ways.append((self.live, self.mbarriers, yielded))
        self.join(op, ways)

    def join(self, op, ways: list) -> None:
        """Makes the weakest state of `ways` ((live, mbarriers, yielded) each) the current
        one and binds `op`'s results to what any of them yields."""
        self.live, self.mbarriers, _ = ways[0]
        for live, bars, _ in ways[1:]:
            self.merge(op, live, bars)
        self.find_waited()
        self.bind(op.results, self.join_meanings([yielded for _, _, yielded in ways]))

    def find_waited(self) -> None:
        """Rebuilds self.waited after self.mbarriers was replaced (at region ops only,
        which copy every mbarrier's state anyway)."""
        self.waited = {b: s for b, s in self.mbarriers.items() if s.last_wait is not None}

    def snapshot(self) -> tuple:
        """A copy of the state (instances, mbarriers) that running a region changes."""
        return self.copy((self.live, self.mbarriers))

    @staticmethod
    def copy(state: tuple) -> tuple:
        live, bars = state
        return ([replace(i, first_commit=dict(i.first_commit)) for i in live],
                {b: replace(s, commit_ops=dict(s.commit_ops)) for b, s in bars.items()})

    def merge(self, op, other_live: list, other_bars: dict) -> None:
        """Joins the state of another way through `op` into this one."""
        for barrier, state in other_bars.items():
            mine = self.mbarriers.get(barrier)
            if mine is None:
                self.mbarriers[barrier] = state
                continue
            self.align(op, barrier, mine, state, other_live)
            mine.unknown_after = mine.unknown_after or state.unknown_after
            mine.path_dependent = mine.path_dependent or state.path_dependent
            mine.seen = min(mine.seen, state.seen)
            mine.last_wait = mine.last_wait or state.last_wait
        # The same execution on both ways is as far ordered as on the weaker one; an
        # execution on one way only (or finished on the other) stays as it is.
        by_serial = {inst.serial: inst for inst in self.live}
        for inst in other_live:
            twin = by_serial.get(inst.serial)
            if twin is None:
                self.live.append(inst)
                continue
            for flag in ("complete", "released", "proxied", "synced", "acquired",
                         "registers_read"):
                setattr(twin, flag, getattr(twin, flag) and getattr(inst, flag))
            twin.first_commit = {b: max(i, twin.first_commit[b])
                                 for b, i in inst.first_commit.items()
                                 if b in twin.first_commit}

    def align(self, op, barrier, mine: MbarrierState, theirs: MbarrierState,
              their_live: list) -> None:
        """Makes the commit counts of one mbarrier on two ways equal, when a tracked wait
        cannot tell them apart.

        A tracked wait depends only on how far the thread's phase lags behind the most
        recent commit (its parity is (commits - 1) mod 2, and whether it blocks is
        decided against the phase the thread believes current), and an instance only on
        how far its commit lies behind. So the way with fewer commits is taken as having
        `delta` more at the start, all seen: its commit indices and seen phases move up
        together. That keeps every phase boundary and parity when delta is a multiple of
        the arrivals per phase and the phases it adds have the parity of delta."""
        if mine.commits == theirs.commits and mine.seen == theirs.seen:
            return
        delta = abs(mine.commits - theirs.commits)
        # A wait with a phase operand names an absolute parity: right on some ways only.
        mine.path_dependent = mine.path_dependent or \
            (op, "commit to it" if delta else "wait on it")
        if delta == 0:
            return
        arrivals = mine.arrivals
        if delta % arrivals or (delta // arrivals - delta) % 2:
            # No alignment keeps the phases: any later use of the mbarrier is an error
            # (see mbarrier()).
            mine.unknown_after = op
            mine.commits = max(mine.commits, theirs.commits)
            mine.commit_ops = {**theirs.commit_ops, **mine.commit_ops}
            return
        if mine.commits < theirs.commits:
            lower, lower_live = mine, self.live
        else:
            lower, lower_live = theirs, their_live
        lower.commits += delta
        lower.seen += delta // arrivals
        lower.commit_ops = {i + delta: commit for i, commit in lower.commit_ops.items()}
        for inst in lower_live:
            if barrier in inst.first_commit:
                inst.first_commit[barrier] += delta
        mine.commit_ops = {**theirs.commit_ops, **mine.commit_ops}
        mine.commits = max(mine.commits, theirs.commits)

    # ---------------------------------------------------------------- tcgen05 ops

    def tcgen05(self, op) -> None:
        """What a tcgen05 op checks and changes."""
        name = d.op_name(op)
        if name is None:
            return
        if name in SINGLE_THREAD_OPS or name in WARPGROUP_OPS or name in ("smem_fill",
                                                                          TMA_LOAD):
            if name == TMA_LOAD and self.pair:
                # Each CTA of a pair loads its own slice and both complete on the even
                # CTA's mbarrier, so the odd CTA never observes its own load's completion:
                # this one-program model, where every CTA sees each wait, would not be
                # sound for it (docs/cta-pairs.md).
                raise Unsupported(op, "tcgen05-verify-sync does not check TMA loads in a "
                                      "cta_group::2 kernel (each CTA's load completes on "
                                      "the even CTA's mbarrier, which the odd CTA does "
                                      "not wait on; docs/cta-pairs.md)")
            instance = self.instance(op, name)
            instance.needs_peer = self.pair and name in SINGLE_THREAD_OPS
            self.executions += 1
            instance.serial = self.executions
            self.check(op, instance)
            if name == TMA_LOAD:
                self.tma_phase(op, instance)
            self.live.append(instance)
        elif name == EXPECT_TX:
            self.expect_tx(op)
        elif name == "dealloc":
            self.check_dealloc(op)
        elif name == "alloc_mbarrier":
            count = AllocMbarrierOp(op).count
            if not 1 <= count < MBARRIER_MAX_COUNT:
                raise CompileError(op.location, mbarrier_count_error(count))
            for key in self.mbarrier_keys(op):
                self.mbarriers[key] = MbarrierState(count)
        elif name == "commit":
            self.commit(op)
        elif name == "mbarrier_wait":
            self.wait_phase(op)
        elif name == "wait":
            kind = WaitOp(op).kind
            names = (StOp.NAME,) if kind == "st" else LOADS
            for inst in self.live:
                if inst.name in names:
                    inst.complete = True
        elif name == "fence":
            if FenceOp(op).kind == "before_thread_sync":
                for inst in self.live:
                    if inst.warpgroup and inst.complete:
                        inst.released = True
            else:
                for inst in self.live:
                    if (inst.single_thread and inst.complete) or \
                            (inst.warpgroup and inst.synced):
                        inst.acquired = True
                    inst.peer_acquired = inst.peer_acquired or inst.peer_complete
        elif name == "fence_proxy_async":
            for inst in self.live:
                if inst.name == "smem_fill":
                    inst.proxied = True
        elif name == "barrier":
            for inst in self.live:
                if inst.released or inst.proxied:
                    inst.synced = True
            for state in self.waited.values():
                state.last_wait = None
            self.waited = {}
        self.live = [inst for inst in self.live if not inst.finished()]

    def expect_tx(self, op) -> None:
        """mbarrier_expect_tx: one arrival on the mbarrier, whose phase the tma_loads after
        it join (module docstring)."""
        barrier, state = self.mbarrier(op)
        self.separated(op, state, "tcgen05.mbarrier_expect_tx")
        index = state.commits
        state.commits += 1
        state.commit_ops[index] = op
        state.open_expect = index

    def tma_phase(self, op, instance: Instance) -> None:
        """A tma_load completes with the phase of the open expect_tx of its mbarrier."""
        if load_barrier(op) is None:
            raise Unsupported(op, BARRIERLESS)
        barrier, state = self.mbarrier(op, 2)
        if state.open_expect is None:
            self.problem(op, ("expect_tx",),
                         f"tcgen05.tma_load signals complete_tx on an mbarrier with no "
                         f"tcgen05.mbarrier_expect_tx in its current phase (none since the "
                         f"last wait or commit on it): the phase completes without its "
                         f"bytes, or its bytes land in a later phase (PTX ISA 9.7.13.15)")
            instance.complete = True  # reported: nothing further to say about it
            return
        instance.first_commit[barrier] = state.open_expect

    def separated(self, op, state: MbarrierState, what: str, arrival: str = "arrival") -> None:
        """An arrival (`what`, an `arrival` of the mbarrier) must not follow a wait on its
        mbarrier without a barrier between."""
        if state.last_wait is not None:
            self.problem(op, ("phase", state.last_wait),
                         f"{what} to the mbarrier that the wait at "
                         f"{_where(state.last_wait)} waits on, with no barrier between "
                         f"them: a thread still in that wait could see this {arrival} "
                         f"complete the next phase too and then wait for a phase that "
                         f"never completes")

    def commit(self, op) -> None:
        """tcgen05.commit: the mbarrier's next arrival comes when every earlier single-thread op completes."""
        barrier, state = self.mbarrier(op)
        state.open_expect = None
        self.separated(op, state, "tcgen05.commit", "commit")
        index = state.commits
        state.commits += 1
        state.commit_ops[index] = op
        for inst in self.live:
            if inst.single_thread and not (inst.complete and
                                           (inst.peer_complete or not inst.needs_peer)):
                inst.first_commit.setdefault(barrier, index)

    def wait_phase(self, op) -> None:
        """mbarrier_wait, as try_wait.parity behaves (see the module docstring)."""
        barrier, state = self.mbarrier(op)
        if len(op.operands) > 1:
            if state.path_dependent is not None:
                region, verb = state.path_dependent
                raise Unsupported(op, f"the phase of this op's mbarrier is unknown here: "
                                      f"{_ways(region)} {verb} a different number of "
                                      f"times (a wait without a phase operand follows "
                                      f"the way taken)")
            parity = self.eval.value(op.operands[1])
            if parity is None:
                raise Unsupported(op, "tcgen05-verify-sync cannot evaluate the phase parity "
                                      "of this wait")
            named = f"parity {parity & 1}"
        else:
            # Tracked: the phase the most recent commit completes, (commits - 1) mod 2;
            # with no commit yet, 1: the phase before the first, complete at once.
            parity = (state.commits - 1) & 1
            named = f"parity {parity} (that of the most recent tcgen05.commit to it)"
        if (state.seen & 1) == (parity & 1):
            # try_wait.parity blocks until the phase the thread considers current ends.
            possible = state.commits // state.arrivals
            if state.seen + 1 > possible:
                self.problem(op, ("deadlock",),
                             f"this wait for {named} of the mbarrier needs "
                             f"phase {state.seen} to complete, but only {state.commits} "
                             f"tcgen05.commit ops were issued to it before: it never "
                             f"returns")
            else:
                state.seen += 1
        state.last_wait = op
        self.waited[barrier] = state
        state.open_expect = None
        for inst in self.live:
            index = inst.first_commit.get(barrier)
            if index is not None and index // state.arrivals < state.seen:
                # The CTAs that wait are those the commit arrives at (module docstring).
                ctas = _arrival_ctas(state.commit_ops[index]) if self.pair else ISSUING_CTA
                inst.complete = inst.complete or bool(ctas & ISSUING_CTA)
                inst.peer_complete = inst.peer_complete or bool(ctas & PEER_CTA)

    @staticmethod
    def mbarrier_keys(op) -> list:
        """What identifies each mbarrier an alloc_mbarrier creates: its result, or for a
        ring of S stages (result, i) for each stage i (the lowering places stage i at
        8 i bytes, its own 8-byte object: lowering/core.py)."""
        stages = AllocMbarrierOp(op).stages
        if stages is None:
            return [op.results[0]]
        return [(op.results[0], i) for i in range(max(stages, 0))]

    def mbarrier_name(self, op, value):
        """The mbarrier `value` (an operand of `op`) is: an alloc_mbarrier's result, or
        (ring, i) for a stage of a ring whose index i evaluates here (``mbarrier_keys``).
        A stage whose index does not evaluate, or one outside the ring, is refused."""
        names = self.roots(value)
        if len(names) > 1:
            raise Unsupported(op, "tcgen05-verify-sync cannot check this op: its mbarrier "
                                  "may be one of several (the ways into it yield "
                                  "different ones)")
        stage = defining_op(names[0])
        if stage is None or not MbarrierStageOp.matches(stage):
            return names[0]
        view = MbarrierStageOp(stage)
        rings = self.roots(view.ring)
        index = self.eval.value(view.stage)
        if len(rings) > 1 or index is None:
            raise Unsupported(op, "tcgen05-verify-sync cannot tell which stage of an mbarrier "
                                  "ring this op's mbarrier is: its tcgen05.mbarrier_stage "
                                  "index does not evaluate here")
        return (rings[0], index)

    def mbarrier(self, op, position: int = 0) -> tuple:
        """(the mbarrier `op` names (operand `position`), its state)."""
        barrier = self.mbarrier_name(op, op.operands[position])
        state = self.mbarriers.get(barrier)
        if state is None:
            raise Unsupported(op, "the mbarrier of this op is not a tcgen05.alloc_mbarrier "
                                  "of the kernel")
        if state.unknown_after is not None:
            raise Unsupported(op, f"the phase of this op's mbarrier is unknown here: "
                                  f"{_ways(state.unknown_after)} commit to it a different "
                                  f"number of times")
        return barrier, state

    def register_reads(self, op) -> None:
        """Marks the loads whose registers `op` reads."""
        known = self.loads_read.get(op)
        if known is None:
            loads, bound = [], []
            for operand in op.operands:
                # Integers are no registers of a load; kernel arguments are bound to
                # nothing.
                if isinstance(operand.type, (ir.IndexType, ir.IntegerType)) or \
                        operand in self.kernel_args:
                    continue
                if self.varies(operand):
                    bound.append(operand)  # a region result or block argument
                    continue
                owner = defining_op(operand)
                if isinstance(wrap(owner), (LdOp, LdRedOp)):
                    loads.append(owner)
            known = self.loads_read[op] = (loads, bound)
        loads, bound = known
        if bound:
            loads = list(loads)
            for operand in bound:
                for value in self.roots(operand):
                    owner = defining_op(value)
                    if owner is not None and isinstance(wrap(owner), (LdOp, LdRedOp)):
                        loads.append(owner)
        for owner in loads:
            for inst in self.live:
                if inst.op == owner:
                    inst.registers_read = True

    # ---------------------------------------------------------------- footprints

    def cells(self, value) -> list:
        """[(cells, linear)] for every buffer `value` may name now (one, unless it is a
        region result or block argument that several ways bound), where linear says
        whether column c of the buffer is TMEM column (first column + c)."""
        found = []
        for root in self.roots(value):
            for cell in self.buffer_cells(root):
                if cell not in found:
                    found.append(cell)
        return found

    def buffer_cells(self, value) -> list:
        """[(cells, linear)] of one buffer value."""
        op = defining_op(value)
        if op is not None and TmemStageOp.matches(op):
            # A stage (the planner places its buffer): the staged buffer's cells (which
            # may itself be bound at run time), none of them linear.
            return [(cells, False) for cells, _ in self.cells(TmemStageOp(op).buffer)]
        if not _placed(op):
            # Not a placed buffer (e.g. a region result no way bound): every cell.
            return [(Footprint(0, TMEM_COLUMNS, FULL_LANES, known=False), False)]
        buffer = TmemBufferOp(op)
        first = buffer.column_offset
        columns = buffer.columns or 0
        half = bool(buffer.half_lanes)
        lanes = _lanes(buffer.lane_offset or 0, half)
        stages = d.type_info(buffer.buffer.type).shape
        if len(stages) == 3:
            # `columns` is one stage's footprint; where each stage sits (side by side, or
            # paired on lane halves) is the planner's: take all of them on every lane.
            return [(Footprint(first, first + columns * stages[0], FULL_LANES), False)]
        shape = d.type_info(value.type).shape
        linear = not half and len(shape) == 2 and columns == shape[-1]
        return [(Footprint(first, first + columns, lanes), linear)]

    def copy_cells(self, op) -> list:
        """The cells a tcgen05.cp writes in each buffer its destination may name: from
        the buffer's first column plus the op's ``column``, COPY_COLUMNS[shape] columns,
        on the lanes COPY_LANES gives (all 128 for every shape but .4x256b, whose 4 lanes
        start at the buffer's lane offset). A destination that is not a placed buffer
        keeps the buffer's own cells."""
        cp = CpOp(op)
        shape = cp.shape
        width = COPY_COLUMNS.get(shape)
        column = cp.column
        found = []
        for root in self.roots(cp.dest):
            owner = defining_op(root)
            for cells, linear in self.buffer_cells(root):
                placed = _placed(owner) and \
                    len(d.type_info(owner.results[0].type).shape) == 2
                if width is None or not placed or not cells.known:
                    found.append(cells)
                    continue
                lanes = FULL_LANES
                if shape == "4x256b":
                    lanes = ((1 << 4) - 1) << (TmemBufferOp(owner).lane_offset or 0)
                first = cells.lo + column
                found.append(Footprint(first, first + width, lanes))
        return found

    def a_block_cells(self, op, value) -> list:
        """The cells of A in tensor memory that one MMA reads: in a buffer whose layout
        puts A's rows on lanes one to one (A_LINEAR_LAYOUTS), the 32-bit columns of its K
        block, from column k_offset x container bits / 32 of the buffer (k_offset halved
        for a sparse MMA, whose A is stored compressed, 9.7.16.10.8), A_ROW_BITS / 32
        wide; any other buffer (a stage, a folded layout, one bound to nothing placed)
        whole."""
        mma = MmaOp(op)
        bits = A_CONTAINER_BITS.get(mma.kind)
        offset = mma.k_offset or 0
        if mma.sparse:
            offset //= 2
        width = (A_ROW_BITS_K96 if mma.k == 96 else A_ROW_BITS) // 32
        found = []
        for root in self.roots(value):
            owner = defining_op(root)
            linear = _placed(owner) and bits is not None \
                and len(d.type_info(owner.results[0].type).shape) == 2 \
                and TmemBufferOp(owner).layout in A_LINEAR_LAYOUTS
            for cells, _ in self.buffer_cells(root):
                if not linear or not cells.known or (offset * bits) % 32:
                    found.append(cells)
                    continue
                first = cells.lo + offset * bits // 32
                found.append(Footprint(first, first + width, cells.lanes))
        return found

    def tiles(self, value) -> list:
        """The shared-memory tiles `value` may name now; ANY_TILE for one no way bound
        (or a ub.poison)."""
        out = []
        for root in self.roots(value):
            owner = defining_op(root)
            if owner is not None and SmemStageOp.matches(owner):
                # A stage view counts as its whole multi-stage tile: accesses to different
                # stages are ordered as if they met (more than needed, never less).
                found = self.tiles(SmemStageOp(owner).tile)
            else:
                found = [ANY_TILE if self.varies(root) or _poison(root) else root]
            out += [t for t in found if t not in out]
        return out

    def instance(self, op, name: str) -> Instance:
        """A new execution of `op`: its cells (a load's or store's slice from the column
        its operand has now), the rest computed once per op unless an operand is bound
        at run time (a region result or block argument)."""
        fixed = self.static.get(op)
        if fixed is None:
            fixed = self.fixed_instance(op, name)
            varying = self.varying.get(op)
            if varying is None:
                varying = self.varying[op] = any(
                    self.varies(v) for v in op.operands
                    if not isinstance(v.type, (ir.IndexType, ir.IntegerType)))
            if not varying:
                self.static[op] = fixed
        if name not in WARPGROUP_OPS:
            return Instance(op, name, list(fixed.tmem_reads), list(fixed.tmem_writes),
                            fixed.tiles_read, fixed.tiles_written, fixed.shape_key)
        buffers, column, width = fixed
        start = self.eval.value(column)
        cells = []
        for whole, linear in buffers:
            if linear and start is not None:
                whole = Footprint(whole.lo + start, whole.lo + start + width, whole.lanes)
            cells.append(whole)
        if name == StOp.NAME:
            return Instance(op, name, [], cells, [], [])
        return Instance(op, name, cells, [], [], [])

    def fixed_instance(self, op, name: str):
        """The parts of an instance of `op` that are the same in every execution with
        the same bindings."""
        if name in WARPGROUP_OPS:
            frag = wrap(op).fragment
            width = d.type_info(frag.type).shape[1]
            return self.cells(op.operands[0]), op.operands[1], width
        if name == MmaOp.NAME:
            operands = mma_operands(op)
            mma = MmaOp(op)
            accumulators = [cells for cells, _ in self.cells(operands.d)]
            reads = [cells for v in (operands.scale_a, operands.scale_b, operands.metadata)
                     if v is not None and d.is_tmem(v) for cells, _ in self.cells(v)]
            if d.is_tmem(operands.a):
                reads += self.a_block_cells(op, operands.a)
            shape = (operands.d_type.rows, operands.d_type.cols, mma.kind, mma.sparse,
                     mma.k or 0)
            tiles = [t for v in (operands.a, operands.b) if d.is_smem(v)
                     for t in self.tiles(v)]
            return Instance(op, name, reads + accumulators, list(accumulators), tiles, [],
                            shape)
        if name == CpOp.NAME:
            return Instance(op, name, [], self.copy_cells(op), self.tiles(CpOp(op).source),
                            [], (CpOp(op).shape,))
        if name == ShiftOp.NAME:
            cells = [cells for cells, _ in self.cells(op.operands[0])]
            return Instance(op, name, cells, list(cells), [], [])
        # smem_fill and tma_load: the tile is operand 1
        return Instance(op, name, [], [], [], self.tiles(op.operands[1]))

    # ---------------------------------------------------------------- checks

    def check(self, op, later: Instance) -> None:
        """Reports every earlier instance `later` depends on without the ordering it needs."""
        for earlier in self.live:
            self.checked += 1
            if earlier.op == op and later.name in LOADS:
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
            elif not later.single_thread:
                self.check_peer(op, earlier, f"{what} that {earlier.op.name} at "
                                             f"{_where(earlier.op)} {verb}", section, need)

    def check_peer(self, op, earlier: Instance, what: str, section: str,
                   need: str = "acquired") -> None:
        """In a pair kernel, `op` runs in the odd CTA too: the completion of the
        single-thread `earlier` must have been seen (and acquired) there (module
        docstring)."""
        if not earlier.needs_peer or earlier.peer_acquired or \
                (need == "complete" and earlier.peer_complete):
            return
        if earlier.peer_complete:
            self.problem(op, (earlier.op, "peer"),
                         f"{op.name} {what}, and runs in both CTAs of the pair: missing "
                         f"tcgen05.fence::after_thread_sync after the mbarrier wait "
                         f"({section})")
            return
        barrier, index = next(iter(earlier.first_commit.items()), (None, None))
        commit = self.mbarriers[barrier].commit_ops.get(index) if barrier is not None \
            else None
        seen = (f"the tcgen05.commit at {_where(commit)} arrives only at the mbarrier of "
                f"CTA mask {_arrival_ctas(commit):#b}" if commit is not None
                else "its completion is seen in the issuing CTA only")
        self.problem(op, (earlier.op, "peer"),
                     f"{op.name} {what}, and runs in both CTAs of the pair, but {seen}: "
                     f"the odd CTA never waits for it; missing a tcgen05.commit with "
                     f"multicast_mask = 0b11 -> mbarrier wait -> "
                     f"tcgen05.fence::after_thread_sync ({section}, 9.7.16.12.1)")

    def check_dealloc(self, op) -> None:
        """Reports every TMEM access not ordered before this dealloc."""
        for earlier in self.live:
            self.checked += 1
            if earlier.name in ("smem_fill", TMA_LOAD):
                continue
            missing = self.missing(earlier, "acquired")
            cells = (earlier.tmem_writes or earlier.tmem_reads)[0].text()
            if missing is not None:
                self.problem(op, (earlier.op, missing),
                             f"tcgen05.dealloc frees {cells} that {earlier.op.name} at "
                             f"{_where(earlier.op)} accesses, without ordering: missing "
                             f"{missing} (9.7.16.6.4.4)")
            else:
                self.check_peer(op, earlier, f"frees {cells} that {earlier.op.name} at "
                                             f"{_where(earlier.op)} accesses", "9.7.16.6.4.4")

    def overlap(self, earlier: Instance, later: Instance):
        """(what `later` does, what `earlier` does) when they conflict, else None."""
        mine = _meeting(later.tmem_reads, earlier.tmem_writes)
        if mine is not None:
            return f"reads {mine.text()}", "writes"
        mine = _meeting(later.tmem_writes, earlier.tmem_writes)
        if mine is not None:
            return f"writes {mine.text()}", "also writes"
        mine = _meeting(later.tmem_writes, earlier.tmem_reads)
        if mine is not None:
            return f"writes {mine.text()}", "reads"
        if earlier.name == TMA_LOAD and _tiles_meet(later.tiles_read + later.tiles_written,
                                                    earlier.tiles_written):
            return ("reads a shared-memory tile" if later.tiles_read else
                    "overwrites a shared-memory tile"), "writes through the async proxy (TMA)"
        if _tiles_meet(later.tiles_read, earlier.tiles_written):
            return "reads a shared-memory tile", "writes through the generic proxy"
        if _tiles_meet(later.tiles_written, earlier.tiles_read):
            return "overwrites a shared-memory tile", "reads through the async proxy"
        return None

    def need(self, earlier: Instance, later: Instance) -> tuple:
        """(what `earlier` must have reached, the ISA section) for a conflicting pair."""
        if earlier.name == TMA_LOAD:
            return "complete", "PTX ISA 9.7.9.25.5.1, complete_tx"
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
            # An accumulator may be one of several buffers: whichever each one is, the
            # two must be the same known buffer, or share no cell (then they do not
            # depend on each other at all).
            return earlier.shape_key == later.shape_key and all(
                (mine == theirs and mine.known) or not mine.meets(theirs)
                for mine in earlier.tmem_writes for theirs in later.tmem_writes)
        if condition == "cp.4x256b":
            return later.shape_key == ("4x256b",)
        return True

    def missing(self, earlier: Instance, need: str) -> str | None:
        """The mechanism still missing for `earlier` to reach `need`, or None."""
        if earlier.name == TMA_LOAD:
            if earlier.complete:
                return None
            barrier, index = next(iter(earlier.first_commit.items()))
            expect = self.mbarriers[barrier].commit_ops[index]
            return (f"an mbarrier wait for the phase that the tcgen05.mbarrier_expect_tx at "
                    f"{_where(expect)} arrives in")
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
        Option("partitions", str, "check", "kernels with tcgen05.partitions or "
               "tcgen05.mbarrier_arrive, whose roles run concurrently: check them "
               "(check, passes/verify_sync_roles.py), refuse them with a diagnostic "
               "(refuse), or pass them on unchecked (skip), saying so with report=true",
               ("check", "refuse", "skip")),
    )

    def apply(self, module) -> None:
        """Runs every kernel of `module` and reports what is unordered."""
        for kernel in d.kernels(module):
            unplanned = unplanned_buffer(kernel, self.name)
            if unplanned:
                self.error(*unplanned)
                continue
            concurrent = user_synchronized(kernel)
            if concurrent is not None:
                mode = self.option("partitions")
                if mode == "refuse":
                    self.error(concurrent, "tcgen05-verify-sync was told not to check "
                                           "kernels with concurrently running roles or "
                                           "hand-written mbarrier arrivals "
                                           "(partitions=refuse): run it with "
                                           "partitions=check to check the kernel, or "
                                           "partitions=skip to pass it on unchecked "
                                           "(docs/partitions.md)")
                elif mode == "skip":
                    if self.option("report"):
                        print(f"tcgen05-verify-sync: kernel @{d.kernel_info(kernel).name}: "
                              f"not checked (tcgen05.partitions, partitions=skip)",
                              file=self.report_stream)
                else:
                    self.check_concurrent(kernel)
                continue
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

    def check_concurrent(self, kernel) -> None:
        """A kernel with roles or hand-written arrivals (passes/verify_sync_roles.py)."""
        from tcgen05_lower.passes.verify_sync_roles import check_roles

        try:
            problems, steps, checked, truncated = check_roles(self, kernel)
        except Unsupported as exc:
            self.error(exc.op, exc.message)
            return
        for op, message in problems:
            self.error(op, message)
        if self.option("report"):
            verdict = "ordered" if not problems else f"{len(problems)} unordered"
            note = " (long loops shortened)" if truncated else ""
            print(f"tcgen05-verify-sync: kernel @{d.kernel_info(kernel).name}: roles run "
                  f"concurrently, {steps} events run, {checked} pairs checked{note}: "
                  f"{verdict}", file=self.report_stream)
