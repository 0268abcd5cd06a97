"""The one-program model's vocabulary: TMEM footprints, instances of asynchronous ops
and how far each is ordered, mbarrier states, the evaluator of integer values, the ISA
facts the checks use (lanes, columns, the pipelined pairs of 9.7.16.6.2), and small
helpers that name locations and cells in messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from tcgen05_lower.bindings import file_location, int_value, ir
from tcgen05_lower.dialect.ops import (CommitOp, CpOp, LdOp, LdRedOp, MmaOp, ShiftOp, StOp,
                                       TmemBufferOp)
from tcgen05_lower.kernel_ir import defining_op


#: The TMA ops (module docstring).
TMA_LOAD, EXPECT_TX = "tma_load", "mbarrier_expect_tx"

#: %cluster_ctarank bits (9.7.16.5.1): the even CTA, which issues the single-thread ops
#: of a pair (Table 46), and its peer.
ISSUING_CTA, PEER_CTA = 0b01, 0b10


def arrival_ctas(commit) -> int:
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


def first_meeting(mine: list, theirs: list):
    """The first footprint of `mine` that shares a cell with one of `theirs`, or None.
    One that differs from a footprint it meets comes first: with buffers chosen at run
    time, that is the choice that makes two MMAs different accumulators."""
    hits = [m for m in mine if any(m.meets(t) for t in theirs)]
    partial = [m for m in hits if any(m.meets(t) and m != t for t in theirs)]
    return (partial or hits or [None])[0]


def is_placed_buffer(op) -> bool:
    """Whether `op` (or None) is a tcgen05.tmem_buffer the planner placed: it has its
    column_offset."""
    return op is not None and TmemBufferOp.matches(op) \
        and TmemBufferOp(op).has(TmemBufferOp.column_offset)


def lane_mask(lane_offset: int, half: bool) -> int:
    """The lane mask of a buffer: all 128 lanes, or 16 of each 32-lane quarter."""
    if not half:
        return FULL_LANES
    mask = 0
    for quarter in range(4):
        mask |= ((1 << 16) - 1) << (quarter * 32 + lane_offset)
    return mask


def line_col_text(op) -> str:
    """``line 12:3`` (the kernel's file is the one the diagnostic names)."""
    _, line, col = file_location(op.location)
    return f"line {line}:{col}" if line is not None else "an unknown location"


def ways_text(op) -> str:
    """The ways through a region op, as messages name them."""
    what = {"scf.while": "the exits", "scf.index_switch": "the cases"}.get(op.name,
                                                                         "the branches")
    return f"{what} of the {op.name} at {line_col_text(op)}"


def is_poison(value) -> bool:
    """Whether `value` is a ub.poison result."""
    op = defining_op(value)
    return op is not None and op.name == "ub.poison"


def tiles_meet(mine: list, theirs: list) -> bool:
    """Whether two lists of possible tiles may name the same tile."""
    for a in mine:
        for b in theirs:
            if a is ANY_TILE or b is ANY_TILE or a == b:
                return True
    return False


def lane_text(mask: int) -> str:
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
        return f"TMEM columns [{self.lo}, {self.hi}){lane_text(self.lanes)}"


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
